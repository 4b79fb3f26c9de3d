/*
 * internal.h - declarations shared by the runtime's source files and its
 * unit tests.  Generated code never includes this header: everything it
 * may use is in stoat/runtime.h.
 */
#ifndef STOAT_RUNTIME_INTERNAL_H
#define STOAT_RUNTIME_INTERNAL_H

#include "stoat/runtime.h"

#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Small byte utilities                                                */
/* ------------------------------------------------------------------ */

/* Kafka's Utils.murmur2 (seed 0x9747b28c), as a signed Java int. */
int32_t stoat_murmur2(const void *data, size_t len);

/* Kafka's default partition for a non-null key: toPositive(murmur2) % n. */
int32_t stoat_partition_for_key(stoat_str key, int32_t partitions);

/* Bytes needed for the padded base64 encoding of n bytes. */
static inline size_t stoat_base64_encoded_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

/* Appends the padded standard base64 (RFC 4648) encoding of s to b. */
void stoat_base64_encode(stoat_buf *b, stoat_str s);

/*
 * Decodes standard base64 (padding optional) into out, which must hold at
 * least in.len / 4 * 3 + 3 bytes.  Returns false on a character outside the
 * alphabet, misplaced padding or an impossible length.
 */
bool stoat_base64_decode(stoat_str in, char *out, size_t *out_len);

/* True when s is well-formed UTF-8 (no overlongs, surrogates, > U+10FFFF). */
bool stoat_utf8_valid(stoat_str s);


/* Appends the JSON number for v (as stoat_buf_put_f64) and is the
 * formatting core shared with it; returns the bytes written or 0 for
 * NaN and infinities.  out must hold at least 32 bytes. */
size_t stoat_format_f64(char *out, double v);

/* stoat_format_f64 without its fast path when fast is false (tests check
 * that both give the same bytes). */
size_t stoat_format_f64_with(char *out, double v, bool fast);

/* Parses the JSON number text[0..len) as a double, correctly rounded (a
 * fast exact path for short decimals, strtod otherwise); fast false forces
 * strtod (for tests). */
double stoat_parse_f64(const char *text, size_t len, bool fast);

/* ------------------------------------------------------------------ */
/* Drivers                                                             */
/* ------------------------------------------------------------------ */

/*
 * Which driver runs the application.  stoat_emit() switches on this (one
 * predictable branch per record, no function pointer).  The Kafka driver
 * will add STOAT_DRIVER_KAFKA.
 */
typedef enum stoat_driver_kind {
	STOAT_DRIVER_NONE = 0, /* unit tests calling pipelines directly */
	STOAT_DRIVER_REPLAY,
	STOAT_DRIVER_KAFKA,
} stoat_driver_kind;

typedef struct stoat_replay stoat_replay;
typedef struct stoat_kafka stoat_kafka;
typedef struct stoat_state stoat_state;

/* State every driver shares; the driver-specific part hangs off it. */
struct stoat_driver {
	stoat_driver_kind kind;
	const stoat_app *app;
	stoat_policy policy_override; /* --on-error; DEFAULT when not given */
	uint64_t skip_warnings_printed;
	uint64_t skip_warnings_hidden; /* rate-limited away, for the summary */
	bool drop_reported;            /* the first dropped record was reported */
	stoat_replay *replay;          /* kind == STOAT_DRIVER_REPLAY */
	stoat_kafka *kafka;            /* kind == STOAT_DRIVER_KAFKA */
	const char *dlq_override;      /* --on-error dlq:TOPIC */
	stoat_state *state;            /* the app's stores; NULL when it has none */
};

/* The policy that applies to a failed record of cx's source. */
stoat_policy stoat_effective_policy(const stoat_ctx *cx);

/* Skip warnings: every one of the first N, then one in every M. */
enum { STOAT_SKIP_WARN_FIRST = 100, STOAT_SKIP_WARN_EVERY = 1000 };

/* An output topic's partition count given with --partitions. */
typedef struct stoat_topic_partitions {
	const char *topic;
	int32_t partitions;
} stoat_topic_partitions;

