/*
 * versioned.c - the history of a versioned table (KIP-889/914), and the
 * arrival counter of a stream-table join's grace buffer (KIP-923): every
 * version of each key, for as-of lookups, in a window store of its own
 * (compiler/plan.c: <table>-versions) on top of window_store.c.
 *
 * A version is the window [valid from, valid to) of its key, its value a
 * tag byte (1: a value, 0: a tombstone) and the value's store bytes.  The
 * latest version of a key is valid to INT64_MAX; a put splits the version
 * it falls into.  The window store's stream time is the table's observed
 * stream time (the largest accepted put or delete time) and its retention
 * is the history: a version valid to below observed - history expires in
 * bulk with its segment, the latest never does.  The window store is
 * changelogged and restored like any, so the history survives a restart.
 * The table's latest values stay in the table's own key-value store,
 * which its downstream reads and writes as for any table.
 */
#include "internal.h"

#include <string.h>

/* The stored bytes of a version: the tag and the value (none for a tombstone). */
static stoat_str version_bytes(stoat_ctx *cx, const stoat_str *value)
{
	size_t len = value ? value->len + 1 : 1;
	char *b = stoat_arena_alloc(&cx->arena, len);
	b[0] = value ? 1 : 0;
	if (value && value->len)
		memcpy(b + 1, value->ptr, value->len);
	return (stoat_str){ b, len };
}

/*
 * The first version of key still valid after ts (its valid-to above ts),
 * in *start, *end and *bytes; false when there is none (or after an
 * error: cx->error).
 */
static bool version_after(stoat_ctx *cx, int store, stoat_str key, int64_t ts, int64_t *start, int64_t *end,
			  stoat_str *bytes)
{
	stoat_window_iter *it = stoat_window_fetch_key(cx, store, key, ts + 1, INT64_MAX);
	stoat_str k;
	bool found = stoat_window_next(it, &k, start, end, bytes);
	stoat_window_iter_close(it);
	return found && !cx->error;
}

/* See runtime.h. */
int stoat_versioned_put(stoat_ctx *cx, int store, int64_t history, stoat_str key, int64_t ts, const stoat_str *value)
{
	int64_t *observed = stoat_window_stream_time(cx, store);
	if (!observed)
		return -1;
	/* Kafka Streams' RocksDBVersionedStore: below the history, not put. */
	if (*observed >= 0 && ts < *observed - history)
		return STOAT_VERSIONED_DROPPED;
	stoat_observe_time(observed, ts);
	stoat_str nb = version_bytes(cx, value);
	int64_t start, end;
	stoat_str old;
	bool found = version_after(cx, store, key, ts, &start, &end, &old);
	if (cx->error)
		return -1;
	if (!found) {
		/* No version valid at or after ts: the key's first (or only current) one. */
		stoat_window_put_quiet(cx, store, key, ts, INT64_MAX, nb);
		return cx->error ? -1 : STOAT_VERSIONED_LATEST;
	}
	int result = end == INT64_MAX && start <= ts ? STOAT_VERSIONED_LATEST : STOAT_VERSIONED_OLDER;
	if (start == ts) {
		/* The same valid-from: the value is replaced. */
		stoat_window_put_quiet(cx, store, key, ts, end, nb);
	} else if (start < ts) {
		/* ts falls into [start, end): that version now ends at ts. */
		stoat_str copy = { stoat_arena_alloc(&cx->arena, old.len), old.len };
		memcpy((char *)copy.ptr, old.ptr, old.len);
		stoat_window_delete(cx, store, key, start, end);
		if (!cx->error)
			stoat_window_put_quiet(cx, store, key, start, ts, copy);
		if (!cx->error)
			stoat_window_put_quiet(cx, store, key, ts, end, nb);
	} else {
		/* Older than every version kept: valid until the next one starts. */
		stoat_window_put_quiet(cx, store, key, ts, start, nb);
	}
	return cx->error ? -1 : result;
}

/* See runtime.h. */
int stoat_versioned_get(stoat_ctx *cx, int store, int64_t history, stoat_str key, int64_t as_of, stoat_str *value)
{
	int64_t *observed = stoat_window_stream_time(cx, store);
	if (!observed)
		return -1;
	/*
	 * Kafka Streams (RocksDBVersionedStore.get): an as-of below observed -
	 * history finds only the key's latest version (which never expires),
	 * when it is valid then.
	 */
	bool expired = *observed >= 0 && as_of < *observed - history;
	int64_t start, end;
	stoat_str bytes;
	bool found = version_after(cx, store, key, as_of, &start, &end, &bytes);
	if (cx->error)
		return -1;
	if (!found || start > as_of || (expired && end != INT64_MAX) || bytes.len == 0 || bytes.ptr[0] != 1)
		return 0;
	*value = (stoat_str){ bytes.ptr + 1, bytes.len - 1 };
	return 1;
}

/* The metadata key of a grace buffer's arrival counter (window_store.c: 00 keys are generated code's). */
static const char ARRIVAL_KEY[] = "\0arrival";

/* See runtime.h: the counter, 8 bytes big-endian, kept and logged in the buffer itself. */
int64_t stoat_grace_next_arrival(stoat_ctx *cx, int store)
{
	stoat_str key = { ARRIVAL_KEY, sizeof ARRIVAL_KEY - 1 }, old;
	uint64_t n = 0;
	if (stoat_store_get(cx, store, key, &old) && old.len == 8)
		for (int i = 0; i < 8; i++)
			n = n << 8 | (unsigned char)old.ptr[i];
	if (cx->error)
		return -1;
	char *b = stoat_arena_alloc(&cx->arena, 8);
	for (int i = 0; i < 8; i++)
		b[i] = (char)((n + 1) >> (56 - 8 * i));
	stoat_store_put_quiet(cx, store, key, (stoat_str){ b, 8 });
	return (int64_t)n;
}
