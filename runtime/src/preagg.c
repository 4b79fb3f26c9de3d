/*
 * preagg.c - pre-aggregation before a repartition (Flink's local-global
 * aggregation; Kafka Streams has none).  For a non-windowed count, or a
 * reduce or aggregate the program declares combinable, the records a task
 * would write to the repartition topic are combined per key into a
 * partial aggregate, and only the partials are written, at the next
 * commit (runtime.h, stoat_preagg_count).  The task reading the topic
 * merges each partial into its store, so the final tables are the same
 * with fewer records through Kafka.
 *
 * One buffer per step and task context, allocated at its first record and
 * reused: entries in arrival order (a flush writes them in that order, so
 * output is deterministic), an open-addressing index over them, and one
 * byte area for their keys and values.  Nothing is allocated per record; a
 * buffer that is full is written out early.
 */
#include "driver.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A key's partial: where its key and value bytes are, its timestamp. */
typedef struct preagg_entry {
	uint64_t hash;
	uint32_t key_off, key_len;
	uint32_t val_off, val_len;
	int64_t timestamp; /* the largest of the records it combines */
	int32_t partition; /* the input partition of the last of them */
	bool dead;         /* replaced by a newer partial being written (see put) */
} preagg_entry;

struct stoat_preagg {
	char *bytes; /* keys and values, appended */
	size_t used, cap;
	preagg_entry *entries;
	uint32_t count, max_entries;
	uint32_t *slots; /* entry index + 1; 0 is empty */
	uint32_t mask;
};

/* FNV-1a over the key bytes, then a final mix so the low bits spread. */
static uint64_t key_hash(stoat_str key)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < key.len; i++)
		h = (h ^ (unsigned char)key.ptr[i]) * 0x100000001b3u;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return h;
}

/*
 * The buffer of step `step` in cx, allocated on first use: half the
 * budget for bytes, a quarter for entries, and an index at most half full.
 */
static struct stoat_preagg *buffer(stoat_ctx *cx, int step)
{
	assert(cx->app && step >= 0 && (size_t)step < cx->app->preagg_count);
	if (!cx->preaggs)
		cx->preaggs = stoat_xcalloc(cx->app->preagg_count, sizeof *cx->preaggs);
	struct stoat_preagg *p = &cx->preaggs[step];
	if (!p->bytes) {
		p->cap = STOAT_PREAGG_MAX_BYTES / 2;
		p->bytes = stoat_xmalloc(p->cap);
		p->max_entries = (uint32_t)(STOAT_PREAGG_MAX_BYTES / 4 / sizeof(preagg_entry));
		p->entries = stoat_xmalloc(p->max_entries * sizeof *p->entries);
		uint32_t nslots = 1;
		while (nslots < 2 * p->max_entries)
			nslots <<= 1;
		p->slots = stoat_xcalloc(nslots, sizeof *p->slots);
		p->mask = nslots - 1;
	}
	return p;
}

/* The entry of key (hash h), or NULL with *slot the empty slot it would take. */
static preagg_entry *find(struct stoat_preagg *p, stoat_str key, uint64_t h, uint32_t **slot)
{
	for (uint32_t i = (uint32_t)h & p->mask;; i = (i + 1) & p->mask) {
		uint32_t s = p->slots[i];
		if (s == 0) {
			*slot = &p->slots[i];
			return NULL;
		}
		preagg_entry *e = &p->entries[s - 1];
		if (e->hash == h && e->key_len == key.len && memcmp(p->bytes + e->key_off, key.ptr, key.len) == 0)
			return e;
	}
}

/* Forgets every entry (the byte area and entries are kept for reuse). */
static void clear(struct stoat_preagg *p)
{
	if (p->count)
		memset(p->slots, 0, ((size_t)p->mask + 1) * sizeof *p->slots);
	p->count = 0;
	p->used = 0;
}

