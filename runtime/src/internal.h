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

/*
 * Length of the well-formed UTF-8 sequence starting at p (at most `avail`
 * bytes available), or 0 if it is malformed.  p[0] must be >= 0x80.
 */
size_t stoat_utf8_sequence_len(const unsigned char *p, size_t avail);

/* Appends the JSON number for v (as stoat_buf_put_f64) and is the
 * formatting core shared with it; returns the bytes written or 0 for
 * NaN and infinities.  out must hold at least 32 bytes. */
size_t stoat_format_f64(char *out, double v);

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
typedef struct stoat_mem_store stoat_mem_store;

/* State every driver shares; the driver-specific part hangs off it. */
struct stoat_driver {
	stoat_driver_kind kind;
	const stoat_app *app;
	stoat_policy policy_override; /* --on-error; DEFAULT when not given */
	uint64_t skip_warnings_printed;
	uint64_t skip_warnings_hidden; /* rate-limited away, for the summary */
	stoat_replay *replay;          /* kind == STOAT_DRIVER_REPLAY */
	stoat_kafka *kafka;            /* kind == STOAT_DRIVER_KAFKA */
	const char *dlq_override;      /* --on-error dlq:TOPIC */
	stoat_mem_store *stores;       /* per app store, created on first use */
};

/* Frees the driver's in-memory stores. */
void stoat_stores_free(stoat_driver *d);

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
	bool static_membership;        /* group.instance.id = instance_id (KIP-345) */
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

/* Lower-case names used on the command line and by `describe`. */
const char *stoat_format_name(stoat_format f);
const char *stoat_policy_name(stoat_policy p);
const char *stoat_guarantee_name(stoat_guarantee g);

#endif /* STOAT_RUNTIME_INTERNAL_H */
