/*
 * window_store.c - window and session stores (STOAT_STORE_WINDOW) on top
 * of the store partitions of state.c.
 *
 * A window store partition is an ordinary store partition whose keys are
 *
 *	00 ...                                  metadata ("\0stream-time")
 *	01 | segment | key | end | start  ->  the window's value
 *	02 | end | key | start            ->  empty (RocksDB, time_index only)
 *
 * (segment = floor(end / segment_ms); segment, end and start in the store
 * key layout of int64, big-endian with the sign bit flipped), so a key's
 * windows are contiguous within a segment, a segment is a key range, and
 * the time index lists every window in end order.  Windows are read and
 * written like key-value entries (state.c: through the record cache, held
 * back until the commit, into the changelog); the time index is derived:
 * state.c writes it next to each window write to RocksDB and each
 * restored window, and never logs it.  A deleted window keeps its index
 * entry until expiry (stoat_window_index_write): readers look each window
 * up.  In-memory partitions keep no index; their ordered reads scan the
 * partition's maps.
 *
 * Reads that return many windows collect them first, from the committed
 * data and held-back writes (RocksDB merges those) and the record cache,
 * then sort them and keep the newest version of each window: simple, and
 * the store may be written while an iterator is open.
 *
 * Stream time: each window store partition holds its task's stream time
 * under "\0stream-time" (8 bytes, big-endian), written by every flush that
 * finds it moved, before the commit, so it is committed (and logged) with
 * the state it describes.  Opening a RocksDB partition and restoring a
 * stream-time record raise the task's slot; an abort puts the slot back.
 *
 * Expiry: after each commit (and restore), windows ending below stream
 * time - retention_ms go: whole segments below the cut's segment at once
 * (RocksDB DeleteRange, with the time index below that segment's first
 * end; in memory, their entries), and the rest of the cut's segment is
 * hidden from reads until its own segment goes.  Nothing is logged: the
 * changelog's retention drops them there, and a restore expires again.
 *
 * Sizes (run --stats): the windows a partition holds, counted in the
 * store itself, hidden ones of the cut's segment included.
 */
#include "log.h"
#include "state_impl.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The first byte of a window store key. */
enum { KEY_META = 0, KEY_WINDOW = 1, KEY_INDEX = 2 };

/* Bytes of a window (or index) key besides the record key: the tag and
 * three int64s. */
#define WINDOW_KEY_EXTRA 25
/* And of an index key: the tag, end and start. */
#define INDEX_KEY_EXTRA 17

static const char STREAM_TIME_KEY[] = "\0stream-time";
#define STREAM_TIME_KEY_LEN (sizeof STREAM_TIME_KEY - 1)

/* The store key layout of an int64 (stoat_key_put_i64) at out. */
static void put_ordered_i64(char *out, int64_t v)
{
	uint64_t u = (uint64_t)v ^ ((uint64_t)1 << 63);
	for (int i = 0; i < 8; i++)
		out[i] = (char)(u >> (56 - 8 * i));
}

/* Reads what put_ordered_i64 wrote. */
static int64_t get_ordered_i64(const char *in)
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | (unsigned char)in[i];
	u ^= (uint64_t)1 << 63;
	int64_t v;
	memcpy(&v, &u, sizeof v);
	return v;
}

/* An int64 as 8 big-endian bytes (the stream-time value). */
static void put_be64(char *out, int64_t v)
{
	uint64_t u = (uint64_t)v;
	for (int i = 0; i < 8; i++)
		out[i] = (char)(u >> (56 - 8 * i));
}

/* Reads what put_be64 wrote. */
static int64_t get_be64(const char *in)
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | (unsigned char)in[i];
	return (int64_t)u;
}

/* p's store description. */
static const stoat_store_desc *desc_of(const stoat_store_part *p)
{
	return &p->st->app->stores[p->store];
}

/* The segment of a window ending at end: floor(end / segment_ms) (a
 * segment_ms below 1 counts as 1). */
static int64_t segment_of(const stoat_store_desc *d, int64_t end)
{
	int64_t ms = d->segment_ms > 0 ? d->segment_ms : 1;
	int64_t q = end / ms;
	if (end % ms != 0 && end < 0)
		q--;
	return q;
}

/* Writes the window store key of (key, start, end) to out, which has
 * key.len + WINDOW_KEY_EXTRA bytes. */
static void build_window_key(const stoat_store_desc *d, char *out, stoat_str key, int64_t start, int64_t end)
{
	out[0] = KEY_WINDOW;
	put_ordered_i64(out + 1, segment_of(d, end));
	if (key.len)
		memcpy(out + 9, key.ptr, key.len);
	put_ordered_i64(out + 9 + key.len, end);
	put_ordered_i64(out + 17 + key.len, start);
}

