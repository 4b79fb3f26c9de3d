/*
 * kafka_impl.h - what the files of the Kafka driver share: the driver's
 * state and the functions one file offers the others.  The driver is
 * one stream thread (see kafka_run.c); its files are
 *
 *   kafka_client.c     client set-up: properties, callbacks, producer,
 *                      consumer, changelog reader, topic handles, the log
 *   kafka_commit.c     commits, transactions, aborts, the fenced producer
 *   kafka_rebalance.c  assignment and revocation, restoring the stores
 *   kafka_rebuild.c    rebuilding a changelog from the local state
 *   kafka_produce.c    producing records: the driver's operations
 *   kafka_admin.c      internal topics: creation, purging consumed records
 *   kafka_ids.c        the names made at start-up: the transactional id
 *   kafka_run.c        `run`: start-up, the poll loop, shutdown
 *   kafka_order.c      tasks of several partitions: smallest timestamp first
 *   kafka_tools.c      `load` and `dump`
 *   kafka_http.c       the operations endpoint: snapshots, pause/resume
 *
 * Only kafka_*.c include this header (it pulls in librdkafka's).
 */
#ifndef STOAT_RUNTIME_KAFKA_IMPL_H
#define STOAT_RUNTIME_KAFKA_IMPL_H

#include "http.h"
#include "kafka.h"
#include "log.h"
#include "state.h"

#include <librdkafka/rdkafka.h>
#include <signal.h>

typedef struct stoat_kafka stoat_kafka;

/* A partition this instance has been assigned. */
typedef struct kafka_partition {
	char *topic;
	int32_t partition;
	size_t source;       /* index into app->sources */
	int64_t next_offset; /* the offset after the last record processed; -1: none yet */
	int64_t committed;   /* next_offset as of the last commit; -1: none */
	bool assigned;
	/*
	 * A partition of a task with more than one source partition
	 * (kafka_order.c) has a queue of its own, not forwarded to the
	 * consumer queue, and holds the records taken from it until the task
	 * runs them, smallest timestamp first.
	 */
	rd_kafka_queue_t *queue;     /* NULL: its records come in the consumer queue's batches */
	rd_kafka_message_t **held;   /* held[held_head..held_len): taken, not processed */
	size_t held_head, held_len, held_cap;
	bool at_end;                 /* its end was reached after the last record taken: lag 0 */
	bool idling;                 /* at its end with nothing held, since ... */
	int64_t idle_deadline_ms;    /* ... and holding the task up until then (max_task_idle) */
	int64_t group_committed;     /* the group's offset read at assignment (endpoint on; -1: none) */
	bool paused;                 /* paused for POST /pause (kafka_http.c) */
	int64_t paused_end;          /* while paused: its end as last asked of the broker (-1: not yet) */
	int64_t paused_end_ms;       /* when */
} kafka_partition;

/* One store partition being restored (kafka_rebalance.c). */
typedef struct kafka_restore_job {
	stoat_store_part *part;
	const char *topic; /* its changelog */
	int64_t from, end; /* checkpoint (or the start) and high watermark */
	bool done;
} kafka_restore_job;

