/*
 * Unit tests for window stores (runtime/src/window_store.c), on RocksDB
 * and in memory: the key layout's order; get/put/delete with and without
 * the record cache; fetch_key and fetch_ended over committed, held-back
 * and cached windows (a cached delete hides a committed window), with and
 * without the time index; expiry bounds (end exactly at stream time -
 * retention kept, one below gone, whole segments deleted); metadata keys
 * untouched; stream time per store and partition, written, reopened,
 * restored and reset by abort; session_fetch past deleted windows, and
 * the time index's entries of deleted windows skipped.
 * Expected values are worked out by hand in the comments.
 */
#include "internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define STR(s) STOAT_STR_LIT(s)

#define TMPDIR_TEMPLATE "/tmp/stoat-window-XXXXXX"
#define TMPDIR_DB "db"
#include "tmpdir.h"

static void no_pipeline(stoat_ctx *cx, const stoat_msg *msgs, size_t n)
{
	(void)cx;
	(void)msgs;
	(void)n;
}

/* Store 0: segments of 10 ms, no index; store 1: segments of 100 ms with
 * the time index.  Both keep windows ending at or after stream time - 100. */
static const int source_stores[] = { 0, 1 };
static const stoat_source sources[] = {
	{ .name = "in", .topic = "in", .pipeline = no_pipeline, .stores = source_stores, .store_count = 2 },
};
static stoat_store_desc stores[] = {
	{ .name = "w", .kind = STOAT_STORE_WINDOW, .retention_ms = 100, .segment_ms = 10 },
	{ .name = "wi", .kind = STOAT_STORE_WINDOW, .retention_ms = 100, .segment_ms = 100, .time_index = true },
};
static const stoat_app app = {
	.app_id = "window-test",
	.sources = sources,
	.source_count = 1,
	.stores = stores,
	.store_count = 2,
};

typedef struct fixture {
	stoat_driver driver;
	stoat_ctx cx;
	stoat_msg msg;
} fixture;

/* Opens the state (dir NULL: in memory) with the given cache budget. */
static void fixture_open(fixture *f, const char *dir, size_t cache)
{
	memset(f, 0, sizeof *f);
	f->driver.app = &app;
	stoat_state_options so = { .dir = dir, .memory_budget = (size_t)8 << 20, .cache_max_bytes = cache };
	char err[512] = "";
	f->driver.state = stoat_state_open(&app, &f->driver, &so, err, sizeof err);
	ck_assert_msg(f->driver.state != NULL, "%s", err);
	stoat_arena_init(&f->cx.arena);
	f->cx.app = &app;
	f->cx.source = &sources[0];
	f->cx.driver = &f->driver;
	f->cx.msg = &f->msg;
	f->cx.timestamp = 1;
}

static void fixture_close(fixture *f)
{
	stoat_state_close(f->driver.state);
	stoat_arena_free(&f->cx.arena);
}

/* The stream time of store's aggregation on the fixture's partition. */
static int64_t *stime(fixture *f, int store)
{
	int64_t *t = stoat_window_stream_time(&f->cx, store);
	ck_assert_msg(t != NULL, "%s", f->cx.error_message);
	return t;
}

/* Sets the stream time of both stores' aggregations. */
static void set_time(fixture *f, int64_t v)
{
	*stime(f, 0) = v;
	*stime(f, 1) = v;
}

static void commit(fixture *f)
{
	char err[512] = "";
	ck_assert_msg(stoat_state_flush(f->driver.state), "flush failed");
	ck_assert_msg(stoat_state_commit(f->driver.state, err, sizeof err), "%s", err);
}