/* The replay command line, parsed. */
typedef struct stoat_replay_options {
	const char *output_path; /* NULL: stdout */
	stoat_policy policy_override;
	const char *dlq_override; /* policy_override == STOAT_POLICY_DLQ */
	stoat_topic_partitions *partitions;
	size_t partition_count;
	size_t batch_max;
	bool stats;
	/*
	 * State: RocksDB in a temporary directory removed at exit, unless
	 * state_in_memory; the record cache is off unless cache_max_bytes
	 * is given (replay commits after every batch).
	 */
	bool state_in_memory;
	size_t cache_max_bytes;
	const char **inputs;
	size_t input_count;
	/*
	 * Instead of running each batch through its source's pipeline, hand
	 * it here (the `load` command produces the records to Kafka).
	 */
	void (*batch_hook)(void *arg, stoat_ctx *cx, const stoat_msg *msgs, size_t n);
	void *hook_arg;
} stoat_replay_options;

/* Runs the replay driver; returns the process exit status. */
int stoat_replay_run(const stoat_app *app, const stoat_replay_options *opt);

/* The replay driver's half of stoat_emit(). */
void stoat_replay_emit(stoat_replay *r, stoat_ctx *cx, int sink, stoat_str topic, stoat_str key,
		       stoat_str value);

/* ------------------------------------------------------------------ */
/* The Kafka driver                                                    */
/* ------------------------------------------------------------------ */

/* A librdkafka property given on the command line, in YAML or the env. */
typedef struct stoat_kafka_prop {
	char *name;  /* "x.y", or "consumer.x.y" / "producer.x.y" for one client */
	char *value;
} stoat_kafka_prop;

/*
 * The process's memory preset: how much librdkafka may prefetch and buffer
 * and, unless state_memory says otherwise, RocksDB's budget (low 64 MB,
 * default 256 MB, high 1 GB).  low trades throughput for RSS.
 */
typedef enum stoat_memory {
	STOAT_MEMORY_DEFAULT = 0,
	STOAT_MEMORY_LOW,
	STOAT_MEMORY_HIGH,
} stoat_memory;

/* Settings of `run`, `load` and `dump`, after YAML, environment, flags. */
typedef struct stoat_kafka_options {
	const char *bootstrap_servers;
	const char *instance_id;       /* NULL: a random one per process */
	stoat_guarantee guarantee;
	int64_t commit_interval_ms;
	stoat_policy policy_override;
	const char *dlq_override;
	size_t batch_max;
	int64_t idle_exit_ms;          /* run: exit after this long with no input (0: never) */
	int64_t purge_interval_ms;     /* delete consumed repartition records this often (0: never) */
	bool static_membership;        /* group.instance.id = instance_id (KIP-345) */
	const char *state_dir;         /* NULL: /tmp/stoat; stores in <dir>/<app_id>/<instance> */
	stoat_memory memory;           /* the process's memory preset */
	size_t memory_budget;          /* RocksDB, for all stores (0: the preset's) */
	size_t cache_max_bytes;        /* record cache, all stores (0: off) */
	bool stats;
	stoat_kafka_prop *props;
	size_t prop_count;
} stoat_kafka_options;

/*
 * Fills opt from the app's defaults, then the YAML file (--config or
 * $STOAT_CONFIG), then STOAT_* environment variables, then the flags in
 * argv[first..argc).  Leaves non-option arguments in *rest.  Returns 0 or
 * an exit status after printing the problem.
 */
int stoat_kafka_configure(const stoat_app *app, const char *prog, const char *command, int argc, char **argv,
			  stoat_kafka_options *opt, char ***rest, int *rest_count);

void stoat_kafka_options_free(stoat_kafka_options *opt, char **rest);

int stoat_kafka_run(const stoat_app *app, const stoat_kafka_options *opt);
int stoat_kafka_load(const stoat_app *app, const stoat_kafka_options *opt, const char **inputs, size_t n);
int stoat_kafka_dump(const stoat_app *app, const stoat_kafka_options *opt, const char **topics, size_t n,
		     int64_t idle_ms, bool read_committed);

/* The Kafka halves of stoat_emit and stoat_dead_letter; emit returns
 * false after recording a per-record error. */
bool stoat_kafka_emit(stoat_kafka *k, stoat_ctx *cx, int sink, stoat_str topic, stoat_str key, stoat_str value);
void stoat_kafka_dead_letter(stoat_kafka *k, stoat_ctx *cx, const char *dlq_topic, const stoat_header *extra,
			     size_t extra_count);