/* The Kafka driver's state: stoat_driver first (see STOAT_CONTAINER_OF). */
struct stoat_kafka {
	stoat_driver driver;
	const stoat_app *app;
	const stoat_kafka_options *opt;
	rd_kafka_t *consumer;
	rd_kafka_t *producer;
	rd_kafka_queue_t *queue;
	rd_kafka_queue_t *internal_queue; /* the repartition topics' records */
	rd_kafka_topic_t **sink_topics; /* per sink with a fixed topic */
	stoat_ctx *tasks;                /* one context per source */
	bool *ordered;                   /* per source: its task has other sources (kafka_order.c) */
	size_t ordered_count;            /* assigned partitions of those sources, at the last poll */
	kafka_partition **members;       /* scratch: one task's partitions (kafka_order.c) */
	size_t members_cap;
	kafka_partition *parts;
	size_t part_count, part_cap;
	rd_kafka_message_t **rkmsgs;
	stoat_msg *batch;
	bool eos;
	bool in_txn;
	bool failed;        /* the fail policy stopped the app: commit nothing */
	bool fatal;         /* a fatal Kafka error: commit nothing */
	bool state_mismatch; /* a checkpoint did not match its changelog: exit STOAT_EXIT_STATE */
	bool dirty;         /* progress since the last commit */
	int64_t last_commit_ms;
	int64_t last_input_ms;
	int64_t last_warn_ms;
	char *transactional_id; /* <app id>-<instance or random id> (kafka_ids.c) */
	char delivery_error[512]; /* the first delivery error since the last commit or abort */
	uint64_t delivery_failures; /* delivery errors of the run (kafka_delivery_report) */
	int64_t last_delivery_failure_ms; /* when the last one came (0: none) */
	char last_delivery_error[512];     /* and what it said */
	uint64_t commits;
	uint64_t aborts;
	bool fenced;            /* the producer was fenced: replace it */
	int64_t fenced_at[3];   /* when the last fencings happened */
	uint64_t fencings;
	const char *prog;
	stoat_state *state;                  /* the app's stores (NULL: none) */
	rd_kafka_topic_t **changelog_topics; /* per store */
	rd_kafka_t *restorer;                /* reads changelogs on assignment */
	struct stoat_global *global;         /* the global tables' reader (global.h), or NULL */
	char *state_path;                    /* <state dir>/<app id>/<instance>, or NULL */
	rd_kafka_t *offsets_reader;          /* changelogs' high watermarks (kafka_rebalance.c) */
	rd_kafka_queue_t *purge_results;     /* answers to DeleteRecords */
	int64_t last_purge_ms;
	int purges_in_flight;
	int64_t started_ms;       /* for the start-up time in the log */
	bool first_output_logged;
	bool subscribed;          /* the consumer joins the group */
	bool rebalanced;          /* the rebalance callback has run (see close_consumer) */
	bool one_off;             /* load: deliveries time out instead of retrying forever */
	int64_t idle_next_check_ms;  /* --idle-exit: when to look at the other partitions again */
	int64_t idle_wait_since_ms;  /* since when they had unprocessed records and no progress (0: not) */
	int64_t idle_wait_committed; /* their committed offsets' sum then */
	struct kafka_waker *waker;   /* wakes librdkafka's fetcher (kafka_wake.c), or NULL */
	/* The operations endpoint (kafka_http.c); http NULL when it is off. */
	stoat_http *http;
	stoat_http_info http_info;
	char *http_config_json;
	int64_t http_published_ms;
	unsigned http_generation;      /* the pause/resume requests applied */
	bool *source_paused;           /* per source */
	stoat_http_phase phase;
	uint64_t *sink_produced;       /* per sink: records handed to the producer */
	stoat_histogram *sink_e2e;     /* per sink: timestamp to produce (endpoint on) */
	stoat_histogram *batch_seconds; /* per source: a pipeline run (endpoint on) */
	stoat_histogram commit_seconds;
	uint64_t rebalances;
	uint64_t restored_records;
	int64_t wall_ms;               /* the wall clock at the batch's start (endpoint on) */
	const kafka_restore_job *restoring; /* the restore under way (kafka_rebalance.c), or NULL */
	size_t restoring_count;
	stoat_store_usage *store_usage;     /* the stores' figures, read every STOAT_HTTP_STATE_MS */
	size_t store_usage_count, store_usage_cap;
	stoat_state_usage state_usage;
	int64_t state_usage_ms;
	bool state_usage_restoring;         /* read during a restore: read again as soon as it is over */
	stoat_http_client producer_stats, consumer_stats; /* librdkafka's (endpoint on) */
	bool stats_unreadable_reported;
	int64_t last_report_ms;        /* the log's periodic report (kafka_log_report) */
	uint64_t report_in, report_out; /* records in and out as of the last one */
};

static volatile sig_atomic_t stop_requested;

/* Set by SIGTERM, SIGINT and fatal errors: the loop stops at the next
 * batch boundary. */
extern volatile sig_atomic_t kafka_stop_requested;

/* ------------------------------------------------------------------ */
/* kafka_client.c                                                      */
/* ------------------------------------------------------------------ */

/* A line of the log (log.h); "error: " or "warning: " in front sets its level. */
void kafka_log(const stoat_kafka *k, const char *fmt, ...) STOAT_PRINTF(2, 3);

/* The same, naming the event for the JSON log ("assigned", "restored"). */
void kafka_log_event(const stoat_kafka *k, const char *event, const char *fmt, ...) STOAT_PRINTF(3, 4);

/* librdkafka's log_cb: its lines through the log (log.h), at their level. */
void kafka_librdkafka_log(const rd_kafka_t *rk, int level, const char *facility, const char *buf);

/* Sets a property, reporting a bad one; false on error. */
bool kafka_conf_set(rd_kafka_conf_t *conf, const char *prog, const char *name, const char *value);

/* Applies user properties meant for `role` ("consumer" or "producer"). */
bool kafka_conf_user(rd_kafka_conf_t *conf, const stoat_kafka_options *opt, const char *prog, const char *role);

/* Errors saying a newer producer epoch exists for our transactional id. */
bool kafka_fenced_error(rd_kafka_resp_err_t e);

/* The error callback of every client (opaque: the stoat_kafka). */
void kafka_error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque);

