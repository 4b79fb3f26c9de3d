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
} stoat_driver_kind;

typedef struct stoat_replay stoat_replay;

/* State every driver shares; the driver-specific part hangs off it. */
struct stoat_driver {
	stoat_driver_kind kind;
	const stoat_app *app;
	stoat_policy policy_override; /* --on-error; DEFAULT when not given */
	uint64_t skip_warnings_printed;
	uint64_t skip_warnings_hidden; /* rate-limited away, for the summary */
	stoat_replay *replay;          /* kind == STOAT_DRIVER_REPLAY */
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
	stoat_topic_partitions *partitions;
	size_t partition_count;
	size_t batch_max;
	bool stats;
	const char **inputs;
	size_t input_count;
} stoat_replay_options;

/* Runs the replay driver; returns the process exit status. */
int stoat_replay_run(const stoat_app *app, const stoat_replay_options *opt);

/* The replay driver's half of stoat_emit(). */
void stoat_replay_emit(stoat_replay *r, stoat_ctx *cx, int sink, stoat_str topic, stoat_str key,
		       stoat_str value);

/* Prints `<app_id>: records in N, out N, failed N, skipped N` (and hidden
 * warnings) to f. */
void stoat_print_summary(FILE *f, const stoat_driver *d, const stoat_counters *total);

/* Lower-case names used on the command line and by `describe`. */
const char *stoat_format_name(stoat_format f);
const char *stoat_policy_name(stoat_policy p);
const char *stoat_guarantee_name(stoat_guarantee g);

#endif /* STOAT_RUNTIME_INTERNAL_H */
