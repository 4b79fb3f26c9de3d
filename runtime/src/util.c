/*
 * util.c - allocation that cannot fail, the monotonic clock, and the
 * names of the application table's enums: the runtime's bottom layer.
 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Reports the failed allocation and aborts: out of memory is not a
 * per-record error, and no caller could go on without the memory. */
void stoat_out_of_memory(const char *what, size_t n)
{
	fprintf(stderr, "stoat: out of memory (%s, %zu bytes)\n", what, n);
	abort();
}

/* malloc that never returns NULL; malloc(0) still gets a real block. */
void *stoat_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		stoat_out_of_memory("malloc", n);
	return p;
}

/* calloc that never returns NULL; zero counts still get a real block. */
void *stoat_xcalloc(size_t count, size_t size)
{
	if (count == 0 || size == 0)
		count = size = 1;
	void *p = calloc(count, size);
	if (!p)
		stoat_out_of_memory("calloc", count * size);
	return p;
}

/* realloc that never returns NULL and refuses a count * size overflow. */
void *stoat_xrealloc(void *p, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
		stoat_out_of_memory("realloc (size overflow)", SIZE_MAX);
	size_t n = count * size;
	if (n == 0)
		n = 1;
	void *q = realloc(p, n);
	if (!q)
		stoat_out_of_memory("realloc", n);
	return q;
}

/* strndup that never returns NULL. */
char *stoat_xstrndup(const char *s, size_t n)
{
	char *p = stoat_xcalloc(n + 1, 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* strdup that never returns NULL. */
char *stoat_xstrdup(const char *s)
{
	return stoat_xstrndup(s, strlen(s));
}

/* CLOCK_MONOTONIC in milliseconds: intervals survive clock changes. */
int64_t stoat_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Seconds of the monotonic clock, to the nanosecond: for latencies. */
double stoat_now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Milliseconds since the epoch (the wall clock, as record timestamps). */
int64_t stoat_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The name of a format as the .stoat language and `describe` spell it. */
const char *stoat_format_name(stoat_format f)
{
	switch (f) {
	case STOAT_FMT_BYTES: return "bytes";
	case STOAT_FMT_TEXT: return "text";
	case STOAT_FMT_JSON: return "json";
	case STOAT_FMT_I32: return "i32";
	case STOAT_FMT_I64: return "i64";
	case STOAT_FMT_F64: return "f64";
	case STOAT_FMT_AVRO_RAW: return "avro_raw";
	case STOAT_FMT_AVRO: return "avro";
	}
	return "(unknown format)";
}
/*
 * Kafka's rule for topic names: 1 to 249 characters from [a-zA-Z0-9._-],
 * not "." or "..".  Names that come from data (per-record topics) or from
 * settings (dead-letter topics) are checked before use; the compiler
 * checks those in the program.
 */
bool stoat_topic_name_valid(stoat_str topic)
{
	if (topic.len == 0 || topic.len > 249)
		return false;
	if ((topic.len == 1 && topic.ptr[0] == '.') || (topic.len == 2 && topic.ptr[0] == '.' && topic.ptr[1] == '.'))
		return false;
	for (size_t i = 0; i < topic.len; i++) {
		char c = topic.ptr[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '.' || c == '_' || c == '-';
		if (!ok)
			return false;
	}
	return true;
}

/* The name of an error policy. */
const char *stoat_policy_name(stoat_policy p)
{
	switch (p) {
	case STOAT_POLICY_DEFAULT: return "default";
	case STOAT_POLICY_FAIL: return "fail";
	case STOAT_POLICY_SKIP: return "skip";
	case STOAT_POLICY_DLQ: return "dlq";
	}
	return "(unknown policy)";
}
/* The name of a processing guarantee. */
const char *stoat_guarantee_name(stoat_guarantee g)
{
	switch (g) {
	case STOAT_AT_LEAST_ONCE: return "at_least_once";
	case STOAT_EXACTLY_ONCE: return "exactly_once";
	}
	return "(unknown guarantee)";
}