/* Finishes a client from conf (kafka_client.c): the user's properties for
 * role, opaque, error_cb; NULL after a message naming `what`. */
rd_kafka_t *kafka_make_client(stoat_kafka *k, rd_kafka_conf_t *conf, bool ok, const char *role,
			      rd_kafka_type_t type, const char *what, void *opaque,
			      void (*error_cb)(rd_kafka_t *, int, const char *, void *));

/* The producer (transactional under exactly-once); NULL after a message. */
rd_kafka_t *kafka_new_producer(stoat_kafka *k, bool transactional);

/* The consumer in the application's group; NULL after a message. */
rd_kafka_t *kafka_new_consumer(stoat_kafka *k);

/* The consumer that reads changelogs (assign only, no group). */
rd_kafka_t *kafka_new_restorer(stoat_kafka *k);

/* The read_uncommitted client that asks for changelogs' high watermarks. */
rd_kafka_t *kafka_new_offsets_reader(stoat_kafka *k);

/* Topic handles of the fixed output topics and the changelogs, and
 * their release (before the producer goes). */
void kafka_open_sink_topics(stoat_kafka *k);
void kafka_close_sink_topics(stoat_kafka *k);

/* A random hex id for this process (its transactional.id suffix). */
void kafka_random_id(char *out, size_t n);

/* Waits until client rk has heard from the cluster: false after limit_ms
 * (0: no limit) or when a stop is requested. */
bool kafka_wait_for_cluster(rd_kafka_t *rk, int64_t limit_ms);

/* How long `load` and `dump` wait for an unreachable cluster. */
#define KAFKA_TOOL_CONNECT_MS 10000

/* ------------------------------------------------------------------ */
/* kafka_ids.c                                                         */
/* ------------------------------------------------------------------ */

/* <app id>-<suffix>, allocated; NULL with the reason in err if Kafka
 * could not carry it (never cut short). */
char *kafka_transactional_id(const char *app_id, const char *suffix, bool suffix_is_instance_id, char *err,
			     size_t errlen);

/* <transactional id>-rebuild, for the changelog rebuild's producer
 * (kafka_ids.c); the caller frees it. */
char *kafka_rebuild_transactional_id(const char *transactional_id);

/* ------------------------------------------------------------------ */
/* kafka_commit.c                                                      */
/* ------------------------------------------------------------------ */

/*
 * Commits the work done so far.  Returns false only when the process must
 * stop (fatal error); transient failures are retried or, under
 * exactly-once, turned into an abort and a rewind.
 */
bool kafka_commit(stoat_kafka *k);

/* Aborts the open transaction and reprocesses from the last commit. */
void kafka_abort_and_rewind(stoat_kafka *k);

/* Opens a transaction unless one is open; false if none could be. */
bool kafka_begin_transaction(stoat_kafka *k);

/* Registers the transactional id (fencing older producers with it). */
bool kafka_init_transactions(stoat_kafka *k);

/* Replaces a fenced producer and rewinds; false if the process must stop. */
bool kafka_replace_producer(stoat_kafka *k);

/* ------------------------------------------------------------------ */
/* kafka_rebalance.c                                                   */
/* ------------------------------------------------------------------ */

/* The assigned partition (topic, partition), or NULL. */
kafka_partition *kafka_find_part(stoat_kafka *k, const char *topic, int32_t partition);

/* The index of the source reading topic, or SIZE_MAX. */
size_t kafka_source_of_topic(const stoat_app *app, const char *topic);

/* True when some store is fed by more than one source (see the file). */
bool kafka_has_shared_stores(const stoat_app *app);

/* For --idle-exit: source partitions held elsewhere with records after the
 * committed offset (count, -1: unknown; see kafka_rebalance.c). */
int kafka_unprocessed_elsewhere(stoat_kafka *k, int64_t *committed_sum, char *names, size_t names_len);

/* The consumer's rebalance callback: assignment (with restoring) and
 * revocation (with a commit). */
void kafka_rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts,
			void *opaque);

/* ------------------------------------------------------------------ */
/* kafka_order.c                                                       */
/* ------------------------------------------------------------------ */

/* Per source of app, whether its task has other source partitions (the
 * sources of its sub-topology); the caller frees it.  NULL: none has. */
bool *kafka_ordered_sources(const stoat_app *app);

/* Gives assigned partition p of an ordered source its own queue (before
 * it is assigned to the consumer rk, so that no record goes elsewhere). */
void kafka_order_take(stoat_kafka *k, rd_kafka_t *rk, kafka_partition *p);

/* Forgets what p holds (revoked, or rewound to its committed offset);
 * release also gives up its queue. */
