/*
 * state.c - the application's state stores, for both drivers.
 *
 * A store partition is one store's state for one partition (what Kafka
 * Streams keeps per task): a RocksDB column family "<store>.<partition>"
 * in the driver's database, or, for stores declared in memory (and for
 * every store when there is no state directory), a committed hash map
 * plus a pending map of the open commit interval's writes.
 *
 * Writes are held back until the driver's Kafka commit has succeeded
 * (RocksDB's write batch with index, which reads see; the pending map),
 * and stoat_state_commit applies them in one atomic write together with
 * each partition's changelog checkpoint: the offset after the last
 * changelog record the committed state reflects.  After a crash the store
 * holds exactly the state of some commit and its checkpoint, so restoring
 * from the checkpoint brings it up to date; nothing is wiped.
 *
 * The record cache (cache_max_bytes > 0) sits above: puts collapse per key
 * until the next flush, which happens at every commit and whenever the
 * cache outgrows its budget.  A flush writes each updated key once to its
 * store and changelog, then hands the updates (old value as of the last
 * flush, newest value) to the store's generated flush function, which runs
 * the operators downstream of the store.  Keys stay cached, clean, after a
 * flush, so hot keys are read from RocksDB once, not once per commit; the
 * cache is emptied when a flush leaves it over half its budget, and on an
 * abort.  Updates flush in the order their keys entered the cache, so
 * output is deterministic.  Records a flush feeds back into pipelines (the
 * replay driver's repartition topics) may update keys again meanwhile:
 * the flush works on a snapshot and repeats until nothing is dirty.
 */
#include "log.h"
#include "state_impl.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* A copy of s in arena; a present empty string keeps a non-NULL ptr. */
static stoat_str copy_into(stoat_arena *a, stoat_str s)
{
	if (!s.ptr)
		return s;
	return stoat_arena_strdup(a, s);
}

/* ------------------------------------------------------------------ */
/* Opening and closing                                                 */
/* ------------------------------------------------------------------ */

/*
 * State holds user data: its files are 0600 and its directories 0700.
 * RocksDB creates its files (SSTs, logs, manifests) with the process
 * umask, not only at open but whenever it flushes or compacts, so the
 * umask is narrowed to 077 while a database is open, from the first open
 * to the last close, and put back then (files the process writes outside
 * the state, such as profiles at exit, keep the user's umask).
 */
static int umask_holders;
static mode_t umask_saved;

/* Narrows the umask to owner-only while a database is open. */
static void umask_hold(void)
{
	if (umask_holders++ == 0) {
		umask_saved = umask(077);
		umask(umask_saved | 077);
	}
}

/* Puts the user's umask back after the last database closed. */
static void umask_release(void)
{
	assert(umask_holders > 0);
	if (--umask_holders == 0)
		umask(umask_saved);
}

/*
 * Opens the stores of app for driver d: RocksDB in opt->dir when a store
 * needs it, with the checkpoint family; changelog names; the flush
 * context.  NULL and err on failure.
 */
stoat_state *stoat_state_open(const stoat_app *app, stoat_driver *d, const stoat_state_options *opt, char *err,
			      size_t errlen)
{
	stoat_state *st = stoat_xcalloc(1, sizeof *st);
	st->app = app;
	st->driver = d;
	st->cache_max = opt->cache_max_bytes;
	st->checkpoint_family = -1;
	bool any_rocks = false;
	for (size_t i = 0; i < app->store_count; i++)
		any_rocks = any_rocks || !app->stores[i].in_memory;
	if (opt->dir && any_rocks) {
		umask_hold();
		st->db = stoat_rocks_open(opt->dir, opt->memory_budget, err, errlen);
		if (st->db)
			st->checkpoint_family = stoat_rocks_family(st->db, CHECKPOINT_FAMILY, err, errlen);
		if (st->checkpoint_family < 0) {
			stoat_rocks_close(st->db);
			umask_release();
			free(st);
			return NULL;
		}
	}
	st->changelog_topics = stoat_xcalloc(app->store_count, sizeof *st->changelog_topics);
	st->parts = stoat_xcalloc(app->store_count, sizeof *st->parts);
	st->part_caps = stoat_xcalloc(app->store_count, sizeof *st->part_caps);
	for (size_t i = 0; i < app->store_count; i++) {
		size_t n = strlen(app->app_id) + strlen(app->stores[i].name) + sizeof "--changelog";
		st->changelog_topics[i] = stoat_xcalloc(1, n);
		snprintf(st->changelog_topics[i], n, "%s-%s-changelog", app->app_id, app->stores[i].name);
	}
	stoat_arena_init(&st->cache.arena);
	stoat_ctx *fcx = &st->flush_cx;
	stoat_ctx_init(fcx, app, d);
	fcx->source = app->source_count ? &app->sources[0] : NULL;
	return st;
}

/* Frees one store partition (its RocksDB family stays in the database). */
static void part_free(stoat_store_part *p)
{
	stoat_mem_map_clear(&p->committed);
	stoat_mem_map_clear(&p->pending);
	stoat_arena_free(&p->restore_arena);
	free(p->restore_kvs);
	free(p);
}

