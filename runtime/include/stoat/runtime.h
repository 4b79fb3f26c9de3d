/*
 * stoat/runtime.h - the interface between code emitted by stoatc and the
 * stoat runtime library (libstoat-runtime).
 *
 * Generated code includes this header only.  It describes the application
 * to the runtime with a constant table (stoat_app), and the runtime calls
 * one pipeline entry point per batch of records read from one input
 * partition.  Everything on the per-record path is either a static inline
 * helper defined here or a direct call; nothing here walks an operator graph
 * or looks a field up by name.
 *
 * The same generated code runs under every driver (the replay driver today,
 * the Kafka driver later): drivers live behind stoat_main() and stoat_emit().
 */
#ifndef STOAT_RUNTIME_H
#define STOAT_RUNTIME_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STOAT_VERSION "0.1.0"

#if defined(__GNUC__)
#define STOAT_LIKELY(x) __builtin_expect(!!(x), 1)
#define STOAT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define STOAT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define STOAT_LIKELY(x) (x)
#define STOAT_UNLIKELY(x) (x)
#define STOAT_PRINTF(f, a)
#endif

/* ------------------------------------------------------------------ */
/* Strings and bytes                                                   */
/* ------------------------------------------------------------------ */

/*
 * A string or byte sequence: a slice into the input message, the per-batch
 * arena, or static storage.  Never owned, never NUL-terminated.  A NULL ptr
 * marks an absent (null) Kafka key or value in stoat_msg; generated records
 * represent nullability with an explicit flag instead.
 */
typedef struct stoat_str {
	const char *ptr;
	size_t len;
} stoat_str;

#define STOAT_STR_LIT(s) ((stoat_str){ (s), sizeof(s) - 1 })

