/*
 * http.h - the operations endpoint of `run`: an HTTP server on its own
 * thread (libmicrohttpd) answering health and readiness probes,
 * Prometheus scrapes, and requests to pause and resume the sources.
 *
 * The stream thread never waits for it.  It fills a snapshot of its
 * counters (stoat_http_stats) at most every STOAT_HTTP_PUBLISH_MS, and
 * hands it over by swapping buffers (stoat_http_publish); the server
 * renders pages from the snapshot it was last given.  What the record
 * path counts stays in the stream thread's own counters (stoat_counters
 * per task, the driver's per-sink counts): no atomics, no locks per
 * record.  Requests to pause or resume come back the other way, as flags
 * the stream thread looks at once per loop (stoat_http_paused_wanted).
 *
 * The pages (http_pages.c) are functions of the snapshot and the run's
 * fixed facts (stoat_http_info), with no socket: unit tests call
 * stoat_http_route directly.  Layering: below kafka_impl.h, above
 * driver.h; nothing here knows librdkafka.
 */
#ifndef STOAT_RUNTIME_HTTP_H
#define STOAT_RUNTIME_HTTP_H

#include "driver.h"
#include "state.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How often the stream thread hands the server a new snapshot. */
#define STOAT_HTTP_PUBLISH_MS 100

/* The stream thread counts as alive while it has published within this. */
#define STOAT_HTTP_LIVE_MS 60000

/* How often the stores' figures (RocksDB properties) are read again. */
#define STOAT_HTTP_STATE_MS 1000

/* ------------------------------------------------------------------ */
/* Histograms                                                          */
/* ------------------------------------------------------------------ */

/* Upper bounds of the buckets, in seconds (one more bucket: +Inf). */
#define STOAT_HISTOGRAM_BUCKETS 16
extern const double stoat_histogram_bounds[STOAT_HISTOGRAM_BUCKETS];

/* A latency histogram: counts per bucket (not cumulative), their sum. */
typedef struct stoat_histogram {
	uint64_t counts[STOAT_HISTOGRAM_BUCKETS + 1];
	uint64_t count;
	double sum;
} stoat_histogram;

/* Adds one observation of `seconds` (negative counts as 0). */
void stoat_histogram_observe(stoat_histogram *h, double seconds);

/* ------------------------------------------------------------------ */
/* The snapshot                                                        */
/* ------------------------------------------------------------------ */

/* One source of the application (app->sources[i]). */
typedef struct stoat_http_source {
	stoat_counters counters;        /* its task's counters (records in: its input) */
	bool paused;                    /* paused by POST /pause and not resumed */
	stoat_histogram batch_seconds;  /* time its pipeline took per run of records */
} stoat_http_source;

/* One sink of the application (app->sinks[i]). */
typedef struct stoat_http_sink {
	uint64_t produced;              /* records handed to the producer */
	stoat_histogram e2e_seconds;    /* record timestamp to produce, wall clock */
} stoat_http_sink;

/* An assigned partition.  Offsets are -1 when not known. */
typedef struct stoat_http_partition {
	size_t source;      /* index into app->sources (its topic) */
	int32_t partition;
	int64_t committed;  /* the group's committed offset: the last commit, or read at assignment */
	int64_t position;   /* the offset of the next record to process */
	int64_t end;        /* the partition's end (high watermark, or last stable offset) */
	bool paused;
} stoat_http_partition;

/* Lag of a partition: end - position, or -1 when either is not known. */
int64_t stoat_http_partition_lag(const stoat_http_partition *p);

/* A store partition being restored. */
typedef struct stoat_http_restore {
	int store;          /* index into app->stores */
	int32_t partition;
	int64_t from;       /* its checkpoint, or the changelog's start */
	int64_t end;        /* the changelog's end when the restore began */
	int64_t position;   /* the offset after the last record applied */
	uint64_t restored;  /* records applied so far */
} stoat_http_restore;

/* A broker as a client's librdkafka statistics describe it. */
#define STOAT_HTTP_MAX_BROKERS 16
typedef struct stoat_http_broker {
	char name[96];       /* librdkafka's: "host:port/node id" */
	bool up;             /* its state is UP */
	double rtt_seconds;  /* the average round trip of the last interval */
} stoat_http_broker;

/* What one client's last librdkafka statistics said (statistics.interval.ms). */
typedef struct stoat_http_client {
	bool known;                  /* statistics have come */
	int64_t queue_messages;      /* msg_cnt: waiting in the producer queue */
	int64_t queue_bytes;         /* msg_size */
	int64_t sent_bytes;          /* tx_bytes, to all brokers */
	int64_t received_bytes;      /* rx_bytes */
	int64_t fetch_queue_messages; /* the partitions' fetchq_cnt, summed (consumer) */
	size_t broker_count;         /* brokers with a node id (bootstrap entries aside) */
	stoat_http_broker brokers[STOAT_HTTP_MAX_BROKERS];
} stoat_http_client;

/*
 * Reads librdkafka's statistics JSON into *out; false (out unchanged
 * but for what was read) when it is not what librdkafka writes.
 */
bool stoat_http_parse_librdkafka_stats(stoat_str json, stoat_http_client *out);

/* The stream thread's state, for readiness and the pages. */
typedef enum stoat_http_phase {
	STOAT_HTTP_STARTING = 0, /* before the group's first assignment */
	STOAT_HTTP_RESTORING,    /* restoring stores of assigned partitions */
	STOAT_HTTP_RUNNING,
	STOAT_HTTP_STOPPING,
} stoat_http_phase;

