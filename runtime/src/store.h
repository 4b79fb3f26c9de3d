/*
 * store.h - the in-memory maps (store.c) that hold in-memory stores, and
 * every store when there is no state directory.  Below state.c; above
 * util.h only.
 */
#ifndef STOAT_RUNTIME_STORE_H
#define STOAT_RUNTIME_STORE_H

#include "util.h"

typedef struct stoat_mem_entry stoat_mem_entry;

/* Open addressing over malloc'd copies of keys and values; zero-initialise. */
typedef struct stoat_mem_map {
	stoat_mem_entry *slots;
	size_t cap; /* a power of two */
	size_t count;
	size_t bytes; /* of the keys and values held */
} stoat_mem_map;

/* A slice of the stored value (valid until the key is written again);
 * *deleted (if given) tells a remembered delete from a value. */
bool stoat_mem_map_get(const stoat_mem_map *m, stoat_str key, stoat_str *value, bool *deleted);
void stoat_mem_map_put(stoat_mem_map *m, stoat_str key, stoat_str value, bool deleted);
void stoat_mem_map_remove(stoat_mem_map *m, stoat_str key);
void stoat_mem_map_apply(stoat_mem_map *m, stoat_mem_map *pending);
void stoat_mem_map_clear(stoat_mem_map *m);
size_t stoat_mem_map_count(const stoat_mem_map *m);
size_t stoat_mem_map_bytes(const stoat_mem_map *m);
/* Hands every entry to fn, in no particular order; m must not change
 * meanwhile. */
void stoat_mem_map_each(const stoat_mem_map *m, void (*fn)(void *arg, stoat_str key, stoat_str value, bool deleted),
			void *arg);

#endif /* STOAT_RUNTIME_STORE_H */