/* Splits 01|segment|key|end|start. */
bool stoat_window_key_parse(stoat_str store_key, stoat_str *key, int64_t *start, int64_t *end)
{
	if (!store_key.ptr || store_key.len < WINDOW_KEY_EXTRA || store_key.ptr[0] != KEY_WINDOW)
		return false;
	key->ptr = store_key.ptr + 9;
	key->len = store_key.len - WINDOW_KEY_EXTRA;
	*end = get_ordered_i64(store_key.ptr + store_key.len - 16);
	*start = get_ordered_i64(store_key.ptr + store_key.len - 8);
	return true;
}

/* 02|end|key|start of window key `key` into out (key.len bytes at
 * most); its length, or 0 when p keeps no time index or key is no window
 * key. */
size_t stoat_window_index_key(const stoat_store_part *p, stoat_str key, char *out)
{
	stoat_str k;
	int64_t start, end;
	if (!desc_of(p)->time_index || !stoat_window_key_parse(key, &k, &start, &end))
		return 0;
	out[0] = KEY_INDEX;
	put_ordered_i64(out + 1, end);
	if (k.len)
		memcpy(out + 9, k.ptr, k.len);
	put_ordered_i64(out + 9 + k.len, start);
	return k.len + INDEX_KEY_EXTRA;
}

/*
 * Adds the index entry of window key `key` to p's batch when the window is
 * written.  A deleted window keeps its entry: readers of the index look
 * each window up (rocks_fetch_index) and skip the ones gone, and expiry
 * deletes the entries with their segments.  Deleting them would leave a
 * tombstone per deleted window in the index, which every scan past it
 * walks until compaction: a session that grows by a record deletes its
 * window and writes one with the new end, so the scan for closed sessions
 * would walk a tombstone for each record of the session's last gap and
 * grace (quadratic in records per session, bench/nexmark/README.md).
 */
void stoat_window_index_write(stoat_store_part *p, stoat_str key, bool deleted)
{
	assert(p->window && p->family >= 0);
	if (deleted)
		return;
	char small[256];
	char *buf = key.len <= sizeof small ? small : stoat_xmalloc(key.len);
	size_t len = stoat_window_index_key(p, key, buf);
	if (len > 0) {
		stoat_str ix = { buf, len };
		stoat_rocks_put(p->st->db, p->family, ix, (stoat_str){ "", 0 });
	}
	if (buf != small)
		free(buf);
}

/* ------------------------------------------------------------------ */
/* Stream time                                                         */
/* ------------------------------------------------------------------ */

/* p holds (committed) stream time v: raises p's. */
static void stream_time_known(stoat_store_part *p, int64_t v)
{
	if (v > p->stream_time_committed)
		p->stream_time_committed = v;
	if (v > p->stream_time_written)
		p->stream_time_written = v;
	if (v > p->stream_time)
		p->stream_time = v;
}

/* A newly opened window store partition: no stream time yet, and for
 * RocksDB its committed stream time (whose expiry was done at that
 * commit). */
bool stoat_window_part_opened(stoat_store_part *p, char *err, size_t errlen)
{
	const stoat_store_desc *d = desc_of(p);
	p->stream_time = p->stream_time_written = p->stream_time_committed = -1;
	p->expired_cut = INT64_MIN;
	p->expired_segment = INT64_MIN;
	p->join_tracker[0] = -1;
	p->join_tracker[1] = INT64_MAX;
	if (p->family < 0)
		return true;
	stoat_arena a;
	stoat_arena_init(&a);
	stoat_str value;
	bool found = false;
	bool ok = stoat_rocks_get(p->st->db, p->family, (stoat_str){ STREAM_TIME_KEY, STREAM_TIME_KEY_LEN }, &a,
				  &value, &found, err, errlen);
	if (ok && found && value.len == 8) {
		int64_t v = get_be64(value.ptr);
		stream_time_known(p, v);
		int64_t retention = d->retention_ms > 0 ? d->retention_ms : 0;
		p->expired_cut = v - retention;
		p->expired_segment = segment_of(d, p->expired_cut);
	}
	stoat_arena_free(&a);
	return ok;
}

/* A restored record: the stream-time key raises the stream time. */
void stoat_window_restored(stoat_store_part *p, stoat_str key, stoat_str value)
{
	if (value.ptr && value.len == 8 && key.len == STREAM_TIME_KEY_LEN &&
	    memcmp(key.ptr, STREAM_TIME_KEY, STREAM_TIME_KEY_LEN) == 0)
		stream_time_known(p, get_be64(value.ptr));
}

/*
 * Writes the stream time of each window store partition that moved since
 * it was last written: a store write like any other (held back, logged),
 * in the flush context.
 */
