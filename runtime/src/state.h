/*
 * state.h - the application's state stores (state.c) for whichever driver
 * runs: store partitions on RocksDB (rocks.h) or in-memory maps
 * (store.h), held-back writes, changelog checkpoints, the record cache
 * and restoring.  Changelog writes go through the driver's operations
 * (driver.h), so the stores never call a driver directly.
 */
#ifndef STOAT_RUNTIME_STATE_H
#define STOAT_RUNTIME_STATE_H

#include "driver.h"
#include "rocks.h"
#include "store.h"

#include <stdio.h>

/*
 * The application's stores as one object per driver.  A store partition
 * (the state of one store for one partition, what Kafka Streams keeps per
 * task) lives in a RocksDB column family "<store>.<partition>", or in a
 * pair of hash maps for in-memory stores.  Writes of the open commit
 * interval are held back (RocksDB's write batch, the pending map) and
 * applied by stoat_state_commit only after the driver's Kafka commit,
 * together with each partition's changelog checkpoint; an abort drops
 * them.  With a record cache, puts collapse per key until the next flush,
 * which writes them to the store and the changelog and runs the store's
 * flush function (its downstream operators).
 *
 * Commit cycle of a driver:
 *	stoat_state_flush()     (caches out; may emit records)
 *	... the Kafka commit (offsets / transaction) ...
 *	stoat_state_commit()    (or stoat_state_abort() if it failed)
 */
typedef struct stoat_state_options {
	const char *dir;        /* RocksDB directory; NULL: every store in memory */
	size_t memory_budget;   /* RocksDB block cache + memtables, bytes */
	size_t cache_max_bytes; /* record cache across all stores; 0: none */
} stoat_state_options;

/* Record-cache default (Kafka Streams' statestore.cache.max.bytes). */
#define STOAT_CACHE_DEFAULT_BYTES ((size_t)10 << 20)

/* Opens the state of app for driver d (NULL and err on failure). */
stoat_state *stoat_state_open(const stoat_app *app, stoat_driver *d, const stoat_state_options *opt, char *err,
			      size_t errlen);

/* Drops uncommitted writes and closes (NULL: no-op). */
void stoat_state_close(stoat_state *st);

/* The store partition, opened on first use (NULL and err on failure). */
stoat_store_part *stoat_state_part(stoat_state *st, int store, int32_t partition, char *err, size_t errlen);

/* "<app_id>-<store>-changelog". */
const char *stoat_state_changelog_topic(const stoat_state *st, int store);

int stoat_store_part_store(const stoat_store_part *p);
int32_t stoat_store_part_partition(const stoat_store_part *p);

/* The changelog offset to restore from: the checkpoint of the last commit
 * (0 when there is none or the store is in memory). */
int64_t stoat_store_part_checkpoint(const stoat_store_part *p);

/*
 * Restoring: start empties the partition when from_scratch (the
 * checkpoint is below the changelog's start, or the store is being
 * reset: see stoat_store_part_restore_plan), and its stored checkpoint;
 * record applies one changelog record (value.ptr NULL: delete) at
 * offset; done writes what is left with the new checkpoint.  Records are
 * written in chunks, each with its checkpoint.
 */
bool stoat_store_part_restore_start(stoat_store_part *p, bool from_scratch, char *err, size_t errlen);
bool stoat_store_part_restore_record(stoat_store_part *p, stoat_str key, stoat_str value, int64_t offset, char *err,
				     size_t errlen);
bool stoat_store_part_restore_done(stoat_store_part *p, char *err, size_t errlen);

/* The partition's keys in the committed store (for logs and tests). */
uint64_t stoat_store_part_restored(const stoat_store_part *p);

/* The changelog offset after the last record a restore under way applied. */
int64_t stoat_store_part_restore_position(const stoat_store_part *p);

/*
 * Where a restore starts, from the checkpoint and the changelog
 * partition's offsets lo..hi (log start, end).  A checkpoint below the
 * log start means records were removed from the changelog's head
 * (retention, deleted records): the store is wiped and read from lo, as
 * Kafka Streams does on OffsetOutOfRange, which is what a compacted
 * changelog still represents.  A checkpoint above the end cannot happen
 * to a topic that still holds what it was written (offsets never go
 * back): the topic was deleted and re-created (or lost data), and the
 * intact local state no longer matches it: a mismatch, as is a rebuild of
 * the changelog that started and did not finish.
 */
typedef enum stoat_restore_plan {
	STOAT_RESTORE_FROM_CHECKPOINT, /* lo <= checkpoint <= hi */
	STOAT_RESTORE_FROM_START,      /* checkpoint < lo */
	STOAT_RESTORE_MISMATCH,        /* checkpoint > hi, or a rebuild left unfinished */
} stoat_restore_plan;

