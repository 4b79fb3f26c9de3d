/*
 * errors.c - per-record errors: recording them, applying the error policy,
 * and the fixed-width decoders whose only job is to report wrong lengths.
 */
#include "driver.h"
#include "log.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>

/* Records the first error of the current record; later ones are dropped
 * because they are usually consequences of the first. */
void stoat_error(stoat_ctx *cx, const char *fmt, ...)
{
	if (cx->error)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cx->error_message, sizeof(cx->error_message), fmt, ap);
	va_end(ap);
	cx->error = true;
}

/* Checked arithmetic overflowed: "integer overflow in '+'". */
void stoat_error_overflow(stoat_ctx *cx, const char *op)
{
	stoat_error(cx, "integer overflow in '%s'", op);
}

/* Integer or float division (or remainder) by zero. */
void stoat_error_div_zero(stoat_ctx *cx)
{
	stoat_error(cx, "division by zero");
}

/* Reports a fixed-width value of the wrong size. */
static bool decode_wrong_length(stoat_ctx *cx, size_t want, const char *type, size_t got)
{
	stoat_error(cx, "expected %zu bytes for %s, got %zu", want, type, got);
	return false;
}

/* Kafka's IntegerDeserializer: exactly 4 big-endian bytes. */
bool stoat_decode_be32(stoat_ctx *cx, stoat_str s, int32_t *out)
{
	if (s.len != 4)
		return decode_wrong_length(cx, 4, "i32", s.len);
	const unsigned char *p = (const unsigned char *)s.ptr;
	uint32_t u = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	memcpy(out, &u, sizeof u);
	return true;
}

/* Reads 8 big-endian bytes. */
static uint64_t load_be64(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | p[i];
	return u;
}

/* Kafka's LongDeserializer: exactly 8 big-endian bytes. */
bool stoat_decode_be64(stoat_ctx *cx, stoat_str s, int64_t *out)
{
	if (s.len != 8)
		return decode_wrong_length(cx, 8, "i64", s.len);
	uint64_t u = load_be64(s.ptr);
	memcpy(out, &u, sizeof u);
	return true;
}

/* Kafka's DoubleDeserializer: the 8 big-endian bytes of an IEEE double. */
bool stoat_decode_be_f64(stoat_ctx *cx, stoat_str s, double *out)
{
	if (s.len != 8)
		return decode_wrong_length(cx, 8, "f64", s.len);
	uint64_t u = load_be64(s.ptr);
	memcpy(out, &u, sizeof u);
	return true;
}

/* Logs "record t/p@o (timestamp ts): message<suffix>" (log.h) at level. */
static void report_record(const stoat_ctx *cx, const char *level, const char *suffix)
{
	const char *topic = cx->source ? cx->source->topic : "?";
	stoat_log_level l = strcmp(level, "error") == 0 ? STOAT_LOG_ERROR : STOAT_LOG_WARNING;
	if (cx->msg)
		stoat_log(l, "record_failed", NULL, "record %s/%" PRId32 "@%" PRId64 " (timestamp %" PRId64 "): %s%s",
			  topic, cx->msg->partition, cx->msg->offset, cx->msg->timestamp, cx->error_message, suffix);
	else
		stoat_log(l, "record_failed", NULL, "record of %s: %s%s", topic, cx->error_message, suffix);
}

/*
 * Reports a record the policy let through (skip, dlq): every one of the
 * first STOAT_SKIP_WARN_FIRST, then one in STOAT_SKIP_WARN_EVERY, so a
 * flood of bad records cannot drown the log; the rest are counted.
 */
static void warn_rate_limited(stoat_ctx *cx, const char *suffix)
{
	stoat_driver *d = cx->driver;
	uint64_t seen = d ? d->skip_warnings_printed + d->skip_warnings_hidden + 1 : 1;
	bool show = seen <= STOAT_SKIP_WARN_FIRST || (seen - STOAT_SKIP_WARN_FIRST) % STOAT_SKIP_WARN_EVERY == 0;
	if (show)
		report_record(cx, "warning", suffix);
	if (d) {
		if (show)
			d->skip_warnings_printed++;
		else
			d->skip_warnings_hidden++;
	}
}

