/*
 * store.c - key-value state stores, in memory.
 *
 * One hash map per store, shared by the driver's tasks: every key is
 * prefixed with the task (source index and partition), so each task sees
 * only its own state, as Kafka Streams keeps a store per task.  Keys and
 * values are copied in (malloc: state outlives batches); get copies the
 * value out into the caller's arena.
 *
 * This is the in-memory store the replay driver uses.  RocksDB-backed
 * stores, changelog topics and restore come with the Kafka driver's state
 * support.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct mem_entry {
	uint64_t hash; /* 0: empty slot */
	char *key;
	size_t key_len;
	char *value;
	size_t value_len;
} mem_entry;

struct stoat_mem_store {
	mem_entry *slots;
	size_t cap; /* a power of two */
	size_t count;
};

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}

static void *store_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("stoat: out of memory for state\n", stderr);
		abort();
	}
	return p;
}

/* Finds the slot of key (or the empty slot where it would go). */
static mem_entry *probe(stoat_mem_store *s, uint64_t h, const char *key, size_t len)
{
	size_t mask = s->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		mem_entry *e = &s->slots[i];
		if (e->hash == 0 || (e->hash == h && e->key_len == len && memcmp(e->key, key, len) == 0))
			return e;
	}
}

static void grow(stoat_mem_store *s)
{
	size_t old_cap = s->cap;
	mem_entry *old = s->slots;
	s->cap = old_cap ? old_cap * 2 : 1024;
	s->slots = calloc(s->cap, sizeof *s->slots);
	if (!s->slots) {
		fputs("stoat: out of memory for state\n", stderr);
		abort();
	}
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].hash)
			*probe(s, old[i].hash, old[i].key, old[i].key_len) = old[i];
	free(old);
}

/* The task-prefixed key: source index and partition, then the key. */
static stoat_str task_key(stoat_ctx *cx, stoat_str key)
{
	uint32_t src = cx->source && cx->app ? (uint32_t)(cx->source - cx->app->sources) : 0;
	uint32_t part = cx->msg ? (uint32_t)cx->msg->partition : 0;
	char *p = stoat_arena_alloc(&cx->arena, key.len + 8);
	memcpy(p, &src, 4);
	memcpy(p + 4, &part, 4);
	if (key.len)
		memcpy(p + 8, key.ptr, key.len);
	return (stoat_str){ p, key.len + 8 };
}

static stoat_mem_store *store_of(stoat_ctx *cx, int store)
{
	stoat_driver *d = cx->driver;
	if (!d || !cx->app || store < 0 || (size_t)store >= cx->app->store_count) {
		stoat_error(cx, "internal error: store %d does not exist", store);
		return NULL;
	}
	if (!d->stores) {
		d->stores = calloc(cx->app->store_count, sizeof *d->stores);
		if (!d->stores)
			abort();
	}
	return &d->stores[store];
}

bool stoat_store_get(stoat_ctx *cx, int store, stoat_str key, stoat_str *value)
{
	stoat_mem_store *s = store_of(cx, store);
	if (!s || s->count == 0)
		return false;
	stoat_str k = task_key(cx, key);
	mem_entry *e = probe(s, hash_bytes(k.ptr, k.len), k.ptr, k.len);
	if (!e->hash)
		return false;
	*value = stoat_arena_strdup(&cx->arena, (stoat_str){ e->value, e->value_len });
	return true;
}

bool stoat_store_put(stoat_ctx *cx, int store, stoat_str key, stoat_str value)
{
	stoat_mem_store *s = store_of(cx, store);
	if (!s)
		return false;
	if ((s->count + 1) * 4 >= s->cap * 3)
		grow(s);
	stoat_str k = task_key(cx, key);
	uint64_t h = hash_bytes(k.ptr, k.len);
	mem_entry *e = probe(s, h, k.ptr, k.len);
	if (!e->hash) {
		e->hash = h;
		e->key = store_alloc(k.len);
		memcpy(e->key, k.ptr, k.len);
		e->key_len = k.len;
		s->count++;
	} else {
		free(e->value);
	}
	e->value = store_alloc(value.len);
	if (value.len)
		memcpy(e->value, value.ptr, value.len);
	e->value_len = value.len;
	return true;
}

/* Removes key, moving later entries of its probe run back into the gap. */
bool stoat_store_delete(stoat_ctx *cx, int store, stoat_str key)
{
	stoat_mem_store *s = store_of(cx, store);
	if (!s)
		return false;
	if (s->count == 0)
		return true;
	stoat_str k = task_key(cx, key);
	mem_entry *e = probe(s, hash_bytes(k.ptr, k.len), k.ptr, k.len);
	if (!e->hash)
		return true;
	free(e->key);
	free(e->value);
	size_t mask = s->cap - 1, hole = (size_t)(e - s->slots);
	for (size_t i = (hole + 1) & mask; s->slots[i].hash; i = (i + 1) & mask) {
		size_t home = (size_t)s->slots[i].hash & mask;
		/* Move i into the hole unless its home lies cyclically in (hole, i]. */
		bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
		if (!stays) {
			s->slots[hole] = s->slots[i];
			hole = i;
		}
	}
	memset(&s->slots[hole], 0, sizeof s->slots[hole]);
	s->count--;
	return true;
}

void stoat_stores_free(stoat_driver *d)
{
	if (!d->stores)
		return;
	for (size_t i = 0; i < d->app->store_count; i++) {
		stoat_mem_store *s = &d->stores[i];
		for (size_t j = 0; j < s->cap; j++)
			if (s->slots[j].hash) {
				free(s->slots[j].key);
				free(s->slots[j].value);
			}
		free(s->slots);
	}
	free(d->stores);
	d->stores = NULL;
}
