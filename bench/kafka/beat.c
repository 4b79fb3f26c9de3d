/*
 * See beat.h.  bench/kafka/rebalance.stoat calls beat() for every record:
 * it sleeps (so that two instances each take a steady, small share of the
 * input and never run out of it) and, at most every 100 ms per partition,
 * writes "beat <partition>" to stderr, where bench/kafka/rebalance.py
 * timestamps it: a partition that beats is being processed.
 */
#define _POSIX_C_SOURCE 200809L
#include "beat.h"

#include <stdio.h>
#include <time.h>

/* Milliseconds on the monotonic clock. */
static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool beat(stoat_ctx *cx, int64_t micros)
{
	static int64_t last[1024];
	if (micros > 0) {
		struct timespec ts = { micros / 1000000, (long)(micros % 1000000) * 1000 };
		nanosleep(&ts, NULL);
	}
	int32_t p = cx->msg ? cx->msg->partition : -1;
	if (p >= 0 && p < 1024) {
		int64_t now = now_ms();
		if (now - last[p] >= 100) {
			last[p] = now;
			fprintf(stderr, "beat %d\n", (int)p);
		}
	}
	return true;
}
