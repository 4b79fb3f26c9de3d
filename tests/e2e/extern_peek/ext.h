/* Extern functions of the extern_peek e2e case. */
#ifndef EXT_H
#define EXT_H

#include <stoat/runtime.h>

/* s with its bytes in reverse order, allocated in the arena. */
stoat_str ext_reverse(stoat_ctx *cx, stoat_str s);
/* n / 2; a per-record error for an odd n. */
int64_t ext_checked_half(stoat_ctx *cx, int64_t n);
/* Writes "peek saw TAG=S" to stderr; returns true. */
bool log_seen(stoat_ctx *cx, stoat_str tag, stoat_str s);
/* "neg", "zero" or "pos"; null for null. */
stoat_opt_str ext_sign(stoat_ctx *cx, stoat_opt_i64 x);

#endif
