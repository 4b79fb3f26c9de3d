/*
 * store.c - an in-memory hash map from byte strings to byte strings.
 *
 * The backing of in-memory state stores (state.c keeps two per store
 * partition: committed data and the writes of the open commit interval)
 * and of nothing else.  Keys and values are copied in with malloc, since
 * state outlives batches; lookups return slices that stay valid until the
 * entry is next written or removed.
 */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>

struct stoat_mem_entry {
	uint64_t hash; /* 0: empty slot */
	char *key;
	size_t key_len;
	char *value;
	size_t value_len;
	bool deleted; /* a remembered delete (the pending map of a store) */
};

/* FNV-1a, never 0 (0 marks an empty slot). */
static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}

/* Finds the slot of key (or the empty slot where it would go). */
static stoat_mem_entry *probe(const stoat_mem_map *m, uint64_t h, const char *key, size_t len)
{
	size_t mask = m->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		stoat_mem_entry *e = &m->slots[i];
		if (e->hash == 0 || (e->hash == h && e->key_len == len && memcmp(e->key, key, len) == 0))
			return e;
	}
}

/* Doubles the table (at least 64 slots), keeping it under 3/4 full. */
static void grow(stoat_mem_map *m)
{
	size_t old_cap = m->cap;
	stoat_mem_entry *old = m->slots;
	m->cap = old_cap ? old_cap * 2 : 64;
	m->slots = stoat_xcalloc(m->cap, sizeof *m->slots);
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].hash)
			*probe(m, old[i].hash, old[i].key, old[i].key_len) = old[i];
	free(old);
}

/*
 * Looks key up: true with its value (and *deleted for a remembered
 * delete) when present.
 */
bool stoat_mem_map_get(const stoat_mem_map *m, stoat_str key, stoat_str *value, bool *deleted)
{
	if (m->count == 0)
		return false;
	const stoat_mem_entry *e = probe(m, hash_bytes(key.ptr, key.len), key.ptr, key.len);
	if (!e->hash)
		return false;
	*value = (stoat_str){ e->value, e->value_len };
	if (deleted)
		*deleted = e->deleted;
	return true;
}

/* Stores a copy of key and value (deleted: remembers a delete). */
void stoat_mem_map_put(stoat_mem_map *m, stoat_str key, stoat_str value, bool deleted)
{
	if ((m->count + 1) * 4 >= m->cap * 3)
		grow(m);
	uint64_t h = hash_bytes(key.ptr, key.len);
	stoat_mem_entry *e = probe(m, h, key.ptr, key.len);
	if (!e->hash) {
		e->hash = h;
		e->key = stoat_xmalloc(key.len);
		if (key.len)
			memcpy(e->key, key.ptr, key.len);
		e->key_len = key.len;
		m->count++;
		m->bytes += key.len;
	} else {
		m->bytes -= e->value_len;
		free(e->value);
	}
	e->deleted = deleted;
	e->value = stoat_xmalloc(deleted ? 0 : value.len);
	e->value_len = deleted ? 0 : value.len;
	m->bytes += e->value_len;
	if (e->value_len)
		memcpy(e->value, value.ptr, value.len);
}

/* Removes key, moving later entries of its probe run back into the gap. */
void stoat_mem_map_remove(stoat_mem_map *m, stoat_str key)
{
	if (m->count == 0)
		return;
	stoat_mem_entry *e = probe(m, hash_bytes(key.ptr, key.len), key.ptr, key.len);
	if (!e->hash)
		return;
	m->bytes -= e->key_len + e->value_len;
	free(e->key);
	free(e->value);
	size_t mask = m->cap - 1, hole = (size_t)(e - m->slots);
	for (size_t i = (hole + 1) & mask; m->slots[i].hash; i = (i + 1) & mask) {
		size_t home = (size_t)m->slots[i].hash & mask;
		/* i stays unless the hole lies cyclically between its home and i. */
		bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
		if (!stays) {
			m->slots[hole] = m->slots[i];
			hole = i;
		}
	}
	memset(&m->slots[hole], 0, sizeof m->slots[hole]);
	m->count--;
}

/*
 * Applies every entry of pending to m (puts, and removes for remembered
 * deletes) and empties pending: a commit of an in-memory store.
 */
void stoat_mem_map_apply(stoat_mem_map *m, stoat_mem_map *pending)
{
	for (size_t i = 0; i < pending->cap; i++) {
		stoat_mem_entry *e = &pending->slots[i];
		if (!e->hash)
			continue;
		stoat_str key = { e->key, e->key_len };
		if (e->deleted)
			stoat_mem_map_remove(m, key);
		else
			stoat_mem_map_put(m, key, (stoat_str){ e->value, e->value_len }, false);
	}
	stoat_mem_map_clear(pending);
}

/* Frees every entry and the table. */
void stoat_mem_map_clear(stoat_mem_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].hash) {
			free(m->slots[i].key);
			free(m->slots[i].value);
		}
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
	m->bytes = 0;
}

/* The bytes of the keys and values held. */
size_t stoat_mem_map_bytes(const stoat_mem_map *m)
{
	return m->bytes;
}

/* The number of keys held (remembered deletes included). */
size_t stoat_mem_map_count(const stoat_mem_map *m)
{
	return m->count;
}

/* Hands every entry (remembered deletes included) to fn. */
void stoat_mem_map_each(const stoat_mem_map *m, void (*fn)(void *arg, stoat_str key, stoat_str value, bool deleted),
			void *arg)
{
	for (size_t i = 0; i < m->cap; i++) {
		const stoat_mem_entry *e = &m->slots[i];
		if (e->hash)
			fn(arg, (stoat_str){ e->key, e->key_len }, (stoat_str){ e->value, e->value_len }, e->deleted);
	}
}