/*
 * Frees every store partition, the cache and the database (uncommitted
 * writes are dropped).
 */
void stoat_state_close(stoat_state *st)
{
	if (!st)
		return;
	for (size_t s = 0; s < st->app->store_count; s++) {
		for (int32_t i = 0; i < st->part_caps[s]; i++)
			if (st->parts[s][i])
				part_free(st->parts[s][i]);
		free(st->parts[s]);
		free(st->changelog_topics[s]);
	}
	stoat_window_iters_free(st);
	free(st->cache.dirty_list);
	free(st->cache.entries);
	free(st->cache.index);
	stoat_arena_free(&st->cache.arena);
	if (st->db) {
		stoat_rocks_close(st->db);
		umask_release();
	}
	stoat_ctx_free(&st->flush_cx);
	free(st->updates);
	free(st->update_stores);
	free(st->parts);
	free(st->part_caps);
	free(st->changelog_topics);
	free(st);
}

/* "<app_id>-<store>-changelog". */
const char *stoat_state_changelog_topic(const stoat_state *st, int store)
{
	assert(store >= 0 && (size_t)store < st->app->store_count);
	return st->changelog_topics[store];
}

/* The context the flush functions run in. */
stoat_ctx *stoat_state_flush_ctx(stoat_state *st)
{
	return &st->flush_cx;
}

/* The checkpoint key of a partition: "<store>.<partition>". */
static stoat_str checkpoint_key(const stoat_store_part *p, char *buf, size_t n)
{
	int len = snprintf(buf, n, "%s.%" PRId32, p->st->app->stores[p->store].name, p->partition);
	return (stoat_str){ buf, (size_t)len };
}

/* The key marking a partition whose changelog is being rebuilt:
 * "<store>.<partition>.rebuild" (store names have no dots). */
static stoat_str rebuild_key(const stoat_store_part *p, char *buf, size_t n)
{
	int len = snprintf(buf, n, "%s.%" PRId32 ".rebuild", p->st->app->stores[p->store].name, p->partition);
	return (stoat_str){ buf, (size_t)len };
}

/* Writes v as 8 little-endian bytes (a checkpoint value). */
static void put_le64(char *out, int64_t v)
{
	uint64_t u = (uint64_t)v;
	for (int i = 0; i < 8; i++)
		out[i] = (char)(u >> (8 * i));
}

/* Reads 8 little-endian bytes (a checkpoint value). */
static int64_t get_le64(const char *in)
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)(unsigned char)in[i] << (8 * i);
	return (int64_t)u;
}

/*
 * The store partition (store, partition), opened on first use: its
 * RocksDB family and checkpoint, or empty maps.  NULL and err on failure.
 */
stoat_store_part *stoat_state_part(stoat_state *st, int store, int32_t partition, char *err, size_t errlen)
{
	assert(store >= 0 && (size_t)store < st->app->store_count);
	assert(partition >= 0);
	if (partition < st->part_caps[store] && st->parts[store][partition])
		return st->parts[store][partition];
	if (partition >= st->part_caps[store]) {
		int32_t cap = st->part_caps[store] ? st->part_caps[store] : 8;
		while (cap <= partition)
			cap *= 2;
		st->parts[store] = stoat_xrealloc(st->parts[store], (size_t)cap, sizeof *st->parts[store]);
		for (int32_t i = st->part_caps[store]; i < cap; i++)
			st->parts[store][i] = NULL;
		st->part_caps[store] = cap;
	}
	stoat_store_part *p = stoat_xcalloc(1, sizeof *p);
	p->st = st;
	p->store = store;
	p->partition = partition;
	p->family = -1;
	stoat_arena_init(&p->restore_arena);
	if (st->db && !st->app->stores[store].in_memory) {
		char name[512];
		snprintf(name, sizeof name, "%s.%" PRId32, st->app->stores[store].name, partition);
		p->family = stoat_rocks_family(st->db, name, err, errlen);
		if (p->family < 0) {
			part_free(p);
			return NULL;
		}
		char kb[512];
		stoat_str value;
		bool found = false;
		if (!stoat_rocks_get(st->db, st->checkpoint_family, checkpoint_key(p, kb, sizeof kb),
				     &st->flush_cx.arena, &value, &found, err, errlen)) {
			part_free(p);
			return NULL;
		}
		if (found && value.len == 8)
			p->checkpoint = get_le64(value.ptr);
		if (!stoat_rocks_get(st->db, st->checkpoint_family, rebuild_key(p, kb, sizeof kb), &st->flush_cx.arena,
				     &value, &found, err, errlen)) {
			part_free(p);
			return NULL;
		}
		p->rebuild_pending = found;
		stoat_arena_reset(&st->flush_cx.arena);
	}
	p->acked_end = p->checkpoint;
	p->window = st->app->stores[store].kind == STOAT_STORE_WINDOW;
	if (p->window && !stoat_window_part_opened(p, err, errlen)) {
		part_free(p);
		return NULL;
	}
	st->parts[store][partition] = p;
	return p;
}

