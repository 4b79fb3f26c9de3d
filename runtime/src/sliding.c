/*
 * sliding.c - which windows a record updates or creates in a sliding
 * window aggregation (Kafka Streams' SlidingWindows, KIP-450), in the
 * order Kafka Streams 4.4's KStreamSlidingWindowAggregate makes them.
 *
 * Sliding windows of time difference D are [s, s + D], inclusive.  For a
 * record at t the store only ever holds windows that start or end at a
 * record's time: a record's left window [t - D, t] and its right window
 * [t + 1, t + 1 + D] (created only when a later record falls into it).
 * A record reads its key's windows starting in [max(0, t - 2D), t + 1]
 * (the left window of the previous record is at most 2D back) and
 *
 *  - t >= D: scans them latest start first (Kafka Streams' reverse
 *    iterator over a RocksDB store): a window starting at t + 1 is t's
 *    right window, already made; one ending after t holds t and is
 *    updated (the first such is the aggregate t's right window starts
 *    from); one ending at t is t's left window, updated, and if it holds
 *    a record at t already nothing else is to be made; the first ending
 *    before t gives the previous record's time (its largest timestamp)
 *    and the aggregate of t's left window without t, and ends the scan.
 *    Then the previous record's right window (if it does not exist and
 *    holds t), t's left window (from that aggregate when the previous
 *    record lies in it, else new), t's right window (a copy of the
 *    aggregate found, when it holds a later record).
 *  - t < D (processEarly): windows would start below 0, so all records
 *    before D share the window [0, D]; the scan goes earliest first.
 *
 * This plans the steps; generated code folds the record into each and
 * writes it (only windows with end >= stream time - grace are passed on:
 * see codegen_sliding.c).  Pure arithmetic over the fetched windows, so
 * tests/unit checks it against Kafka Streams' scenarios directly.
 */
#include "internal.h"

#include <string.h>

/* Appends a step to steps (in arena). */
static void add_step(stoat_arena *a, stoat_vec *steps, int64_t start, const stoat_sliding_window *from,
                     stoat_sliding_kind kind)
{
	stoat_sliding_step *s = stoat_vec_push(a, steps, sizeof *s);
	s->start = start;
	s->from = from;
	s->kind = kind;
}

/* Whether one of w[from..n) starts at start. */
static bool starts_at(const stoat_sliding_window *w, size_t from, size_t n, int64_t start)
{
	for (size_t i = from; i < n; i++)
		if (w[i].start == start)
			return true;
	return false;
}

/* The steps of a record at t < diff: Kafka Streams' processEarly. */
static void plan_early(stoat_arena *a, const stoat_sliding_window *w, size_t n, int64_t t, stoat_vec *steps)
{
	const stoat_sliding_window *combined = NULL, *right = NULL;
	bool right_made = false;
	int64_t prev = -1; /* no previous record (timestamps are >= 0) */
	for (size_t i = 0; i < n; i++) {
		if (w[i].start == 0) {
			combined = &w[i];
			if (w[i].ts < t)
				prev = w[i].ts;
		} else if (w[i].start <= t) {
			right = &w[i];
			add_step(a, steps, w[i].start, &w[i], STOAT_SLIDING_UPDATE);
		} else {
			right_made = true; /* starts at t + 1 */
		}
	}
	if (!right && combined && combined->ts > t)
		right = combined;
	if (!right_made && right && right->ts > t)
		add_step(a, steps, t + 1, right, STOAT_SLIDING_COPY);
	if (prev >= 0 && !starts_at(w, 0, n, prev + 1))
		add_step(a, steps, prev + 1, NULL, STOAT_SLIDING_NEW);
	if (combined)
		add_step(a, steps, 0, combined, STOAT_SLIDING_UPDATE);
	else
		add_step(a, steps, 0, NULL, STOAT_SLIDING_NEW);
}

/* The steps of a record at t >= diff: Kafka Streams' processReverse and createWindows. */
static void plan_reverse(stoat_arena *a, const stoat_sliding_window *w, size_t n, int64_t t, int64_t diff,
                         stoat_vec *steps)
{
	const stoat_sliding_window *left = NULL, *right = NULL;
	bool left_made = false, right_made = false;
	int64_t prev = -1;
	size_t i = n;
	while (i > 0) {
		i--;
		int64_t end = w[i].start + diff;
		if (w[i].start == t + 1) {
			right_made = true;
		} else if (end > t) {
			if (!right)
				right = &w[i];
			add_step(a, steps, w[i].start, &w[i], STOAT_SLIDING_UPDATE);
		} else if (end == t) {
			left_made = true;
			add_step(a, steps, w[i].start, &w[i], STOAT_SLIDING_UPDATE);
			if (w[i].ts >= t)
				return; /* a record at t was here first: its windows exist */
			prev = w[i].ts;
		} else {
			left = &w[i];
			prev = w[i].ts;
			break;
		}
	}
	/* w[i..n) are the windows the scan saw. */
	if (prev >= 0 && prev + 1 + diff >= t && !starts_at(w, i, n, prev + 1))
		add_step(a, steps, prev + 1, NULL, STOAT_SLIDING_NEW);
	if (!left_made) {
		if (prev >= 0 && t - diff <= prev)
			add_step(a, steps, t - diff, left, STOAT_SLIDING_FROM);
		else
			add_step(a, steps, t - diff, NULL, STOAT_SLIDING_NEW);
	}
	if (!right_made && right && right->ts > t)
		add_step(a, steps, t + 1, right, STOAT_SLIDING_COPY);
}

/* See runtime.h. */
void stoat_sliding_plan(stoat_arena *a, const stoat_sliding_window *windows, size_t n, int64_t t, int64_t diff,
                        stoat_sliding_step **steps, size_t *nsteps)
{
	stoat_vec v = { 0 };
	if (t < diff)
		plan_early(a, windows, n, t, &v);
	else
		plan_reverse(a, windows, n, t, diff, &v);
	*steps = v.data;
	*nsteps = v.len;
}

/* See runtime.h. */
bool stoat_sliding_steps(stoat_ctx *cx, int store, stoat_str key, int64_t t, int64_t diff,
                         stoat_sliding_step **steps, size_t *nsteps)
{
	*steps = NULL;
	*nsteps = 0;
	if (t < 0) {
		stoat_error(cx, "invalid timestamp %lld: a sliding window needs an event time of 0 or more", (long long)t);
		return false;
	}
	int64_t from = t > 2 * diff ? t - 2 * diff : 0;
	stoat_window_iter *it = stoat_window_fetch_key(cx, store, key, from + diff, t + 1 + diff);
	if (cx->error) {
		stoat_window_iter_close(it);
		return false;
	}
	stoat_vec v = { 0 };
	stoat_str inner, value;
	int64_t start, end;
	while (stoat_window_next(it, &inner, &start, &end, &value)) {
		stoat_sliding_window *w = stoat_vec_push(&cx->arena, &v, sizeof *w);
		w->start = start;
		w->value = value;
		w->ts = 0;
		if (!stoat_decode_be64(cx, (stoat_str){ .ptr = value.ptr, .len = value.len < 8 ? value.len : 8 }, &w->ts))
			break;
	}
	stoat_window_iter_close(it);
	if (cx->error)
		return false;
	stoat_sliding_plan(&cx->arena, v.data, v.len, t, diff, steps, nsteps);
	return true;
}
