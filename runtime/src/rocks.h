/*
 * rocks.h - RocksDB for the state stores (rocks.c): one database per
 * process, a column family per store partition, an uncommitted write
 * batch that reads see.  Below state.c; above util.h only.
 */
#ifndef STOAT_RUNTIME_ROCKS_H
#define STOAT_RUNTIME_ROCKS_H

#include "util.h"

/*
 * One RocksDB database per process under the state directory, one column
 * family per (store, task) named by the caller ("counts.0_3").  All
 * families share one block cache and one write-buffer limit cut from a
 * single memory budget.  Writes collect in an uncommitted batch that reads
 * and scans see (read-your-writes); commit writes it atomically, abort
 * drops it.  Not thread-safe.  Error reporting: functions that can fail
 * take err/errlen and write a message there ("cannot open state store
 * DIR: <RocksDB's reason>").
 */
typedef struct stoat_rocks stoat_rocks;
typedef struct stoat_rocks_iter stoat_rocks_iter;

/* A put that stoat_rocks_commit adds to the batch it writes (metadata such
 * as checkpointed changelog offsets in a "meta" family). */
typedef struct stoat_rocks_kv {
	int family;
	stoat_str key;
	stoat_str value;
} stoat_rocks_kv;

/*
 * Bytes for a memory budget given as "low" (64 MB), "default" (256 MB),
 * "high" (1 GB) or a byte count with an optional K/M/G suffix (binary;
 * "512M", "2GiB", "1048576").  0 when s is none of these.
 */
size_t stoat_rocks_memory_budget(const char *s);

/*
 * Opens, creating if missing, the database in dir (whose parent must
 * exist) with every column family it has.  A third of memory_budget goes
 * to the shared LRU block cache, the rest to memtables across all
 * families (at least 3 MB in all).  NULL and a message in err on failure.
 */
stoat_rocks *stoat_rocks_open(const char *dir, size_t memory_budget, char *err, size_t errlen);

/*
 * Opens the database in dir read only (for reading a store offline,
 * `store dump`): nothing is created, and no lock is taken, so a running
 * process may hold the database meanwhile; reads see it as of the open.
 * Writes must not be made; stoat_rocks_family finds families only.
 */
stoat_rocks *stoat_rocks_open_read_only(const char *dir, size_t memory_budget, char *err, size_t errlen);

/* Drops uncommitted writes, closes and frees (NULL: no-op).  Every scan
 * must be closed first. */
void stoat_rocks_close(stoat_rocks *db);

/* Index of the family called name, created if new; -1 and err on failure.
 * Indices are stable until close. */
int stoat_rocks_family(stoat_rocks *db, const char *name, char *err, size_t errlen);

/* The open families, "default" and those found at open included. */
int stoat_rocks_family_count(const stoat_rocks *db);
const char *stoat_rocks_family_name(const stoat_rocks *db, int family);

/* The memory budget db was opened with. */
size_t stoat_rocks_budget(const stoat_rocks *db);

/* What RocksDB holds in memory, from its properties and block cache. */
typedef struct stoat_rocks_memory {
	uint64_t memtables;       /* rocksdb.cur-size-all-mem-tables, all families */
	uint64_t table_readers;   /* rocksdb.estimate-table-readers-mem (indexes, filters) */
	uint64_t block_cache;     /* the shared block cache's usage ... */
	uint64_t block_cache_pinned; /* ... and what of it is pinned */
	size_t budget;            /* the memory budget it was opened with */
} stoat_rocks_memory;

void stoat_rocks_memory_usage(stoat_rocks *db, stoat_rocks_memory *out);

/* A family's estimated keys and bytes (live data plus memtables). */
void stoat_rocks_family_size(stoat_rocks *db, int family, uint64_t *keys, uint64_t *bytes);

/*
 * Looks key up: the uncommitted batch first, then the database.  Returns
 * true with *found, and *value copied into arena when found; false and a
 * message in err on a RocksDB error.
 */