/* The store index of p. */
int stoat_store_part_store(const stoat_store_part *p)
{
	return p->store;
}

/* The partition of p. */
int32_t stoat_store_part_partition(const stoat_store_part *p)
{
	return p->partition;
}

/* The changelog offset p's committed data reflects. */
int64_t stoat_store_part_checkpoint(const stoat_store_part *p)
{
	return p->checkpoint;
}

/* Records applied by p's last restore. */
uint64_t stoat_store_part_restored(const stoat_store_part *p)
{
	return p->restored;
}

/* The changelog offset after the last record restored so far. */
int64_t stoat_store_part_restore_position(const stoat_store_part *p)
{
	return p->restore_next;
}

/*
 * A changelog record of p was acknowledged: its checkpoint may move past
 * offset at the next commit.
 */
void stoat_store_part_acked(stoat_store_part *p, int64_t offset)
{
	if (offset + 1 > p->acked_end)
		p->acked_end = offset + 1;
}

/* ------------------------------------------------------------------ */
/* The store partitions' own reads and writes                          */
/* ------------------------------------------------------------------ */

/* Reads key from p (held-back writes first) into arena. */
bool stoat_part_get(stoat_store_part *p, stoat_str key, stoat_arena *arena, stoat_str *value, bool *found,
		     char *err, size_t errlen)
{
	if (p->family >= 0)
		return stoat_rocks_get(p->st->db, p->family, key, arena, value, found, err, errlen);
	stoat_str v;
	bool deleted = false;
	*found = false;
	if (stoat_mem_map_get(&p->pending, key, &v, &deleted)) {
		if (deleted)
			return true;
	} else if (!stoat_mem_map_get(&p->committed, key, &v, NULL)) {
		return true;
	}
	*found = true;
	*value = stoat_arena_strdup(arena, v);
	return true;
}

/*
 * Writes key (value.ptr NULL: deletes it) to p's held-back writes and,
 * under the Kafka driver, to its changelog.  False after recording a
 * per-record error on cx.
 */
bool stoat_part_write(stoat_ctx *cx, stoat_store_part *p, stoat_str key, stoat_str value)
{
	stoat_state *st = p->st;
	if (p->family >= 0) {
		if (value.ptr)
			stoat_rocks_put(st->db, p->family, key, value);
		else
			stoat_rocks_delete(st->db, p->family, key);
		if (p->window)
			stoat_window_index_write(p, key, value.ptr == NULL);
	} else {
		stoat_mem_map_put(&p->pending, key, value, value.ptr == NULL);
	}
	const stoat_driver_ops *ops = st->driver->ops;
	/* A global table's store has no changelog: its source topic is one. */
	if (ops && ops->changelog_write && !st->app->stores[p->store].global)
		return ops->changelog_write(st->driver, cx, p, key, value);
	return true;
}

/* ------------------------------------------------------------------ */
/* The record cache                                                    */
/* ------------------------------------------------------------------ */

