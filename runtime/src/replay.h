/*
 * replay.h - the replay driver (replay.c) and the replay format
 * (replay_format.c): records read from JSON-lines files, run through the
 * pipelines, output written as JSON lines.  A driver: on top of state.h
 * and driver.h.  `load` and `dump` (kafka_tools.c) reuse the format.
 */
#ifndef STOAT_RUNTIME_REPLAY_H
#define STOAT_RUNTIME_REPLAY_H

#include "avro_registry.h"
#include "driver.h"

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
	/*
	 * Keep the RocksDB stores in <state_dir>/<app_id>/default instead
	 * (where `run --state-dir` without an instance id keeps them and
	 * `store dump` reads them); that directory must hold no database yet.
	 */
	const char *state_dir;
	size_t cache_max_bytes;
	stoat_avro_options avro; /* format avro's registry */
	const char **inputs;
	size_t input_count;
	/*
	 * Instead of running each batch through its source's pipeline, hand
	 * it here (the `load` command produces the records to Kafka).
	 * partition_given[i] tells whether msgs[i]'s line named its partition
	 * (else msgs[i].partition is 0 and the key should decide).
	 */
	void (*batch_hook)(void *arg, stoat_ctx *cx, const stoat_msg *msgs, const bool *partition_given, size_t n);
	void *hook_arg;
} stoat_replay_options;

/* Runs the replay driver; returns the process exit status. */
int stoat_replay_run(const stoat_app *app, const stoat_replay_options *opt);

/* ------------------------------------------------------------------ */
/* The replay format (replay_format.c)                                 */
/* ------------------------------------------------------------------ */

/*
 * Opens a record's JSON line: {"topic":..,"partition":..,"offset":..,
 * "timestamp":.. (no closing brace), the head every line of the replay
 * format and of `dump` starts with (store_dump.c's changelog lines too).
 */
void stoat_format_record_head(stoat_buf *b, stoat_str topic, int32_t partition, int64_t offset, int64_t timestamp);

/*
 * Appends one record as a replay-format JSON line (the replay driver's
 * output and `dump`); check_cx is scratch for validating JSON payloads.
 */
void stoat_format_record_line(stoat_buf *b, stoat_ctx *check_cx, stoat_str topic, int32_t partition,
			      int64_t offset, int64_t timestamp, stoat_format key_format, stoat_str key,
			      stoat_format value_format, stoat_str value, const stoat_header *headers,
			      size_t header_count, const stoat_header *extra, size_t extra_count);

/* The source of an envelope's topic, remembered per input file. */
typedef struct stoat_envelope_cache {
	stoat_str topic; /* ptr NULL: none yet; points into the app table */
	size_t source;
} stoat_envelope_cache;

/* One parsed input line: the record, its source, what the line gave. */
typedef struct stoat_envelope {
	stoat_msg msg;
	size_t source;         /* index into app->sources */
	bool offset_given;     /* else the driver numbers the record */
	bool partition_given;  /* else partition 0 (load: the key decides) */
} stoat_envelope;

/*
 * Parses one replay-format line for app into *out: slices into the line,
 * decoded bytes in pcx's arena, keys and values converted to the bytes
 * the reading source's formats hold.  False with the message in
 * pcx->error_message.  Pure: parsing the same line again after an arena
 * reset gives the same record.
 */
bool stoat_parse_envelope(const stoat_app *app, stoat_ctx *pcx, stoat_envelope_cache *cache, stoat_str line,
			  stoat_envelope *out);

/*
 * Only what orders the line's record: its source, partition, offset and
 * timestamp (out's key, value and headers are left null), found without
 * checking key, value or headers; a failure's message is the full
 * parse's.  The replay driver's first pass over its inputs.
 */
bool stoat_scan_envelope(const stoat_app *app, stoat_ctx *pcx, stoat_envelope_cache *cache, stoat_str line,
			 stoat_envelope *out);

#endif /* STOAT_RUNTIME_REPLAY_H */