/*
 * Writes out one step's buffer, in arrival order, each partial with its
 * own timestamp and no headers (it stands for several records), then
 * empties it.  False after a failed write; the rest is not written.
 */
static bool flush_step(stoat_ctx *cx, int step)
{
	struct stoat_preagg *p = &cx->preaggs[step];
	int sink = cx->app->preaggs[step].sink;
	bool ok = true;
	for (uint32_t i = 0; i < p->count; i++) {
		const preagg_entry *e = &p->entries[i];
		if (e->dead)
			continue;
		stoat_msg m = { 0 };
		m.partition = e->partition;
		m.offset = -1;
		m.timestamp = e->timestamp;
		m.key = (stoat_str){ p->bytes + e->key_off, e->key_len };
		m.value = (stoat_str){ p->bytes + e->val_off, e->val_len };
		cx->msg = &m;
		cx->timestamp = e->timestamp;
		cx->error = false;
		stoat_emit(cx, sink, (stoat_str){ NULL, 0 }, m.key, m.value);
		if (STOAT_UNLIKELY(cx->error)) {
			ok = false;
			break;
		}
	}
	cx->msg = NULL;
	clear(p);
	return ok;
}

/* (driver.h) */
bool stoat_preagg_flush(stoat_ctx *cx)
{
	if (!cx->preaggs)
		return true;
	const stoat_msg *msg = cx->msg;
	int64_t ts = cx->timestamp;
	bool ok = true;
	for (size_t s = 0; s < cx->app->preagg_count && ok; s++)
		if (cx->preaggs[s].count)
			ok = flush_step(cx, (int)s);
	if (!ok)
		stoat_preagg_discard(cx);
	cx->msg = msg;
	cx->timestamp = ts;
	return ok;
}

/* (driver.h) */
bool stoat_preagg_pending(const stoat_ctx *cx)
{
	for (size_t s = 0; cx->preaggs && s < cx->app->preagg_count; s++)
		if (cx->preaggs[s].count)
			return true;
	return false;
}

/* (driver.h) */
void stoat_preagg_discard(stoat_ctx *cx)
{
	for (size_t s = 0; cx->preaggs && s < cx->app->preagg_count; s++)
		clear(&cx->preaggs[s]);
}

/* (driver.h) */
void stoat_preagg_free(stoat_ctx *cx)
{
	for (size_t s = 0; cx->preaggs && s < cx->app->preagg_count; s++) {
		free(cx->preaggs[s].bytes);
		free(cx->preaggs[s].entries);
		free(cx->preaggs[s].slots);
	}
	free(cx->preaggs);
	cx->preaggs = NULL;
}

/*
 * Writes out everything the buffer holds, keeping the record being
 * processed as cx's record; false (cx->error) when that failed.
 */
static bool flush_early(stoat_ctx *cx, int step)
{
	const stoat_msg *msg = cx->msg;
	int64_t ts = cx->timestamp;
	bool ok = flush_step(cx, step);
	cx->msg = msg;
	cx->timestamp = ts;
	if (!ok)
		stoat_preagg_discard(cx);
	return ok;
}

/*
 * Adds a new entry for key with value bytes `value`, writing the buffer
 * out first when it has no room.  A partial too large for an empty buffer
 * is written at once.
 */
static void insert(stoat_ctx *cx, int step, struct stoat_preagg *p, stoat_str key, uint64_t h, uint32_t *slot,
		   stoat_str value)
{
	size_t need = key.len + value.len;
	if (p->count == p->max_entries || p->cap - p->used < need) {
		if (!flush_early(cx, step))
			return;
		if (need > p->cap) {
			stoat_emit(cx, cx->app->preaggs[step].sink, (stoat_str){ NULL, 0 }, key, value);
			return;
		}
		find(p, key, h, &slot); /* the index is empty now: a fresh slot */
	}
	preagg_entry *e = &p->entries[p->count++];
	e->hash = h;
	e->key_off = (uint32_t)p->used;
	e->key_len = (uint32_t)key.len;
	if (key.len)
		memcpy(p->bytes + p->used, key.ptr, key.len);
	p->used += key.len;
	e->val_off = (uint32_t)p->used;
	e->val_len = (uint32_t)value.len;
	if (value.len)
		memcpy(p->bytes + p->used, value.ptr, value.len);
	p->used += value.len;
	e->timestamp = cx->timestamp;
	e->partition = cx->msg ? cx->msg->partition : 0;
	e->dead = false;
	*slot = p->count;
}