static stoat_store_part *part(fixture *f, int store)
{
	char err[512] = "";
	stoat_store_part *p = stoat_state_part(f->driver.state, store, 0, err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	return p;
}

/* A record key in the store key layout: the string s. */
static stoat_str rkey(const char *s, size_t len)
{
	static stoat_buf bufs[8];
	static int next;
	stoat_buf *b = &bufs[next++ % 8];
	b->len = 0;
	stoat_key_put_str(b, (stoat_str){ s, len });
	return stoat_buf_str(b);
}
#define K(s) rkey(s, strlen(s))

static bool wput(fixture *f, int store, const char *k, int64_t start, int64_t end, const char *v)
{
	return stoat_window_put(&f->cx, store, K(k), start, end, (stoat_str){ v, strlen(v) });
}

static bool wdel(fixture *f, int store, const char *k, int64_t start, int64_t end)
{
	return stoat_window_delete(&f->cx, store, K(k), start, end);
}

/* The window's value, or "-" when absent. */
static const char *wget(fixture *f, int store, const char *k, int64_t start, int64_t end)
{
	static char out[64];
	stoat_str v;
	if (!stoat_window_get(&f->cx, store, K(k), start, end, &v))
		return "-";
	snprintf(out, sizeof out, "%.*s", (int)v.len, v.ptr);
	return out;
}

/* What an iterator returns, as "key start end value;" per window (the
 * key decoded from the key layout). */
static const char *drain(fixture *f, stoat_window_iter *it)
{
	static char out[1024];
	size_t n = 0;
	out[0] = '\0';
	stoat_str k, v;
	int64_t start, end;
	while (stoat_window_next(it, &k, &start, &end, &v)) {
		stoat_val_reader r = stoat_val_reader_of(k);
		stoat_str s;
		ck_assert(stoat_key_get_str(&r, &f->cx.arena, &s));
		n += (size_t)snprintf(out + n, sizeof out - n, "%.*s %lld %lld %.*s;", (int)s.len, s.ptr,
				      (long long)start, (long long)end, (int)v.len, v.ptr);
	}
	ck_assert(!f->cx.error);
	stoat_window_iter_close(it);
	return out;
}

static const char *fetch_key(fixture *f, int store, const char *k, int64_t from, int64_t to)
{
	return drain(f, stoat_window_fetch_key(&f->cx, store, K(k), from, to));
}

static const char *fetch_ended(fixture *f, int store, int64_t after, int64_t upto)
{
	return drain(f, stoat_window_fetch_ended(&f->cx, store, after, upto));
}

static const char *session_fetch(fixture *f, int store, const char *k, int64_t from, int64_t to)
{
	return drain(f, stoat_session_fetch(&f->cx, store, K(k), from, to));
}

/* The backing of variant i: bit 0 set: in memory, else RocksDB. */
static const char *backing(int i)
{
	make_dirs();
	return (i & 1) ? NULL : db_dir;
}

/* Appends a scanned key's parts (windows) or "meta" to a string. */
static bool append_key(void *arg, stoat_str key, stoat_str value)
{
	char *out = arg;
	(void)value;
	stoat_str k;
	int64_t start, end;
	size_t n = strlen(out);
	if (!stoat_window_key_parse(key, &k, &start, &end)) {
		snprintf(out + n, 1024 - n, "meta;");
		return true;
	}
	snprintf(out + n, 1024 - n, "%zu:%02x %lld %lld;", k.len, (unsigned char)k.ptr[1], (long long)end,
		 (long long)start);
	return true;
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

/*
 * RocksDB keeps one segment's keys by key, then end, then start, the
 * next segment after it, and metadata (00) first.  The record keys, in
 * the key layout: "a" = 61 00 01, "a\0x" = 61 00 FF 78 00 01, "b" =
 * 62 00 01, so "a" < "a\0x" < "b" (second byte shown: 00, 00, 00).
 * Segment 0 holds ends 0..9 ms... with segment_ms 10: ends 5, 6 and 9 are
 * segment 0, end 15 segment 1.
 */
START_TEST(key_layout_orders_by_segment_key_end_start)
{
	fixture f;
	fixture_open(&f, backing(0), 0);
	wput(&f, 0, "b", 0, 5, "1");
	wput(&f, 0, "a", 0, 15, "2"); /* segment 1: after every segment-0 key */
	wput(&f, 0, "a", 1, 9, "3");
	wput(&f, 0, "a", 0, 9, "4");
	wput(&f, 0, "a", 2, 6, "5");
	stoat_window_put(&f.cx, 0, rkey("a\0x", 3), 0, 5, STR("6"));
	set_time(&f, 20);
	commit(&f);
	char out[1024] = "";
	char err[512] = "";
	ck_assert(stoat_store_part_scan(part(&f, 0), append_key, out, err, sizeof err));
	/* key lengths: "a" 3 bytes, "a\0x" 6, "b" 3. */
	ck_assert_str_eq(out, "meta;3:00 6 2;3:00 9 0;3:00 9 1;6:00 5 0;3:00 5 0;3:00 15 0;");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* A window store key splits back into its parts; other keys do not. */
START_TEST(key_parse_round_trips)
{
	fixture f;
	fixture_open(&f, backing(1), 1 << 20);
	wput(&f, 0, "k", -5, 123456789012, "v"); /* a negative start parses back */
	/* The fetch parses the store key the put built. */
	ck_assert_str_eq(fetch_key(&f, 0, "k", 0, INT64_MAX), "k -5 123456789012 v;");
	stoat_str k;
	int64_t start, end;
	ck_assert(!stoat_window_key_parse(STR("\0stream-time"), &k, &start, &end));
	ck_assert(!stoat_window_key_parse(STR("\001short"), &k, &start, &end));
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* get/put/delete: held back until the commit, read back, deleted;
 * without a cache a put returns true, with one false.  Variants: bit 0
 * memory, bit 1 cache. */
START_TEST(get_put_delete)
{
	fixture f;
	bool cached = (_i & 2) != 0;
	fixture_open(&f, backing(_i), cached ? 1 << 20 : 0);
	ck_assert_str_eq(wget(&f, 0, "a", 0, 10), "-");
	ck_assert_int_eq(wput(&f, 0, "a", 0, 10, "one"), !cached);
	ck_assert_str_eq(wget(&f, 0, "a", 0, 10), "one");
	ck_assert_str_eq(wget(&f, 0, "a", 10, 20), "-"); /* another window */
	ck_assert_str_eq(wget(&f, 0, "b", 0, 10), "-");  /* another key */
	commit(&f);
	ck_assert_str_eq(wget(&f, 0, "a", 0, 10), "one");
	ck_assert_int_eq(wdel(&f, 0, "a", 0, 10), !cached);
	ck_assert_str_eq(wget(&f, 0, "a", 0, 10), "-");
	stoat_state_abort(f.driver.state);
	ck_assert_str_eq(wget(&f, 0, "a", 0, 10), "one"); /* the delete was dropped */
	wdel(&f, 0, "a", 0, 10);
	commit(&f);
	ck_assert_str_eq(wget(&f, 0, "a", 0, 10), "-");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/*
 * Fetches merge the layers.  Committed: (k1 [0,10) c1), (k1 [10,20) c2),
 * (k2 [0,10) c3).  Flushed, not committed: (k2 [10,20) p1), (k1 [10,20)
 * p2).  Cached: (k1 [20,30) x1), k1 [0,10) deleted, (k2 [0,10) x2).
 *   fetch_key(k1, 0..100): [10,20) p2, [20,30) x1 (the delete hides c1);
 *   fetch_ended(0, 30]: end 10: k2 x2; end 20: k1 p2, k2 p1; end 30: k1 x1;
 *   fetch_ended(10, 20]: end 20 only.
 * Variants: bit 0 memory, bit 1 the store with the time index.
 */
START_TEST(fetch_merges_committed_pending_cached)
{
	fixture f;
	int s = (_i & 2) ? 1 : 0;
	fixture_open(&f, backing(_i), 1 << 20);
	wput(&f, s, "k1", 0, 10, "c1");
	wput(&f, s, "k1", 10, 20, "c2");
	wput(&f, s, "k2", 0, 10, "c3");
	commit(&f);
	wput(&f, s, "k2", 10, 20, "p1");
	wput(&f, s, "k1", 10, 20, "p2");
	ck_assert(stoat_state_flush(f.driver.state));
	wput(&f, s, "k1", 20, 30, "x1");
	wdel(&f, s, "k1", 0, 10);
	wput(&f, s, "k2", 0, 10, "x2");
	ck_assert_str_eq(fetch_key(&f, s, "k1", 0, 100), "k1 10 20 p2;k1 20 30 x1;");
	ck_assert_str_eq(fetch_key(&f, s, "k1", 20, 20), "k1 10 20 p2;");
	ck_assert_str_eq(fetch_key(&f, s, "k2", 0, 10), "k2 0 10 x2;");
	ck_assert_str_eq(fetch_ended(&f, s, 0, 30), "k2 0 10 x2;k1 10 20 p2;k2 10 20 p1;k1 20 30 x1;");
	ck_assert_str_eq(fetch_ended(&f, s, 10, 20), "k1 10 20 p2;k2 10 20 p1;");
	ck_assert_str_eq(fetch_ended(&f, s, 30, 1000), "");
	/* Committed, the same windows come from the store alone. */
	commit(&f);
	ck_assert_str_eq(fetch_ended(&f, s, 0, 30), "k2 0 10 x2;k1 10 20 p2;k2 10 20 p1;k1 20 30 x1;");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* Without a cache, fetches see held-back writes and deletes; a window of
 * another key or outside the range is not seen. */
START_TEST(fetch_without_cache)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	wput(&f, 0, "a", 0, 10, "1");
	wput(&f, 0, "a", 100, 110, "2"); /* ten segments later */
	wput(&f, 0, "ab", 0, 10, "3");
	commit(&f);
	wdel(&f, 0, "a", 0, 10);
	wput(&f, 0, "a", 50, 60, "4");
	ck_assert_str_eq(fetch_key(&f, 0, "a", 0, 200), "a 50 60 4;a 100 110 2;");
	ck_assert_str_eq(fetch_key(&f, 0, "a", 61, 109), "");
	ck_assert_str_eq(fetch_ended(&f, 0, -1, 110), "ab 0 10 3;a 50 60 4;a 100 110 2;");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/*
 * Stream time 155, retention 100: the cut is 55.  Store 0 has segments of
 * 10 ms: a window ending 44 (segment 4) is deleted with its segment; one
 * ending 54 (segment 5, the cut's) is hidden; 55 (exactly the cut) and 56
 * are kept.  Metadata keys stay, and no fetch returns them.
 */
START_TEST(expiry_keeps_the_cut_and_drops_below)
{
	fixture f;
	const char *dir = backing(_i);
	fixture_open(&f, dir, 0);
	wput(&f, 0, "a", 34, 44, "44");
	wput(&f, 0, "a", 44, 54, "54");
	wput(&f, 0, "a", 45, 55, "55");
	wput(&f, 0, "b", 46, 56, "56");
	ck_assert(stoat_store_put(&f.cx, 0, STR("\0emitted"), STR("x")));
	set_time(&f, 155);
	commit(&f);
	ck_assert_str_eq(wget(&f, 0, "a", 34, 44), "-");
	ck_assert_str_eq(wget(&f, 0, "a", 44, 54), "-");
	ck_assert_str_eq(wget(&f, 0, "a", 45, 55), "55");
	ck_assert_str_eq(wget(&f, 0, "b", 46, 56), "56");
	ck_assert_str_eq(fetch_key(&f, 0, "a", 0, 1000), "a 45 55 55;");
	ck_assert_str_eq(fetch_ended(&f, 0, 0, 1000), "a 45 55 55;b 46 56 56;");
	stoat_str v;
	ck_assert(stoat_store_get(&f.cx, 0, STR("\0emitted"), &v));
	ck_assert(stoat_str_eq(v, STR("x")));
	if (dir) {
		/* Physically: segment 4 is gone, the cut's segment 5 stays. */
		char out[1024] = "";
		char err[512] = "";
		ck_assert(stoat_store_part_scan(part(&f, 0), append_key, out, err, sizeof err));
		ck_assert_str_eq(out, "meta;meta;3:00 54 44;3:00 55 45;3:00 56 46;");
	}
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* With the time index (segments of 100 ms), stream time 250, cut 150:
 * segment 0 (ends 0..99) goes with its index entries, 149 is hidden,
 * 150 is kept; fetch_ended through the index sees only 150. */
START_TEST(expiry_with_the_time_index)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	wput(&f, 1, "a", 0, 99, "99");
	wput(&f, 1, "a", 0, 149, "149");
	wput(&f, 1, "a", 0, 150, "150");
	set_time(&f, 250);
	commit(&f);
	ck_assert_str_eq(fetch_ended(&f, 1, -1, 1000), "a 0 150 150;");
	ck_assert_str_eq(wget(&f, 1, "a", 0, 99), "-");
	ck_assert_str_eq(wget(&f, 1, "a", 0, 149), "-");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* The stream time is a store value under "\0stream-time" (8 bytes,
 * big-endian) after a commit, and reopening RocksDB reads it back. */
START_TEST(stream_time_is_persisted)
{
	fixture f;
	const char *dir = backing(_i);
	fixture_open(&f, dir, 0);
	wput(&f, 0, "a", 0, 10, "1");
	set_time(&f, 0x0102);
	commit(&f);
	stoat_str v;
	ck_assert(stoat_store_get(&f.cx, 0, STR("\0stream-time"), &v));
	ck_assert(stoat_str_eq(v, STR("\0\0\0\0\0\0\001\002")));
	fixture_close(&f);
	if (dir) {
		fixture_open(&f, dir, 0);
		ck_assert_int_eq(*stime(&f, 0), 0x0102);
		fixture_close(&f);
	}
	remove_dirs();
}
END_TEST

/* A restored stream-time record raises the stream time (never lowers it), and
 * the restore expires what it restored: stream time 300, cut 200, so a
 * window ending 150 (segment 15) is gone and one ending 250 is kept. */
START_TEST(stream_time_is_restored)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	stoat_store_part *p = part(&f, 0);
	char err[512] = "";
	char st[8] = { 0, 0, 0, 0, 0, 0, 1, 0x2c }; /* 300 */
	char lower[8] = { 0, 0, 0, 0, 0, 0, 0, 100 };
	stoat_str kb;
	ck_assert(stoat_store_part_restore_start(p, true, err, sizeof err));
	/* The window keys, built as stoat_window_put builds them. */
	stoat_buf b;
	stoat_buf_init(&b);
	stoat_buf_putc(&b, 1);
	stoat_key_put_i64(&b, 15);
	stoat_buf_put(&b, K("a").ptr, K("a").len);
	stoat_key_put_i64(&b, 150);
	stoat_key_put_i64(&b, 140);
	kb = stoat_buf_str(&b);
	ck_assert(stoat_store_part_restore_record(p, kb, STR("old"), 0, err, sizeof err));
	stoat_buf c;
	stoat_buf_init(&c);
	stoat_buf_putc(&c, 1);
	stoat_key_put_i64(&c, 25);
	stoat_buf_put(&c, K("a").ptr, K("a").len);
	stoat_key_put_i64(&c, 250);
	stoat_key_put_i64(&c, 240);
	ck_assert(stoat_store_part_restore_record(p, stoat_buf_str(&c), STR("new"), 1, err, sizeof err));
	ck_assert(stoat_store_part_restore_record(p, STR("\0stream-time"), (stoat_str){ st, 8 }, 2, err, sizeof err));
	ck_assert(stoat_store_part_restore_record(p, STR("\0stream-time"), (stoat_str){ lower, 8 }, 3, err,
						  sizeof err));
	ck_assert(stoat_store_part_restore_done(p, err, sizeof err));
	ck_assert_int_eq(*stime(&f, 0), 300);
	ck_assert_str_eq(wget(&f, 0, "a", 140, 150), "-");
	ck_assert_str_eq(wget(&f, 0, "a", 240, 250), "new");
	ck_assert_str_eq(fetch_key(&f, 0, "a", 0, 1000), "a 240 250 new;");
	stoat_buf_free(&b);
	stoat_buf_free(&c);
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* A restore writes the time index of the windows it restores: after a
 * restore from scratch, fetch_ended through the index finds them, in end
 * order (30 before 40 although restored the other way round). */
START_TEST(restore_rebuilds_the_time_index)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	stoat_store_part *p = part(&f, 1);
	char err[512] = "";
	ck_assert(stoat_store_part_restore_start(p, true, err, sizeof err));
	int64_t ends[2] = { 40, 30 };
	for (int i = 0; i < 2; i++) {
		stoat_buf b;
		stoat_buf_init(&b);
		stoat_buf_putc(&b, 1);
		stoat_key_put_i64(&b, 0); /* segment: end / 100 */
		stoat_buf_put(&b, K("a").ptr, K("a").len);
		stoat_key_put_i64(&b, ends[i]);
		stoat_key_put_i64(&b, ends[i] - 10);
		ck_assert(stoat_store_part_restore_record(p, stoat_buf_str(&b), STR("v"), i, err, sizeof err));
		stoat_buf_free(&b);
	}
	ck_assert(stoat_store_part_restore_done(p, err, sizeof err));
	ck_assert_str_eq(fetch_ended(&f, 1, 0, 100), "a 20 30 v;a 30 40 v;");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/*
 * session_fetch over sessions as session windows leave them (store 0,
 * segments of 10 ms): a's [10,15] grew by records, each deleting the
 * window before (ends 10 and 12, committed; 13 held back) and writing
 * the next; a's [0,3] (segment 0) and [30,52] (segment 5), b's [20,25]
 * between them (segment 2), "ab"'s [16,16] (segment 1, after a's keys).
 * Each fetch gives what fetch_key gives: a's windows ending in the range,
 * in end order, none of the deleted ones:
 *   0..max: [0,3] [10,15] [30,52];  12..max: [10,15] [30,52] (15 >= 12);
 *   16..40: none (52 > 40, 15 < 16);  4..15: [10,15];  b: [20,25].
 * Variants: bit 0 memory, bit 1 the record cache (1 MB: the held-back
 * part stays cached).
 */
START_TEST(session_fetch_skips_deleted_windows)
{
	fixture f;
	fixture_open(&f, backing(_i), (_i & 2) ? 1 << 20 : 0);
	wput(&f, 0, "a", 0, 3, "s1");
	wput(&f, 0, "a", 10, 10, "x");
	wdel(&f, 0, "a", 10, 10);
	wput(&f, 0, "a", 10, 12, "x");
	wput(&f, 0, "b", 20, 25, "s3");
	wput(&f, 0, "ab", 16, 16, "s4");
	commit(&f);
	wdel(&f, 0, "a", 10, 12);
	wput(&f, 0, "a", 10, 13, "x");
	wdel(&f, 0, "a", 10, 13);
	wput(&f, 0, "a", 10, 15, "s2");
	wput(&f, 0, "a", 30, 52, "s5");
	for (int round = 0; round < 2; round++) {
		ck_assert_str_eq(session_fetch(&f, 0, "a", 0, INT64_MAX), "a 0 3 s1;a 10 15 s2;a 30 52 s5;");
		ck_assert_str_eq(session_fetch(&f, 0, "a", 12, INT64_MAX), "a 10 15 s2;a 30 52 s5;");
		ck_assert_str_eq(session_fetch(&f, 0, "a", 16, 40), "");
		ck_assert_str_eq(session_fetch(&f, 0, "a", 4, 15), "a 10 15 s2;");
		ck_assert_str_eq(session_fetch(&f, 0, "b", 0, INT64_MAX), "b 20 25 s3;");
		ck_assert_str_eq(session_fetch(&f, 0, "ab", 0, INT64_MAX), "ab 16 16 s4;");
		/* Committed, the same sessions come from the store alone. */
		commit(&f);
	}
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/*
 * A deleted window keeps its time index entry: the scans through the
 * index look each window up and skip it.  Written (a's [0,10] deleted
 * and [0,20] written, committed) and restored (the same three changelog
 * records, from scratch), fetch_ended(0, 100] gives a's [0,20] alone.
 */
START_TEST(index_skips_deleted_windows)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	wput(&f, 1, "a", 0, 10, "old");
	wdel(&f, 1, "a", 0, 10);
	wput(&f, 1, "a", 0, 20, "new");
	commit(&f);
	ck_assert_str_eq(fetch_ended(&f, 1, 0, 100), "a 0 20 new;");
	stoat_store_part *p = part(&f, 1);
	char err[512] = "";
	ck_assert(stoat_store_part_restore_start(p, true, err, sizeof err));
	ck_assert_str_eq(fetch_ended(&f, 1, 0, 100), "");
	int64_t ends[3] = { 10, 10, 20 };
	for (int i = 0; i < 3; i++) {
		stoat_buf b;
		stoat_buf_init(&b);
		stoat_buf_putc(&b, 1);
		stoat_key_put_i64(&b, 0); /* segment: end / 100 */
		stoat_buf_put(&b, K("a").ptr, K("a").len);
		stoat_key_put_i64(&b, ends[i]);
		stoat_key_put_i64(&b, 0);
		stoat_str v = i == 1 ? (stoat_str){ NULL, 0 } : (i == 0 ? STR("old") : STR("new"));
		ck_assert(stoat_store_part_restore_record(p, stoat_buf_str(&b), v, i, err, sizeof err));
		stoat_buf_free(&b);
	}
	ck_assert(stoat_store_part_restore_done(p, err, sizeof err));
	ck_assert_str_eq(fetch_ended(&f, 1, 0, 100), "a 0 20 new;");
	ck_assert_str_eq(session_fetch(&f, 1, "a", 0, INT64_MAX), "a 0 20 new;");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* What the flush function below saw, "key start end value;" per window
 * update ("meta" for other keys). */
static char flushed[1024];

/* A flush function: window updates carry the window store key. */
static void record_flush(stoat_ctx *cx, const stoat_store_update *u, size_t n)
{
	(void)cx;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(flushed);
		stoat_str k;
		int64_t start, end;
		if (!stoat_window_key_parse(u[i].record.key, &k, &start, &end)) {
			snprintf(flushed + len, sizeof flushed - len, "meta;");
			continue;
		}
		stoat_str v = u[i].record.value;
		snprintf(flushed + len, sizeof flushed - len, "%lld %lld %.*s;", (long long)start, (long long)end,
			 (int)v.len, v.ptr ? v.ptr : "");
	}
}

/* With a cache, a flush hands each window's newest update (deletes with
 * no value) to the flush function in first-touch order, metadata written
 * with stoat_store_put among them; the state layer's stream time is not. */
START_TEST(flush_hands_window_keys_on)
{
	fixture f;
	stores[0].flush = record_flush;
	flushed[0] = '\0';
	fixture_open(&f, backing(_i), 1 << 20);
	wput(&f, 0, "a", 10, 20, "1");
	wput(&f, 0, "a", 0, 10, "2");
	wput(&f, 0, "a", 10, 20, "3");
	ck_assert(!stoat_store_put(&f.cx, 0, STR("\0emitted"), STR("x"))); /* cached */
	set_time(&f, 30);
	commit(&f);
	ck_assert_str_eq(flushed, "10 20 3;0 10 2;meta;");
	flushed[0] = '\0';
	wdel(&f, 0, "a", 0, 10);
	commit(&f);
	ck_assert_str_eq(flushed, "0 10 ;");
	stores[0].flush = NULL;
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* An abort puts the stream time back to the committed one (100), and
 * the stream time written by the aborted flush is dropped with it. */
START_TEST(abort_resets_stream_time)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	wput(&f, 0, "a", 0, 10, "1");
	set_time(&f, 100);
	commit(&f);
	set_time(&f, 200);
	ck_assert(stoat_state_flush(f.driver.state));
	stoat_state_abort(f.driver.state);
	ck_assert_int_eq(*stime(&f, 0), 100);
	commit(&f);
	stoat_str v;
	ck_assert(stoat_store_get(&f.cx, 0, STR("\0stream-time"), &v));
	ck_assert(stoat_str_eq(v, STR("\0\0\0\0\0\0\0\x64")));
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* Each window store (each aggregation, as Kafka Streams' processors) and
 * each partition has its own stream time, -1 before the first record: a
 * record moving store 0's on partition 0 moves neither store 1's nor
 * store 0's on partition 1, and a commit writes only the one that moved. */
START_TEST(stream_time_per_store_and_partition)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	wput(&f, 0, "a", 0, 10, "1");
	ck_assert_int_eq(stoat_observe_time(stime(&f, 0), 40), -1);
	ck_assert_int_eq(stoat_observe_time(stime(&f, 0), 30), 40);
	ck_assert_int_eq(*stime(&f, 0), 40);
	ck_assert_int_eq(*stime(&f, 1), -1);
	f.msg.partition = 1;
	ck_assert_int_eq(*stime(&f, 0), -1);
	f.msg.partition = 0;
	commit(&f);
	stoat_str v;
	ck_assert(stoat_store_get(&f.cx, 0, STR("\0stream-time"), &v));
	ck_assert(stoat_str_eq(v, STR("\0\0\0\0\0\0\0\x28")));
	ck_assert(!stoat_store_get(&f.cx, 1, STR("\0stream-time"), &v));
	fixture_close(&f);
	remove_dirs();
}
END_TEST

static Suite *window_suite(void)
{
	Suite *s = suite_create("window_store");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, key_layout_orders_by_segment_key_end_start);
	tcase_add_test(tc, key_parse_round_trips);
	tcase_add_loop_test(tc, get_put_delete, 0, 4);
	tcase_add_loop_test(tc, fetch_merges_committed_pending_cached, 0, 4);
	tcase_add_loop_test(tc, fetch_without_cache, 0, 2);
	tcase_add_loop_test(tc, expiry_keeps_the_cut_and_drops_below, 0, 2);
	tcase_add_loop_test(tc, expiry_with_the_time_index, 0, 2);
	tcase_add_loop_test(tc, stream_time_is_persisted, 0, 2);
	tcase_add_loop_test(tc, stream_time_is_restored, 0, 2);
	tcase_add_loop_test(tc, restore_rebuilds_the_time_index, 0, 2);
	tcase_add_loop_test(tc, session_fetch_skips_deleted_windows, 0, 4);
	tcase_add_loop_test(tc, index_skips_deleted_windows, 0, 2);
	tcase_add_loop_test(tc, abort_resets_stream_time, 0, 2);
	tcase_add_loop_test(tc, stream_time_per_store_and_partition, 0, 2);
	tcase_add_loop_test(tc, flush_hands_window_keys_on, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(window_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
