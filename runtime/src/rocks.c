/*
 * rocks.c - RocksDB-backed key-value state, for the drivers' state stores.
 *
 * One RocksDB database per process, in the state directory; one column
 * family per (store, task), named by the caller ("counts.0_3").  Every
 * family shares one LRU block cache and one write-buffer budget, both cut
 * from a single memory budget (a third for the cache, the rest for
 * memtables), so the process's state memory does not grow with the
 * number of tasks.  SST files are zstd-compressed.
 *
 * Writes do not go to the database directly: they collect in one write
 * batch with index (WBWI), which reads consult first, so a task reads its
 * own uncommitted writes.  stoat_rocks_commit() writes the batch, plus the
 * caller's metadata (changelog offsets, say), in one atomic RocksDB write;
 * stoat_rocks_abort() drops it.  That is what lets a task's state move in
 * step with its Kafka transaction.
 *
 * Nothing returned keeps RocksDB-owned memory: get copies the value into
 * the caller's arena.  Scan iterators hand out slices that are valid only
 * until the next step of that iterator (documented in rocks.h).
 *
 * Not thread-safe: one thread uses a stoat_rocks at a time.
 *
 * RocksDB 7.8's C API has no rocksdb_write_buffer_manager_* functions (they
 * came in 8.x), so the write-buffer budget is db_write_buffer_size on the
 * DB options, which RocksDB enforces across all column families (it builds
 * its own WriteBufferManager from it).
 */
#include "rocks.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <rocksdb/c.h>

/* Memory budget presets (stoat_rocks_memory_budget). */
#define ROCKS_MB ((size_t)1 << 20)
#define ROCKS_BUDGET_LOW (64 * ROCKS_MB)
#define ROCKS_BUDGET_DEFAULT (256 * ROCKS_MB)
#define ROCKS_BUDGET_HIGH (1024 * ROCKS_MB)

/* One open column family. */
typedef struct rocks_family {
	char *name;
	rocksdb_column_family_handle_t *handle;
} rocks_family;

struct stoat_rocks {
	rocksdb_t *db;
	char *dir;
	rocksdb_options_t *options;      /* DB options; also every family's */
	rocksdb_cache_t *cache;          /* the shared block cache */
	rocksdb_readoptions_t *read;
	rocksdb_writeoptions_t *write;
	rocksdb_writebatch_wi_t *batch;  /* uncommitted writes */
	rocks_family *families;
	int family_count;
	int family_cap;
	int open_iterators;              /* scans not yet closed */
	size_t memory_budget;
	bool read_only;                  /* stoat_rocks_open_read_only: no family is created */
};

struct stoat_rocks_iter {
	stoat_rocks *db;
	rocksdb_iterator_t *it;
};