static inline bool stoat_str_eq(stoat_str a, stoat_str b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* Three-way bytewise comparison (UTF-8 code point order). */
static inline int stoat_str_cmp(stoat_str a, stoat_str b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
	if (c != 0)
		return c < 0 ? -1 : 1;
	return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

/*
 * Length (1 to 4) of the well-formed UTF-8 sequence starting at p, with
 * `avail` > 0 bytes available, or 0 if it is malformed (overlong forms,
 * surrogates, values above U+10FFFF, a cut-off sequence).
 */
size_t stoat_utf8_sequence_len(const unsigned char *p, size_t avail);

/* ------------------------------------------------------------------ */
/* Arena: per-batch bump allocator                                     */
/* ------------------------------------------------------------------ */

/*
 * Chunked bump allocator.  Reset after every batch, so records never touch
 * malloc: chunks are kept and reused, and only grow when one batch needs
 * more memory than any before it.
 */
typedef struct stoat_arena_chunk stoat_arena_chunk;
typedef struct stoat_arena {
	char *cur;                /* next free byte in the current chunk */
	char *end;                /* end of the current chunk */
	stoat_arena_chunk *head;  /* current chunk (list of used chunks) */
	stoat_arena_chunk *spare; /* chunks freed by reset, reused first */
	size_t allocated;         /* bytes held in chunks, for stats */
} stoat_arena;

void stoat_arena_init(stoat_arena *a);
void stoat_arena_reset(stoat_arena *a);
void stoat_arena_free(stoat_arena *a);
void *stoat_arena_alloc_slow(stoat_arena *a, size_t n);

/* Returns n bytes aligned to 8; never NULL (aborts on out-of-memory). */
static inline void *stoat_arena_alloc(stoat_arena *a, size_t n)
{
	size_t rounded = (n + 7) & ~(size_t)7;
	if (STOAT_LIKELY((size_t)(a->end - a->cur) >= rounded)) {
		void *p = a->cur;
		a->cur += rounded;
		return p;
	}
	return stoat_arena_alloc_slow(a, n);
}

/* Copies s into the arena and returns the copy. */
stoat_str stoat_arena_strdup(stoat_arena *a, stoat_str s);

/* ------------------------------------------------------------------ */
/* Growable output buffer (encoders)                                   */
/* ------------------------------------------------------------------ */

/*
 * An encoder's output.  The memory is malloc'd once per task and grows
 * geometrically, so steady state is allocation-free.  Generated encoders
 * reset len to 0 before each record.
 */
typedef struct stoat_buf {
	char *data;
	size_t len;
	size_t cap;
} stoat_buf;

void stoat_buf_init(stoat_buf *b);
void stoat_buf_free(stoat_buf *b);
void stoat_buf_reserve_slow(stoat_buf *b, size_t extra);

static inline void stoat_buf_reserve(stoat_buf *b, size_t extra)
{
	if (STOAT_UNLIKELY(b->cap - b->len < extra))
		stoat_buf_reserve_slow(b, extra);
}

static inline void stoat_buf_put(stoat_buf *b, const void *p, size_t n)
{
	stoat_buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void stoat_buf_putc(stoat_buf *b, char c)
{
	stoat_buf_reserve(b, 1);
	b->data[b->len++] = c;
}

/* s must be a string literal ("" s "" refuses anything else: sizeof of a
 * pointer would copy the wrong length). */
#define stoat_buf_lit(b, s) stoat_buf_put((b), "" s "", sizeof(s) - 1)

static inline stoat_str stoat_buf_str(const stoat_buf *b)
{
	return (stoat_str){ b->data, b->len };
}

/* Decimal integer, as JSON and text format it. */
void stoat_buf_put_i64(stoat_buf *b, int64_t v);
/*
 * Shortest decimal that round-trips the double (JSON syntax, so 1.0 prints
 * as "1.0", never "1").  Returns false for NaN and infinities, which JSON
 * cannot represent; the caller reports a per-record error.
 */
bool stoat_buf_put_f64(stoat_buf *b, double v);
/*
 * A JSON string literal with quotes; escapes ", \ and control bytes, and
 * writes each byte that is not part of valid UTF-8 as \ufffd.
 */
void stoat_buf_put_json_str(stoat_buf *b, stoat_str s);
/* Kafka's big-endian serdes (IntegerSerializer, LongSerializer, ...). */
void stoat_buf_put_be32(stoat_buf *b, int32_t v);
void stoat_buf_put_be64(stoat_buf *b, int64_t v);
void stoat_buf_put_be_f64(stoat_buf *b, double v);

/* ------------------------------------------------------------------ */
/* Arrays and nullable scalars shared with the standard library         */
/* ------------------------------------------------------------------ */

/* An array value: items in the arena (or static storage). */
#define STOAT_DEFINE_ARRAY(NAME, T) \
	typedef struct NAME {       \
		T *items;           \
		size_t len;         \
	} NAME;

STOAT_DEFINE_ARRAY(stoat_arr_str, stoat_str)
STOAT_DEFINE_ARRAY(stoat_arr_i32, int32_t)
STOAT_DEFINE_ARRAY(stoat_arr_i64, int64_t)
STOAT_DEFINE_ARRAY(stoat_arr_f64, double)
STOAT_DEFINE_ARRAY(stoat_arr_bool, bool)

/* A nullable value: has false means null (v is then zero). */
#define STOAT_DEFINE_OPT(NAME, T) \
	typedef struct NAME {     \
		bool has;         \
		T v;              \
	} NAME;

STOAT_DEFINE_OPT(stoat_opt_str, stoat_str)
STOAT_DEFINE_OPT(stoat_opt_i32, int32_t)
STOAT_DEFINE_OPT(stoat_opt_i64, int64_t)
STOAT_DEFINE_OPT(stoat_opt_f64, double)
STOAT_DEFINE_OPT(stoat_opt_bool, bool)

/* ------------------------------------------------------------------ */
/* Records, formats and the application table                          */
/* ------------------------------------------------------------------ */

typedef struct stoat_header {
	stoat_str key;
	stoat_str value; /* ptr NULL: header with a null value */
} stoat_header;

/* One input record as the driver hands it to a pipeline. */
typedef struct stoat_msg {
	int32_t partition;
	int64_t offset;
	int64_t timestamp; /* milliseconds since the epoch */
	stoat_str key;     /* ptr NULL: null key */
	stoat_str value;   /* ptr NULL: null value (tombstone) */
	const stoat_header *headers;
	size_t header_count;
	/*
	 * Non-NULL: the driver has not converted the record's headers yet
	 * (headers and header_count are then not set), because most records
	 * never need them and reading them costs a parse and an allocation
	 * per record; this is the driver's own record, and
	 * stoat_msg_load_headers() converts them.
	 */
	const void *lazy_headers;
} stoat_msg;

/* How a key or value is laid out in Kafka's bytes. */
typedef enum stoat_format {
	STOAT_FMT_BYTES = 0, /* raw bytes */
	STOAT_FMT_TEXT,      /* UTF-8 text (StringSerde) */
	STOAT_FMT_JSON,      /* JSON text */
	STOAT_FMT_I32,       /* 4-byte big-endian (IntegerSerde) */
	STOAT_FMT_I64,       /* 8-byte big-endian (LongSerde) */
	STOAT_FMT_F64,       /* 8-byte big-endian IEEE 754 (DoubleSerde) */
	STOAT_FMT_AVRO_RAW,  /* Avro's binary encoding of the compiled schema, no framing (stoat/avro.h) */
	STOAT_FMT_AVRO,      /* Confluent's wire format: 0, a 4-byte big-endian registry id, the Avro binary */
} stoat_format;

typedef enum stoat_guarantee {
	STOAT_AT_LEAST_ONCE = 0,
	STOAT_EXACTLY_ONCE = 1,
} stoat_guarantee;

/* What happens to a record whose processing fails. */
typedef enum stoat_policy {
	STOAT_POLICY_DEFAULT = 0, /* a source without its own: the app's */
	STOAT_POLICY_FAIL,        /* report and stop with a non-zero exit */
	STOAT_POLICY_SKIP,        /* report (rate-limited), count, go on */
	STOAT_POLICY_DLQ,         /* write the input record to a dead-letter topic, go on */
} stoat_policy;

typedef struct stoat_ctx stoat_ctx;

/* Sets m's headers and header_count if the driver left them for later
 * (m is the driver's, only read-only to pipelines). */
void stoat_msg_load_headers_slow(stoat_ctx *cx, const stoat_msg *m);
static inline void stoat_msg_load_headers(stoat_ctx *cx, const stoat_msg *m)
{
	if (STOAT_UNLIKELY(m->lazy_headers != NULL))
		stoat_msg_load_headers_slow(cx, m);
}

/* A pipeline entry point: processes msgs[0..n) read from one partition. */
typedef void (*stoat_pipeline_fn)(stoat_ctx *cx, const stoat_msg *msgs, size_t n);

typedef struct stoat_source {
	const char *name;  /* the stream's name in the .stoat file */
	const char *topic;
	stoat_format key_format;
	stoat_format value_format;
	stoat_policy on_error;
	stoat_pipeline_fn pipeline;
	const char *dlq_topic; /* on_error == STOAT_POLICY_DLQ */
	bool internal;         /* a repartition topic the app writes itself */
	/*
	 * The state stores this source's pipeline reads and writes (indices
	 * into app->stores).  When the driver is given partition p of the
	 * source, it restores partition p of each of these stores first.
	 */
	const int *stores;
	size_t store_count;
	int subtopology; /* its task's sub-topology (stream time is per task) */
	/*
	 * A global table's topic: every partition feeds one store that every
	 * instance keeps whole (its store has .global set); no changelog, the
	 * topic is restored from.  Its records never produce output.
	 */
	bool global;
} stoat_source;

typedef struct stoat_sink {
	const char *topic; /* NULL: chosen per record */
	stoat_format key_format;
	stoat_format value_format;
	bool internal; /* a repartition topic, read back by an internal source */
	/* Format avro: the Avro schema (JSON) registered for the key and value, else NULL. */
	const char *key_schema;
	const char *value_schema;
} stoat_sink;

/*
 * One update of a store key that the record cache held back and now
 * passes downstream (see stoat_store_put): record.key is the store key
 * (stoat_key_put_* layout), record.value the newest value (ptr NULL: the
 * key was deleted), record.partition the task's partition and
 * record.timestamp that of the newest update; old_value is the value the
 * key had before the first update since the last flush (ptr NULL: none).
 */
typedef struct stoat_store_update {
	stoat_msg record;
	stoat_str old_value;
} stoat_store_update;

/*
 * Generated per store: runs the store's downstream operators over updates
 * the record cache flushes, as the pipeline would have right after the
 * put.  Called once per flushed batch, never per record.
 */
typedef void (*stoat_store_flush_fn)(stoat_ctx *cx, const stoat_store_update *updates, size_t n);

/*
 * Generated per store key and value type: decodes bytes in the store key
 * (or value) layout into the compiled type and appends it to out as JSON
 * (as the JSON format writes it).  False, with the error recorded in cx
 * (stoat_error), when the bytes are not one value of the type.
 */
typedef bool (*stoat_store_json_fn)(stoat_ctx *cx, stoat_str bytes, stoat_buf *out);

/*
 * What a store holds: a table (one value per key), or windows (one value
 * per key and window: time windows, sliding windows and sessions), laid
 * out as "Window and session stores" below says.
 */
typedef enum stoat_store_kind {
	STOAT_STORE_KEY_VALUE = 0,
	STOAT_STORE_WINDOW,
} stoat_store_kind;

/*
 * A state store (one per table), named after its table.  Its changelog
 * topic is <app_id>-<name>-changelog (for a window store: cleanup policy
 * compact,delete and retention.ms = retention_ms plus one day, as Kafka
 * Streams sets windowstore.changelog.additional.retention.ms).
 */
typedef struct stoat_store_desc {
	const char *name;
	stoat_store_flush_fn flush; /* NULL: nothing downstream */
	bool in_memory;             /* a hash map instead of RocksDB */
	bool uncached;              /* never in the record cache (a join's own stores, as Kafka Streams') */
	stoat_store_kind kind;
	int subtopology;            /* the sub-topology whose tasks own it */
	/*
	 * STOAT_STORE_WINDOW: a window is kept while its end is at least
	 * stream time - retention_ms (the plan turns the language's
	 * retention, size + grace by default, into this); windows are
	 * grouped by end into segments of segment_ms, and whole segments
	 * expire at once.  time_index: the store also keeps its windows in
	 * end order across keys, for stoat_window_fetch_ended.
	 * window_retention_ms: the retention as the program states it
	 * (counted from a window's start, size + grace by default, Kafka
	 * Streams' window store retention); the changelog topic keeps
	 * records a day longer than that.
	 */
	int64_t retention_ms;
	int64_t segment_ms;
	bool time_index;
	int64_t window_retention_ms;
	/*
	 * A global table's store: one partition (0) holding every partition
	 * of its source topic, written without a changelog (the source topic
	 * is its changelog).
	 */
	bool global;
	/*
	 * For reading a store offline (`store list`, `store dump` and `dump`
	 * of its changelog, runtime/src/store_dump.c), never on the record
	 * path: what the store is ("table", "tumbling 10 ms, grace 5 ms",
	 * ...), the types of its keys (a window store's: the record key's,
	 * without the window) and values (a window store's: the aggregate's,
	 * after the window's timestamp), and the generated functions writing
	 * a key's or a value's bytes (in the store layouts below) as JSON.
	 * key_json and value_json are NULL for a store whose entries are not
	 * one key type and one value type (a join's own stores): its bytes
	 * are shown in base64.
	 */
	const char *what;
	const char *key_type;
	const char *value_type;
	stoat_store_json_fn key_json;
	stoat_store_json_fn value_json;
} stoat_store_desc;

/*
 * Source topics that must have as many partitions as each other (Kafka
 * Streams' copartitionGroups): the two sides of a join, since partition p
 * of one looks up partition p of the other.  The Kafka driver checks them
 * before it starts and creates the group's internal (repartition) topics
 * with the group's partition count.
 */
typedef struct stoat_copartition {
	const char *what;   /* "join at app.stoat:12", for the message */
	const int *sources; /* indices into app->sources */
	size_t source_count;
} stoat_copartition;

/*
 * A pre-aggregation step (runtime/src/preagg.c): the records a task would
 * write to repartition sink `sink` for the non-windowed aggregation of
 * table `name` are first combined per key, and each key's partial
 * aggregate (in the sink's value format) is written at the next commit
 * instead, with the largest timestamp of the records it combines.
 */
typedef struct stoat_preagg_desc {
	const char *name; /* the table it pre-aggregates for, for messages */
	int sink;         /* the repartition sink the partials go to */
} stoat_preagg_desc;

/* The constant table stoatc emits for one application. */
typedef struct stoat_app {
	const char *app_id;
	const char *source_file; /* the .stoat file, as given to stoatc */
	stoat_guarantee guarantee;
	int64_t commit_interval_ms;
	stoat_policy on_error; /* FAIL, SKIP or DLQ */
	const stoat_source *sources;
	size_t source_count;
	const stoat_sink *sinks;
	size_t sink_count;
	const char *dlq_topic; /* on_error == STOAT_POLICY_DLQ */
	const stoat_store_desc *stores;
	size_t store_count;
	const stoat_copartition *copartitions;
	size_t copartition_count;
	const stoat_preagg_desc *preaggs;
	size_t preagg_count;
	/* The topology as `stoatc graph` draws it (Graphviz DOT), for GET
	 * /topology?format=dot; NULL in tables not made by stoatc. */
	const char *topology_dot;
} stoat_app;

/* ------------------------------------------------------------------ */
/* Per-task context                                                    */
/* ------------------------------------------------------------------ */

/* Opaque to generated code; owned by the driver. */
typedef struct stoat_driver stoat_driver;

/* Counters kept per task, summed in the final summary. */
typedef struct stoat_counters {
	uint64_t records_in;
	uint64_t records_out;
	uint64_t records_failed;  /* per-record errors, whatever the policy */
	uint64_t records_skipped; /* failures the skip policy let through */
	uint64_t records_dead_lettered; /* failures written to a dead-letter topic */
	uint64_t records_dropped; /* ignored by design: a null key or value where one is needed */
	uint64_t records_late;    /* dropped from a window that had closed (once per window) */
} stoat_counters;

/*
 * What a pipeline runs in: one per task (sub-topology, partition).  Generated
 * code reads msg for record metadata, allocates from arena, encodes into
 * key_buf/value_buf, and reports failures through stoat_error().
 */
struct stoat_ctx {
	stoat_arena arena;
	stoat_buf key_buf;
	stoat_buf value_buf;
	const stoat_app *app;
	const stoat_source *source; /* the source feeding the running pipeline */
	const stoat_msg *msg;       /* the record being processed */
	stoat_driver *driver;
	stoat_counters counters;
	bool error;   /* set by stoat_error(); cleared per record */
	bool stopped; /* the fail policy tripped: the pipeline returns */
	char error_message[512];
	/*
	 * The driver gave up on this batch (a fenced producer, say): the
	 * record is not at fault, so no policy applies; the pipeline returns
	 * and the driver reprocesses from its last commit.
	 */
	bool abandoned;
	/*
	 * The event time of the record being processed: msg->timestamp
	 * (stoat_record_begin), or what the source's timestamp extractor
	 * gave, or (downstream of a windowed aggregation) the largest
	 * timestamp of the window's records.  Outputs (stoat_emit) and store
	 * updates carry it; a dead letter carries the input's own.
	 */
	int64_t timestamp;
	/* The task's pre-aggregation buffers, one per app->preaggs (preagg.c;
	 * NULL until the first record reaches one). */
	struct stoat_preagg *preaggs;
};

/*
 * Records a per-record failure with a printf-style message.  The first error
 * of a record wins; later ones (from the same expression) are ignored.
 */
void stoat_error(stoat_ctx *cx, const char *fmt, ...) STOAT_PRINTF(2, 3);

/*
 * Prefixes the record's error message with what failed ("key", "value"),
 * so "invalid JSON at byte 3" reads "value: invalid JSON at byte 3".
 */
void stoat_error_context(stoat_ctx *cx, const char *what);

/*
 * Called by generated code once a record has failed (cx->error set).  Applies
 * the source's policy: reports the error with the record's coordinates, then
 * counts and continues (returns true) or marks the task stopped (returns
 * false, and the pipeline returns at once).  Clears cx->error.
 */
bool stoat_record_failed(stoat_ctx *cx);

/*
 * Called by generated code for a record an operator ignores by design, as
 * Kafka Streams does (a null key for an aggregation or a table): counted
 * in the summary, and the first one is reported.  Not a failure.
 */
void stoat_record_dropped(stoat_ctx *cx, const char *why);

/*
 * Called by generated code when a record arrives for a window (or session)
 * that has closed: end + grace has passed stream time.  Counted apart from
 * stoat_record_dropped, once per window the record misses (as Kafka
 * Streams' dropped-records sensor counts), and the first one is reported.
 * Not a failure.
 */
void stoat_record_late(stoat_ctx *cx, const char *why);

/* Called by generated code at the start of each record. */
static inline void stoat_record_begin(stoat_ctx *cx, const stoat_msg *m)
{
	cx->msg = m;
	cx->timestamp = m->timestamp;
	cx->error = false;
	cx->counters.records_in++;
}

/*
 * Sends one record to sink `sink`.  topic overrides the sink's topic (for
 * per-record topic choice; ptr NULL otherwise).  key.ptr or value.ptr NULL
 * send a null key or value.  The timestamp is cx->timestamp, the headers
 * the record being processed's.  The bytes are copied before the call
 * returns.
 */
void stoat_emit(stoat_ctx *cx, int sink, stoat_str topic, stoat_str key, stoat_str value);

/*
 * Pre-aggregation before a repartition (app->preaggs[step]): instead of
 * emitting a record to the step's repartition sink, generated code folds
 * it into the partial aggregate of its key (key: the sink's key bytes)
 * kept in the task, and the driver writes every key's partial to the
 * sink at the next commit (stoat_preagg_flush), with the largest
 * timestamp among the records it combines.  stoat_preagg_count adds 1 to
 * the key's partial count (an i64 in Kafka's LongSerde bytes).
 * stoat_preagg_get gives the key's partial (the sink's value bytes; valid
 * until the next call on the step) and returns false when it has none;
 * stoat_preagg_put replaces it with a copy of `partial` (encoded outside
 * the buffer: cx->value_buf).  A full buffer
 * (STOAT_PREAGG_MAX_BYTES) is written out early.  Failures (a write out
 * that failed) are per-record errors.
 */
enum { STOAT_PREAGG_MAX_BYTES = 4 << 20 };
void stoat_preagg_count(stoat_ctx *cx, int step, stoat_str key);
bool stoat_preagg_get(stoat_ctx *cx, int step, stoat_str key, stoat_str *partial);
void stoat_preagg_put(stoat_ctx *cx, int step, stoat_str key, stoat_str partial);

/* ------------------------------------------------------------------ */
/* State stores                                                        */
/* ------------------------------------------------------------------ */

/*
 * Key-value state of the task running cx (its source and the record's
 * partition): each store keeps a separate map per partition, as Kafka
 * Streams keeps one store per task.  get copies the value into the arena
 * (so a later put cannot pull it away) and returns false when the key is
 * absent.  Failures are per-record errors.
 */
bool stoat_store_get(stoat_ctx *cx, int store, stoat_str key, stoat_str *value);

/*
 * Writes (or, for delete, removes) a key.  Returns true when the caller
 * passes the update downstream now; false when the store's record cache
 * holds it and passes it on later, collapsed with the key's other updates
 * since the last flush, through the store's flush function.  Both are
 * copied before the call returns.
 */
bool stoat_store_put(stoat_ctx *cx, int store, stoat_str key, stoat_str value);
bool stoat_store_delete(stoat_ctx *cx, int store, stoat_str key);
/*
 * A put that is never passed downstream: the store (and its changelog)
 * gets value, reads see it, but neither the caller nor the record cache's
 * flush passes it on (a flush passes on the key's newest put that was not
 * quiet, if there was one since the last flush).  For state kept only to
 * compute other updates (a sliding window that closed).  False after an
 * error.
 */
bool stoat_store_put_quiet(stoat_ctx *cx, int store, stoat_str key, stoat_str value);
/* A delete that is never passed downstream, as put_quiet (a table-table join's own sides). */
bool stoat_store_delete_quiet(stoat_ctx *cx, int store, stoat_str key);

/*
 * Foreign-key joins (KIP-213, runtime/src/fkjoin.c).  stoat_fk_hash: the
 * 64-bit hash of a left value's store bytes, sent with each subscription
 * and compared when the response comes back (Kafka Streams: murmur3-128
 * of the serialised value).  The subscriptions of one foreign key are the
 * value of one key of the join's store, a list sorted by primary-key
 * bytes: subscribe puts (or replaces) pk's entry, unsubscribe removes it
 * (both quietly: the store has no downstream; false after an error), and
 * stoat_fk_next reads the next entry of a list, advancing it (false at
 * its end).
 */
int64_t stoat_fk_hash(stoat_str value);
bool stoat_fk_subscribe(stoat_ctx *cx, int store, stoat_str key, stoat_str pk, bool has_hash, int64_t hash);
bool stoat_fk_unsubscribe(stoat_ctx *cx, int store, stoat_str key, stoat_str pk);
bool stoat_fk_next(stoat_str *list, stoat_str *pk, bool *has_hash, int64_t *hash);

/* ------------------------------------------------------------------ */
/* Time                                                                */
/* ------------------------------------------------------------------ */

/*
 * Stream time belongs to a windowed aggregation, as Kafka Streams'
 * observedStreamTime belongs to each window processor: the largest event
 * time among the records that reached that aggregation on this partition,
 * -1 before the first.  A record filtered out before the aggregation, or
 * dropped by it for a null key, does not move it.  It is kept with the
 * aggregation's window store (the state layer writes it to the store at
 * each flush where it moved), so it survives a restart and moves with the
 * task; unlike Kafka Streams, whose processors start again at -1.
 *
 * stoat_window_stream_time gives the stream time of window store `store`
 * for cx's record (NULL after an error: cx->error); generated code
 * advances it with stoat_observe_time before the record updates windows.
 */
int64_t *stoat_window_stream_time(stoat_ctx *cx, int store);

/*
 * A left or outer stream-stream join's tracker, kept with its shared
 * window store of unmatched records (`store`): [0] the join's stream time
 * (the largest time of any record either side's join processor saw, null
 * keys and values included), [1] the smallest time of an unmatched record
 * put since the last scan of the store.  Kafka Streams' TimeTracker: not
 * persisted, from -1 and INT64_MAX whenever the task's partition opens.
 */
int64_t *stoat_join_tracker(stoat_ctx *cx, int store);

/* Advances *stream_time to ts if ts is larger and returns the stream time
 * as it was before.  ts is the record's valid (non-negative) event time. */
static inline int64_t stoat_observe_time(int64_t *stream_time, int64_t ts)
{
	int64_t before = *stream_time;
	if (ts > before)
		*stream_time = ts;
	return before;
}

/* ------------------------------------------------------------------ */
/* Window and session stores                                           */
/* ------------------------------------------------------------------ */

/*
 * A window store (STOAT_STORE_WINDOW) holds one value per (key, window):
 * key is the record key in the store key layout (stoat_key_put_*), a
 * window is [start, end] in milliseconds as the window kind defines it
 * (time windows: end = start + size, exclusive; sliding windows and
 * sessions: inclusive).  Its keys in RocksDB, in the changelog and in
 * stoat_store_update.record.key are
 *
 *	01 | segment | key | end | start        segment = end / segment_ms
 *
 * (segment, end and start as stoat_key_put_i64), so one key's windows
 * are contiguous per segment and a segment expires as a range.  Keys
 * starting 00 are the store's own metadata (stream time; an
 * aggregation's "emitted up to"), which stoat_store_get/put read and
 * write like any key and expiry never touches: 00 "stream-time" (value:
 * the task's stream time, 8 bytes big-endian) belongs to the state layer,
 * which writes it at each flush where it moved (generated code must not
 * write it); other 00 keys are generated code's.  Metadata written with
 * stoat_store_put goes through the record cache, so it reaches the
 * store's flush function too: a flush function skips the keys
 * stoat_window_key_parse rejects.  Keys starting 02 (the time index) are
 * internal and never seen.  After each commit, windows ending below
 * stream time - retention_ms expire: no read returns them afterwards
 * (until the next commit, a window below the moving cut is still read).
 * Like stoat_store_*,
 * these work on the partition of the record being processed, through the
 * record cache, and report failures as per-record errors.
 */
bool stoat_window_get(stoat_ctx *cx, int store, stoat_str key, int64_t start, int64_t end, stoat_str *value);
/* Returns as stoat_store_put does: true when the caller passes the
 * update downstream now, false when the record cache holds it. */
bool stoat_window_put(stoat_ctx *cx, int store, stoat_str key, int64_t start, int64_t end, stoat_str value);
/* Puts a window as stoat_store_put_quiet puts a key: never passed downstream. */
bool stoat_window_put_quiet(stoat_ctx *cx, int store, stoat_str key, int64_t start, int64_t end, stoat_str value);
bool stoat_window_delete(stoat_ctx *cx, int store, stoat_str key, int64_t start, int64_t end);

/* Splits a window store key (stoat_store_update.record.key) into its
 * parts; false if it is not one. */
bool stoat_window_key_parse(stoat_str store_key, stoat_str *key, int64_t *start, int64_t *end);

/*
 * Ordered reads of a window store partition: the committed data, the
 * writes of the open commit interval and the record cache, merged (a
 * deleted window is not seen).  Keys and values are copied into
 * cx->arena.  The store read must not be written while its iterator is
 * open (collect first, then write); other stores may be.
 *
 * fetch_key: key's windows whose end is in [end_from, end_to], in end
 * (then start) order.  fetch_ended: every key's windows whose end is in
 * (end_after, end_upto], in end order, then key, then start; needs
 * time_index, or segment_ms equal to the windows' advance (time windows,
 * each segment then holds one end).
 */
typedef struct stoat_window_iter stoat_window_iter;
stoat_window_iter *stoat_window_fetch_key(stoat_ctx *cx, int store, stoat_str key, int64_t end_from, int64_t end_to);
stoat_window_iter *stoat_window_fetch_ended(stoat_ctx *cx, int store, int64_t end_after, int64_t end_upto);
/*
 * fetch_key for a session store: the same windows, read in a time
 * independent of how many windows the key's sessions deleted, by relying
 * on a key's sessions being disjoint (as session windows keep them).
 */
stoat_window_iter *stoat_session_fetch(stoat_ctx *cx, int store, stoat_str key, int64_t end_from, int64_t end_to);
/* The next window, or false at the end (or after an error: cx->error). */
bool stoat_window_next(stoat_window_iter *it, stoat_str *key, int64_t *start, int64_t *end, stoat_str *value);
void stoat_window_iter_close(stoat_window_iter *it);
/*
 * 1 + the largest start among key's windows ending at end, or 0 when it
 * has none: the arrival number of the next record a stream-stream join
 * keeps under (key, end), its windows being [arrival, timestamp].  In a
 * RocksDB store without the record cache (a join's) it reads their keys
 * only, so that many records of one key and time cost no copies.
 */
int64_t stoat_window_next_arrival(stoat_ctx *cx, int store, stoat_str key, int64_t end);

/*
 * Versioned tables (KIP-889/914, runtime/src/versioned.c): the versions of
 * each key in a window store of their own (`store`), kept for `history`
 * ms of the table's observed stream time (the largest accepted put time,
 * the window store's stream time).  stoat_versioned_put records key's
 * version from ts (value NULL: a tombstone); it returns
 * STOAT_VERSIONED_DROPPED when ts < observed - history (nothing stored),
 * STOAT_VERSIONED_LATEST when the version is the key's latest,
 * STOAT_VERSIONED_OLDER when a later one exists, and -1 after an error
 * (cx->error).  stoat_versioned_get finds key's value as of as_of: 1 and
 * *value (in cx->arena) when a value was valid then, 0 for none (a
 * tombstone, no version, or as_of < observed - history unless the key's
 * latest version is valid at as_of: it never expires), -1 after an error.
 */
enum { STOAT_VERSIONED_DROPPED = 0, STOAT_VERSIONED_LATEST = 1, STOAT_VERSIONED_OLDER = 2 };
int stoat_versioned_put(stoat_ctx *cx, int store, int64_t history, stoat_str key, int64_t ts, const stoat_str *value);
int stoat_versioned_get(stoat_ctx *cx, int store, int64_t history, stoat_str key, int64_t as_of, stoat_str *value);
/*
 * A stream-table join's grace buffer (KIP-923): the arrival number of the
 * next record put into window store `store` (0, 1, ...; kept in the store,
 * so it survives a restore), which orders records of equal timestamp and
 * key; -1 after an error.
 */
int64_t stoat_grace_next_arrival(stoat_ctx *cx, int store);

/*
 * A session a record merges with (generated code for session windows):
 * what stoat_session_fetch returned, collected in cx->arena and linked
 * in end order, so that the fetch's iterator is closed before the merged
 * sessions are deleted from its store.
 */
typedef struct stoat_session {
	struct stoat_session *next;
	int64_t start, end;
	stoat_str value;
} stoat_session;

/*
 * A window a stream-stream join fetched (generated code): a match in the
 * other side's store, or an unmatched record of the shared store (key
 * [side][key]), collected in cx->arena and linked in fetch order, so that
 * the iterator is closed before anything is passed downstream.
 */
typedef struct stoat_join_entry {
	struct stoat_join_entry *next;
	stoat_str key;
	int64_t start, end;
	stoat_str value;
} stoat_join_entry;

/*
 * Sliding windows (Kafka Streams' SlidingWindows, KIP-450): windows
 * [start, start + diff], inclusive, stored by generated code with the
 * value layout of time windows (largest timestamp, 8 bytes big-endian,
 * then the aggregate).  stoat_sliding_steps reads key's windows around a
 * record at t (a fetch, closed before it returns, so the caller may then
 * write the store) and plans which windows the record updates or creates,
 * in the order Kafka Streams 4.4's KStreamSlidingWindowAggregate does
 * (sliding.c says how); generated code then folds the record into each
 * (UPDATE: the window from, its value and timestamp; NEW: from the
 * initial aggregate; FROM: a new window starting from the aggregate of
 * window from, without its timestamp; COPY: a new window holding window
 * from's value and timestamp as they are, without the record).  The steps
 * and windows are in cx->arena.  A negative t is a per-record error.
 * stoat_sliding_plan is the planning alone, over windows in start order.
 */
typedef struct stoat_sliding_window {
	int64_t start;
	int64_t ts;      /* its largest record timestamp */
	stoat_str value; /* as stored: ts (8 bytes, checked), then the aggregate */
} stoat_sliding_window;

typedef enum stoat_sliding_kind {
	STOAT_SLIDING_UPDATE,
	STOAT_SLIDING_NEW,
	STOAT_SLIDING_FROM,
	STOAT_SLIDING_COPY,
} stoat_sliding_kind;

typedef struct stoat_sliding_step {
	int64_t start;
	const stoat_sliding_window *from; /* NULL for NEW */
	stoat_sliding_kind kind;
} stoat_sliding_step;

bool stoat_sliding_steps(stoat_ctx *cx, int store, stoat_str key, int64_t t, int64_t diff,
                         stoat_sliding_step **steps, size_t *nsteps);
void stoat_sliding_plan(stoat_arena *a, const stoat_sliding_window *windows, size_t n, int64_t t, int64_t diff,
                        stoat_sliding_step **steps, size_t *nsteps);

/*
 * Store key layout: order-preserving, so that the bytewise order of
 * encoded keys (RocksDB's) is the order of the values, field by field,
 * and range scans over a prefix work.  Integers are big-endian with the
 * sign bit flipped; doubles are ordered by their IEEE bits (negatives
 * inverted); strings and bytes escape 0x00 as 00 FF and end with 00 01, so
 * no encoded string is a prefix of another; a nullable value starts with
 * 00 (null, first) or 01.  Generated key encoders compose these.
 */
static inline void stoat_key_put_bool(stoat_buf *b, bool v)
{
	stoat_buf_putc(b, v ? 1 : 0);
}

static inline void stoat_key_put_u64_be(stoat_buf *b, uint64_t u)
{
	char bytes[8];
	for (int i = 0; i < 8; i++)
		bytes[i] = (char)(u >> (56 - 8 * i));
	stoat_buf_put(b, bytes, 8);
}

static inline void stoat_key_put_i64(stoat_buf *b, int64_t v)
{
	stoat_key_put_u64_be(b, (uint64_t)v ^ ((uint64_t)1 << 63));
}

static inline void stoat_key_put_i32(stoat_buf *b, int32_t v)
{
	uint32_t u = (uint32_t)v ^ ((uint32_t)1 << 31);
	char bytes[4] = { (char)(u >> 24), (char)(u >> 16), (char)(u >> 8), (char)u };
	stoat_buf_put(b, bytes, 4);
}

static inline void stoat_key_put_f64(stoat_buf *b, double v)
{
	uint64_t u;
	if (v == 0.0)
		v = 0.0; /* -0.0 and 0.0 are equal: one encoding */
	memcpy(&u, &v, sizeof u);
	u = (u >> 63) ? ~u : u ^ ((uint64_t)1 << 63);
	stoat_key_put_u64_be(b, u);
}

static inline void stoat_key_put_str(stoat_buf *b, stoat_str s)
{
	for (size_t i = 0; i < s.len; i++) {
		stoat_buf_putc(b, s.ptr[i]);
		if (s.ptr[i] == 0)
			stoat_buf_putc(b, (char)0xff);
	}
	stoat_buf_putc(b, 0);
	stoat_buf_putc(b, 1);
}

/* 00 for null, 01 before a present value. */
static inline void stoat_key_put_presence(stoat_buf *b, bool has)
{
	stoat_buf_putc(b, has ? 1 : 0);
}

/* ------------------------------------------------------------------ */
/* Store value layout, and reading stored keys and values back         */
/* ------------------------------------------------------------------ */

/*
 * Store value layout: compact rather than ordered (values are never
 * compared or scanned).  i32, i64, timestamp and duration are zigzag
 * varints (LEB128 of (v << 1) ^ (v >> 63)), so small magnitudes of either
 * sign take one byte; f64 is its 8 IEEE 754 bytes, little-endian; bool one
 * byte, 0 or 1; strings and bytes a varint length, then the bytes; a
 * nullable value a presence byte (0 null, 1 present), then the value; an
 * array a varint count, then the elements; a record its fields in
 * declaration order, without names or tags (a record without fields is
 * one 0 byte, so that every value takes at least one byte).  Generated
 * store_value_put_<type> functions compose these.  The bytes carry no type
 * information: only a program with the same types reads them back.
 */
static inline void stoat_val_put_varint(stoat_buf *b, uint64_t u)
{
	char bytes[10];
	size_t n = 0;
	while (u >= 0x80) {
		bytes[n++] = (char)(u | 0x80);
		u >>= 7;
	}
	bytes[n++] = (char)u;
	stoat_buf_put(b, bytes, n);
}

static inline void stoat_val_put_i64(stoat_buf *b, int64_t v)
{
	uint64_t sign = v < 0 ? UINT64_MAX : 0;
	stoat_val_put_varint(b, ((uint64_t)v << 1) ^ sign);
}

static inline void stoat_val_put_i32(stoat_buf *b, int32_t v)
{
	stoat_val_put_i64(b, v);
}

static inline void stoat_val_put_f64(stoat_buf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	char bytes[8];
	for (int i = 0; i < 8; i++)
		bytes[i] = (char)(u >> (8 * i));
	stoat_buf_put(b, bytes, 8);
}

static inline void stoat_val_put_bool(stoat_buf *b, bool v)
{
	stoat_buf_putc(b, v ? 1 : 0);
}

static inline void stoat_val_put_str(stoat_buf *b, stoat_str s)
{
	stoat_val_put_varint(b, s.len);
	stoat_buf_put(b, s.ptr, s.len);
}

/* 0 for null, 1 before a present value. */
static inline void stoat_val_put_presence(stoat_buf *b, bool has)
{
	stoat_buf_putc(b, has ? 1 : 0);
}

/* The number of elements of an array, before them. */
static inline void stoat_val_put_count(stoat_buf *b, size_t n)
{
	stoat_val_put_varint(b, n);
}

/* A record without fields: one 0 byte. */
static inline void stoat_val_put_empty(stoat_buf *b)
{
	stoat_buf_putc(b, 0);
}

/*
 * A cursor over stored bytes: a store value (stoat_val_get_*) or a store
 * key (stoat_key_get_*).  Every getter returns false, without recording
 * an error, when the bytes are cut short or cannot have been written by
 * the matching put; the generated reader reports it.  Strings and bytes
 * are slices of the input, not copies (except keys with escaped 00 bytes,
 * decoded into the arena).
 */
typedef struct stoat_val_reader {
	const char *p;
	const char *end;
} stoat_val_reader;

static inline stoat_val_reader stoat_val_reader_of(stoat_str s)
{
	stoat_val_reader r = { s.ptr, s.ptr ? s.ptr + s.len : s.ptr };
	return r;
}

/* True when every byte was read: a whole value, nothing after it. */
static inline bool stoat_val_end(const stoat_val_reader *r)
{
	return r->p == r->end;
}

static inline bool stoat_val_get_varint(stoat_val_reader *r, uint64_t *out)
{
	uint64_t u = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p == r->end)
			return false;
		unsigned char c = (unsigned char)*r->p++;
		if (shift == 63 && c > 1)
			return false; /* more than 64 bits */
		u |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = u;
			return true;
		}
	}
	return false;
}

