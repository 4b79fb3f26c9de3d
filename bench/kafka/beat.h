/* bench/run-rebalance's heartbeat: which partitions are being processed. */
#ifndef STOAT_BENCH_BEAT_H
#define STOAT_BENCH_BEAT_H
#include <stoat/runtime.h>
bool beat(stoat_ctx *cx, int64_t micros);
#endif