/* FNV-1a of the key, seeded with the partition's address. */
static uint64_t cache_hash(const stoat_store_part *p, stoat_str key)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uintptr_t)p;
	for (size_t i = 0; i < key.len; i++) {
		h ^= (unsigned char)key.ptr[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* The slot of (p, key) in c's index: its entry number + 1, or 0. */
static uint32_t *cache_slot(record_cache *c, const stoat_store_part *p, stoat_str key, uint64_t h)
{
	size_t mask = c->index_cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		uint32_t *slot = &c->index[i];
		if (*slot == 0)
			return slot;
		const cache_entry *e = &c->entries[*slot - 1];
		if (e->hash == h && e->part == p && e->key.len == key.len && memcmp(e->key.ptr, key.ptr, key.len) == 0)
			return slot;
	}
}

/* The cache entry of (p, key), or NULL. */
static cache_entry *cache_find(record_cache *c, const stoat_store_part *p, stoat_str key)
{
	if (c->count == 0)
		return NULL;
	uint32_t *slot = cache_slot(c, p, key, cache_hash(p, key));
	return *slot ? &c->entries[*slot - 1] : NULL;
}

/* Adds an entry for (p, key) holding value as both old and new. */
static cache_entry *cache_add(record_cache *c, stoat_store_part *p, stoat_str key, stoat_str value)
{
	if ((c->count + 1) * 2 > c->index_cap) {
		size_t cap = c->index_cap ? c->index_cap * 2 : 1024;
		free(c->index);
		c->index = stoat_xcalloc(cap, sizeof *c->index);
		c->index_cap = cap;
		for (size_t i = 0; i < c->count; i++)
			*cache_slot(c, c->entries[i].part, c->entries[i].key, c->entries[i].hash) = (uint32_t)(i + 1);
	}
	if (c->count == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 512;
		c->entries = stoat_xrealloc(c->entries, c->cap, sizeof *c->entries);
	}
	uint64_t h = cache_hash(p, key);
	cache_entry *e = &c->entries[c->count];
	memset(e, 0, sizeof *e);
	e->part = p;
	e->hash = h;
	e->key = copy_into(&c->arena, key);
	e->old_value = e->new_value = copy_into(&c->arena, value);
	*cache_slot(c, p, e->key, h) = (uint32_t)++c->count;
	c->bytes += sizeof *e + key.len + (value.ptr ? value.len : 0);
	return e;
}

/* Empties c, keeping its allocations. */
static void cache_reset(record_cache *c)
{
	c->count = 0;
	c->bytes = 0;
	c->dirty = 0;
	if (c->index)
		memset(c->index, 0, c->index_cap * sizeof *c->index);
	stoat_arena_reset(&c->arena);
}

/* Runs a store's flush function over updates[0..n). */
static bool run_flush_fn(stoat_state *st, int store, const stoat_store_update *updates, size_t n)
{
	const stoat_store_desc *desc = &st->app->stores[store];
	if (!desc->flush || n == 0)
		return true;
	stoat_ctx *fcx = &st->flush_cx;
	fcx->source = fcx->app->sources;
	for (size_t i = 0; i < st->app->source_count; i++)
		for (size_t j = 0; j < st->app->sources[i].store_count; j++)
			if (st->app->sources[i].stores[j] == store) {
				fcx->source = &st->app->sources[i];
				i = st->app->source_count - 1;
				break;
			}
	fcx->msg = NULL;
	fcx->error = false;
	desc->flush(fcx, updates, n);
	fcx->msg = NULL;
	stoat_arena_reset(&fcx->arena);
	if (fcx->abandoned || fcx->stopped)
		return false;
	return true;
}

/*
 * Flushes the cache once: every dirty entry is written to its store
 * partition (and changelog) first, so that pipelines the flush functions
 * feed see the new state; then all of them are marked clean (their old
 * value becomes the flushed one) and the flush functions run over the
 * snapshot, in runs of entries of one store, in cache order.
 */
static bool cache_flush(stoat_state *st, record_cache *c)
{
	stoat_ctx *fcx = &st->flush_cx;
	bool ok = true;
	size_t count = c->count;
	for (size_t i = 0; i < count && ok; i++) {
		cache_entry *e = &c->entries[i];
		if (!e->dirty)
			continue;
		stoat_msg m = { .partition = e->part->partition, .offset = -1, .timestamp = e->timestamp };
		fcx->msg = &m;
		fcx->timestamp = e->timestamp;
		fcx->error = false;
		if (!stoat_part_write(fcx, e->part, e->key, e->new_value)) {
			/* A changelog write failing is not the record's fault. */
			stoat_log(STOAT_LOG_ERROR, NULL, NULL, "%s", fcx->error_message);
			ok = false;
		}
		fcx->msg = NULL;
		fcx->error = false;
	}
	size_t n = 0;
	for (size_t i = 0; i < count; i++) {
		cache_entry *e = &c->entries[i];
		if (!e->dirty)
			continue;
		e->dirty = false;
		c->dirty--; /* to 0: the dirty list empties with it */
		/* Only quiet writes since the last flush: nothing to pass on. */
		bool changed = e->shown && (e->old_value.ptr || e->shown_value.ptr);
		stoat_str old = e->old_value;
		e->old_value = e->new_value;
		e->shown = false;
		if (!changed)
			continue;
		if (n == st->updates_cap) {
			st->updates_cap = st->updates_cap ? st->updates_cap * 2 : 256;
			st->updates = stoat_xrealloc(st->updates, st->updates_cap, sizeof *st->updates);
			st->update_stores = stoat_xrealloc(st->update_stores, st->updates_cap, sizeof *st->update_stores);
		}
		st->update_stores[n] = e->part->store;
		stoat_store_update *u = &st->updates[n++];
		memset(u, 0, sizeof *u);
		u->record.partition = e->part->partition;
		u->record.offset = -1;
		u->record.timestamp = e->shown_timestamp;
		u->record.key = e->key;
		u->record.value = e->shown_value;
		u->old_value = old;
	}
	/*
	 * The snapshot stays put while the flush functions run: they may
	 * update the cache (new entries, new bytes in its arena), but no
	 * other flush starts meanwhile (st->flushing).
	 */
	for (size_t start = 0, i = 1; start < n && ok; i++) {
		if (i == n || st->update_stores[i] != st->update_stores[start] ||
		    st->updates[i].record.partition != st->updates[start].record.partition) {
			ok = run_flush_fn(st, st->update_stores[start], st->updates + start, i - start);
			start = i;
		}
	}
	return ok;
}

/*
 * Flushes the record cache until nothing is dirty (flushes may feed
 * records back, which may dirty keys again); empties it when a flush
 * failed or left it over half its budget.
 */
bool stoat_state_flush(stoat_state *st)
{
	if (st->flushing)
		return true;
	st->flushing = true;
	bool ok = true;
	record_cache *c = &st->cache;
	/* Flushing can feed records back in (replay) that update keys
	 * again: repeat until nothing is dirty. */
	while (ok && c->dirty > 0)
		ok = cache_flush(st, c);
	/* Last: the flushed updates may have fed records (replay) that
	 * moved stream times. */
	ok = ok && stoat_window_write_stream_times(st);
	if (!ok || c->bytes > st->cache_max / 2)
		cache_reset(c);
	st->flushing = false;
	return ok;
}

/* ------------------------------------------------------------------ */
/* What generated code calls                                           */
/* ------------------------------------------------------------------ */

/* The store partition of the record cx is processing, or an error. */
stoat_store_part *stoat_state_part_of(stoat_ctx *cx, int store)
{
	stoat_state *st = cx->driver ? cx->driver->state : NULL;
	if (!st || store < 0 || (size_t)store >= st->app->store_count) {
		stoat_error(cx, "internal error: store %d does not exist", store);
		return NULL;
	}
	int32_t partition = cx->msg ? cx->msg->partition : 0;
	if (partition < 0 || st->app->stores[store].global)
		partition = 0; /* a global table's store holds every partition in one */
	if (partition < st->part_caps[store] && st->parts[store][partition])
		return st->parts[store][partition];
	/* The Kafka driver opens (and restores) partitions on assignment. */
	if (st->driver->ops && st->driver->ops->opens_parts_on_assignment) {
		stoat_error(cx, "internal error: partition %" PRId32 " of store %s was not restored", partition,
			    st->app->stores[store].name);
		return NULL;
	}
	char err[512];
	stoat_store_part *p = stoat_state_part(st, store, partition, err, sizeof err);
	if (!p)
		stoat_error(cx, "%s", err);
	return p;
}

/* See state_impl.h. */
bool stoat_part_cached(const stoat_store_part *p)
{
	return p->st->cache_max > 0 && !p->st->app->stores[p->store].uncached;
}

/*
 * Reads key through the cache (caching what the store gave) or from the
 * store partition; false when absent or after recording an error.
 */
bool stoat_store_get(stoat_ctx *cx, int store, stoat_str key, stoat_str *value)
{
	stoat_store_part *p = stoat_state_part_of(cx, store);
	if (!p)
		return false;
	stoat_state *st = p->st;
	bool cached = stoat_part_cached(p);
	if (cached) {
		cache_entry *e = cache_find(&st->cache, p, key);
		if (e) {
			st->cache.hits++;
			if (!e->new_value.ptr)
				return false;
			*value = stoat_arena_strdup(&cx->arena, e->new_value);
			return true;
		}
	}
	char err[512];
	bool found = false;
	if (!stoat_part_get(p, key, &cx->arena, value, &found, err, sizeof err)) {
		stoat_error(cx, "%s", err);
		return false;
	}
	if (cached) {
		st->cache.misses++;
		cache_add(&st->cache, p, key, found ? *value : (stoat_str){ NULL, 0 });
	}
	return found;
}

/*
 * Put (value.ptr set) or delete, through the cache when there is one;
 * quiet: the write is not passed downstream (the cache's flush passes on
 * the newest write that was not quiet, if any).
 */
static bool store_write(stoat_ctx *cx, int store, stoat_str key, stoat_str value, bool quiet)
{
	stoat_store_part *p = stoat_state_part_of(cx, store);
	if (!p)
		return false;
	stoat_state *st = p->st;
	if (!stoat_part_cached(p))
		return stoat_part_write(cx, p, key, value);
	record_cache *c = &st->cache;
	cache_entry *e = cache_find(c, p, key);
	if (e) {
		c->hits++;
	} else {
		c->misses++;
		char err[512];
		bool found = false;
		stoat_str old = { NULL, 0 };
		if (!stoat_part_get(p, key, &c->arena, &old, &found, err, sizeof err)) {
			stoat_error(cx, "%s", err);
			return false;
		}
		e = cache_add(c, p, key, found ? old : (stoat_str){ NULL, 0 });
	}
	e->new_value = copy_into(&c->arena, value);
	c->bytes += value.ptr ? value.len : 0;
	if (!e->dirty) {
		e->dirty = true;
		if (c->dirty == c->dirty_cap) {
			c->dirty_cap = c->dirty_cap ? c->dirty_cap * 2 : 512;
			c->dirty_list = stoat_xrealloc(c->dirty_list, c->dirty_cap, sizeof *c->dirty_list);
		}
		c->dirty_list[c->dirty++] = (uint32_t)(e - c->entries);
	}
	e->timestamp = cx->timestamp;
	if (!quiet) {
		e->shown = true;
		e->shown_value = e->new_value;
		e->shown_timestamp = cx->timestamp;
	}
	if (c->bytes > st->cache_max && !st->flushing) {
		c->size_flushes++;
		if (!stoat_state_flush(st)) {
			/* The flushed updates failed downstream: so does this record. */
			if (st->flush_cx.abandoned)
				cx->abandoned = true;
			stoat_error(cx, "a store update flushed from the record cache failed downstream");
		}
	}
	return false;
}

/* A put: an empty value is kept apart from a delete. */
bool stoat_store_put(stoat_ctx *cx, int store, stoat_str key, stoat_str value)
{
	if (!value.ptr)
		value.ptr = "";
	return store_write(cx, store, key, value, false);
}

/* A put that is never passed downstream (see runtime.h). */
bool stoat_store_put_quiet(stoat_ctx *cx, int store, stoat_str key, stoat_str value)
{
	if (!value.ptr)
		value.ptr = "";
	(void)store_write(cx, store, key, value, true);
	return !cx->error;
}

/* A delete that is never passed downstream (see runtime.h). */
bool stoat_store_delete_quiet(stoat_ctx *cx, int store, stoat_str key)
{
	(void)store_write(cx, store, key, (stoat_str){ NULL, 0 }, true);
	return !cx->error;
}

/* A delete (a tombstone in the changelog). */
bool stoat_store_delete(stoat_ctx *cx, int store, stoat_str key)
{
	return store_write(cx, store, key, (stoat_str){ NULL, 0 }, false);
}

/* ------------------------------------------------------------------ */
/* Commit and abort                                                    */
/* ------------------------------------------------------------------ */

/*
 * After the driver's Kafka commit: writes the held-back batch with every
 * moved checkpoint in one atomic write, then applies the in-memory
 * stores' pending writes.  False and err on failure.
 */
bool stoat_state_commit(stoat_state *st, char *err, size_t errlen)
{
	assert(!st->flushing);
	/* stoat_state_flush ran first: the cache holds clean entries only,
	 * which stay (they are the state being committed). */
	assert(st->cache.dirty == 0);
	stoat_arena scratch;
	stoat_arena_init(&scratch);
	stoat_rocks_kv *meta = NULL;
	size_t meta_count = 0, meta_cap = 0;
	for (size_t s = 0; s < st->app->store_count; s++)
		for (int32_t i = 0; i < st->part_caps[s]; i++) {
			stoat_store_part *p = st->parts[s][i];
			if (!p || p->family < 0 || p->acked_end == p->checkpoint)
				continue;
			if (meta_count == meta_cap) {
				meta_cap = meta_cap ? meta_cap * 2 : 16;
				meta = stoat_xrealloc(meta, meta_cap, sizeof *meta);
			}
			char kb[512];
			char *v = stoat_arena_alloc(&scratch, 8);
			put_le64(v, p->acked_end);
			meta[meta_count].family = st->checkpoint_family;
			meta[meta_count].key = stoat_arena_strdup(&scratch, checkpoint_key(p, kb, sizeof kb));
			meta[meta_count].value = (stoat_str){ v, 8 };
			meta_count++;
		}
	bool ok = !st->db || stoat_rocks_commit(st->db, meta, meta_count, err, errlen);
	free(meta);
	stoat_arena_free(&scratch);
	if (!ok)
		return false;
	for (size_t s = 0; s < st->app->store_count; s++)
		for (int32_t i = 0; i < st->part_caps[s]; i++) {
			stoat_store_part *p = st->parts[s][i];
			if (!p)
				continue;
			if (p->family < 0)
				stoat_mem_map_apply(&p->committed, &p->pending);
			p->checkpoint = p->acked_end;
			if (p->window && !stoat_window_committed(p, err, errlen))
				ok = false;
		}
	return ok;
}

/* Drops the held-back writes and the cache (the Kafka work was undone). */
void stoat_state_abort(stoat_state *st)
{
	if (st->db)
		stoat_rocks_abort(st->db);
	cache_reset(&st->cache);
	for (size_t s = 0; s < st->app->store_count; s++)
		for (int32_t i = 0; i < st->part_caps[s]; i++)
			if (st->parts[s][i])
				stoat_mem_map_clear(&st->parts[s][i]->pending);
	stoat_window_aborted(st);
}

/* ------------------------------------------------------------------ */
/* Restore                                                             */
/* ------------------------------------------------------------------ */

/*
 * Stores checkpoint as p's and clears the mark of an unfinished rebuild,
 * in one write: after a reset or a finished rebuild, the stored
 * checkpoint and the mark must never disagree with the data.
 */
static bool store_checkpoint_clearing_rebuild(stoat_store_part *p, int64_t checkpoint, char *err, size_t errlen)
{
	char kb[512], rb[512];
	char v[8];
	put_le64(v, checkpoint);
	stoat_rocks_kv kvs[2] = {
		{ p->st->checkpoint_family, checkpoint_key(p, kb, sizeof kb), { v, 8 } },
		{ p->st->checkpoint_family, rebuild_key(p, rb, sizeof rb), { NULL, 0 } },
	};
	if (!stoat_rocks_write(p->st->db, kvs, 2, err, errlen))
		return false;
	p->rebuild_pending = false;
	p->checkpoint = p->acked_end = checkpoint;
	return true;
}

/*
 * Starts a restore of p from its checkpoint, or from scratch (p emptied)
 * when the changelog no longer holds the checkpoint.
 */
bool stoat_store_part_restore_start(stoat_store_part *p, bool from_scratch, char *err, size_t errlen)
{
	p->restored = 0;
	p->restore_count = 0;
	p->restore_next = p->checkpoint;
	stoat_arena_reset(&p->restore_arena);
	if (!from_scratch)
		return true;
	p->checkpoint = p->acked_end = p->restore_next = 0;
	p->stream_time_written = p->stream_time_committed = -1;
	stoat_mem_map_clear(&p->committed);
	stoat_mem_map_clear(&p->pending);
	if (p->family < 0)
		return true;
	if (!stoat_rocks_clear_family(p->st->db, p->family, err, errlen))
		return false;
	/*
	 * The checkpoint goes with the data (restore_write moves it on), and
	 * the mark of an unfinished rebuild with them: the stored checkpoint
	 * must not outlive the data it describes, even when the changelog
	 * holds nothing to restore.  A crash between the two writes leaves
	 * the old checkpoint, so the next start sees the same mismatch again.
	 */
	return store_checkpoint_clearing_rebuild(p, 0, err, errlen);
}

/* Writes the restored records held so far with their checkpoint. */
static bool restore_write(stoat_store_part *p, char *err, size_t errlen)
{
	if (p->family < 0) {
		p->checkpoint = p->acked_end = p->restore_next;
		return true;
	}
	if (p->restore_count == p->restore_cap) {
		p->restore_cap = p->restore_cap ? p->restore_cap * 2 : 64;
		p->restore_kvs = stoat_xrealloc(p->restore_kvs, p->restore_cap, sizeof *p->restore_kvs);
	}
	char kb[512];
	char *v = stoat_arena_alloc(&p->restore_arena, 8);
	put_le64(v, p->restore_next);
	stoat_rocks_kv *meta = &p->restore_kvs[p->restore_count];
	meta->family = p->st->checkpoint_family;
	meta->key = stoat_arena_strdup(&p->restore_arena, checkpoint_key(p, kb, sizeof kb));
	meta->value = (stoat_str){ v, 8 };
	bool ok = stoat_rocks_write(p->st->db, p->restore_kvs, p->restore_count + 1, err, errlen);
	p->restore_count = 0;
	stoat_arena_reset(&p->restore_arena);
	if (ok)
		p->checkpoint = p->acked_end = p->restore_next;
	return ok;
}

/*
 * Applies one changelog record (value.ptr NULL: a delete), in chunks of
 * RESTORE_CHUNK with their checkpoint.
 */
bool stoat_store_part_restore_record(stoat_store_part *p, stoat_str key, stoat_str value, int64_t offset, char *err,
				     size_t errlen)
{
	p->restored++;
	p->restore_next = offset + 1;
	if (p->window)
		stoat_window_restored(p, key, value);
	if (p->family < 0) {
		if (value.ptr)
			stoat_mem_map_put(&p->committed, key, value, false);
		else
			stoat_mem_map_remove(&p->committed, key);
		return true;
	}
	/* Room for the record, its time index entry and the checkpoint. */
	if (p->restore_count + 2 >= p->restore_cap) {
		p->restore_cap = p->restore_cap ? p->restore_cap * 2 : 64;
		p->restore_kvs = stoat_xrealloc(p->restore_kvs, p->restore_cap, sizeof *p->restore_kvs);
	}
	stoat_rocks_kv *kv = &p->restore_kvs[p->restore_count++];
	kv->family = p->family;
	kv->key = stoat_arena_strdup(&p->restore_arena, key);
	kv->value = copy_into(&p->restore_arena, value);
	/* A deleted window keeps its index entry (stoat_window_index_write). */
	char *index_key = p->window && value.ptr ? stoat_arena_alloc(&p->restore_arena, key.len + 1) : NULL;
	size_t index_len = index_key ? stoat_window_index_key(p, key, index_key) : 0;
	if (index_len > 0) {
		stoat_rocks_kv *ix = &p->restore_kvs[p->restore_count++];
		ix->family = p->family;
		ix->key = (stoat_str){ index_key, index_len };
		ix->value = (stoat_str){ "", 0 };
	}
	if (p->restore_count >= RESTORE_CHUNK)
		return restore_write(p, err, errlen);
	return true;
}

/* Writes what is left of the restore with the new checkpoint. */
bool stoat_store_part_restore_done(stoat_store_part *p, char *err, size_t errlen)
{
	if (!(p->restore_next == p->checkpoint && p->restore_count == 0) && !restore_write(p, err, errlen))
		return false;
	/* The restored stream time may have moved the expiry cut. */
	return !p->window || stoat_window_committed(p, err, errlen);
}

/* ------------------------------------------------------------------ */
/* Mismatches between a checkpoint and its changelog                   */
/* ------------------------------------------------------------------ */

/* Where p's restore starts, given its changelog's offsets lo..hi (see
 * state.h: only a checkpoint above the end is a mismatch). */
stoat_restore_plan stoat_store_part_restore_plan(const stoat_store_part *p, int64_t lo, int64_t hi)
{
	assert(lo <= hi);
	if (p->rebuild_pending || p->checkpoint > hi)
		return STOAT_RESTORE_MISMATCH;
	if (p->checkpoint < lo)
		return STOAT_RESTORE_FROM_START;
	return STOAT_RESTORE_FROM_CHECKPOINT;
}

/* A rebuild of p's changelog started and did not finish. */
bool stoat_store_part_rebuild_pending(const stoat_store_part *p)
{
	return p->rebuild_pending;
}

/* Parses --on-state-mismatch's value. */
bool stoat_state_mismatch_parse(const char *s, stoat_state_mismatch *out)
{
	if (strcmp(s, "refuse") == 0)
		*out = STOAT_MISMATCH_REFUSE;
	else if (strcmp(s, "rebuild-changelog") == 0 || strcmp(s, "rebuild_changelog") == 0)
		*out = STOAT_MISMATCH_REBUILD_CHANGELOG;
	else if (strcmp(s, "reset") == 0)
		*out = STOAT_MISMATCH_RESET;
	else
		return false;
	return true;
}

/*
 * Marks p as being rebuilt, durably, before anything is written to its
 * changelog: until stoat_store_part_rebuild_done, a restart sees a
 * mismatch (and rebuilds again or refuses), never a checkpoint that the
 * changelog does not back.
 */
bool stoat_store_part_rebuild_begin(stoat_store_part *p, char *err, size_t errlen)
{
	assert(p->family >= 0);
	char kb[512];
	stoat_rocks_kv kv = { p->st->checkpoint_family, rebuild_key(p, kb, sizeof kb), { "", 0 } };
	if (!stoat_rocks_write(p->st->db, &kv, 1, err, errlen))
		return false;
	p->rebuild_pending = true;
	return true;
}

/*
 * Hands every key and value of p's committed data to fn, in key order.
 * The driver's uncommitted batch holds nothing of p then (p was just
 * assigned, and nothing runs on it before its restore).
 */
bool stoat_store_part_scan(stoat_store_part *p, bool (*fn)(void *arg, stoat_str key, stoat_str value), void *arg,
			   char *err, size_t errlen)
{
	assert(p->family >= 0);
	stoat_rocks_iter *it = stoat_rocks_scan(p->st->db, p->family, (stoat_str){ NULL, 0 });
	bool more = true;
	for (; more && stoat_rocks_iter_valid(it); stoat_rocks_iter_next(it)) {
		stoat_str key = stoat_rocks_iter_key(it);
		/* A window store's time index is derived, never logged. */
		if (p->window && key.len > 0 && key.ptr[0] == 2)
			continue;
		more = fn(arg, key, stoat_rocks_iter_value(it));
	}
	return stoat_rocks_iter_close(it, err, errlen);
}

/* The rebuilt changelog backs p up to checkpoint: records it and clears
 * the rebuild mark in one write. */
bool stoat_store_part_rebuild_done(stoat_store_part *p, int64_t checkpoint, char *err, size_t errlen)
{
	assert(p->family >= 0 && checkpoint >= 0);
	return store_checkpoint_clearing_rebuild(p, checkpoint, err, errlen);
}

/* Whether p's committed data holds key. */
bool stoat_store_part_has(stoat_store_part *p, stoat_str key, bool *found, char *err, size_t errlen)
{
	stoat_arena *a = &p->st->flush_cx.arena;
	stoat_str value;
	bool ok = stoat_part_get(p, key, a, &value, found, err, errlen);
	stoat_arena_reset(a);
	return ok;
}

/* Sizes of one open store partition (see state.h). */
static void part_usage(stoat_store_part *p, stoat_store_usage *u)
{
	u->store = p->store;
	u->partition = p->partition;
	u->checkpoint = p->checkpoint;
	u->restored = p->restored;
	u->in_memory = p->family < 0;
	if (p->family < 0) {
		u->keys = stoat_mem_map_count(&p->committed);
		u->bytes = stoat_mem_map_bytes(&p->committed);
	} else {
		stoat_rocks_family_size(p->st->db, p->family, &u->keys, &u->bytes);
	}
}

/*
 * The open store partitions, in store then partition order, into
 * out[0..cap) (the count of all is returned), and the record cache's and
 * RocksDB's figures into *usage.  Reads RocksDB properties: for a page
 * or a scrape now and then, not per record.
 */
size_t stoat_state_describe(stoat_state *st, stoat_store_usage *out, size_t cap, stoat_state_usage *usage)
{
	size_t n = 0;
	for (size_t s = 0; s < st->app->store_count; s++)
		for (int32_t i = 0; i < st->part_caps[s]; i++) {
			stoat_store_part *p = st->parts[s][i];
			if (!p)
				continue;
			if (n < cap)
				part_usage(p, &out[n]);
			n++;
		}
	memset(usage, 0, sizeof *usage);
	usage->cache_max_bytes = st->cache_max;
	usage->cache_bytes = st->cache.bytes;
	usage->cache_entries = st->cache.count;
	usage->cache_hits = st->cache.hits;
	usage->cache_misses = st->cache.misses;
	usage->cache_size_flushes = st->cache.size_flushes;
	if (st->db)
		stoat_rocks_memory_usage(st->db, &usage->rocksdb);
	return n;
}