stoat_restore_plan stoat_store_part_restore_plan(const stoat_store_part *p, int64_t lo, int64_t hi);

/* A rebuild of p's changelog started and did not finish (see below). */
bool stoat_store_part_rebuild_pending(const stoat_store_part *p);

/*
 * What `run` does on a mismatch (--on-state-mismatch, on_state_mismatch,
 * STOAT_ON_STATE_MISMATCH): refuse to start (exit STOAT_EXIT_STATE,
 * nothing changed), rebuild the changelog from the local state, or reset
 * the store (discard the local state, restore whatever the changelog
 * holds).
 */
typedef enum stoat_state_mismatch {
	STOAT_MISMATCH_REFUSE = 0,
	STOAT_MISMATCH_REBUILD_CHANGELOG,
	STOAT_MISMATCH_RESET,
} stoat_state_mismatch;

/* "refuse", "rebuild-changelog" (or "rebuild_changelog"), "reset";
 * false for anything else. */
bool stoat_state_mismatch_parse(const char *s, stoat_state_mismatch *out);

/*
 * Rebuilding a changelog partition from p's committed contents: begin
 * marks p as being rebuilt (durably: a crash before done leaves a
 * mismatch, never a checkpoint the changelog does not back); scan hands
 * every key and value to fn (false from fn stops it); done records the
 * new checkpoint and clears the mark in one write.  False and err on a
 * RocksDB error.
 */
bool stoat_store_part_rebuild_begin(stoat_store_part *p, char *err, size_t errlen);
bool stoat_store_part_scan(stoat_store_part *p, bool (*fn)(void *arg, stoat_str key, stoat_str value), void *arg,
			   char *err, size_t errlen);
bool stoat_store_part_rebuild_done(stoat_store_part *p, int64_t checkpoint, char *err, size_t errlen);

/* Whether p holds key in its committed data (false and err on error). */
bool stoat_store_part_has(stoat_store_part *p, stoat_str key, bool *found, char *err, size_t errlen);

/*
 * Creates dir (a state directory below base, the user's --state-dir) and
 * its missing parents with mode 0700; directories that exist below base
 * and the files directly in dir lose their group and other permissions
 * (earlier versions made them 0755 and 0644).  base itself, and what is
 * above it, is the user's and left as it is.  *tightened counts the
 * entries whose mode changed.  False with errno set on failure.
 */
bool stoat_state_make_dir(const char *base, const char *dir, size_t *tightened);

/* A changelog record of p was acknowledged at offset. */
void stoat_store_part_acked(stoat_store_part *p, int64_t offset);

/*
 * Writes out every record cache, running flush functions (which may emit
 * and, in the replay driver, feed more records to pipelines).  False if a
 * flushed update failed under the fail policy or was abandoned.
 */
bool stoat_state_flush(stoat_state *st);

/* After the Kafka commit: applies held-back writes and checkpoints. */
bool stoat_state_commit(stoat_state *st, char *err, size_t errlen);

/* Drops held-back writes and cached updates (the Kafka work was undone). */
void stoat_state_abort(stoat_state *st);

/* The context flush functions run in (its counters join the summary). */
stoat_ctx *stoat_state_flush_ctx(stoat_state *st);

/*
 * run --stats, after the last commit: one line per open window store
 * partition to f, with the windows it holds (window_store.c), so that a
 * test can see the store stay bounded while event time advances.  False
 * (and err) if RocksDB could not be read.
 */
bool stoat_state_print_window_sizes(stoat_state *st, FILE *f, char *err, size_t errlen);

/* An open store partition's figures (stoat_state_describe). */
typedef struct stoat_store_usage {
	int store;
	int32_t partition;
	bool in_memory;
	uint64_t keys;      /* RocksDB's estimate-num-keys, or the in-memory count */
	uint64_t bytes;     /* RocksDB's live data estimate and memtables, or the in-memory bytes */
	int64_t checkpoint; /* the changelog offset the committed data reflects (-1: none) */
	uint64_t restored;  /* records applied by its last restore */
} stoat_store_usage;

/* The state's shared figures: the record cache's and RocksDB's. */
typedef struct stoat_state_usage {
	size_t cache_max_bytes;
	size_t cache_bytes;
	size_t cache_entries;
	uint64_t cache_hits, cache_misses, cache_size_flushes;
	stoat_rocks_memory rocksdb;
} stoat_state_usage;

size_t stoat_state_describe(stoat_state *st, stoat_store_usage *out, size_t cap, stoat_state_usage *usage);

#endif /* STOAT_RUNTIME_STATE_H */