void kafka_order_drop(stoat_kafka *k, kafka_partition *p);
void kafka_order_release(stoat_kafka *k, kafka_partition *p);

/* Holds record r of ordered partition p that came through the consumer
 * queue (fetched before p had its own queue). */
void kafka_order_hold(stoat_kafka *k, kafka_partition *p, rd_kafka_message_t *r);

/* Runs the tasks with more than one source partition, each smallest
 * timestamp first while it is ready; returns the records run. */
ssize_t kafka_order_poll(stoat_kafka *k);

/* ------------------------------------------------------------------ */
/* kafka_wake.c                                                        */
/* ------------------------------------------------------------------ */

/* Whether librdkafka waits a fixed second before looking at a full fetch
 * queue again (before 2.2), so that the driver wakes it itself. */
bool kafka_fetch_wait_is_fixed(void);

/* Starts the fetch waker for k's consumer where librdkafka needs one;
 * stops it (before the consumer is closed), returning the wakes sent. */
void kafka_waker_start(stoat_kafka *k);
uint64_t kafka_waker_stop(stoat_kafka *k);

/* After taking `taken` records (`bytes` of payload) from q when `asked`
 * were asked for: wakes the fetcher if q ran low after being full. */
void kafka_waker_note(stoat_kafka *k, rd_kafka_queue_t *q, size_t taken, size_t asked, size_t bytes);

/* ------------------------------------------------------------------ */
/* kafka_run.c                                                         */
/* ------------------------------------------------------------------ */

/* Runs records rk[0..n) of partition p through its source's pipeline. */
void kafka_run_partition_batch(stoat_kafka *k, kafka_partition *p, rd_kafka_message_t **rk, size_t n);

/* The driver's load_headers (driver.h): m's librdkafka headers, converted. */
void kafka_load_headers(stoat_driver *d, stoat_ctx *cx, stoat_msg *m);

/* Handles an error event from a consumer queue (EOF aside). */
void kafka_consumer_event(stoat_kafka *k, rd_kafka_message_t *r);

/* ------------------------------------------------------------------ */
/* kafka_rebuild.c                                                     */
/* ------------------------------------------------------------------ */

/* Writes store partition p's local state to its changelog partition
 * (offsets lo..hi now) and checkpoints it; false after a message. */
bool kafka_rebuild_changelog(stoat_kafka *k, stoat_store_part *p, const char *topic, int64_t lo, int64_t hi);

/* ------------------------------------------------------------------ */
/* kafka_produce.c                                                     */
/* ------------------------------------------------------------------ */

/* The Kafka driver's operations (driver.h). */
extern const stoat_driver_ops kafka_driver_ops;

/* The producer's delivery report callback (opaque: the stoat_kafka):
 * prints failures, keeps the first in delivery_error. */
void kafka_delivery_report(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque);

/* ------------------------------------------------------------------ */
/* kafka_http.c                                                        */
/* ------------------------------------------------------------------ */

/* Starts the endpoint when the options ask for it; false after a message. */
bool kafka_http_start(stoat_kafka *k, const char *instance_id);

/* Hands the endpoint a snapshot, at most every STOAT_HTTP_PUBLISH_MS
 * unless forced; nothing when it is off. */
void kafka_http_publish(stoat_kafka *k, bool force);

/* Applies pause and resume requests that came since the last call. */
void kafka_http_control(stoat_kafka *k);

/* After an assignment: pauses the new partitions of paused sources, and
 * (endpoint on) reads the group's committed offsets of parts. */
void kafka_http_assigned(stoat_kafka *k, rd_kafka_topic_partition_list_t *parts);

/* The producer's and consumer's statistics callback (endpoint on). */
int kafka_stats_cb(rd_kafka_t *rk, char *json, size_t json_len, void *opaque);

/* The periodic report line (log_report_interval). */
void kafka_log_report(stoat_kafka *k, int64_t now);

/* Whether some source is paused (the idle exit waits then). */
bool kafka_http_any_paused(const stoat_kafka *k);

/* Stops the endpoint and frees what it used. */
void kafka_http_stop(stoat_kafka *k);

/* ------------------------------------------------------------------ */
/* kafka_admin.c                                                       */
/* ------------------------------------------------------------------ */

/* Creates the repartition topics and changelogs; false if the process
 * should stop. */
bool kafka_create_internal_topics(stoat_kafka *k);

/* Deletes consumed repartition records every purge interval. */
void kafka_purge_repartition_topics(stoat_kafka *k);

/* Collects DeleteRecords answers, waiting up to timeout_ms. */
void kafka_purge_poll(stoat_kafka *k, int timeout_ms);

#endif /* STOAT_RUNTIME_KAFKA_IMPL_H */