static inline bool stoat_val_get_i64(stoat_val_reader *r, int64_t *out)
{
	uint64_t u;
	if (!stoat_val_get_varint(r, &u))
		return false;
	*out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return true;
}

static inline bool stoat_val_get_i32(stoat_val_reader *r, int32_t *out)
{
	int64_t v;
	if (!stoat_val_get_i64(r, &v) || v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

static inline bool stoat_val_get_f64(stoat_val_reader *r, double *out)
{
	if (r->end - r->p < 8)
		return false;
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)(unsigned char)r->p[i] << (8 * i);
	r->p += 8;
	memcpy(out, &u, sizeof u);
	return true;
}

/* A byte that must be 0 or 1 (bools, presence bytes). */
static inline bool stoat_val_get_bit(stoat_val_reader *r, bool *out)
{
	if (r->p == r->end || (unsigned char)*r->p > 1)
		return false;
	*out = *r->p++ == 1;
	return true;
}

static inline bool stoat_val_get_bool(stoat_val_reader *r, bool *out)
{
	return stoat_val_get_bit(r, out);
}

static inline bool stoat_val_get_presence(stoat_val_reader *r, bool *has)
{
	return stoat_val_get_bit(r, has);
}

static inline bool stoat_val_get_str(stoat_val_reader *r, stoat_str *out)
{
	uint64_t n;
	if (!stoat_val_get_varint(r, &n) || n > (uint64_t)(r->end - r->p))
		return false;
	out->ptr = r->p;
	out->len = (size_t)n;
	r->p += n;
	return true;
}

static inline bool stoat_val_get_empty(stoat_val_reader *r)
{
	bool one;
	return stoat_val_get_bit(r, &one) && !one;
}

/* An array's element count; never more than the bytes left, since every
 * element takes at least one. */
static inline bool stoat_val_get_count(stoat_val_reader *r, size_t *out)
{
	uint64_t n;
	if (!stoat_val_get_varint(r, &n) || n > (uint64_t)(r->end - r->p))
		return false;
	*out = (size_t)n;
	return true;
}

/*
 * A grouped table's changes (group_by on a table) go through an internal
 * topic as records whose value is a change rather than a value: a flags
 * byte, then the value to subtract from the key's group (when
 * STOAT_CHANGE_OLD is set) and the value to add to it (STOAT_CHANGE_NEW),
 * each in the store value layout.  A change of a table row whose group
 * stays the same may carry both; one that moves it sends each to its own
 * group's key.
 */
enum { STOAT_CHANGE_OLD = 1, STOAT_CHANGE_NEW = 2 };

static inline void stoat_change_put_flags(stoat_buf *b, unsigned flags)
{
	stoat_buf_putc(b, (char)flags);
}

/* The flags byte: one or both of the two flags, nothing else. */
static inline bool stoat_change_get_flags(stoat_val_reader *r, unsigned *flags)
{
	if (r->p == r->end)
		return false;
	unsigned f = (unsigned char)*r->p;
	if (f == 0 || f > (STOAT_CHANGE_OLD | STOAT_CHANGE_NEW))
		return false;
	r->p++;
	*flags = f;
	return true;
}

/*
 * Inverses of the store key layout (stoat_key_put_*), for code that gets
 * a store's keys back as bytes (a store's flush function, range scans).
 */
static inline bool stoat_key_get_u64_be(stoat_val_reader *r, uint64_t *out)
{
	if (r->end - r->p < 8)
		return false;
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | (unsigned char)r->p[i];
	r->p += 8;
	*out = u;
	return true;
}

static inline bool stoat_key_get_i64(stoat_val_reader *r, int64_t *out)
{
	uint64_t u;
	if (!stoat_key_get_u64_be(r, &u))
		return false;
	u ^= (uint64_t)1 << 63;
	memcpy(out, &u, sizeof u);
	return true;
}

static inline bool stoat_key_get_i32(stoat_val_reader *r, int32_t *out)
{
	if (r->end - r->p < 4)
		return false;
	const unsigned char *p = (const unsigned char *)r->p;
	uint32_t u = ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]) ^ ((uint32_t)1 << 31);
	r->p += 4;
	memcpy(out, &u, sizeof u);
	return true;
}