/* What the stream thread publishes (see the file comment). */
typedef struct stoat_http_stats {
	stoat_http_phase phase;
	int64_t published_ms;            /* stoat_now_ms() when filled */
	stoat_http_source *sources;      /* app->source_count of them */
	stoat_http_sink *sinks;          /* app->sink_count of them */
	stoat_http_partition *partitions;
	size_t partition_count, partition_cap;
	uint64_t commits;
	uint64_t aborts;                 /* transactions aborted */
	uint64_t fencings;               /* the producer was fenced */
	uint64_t rebalances;             /* assignments and revocations */
	uint64_t delivery_failures;
	uint64_t restored_records;       /* changelog records applied while restoring */
	stoat_histogram commit_seconds;  /* a commit, or a transaction's commit */
	bool has_state;                  /* the app has stores: what follows is set */
	stoat_store_usage *stores;       /* the open store partitions */
	size_t store_count, store_cap;
	stoat_state_usage state;         /* the record cache, RocksDB */
	stoat_http_restore *restores;    /* the restores under way */
	size_t restore_count, restore_cap;
	stoat_http_client producer, consumer; /* librdkafka's statistics */
} stoat_http_stats;

/* Makes room for n partitions, stores or restores in s (the stream
 * thread's own buffer). */
void stoat_http_stats_reserve(stoat_http_stats *s, size_t n);
void stoat_http_stats_reserve_stores(stoat_http_stats *s, size_t n);
void stoat_http_stats_reserve_restores(stoat_http_stats *s, size_t n);

/* ------------------------------------------------------------------ */
/* The run's fixed facts                                               */
/* ------------------------------------------------------------------ */

typedef struct stoat_http_info {
	const stoat_app *app;
	const char *instance_id;        /* as given, or the random one */
	const char *bootstrap_servers;
	stoat_guarantee guarantee;      /* the effective one: the program's, or the setting that overrides it */
	int64_t started_unix_ms;        /* wall clock at start-up */
	int64_t started_ms;             /* stoat_now_ms() then */
	int64_t ready_max_lag;          /* ready only within this total lag; -1: no limit */
	const char *config_json;        /* GET /config: the effective settings, secrets masked */
} stoat_http_info;

/* ------------------------------------------------------------------ */
/* Pages (http_pages.c)                                                */
/* ------------------------------------------------------------------ */

/* A request to the stream thread that a page asks for. */
typedef enum stoat_http_control {
	STOAT_HTTP_CONTROL_NONE = 0,
	STOAT_HTTP_CONTROL_PAUSE,
	STOAT_HTTP_CONTROL_RESUME,
} stoat_http_control;

/* A page: its status, type and body; and what it asks of the stream thread. */
typedef struct stoat_http_response {
	unsigned status;
	const char *content_type;
	stoat_buf body;
	const char *allow;              /* 405: the methods the path takes */
	stoat_http_control control;
	size_t control_source;          /* SIZE_MAX: every source */
} stoat_http_response;

/*
 * Answers one request: method ("GET", "POST", ...), path (no query),
 * the values of the query's `source` and `format` parameters (NULL when
 * absent) and the Accept header (NULL: none).  s is NULL until the
 * stream thread has published once; now_ms is stoat_now_ms().  Fills
 * out (its body initialised by the caller); never fails.
 */
void stoat_http_route(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, const char *method,
		      const char *path, const char *source, const char *format, const char *accept,
		      stoat_http_response *out);

/*
 * Readiness: the group's first assignment has come (an empty one
 * counts), no store is being restored, the stream thread is alive and
 * not stopping, and the total lag is within info->ready_max_lag (when
 * set).  When not ready, why
 * says why in a sentence.
 */
bool stoat_http_ready(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, char *why,
		      size_t why_len);

/* ------------------------------------------------------------------ */
/* The server (http.c)                                                 */
/* ------------------------------------------------------------------ */

typedef struct stoat_http stoat_http;

/*
 * Parses an `http` setting: "off", "PORT" (on 127.0.0.1) or
 * "ADDRESS:PORT" (an IPv4 address; "[ADDRESS]:PORT" for IPv6); port 0
 * picks a free one.  *port is -1 for off.  False when it is neither.
 */
bool stoat_http_parse_listen(const char *value, char *address, size_t address_len, int *port);

/*
 * Starts the server on address:port with its own thread; info must
 * outlive it.  NULL with the reason in err (the port is taken, say).
 */
stoat_http *stoat_http_start(const stoat_http_info *info, const char *address, int port, char *err, size_t errlen);

/* The port it listens on (the one picked, for port 0). */
int stoat_http_port(const stoat_http *h);

/* The stream thread's buffer to fill before stoat_http_publish. */
stoat_http_stats *stoat_http_scratch(stoat_http *h);

/*
 * Hands the filled buffer to the server (the two swap) unless a request
 * is being answered from the last one; then the stream thread keeps its
 * buffer and tries again next time.  Never blocks.
 */
void stoat_http_publish(stoat_http *h);

/* Bumped by every pause or resume request: the stream thread compares. */
unsigned stoat_http_control_generation(const stoat_http *h);

/* Whether source i should be paused, as the requests so far say. */
bool stoat_http_paused_wanted(const stoat_http *h, size_t source);

/* Stops the server and frees it (NULL: nothing). */
void stoat_http_stop(stoat_http *h);

#endif /* STOAT_RUNTIME_HTTP_H */