bool stoat_window_write_stream_times(stoat_state *st)
{
	stoat_ctx *fcx = &st->flush_cx;
	bool ok = true;
	for (size_t s = 0; s < st->app->store_count; s++) {
		if (st->app->stores[s].kind != STOAT_STORE_WINDOW)
			continue;
		for (int32_t i = 0; i < st->part_caps[s]; i++) {
			stoat_store_part *p = st->parts[s][i];
			if (!p || p->stream_time <= p->stream_time_written)
				continue;
			int64_t now = p->stream_time;
			char v[8];
			put_be64(v, now);
			stoat_msg m = { .partition = p->partition, .offset = -1, .timestamp = now };
			const stoat_msg *saved_msg = fcx->msg;
			int64_t saved_timestamp = fcx->timestamp;
			fcx->msg = &m;
			fcx->timestamp = now;
			fcx->error = false;
			if (stoat_part_write(fcx, p, (stoat_str){ STREAM_TIME_KEY, STREAM_TIME_KEY_LEN }, (stoat_str){ v, 8 })) {
				p->stream_time_written = now;
			} else {
				stoat_log(STOAT_LOG_ERROR, NULL, NULL, "%s", fcx->error_message);
				ok = false;
			}
			fcx->msg = saved_msg;
			fcx->timestamp = saved_timestamp;
			fcx->error = false;
		}
	}
	return ok;
}

/* Puts every window store partition's stream time back to the committed
 * value. */
void stoat_window_aborted(stoat_state *st)
{
	for (size_t s = 0; s < st->app->store_count; s++)
		for (int32_t i = 0; i < st->part_caps[s]; i++) {
			stoat_store_part *p = st->parts[s][i];
			if (!p || !p->window)
				continue;
			p->stream_time = p->stream_time_written = p->stream_time_committed;
		}
}


/* ------------------------------------------------------------------ */
/* Expiry                                                              */
/* ------------------------------------------------------------------ */

/* Keys of an in-memory map to remove (collected first: removing moves
 * entries). */
typedef struct doomed {
	stoat_arena arena;
	stoat_str *keys;
	size_t count, cap;
	int64_t below; /* segments below this go */
} doomed;

/* Collects the window keys of segments below d->below. */
static void collect_doomed(void *arg, stoat_str key, stoat_str value, bool deleted)
{
	doomed *d = arg;
	(void)value;
	(void)deleted;
	if (key.len < WINDOW_KEY_EXTRA || key.ptr[0] != KEY_WINDOW || get_ordered_i64(key.ptr + 1) >= d->below)
		return;
	if (d->count == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->keys = stoat_xrealloc(d->keys, d->cap, sizeof *d->keys);
	}
	d->keys[d->count++] = stoat_arena_strdup(&d->arena, key);
}

/* Deletes p's committed windows of segments below `segment`. */
static bool expire_below(stoat_store_part *p, int64_t segment, char *err, size_t errlen)
{
	const stoat_store_desc *d = desc_of(p);
	if (p->family >= 0) {
		char lo = KEY_WINDOW, hi[9];
		hi[0] = KEY_WINDOW;
		put_ordered_i64(hi + 1, segment);
		if (!stoat_rocks_delete_range(p->st->db, p->family, (stoat_str){ &lo, 1 }, (stoat_str){ hi, 9 }, err,
					      errlen))
			return false;
		if (!d->time_index)
			return true;
		/* The segment's first end; segments below it start lower. */
		int64_t ms = d->segment_ms > 0 ? d->segment_ms : 1;
		int64_t first_end;
		if (__builtin_mul_overflow(segment, ms, &first_end))
			first_end = segment < 0 ? INT64_MIN : INT64_MAX;
		lo = KEY_INDEX;
		hi[0] = KEY_INDEX;
		put_ordered_i64(hi + 1, first_end);
		return stoat_rocks_delete_range(p->st->db, p->family, (stoat_str){ &lo, 1 }, (stoat_str){ hi, 9 }, err,
						errlen);
	}
	doomed dm = { .below = segment };
	stoat_arena_init(&dm.arena);
	stoat_mem_map_each(&p->committed, collect_doomed, &dm);
	for (size_t i = 0; i < dm.count; i++)
		stoat_mem_map_remove(&p->committed, dm.keys[i]);
	free(dm.keys);
	stoat_arena_free(&dm.arena);
	return true;
}

/*
 * p's writes (or restored records) are committed: so is its stream time,
 * and what ends below stream time - retention expires: hidden from now
 * on, and deleted segment by segment.
 */
bool stoat_window_committed(stoat_store_part *p, char *err, size_t errlen)
{
	const stoat_store_desc *d = desc_of(p);
	if (p->stream_time_written > p->stream_time_committed)
		p->stream_time_committed = p->stream_time_written;
	int64_t now = p->stream_time_committed;
	if (now < 0)
		return true;
	int64_t retention = d->retention_ms > 0 ? d->retention_ms : 0;
	int64_t cut = now - retention; /* now >= 0: no overflow */
	if (cut > p->expired_cut)
		p->expired_cut = cut;
	int64_t segment = segment_of(d, cut);
	if (segment <= p->expired_segment)
		return true;
	if (!expire_below(p, segment, err, errlen))
		return false;
	p->expired_segment = segment;
	return true;
}

/* ------------------------------------------------------------------ */
/* Point reads and writes                                              */
/* ------------------------------------------------------------------ */

