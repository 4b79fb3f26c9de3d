/*
 * state_impl.h - what the state layer's two modules share: state.c (store
 * partitions, the record cache, commit, restore) and window_store.c
 * (window stores on top of them).  Private to those two files; everything
 * else sees state.h only.
 */
#ifndef STOAT_RUNTIME_STATE_IMPL_H
#define STOAT_RUNTIME_STATE_IMPL_H

#include "state.h"

/* Restored records are written to RocksDB in chunks of this many. */
#define RESTORE_CHUNK 4096

/* RocksDB family holding every partition's changelog checkpoint. */
#define CHECKPOINT_FAMILY "stoat.checkpoints"

struct stoat_store_part {
	stoat_state *st;
	int store;
	int32_t partition;
	int family;              /* RocksDB family; -1: in memory */
	stoat_mem_map committed; /* in memory: the committed data */
	stoat_mem_map pending;   /* in memory: writes since the last commit */
	int64_t checkpoint;      /* changelog offset the committed data reflects */
	int64_t acked_end;       /* offset after the last acknowledged changelog record */
	/* Restoring: records not yet written, in restore_arena. */
	stoat_rocks_kv *restore_kvs;
	size_t restore_count, restore_cap;
	stoat_arena restore_arena;
	int64_t restore_next; /* offset after the last restored record */
	uint64_t restored;    /* records applied by the last restore */
	bool rebuild_pending; /* a rebuild of the changelog started, not finished */
	/*
	 * A window store's (window_store.c): the stream time of its
	 * aggregation on this partition (stoat_window_stream_time); the
	 * stream time last written to the store (the open interval's) and as
	 * of the last commit; the expiry cut of the last expiry
	 * (windows ending below it are gone or hidden) and the segment below
	 * which everything was deleted.
	 */
	bool window;
	int64_t stream_time;
	int64_t stream_time_written;
	int64_t stream_time_committed;
	int64_t expired_cut;
	int64_t expired_segment;
	/*
	 * The shared store of a left or outer stream-stream join's unmatched
	 * records (stoat_join_tracker): the join's stream time and the
	 * smallest time put since the last scan, Kafka Streams' TimeTracker,
	 * kept in memory only (from -1 and INT64_MAX when the partition is
	 * opened, as Kafka Streams starts them again after a restart).
	 */
	int64_t join_tracker[2];
};

/* A key updated (or read) since the last flush. */
typedef struct cache_entry {
	stoat_store_part *part;
	uint64_t hash;
	stoat_str key;
	stoat_str old_value; /* as of the last flush; ptr NULL: absent */
	stoat_str new_value; /* ptr NULL: absent (deleted) */
	int64_t timestamp;   /* of the newest update */
	bool dirty;          /* updated, not only read */
	/*
	 * shown: an update since the last flush is to be passed downstream:
	 * shown_value at shown_timestamp, the newest one not written quietly
	 * (stoat_store_put_quiet writes new_value only).
	 */
	bool shown;
	stoat_str shown_value;
	int64_t shown_timestamp;
} cache_entry;

/* One buffer of the record cache: entries in first-touch order, a hash
 * index over them, and an arena for their bytes. */
typedef struct record_cache {
	cache_entry *entries;
	size_t count, cap;
	uint32_t *index; /* entry number + 1; 0: empty slot */
	size_t index_cap;
	stoat_arena arena;
	size_t bytes; /* what the entries hold, for the budget */
	size_t dirty; /* entries updated since the last flush */
	/* Their entry numbers, dirty of them: a window fetch reads these
	 * alone, as every clean entry holds what its store holds. */
	uint32_t *dirty_list;
	size_t dirty_cap;
	/* For GET /state and /metrics: reads and writes that found their key
	 * here and that did not, and flushes made because the cache was over
	 * its budget (the others come with commits). */
	uint64_t hits, misses, size_flushes;
} record_cache;

struct stoat_state {
	const stoat_app *app;
	stoat_driver *driver;
	stoat_rocks *db;
	int checkpoint_family;
	size_t cache_max;
	char **changelog_topics;   /* per store */
	stoat_store_part ***parts; /* [store][partition] */
	int32_t *part_caps;        /* per store: length of parts[store] */
	record_cache cache;
	bool flushing; /* a flush is running: no eviction */
	stoat_ctx flush_cx;
	stoat_store_update *updates; /* a flush's snapshot */
	int *update_stores;          /* the store of each */
	size_t updates_cap;
	/* Closed window store iterators, kept with their buffers for the next
	 * fetch (window_store.c): a session or sliding window record fetches
	 * its key's windows, and must not malloc per record. */
	struct stoat_window_iter *free_window_iters;
};

/* state.c: the store partition of the record cx is processing (opened
 * on first use), or NULL after recording an error. */
stoat_store_part *stoat_state_part_of(stoat_ctx *cx, int store);

/* state.c: whether p's reads and writes go through the record cache (on,
 * and the store is not one of a join's own, stoat_store_desc.uncached). */
bool stoat_part_cached(const stoat_store_part *p);

/* state.c: reads key from p's held-back writes and committed data. */
bool stoat_part_get(stoat_store_part *p, stoat_str key, stoat_arena *arena, stoat_str *value, bool *found,
		    char *err, size_t errlen);

/* state.c: writes key (value.ptr NULL: deletes) to p's held-back writes
 * and its changelog, bypassing the record cache. */
bool stoat_part_write(stoat_ctx *cx, stoat_store_part *p, stoat_str key, stoat_str value);

/* ------------------------------------------------------------------ */
/* window_store.c's part in what state.c does                          */
/* ------------------------------------------------------------------ */

/* A window store partition was opened: its stream time (RocksDB: the
 * committed one) raises the task's slot. */
bool stoat_window_part_opened(stoat_store_part *p, char *err, size_t errlen);

/* p's time index follows a write of key to its RocksDB batch. */
void stoat_window_index_write(stoat_store_part *p, stoat_str key, bool deleted);

/* The time index key of window key `key` into out (the caller gives
 * key.len bytes): its length, or 0 when p keeps no index or key is no
 * window key. */
size_t stoat_window_index_key(const stoat_store_part *p, stoat_str key, char *out);

/* A restored record of p: a stream time raises p's and the slot. */
void stoat_window_restored(stoat_store_part *p, stoat_str key, stoat_str value);

/* Writes each window store partition's stream time where it moved. */
bool stoat_window_write_stream_times(stoat_state *st);

/* After a commit or a restore: p's stream time is committed, and its
 * windows ending below stream time - retention expire. */
bool stoat_window_committed(stoat_store_part *p, char *err, size_t errlen);

/* After an abort: stream times go back to their committed values. */
void stoat_window_aborted(stoat_state *st);

/* Frees the iterators st keeps for reuse (stoat_state_close). */
void stoat_window_iters_free(stoat_state *st);

#endif /* STOAT_RUNTIME_STATE_IMPL_H */