/* Takes in the record being processed: its timestamp and partition. */
static void touch(const stoat_ctx *cx, preagg_entry *e)
{
	if (cx->timestamp > e->timestamp)
		e->timestamp = cx->timestamp;
	if (cx->msg)
		e->partition = cx->msg->partition;
}

/* (runtime.h) */
void stoat_preagg_count(stoat_ctx *cx, int step, stoat_str key)
{
	struct stoat_preagg *p = buffer(cx, step);
	uint64_t h = key_hash(key);
	uint32_t *slot = NULL;
	preagg_entry *e = find(p, key, h, &slot);
	if (e) {
		/* Kafka's LongSerde: 8 bytes, big-endian. */
		unsigned char *b = (unsigned char *)p->bytes + e->val_off;
		uint64_t n = 0;
		for (int i = 0; i < 8; i++)
			n = n << 8 | b[i];
		n++;
		for (int i = 7; i >= 0; i--, n >>= 8)
			b[i] = (unsigned char)n;
		touch(cx, e);
		return;
	}
	static const char one[8] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	insert(cx, step, p, key, h, slot, (stoat_str){ one, 8 });
}

/* (runtime.h) */
bool stoat_preagg_get(stoat_ctx *cx, int step, stoat_str key, stoat_str *partial)
{
	struct stoat_preagg *p = buffer(cx, step);
	uint32_t *slot = NULL;
	preagg_entry *e = find(p, key, key_hash(key), &slot);
	if (!e)
		return false;
	*partial = (stoat_str){ p->bytes + e->val_off, e->val_len };
	return true;
}

/* (runtime.h) */
void stoat_preagg_put(stoat_ctx *cx, int step, stoat_str key, stoat_str partial)
{
	struct stoat_preagg *p = buffer(cx, step);
	uint64_t h = key_hash(key);
	uint32_t *slot = NULL; /* set by find when it finds nothing */
	preagg_entry *e = find(p, key, h, &slot);
	if (e && partial.len <= e->val_len) {
		/* In place (partial may be the entry's own bytes: memmove). */
		if (partial.len)
			memmove(p->bytes + e->val_off, partial.ptr, partial.len);
		e->val_len = (uint32_t)partial.len;
		touch(cx, e);
		return;
	}
	if (e) {
		if (p->cap - p->used >= partial.len) {
			memcpy(p->bytes + p->used, partial.ptr, partial.len);
			e->val_off = (uint32_t)p->used;
			e->val_len = (uint32_t)partial.len;
			p->used += partial.len;
			touch(cx, e);
			return;
		}
		/*
		 * No room for the longer value: the new partial already holds
		 * the old one, so the old one must not be written with the
		 * others; the key comes back as a new entry.
		 */
		int64_t ts = e->timestamp > cx->timestamp ? e->timestamp : cx->timestamp;
		e->dead = true;
		int64_t now = cx->timestamp;
		cx->timestamp = ts;
		if (!flush_early(cx, step)) {
			cx->timestamp = now;
			return;
		}
		e = find(p, key, h, &slot); /* the index is empty now: a fresh slot */
		assert(!e && slot);
		insert(cx, step, p, key, h, slot, partial);
		cx->timestamp = now;
		return;
	}
	assert(slot);
	insert(cx, step, p, key, h, slot, partial);
}