static inline bool stoat_key_get_f64(stoat_val_reader *r, double *out)
{
	uint64_t u;
	if (!stoat_key_get_u64_be(r, &u))
		return false;
	u = (u >> 63) ? u ^ ((uint64_t)1 << 63) : ~u;
	memcpy(out, &u, sizeof u);
	return true;
}

static inline bool stoat_key_get_bool(stoat_val_reader *r, bool *out)
{
	return stoat_val_get_bit(r, out);
}

static inline bool stoat_key_get_presence(stoat_val_reader *r, bool *has)
{
	return stoat_val_get_bit(r, has);
}

/* Before each array element 01 (*more true), after the last 00. */
static inline bool stoat_key_get_array_next(stoat_val_reader *r, bool *more)
{
	return stoat_val_get_bit(r, more);
}

/*
 * A string or bytes up to its 00 01 terminator.  Without escaped 00 bytes
 * (00 FF) the result is a slice of the key; with them it is unescaped into
 * the arena.
 */
static inline bool stoat_key_get_str(stoat_val_reader *r, stoat_arena *a, stoat_str *out)
{
	size_t escapes = 0;
	const char *q = r->p;
	for (;;) {
		if (q == r->end)
			return false;
		if (*q++ != 0)
			continue;
		if (q == r->end)
			return false;
		if (*q == 1)
			break;
		if ((unsigned char)*q != 0xff)
			return false;
		escapes++;
		q++;
	}
	size_t len = (size_t)(q - 1 - r->p) - escapes;
	if (escapes == 0) {
		out->ptr = r->p;
	} else {
		char *s = stoat_arena_alloc(a, len);
		size_t n = 0;
		for (const char *s_in = r->p; n < len; s_in++) {
			s[n++] = *s_in;
			if (*s_in == 0)
				s_in++; /* the FF after an escaped 00 */
		}
		out->ptr = s;
	}
	out->len = len;
	r->p = q + 1;
	return true;
}