/* Formats a message into err (if given), truncating as snprintf does. */
STOAT_PRINTF(3, 4)
/* Formats a message into err (when the caller gave one). */
static void set_error(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Reports a RocksDB error string (which it malloc'd) as "<what>: <reason>"
 * and frees it.
 */
static void take_rocks_error(char *rerr, char *err, size_t errlen, const char *what)
{
	assert(rerr != NULL);
	set_error(err, errlen, "%s: %s", what, rerr);
	rocksdb_free(rerr);
}

/*
 * Adds a family (name copied, handle owned) to db's table and returns its
 * index.
 */
static int add_family(stoat_rocks *db, const char *name, rocksdb_column_family_handle_t *handle)
{
	assert(handle != NULL);
	if (db->family_count == db->family_cap) {
		int cap = db->family_cap ? db->family_cap * 2 : 16;
		db->families = stoat_xrealloc(db->families, (size_t)cap, sizeof *db->families);
		db->family_cap = cap;
	}
	db->families[db->family_count].name = stoat_xstrdup(name);
	db->families[db->family_count].handle = handle;
	return db->family_count++;
}

/* The handle of family index `family`, which must be valid. */
static rocksdb_column_family_handle_t *family_handle(const stoat_rocks *db, int family)
{
	assert(family >= 0 && family < db->family_count);
	return db->families[family].handle;
}

/*
 * Parses a memory budget: "low" (64 MB), "default" (256 MB), "high" (1 GB),
 * or a byte count with an optional binary suffix K, M or G (optionally
 * followed by B or iB, any case): "512M", "2GiB", "1048576".  Returns 0 for
 * anything else, including 0 and sizes that overflow size_t.
 */
size_t stoat_rocks_memory_budget(const char *s)
{
	if (!s)
		return 0;
	if (strcmp(s, "low") == 0)
		return ROCKS_BUDGET_LOW;
	if (strcmp(s, "default") == 0)
		return ROCKS_BUDGET_DEFAULT;
	if (strcmp(s, "high") == 0)
		return ROCKS_BUDGET_HIGH;
	if (!isdigit((unsigned char)s[0]))
		return 0;
	size_t n = 0;
	const char *p = s;
	for (; isdigit((unsigned char)*p); p++) {
		size_t d = (size_t)(*p - '0');
		if (n > (SIZE_MAX - d) / 10)
			return 0;
		n = n * 10 + d;
	}
	unsigned shift = 0;
	switch (toupper((unsigned char)*p)) {
	case 'K': shift = 10; p++; break;
	case 'M': shift = 20; p++; break;
	case 'G': shift = 30; p++; break;
	default: break;
	}
	if (shift) {
		if (toupper((unsigned char)*p) == 'I' && toupper((unsigned char)p[1]) == 'B')
			p += 2;
		else if (toupper((unsigned char)*p) == 'B')
			p++;
		if (n > (SIZE_MAX >> shift))
			return 0;
		n <<= shift;
	}
	return *p == '\0' ? n : 0;
}

/* A byte size as in memory budgets, but "0" allowed and no presets. */
bool stoat_parse_byte_size(const char *s, size_t *out)
{
	if (s && strcmp(s, "0") == 0) {
		*out = 0;
		return true;
	}
	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	size_t n = stoat_rocks_memory_budget(s);
	if (n == 0)
		return false;
	*out = n;
	return true;
}

/*
 * Builds the options every family and the DB share: create what is
 * missing, zstd, the shared block cache (a third of the budget, with
 * index and filter blocks charged to it, and a bloom filter for point
 * lookups) and the cross-family write-buffer limit (the rest).
 */
static void build_options(stoat_rocks *db, size_t memory_budget)
{
	size_t cache_bytes = memory_budget / 3;
	size_t write_bytes = memory_budget - cache_bytes;
	/* Per-family memtable: a quarter of the total, within [1 MB, 64 MB]. */
	size_t memtable = write_bytes / 4;
	if (memtable < ROCKS_MB)
		memtable = ROCKS_MB;
	if (memtable > 64 * ROCKS_MB)
		memtable = 64 * ROCKS_MB;

	db->options = rocksdb_options_create();
	rocksdb_options_set_create_if_missing(db->options, 1);
	rocksdb_options_set_create_missing_column_families(db->options, 1);
	rocksdb_options_set_compression(db->options, rocksdb_zstd_compression);
	rocksdb_options_set_db_write_buffer_size(db->options, write_bytes);
	rocksdb_options_set_write_buffer_size(db->options, memtable);

	db->cache = rocksdb_cache_create_lru(cache_bytes);
	rocksdb_block_based_table_options_t *table = rocksdb_block_based_options_create();
	rocksdb_block_based_options_set_block_cache(table, db->cache);
	rocksdb_block_based_options_set_cache_index_and_filter_blocks(table, 1);
	/* The table options take ownership of the filter policy. */
	rocksdb_block_based_options_set_filter_policy(table, rocksdb_filterpolicy_create_bloom(10));
	/* The table factory copies the table options (and holds the cache). */
	rocksdb_options_set_block_based_table_factory(db->options, table);
	rocksdb_block_based_options_destroy(table);
}

/*
 * Opens the database in dir with every column family it already has:
 * creating it if needed, or read only (nothing created, no lock taken).
 * Returns NULL and a message in err on failure.
 */
static stoat_rocks *open_db(const char *dir, size_t memory_budget, bool read_only, char *err, size_t errlen)
{
	assert(dir != NULL);
	if (memory_budget < 3 * ROCKS_MB) {
		set_error(err, errlen, "state store %s: memory budget of %zu bytes is too small (minimum 3 MB)", dir,
			  memory_budget);
		return NULL;
	}
	stoat_rocks *db = stoat_xcalloc(1, sizeof *db);
	memset(db, 0, sizeof *db);
	db->dir = stoat_xstrdup(dir);
	db->memory_budget = memory_budget;
	db->read_only = read_only;
	build_options(db, memory_budget);
	if (read_only) {
		rocksdb_options_set_create_if_missing(db->options, 0);
		rocksdb_options_set_create_missing_column_families(db->options, 0);
	}

	/*
	 * The existing families.  Listing fails when there is no database yet
	 * (no CURRENT file); then only "default" is opened, and if the failure
	 * was something worse, the open below reports it.  Even on failure the
	 * C API returns a (malloc(0), length 0) array, which must be freed.
	 */
	char *rerr = NULL;
	size_t listed = 0;
	char **names = rocksdb_list_column_families(db->options, dir, &listed, &rerr);
	static const char *const default_only[] = { "default" };
	const char *const *open_names = default_only;
	size_t n = 1;
	if (rerr) {
		rocksdb_free(rerr);
		rerr = NULL;
		assert(listed == 0);
		if (names)
			rocksdb_list_column_families_destroy(names, listed);
		names = NULL;
	} else {
		assert(listed >= 1); /* "default" always exists */
		open_names = (const char *const *)names;
		n = listed;
	}
	if (n > (size_t)INT32_MAX / 2) {
		set_error(err, errlen, "state store %s: too many column families (%zu)", dir, n);
		if (names)
			rocksdb_list_column_families_destroy(names, listed);
		stoat_rocks_close(db);
		return NULL;
	}

	const rocksdb_options_t **family_options = stoat_xcalloc(n, sizeof *family_options);
	rocksdb_column_family_handle_t **handles = stoat_xcalloc(n, sizeof *handles);
	for (size_t i = 0; i < n; i++) {
		family_options[i] = db->options;
		handles[i] = NULL;
	}
	if (read_only)
		db->db = rocksdb_open_for_read_only_column_families(db->options, dir, (int)n, open_names, family_options,
								    handles, 0, &rerr);
	else
		db->db = rocksdb_open_column_families(db->options, dir, (int)n, open_names, family_options, handles,
						      &rerr);
	if (rerr) {
		char what[512];
		snprintf(what, sizeof what, "cannot open state store %s", dir);
		take_rocks_error(rerr, err, errlen, what);
		assert(db->db == NULL);
	} else {
		assert(db->db != NULL);
		for (size_t i = 0; i < n; i++)
			add_family(db, open_names[i], handles[i]);
	}
	free(handles);
	free(family_options);
	if (names)
		rocksdb_list_column_families_destroy(names, listed);
	if (!db->db) {
		stoat_rocks_close(db);
		return NULL;
	}

	db->read = rocksdb_readoptions_create();
	db->write = rocksdb_writeoptions_create();
	/* overwrite_keys: the index keeps the latest entry per key, which
	 * reads and iterators with base rely on. */
	db->batch = rocksdb_writebatch_wi_create(0, 1);
	return db;
}

/* Opens (creating if needed) the database in dir with every column family it has. */
stoat_rocks *stoat_rocks_open(const char *dir, size_t memory_budget, char *err, size_t errlen)
{
	return open_db(dir, memory_budget, false, err, errlen);
}

/*
 * Opens the database in dir read only, with every column family it has:
 * RocksDB's read-only mode takes no lock, so a running application may
 * hold the database meanwhile; what is read is the database as of the
 * open (its files and write-ahead log then).
 */
stoat_rocks *stoat_rocks_open_read_only(const char *dir, size_t memory_budget, char *err, size_t errlen)
{
	return open_db(dir, memory_budget, true, err, errlen);
}

/*
 * Closes the database, dropping any uncommitted writes, and frees db
 * (NULL is a no-op).  Every scan must be closed first.
 */
void stoat_rocks_close(stoat_rocks *db)
{
	if (!db)
		return;
	assert(db->open_iterators == 0);
	if (db->batch)
		rocksdb_writebatch_wi_destroy(db->batch);
	/* Column family handles go before the database. */
	for (int i = 0; i < db->family_count; i++) {
		rocksdb_column_family_handle_destroy(db->families[i].handle);
		free(db->families[i].name);
	}
	free(db->families);
	if (db->db)
		rocksdb_close(db->db);
	if (db->read)
		rocksdb_readoptions_destroy(db->read);
	if (db->write)
		rocksdb_writeoptions_destroy(db->write);
	if (db->options)
		rocksdb_options_destroy(db->options);
	if (db->cache)
		rocksdb_cache_destroy(db->cache);
	free(db->dir);
	free(db);
}

/*
 * The index of the column family called name, creating it if the database
 * does not have it yet.  Returns -1 and a message in err on failure.
 */
int stoat_rocks_family(stoat_rocks *db, const char *name, char *err, size_t errlen)
{
	assert(db && name);
	for (int i = 0; i < db->family_count; i++)
		if (strcmp(db->families[i].name, name) == 0)
			return i;
	if (name[0] == '\0') {
		set_error(err, errlen, "state store %s: empty column family name", db->dir);
		return -1;
	}
	if (db->read_only) {
		set_error(err, errlen, "state store %s: no column family \"%s\" (opened read only)", db->dir, name);
		return -1;
	}
	char *rerr = NULL;
	rocksdb_column_family_handle_t *h = rocksdb_create_column_family(db->db, db->options, name, &rerr);
	if (rerr) {
		char what[512];
		snprintf(what, sizeof what, "state store %s: cannot create column family \"%s\"", db->dir, name);
		take_rocks_error(rerr, err, errlen, what);
		/* 7.8 returns a wrapper (around no handle) even on error. */
		if (h)
			rocksdb_column_family_handle_destroy(h);
		return -1;
	}
	return add_family(db, name, h);
}

/* How many column families are open ("default" included). */
int stoat_rocks_family_count(const stoat_rocks *db)
{
	return db->family_count;
}

/* The name of family index `family`. */
const char *stoat_rocks_family_name(const stoat_rocks *db, int family)
{
	assert(family >= 0 && family < db->family_count);
	return db->families[family].name;
}

/* The memory budget db was opened with, in bytes. */
size_t stoat_rocks_budget(const stoat_rocks *db)
{
	return db->memory_budget;
}

/*
 * Looks key up in family, seeing uncommitted writes first, then committed
 * data.  On success returns true with *found set and, when found, *value
 * copied into arena.  Returns false and a message in err on a RocksDB error.
 */
bool stoat_rocks_get(stoat_rocks *db, int family, stoat_str key, stoat_arena *arena, stoat_str *value,
		     bool *found, char *err, size_t errlen)
{
	assert(db && arena && value && found);
	assert(key.ptr || key.len == 0);
	char *rerr = NULL;
	size_t len = 0;
	char *v = rocksdb_writebatch_wi_get_from_batch_and_db_cf(db->batch, db->db, db->read,
								  family_handle(db, family),
								  key.ptr ? key.ptr : "", key.len, &len, &rerr);
	*value = (stoat_str){ NULL, 0 };
	*found = false;
	if (rerr) {
		char what[512];
		snprintf(what, sizeof what, "state store %s: get from \"%s\"", db->dir,
			 db->families[family].name);
		take_rocks_error(rerr, err, errlen, what);
		rocksdb_free(v);
		return false;
	}
	/*
	 * Not found is a NULL result.  A found empty value is malloc(0), which
	 * glibc (and the sanitizers' allocators) return as a unique non-NULL
	 * pointer.
	 */
	if (v) {
		*found = true;
		*value = stoat_arena_strdup(arena, (stoat_str){ v, len });
		rocksdb_free(v);
	}
	return true;
}

/* Records key = value in family, in the uncommitted batch. */
void stoat_rocks_put(stoat_rocks *db, int family, stoat_str key, stoat_str value)
{
	assert(db);
	assert(db->open_iterators == 0); /* a write would invalidate open scans */
	assert(key.ptr || key.len == 0);
	assert(value.ptr || value.len == 0);
	rocksdb_writebatch_wi_put_cf(db->batch, family_handle(db, family), key.ptr ? key.ptr : "", key.len,
				     value.ptr ? value.ptr : "", value.len);
}

/* Records the deletion of key in family, in the uncommitted batch. */
void stoat_rocks_delete(stoat_rocks *db, int family, stoat_str key)
{
	assert(db);
	assert(db->open_iterators == 0);
	assert(key.ptr || key.len == 0);
	rocksdb_writebatch_wi_delete_cf(db->batch, family_handle(db, family), key.ptr ? key.ptr : "", key.len);
}

/* How many puts and deletes the uncommitted batch holds. */
int stoat_rocks_pending(const stoat_rocks *db)
{
	return rocksdb_writebatch_wi_count(db->batch);
}

/*
 * Writes the uncommitted batch plus the meta puts in one atomic RocksDB
 * write, then clears the batch.  On failure returns false with a message
 * in err and leaves the batch as it was before the call (without the meta
 * puts), so the caller may abort or retry.
 */
bool stoat_rocks_commit(stoat_rocks *db, const stoat_rocks_kv *meta, size_t meta_count, char *err,
			size_t errlen)
{
	assert(db);
	assert(db->open_iterators == 0);
	assert(meta || meta_count == 0);
	if (meta_count == 0 && rocksdb_writebatch_wi_count(db->batch) == 0)
		return true;
	rocksdb_writebatch_wi_set_save_point(db->batch);
	for (size_t i = 0; i < meta_count; i++)
		stoat_rocks_put(db, meta[i].family, meta[i].key, meta[i].value);
	char *rerr = NULL;
	rocksdb_write_writebatch_wi(db->db, db->write, db->batch, &rerr);
	if (rerr) {
		char what[512];
		snprintf(what, sizeof what, "state store %s: commit", db->dir);
		take_rocks_error(rerr, err, errlen, what);
		char *rb = NULL;
		rocksdb_writebatch_wi_rollback_to_save_point(db->batch, &rb);
		if (rb) {
			/* Cannot happen (the save point was just set); abandon
			 * the whole batch rather than commit meta puts later. */
			rocksdb_free(rb);
			rocksdb_writebatch_wi_clear(db->batch);
		}
		return false;
	}
	/* Clear drops the save point with the rest. */
	rocksdb_writebatch_wi_clear(db->batch);
	return true;
}

/* Drops every uncommitted write. */
void stoat_rocks_abort(stoat_rocks *db)
{
	assert(db);
	assert(db->open_iterators == 0);
	rocksdb_writebatch_wi_clear(db->batch);
}

/*
 * Opens an iterator over family in bytewise key order, merging committed
 * data with the uncommitted batch (deleted keys skipped).  Positioned at
 * the first key >= start, or the first key when start.ptr is NULL.
 * No writes to db until it is closed.
 */
stoat_rocks_iter *stoat_rocks_scan(stoat_rocks *db, int family, stoat_str start)
{
	stoat_rocks_iter *it = stoat_rocks_iter_open(db, family);
	if (start.ptr)
		rocksdb_iter_seek(it->it, start.ptr, start.len);
	else
		rocksdb_iter_seek_to_first(it->it);
	return it;
}

/*
 * An iterator as stoat_rocks_scan's, not positioned: a seek comes first.
 * Positioning costs a walk over the deleted keys in the way (the
 * uncommitted batch's and the memtable's, until a compaction drops
 * them), so a reader that seeks backward does not pay a forward one.
 */
stoat_rocks_iter *stoat_rocks_iter_open(stoat_rocks *db, int family)
{
	assert(db);
	rocksdb_column_family_handle_t *h = family_handle(db, family);
	rocksdb_iterator_t *base = rocksdb_create_iterator_cf(db->db, db->read, h);
	stoat_rocks_iter *it = stoat_xcalloc(1, sizeof *it);
	it->db = db;
	/* The merged iterator takes ownership of base. */
	it->it = rocksdb_writebatch_wi_create_iterator_with_base_cf(db->batch, base, h);
	db->open_iterators++;
	return it;
}

/* True while the iterator is on an entry. */
bool stoat_rocks_iter_valid(const stoat_rocks_iter *it)
{
	return rocksdb_iter_valid(it->it) != 0;
}

/* Moves to the first key >= key (further on or back). */
void stoat_rocks_iter_seek(stoat_rocks_iter *it, stoat_str key)
{
	assert(key.ptr);
	rocksdb_iter_seek(it->it, key.ptr, key.len);
}

/* Moves to the last key <= key (rocks.h). */
void stoat_rocks_iter_seek_for_prev(stoat_rocks_iter *it, stoat_str key)
{
	rocksdb_iter_seek_for_prev(it->it, key.ptr, key.len);
}

/* Moves to the previous entry.  The iterator must be valid. */
void stoat_rocks_iter_prev(stoat_rocks_iter *it)
{
	assert(stoat_rocks_iter_valid(it));
	rocksdb_iter_prev(it->it);
}

/* Moves to the next entry.  The iterator must be valid. */
void stoat_rocks_iter_next(stoat_rocks_iter *it)
{
	assert(stoat_rocks_iter_valid(it));
	rocksdb_iter_next(it->it);
}

/* The current key, valid until the iterator moves or is closed. */
stoat_str stoat_rocks_iter_key(const stoat_rocks_iter *it)
{
	assert(stoat_rocks_iter_valid(it));
	size_t len = 0;
	const char *p = rocksdb_iter_key(it->it, &len);
	return (stoat_str){ p, len };
}

/* The current value, valid until the iterator moves or is closed. */
stoat_str stoat_rocks_iter_value(const stoat_rocks_iter *it)
{
	assert(stoat_rocks_iter_valid(it));
	size_t len = 0;
	const char *p = rocksdb_iter_value(it->it, &len);
	return (stoat_str){ p, len };
}

/*
 * Closes the iterator (NULL is a no-op).  Returns false with a message in
 * err if it stopped early on an error rather than at the end.
 */
bool stoat_rocks_iter_close(stoat_rocks_iter *it, char *err, size_t errlen)
{
	if (!it)
		return true;
	stoat_rocks *db = it->db;
	assert(db->open_iterators > 0);
	char *rerr = NULL;
	rocksdb_iter_get_error(it->it, &rerr);
	bool ok = rerr == NULL;
	if (rerr) {
		char what[512];
		snprintf(what, sizeof what, "state store %s: scan", db->dir);
		take_rocks_error(rerr, err, errlen, what);
	}
	rocksdb_iter_destroy(it->it);
	free(it);
	db->open_iterators--;
	return ok;
}

/* Writes batch straight to the database; false and err on failure. */
static bool write_plain(stoat_rocks *db, rocksdb_writebatch_t *batch, const char *what, char *err, size_t errlen)
{
	char *rerr = NULL;
	rocksdb_write(db->db, db->write, batch, &rerr);
	rocksdb_writebatch_destroy(batch);
	if (rerr) {
		char msg[512];
		snprintf(msg, sizeof msg, "state store %s: %s", db->dir, what);
		take_rocks_error(rerr, err, errlen, msg);
		return false;
	}
	return true;
}

/*
 * Writes kvs in one atomic write, bypassing the uncommitted batch: the
 * restore path, which must not mix its records with a task's open work.
 */
bool stoat_rocks_write(stoat_rocks *db, const stoat_rocks_kv *kvs, size_t n, char *err, size_t errlen)
{
	assert(db);
	if (n == 0)
		return true;
	rocksdb_writebatch_t *batch = rocksdb_writebatch_create();
	for (size_t i = 0; i < n; i++) {
		rocksdb_column_family_handle_t *h = family_handle(db, kvs[i].family);
		const char *k = kvs[i].key.ptr ? kvs[i].key.ptr : "";
		if (kvs[i].value.ptr)
			rocksdb_writebatch_put_cf(batch, h, k, kvs[i].key.len, kvs[i].value.ptr, kvs[i].value.len);
		else
			rocksdb_writebatch_delete_cf(batch, h, k, kvs[i].key.len);
	}
	return write_plain(db, batch, "restore write", err, errlen);
}

/* Deletes the committed keys in [lo, hi) of family, in one write. */
bool stoat_rocks_delete_range(stoat_rocks *db, int family, stoat_str lo, stoat_str hi, char *err, size_t errlen)
{
	assert(db && lo.ptr && hi.ptr);
	rocksdb_writebatch_t *batch = rocksdb_writebatch_create();
	rocksdb_writebatch_delete_range_cf(batch, family_handle(db, family), lo.ptr, lo.len, hi.ptr, hi.len);
	return write_plain(db, batch, "expiring windows", err, errlen);
}

/*
 * Deletes every committed key of family, in one write.  Used when a store
 * partition's checkpoint cannot be trusted and it is rebuilt from the
 * changelog's start; the family itself stays (its index is in use).
 */
bool stoat_rocks_clear_family(stoat_rocks *db, int family, char *err, size_t errlen)
{
	assert(db);
	rocksdb_column_family_handle_t *h = family_handle(db, family);
	rocksdb_iterator_t *it = rocksdb_create_iterator_cf(db->db, db->read, h);
	rocksdb_writebatch_t *batch = rocksdb_writebatch_create();
	for (rocksdb_iter_seek_to_first(it); rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
		size_t len;
		const char *k = rocksdb_iter_key(it, &len);
		rocksdb_writebatch_delete_cf(batch, h, k, len);
	}
	char *rerr = NULL;
	rocksdb_iter_get_error(it, &rerr);
	rocksdb_iter_destroy(it);
	if (rerr) {
		rocksdb_writebatch_destroy(batch);
		char msg[512];
		snprintf(msg, sizeof msg, "state store %s: clearing %s", db->dir, db->families[family].name);
		take_rocks_error(rerr, err, errlen, msg);
		return false;
	}
	return write_plain(db, batch, "clearing a store partition", err, errlen);
}

/* An integer property of a family (0 when RocksDB does not say). */
static uint64_t family_property(stoat_rocks *db, int family, const char *name)
{
	uint64_t v = 0;
	if (rocksdb_property_int_cf(db->db, db->families[family].handle, name, &v) != 0)
		return 0;
	return v;
}

/* RocksDB's memory, summed over the families (see rocks.h). */
void stoat_rocks_memory_usage(stoat_rocks *db, stoat_rocks_memory *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < db->family_count; i++) {
		out->memtables += family_property(db, i, "rocksdb.cur-size-all-mem-tables");
		out->table_readers += family_property(db, i, "rocksdb.estimate-table-readers-mem");
	}
	out->block_cache = rocksdb_cache_get_usage(db->cache);
	out->block_cache_pinned = rocksdb_cache_get_pinned_usage(db->cache);
	out->budget = db->memory_budget;
}

/* A family's size estimates (see rocks.h). */
void stoat_rocks_family_size(stoat_rocks *db, int family, uint64_t *keys, uint64_t *bytes)
{
	assert(family >= 0 && family < db->family_count);
	*keys = family_property(db, family, "rocksdb.estimate-num-keys");
	*bytes = family_property(db, family, "rocksdb.estimate-live-data-size") +
		 family_property(db, family, "rocksdb.cur-size-all-mem-tables");
}
