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
 * checkpoint is past the changelog's end: the topic was recreated);
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

#endif /* STOAT_RUNTIME_STATE_H */