/* ------------------------------------------------------------------ */
/* Decoding helpers for generated serdes                               */
/* ------------------------------------------------------------------ */

/*
 * A JSON reader over one message.  Strings without escapes are returned as
 * slices of the input; strings with escapes are decoded into the arena.
 * Every function returns false after recording a per-record error (with the
 * byte offset) through stoat_error().
 */
typedef struct stoat_json {
	const char *start;
	const char *p;
	const char *end;
	stoat_ctx *cx;
	int depth;
} stoat_json;

static inline void stoat_json_init(stoat_json *j, stoat_ctx *cx, stoat_str s)
{
	j->start = s.ptr;
	j->p = s.ptr;
	j->end = s.ptr + s.len;
	j->cx = cx;
	j->depth = 0;
}

/* Skips JSON whitespace.  All four bytes are <= ' ', so the usual case,
 * a value or a delimiter next, costs one comparison. */
static inline void stoat_json_ws(stoat_json *j)
{
	while (j->p < j->end && (unsigned char)*j->p <= ' ' &&
	       (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
		j->p++;
}

/* Consumes "null" if it is next and returns true; otherwise consumes nothing. */
static inline bool stoat_json_null(stoat_json *j)
{
	stoat_json_ws(j);
	if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
		j->p += 4;
		return true;
	}
	return false;
}

bool stoat_json_fail(stoat_json *j, const char *what);
/* Consumes '{'. */
bool stoat_json_object_begin(stoat_json *j);
/*
 * Advances to the next member: stores its name and consumes the ':'.
 * Returns false at the closing '}' (consumed) and on error; tell them apart
 * with j->cx->error.  *first must start true.
 */
bool stoat_json_object_next(stoat_json *j, bool *first, stoat_str *name);
/* Consumes '['. */
bool stoat_json_array_begin(stoat_json *j);
/* Like stoat_json_object_next for array elements. */
bool stoat_json_array_next(stoat_json *j, bool *first);
bool stoat_json_string(stoat_json *j, stoat_str *out);
bool stoat_json_i32(stoat_json *j, int32_t *out);
bool stoat_json_i64(stoat_json *j, int64_t *out);
bool stoat_json_f64(stoat_json *j, double *out);
bool stoat_json_bool(stoat_json *j, bool *out);
/* Skips one value of any kind (unknown fields). */
bool stoat_json_skip(stoat_json *j);
/* Succeeds when only whitespace is left. */
bool stoat_json_end(stoat_json *j);
/* Reports a missing non-nullable field; always returns false. */
bool stoat_json_missing(stoat_json *j, const char *type, const char *field);

/* Fixed-width big-endian values (Kafka's Integer/Long/Double serdes). */
bool stoat_decode_be32(stoat_ctx *cx, stoat_str s, int32_t *out);
bool stoat_decode_be64(stoat_ctx *cx, stoat_str s, int64_t *out);
bool stoat_decode_be_f64(stoat_ctx *cx, stoat_str s, double *out);

/*
 * Growable arrays built in the arena (decoded JSON arrays, flat_map
 * results).  Elements are elem_size bytes; the backing store moves as it
 * grows, so take pointers only once the array is complete.
 */
typedef struct stoat_vec {
	void *data;
	size_t len;
	size_t cap;
} stoat_vec;

void *stoat_vec_push_slow(stoat_arena *a, stoat_vec *v, size_t elem_size);

/* Returns a pointer to a new, uninitialised last element. */
static inline void *stoat_vec_push(stoat_arena *a, stoat_vec *v, size_t elem_size)
{
	if (STOAT_LIKELY(v->len < v->cap))
		return (char *)v->data + elem_size * v->len++;
	return stoat_vec_push_slow(a, v, elem_size);
}

/* ------------------------------------------------------------------ */
/* Checked arithmetic (overflow and division are per-record errors)    */
/* ------------------------------------------------------------------ */

void stoat_error_overflow(stoat_ctx *cx, const char *op);
void stoat_error_div_zero(stoat_ctx *cx);

#define STOAT_CHECKED_INT(T, NAME)                                                      \
	static inline T stoat_add_##NAME(stoat_ctx *cx, T a, T b)                      \
	{                                                                               \
		T r;                                                                    \
		if (STOAT_UNLIKELY(__builtin_add_overflow(a, b, &r))) {                 \
			stoat_error_overflow(cx, "+");                                  \
			return 0;                                                       \
		}                                                                       \
		return r;                                                               \
	}                                                                               \
	static inline T stoat_sub_##NAME(stoat_ctx *cx, T a, T b)                      \
	{                                                                               \
		T r;                                                                    \
		if (STOAT_UNLIKELY(__builtin_sub_overflow(a, b, &r))) {                 \
			stoat_error_overflow(cx, "-");                                  \
			return 0;                                                       \
		}                                                                       \
		return r;                                                               \
	}                                                                               \
	static inline T stoat_mul_##NAME(stoat_ctx *cx, T a, T b)                      \
	{                                                                               \
		T r;                                                                    \
		if (STOAT_UNLIKELY(__builtin_mul_overflow(a, b, &r))) {                 \
			stoat_error_overflow(cx, "*");                                  \
			return 0;                                                       \
		}                                                                       \
		return r;                                                               \
	}                                                                               \
	static inline T stoat_div_##NAME(stoat_ctx *cx, T a, T b)                      \
	{                                                                               \
		if (STOAT_UNLIKELY(b == 0)) {                                           \
			stoat_error_div_zero(cx);                                       \
			return 0;                                                       \
		}                                                                       \
		if (STOAT_UNLIKELY(b == -1)) {                                          \
			/* MIN / -1 overflows; (1 << 31) would be UB, so ask the   */  \
			/* compiler whether 0 - a overflows instead.               */  \
			T r;                                                            \
			if (__builtin_sub_overflow((T)0, a, &r)) {                      \
				stoat_error_overflow(cx, "/");                          \
				return 0;                                               \
			}                                                               \
			return r;                                                       \
		}                                                                       \
		return a / b;                                                           \
	}                                                                               \
	static inline T stoat_mod_##NAME(stoat_ctx *cx, T a, T b)                      \
	{                                                                               \
		if (STOAT_UNLIKELY(b == 0)) {                                           \
			stoat_error_div_zero(cx);                                       \
			return 0;                                                       \
		}                                                                       \
		if (STOAT_UNLIKELY(b == -1))                                            \
			return 0;                                                       \
		return a % b;                                                           \
	}                                                                               \
	static inline T stoat_neg_##NAME(stoat_ctx *cx, T a)                           \
	{                                                                               \
		T r;                                                                    \
		if (STOAT_UNLIKELY(__builtin_sub_overflow((T)0, a, &r))) {              \
			stoat_error_overflow(cx, "-");                                  \
			return 0;                                                       \
		}                                                                       \
		return r;                                                               \
	}

STOAT_CHECKED_INT(int32_t, i32)
STOAT_CHECKED_INT(int64_t, i64)

/* Float division by zero is an error too (it would produce inf or NaN). */
static inline double stoat_div_f64(stoat_ctx *cx, double a, double b)
{
	if (STOAT_UNLIKELY(b == 0.0)) {
		stoat_error_div_zero(cx);
		return 0.0;
	}
	return a / b;
}

/* Concatenates two strings into the arena. */
stoat_str stoat_str_concat(stoat_ctx *cx, stoat_str a, stoat_str b);

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

/*
 * The generated main() calls this.  Parses the command line, picks the
 * driver, runs the application and returns the process exit status
 * (see STOAT_EXIT_*).
 */
int stoat_main(const stoat_app *app, int argc, char **argv);

enum {
	STOAT_EXIT_OK = 0,
	STOAT_EXIT_RECORD_FAILED = 1, /* the fail policy stopped the app */
	STOAT_EXIT_USAGE = 2,         /* bad command line or configuration */
	STOAT_EXIT_IO = 3,            /* unreadable input, unwritable output; a fatal Kafka error */
	STOAT_EXIT_STATE = 4,         /* run: the state directory cannot be used (locked by another
				       * process, not creatable, its database not openable), or a
				       * checkpoint is above its changelog's end (--on-state-mismatch) */
};

#ifdef __cplusplus
}
#endif

#endif /* STOAT_RUNTIME_H */