/* The window store partition of cx's record, or NULL after an error. */
static stoat_store_part *window_part_of(stoat_ctx *cx, int store)
{
	stoat_store_part *p = stoat_state_part_of(cx, store);
	if (p && !p->window) {
		stoat_error(cx, "internal error: store %s is not a window store", desc_of(p)->name);
		return NULL;
	}
	return p;
}

/* See runtime.h. */
int64_t *stoat_join_tracker(stoat_ctx *cx, int store)
{
	stoat_store_part *p = window_part_of(cx, store);
	return p ? p->join_tracker : NULL;
}

/* See runtime.h. */
int64_t *stoat_window_stream_time(stoat_ctx *cx, int store)
{
	stoat_store_part *p = window_part_of(cx, store);
	return p ? &p->stream_time : NULL;
}

/* The window store key of (key, start, end), in cx's arena. */
static stoat_str window_key_in(stoat_ctx *cx, const stoat_store_part *p, stoat_str key, int64_t start, int64_t end)
{
	char *k = stoat_arena_alloc(&cx->arena, key.len + WINDOW_KEY_EXTRA);
	build_window_key(desc_of(p), k, key, start, end);
	return (stoat_str){ k, key.len + WINDOW_KEY_EXTRA };
}

/* The value of window (key, start, end); false when absent or expired. */
bool stoat_window_get(stoat_ctx *cx, int store, stoat_str key, int64_t start, int64_t end, stoat_str *value)
{
	stoat_store_part *p = window_part_of(cx, store);
	if (!p || end < p->expired_cut)
		return false;
	return stoat_store_get(cx, store, window_key_in(cx, p, key, start, end), value);
}

/* Writes window (key, start, end) as stoat_store_put writes a key. */
bool stoat_window_put(stoat_ctx *cx, int store, stoat_str key, int64_t start, int64_t end, stoat_str value)
{
	stoat_store_part *p = window_part_of(cx, store);
	if (!p)
		return false;
	return stoat_store_put(cx, store, window_key_in(cx, p, key, start, end), value);
}

/* Puts window (key, start, end) as stoat_store_put_quiet puts a key. */
bool stoat_window_put_quiet(stoat_ctx *cx, int store, stoat_str key, int64_t start, int64_t end, stoat_str value)
{
	stoat_store_part *p = window_part_of(cx, store);
	if (!p)
		return false;
	return stoat_store_put_quiet(cx, store, window_key_in(cx, p, key, start, end), value);
}

/* Deletes window (key, start, end) as stoat_store_delete deletes a key. */
bool stoat_window_delete(stoat_ctx *cx, int store, stoat_str key, int64_t start, int64_t end)
{
	stoat_store_part *p = window_part_of(cx, store);
	if (!p)
		return false;
	return stoat_store_delete(cx, store, window_key_in(cx, p, key, start, end));
}

/* ------------------------------------------------------------------ */
/* Ordered reads                                                       */
/* ------------------------------------------------------------------ */

/* One version of a window: rank orders versions (committed data 0,
 * held-back writes 1, the record cache 2); value.ptr NULL: deleted. */
typedef struct window_item {
	stoat_str key;
	int64_t start, end;
	stoat_str value;
	int rank;
} window_item;

/* A fetch's windows, collected, sorted, one version each. */
struct stoat_window_iter {
	stoat_ctx *cx;
	stoat_store_part *p;
	window_item *items;
	size_t count, cap, pos;
	/* What the fetch wants: ends in [end_lo, end_hi], of key if one_key. */
	bool one_key;
	stoat_str key;
	int64_t end_lo, end_hi;
	stoat_window_iter *next_free; /* in p->st->free_window_iters once closed */
};

/* Adds the window at store key skey (a version of rank `rank`) when the
 * fetch wants it. */
static void collect(stoat_window_iter *it, stoat_str skey, stoat_str value, int rank)
{
	window_item w;
	if (!stoat_window_key_parse(skey, &w.key, &w.start, &w.end))
		return;
	if (w.end < it->end_lo || w.end > it->end_hi || (it->one_key && !stoat_str_eq(w.key, it->key)))
		return;
	if (it->count == it->cap) {
		it->cap = it->cap ? it->cap * 2 : 16;
		it->items = stoat_xrealloc(it->items, it->cap, sizeof *it->items);
	}
	w.key = stoat_arena_strdup(&it->cx->arena, w.key);
	w.value = value.ptr ? stoat_arena_strdup(&it->cx->arena, value) : value;
	w.rank = rank;
	it->items[it->count++] = w;
}

