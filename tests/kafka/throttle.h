/* Slows a test app down so that kill -9 lands in the middle of its work. */
#ifndef STOAT_TEST_THROTTLE_H
#define STOAT_TEST_THROTTLE_H
#include <stoat/runtime.h>
bool throttle(stoat_ctx *cx, int64_t micros);
#endif