/*
 * Applies the error policy to the record that just failed.  Skip: count,
 * warn (the first STOAT_SKIP_WARN_FIRST, then one in STOAT_SKIP_WARN_EVERY,
 * so a flood of bad records cannot drown the log) and go on.  Fail: report,
 * mark the task stopped and tell the pipeline to return.
 */
bool stoat_record_failed(stoat_ctx *cx)
{
	assert(cx->error);
	if (cx->abandoned) {
		cx->error = false;
		cx->stopped = true;
		return false;
	}
	cx->counters.records_failed++;
	stoat_policy policy = stoat_effective_policy(cx);
	if (policy == STOAT_POLICY_SKIP) {
		cx->counters.records_skipped++;
		warn_rate_limited(cx, " (skipped)");
		cx->error = false;
		return true;
	}
	if (policy == STOAT_POLICY_DLQ) {
		char suffix[300];
		snprintf(suffix, sizeof suffix, " (dead-lettered to %s)", stoat_effective_dlq_topic(cx));
		warn_rate_limited(cx, suffix);
		stoat_dead_letter(cx);
		cx->error = false;
		if (cx->abandoned) {
			/* Not written (the driver said why): not counted as dead-lettered. */
			cx->stopped = true;
			return false;
		}
		cx->counters.records_dead_lettered++;
		return true;
	}
	assert(policy == STOAT_POLICY_FAIL);
	report_record(cx, "error", "");
	cx->error = false;
	cx->stopped = true;
	return false;
}

/*
 * Counts a record left out by design (*count) and reports it when it is
 * the first of its kind (*reported: the driver's flag; without a driver,
 * every one) with why and the tail saying how it was dropped.  Kafka
 * Streams drops such records with a metric, not an error.
 */
static void report_first_drop(stoat_ctx *cx, uint64_t *count, bool *reported, const char *why, const char *tail)
{
	(*count)++;
	if (reported && *reported)
		return;
	if (reported)
		*reported = true;
	snprintf(cx->error_message, sizeof cx->error_message, "%s", why);
	report_record(cx, "warning", tail);
}

/* Counts a record dropped by design (a null key or value) and reports the first one only. */
void stoat_record_dropped(stoat_ctx *cx, const char *why)
{
	report_first_drop(cx, &cx->counters.records_dropped, cx->driver ? &cx->driver->drop_reported : NULL, why,
			  ": dropped, as Kafka Streams drops such records (reported once; the summary counts them)");
}

/* Counts a late record and reports the first one only, apart from the drops by design. */
void stoat_record_late(stoat_ctx *cx, const char *why)
{
	report_first_drop(cx, &cx->counters.records_late, cx->driver ? &cx->driver->late_reported : NULL, why,
			  ": dropped as late, as Kafka Streams drops such records (reported once; the summary "
			  "counts them)");
}

/* Prefixes the current error message with `what` (see runtime.h). */
void stoat_error_context(stoat_ctx *cx, const char *what)
{
	if (!cx->error)
		return;
	/* Build "<what>: <message>" by hand: truncation is intended. */
	char tmp[sizeof cx->error_message];
	size_t wl = strlen(what), ml = strlen(cx->error_message), cap = sizeof tmp - 1;
	size_t n = 0;
	memcpy(tmp, what, wl < cap ? wl : cap);
	n = wl < cap ? wl : cap;
	if (n + 2 <= cap) {
		memcpy(tmp + n, ": ", 2);
		n += 2;
	}
	size_t take = ml < cap - n ? ml : cap - n;
	memcpy(tmp + n, cx->error_message, take);
	n += take;
	tmp[n] = '\0';
	memcpy(cx->error_message, tmp, n + 1);
}