/* The replay driver's dead-letter output (see stoat_dead_letter). */
void stoat_replay_dead_letter(stoat_replay *r, stoat_ctx *cx, const char *dlq_topic, const stoat_header *extra,
			      size_t extra_count);

/*
 * Appends one record as a replay-format JSON line (the replay driver's
 * output and `dump`); check_cx is scratch for validating JSON payloads.
 */
void stoat_format_record_line(stoat_buf *b, stoat_ctx *check_cx, stoat_str topic, int32_t partition,
			      int64_t offset, int64_t timestamp, stoat_format key_format, stoat_str key,
			      stoat_format value_format, stoat_str value, const stoat_header *headers,
			      size_t header_count, const stoat_header *extra, size_t extra_count);

/*
 * Dead-letters the failed record of cx to its policy's topic: the input's
 * key and value bytes unchanged, its headers, and five more: stoat.error,
 * stoat.source.topic, .partition, .offset and .timestamp.  Called by
 * stoat_record_failed under the dlq policy.
 */
void stoat_dead_letter(stoat_ctx *cx);
const char *stoat_effective_dlq_topic(const stoat_ctx *cx);

/* Prints `<app_id>: records in N, out N, failed N, skipped N` (and hidden
 * warnings) to f. */
void stoat_print_summary(FILE *f, const stoat_driver *d, const stoat_counters *total);

/* Parses a byte size: digits with an optional K, M or G (binary) suffix,
 * "0" included.  False when s is not one. */
bool stoat_parse_byte_size(const char *s, size_t *out);

/* Lower-case names used on the command line and by `describe`. */
const char *stoat_format_name(stoat_format f);
const char *stoat_policy_name(stoat_policy p);
const char *stoat_guarantee_name(stoat_guarantee g);

/* ------------------------------------------------------------------ */
/* RocksDB state (rocks.c)                                             */
/* ------------------------------------------------------------------ */

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
bool stoat_rocks_iter_valid(const stoat_rocks_iter *it);
void stoat_rocks_iter_next(stoat_rocks_iter *it);
stoat_str stoat_rocks_iter_key(const stoat_rocks_iter *it);
stoat_str stoat_rocks_iter_value(const stoat_rocks_iter *it);
bool stoat_rocks_iter_close(stoat_rocks_iter *it, char *err, size_t errlen);

/*
 * Writes kvs in one atomic write straight to the database, bypassing the
 * uncommitted batch (restoring from a changelog).  value.ptr NULL deletes.
 */
bool stoat_rocks_write(stoat_rocks *db, const stoat_rocks_kv *kvs, size_t n, char *err, size_t errlen);

/* Deletes every committed key of family (a store partition to rebuild). */
bool stoat_rocks_clear_family(stoat_rocks *db, int family, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* In-memory maps (store.c)                                            */
/* ------------------------------------------------------------------ */

typedef struct stoat_mem_entry stoat_mem_entry;

/* Open addressing over malloc'd copies of keys and values; zero-initialise. */
typedef struct stoat_mem_map {
	stoat_mem_entry *slots;
	size_t cap; /* a power of two */
	size_t count;
} stoat_mem_map;

/* A slice of the stored value (valid until the key is written again);
 * *deleted (if given) tells a remembered delete from a value. */
bool stoat_mem_map_get(const stoat_mem_map *m, stoat_str key, stoat_str *value, bool *deleted);
void stoat_mem_map_put(stoat_mem_map *m, stoat_str key, stoat_str value, bool deleted);
void stoat_mem_map_remove(stoat_mem_map *m, stoat_str key);
void stoat_mem_map_apply(stoat_mem_map *m, stoat_mem_map *pending);
void stoat_mem_map_clear(stoat_mem_map *m);
size_t stoat_mem_map_count(const stoat_mem_map *m);

/* ------------------------------------------------------------------ */
/* State stores (state.c)                                              */
/* ------------------------------------------------------------------ */

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
typedef struct stoat_store_part stoat_store_part;

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

/* The Kafka driver's half of a store write: produce to the changelog. */
bool stoat_kafka_changelog(stoat_kafka *k, stoat_ctx *cx, stoat_store_part *p, stoat_str key, stoat_str value);

/* ------------------------------------------------------------------ */
/* End of state stores                                                  */
/* ------------------------------------------------------------------ */

#endif /* STOAT_RUNTIME_INTERNAL_H */
