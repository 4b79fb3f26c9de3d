/* The extern of the flush_path e2e case. */
#ifndef FLUSH_H
#define FLUSH_H

#include <stoat/runtime.h>

/* Calls store 0's flush function with five hand-made updates; returns true. */
bool call_flush(stoat_ctx *cx, stoat_str tag);

#endif