/* End, then key, then start, then rank (the newest version last). */
static int compare_items(const void *a, const void *b)
{
	const window_item *x = a, *y = b;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	int c = stoat_str_cmp(x->key, y->key);
	if (c != 0)
		return c;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Whether a and b are versions of one window. */
static bool same_window(const window_item *a, const window_item *b)
{
	return a->end == b->end && a->start == b->start && stoat_str_eq(a->key, b->key);
}

/* The committed maps' entries (in memory): rank 0, held-back 1. */
static void collect_committed(void *arg, stoat_str key, stoat_str value, bool deleted)
{
	(void)deleted;
	collect(arg, key, value, 0);
}

static void collect_pending(void *arg, stoat_str key, stoat_str value, bool deleted)
{
	collect(arg, key, deleted ? (stoat_str){ NULL, 0 } : value, 1);
}

/* A seek key 01|segment|key|end (the smallest of key's windows ending at
 * end or later within segment) into buf. */
static stoat_str seek_key(char *buf, int64_t segment, stoat_str key, int64_t end)
{
	buf[0] = KEY_WINDOW;
	put_ordered_i64(buf + 1, segment);
	if (key.len)
		memcpy(buf + 9, key.ptr, key.len);
	put_ordered_i64(buf + 9 + key.len, end);
	return (stoat_str){ buf, key.len + 17 };
}

/*
 * One key's windows from RocksDB: within each segment from the lowest
 * end's to the highest's, the key's windows are one range; a seek that
 * lands in a later segment jumps there, so only segments that exist are
 * visited.
 */
static void rocks_fetch_key(stoat_window_iter *it, stoat_rocks_iter *ri)
{
	const stoat_store_desc *d = desc_of(it->p);
	int64_t segment = segment_of(d, it->end_lo), last = segment_of(d, it->end_hi);
	char *buf = stoat_arena_alloc(&it->cx->arena, it->key.len + 17);
	stoat_rocks_iter_seek(ri, seek_key(buf, segment, it->key, it->end_lo));
	while (stoat_rocks_iter_valid(ri)) {
		stoat_str k = stoat_rocks_iter_key(ri);
		if (k.len < 9 || k.ptr[0] != KEY_WINDOW)
			break;
		int64_t ks = get_ordered_i64(k.ptr + 1);
		if (ks > last)
			break;
		if (ks == segment && k.len == it->key.len + WINDOW_KEY_EXTRA &&
		    (it->key.len == 0 || memcmp(k.ptr + 9, it->key.ptr, it->key.len) == 0) &&
		    get_ordered_i64(k.ptr + k.len - 16) <= it->end_hi) {
			collect(it, k, stoat_rocks_iter_value(ri), 0);
			stoat_rocks_iter_next(ri);
			continue;
		}
		if (ks == segment) {
			if (segment >= last)
				break;
			segment++;
		} else {
			segment = ks;
		}
		stoat_rocks_iter_seek(ri, seek_key(buf, segment, it->key, it->end_lo));
	}
}

/* The window key (segment, key, end, start), the segment given, into buf
 * (key.len + WINDOW_KEY_EXTRA bytes). */
static stoat_str session_target(char *buf, int64_t segment, stoat_str key, int64_t end, int64_t start)
{
	seek_key(buf, segment, key, end);
	put_ordered_i64(buf + 17 + key.len, start);
	return (stoat_str){ buf, key.len + WINDOW_KEY_EXTRA };
}

/*
 * One key's sessions from RocksDB, newest first, by backward seeks.  The
 * sessions of a key that a fetch can see are disjoint (a record joins
 * every session within the gap of it into one, and sessions only grow),
 * so once a session [start, end] is found, the next older one ends before
 * start: the walk seeks there directly.  A forward walk would step over
 * every window the key's sessions have deleted since the last compaction:
 * a session that grows by a record deletes its window and writes one with
 * the new end, so the windows ending within the gap of a record hold a
 * tombstone for each of the session's records there, walked by each
 * record's fetch (quadratic in records per session,
 * bench/nexmark/README.md).  Sessions hidden by expiry may overlap newer
 * ones, but they end below the fetch's range.  Within a segment the key's
 * windows are one range, save entries of longer keys extending its bytes:
 * below the range's lowest end they end the segment's walk, within it
 * they are stepped over one by one.  A seek that lands in a lower segment
 * goes on there, so only segments that exist are visited.
 */
static void rocks_fetch_sessions(stoat_window_iter *it, stoat_rocks_iter *ri)
{
	const stoat_store_desc *d = desc_of(it->p);
	int64_t segment = segment_of(d, it->end_hi), first = segment_of(d, it->end_lo);
	int64_t below = it->end_hi; /* the next session ends at or below this */
	size_t len = it->key.len + WINDOW_KEY_EXTRA;
	char *buf = stoat_arena_alloc(&it->cx->arena, len);
	stoat_rocks_iter_seek_for_prev(ri, session_target(buf, segment, it->key, below, INT64_MAX));
	while (stoat_rocks_iter_valid(ri)) {
		stoat_str k = stoat_rocks_iter_key(ri);
		if (k.len < 9 || k.ptr[0] != KEY_WINDOW)
			break;
		int64_t ks = get_ordered_i64(k.ptr + 1);
		if (ks < first)
			break;
		if (ks < segment) {
			/* Nothing more of the key in this segment: on in the next that has windows. */
			segment = ks;
			stoat_rocks_iter_seek_for_prev(ri, session_target(buf, segment, it->key, below, INT64_MAX));
			continue;
		}
		if (k.len < 9 + it->key.len || (it->key.len && memcmp(k.ptr + 9, it->key.ptr, it->key.len) != 0)) {
			/* Below the key's windows in this segment. */
			if (segment <= first)
				break;
			segment--;
			stoat_rocks_iter_seek_for_prev(ri, session_target(buf, segment, it->key, below, INT64_MAX));
			continue;
		}
		if (k.len != len) {
			/* A longer key's window: below the range wanted (its bytes after
			 * the key's below end_lo's), or among the key's windows. */
			char lo[8];
			put_ordered_i64(lo, it->end_lo);
			if (memcmp(k.ptr + 9 + it->key.len, lo, 8) < 0) {
				if (segment <= first)
					break;
				segment--;
				stoat_rocks_iter_seek_for_prev(ri, session_target(buf, segment, it->key, below, INT64_MAX));
			} else {
				stoat_rocks_iter_prev(ri);
			}
			continue;
		}
		int64_t end = get_ordered_i64(k.ptr + k.len - 16), start = get_ordered_i64(k.ptr + k.len - 8);
		if (end < it->end_lo)
			break;
		collect(it, k, stoat_rocks_iter_value(ri), 0);
		if (start == INT64_MIN || start - 1 < it->end_lo)
			break;
		below = start - 1;
		if (segment_of(d, below) < segment)
			segment = segment_of(d, below);
		stoat_rocks_iter_seek_for_prev(ri, session_target(buf, segment, it->key, below, INT64_MAX));
	}
}

/* Every key's windows from RocksDB by the segments holding their ends. */
static void rocks_fetch_segments(stoat_window_iter *it, stoat_rocks_iter *ri)
{
	const stoat_store_desc *d = desc_of(it->p);
	int64_t last = segment_of(d, it->end_hi);
	char start[9];
	start[0] = KEY_WINDOW;
	put_ordered_i64(start + 1, segment_of(d, it->end_lo));
	for (stoat_rocks_iter_seek(ri, (stoat_str){ start, 9 }); stoat_rocks_iter_valid(ri); stoat_rocks_iter_next(ri)) {
		stoat_str k = stoat_rocks_iter_key(ri);
		if (k.len < 9 || k.ptr[0] != KEY_WINDOW || get_ordered_i64(k.ptr + 1) > last)
			break;
		collect(it, k, stoat_rocks_iter_value(ri), 0);
	}
}

/* Every key's windows from RocksDB through the time index.  False after
 * a RocksDB error (in err). */
static bool rocks_fetch_index(stoat_window_iter *it, stoat_rocks_iter *ri, char *err, size_t errlen)
{
	const stoat_store_desc *d = desc_of(it->p);
	stoat_str key;
	char start[9];
	start[0] = KEY_INDEX;
	put_ordered_i64(start + 1, it->end_lo);
	for (stoat_rocks_iter_seek(ri, (stoat_str){ start, 9 }); stoat_rocks_iter_valid(ri); stoat_rocks_iter_next(ri)) {
		stoat_str k = stoat_rocks_iter_key(ri);
		if (k.len < INDEX_KEY_EXTRA || k.ptr[0] != KEY_INDEX)
			break;
		int64_t end = get_ordered_i64(k.ptr + 1);
		if (end > it->end_hi)
			break;
		key = (stoat_str){ k.ptr + 9, k.len - INDEX_KEY_EXTRA };
		stoat_str wk = { stoat_arena_alloc(&it->cx->arena, key.len + WINDOW_KEY_EXTRA), key.len + WINDOW_KEY_EXTRA };
		build_window_key(d, (char *)wk.ptr, key, get_ordered_i64(k.ptr + k.len - 8), end);
		stoat_str value;
		bool found = false;
		if (!stoat_rocks_get(it->p->st->db, it->p->family, wk, &it->cx->arena, &value, &found, err, errlen))
			return false;
		if (found)
			collect(it, wk, value, 0);
	}
	return true;
}

/* How run_fetch reads RocksDB: one key's windows, one key's sessions,
 * every key's by the time index or by segments. */
typedef enum fetch_mode { FETCH_KEY, FETCH_SESSIONS, FETCH_INDEX, FETCH_SEGMENTS } fetch_mode;

/*
 * Collects the windows the fetch wants from every layer, then sorts them
 * and keeps each window's newest version, dropping deleted ones.
 */
static void run_fetch(stoat_window_iter *it, fetch_mode mode)
{
	stoat_store_part *p = it->p;
	if (it->end_lo < p->expired_cut)
		it->end_lo = p->expired_cut;
	if (it->end_lo > it->end_hi)
		return;
	if (p->family >= 0) {
		char err[512] = "";
		/* Each reader seeks first: no walk from the family's first key. */
		stoat_rocks_iter *ri = stoat_rocks_iter_open(p->st->db, p->family);
		bool ok = true;
		if (mode == FETCH_KEY)
			rocks_fetch_key(it, ri);
		else if (mode == FETCH_SESSIONS)
			rocks_fetch_sessions(it, ri);
		else if (mode == FETCH_INDEX)
			ok = rocks_fetch_index(it, ri, err, sizeof err);
		else
			rocks_fetch_segments(it, ri);
		if (!stoat_rocks_iter_close(ri, err, sizeof err) || !ok) {
			stoat_error(it->cx, "%s", err);
			it->count = 0;
			return;
		}
	} else {
		stoat_mem_map_each(&p->committed, collect_committed, it);
		stoat_mem_map_each(&p->pending, collect_pending, it);
	}
	/* The cache's dirty entries: a clean one holds what the store does
	 * (read from it, or flushed to it), so reading all of them would only
	 * cost a pass over the cache per fetch. */
	const record_cache *c = &p->st->cache;
	if (stoat_part_cached(p))
		for (size_t i = 0; i < c->dirty; i++) {
			const cache_entry *e = &c->entries[c->dirty_list[i]];
			if (e->part == p)
				collect(it, e->key, e->new_value, 2);
		}
	if (it->count == 0)
		return;
	qsort(it->items, it->count, sizeof *it->items, compare_items);
	size_t n = 0;
	for (size_t i = 0; i < it->count; i++) {
		const window_item *w = &it->items[i];
		bool newest = i + 1 == it->count || !same_window(w, &it->items[i + 1]);
		if (newest && w->value.ptr)
			it->items[n++] = *w;
	}
	it->count = n;
}

/*
 * A new iterator over store's partition of cx's record (without windows
 * and with cx->error set when that fails): a closed one of the task's
 * state, its items buffer kept, when there is one, so that a fetch per
 * record allocates only while the largest fetch so far grows.
 */
static stoat_window_iter *new_iter(stoat_ctx *cx, int store)
{
	stoat_store_part *p = window_part_of(cx, store);
	stoat_window_iter *it = p ? p->st->free_window_iters : NULL;
	if (it) {
		p->st->free_window_iters = it->next_free;
		window_item *items = it->items;
		size_t cap = it->cap;
		*it = (stoat_window_iter){ .items = items, .cap = cap };
	} else {
		it = stoat_xcalloc(1, sizeof *it);
	}
	it->cx = cx;
	it->p = p;
	return it;
}

/* key's windows ending in [end_from, end_to], by end then start, found in
 * RocksDB as `mode` says (FETCH_KEY or FETCH_SESSIONS). */
static stoat_window_iter *fetch_one_key(stoat_ctx *cx, int store, stoat_str key, int64_t end_from, int64_t end_to,
					 fetch_mode mode)
{
	stoat_window_iter *it = new_iter(cx, store);
	if (!it->p)
		return it;
	it->one_key = true;
	it->key = key;
	it->end_lo = end_from;
	it->end_hi = end_to;
	run_fetch(it, mode);
	return it;
}

/* key's windows ending in [end_from, end_to], by end then start. */
stoat_window_iter *stoat_window_fetch_key(stoat_ctx *cx, int store, stoat_str key, int64_t end_from, int64_t end_to)
{
	return fetch_one_key(cx, store, key, end_from, end_to, FETCH_KEY);
}

/* See runtime.h: fetch_key's windows, found in RocksDB by rocks_fetch_sessions. */
stoat_window_iter *stoat_session_fetch(stoat_ctx *cx, int store, stoat_str key, int64_t end_from, int64_t end_to)
{
	return fetch_one_key(cx, store, key, end_from, end_to, FETCH_SESSIONS);
}

/* See runtime.h.  In RocksDB (no cache in front) the key's windows ending
 * at end are one range from (key, end, INT64_MIN): a seek and a walk over
 * their keys alone, no value copied (a backward seek measured slower in the
 * common case of no such window); past 16 of them, a backward seek to the
 * last.  Keys of other record keys that extend this one's bytes can sort
 * inside the range; they are skipped. */
int64_t stoat_window_next_arrival(stoat_ctx *cx, int store, stoat_str key, int64_t end)
{
	stoat_store_part *p = window_part_of(cx, store);
	if (!p || end < p->expired_cut)
		return 0;
	const stoat_store_desc *d = desc_of(p);
	int64_t next = 0;
	if (p->family >= 0 && !stoat_part_cached(p)) {
		size_t len = key.len + WINDOW_KEY_EXTRA;
		char *target = stoat_arena_alloc(&cx->arena, len);
		build_window_key(d, target, key, INT64_MIN, end);
		stoat_rocks_iter *ri = stoat_rocks_scan(p->st->db, p->family, (stoat_str){ target, len });
		for (int walked = 0; stoat_rocks_iter_valid(ri); stoat_rocks_iter_next(ri), walked++) {
			stoat_str k = stoat_rocks_iter_key(ri);
			if (k.len < len - 8 || memcmp(k.ptr, target, len - 8) != 0)
				break;
			if (k.len == len)
				next = get_ordered_i64(k.ptr + len - 8) + 1;
			if (walked == 16 && k.len == len) {
				/* Many of them: the last one directly, when it is one of ours. */
				put_ordered_i64(target + len - 8, INT64_MAX);
				stoat_rocks_iter_seek_for_prev(ri, (stoat_str){ target, len });
				if (stoat_rocks_iter_valid(ri)) {
					stoat_str last = stoat_rocks_iter_key(ri);
					if (last.len == len && memcmp(last.ptr, target, len - 8) == 0) {
						next = get_ordered_i64(last.ptr + len - 8) + 1;
						break;
					}
				}
				/* Another key's entry is last: walk on from where the walk was. */
				put_ordered_i64(target + len - 8, next - 1);
				stoat_rocks_iter_seek(ri, (stoat_str){ target, len });
			}
		}
		char err[512] = "";
		if (!stoat_rocks_iter_close(ri, err, sizeof err)) {
			stoat_error(cx, "%s", err);
			return 0;
		}
		return next;
	}
	int64_t start, e;
	stoat_str k, v;
	stoat_window_iter *it = stoat_window_fetch_key(cx, store, key, end, end);
	while (stoat_window_next(it, &k, &start, &e, &v))
		next = start + 1;
	stoat_window_iter_close(it);
	return next;
}

/* Every key's windows ending in (end_after, end_upto], by end, key,
 * start. */
stoat_window_iter *stoat_window_fetch_ended(stoat_ctx *cx, int store, int64_t end_after, int64_t end_upto)
{
	stoat_window_iter *it = new_iter(cx, store);
	if (!it->p || end_after == INT64_MAX)
		return it;
	it->end_lo = end_after + 1;
	it->end_hi = end_upto;
	run_fetch(it, desc_of(it->p)->time_index ? FETCH_INDEX : FETCH_SEGMENTS);
	return it;
}

/* The next window of it, or false at the end. */
bool stoat_window_next(stoat_window_iter *it, stoat_str *key, int64_t *start, int64_t *end, stoat_str *value)
{
	if (it->pos == it->count)
		return false;
	const window_item *w = &it->items[it->pos++];
	*key = w->key;
	*start = w->start;
	*end = w->end;
	*value = w->value;
	return true;
}

/* Closes it (NULL: no-op): back to its state's free list for reuse, or
 * freed when it has no partition; what it returned stays in cx's arena. */
void stoat_window_iter_close(stoat_window_iter *it)
{
	if (!it)
		return;
	if (it->p) {
		it->next_free = it->p->st->free_window_iters;
		it->p->st->free_window_iters = it;
		return;
	}
	free(it->items);
	free(it);
}

/* Frees the closed iterators st keeps. */
void stoat_window_iters_free(stoat_state *st)
{
	while (st->free_window_iters) {
		stoat_window_iter *it = st->free_window_iters;
		st->free_window_iters = it->next_free;
		free(it->items);
		free(it);
	}
}

/* ------------------------------------------------------------------ */
/* Sizes                                                               */
/* ------------------------------------------------------------------ */

/* Counts of one partition's entries, by kind. */
typedef struct size_count {
	uint64_t windows, keys;
} size_count;

/* Counts an in-memory entry. */
static void count_entry(void *arg, stoat_str key, stoat_str value, bool deleted)
{
	size_count *c = arg;
	(void)value;
	if (deleted)
		return;
	c->keys++;
	if (key.len >= WINDOW_KEY_EXTRA && key.ptr[0] == KEY_WINDOW)
		c->windows++;
}

/*
 * What run --stats prints about window stores: for each open partition,
 * the windows and keys it holds as of the last commit, counted by a scan
 * of its RocksDB family (what expiry deleted is gone from it; the time
 * index and the stream time are the other keys) or of its committed map.
 * This is the store's real size, not a counter kept beside it.
 */
bool stoat_state_print_window_sizes(stoat_state *st, FILE *f, char *err, size_t errlen)
{
	for (size_t s = 0; s < st->app->store_count; s++) {
		if (st->app->stores[s].kind != STOAT_STORE_WINDOW)
			continue;
		for (int32_t i = 0; i < st->part_caps[s]; i++) {
			stoat_store_part *p = st->parts[s][i];
			if (!p)
				continue;
			size_count c = { 0, 0 };
			if (p->family >= 0) {
				stoat_rocks_iter *it = stoat_rocks_scan(st->db, p->family, (stoat_str){ 0 });
				for (; stoat_rocks_iter_valid(it); stoat_rocks_iter_next(it))
					count_entry(&c, stoat_rocks_iter_key(it), (stoat_str){ 0 }, false);
				if (!stoat_rocks_iter_close(it, err, errlen))
					return false;
			} else {
				stoat_mem_map_each(&p->committed, count_entry, &c);
			}
			fprintf(f,
				"%s: window store %s[%" PRId32 "]: %" PRIu64 " windows, %" PRIu64
				" keys, stream time %" PRId64 "\n",
				st->app->app_id, st->app->stores[s].name, p->partition, c.windows, c.keys,
				p->stream_time_committed);
		}
	}
	return true;
}