bool stoat_rocks_get(stoat_rocks *db, int family, stoat_str key, stoat_arena *arena, stoat_str *value,
		     bool *found, char *err, size_t errlen);

/* Put and delete into the uncommitted batch (no scan may be open). */
void stoat_rocks_put(stoat_rocks *db, int family, stoat_str key, stoat_str value);
void stoat_rocks_delete(stoat_rocks *db, int family, stoat_str key);

/* Number of puts and deletes in the uncommitted batch. */
int stoat_rocks_pending(const stoat_rocks *db);

/*
 * Writes the batch plus the meta puts in one atomic write and clears the
 * batch.  On failure: false, a message in err, and the batch as before the
 * call (without the meta puts).
 */
bool stoat_rocks_commit(stoat_rocks *db, const stoat_rocks_kv *meta, size_t meta_count, char *err,
			size_t errlen);

/* Drops the uncommitted batch. */
void stoat_rocks_abort(stoat_rocks *db);

/*
 * Iterates family in bytewise key order, committed data merged with the
 * uncommitted batch, from the first key >= start (start.ptr NULL: from the
 * first key).  Key and value slices are valid until the iterator moves or
 * closes.  No writes to db while a scan is open.  Close returns false and
 * a message in err if the scan stopped on an error rather than the end.
 *
 *	stoat_rocks_iter *it = stoat_rocks_scan(db, f, (stoat_str){ 0 });
 *	for (; stoat_rocks_iter_valid(it); stoat_rocks_iter_next(it))
 *		use(stoat_rocks_iter_key(it), stoat_rocks_iter_value(it));
 *	if (!stoat_rocks_iter_close(it, err, sizeof err)) ...
 */
stoat_rocks_iter *stoat_rocks_scan(stoat_rocks *db, int family, stoat_str start);
/* The same iterator, not positioned: seek (or seek_for_prev) first. */
stoat_rocks_iter *stoat_rocks_iter_open(stoat_rocks *db, int family);
bool stoat_rocks_iter_valid(const stoat_rocks_iter *it);
/* Moves to the first key >= key. */
void stoat_rocks_iter_seek(stoat_rocks_iter *it, stoat_str key);
/* Moves to the last key <= key. */
void stoat_rocks_iter_seek_for_prev(stoat_rocks_iter *it, stoat_str key);
void stoat_rocks_iter_next(stoat_rocks_iter *it);
void stoat_rocks_iter_prev(stoat_rocks_iter *it);
stoat_str stoat_rocks_iter_key(const stoat_rocks_iter *it);
stoat_str stoat_rocks_iter_value(const stoat_rocks_iter *it);
bool stoat_rocks_iter_close(stoat_rocks_iter *it, char *err, size_t errlen);

/*
 * Writes kvs in one atomic write straight to the database, bypassing the
 * uncommitted batch (restoring from a changelog).  value.ptr NULL deletes.
 */
bool stoat_rocks_write(stoat_rocks *db, const stoat_rocks_kv *kvs, size_t n, char *err, size_t errlen);

/*
 * Deletes the committed keys of family in [lo, hi) in one write straight
 * to the database (RocksDB's DeleteRange, which the uncommitted batch
 * cannot hold): expiring a window store's old segments.
 */
bool stoat_rocks_delete_range(stoat_rocks *db, int family, stoat_str lo, stoat_str hi, char *err, size_t errlen);

/* Deletes every committed key of family (a store partition to rebuild). */
bool stoat_rocks_clear_family(stoat_rocks *db, int family, char *err, size_t errlen);

/* Parses a byte size: digits with an optional K, M or G (binary) suffix,
 * "0" included (the memory budget's syntax).  False when s is not one. */
bool stoat_parse_byte_size(const char *s, size_t *out);

#endif /* STOAT_RUNTIME_ROCKS_H */
