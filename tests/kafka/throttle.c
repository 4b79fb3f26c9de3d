/* See throttle.h. */
#define _POSIX_C_SOURCE 200809L
#include "throttle.h"

#include <time.h>

bool throttle(stoat_ctx *cx, int64_t micros)
{
	(void)cx;
	if (micros > 0) {
		struct timespec ts = { micros / 1000000, (long)(micros % 1000000) * 1000 };
		nanosleep(&ts, NULL);
	}
	return true;
}
