/*
 * kafka.c - the Kafka driver: `run`, plus the `load` and `dump` tools.
 *
 * One stream thread: a consumer in the application's consumer group
 * (cooperative-sticky rebalancing, read_committed, offsets committed by
 * us) and one producer (idempotent, zstd; transactional under
 * exactly-once).  The loop takes a batch of records from the consumer
 * queue, hands each run of records from one partition to its source's
 * pipeline, and commits on the commit interval:
 *
 *   at_least_once  flush the producer (every output acknowledged), then
 *                  commit the consumed offsets;
 *   exactly_once   send the consumed offsets to the transaction and commit
 *                  it (EOS v2: the transaction carries the group
 *                  metadata, so one producer serves every partition).
 *                  An abortable error aborts the transaction and rewinds
 *                  every partition to its committed offset; a fatal error
 *                  or fencing stops the process with a message.
 *
 * Partitions are revoked only after the work done on them is committed.
 * SIGTERM and SIGINT finish the batch, commit and leave the group.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A partition this instance has been assigned. */
typedef struct kafka_partition {
	char *topic;
	int32_t partition;
	size_t source;       /* index into app->sources */
	int64_t next_offset; /* the offset after the last record processed; -1: none yet */
	int64_t committed;   /* next_offset as of the last commit; -1: none */
	bool assigned;
} kafka_partition;

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
	kafka_partition *parts;
	size_t part_count, part_cap;
	rd_kafka_message_t **rkmsgs;
	stoat_msg *batch;
	bool eos;
	bool in_txn;
	bool failed;        /* the fail policy stopped the app: commit nothing */
	bool fatal;         /* a fatal Kafka error: commit nothing */
	bool dirty;         /* progress since the last commit */
	int64_t last_commit_ms;
	int64_t last_input_ms;
	int64_t last_warn_ms;
	char transactional_id[256];
	char delivery_error[512];
	uint64_t commits;
	uint64_t aborts;
	bool fenced;            /* the producer was fenced: replace it */
	int64_t fenced_at[3];   /* when the last fencings happened */
	uint64_t fencings;
	const char *prog;
	stoat_state *state;                  /* the app's stores (NULL: none) */
	rd_kafka_topic_t **changelog_topics; /* per store */
	rd_kafka_t *restorer;                /* reads changelogs on assignment */
	rd_kafka_queue_t *purge_results;     /* answers to DeleteRecords */
	int64_t last_purge_ms;
	int purges_in_flight;
	int64_t started_ms;       /* for the start-up time in the log */
	bool first_output_logged;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "<app>: " + message, to stderr: the driver's log. */
static void logf_(const stoat_kafka *k, const char *fmt, ...) STOAT_PRINTF(2, 3);
static void logf_(const stoat_kafka *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", k->app->app_id);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void *xmalloc_(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p) {
		fputs("stoat: out of memory\n", stderr);
		abort();
	}
	return p;
}

/* ------------------------------------------------------------------ */
/* Client configuration                                                */
/* ------------------------------------------------------------------ */

/* Sets a property, reporting a bad one; false on error. */
static bool conf_set(rd_kafka_conf_t *conf, const char *prog, const char *name, const char *value)
{
	char err[512];
	if (rd_kafka_conf_set(conf, name, value, err, sizeof err) != RD_KAFKA_CONF_OK) {
		fprintf(stderr, "%s: error: Kafka property %s=%s: %s\n", prog, name, value, err);
		return false;
	}
	return true;
}

/* Applies user properties meant for `role` ("consumer" or "producer"). */
static bool conf_user(rd_kafka_conf_t *conf, const stoat_kafka_options *opt, const char *prog, const char *role)
{
	size_t rl = strlen(role);
	for (size_t i = 0; i < opt->prop_count; i++) {
		const char *name = opt->props[i].name;
		bool for_consumer = strncmp(name, "consumer.", 9) == 0;
		bool for_producer = strncmp(name, "producer.", 9) == 0;
		if (for_consumer || for_producer) {
			if (strncmp(name, role, rl) != 0 || name[rl] != '.')
				continue;
			name += rl + 1;
		}
		if (!conf_set(conf, prog, name, opt->props[i].value))
			return false;
	}
	return true;
}

/* Errors saying a newer producer epoch exists for our transactional id. */
static bool fenced_error(rd_kafka_resp_err_t e)
{
	return e == RD_KAFKA_RESP_ERR__FENCED || e == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
	       e == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
}

/* Logs client errors; connection trouble at most every 10 s. */
static void error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	stoat_kafka *k = opaque;
	(void)rk;
	if (err == RD_KAFKA_RESP_ERR__FATAL) {
		char why[512];
		rd_kafka_resp_err_t orig = rd_kafka_fatal_error(rk, why, sizeof why);
		if (k->eos && rk == k->producer && fenced_error(orig)) {
			/* Handled where the transactional call fails: see replace_producer. */
			k->fenced = true;
			return;
		}
		logf_(k, "error: fatal Kafka error: %s: %s", rd_kafka_err2name(orig), why);
		k->fatal = true;
		stop_requested = 1;
		return;
	}
	int64_t now = now_ms();
	if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN || err == RD_KAFKA_RESP_ERR__TRANSPORT ||
	    err == RD_KAFKA_RESP_ERR__RESOLVE) {
		if (now - k->last_warn_ms < 10000)
			return;
		k->last_warn_ms = now;
		logf_(k, "warning: cannot reach the Kafka cluster at %s (%s); retrying", k->opt->bootstrap_servers,
		      reason);
		return;
	}
	logf_(k, "warning: Kafka: %s: %s", rd_kafka_err2name(err), reason);
}

/* Delivery reports: remember the first failure; the loop acts on it. */
static void delivery_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	stoat_kafka *k = opaque;
	(void)rk;
	if (m->err && !k->delivery_error[0])
		snprintf(k->delivery_error, sizeof k->delivery_error, "cannot write to topic %s: %s",
			 rd_kafka_topic_name(m->rkt), rd_kafka_err2str(m->err));
	/* Changelog records carry their store partition: its checkpoint. */
	if (!m->err && m->_private)
		stoat_store_part_acked(m->_private, m->offset);
}

/*
 * Finishes a client: the user's properties for role ("producer" or
 * "consumer") go last, so they win; then the driver's opaque and error
 * callback, and the client itself.  conf is consumed; NULL after a message
 * when a property was refused (ok false: one of the caller's) or creation
 * failed.
 */
static rd_kafka_t *make_client(stoat_kafka *k, rd_kafka_conf_t *conf, bool ok, const char *role,
			       rd_kafka_type_t type, const char *what)
{
	if (!ok || !conf_user(conf, k->opt, k->prog, role)) {
		rd_kafka_conf_destroy(conf);
		return NULL;
	}
	rd_kafka_conf_set_opaque(conf, k);
	rd_kafka_conf_set_error_cb(conf, error_cb);
	char err[512];
	rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
	if (!rk)
		fprintf(stderr, "%s: error: cannot create %s: %s\n", k->prog, what, err);
	return rk;
}

static rd_kafka_t *new_producer(stoat_kafka *k, bool transactional)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	bool ok = conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  conf_set(conf, k->prog, "client.id", k->app->app_id) &&
		  conf_set(conf, k->prog, "enable.idempotence", "true") &&
		  conf_set(conf, k->prog, "acks", "all") &&
		  conf_set(conf, k->prog, "compression.type", "zstd") &&
		  conf_set(conf, k->prog, "linger.ms", "5") &&
		  conf_set(conf, k->prog, "batch.num.messages", "10000") &&
		  conf_set(conf, k->prog, "queue.buffering.max.messages", k->opt->memory == STOAT_MEMORY_LOW ? "100000" : "1000000") &&
		  conf_set(conf, k->prog, "queue.buffering.max.kbytes", k->opt->memory == STOAT_MEMORY_LOW ? "32768" : "262144") &&
		  /* Kafka's Java default partitioner: murmur2 of the key. */
		  conf_set(conf, k->prog, "partitioner", "murmur2_random") &&
		  conf_set(conf, k->prog, "topic.metadata.refresh.interval.ms", "10000");
	if (ok && transactional) {
		ok = conf_set(conf, k->prog, "transactional.id", k->transactional_id) &&
		     conf_set(conf, k->prog, "transaction.timeout.ms", "10000");
	} else if (ok) {
		/* At-least-once: keep retrying while the cluster is away. */
		ok = conf_set(conf, k->prog, "message.timeout.ms", "0");
	}
	rd_kafka_conf_set_dr_msg_cb(conf, delivery_cb);
	return make_client(k, conf, ok, "producer", RD_KAFKA_PRODUCER, "the Kafka producer");
}

/* ------------------------------------------------------------------ */
/* Partitions and offsets                                              */
/* ------------------------------------------------------------------ */

static kafka_partition *find_part(stoat_kafka *k, const char *topic, int32_t partition)
{
	for (size_t i = 0; i < k->part_count; i++)
		if (k->parts[i].partition == partition && strcmp(k->parts[i].topic, topic) == 0)
			return &k->parts[i];
	return NULL;
}

static size_t source_of_topic(const stoat_app *app, const char *topic)
{
	for (size_t i = 0; i < app->source_count; i++)
		if (strcmp(app->sources[i].topic, topic) == 0)
			return i;
	return SIZE_MAX;
}

/* The offsets to commit: every assigned partition that made progress. */
static rd_kafka_topic_partition_list_t *progress(stoat_kafka *k, bool only_changed)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)k->part_count + 1);
	for (size_t i = 0; i < k->part_count; i++) {
		kafka_partition *p = &k->parts[i];
		if (!p->assigned || p->next_offset < 0)
			continue;
		if (only_changed && p->next_offset == p->committed)
			continue;
		rd_kafka_topic_partition_list_add(l, p->topic, p->partition)->offset = p->next_offset;
	}
	return l;
}

static void mark_committed(stoat_kafka *k)
{
	for (size_t i = 0; i < k->part_count; i++)
		if (k->parts[i].assigned)
			k->parts[i].committed = k->parts[i].next_offset;
	k->dirty = false;
	k->commits++;
}

/*
 * Puts every assigned partition back at its committed offset (after an
 * aborted transaction): the records since are read and processed again.
 */
static void rewind_to_committed(stoat_kafka *k)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)k->part_count + 1);
	for (size_t i = 0; i < k->part_count; i++)
		if (k->parts[i].assigned)
			rd_kafka_topic_partition_list_add(l, k->parts[i].topic, k->parts[i].partition);
	if (l->cnt == 0) {
		rd_kafka_topic_partition_list_destroy(l);
		return;
	}
	rd_kafka_resp_err_t err;
	while ((err = rd_kafka_committed(k->consumer, l, 10000)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
		logf_(k, "warning: cannot read committed offsets (%s); retrying", rd_kafka_err2str(err));
		if (stop_requested)
			break;
		sleep(1);
	}
	for (int i = 0; i < l->cnt; i++) {
		if (l->elems[i].offset < 0)
			l->elems[i].offset = RD_KAFKA_OFFSET_BEGINNING;
		kafka_partition *p = find_part(k, l->elems[i].topic, l->elems[i].partition);
		if (p)
			p->next_offset = p->committed = l->elems[i].offset >= 0 ? l->elems[i].offset : -1;
	}
	rd_kafka_error_t *e = rd_kafka_seek_partitions(k->consumer, l, 10000);
	if (e) {
		logf_(k, "warning: cannot rewind: %s", rd_kafka_error_string(e));
		rd_kafka_error_destroy(e);
	}
	rd_kafka_topic_partition_list_destroy(l);
	k->dirty = false;
}

/* ------------------------------------------------------------------ */
/* Commits                                                             */
/* ------------------------------------------------------------------ */

/* Serves delivery reports until every output is acknowledged. */
static bool flush_outputs(stoat_kafka *k)
{
	int64_t start = now_ms(), warned = start;
	while (rd_kafka_outq_len(k->producer) > 0) {
		rd_kafka_poll(k->producer, 100);
		if (k->delivery_error[0] || k->fatal)
			return false;
		if (now_ms() - warned > 10000) {
			warned = now_ms();
			logf_(k, "warning: %d output records still unacknowledged after %" PRId64 " s; waiting",
			      rd_kafka_outq_len(k->producer), (warned - start) / 1000);
		}
	}
	rd_kafka_poll(k->producer, 0);
	return !k->delivery_error[0];
}

/* Handles a transactional API error: true if the caller may go on. */
static bool txn_error(stoat_kafka *k, rd_kafka_error_t *e, const char *what, bool *abort)
{
	*abort = false;
	if (!e)
		return true;
	rd_kafka_resp_err_t code = rd_kafka_error_code(e);
	char orig_why[256] = "";
	if (code == RD_KAFKA_RESP_ERR__FATAL)
		code = rd_kafka_fatal_error(k->producer, orig_why, sizeof orig_why);
	if (fenced_error(code) || k->fenced) {
		/*
		 * Fenced: a newer epoch exists for our transactional id.  After a
		 * broker restart the coordinator may bump it itself; Kafka
		 * Streams then treats the tasks as migrated and makes a new
		 * producer, and so do we (replace_producer), unless it keeps
		 * happening, which means another live instance has our id.
		 */
		logf_(k, "warning: %s: %s: the producer was fenced", what, rd_kafka_error_string(e));
		k->fenced = true;
	} else if (rd_kafka_error_is_fatal(e)) {
		logf_(k, "error: %s: %s (fatal: stopping)", what, rd_kafka_error_string(e));
		k->fatal = true;
		stop_requested = 1;
	} else if (rd_kafka_error_txn_requires_abort(e)) {
		logf_(k, "warning: %s: %s; aborting the transaction and reprocessing from the last commit", what,
		      rd_kafka_error_string(e));
		*abort = true;
	} else {
		logf_(k, "warning: %s: %s; retrying", what, rd_kafka_error_string(e));
	}
	rd_kafka_error_destroy(e);
	return false;
}

static void abort_and_rewind(stoat_kafka *k)
{
	rd_kafka_error_t *e;
	while ((e = rd_kafka_abort_transaction(k->producer, 30000)) != NULL) {
		bool abort;
		txn_error(k, e, "aborting the transaction", &abort);
		if (k->fatal || k->fenced)
			return;
		sleep(1);
	}
	k->in_txn = false;
	k->aborts++;
	k->delivery_error[0] = '\0';
	if (k->state)
		stoat_state_abort(k->state);
	rewind_to_committed(k);
}

/*
 * Writes out the record caches before a commit (their updates go to the
 * stores, the changelogs and downstream, in the transaction under
 * exactly-once).  False if that failed: the fail policy tripped (failed
 * set) or the batch was abandoned (fenced producer).
 */
static bool flush_state(stoat_kafka *k)
{
	if (!k->state || stoat_state_flush(k->state))
		return true;
	stoat_ctx *fcx = stoat_state_flush_ctx(k->state);
	if (fcx->abandoned) {
		fcx->abandoned = false;
		fcx->stopped = false;
	} else {
		k->failed = true;
		stop_requested = 1;
	}
	return false;
}

/* Waits for the delivery reports of everything produced (changelog
 * offsets come with them). */
static void serve_delivery_reports(stoat_kafka *k)
{
	while (rd_kafka_outq_len(k->producer) > 0 && !k->fatal)
		rd_kafka_poll(k->producer, 10);
}

/*
 * After the Kafka commit: the stores apply the interval's writes with
 * their changelog checkpoints.  A failure here stops the process (the
 * local state would otherwise fall behind what Kafka has committed); the
 * next run restores from the last checkpoint.
 */
static bool commit_state(stoat_kafka *k)
{
	char err[1024];
	if (!k->state || stoat_state_commit(k->state, err, sizeof err))
		return true;
	logf_(k, "error: %s; stopping (the next run restores from the changelog)", err);
	k->fatal = true;
	stop_requested = 1;
	return false;
}

/*
 * Commits the work done so far.  Returns false only when the process must
 * stop (fatal error); transient failures are retried or, under
 * exactly-once, turned into an abort and a rewind.
 */
static bool commit(stoat_kafka *k)
{
	if (k->failed || k->fatal)
		return !k->fatal;
	if (!k->eos) {
		if (!flush_state(k))
			return !k->fatal;
		if (!flush_outputs(k)) {
			if (k->delivery_error[0])
				logf_(k, "error: %s; stopping without committing (the records will be processed again)",
				      k->delivery_error);
			k->fatal = true;
			return false;
		}
		rd_kafka_topic_partition_list_t *l = progress(k, true);
		if (l->cnt > 0) {
			rd_kafka_resp_err_t err = rd_kafka_commit(k->consumer, l, 0);
			if (err) {
				logf_(k, "warning: cannot commit offsets: %s; will retry", rd_kafka_err2str(err));
				rd_kafka_topic_partition_list_destroy(l);
				return true;
			}
		}
		rd_kafka_topic_partition_list_destroy(l);
		mark_committed(k);
		k->last_commit_ms = now_ms();
		return commit_state(k);
	}
	if (!k->in_txn)
		return true;
	if (!flush_state(k))
		return !k->fatal;
	for (int attempt = 0;; attempt++) {
		bool abort = false;
		rd_kafka_topic_partition_list_t *l = progress(k, false);
		rd_kafka_error_t *e = NULL;
		if (l->cnt > 0) {
			rd_kafka_consumer_group_metadata_t *md = rd_kafka_consumer_group_metadata(k->consumer);
			e = rd_kafka_send_offsets_to_transaction(k->producer, l, md, 30000);
			rd_kafka_consumer_group_metadata_destroy(md);
		}
		rd_kafka_topic_partition_list_destroy(l);
		if (txn_error(k, e, "sending offsets to the transaction", &abort)) {
			e = rd_kafka_commit_transaction(k->producer, 60000);
			if (txn_error(k, e, "committing the transaction", &abort)) {
				k->in_txn = false;
				mark_committed(k);
				k->last_commit_ms = now_ms();
				serve_delivery_reports(k);
				return commit_state(k);
			}
		}
		if (k->fatal)
			return false;
		if (k->fenced)
			return true; /* the loop replaces the producer */
		if (abort) {
			abort_and_rewind(k);
			k->last_commit_ms = now_ms();
			return !k->fatal;
		}
		if (stop_requested && attempt > 3) {
			abort_and_rewind(k);
			return !k->fatal;
		}
		sleep(1);
	}
}

/*
 * Deletes repartition records that are consumed and committed (Admin
 * DeleteRecords up to each internal partition's committed offset), every
 * purge interval, as Kafka Streams does: repartition topics keep records
 * forever otherwise (retention -1).  Asynchronous; failures are warnings.
 */
static void purge_repartition_topics(stoat_kafka *k)
{
	int64_t now = now_ms();
	if (k->opt->purge_interval_ms <= 0 || now - k->last_purge_ms < k->opt->purge_interval_ms ||
	    k->purges_in_flight > 0)
		return;
	k->last_purge_ms = now;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(4);
	for (size_t i = 0; i < k->part_count; i++) {
		kafka_partition *p = &k->parts[i];
		if (p->assigned && p->source != SIZE_MAX && k->app->sources[p->source].internal && p->committed > 0)
			rd_kafka_topic_partition_list_add(l, p->topic, p->partition)->offset = p->committed;
	}
	if (l->cnt > 0) {
		if (!k->purge_results)
			k->purge_results = rd_kafka_queue_new(k->producer);
		rd_kafka_DeleteRecords_t *del = rd_kafka_DeleteRecords_new(l);
		rd_kafka_DeleteRecords(k->producer, &del, 1, NULL, k->purge_results);
		rd_kafka_DeleteRecords_destroy(del);
		k->purges_in_flight++;
	}
	rd_kafka_topic_partition_list_destroy(l);
}

/* Collects DeleteRecords answers without waiting (timeout_ms 0). */
static void purge_poll(stoat_kafka *k, int timeout_ms)
{
	rd_kafka_event_t *ev;
	while (k->purge_results && k->purges_in_flight > 0 &&
	       (ev = rd_kafka_queue_poll(k->purge_results, timeout_ms)) != NULL) {
		k->purges_in_flight--;
		if (rd_kafka_event_error(ev))
			logf_(k, "warning: cannot delete consumed repartition records: %s", rd_kafka_event_error_string(ev));
		rd_kafka_event_destroy(ev);
	}
}

static bool begin_transaction(stoat_kafka *k)
{
	while (!k->in_txn) {
		bool abort;
		if (txn_error(k, rd_kafka_begin_transaction(k->producer), "beginning a transaction", &abort)) {
			k->in_txn = true;
			return true;
		}
		if (k->fatal || k->fenced)
			return false;
		sleep(1);
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Rebalancing                                                         */
/* ------------------------------------------------------------------ */

/* "t[0], t[1], u[3]" for the log. */
static void log_partitions(stoat_kafka *k, const char *what, const rd_kafka_topic_partition_list_t *l)
{
	char text[1024];
	size_t n = 0;
	text[0] = '\0';
	for (int i = 0; i < l->cnt && n < sizeof text - 64; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%s%s[%" PRId32 "]", i ? ", " : "", l->elems[i].topic,
				      l->elems[i].partition);
	if (l->cnt)
		logf_(k, "%s %d partition%s: %s", what, l->cnt, l->cnt == 1 ? "" : "s", text);
}

/*
 * True when some store is fed by more than one source (cogroup, say):
 * partition p of each of those topics must then be processed by the same
 * instance, which the cooperative-sticky assignor does not promise and the
 * range assignor does for topics of equal partition counts.
 */
static bool has_shared_stores(const stoat_app *app)
{
	for (size_t s = 0; s < app->store_count; s++) {
		int feeders = 0;
		for (size_t i = 0; i < app->source_count; i++)
			for (size_t j = 0; j < app->sources[i].store_count; j++)
				feeders += app->sources[i].stores[j] == (int)s;
		if (feeders > 1)
			return true;
	}
	return false;
}

/* The consumer that reads changelogs (assign only, no group). */
static rd_kafka_t *new_restorer(stoat_kafka *k)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char client_id[300];
	snprintf(client_id, sizeof client_id, "%s-restore", k->app->app_id);
	bool ok = conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  conf_set(conf, k->prog, "client.id", client_id) &&
		  /* librdkafka wants a group for assign(); it is never joined. */
		  conf_set(conf, k->prog, "group.id", client_id) &&
		  conf_set(conf, k->prog, "enable.auto.commit", "false") &&
		  conf_set(conf, k->prog, "enable.auto.offset.store", "false") &&
		  conf_set(conf, k->prog, "auto.offset.reset", "earliest") &&
		  conf_set(conf, k->prog, "isolation.level", "read_committed") &&
		  conf_set(conf, k->prog, "enable.partition.eof", "true") &&
		  conf_set(conf, k->prog, "fetch.wait.max.ms", "50") &&
		  conf_set(conf, k->prog, "allow.auto.create.topics", "false");
	return make_client(k, conf, ok, "consumer", RD_KAFKA_CONSUMER, "the changelog reader");
}

/* One store partition being restored. */
typedef struct restore_job {
	stoat_store_part *part;
	const char *topic; /* its changelog */
	int64_t from, end; /* checkpoint (or the start) and high watermark */
	bool done;
} restore_job;

/* Logs the end of one partition's restore (every partition gets a line). */
static void log_restored(stoat_kafka *k, const restore_job *j, int64_t ms)
{
	logf_(k, "restored %s[%" PRId32 "]: %" PRIu64 " records, checkpoint %" PRId64 ", changelog end %" PRId64
		 " (%" PRId64 " ms)",
	      j->topic, stoat_store_part_partition(j->part), stoat_store_part_restored(j->part), j->from, j->end, ms);
}

/*
 * Prepares a job: reads the changelog partition's offsets and starts the
 * store partition's restore.  A checkpoint outside the changelog's offsets
 * (the topic was recreated, say) rebuilds the partition from the start.
 */
static bool restore_prepare(stoat_kafka *k, restore_job *j)
{
	int32_t partition = stoat_store_part_partition(j->part);
	int64_t lo = 0, hi = 0;
	rd_kafka_resp_err_t e;
	/* A changelog created a moment ago may have no leader yet: retry
	 * quickly at first, and say so only if it lasts. */
	for (int attempt = 0; (e = rd_kafka_query_watermark_offsets(k->restorer, j->topic, partition, &lo, &hi,
								     10000)) != RD_KAFKA_RESP_ERR_NO_ERROR;
	     attempt++) {
		if (attempt >= 20 && attempt % 10 == 0)
			logf_(k, "warning: cannot read the offsets of changelog %s[%" PRId32 "] (%s); retrying",
			      j->topic, partition, rd_kafka_err2str(e));
		if (stop_requested)
			return false;
		usleep(attempt < 20 ? 50 * 1000 : 500 * 1000);
	}
	j->from = stoat_store_part_checkpoint(j->part);
	j->end = hi;
	bool scratch = j->from > hi || j->from < lo;
	if (scratch) {
		logf_(k, "warning: %s[%" PRId32 "]: checkpoint %" PRId64 " is outside the changelog's offsets %" PRId64
			 "..%" PRId64 "; rebuilding the store partition from the start",
		      j->topic, partition, j->from, lo, hi);
		j->from = lo;
	}
	char err[1024];
	if (!stoat_store_part_restore_start(j->part, scratch, err, sizeof err)) {
		logf_(k, "error: %s", err);
		return false;
	}
	j->done = j->from >= hi;
	return true;
}

/* Finishes a job: writes what is left with the new checkpoint. */
static bool restore_finish(stoat_kafka *k, restore_job *j, int64_t start)
{
	char err[1024];
	if (!stoat_store_part_restore_done(j->part, err, sizeof err)) {
		logf_(k, "error: restoring %s[%" PRId32 "]: %s", j->topic, stoat_store_part_partition(j->part), err);
		return false;
	}
	j->done = true;
	log_restored(k, j, now_ms() - start);
	return true;
}

/*
 * Brings the store partitions behind newly assigned source partitions up
 * to date (partition p of every store the source's pipeline uses): all of
 * their changelog partitions are read at once, each from its checkpoint
 * to its end (read_committed: the last stable offset), and every record is
 * applied.  Logs progress every 5 s and one line per partition.  False if
 * the process must stop.
 */
static bool restore_assigned(stoat_kafka *k, const rd_kafka_topic_partition_list_t *parts)
{
	if (!k->state)
		return true;
	size_t cap = 0;
	for (int i = 0; i < parts->cnt; i++) {
		size_t src = source_of_topic(k->app, parts->elems[i].topic);
		if (src != SIZE_MAX)
			cap += k->app->sources[src].store_count;
	}
	if (cap == 0)
		return true;
	if (!k->restorer && !(k->restorer = new_restorer(k)))
		return false;
	restore_job *jobs = xmalloc_(cap * sizeof *jobs);
	size_t n = 0, pending = 0;
	bool ok = true;
	int64_t start = now_ms(), last_log = start;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)cap);
	for (int i = 0; ok && i < parts->cnt; i++) {
		size_t src = source_of_topic(k->app, parts->elems[i].topic);
		if (src == SIZE_MAX)
			continue;
		const stoat_source *source = &k->app->sources[src];
		for (size_t s = 0; ok && s < source->store_count; s++) {
			char err[1024];
			int32_t partition = parts->elems[i].partition;
			stoat_store_part *p = stoat_state_part(k->state, source->stores[s], partition, err, sizeof err);
			if (!p) {
				logf_(k, "error: %s", err);
				ok = false;
				break;
			}
			bool seen = false; /* two sources feeding one store */
			for (size_t j = 0; j < n; j++)
				seen = seen || jobs[j].part == p;
			if (seen)
				continue;
			restore_job *j = &jobs[n++];
			j->part = p;
			j->topic = stoat_state_changelog_topic(k->state, source->stores[s]);
			ok = restore_prepare(k, j);
			if (ok && j->done)
				ok = restore_finish(k, j, start);
			else if (ok) {
				rd_kafka_topic_partition_list_add(l, j->topic, partition)->offset = j->from;
				pending++;
			}
		}
	}
	if (ok && pending > 0) {
		rd_kafka_resp_err_t e = rd_kafka_assign(k->restorer, l);
		if (e) {
			logf_(k, "error: cannot read the changelogs: %s", rd_kafka_err2str(e));
			ok = false;
		}
	}
	rd_kafka_topic_partition_list_destroy(l);
	while (ok && pending > 0 && !stop_requested) {
		rd_kafka_message_t *m = rd_kafka_consumer_poll(k->restorer, 500);
		int64_t now = now_ms();
		if (now - last_log >= 5000) {
			last_log = now;
			uint64_t records = 0;
			for (size_t j = 0; j < n; j++)
				records += stoat_store_part_restored(jobs[j].part);
			logf_(k, "restoring: %zu of %zu store partitions to go, %" PRIu64 " records so far", pending, n,
			      records);
		}
		if (!m)
			continue;
		restore_job *j = NULL;
		if (m->rkt) {
			const char *topic = rd_kafka_topic_name(m->rkt);
			for (size_t i = 0; i < n && !j; i++)
				if (!jobs[i].done && stoat_store_part_partition(jobs[i].part) == m->partition &&
				    strcmp(jobs[i].topic, topic) == 0)
					j = &jobs[i];
		}
		if (!j) {
			if (m->err && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
				logf_(k, "warning: reading the changelogs: %s", rd_kafka_message_errstr(m));
		} else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			ok = restore_finish(k, j, start);
			pending--;
		} else if (m->err) {
			logf_(k, "warning: reading changelog %s[%" PRId32 "]: %s", j->topic, m->partition,
			      rd_kafka_message_errstr(m));
		} else {
			char err[1024];
			stoat_str key = { m->key, m->key ? m->key_len : 0 };
			stoat_str value = { m->payload, m->payload ? m->len : 0 }; /* NULL: tombstone */
			if (!stoat_store_part_restore_record(j->part, key, value, m->offset, err, sizeof err)) {
				logf_(k, "error: restoring %s[%" PRId32 "]: %s", j->topic, m->partition, err);
				ok = false;
			} else if (m->offset + 1 >= j->end) {
				ok = restore_finish(k, j, start);
				pending--;
			}
		}
		rd_kafka_message_destroy(m);
	}
	rd_kafka_assign(k->restorer, NULL);
	free(jobs);
	return ok && pending == 0;
}

/* Incremental (cooperative) rebalancing, or eager (range: see
 * has_shared_stores)? */
static bool cooperative(rd_kafka_t *rk)
{
	const char *protocol = rd_kafka_rebalance_protocol(rk);
	return protocol && strcmp(protocol, "COOPERATIVE") == 0;
}

static void rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts,
			 void *opaque)
{
	stoat_kafka *k = opaque;
	/* A rebalance is activity: the idle timer starts again. */
	k->last_input_ms = now_ms();
	if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
		log_partitions(k, "assigned", parts);
		for (int i = 0; i < parts->cnt; i++) {
			const char *topic = parts->elems[i].topic;
			kafka_partition *p = find_part(k, topic, parts->elems[i].partition);
			if (!p) {
				if (k->part_count == k->part_cap) {
					k->part_cap = k->part_cap ? k->part_cap * 2 : 16;
					kafka_partition *np = realloc(k->parts, k->part_cap * sizeof *np);
					if (!np)
						abort();
					k->parts = np;
				}
				p = &k->parts[k->part_count++];
				memset(p, 0, sizeof *p);
				p->topic = strdup(topic);
				p->partition = parts->elems[i].partition;
				p->source = source_of_topic(k->app, topic);
			}
			p->assigned = true;
			p->next_offset = p->committed = -1;
		}
		if (!restore_assigned(k, parts) && !stop_requested) {
			k->fatal = true;
			stop_requested = 1;
		}
		if (!cooperative(rk)) {
			rd_kafka_resp_err_t ae = rd_kafka_assign(rk, parts);
			if (ae)
				logf_(k, "error: cannot take the assigned partitions: %s", rd_kafka_err2str(ae));
		} else {
			rd_kafka_error_t *e = rd_kafka_incremental_assign(rk, parts);
			if (e) {
				logf_(k, "error: cannot take the assigned partitions: %s", rd_kafka_error_string(e));
				rd_kafka_error_destroy(e);
			}
		}
		/* Repartition records get their own queue: see poll_once. */
		for (int i = 0; k->internal_queue && i < parts->cnt; i++) {
			size_t src = source_of_topic(k->app, parts->elems[i].topic);
			if (src == SIZE_MAX || !k->app->sources[src].internal)
				continue;
			rd_kafka_queue_t *pq = rd_kafka_queue_get_partition(rk, parts->elems[i].topic, parts->elems[i].partition);
			if (pq) {
				rd_kafka_queue_forward(pq, k->internal_queue);
				rd_kafka_queue_destroy(pq);
			}
		}
		return;
	}
	if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
		bool lost = rd_kafka_assignment_lost(rk);
		if (lost) {
			/* Another instance owns them already: committing would be wrong. */
			log_partitions(k, "lost", parts);
			if (k->eos && k->in_txn)
				abort_and_rewind(k);
		} else {
			log_partitions(k, "revoked", parts);
			commit(k);
		}
		for (int i = 0; i < parts->cnt; i++) {
			kafka_partition *p = find_part(k, parts->elems[i].topic, parts->elems[i].partition);
			if (p)
				p->assigned = false;
		}
		if (!cooperative(rk)) {
			rd_kafka_assign(rk, NULL);
			return;
		}
		rd_kafka_error_t *e = rd_kafka_incremental_unassign(rk, parts);
		if (e) {
			logf_(k, "warning: cannot release partitions: %s", rd_kafka_error_string(e));
			rd_kafka_error_destroy(e);
		}
		return;
	}
	logf_(k, "warning: rebalance error: %s", rd_kafka_err2str(err));
}

/* ------------------------------------------------------------------ */
/* Emitting                                                            */
/* ------------------------------------------------------------------ */

/*
 * Produces one record, waiting while the local queue is full: to rkt, or
 * the topic named by topic_name or topic; to partition (UA: by key); with
 * the input's headers and extra unless opaque is set (a changelog record,
 * whose opaque is its store partition, for the delivery report).
 */
static bool produce(stoat_kafka *k, stoat_ctx *cx, rd_kafka_topic_t *rkt, const char *topic_name,
		    stoat_str topic, stoat_str key, stoat_str value, const stoat_header *extra, size_t extra_count,
		    int32_t partition, void *opaque)
{
	const stoat_msg *m = cx->msg;
	enum { MAX_VU = 80 };
	rd_kafka_vu_t vu[MAX_VU];
	size_t n = 0;
	char topic_buf[256];
	if (rkt) {
		vu[n].vtype = RD_KAFKA_VTYPE_RKT;
		vu[n++].u.rkt = rkt;
	} else {
		const char *name = topic_name;
		if (!name) {
			size_t len = topic.len < sizeof topic_buf - 1 ? topic.len : sizeof topic_buf - 1;
			memcpy(topic_buf, topic.ptr, len);
			topic_buf[len] = '\0';
			name = topic_buf;
		}
		vu[n].vtype = RD_KAFKA_VTYPE_TOPIC;
		vu[n++].u.cstr = name;
	}
	vu[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
	vu[n++].u.i = RD_KAFKA_MSG_F_COPY;
	vu[n].vtype = RD_KAFKA_VTYPE_KEY;
	vu[n].u.mem.ptr = (void *)key.ptr;
	vu[n++].u.mem.size = key.ptr ? key.len : 0;
	vu[n].vtype = RD_KAFKA_VTYPE_VALUE;
	vu[n].u.mem.ptr = (void *)value.ptr;
	vu[n++].u.mem.size = value.ptr ? value.len : 0;
	vu[n].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
	vu[n++].u.i64 = m->timestamp;
	if (partition != RD_KAFKA_PARTITION_UA) {
		vu[n].vtype = RD_KAFKA_VTYPE_PARTITION;
		vu[n++].u.i32 = partition;
	}
	if (opaque) {
		vu[n].vtype = RD_KAFKA_VTYPE_OPAQUE;
		vu[n++].u.ptr = opaque;
	}
	/* Headers travel with the record, as in Kafka Streams. */
	for (size_t i = 0; !opaque && i < m->header_count + extra_count && n < MAX_VU; i++) {
		const stoat_header *h = i < m->header_count ? &m->headers[i] : &extra[i - m->header_count];
		vu[n].vtype = RD_KAFKA_VTYPE_HEADER;
		char *name = stoat_arena_alloc(&cx->arena, h->key.len + 1);
		memcpy(name, h->key.ptr, h->key.len);
		name[h->key.len] = '\0';
		vu[n].u.header.name = name;
		vu[n].u.header.val = h->value.ptr;
		vu[n++].u.header.size = h->value.ptr ? (ssize_t)h->value.len : 0;
	}
	for (;;) {
		rd_kafka_error_t *e = rd_kafka_produceva(k->producer, vu, n);
		if (!e)
			return true;
		rd_kafka_resp_err_t code = rd_kafka_error_code(e);
		if (code == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
			rd_kafka_error_destroy(e);
			rd_kafka_poll(k->producer, 50);
			continue;
		}
		if (code == RD_KAFKA_RESP_ERR__FATAL || fenced_error(code) || k->fenced) {
			/* Not the record's fault: abandon the batch (see replace_producer). */
			char why[256];
			rd_kafka_resp_err_t orig = rd_kafka_fatal_error(k->producer, why, sizeof why);
			if (k->eos && (fenced_error(orig) || k->fenced)) {
				k->fenced = true;
			} else {
				logf_(k, "error: the producer failed: %s (fatal: stopping)", rd_kafka_error_string(e));
				k->fatal = true;
				stop_requested = 1;
			}
			cx->abandoned = true;
			stoat_error(cx, "producer failed");
			rd_kafka_error_destroy(e);
			return false;
		}
		stoat_error(cx, "cannot produce to %s: %s", rkt ? rd_kafka_topic_name(rkt) : vu[0].u.cstr,
			    rd_kafka_error_string(e));
		rd_kafka_error_destroy(e);
		return false;
	}
}

bool stoat_kafka_emit(stoat_kafka *k, stoat_ctx *cx, int sink, stoat_str topic, stoat_str key, stoat_str value)
{
	rd_kafka_topic_t *rkt = topic.ptr ? NULL : k->sink_topics[sink];
	if (!produce(k, cx, rkt, NULL, topic, key, value, NULL, 0, RD_KAFKA_PARTITION_UA, NULL))
		return false;
	if (STOAT_UNLIKELY(!k->first_output_logged) && !k->app->sinks[sink].internal) {
		/* Start-up time as users see it (and the benchmark measures). */
		k->first_output_logged = true;
		logf_(k, "first output record after %" PRId64 " ms", now_ms() - k->started_ms);
	}
	return true;
}

/* A store write's changelog record: same key, value (NULL: tombstone),
 * to the store partition's own changelog partition. */
bool stoat_kafka_changelog(stoat_kafka *k, stoat_ctx *cx, stoat_store_part *p, stoat_str key, stoat_str value)
{
	rd_kafka_topic_t *rkt = k->changelog_topics[stoat_store_part_store(p)];
	return produce(k, cx, rkt, NULL, (stoat_str){ NULL, 0 }, key, value, NULL, 0, stoat_store_part_partition(p),
		       p);
}

void stoat_kafka_dead_letter(stoat_kafka *k, stoat_ctx *cx, const char *dlq_topic, const stoat_header *extra,
			     size_t extra_count)
{
	const stoat_msg *m = cx->msg;
	cx->error = false; /* produce() records its own failure, if any */
	if (!produce(k, cx, NULL, dlq_topic, (stoat_str){ NULL, 0 }, m->key, m->value, extra, extra_count,
		     RD_KAFKA_PARTITION_UA, NULL) &&
	    !cx->abandoned) {
		logf_(k, "error: cannot dead-letter a record: %s", cx->error_message);
		k->fatal = true;
		stop_requested = 1;
	}
	cx->error = true;
}

/* ------------------------------------------------------------------ */
/* The loop                                                            */
/* ------------------------------------------------------------------ */

/* Converts librdkafka's messages [from, to) of one partition and runs them. */
static void run_partition_batch(stoat_kafka *k, kafka_partition *p, rd_kafka_message_t **rk, size_t n)
{
	stoat_ctx *cx = &k->tasks[p->source];
	for (size_t i = 0; i < n; i++) {
		rd_kafka_message_t *r = rk[i];
		stoat_msg *m = &k->batch[i];
		rd_kafka_timestamp_type_t tt;
		m->partition = r->partition;
		m->offset = r->offset;
		m->timestamp = rd_kafka_message_timestamp(r, &tt);
		if (m->timestamp < 0)
			m->timestamp = 0;
		m->key = (stoat_str){ r->key, r->key ? r->key_len : 0 };
		m->value = (stoat_str){ r->payload, r->payload ? r->len : 0 };
		m->headers = NULL;
		m->header_count = 0;
		rd_kafka_headers_t *hdrs;
		if (rd_kafka_message_headers(r, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
			size_t count = rd_kafka_header_cnt(hdrs);
			stoat_header *h = stoat_arena_alloc(&cx->arena, count * sizeof *h);
			for (size_t j = 0; j < count; j++) {
				const char *name;
				const void *val;
				size_t size;
				if (rd_kafka_header_get_all(hdrs, j, &name, &val, &size) != RD_KAFKA_RESP_ERR_NO_ERROR)
					break;
				h[j].key = (stoat_str){ name, strlen(name) };
				h[j].value = (stoat_str){ val, val ? size : 0 };
				m->header_count = j + 1;
			}
			m->headers = h;
		}
	}
	cx->source = &k->app->sources[p->source];
	cx->msg = NULL;
	cx->error = false;
	cx->source->pipeline(cx, k->batch, n);
	cx->msg = NULL;
	stoat_arena_reset(&cx->arena);
	if (cx->abandoned) {
		/* The driver reprocesses from the last commit; nothing advances. */
		cx->abandoned = false;
		cx->stopped = false;
		return;
	}
	if (cx->stopped) {
		k->failed = true;
		stop_requested = 1;
		return;
	}
	p->next_offset = rk[n - 1]->offset + 1;
	k->dirty = true;
}

/* Handles an error event from the consumer queue. */
static void consumer_event(stoat_kafka *k, rd_kafka_message_t *r)
{
	if (r->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)
		return;
	int64_t now = now_ms();
	if (r->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || r->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC) {
		if (now - k->last_warn_ms >= 10000) {
			k->last_warn_ms = now;
			logf_(k, "warning: source topic %s does not exist (yet); waiting for it",
			      r->rkt ? rd_kafka_topic_name(r->rkt) : "?");
		}
		return;
	}
	if (now - k->last_warn_ms >= 1000) {
		k->last_warn_ms = now;
		logf_(k, "warning: consumer: %s", rd_kafka_message_errstr(r));
	}
}

/* Runs one batch from queue q, waiting up to timeout_ms for it; returns
 * the records taken. */
static ssize_t poll_queue(stoat_kafka *k, rd_kafka_queue_t *q, int timeout_ms)
{
	ssize_t n = rd_kafka_consume_batch_queue(q, timeout_ms, k->rkmsgs, k->opt->batch_max);
	if (n < 0) {
		logf_(k, "warning: consumer: %s", rd_kafka_err2str(rd_kafka_last_error()));
		return 0;
	}
	ssize_t records = 0;
	for (ssize_t i = 0; i < n; i++)
		if (!k->rkmsgs[i]->err)
			records++;
	if (records > 0 && k->eos && !k->failed && !begin_transaction(k)) {
		for (ssize_t i = 0; i < n; i++)
			rd_kafka_message_destroy(k->rkmsgs[i]);
		return 0;
	}
	ssize_t i = 0;
	while (i < n && !k->failed && !k->fatal && !k->fenced) {
		rd_kafka_message_t *r = k->rkmsgs[i];
		if (r->err) {
			consumer_event(k, r);
			i++;
			continue;
		}
		ssize_t j = i + 1;
		while (j < n && !k->rkmsgs[j]->err && k->rkmsgs[j]->rkt == r->rkt &&
		       k->rkmsgs[j]->partition == r->partition)
			j++;
		kafka_partition *p = find_part(k, rd_kafka_topic_name(r->rkt), r->partition);
		/* Records of a partition revoked meanwhile are not ours to process. */
		if (p && p->assigned && p->source != SIZE_MAX)
			run_partition_batch(k, p, &k->rkmsgs[i], (size_t)(j - i));
		i = j;
	}
	for (ssize_t m = 0; m < n; m++)
		rd_kafka_message_destroy(k->rkmsgs[m]);
	rd_kafka_poll(k->producer, 0);
	return records;
}

/*
 * Runs what is waiting: repartition records first (their own queue, see
 * rebalance_cb), then the consumer queue.  Records an app writes to its
 * own repartition topics would otherwise wait behind everything already
 * fetched from the source topics (queued.min.messages of them), delaying
 * every downstream sub-topology by that backlog.
 */
static ssize_t poll_once(stoat_kafka *k)
{
	ssize_t internal = 0;
	if (k->internal_queue)
		internal = poll_queue(k, k->internal_queue, 0);
	if (k->failed || k->fatal || k->fenced)
		return internal;
	return internal + poll_queue(k, k->queue, internal > 0 ? 0 : 100);
}

/* Partitions this instance holds now. */
static size_t assigned_count(const stoat_kafka *k)
{
	size_t n = 0;
	for (size_t i = 0; i < k->part_count; i++)
		n += k->parts[i].assigned;
	return n;
}

static stoat_counters total_counters(const stoat_kafka *k)
{
	stoat_counters t = { 0 };
	for (size_t i = 0; i < k->app->source_count; i++) {
		const stoat_counters *c = &k->tasks[i].counters;
		t.records_in += c->records_in;
		t.records_out += c->records_out;
		t.records_failed += c->records_failed;
		t.records_skipped += c->records_skipped;
		t.records_dead_lettered += c->records_dead_lettered;
		t.records_dropped += c->records_dropped;
	}
	if (k->state) {
		const stoat_counters *c = &stoat_state_flush_ctx(k->state)->counters;
		t.records_out += c->records_out;
		t.records_failed += c->records_failed;
		t.records_skipped += c->records_skipped;
		t.records_dead_lettered += c->records_dead_lettered;
		t.records_dropped += c->records_dropped;
	}
	return t;
}

/* A random hex id for this process (its transactional.id suffix). */
static void random_id(char *out, size_t n)
{
	FILE *f = fopen("/dev/urandom", "rb");
	unsigned char b[8] = { 0 };
	if (!f || fread(b, 1, sizeof b, f) != sizeof b) {
		uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		memcpy(b, &x, sizeof b);
	}
	if (f)
		fclose(f);
	snprintf(out, n, "%02x%02x%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
}

/*
 * Creates the internal topics (Admin API), as Kafka Streams does, waiting
 * for the source topics to exist: repartition topics with as many
 * partitions as the largest external source topic, and one compacted
 * changelog per store with as many partitions as the topics feeding it.
 * Existing topics are kept.  False if the process should stop.
 */
static bool create_internal_topics(stoat_kafka *k)
{
	const stoat_app *app = k->app;
	size_t internal = 0;
	for (size_t i = 0; i < app->source_count; i++)
		internal += app->sources[i].internal;
	size_t changelogs = k->state ? app->store_count : 0;
	if (internal + changelogs == 0)
		return true;
	int partitions = 0;
	int *source_partitions = xmalloc_(app->source_count * sizeof *source_partitions);
	while (!stop_requested) {
		const struct rd_kafka_metadata *md = NULL;
		rd_kafka_resp_err_t err = rd_kafka_metadata(k->producer, 1, NULL, &md, 10000);
		bool all = err == RD_KAFKA_RESP_ERR_NO_ERROR;
		const char *missing = NULL;
		for (size_t i = 0; all && i < app->source_count; i++) {
			if (app->sources[i].internal)
				continue;
			bool found = false;
			for (int t = 0; t < md->topic_cnt; t++)
				if (strcmp(md->topics[t].topic, app->sources[i].topic) == 0 && !md->topics[t].err) {
					found = true;
					source_partitions[i] = md->topics[t].partition_cnt;
					if (md->topics[t].partition_cnt > partitions)
						partitions = md->topics[t].partition_cnt;
				}
			if (!found) {
				all = false;
				missing = app->sources[i].topic;
			}
		}
		if (md)
			rd_kafka_metadata_destroy(md);
		if (all)
			break;
		if (err)
			logf_(k, "warning: cannot read the cluster's metadata (%s); retrying", rd_kafka_err2str(err));
		else
			logf_(k, "warning: source topic %s does not exist (yet); waiting for it before creating "
				 "the internal topics", missing);
		sleep(5);
	}
	if (stop_requested) {
		free(source_partitions);
		return false;
	}
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].internal)
			source_partitions[i] = partitions;
	/* Sources sharing a store must be co-partitioned (as Kafka Streams
	 * requires): key k's records meet in partition p of every one. */
	for (size_t s = 0; s < app->store_count; s++) {
		size_t first = SIZE_MAX;
		for (size_t i = 0; i < app->source_count; i++)
			for (size_t j = 0; j < app->sources[i].store_count; j++) {
				if (app->sources[i].stores[j] != (int)s)
					continue;
				if (first == SIZE_MAX)
					first = i;
				else if (source_partitions[i] != source_partitions[first]) {
					logf_(k, "error: topics %s (%d partitions) and %s (%d partitions) both feed table %s, "
						 "so they must have the same number of partitions",
					      app->sources[first].topic, source_partitions[first], app->sources[i].topic,
					      source_partitions[i], app->stores[s].name);
					free(source_partitions);
					return false;
				}
			}
	}
	rd_kafka_NewTopic_t **nts = xmalloc_((internal + changelogs) * sizeof *nts);
	int *counts = xmalloc_((internal + changelogs) * sizeof *counts);
	const char **names = xmalloc_((internal + changelogs) * sizeof *names);
	size_t n = 0;
	char err[256];
	for (size_t i = 0; i < app->source_count; i++) {
		if (!app->sources[i].internal)
			continue;
		counts[n] = partitions;
		names[n] = app->sources[i].topic;
		nts[n] = rd_kafka_NewTopic_new(names[n], partitions, -1, err, sizeof err);
		/*
		 * Records keep their event time, which may be old: time-based
		 * retention must not delete them before they are read back (as
		 * Kafka Streams configures its repartition topics).
		 */
		rd_kafka_NewTopic_set_config(nts[n], "retention.ms", "-1");
		n++;
	}
	for (size_t s = 0; s < changelogs; s++) {
		int count = 0;
		for (size_t i = 0; i < app->source_count; i++)
			for (size_t j = 0; j < app->sources[i].store_count; j++)
				if (app->sources[i].stores[j] == (int)s && source_partitions[i] > count)
					count = source_partitions[i];
		counts[n] = count > 0 ? count : partitions;
		names[n] = stoat_state_changelog_topic(k->state, (int)s);
		nts[n] = rd_kafka_NewTopic_new(names[n], counts[n], -1, err, sizeof err);
		/* Latest value per key is all a restore needs. */
		rd_kafka_NewTopic_set_config(nts[n], "cleanup.policy", "compact");
		n++;
	}
	free(source_partitions);
	rd_kafka_queue_t *q = rd_kafka_queue_new(k->producer);
	rd_kafka_CreateTopics(k->producer, nts, n, NULL, q);
	rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 60000);
	bool ok = ev != NULL;
	if (!ev) {
		logf_(k, "error: the cluster did not answer the request to create the internal topics");
	} else if (rd_kafka_event_error(ev)) {
		logf_(k, "error: cannot create the internal topics: %s", rd_kafka_event_error_string(ev));
		ok = false;
	} else {
		size_t cnt;
		const rd_kafka_topic_result_t **tr =
			rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &cnt);
		for (size_t i = 0; i < cnt; i++) {
			rd_kafka_resp_err_t e = rd_kafka_topic_result_error(tr[i]);
			const char *name = rd_kafka_topic_result_name(tr[i]);
			int count = 0;
			for (size_t j = 0; j < n; j++)
				if (strcmp(names[j], name) == 0)
					count = counts[j];
			if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
				logf_(k, "created internal topic %s with %d partitions", name, count);
			else if (e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
				logf_(k, "error: cannot create internal topic %s: %s", name,
				      rd_kafka_topic_result_error_string(tr[i]));
				ok = false;
			}
		}
	}
	if (ev)
		rd_kafka_event_destroy(ev);
	rd_kafka_queue_destroy(q);
	/*
	 * The brokers learn of new topics a little after the creation
	 * returns; subscribing before they do would leave the repartition
	 * topics unassigned until the next metadata refresh.
	 */
	for (int64_t deadline = now_ms() + 30000; ok && !stop_requested && now_ms() < deadline;) {
		const struct rd_kafka_metadata *md = NULL;
		size_t visible = 0;
		if (rd_kafka_metadata(k->producer, 1, NULL, &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
			for (size_t j = 0; j < n; j++)
				for (int t = 0; t < md->topic_cnt; t++) {
					if (strcmp(md->topics[t].topic, names[j]) != 0 || md->topics[t].err ||
					    md->topics[t].partition_cnt == 0)
						continue;
					visible++;
					/* An existing topic made for another partition count would
					 * split keys (repartition) or lose state (changelog). */
					if (md->topics[t].partition_cnt != counts[j]) {
						logf_(k, "error: internal topic %s has %d partitions, but the application needs "
							 "%d (its source topics changed?); delete it, or reset the application",
						      names[j], md->topics[t].partition_cnt, counts[j]);
						ok = false;
					}
				}
		}
		if (md)
			rd_kafka_metadata_destroy(md);
		if (visible == n)
			break;
		usleep(100 * 1000);
	}
	rd_kafka_NewTopic_destroy_array(nts, n);
	free(nts);
	free(counts);
	free(names);
	return ok;
}

static rd_kafka_t *new_consumer(stoat_kafka *k)
{
	/* The memory preset trades prefetching (throughput) for RSS. */
	bool low = k->opt->memory == STOAT_MEMORY_LOW;
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	bool ok = conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  conf_set(conf, k->prog, "group.id", k->app->app_id) &&
		  conf_set(conf, k->prog, "client.id", k->app->app_id) &&
		  conf_set(conf, k->prog, "partition.assignment.strategy",
			   has_shared_stores(k->app) ? "range" : "cooperative-sticky") &&
		  conf_set(conf, k->prog, "enable.auto.commit", "false") &&
		  conf_set(conf, k->prog, "enable.auto.offset.store", "false") &&
		  conf_set(conf, k->prog, "auto.offset.reset", "earliest") &&
		  conf_set(conf, k->prog, "isolation.level", "read_committed") &&
		  /* The defaults throttle consume->produce to ~200K msg/s. */
		  conf_set(conf, k->prog, "queued.min.messages", low ? "20000" : "200000") &&
		  conf_set(conf, k->prog, "queued.max.messages.kbytes", low ? "32768" : "131072") &&
		  conf_set(conf, k->prog, "max.partition.fetch.bytes", low ? "262144" : "1048576") &&
		  conf_set(conf, k->prog, "fetch.wait.max.ms", "100") &&
		  conf_set(conf, k->prog, "session.timeout.ms", "10000") &&
		  conf_set(conf, k->prog, "heartbeat.interval.ms", "1000") &&
		  conf_set(conf, k->prog, "topic.metadata.refresh.interval.ms", "5000") &&
		  conf_set(conf, k->prog, "allow.auto.create.topics", "false");
	/*
	 * Opt-in static membership (KIP-345): restarted with the same id, the
	 * instance gets its partitions back at once instead of after a
	 * rebalance.  Not the default: a static member does not leave the
	 * group on shutdown, and a broker restart can fence it.
	 */
	if (ok && k->opt->static_membership) {
		if (!k->opt->instance_id) {
			fprintf(stderr, "%s: error: static membership needs --instance-id\n", k->prog);
			ok = false;
		} else {
			ok = conf_set(conf, k->prog, "group.instance.id", k->opt->instance_id);
		}
	}
	rd_kafka_conf_set_rebalance_cb(conf, rebalance_cb);
	return make_client(k, conf, ok, "consumer", RD_KAFKA_CONSUMER, "the Kafka consumer");
}

/*
 * Registers the transactional id with its coordinator, which fences any
 * older producer with the same id and aborts what it left open.
 */
static bool init_transactions(stoat_kafka *k)
{
	for (;;) {
		rd_kafka_error_t *e = rd_kafka_init_transactions(k->producer, 30000);
		bool abort;
		k->fenced = false;
		if (txn_error(k, e, "initialising transactions", &abort))
			return true;
		if (k->fatal || stop_requested)
			return false;
		sleep(1);
	}
}

/*
 * Repartition topics are written uncompressed (as Kafka Streams writes
 * everything by default): their small records compress so well that one
 * fetch of a compressed batch expands to hundreds of thousands of queued
 * records, which librdkafka's queue limits cannot see coming.  NULL (the
 * producer's settings) for other sinks.
 */
static rd_kafka_topic_conf_t *internal_topic_conf(stoat_kafka *k, const stoat_sink *sink)
{
	if (!sink->internal)
		return NULL;
	rd_kafka_topic_conf_t *tc = rd_kafka_topic_conf_new();
	char err[256];
	if (rd_kafka_topic_conf_set(tc, "compression.type", "none", err, sizeof err) != RD_KAFKA_CONF_OK)
		logf_(k, "warning: repartition topic %s: %s", sink->topic, err);
	return tc;
}

/* Topic handles of the fixed output topics and the changelogs. */
static void open_sink_topics(stoat_kafka *k)
{
	for (size_t i = 0; i < k->app->sink_count; i++)
		if (k->app->sinks[i].topic)
			k->sink_topics[i] = rd_kafka_topic_new(k->producer, k->app->sinks[i].topic,
							       internal_topic_conf(k, &k->app->sinks[i]));
	for (size_t i = 0; k->state && i < k->app->store_count; i++)
		k->changelog_topics[i] =
			rd_kafka_topic_new(k->producer, stoat_state_changelog_topic(k->state, (int)i), NULL);
}

static void close_sink_topics(stoat_kafka *k)
{
	for (size_t i = 0; k->changelog_topics && i < k->app->store_count; i++)
		if (k->changelog_topics[i]) {
			rd_kafka_topic_destroy(k->changelog_topics[i]);
			k->changelog_topics[i] = NULL;
		}
	for (size_t i = 0; k->sink_topics && i < k->app->sink_count; i++)
		if (k->sink_topics[i]) {
			rd_kafka_topic_destroy(k->sink_topics[i]);
			k->sink_topics[i] = NULL;
		}
}

/*
 * The producer was fenced (see txn_error): drop it with everything it
 * had not committed, make a new one with the same transactional id, and
 * reprocess from the last commit.  Three fencings within a minute mean a
 * live instance with the same id: stop, with a message.
 */
static bool replace_producer(stoat_kafka *k)
{
	int64_t now = now_ms();
	if (k->fencings >= 3 && now - k->fenced_at[0] < 60000) {
		logf_(k, "error: fenced three times within a minute: another instance with transactional id %s is "
			 "running; stopping",
		      k->transactional_id);
		k->fatal = true;
		stop_requested = 1;
		return false;
	}
	k->fenced_at[0] = k->fenced_at[1];
	k->fenced_at[1] = k->fenced_at[2];
	k->fenced_at[2] = now;
	k->fencings++;
	logf_(k, "replacing the fenced producer; reprocessing from the last commit");
	rd_kafka_purge(k->producer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
	rd_kafka_poll(k->producer, 0);
	close_sink_topics(k);
	rd_kafka_destroy(k->producer);
	k->producer = new_producer(k, true);
	k->in_txn = false;
	k->fenced = false;
	if (!k->producer || !init_transactions(k)) {
		k->fatal = true;
		stop_requested = 1;
		return false;
	}
	open_sink_topics(k);
	k->delivery_error[0] = '\0';
	if (k->state)
		stoat_state_abort(k->state);
	rewind_to_committed(k);
	return true;
}

/* mkdir -p; false with errno set on failure. */
static bool make_dirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return false;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return false;
		buf[i] = c;
	}
	return true;
}

/*
 * Opens the stores: RocksDB in <state_dir>/<app_id>/<instance id or
 * "default">, which one process at a time may hold.
 */
static bool open_state(stoat_kafka *k)
{
	const char *base = k->opt->state_dir ? k->opt->state_dir : "/tmp/stoat";
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/%s/%s", base, k->app->app_id, k->opt->instance_id ? k->opt->instance_id : "default");
	if (!make_dirs(dir)) {
		logf_(k, "error: cannot create the state directory %s: %s", dir, strerror(errno));
		return false;
	}
	static const char *const presets[] = { "default", "low", "high" };
	size_t budget = k->opt->memory_budget ? k->opt->memory_budget : stoat_rocks_memory_budget(presets[k->opt->memory]);
	stoat_state_options so = { .dir = dir, .memory_budget = budget, .cache_max_bytes = k->opt->cache_max_bytes };
	char err[1024];
	k->state = stoat_state_open(k->app, &k->driver, &so, err, sizeof err);
	if (!k->state) {
		logf_(k, "error: %s%s", err,
		      strstr(err, "lock") ? " (another process uses this state directory: give each instance its own "
					    "--instance-id or --state-dir)"
					  : "");
		return false;
	}
	k->driver.state = k->state;
	k->changelog_topics = xmalloc_((k->app->store_count + 1) * sizeof *k->changelog_topics);
	logf_(k, "state: %zu store%s in %s, memory budget %zu MB, record cache %zu KB", k->app->store_count,
	      k->app->store_count == 1 ? "" : "s", dir, budget >> 20, k->opt->cache_max_bytes >> 10);
	return true;
}

int stoat_kafka_run(const stoat_app *app, const stoat_kafka_options *opt)
{
	/* First of all, so that a SIGTERM during start-up (restoring state,
	 * say) still stops cleanly, exits 0 and writes profiles. */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	stoat_kafka *k = xmalloc_(sizeof *k);
	k->started_ms = now_ms();
	k->app = app;
	k->opt = opt;
	k->eos = opt->guarantee == STOAT_EXACTLY_ONCE;
	k->driver.kind = STOAT_DRIVER_KAFKA;
	k->driver.app = app;
	k->driver.policy_override = opt->policy_override;
	k->driver.dlq_override = opt->dlq_override;
	k->driver.kafka = k;
	char rid[32];
	if (opt->instance_id)
		snprintf(k->transactional_id, sizeof k->transactional_id, "%s-%s", app->app_id, opt->instance_id);
	else {
		random_id(rid, sizeof rid);
		snprintf(k->transactional_id, sizeof k->transactional_id, "%s-%s", app->app_id, rid);
	}
	const char *prog = app->app_id;
	k->prog = prog;
	int status = STOAT_EXIT_OK;

	if (app->store_count > 0 && !open_state(k)) {
		status = STOAT_EXIT_IO;
		goto out;
	}
	k->producer = new_producer(k, k->eos);
	k->consumer = k->producer ? new_consumer(k) : NULL;
	if (!k->producer || !k->consumer) {
		status = STOAT_EXIT_USAGE;
		goto out;
	}
	logf_(k, "starting: %s, commit interval %" PRId64 " ms, cluster %s%s%s", k->eos ? "exactly_once" : "at_least_once",
	      opt->commit_interval_ms, opt->bootstrap_servers, k->eos ? ", transactional id " : "",
	      k->eos ? k->transactional_id : "");


	/* Also fences and aborts what a previous incarnation left open. */
	if (k->eos && !init_transactions(k)) {
		status = stop_requested && !k->fatal ? STOAT_EXIT_OK : STOAT_EXIT_IO;
		goto out;
	}

	k->sink_topics = xmalloc_((app->sink_count + 1) * sizeof *k->sink_topics);
	open_sink_topics(k);
	k->tasks = xmalloc_(app->source_count * sizeof *k->tasks);
	for (size_t i = 0; i < app->source_count; i++) {
		stoat_ctx *cx = &k->tasks[i];
		stoat_arena_init(&cx->arena);
		stoat_buf_init(&cx->key_buf);
		stoat_buf_init(&cx->value_buf);
		cx->app = app;
		cx->source = &app->sources[i];
		cx->driver = &k->driver;
	}
	k->rkmsgs = xmalloc_(opt->batch_max * sizeof *k->rkmsgs);
	k->batch = xmalloc_(opt->batch_max * sizeof *k->batch);

	if (!create_internal_topics(k)) {
		status = stop_requested && !k->fatal ? STOAT_EXIT_OK : STOAT_EXIT_IO;
		goto out;
	}
	rd_kafka_topic_partition_list_t *subs = rd_kafka_topic_partition_list_new((int)app->source_count);
	for (size_t i = 0; i < app->source_count; i++)
		rd_kafka_topic_partition_list_add(subs, app->sources[i].topic, RD_KAFKA_PARTITION_UA);
	rd_kafka_resp_err_t err = rd_kafka_subscribe(k->consumer, subs);
	rd_kafka_topic_partition_list_destroy(subs);
	if (err) {
		logf_(k, "error: cannot subscribe: %s", rd_kafka_err2str(err));
		status = STOAT_EXIT_IO;
		goto out;
	}
	rd_kafka_poll_set_consumer(k->consumer);
	k->queue = rd_kafka_queue_get_consumer(k->consumer);
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].internal && !k->internal_queue)
			k->internal_queue = rd_kafka_queue_new(k->consumer);
	k->last_commit_ms = k->last_input_ms = now_ms();

	while (!stop_requested) {
		ssize_t got = poll_once(k);
		int64_t now = now_ms();
		if (got > 0)
			k->last_input_ms = now;
		if (k->failed || k->fatal)
			break;
		if (k->fenced) {
			if (!replace_producer(k))
				break;
			continue;
		}
		if (k->delivery_error[0]) {
			if (k->eos) {
				logf_(k, "warning: %s; aborting the transaction", k->delivery_error);
				abort_and_rewind(k);
			} else {
				logf_(k, "error: %s; stopping without committing", k->delivery_error);
				k->fatal = true;
				break;
			}
		}
		if (now - k->last_commit_ms >= opt->commit_interval_ms && (k->dirty || k->in_txn)) {
			if (!commit(k))
				break;
		}
		purge_poll(k, 0);
		purge_repartition_topics(k);
		/*
		 * Idle: nothing read for the idle time.  An instance holding no
		 * partitions (they were lost, say, while a broker restarted)
		 * waits three times as long for the group to give it some back.
		 */
		int64_t idle_limit = opt->idle_exit_ms * (assigned_count(k) > 0 ? 1 : 3);
		if (opt->idle_exit_ms > 0 && now - k->last_input_ms >= idle_limit && !k->dirty && !k->in_txn) {
			logf_(k, "no input for %" PRId64 " ms: stopping (--idle-exit)", opt->idle_exit_ms);
			break;
		}
	}

	if (k->failed) {
		/* The fail policy: nothing after the last commit is kept. */
		if (k->state)
			stoat_state_abort(k->state);
		if (k->eos && k->in_txn) {
			rd_kafka_error_t *e = rd_kafka_abort_transaction(k->producer, 30000);
			if (e)
				rd_kafka_error_destroy(e);
		}
		status = STOAT_EXIT_RECORD_FAILED;
	} else if (k->fatal) {
		status = STOAT_EXIT_IO;
	} else {
		logf_(k, "stopping: committing and leaving the group");
		if (!commit(k))
			status = STOAT_EXIT_IO;
		else if (k->fenced)
			logf_(k, "warning: the producer was fenced while stopping: the last records will be "
				 "processed again by the next run");
	}

out:
	if (k->queue)
		rd_kafka_queue_destroy(k->queue);
	if (k->internal_queue)
		rd_kafka_queue_destroy(k->internal_queue);
	if (k->consumer) {
		/* Leaves the group; the revocation commits nothing more now. */
		k->failed = k->failed || k->fatal || status != STOAT_EXIT_OK;
		rd_kafka_consumer_close(k->consumer);
		rd_kafka_destroy(k->consumer);
	}
	if (k->purge_results) {
		purge_poll(k, 2000);
		rd_kafka_queue_destroy(k->purge_results);
	}
	if (k->restorer) {
		rd_kafka_consumer_close(k->restorer);
		rd_kafka_destroy(k->restorer);
	}
	if (k->producer) {
		if (status == STOAT_EXIT_OK && !k->eos)
			rd_kafka_flush(k->producer, 30000);
		close_sink_topics(k);
		rd_kafka_destroy(k->producer);
	}
	if (k->tasks) {
		stoat_counters total = total_counters(k);
		stoat_print_summary(stderr, &k->driver, &total);
		if (opt->stats)
			logf_(k, "commits %" PRIu64 ", aborted transactions %" PRIu64, k->commits, k->aborts);
		for (size_t i = 0; i < app->source_count; i++) {
			stoat_arena_free(&k->tasks[i].arena);
			stoat_buf_free(&k->tasks[i].key_buf);
			stoat_buf_free(&k->tasks[i].value_buf);
		}
	}
	for (size_t i = 0; i < k->part_count; i++)
		free(k->parts[i].topic);
	free(k->parts);
	free(k->tasks);
	free(k->rkmsgs);
	free(k->batch);
	free(k->sink_topics);
	free(k->changelog_topics);
	stoat_state_close(k->state);
	free(k);
	return status;
}

/* ------------------------------------------------------------------ */
/* load: replay-format files into Kafka                                */
/* ------------------------------------------------------------------ */

typedef struct load_state {
	stoat_kafka *k;
	uint64_t produced;
	bool failed;
} load_state;

/* The batch hook of the replay reader: produce each record as given. */
static void load_batch(void *arg, stoat_ctx *cx, const stoat_msg *msgs, size_t n)
{
	load_state *ls = arg;
	stoat_kafka *k = ls->k;
	const char *topic = cx->source->topic;
	for (size_t i = 0; i < n && !ls->failed; i++) {
		const stoat_msg *m = &msgs[i];
		rd_kafka_headers_t *hdrs = m->header_count ? rd_kafka_headers_new(m->header_count) : NULL;
		for (size_t h = 0; h < m->header_count; h++)
			rd_kafka_header_add(hdrs, m->headers[h].key.ptr, (ssize_t)m->headers[h].key.len,
					    m->headers[h].value.ptr, m->headers[h].value.ptr ? (ssize_t)m->headers[h].value.len : 0);
		for (;;) {
			rd_kafka_resp_err_t err = rd_kafka_producev(
				k->producer, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(m->partition),
				RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
				RD_KAFKA_V_KEY((void *)m->key.ptr, m->key.ptr ? m->key.len : 0),
				RD_KAFKA_V_VALUE((void *)m->value.ptr, m->value.ptr ? m->value.len : 0),
				RD_KAFKA_V_TIMESTAMP(m->timestamp), RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_END);
			if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
				rd_kafka_poll(k->producer, 50);
				continue;
			}
			if (err) {
				fprintf(stderr, "%s: error: cannot produce to %s[%" PRId32 "]: %s\n", k->app->app_id, topic,
					m->partition, rd_kafka_err2str(err));
				if (hdrs)
					rd_kafka_headers_destroy(hdrs);
				ls->failed = true;
			} else {
				ls->produced++;
			}
			break;
		}
		if (k->delivery_error[0])
			ls->failed = true;
	}
}

int stoat_kafka_load(const stoat_app *app, const stoat_kafka_options *opt, const char **inputs, size_t n)
{
	stoat_kafka *k = xmalloc_(sizeof *k);
	k->app = app;
	k->opt = opt;
	k->prog = app->app_id;
	k->producer = new_producer(k, false);
	if (!k->producer) {
		free(k);
		return STOAT_EXIT_USAGE;
	}
	/* Loading is a one-off: give up on an unreachable cluster. */
	load_state ls = { .k = k };
	stoat_replay_options ro;
	memset(&ro, 0, sizeof ro);
	ro.policy_override = STOAT_POLICY_DEFAULT;
	ro.batch_max = 1024;
	ro.inputs = inputs;
	ro.input_count = n;
	ro.output_path = "/dev/null";
	ro.batch_hook = load_batch;
	ro.hook_arg = &ls;
	int status = stoat_replay_run(app, &ro);
	if (status == STOAT_EXIT_OK && !ls.failed) {
		int64_t start = now_ms();
		while (rd_kafka_outq_len(k->producer) > 0 && !k->delivery_error[0]) {
			rd_kafka_poll(k->producer, 100);
			if (now_ms() - start > 120000) {
				snprintf(k->delivery_error, sizeof k->delivery_error, "timed out waiting for the cluster");
				break;
			}
		}
	}
	if (k->delivery_error[0]) {
		fprintf(stderr, "%s: error: %s\n", app->app_id, k->delivery_error);
		status = STOAT_EXIT_IO;
	} else if (ls.failed && status == STOAT_EXIT_OK) {
		status = STOAT_EXIT_IO;
	}
	if (status == STOAT_EXIT_OK)
		fprintf(stderr, "%s: loaded %" PRIu64 " records\n", app->app_id, ls.produced);
	rd_kafka_destroy(k->producer);
	free(k);
	return status;
}

/* ------------------------------------------------------------------ */
/* dump: topics to replay-format lines                                 */
/* ------------------------------------------------------------------ */

/* The formats to present a topic's records with: its sink's or source's. */
static void topic_formats(const stoat_app *app, const char *topic, stoat_format *kf, stoat_format *vf)
{
	*kf = *vf = STOAT_FMT_BYTES;
	for (size_t i = 0; i < app->sink_count; i++)
		if (app->sinks[i].topic && strcmp(app->sinks[i].topic, topic) == 0) {
			*kf = app->sinks[i].key_format;
			*vf = app->sinks[i].value_format;
			return;
		}
	for (size_t i = 0; i < app->source_count; i++)
		if (strcmp(app->sources[i].topic, topic) == 0) {
			*kf = app->sources[i].key_format;
			*vf = app->sources[i].value_format;
			return;
		}
	/* Per-record topics share their sink's formats; a DLQ topic is bytes. */
	for (size_t i = 0; i < app->sink_count; i++)
		if (!app->sinks[i].topic) {
			*kf = app->sinks[i].key_format;
			*vf = app->sinks[i].value_format;
		}
	if ((app->dlq_topic && strcmp(app->dlq_topic, topic) == 0))
		*kf = *vf = STOAT_FMT_BYTES;
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].dlq_topic && strcmp(app->sources[i].dlq_topic, topic) == 0)
			*kf = *vf = STOAT_FMT_BYTES;
}

int stoat_kafka_dump(const stoat_app *app, const stoat_kafka_options *opt, const char **topics, size_t n,
		     int64_t idle_ms, bool read_committed)
{
	const char *prog = app->app_id;
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char err[512];
	char group[128];
	snprintf(group, sizeof group, "%s-dump-%d", app->app_id, (int)getpid());
	stoat_kafka k0;
	memset(&k0, 0, sizeof k0);
	k0.app = app;
	k0.opt = opt;
	bool ok = conf_set(conf, prog, "bootstrap.servers", opt->bootstrap_servers) &&
		  conf_set(conf, prog, "group.id", group) &&
		  conf_set(conf, prog, "enable.auto.commit", "false") &&
		  conf_set(conf, prog, "enable.partition.eof", "true") &&
		  conf_set(conf, prog, "isolation.level", read_committed ? "read_committed" : "read_uncommitted") &&
		  conf_user(conf, opt, prog, "consumer");
	if (!ok) {
		rd_kafka_conf_destroy(conf);
		return STOAT_EXIT_USAGE;
	}
	rd_kafka_conf_set_opaque(conf, &k0);
	rd_kafka_conf_set_error_cb(conf, error_cb);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
	if (!rk) {
		fprintf(stderr, "%s: error: cannot create the Kafka consumer: %s\n", prog, err);
		return STOAT_EXIT_USAGE;
	}
	/* Every partition of every topic, from the beginning. */
	rd_kafka_topic_partition_list_t *assign = rd_kafka_topic_partition_list_new(16);
	int status = STOAT_EXIT_OK;
	for (size_t t = 0; t < n && status == STOAT_EXIT_OK; t++) {
		rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topics[t], NULL);
		const struct rd_kafka_metadata *md = NULL;
		rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
		if (e || md->topic_cnt != 1 || md->topics[0].err) {
			fprintf(stderr, "%s: error: topic %s: %s\n", prog, topics[t],
				rd_kafka_err2str(e ? e : md->topic_cnt ? md->topics[0].err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
			status = STOAT_EXIT_IO;
		} else {
			for (int p = 0; p < md->topics[0].partition_cnt; p++)
				rd_kafka_topic_partition_list_add(assign, topics[t], md->topics[0].partitions[p].id)->offset =
					RD_KAFKA_OFFSET_BEGINNING;
		}
		if (md)
			rd_kafka_metadata_destroy(md);
		rd_kafka_topic_destroy(rkt);
	}
	if (status == STOAT_EXIT_OK && rd_kafka_assign(rk, assign)) {
		fprintf(stderr, "%s: error: cannot assign partitions\n", prog);
		status = STOAT_EXIT_IO;
	}
	int eof_left = assign->cnt;
	rd_kafka_topic_partition_list_destroy(assign);
	stoat_ctx check;
	memset(&check, 0, sizeof check);
	stoat_arena_init(&check.arena);
	stoat_buf out;
	stoat_buf_init(&out);
	int64_t last = now_ms();
	uint64_t count = 0;
	while (status == STOAT_EXIT_OK) {
		rd_kafka_message_t *r = rd_kafka_consumer_poll(rk, 100);
		if (!r) {
			if (eof_left <= 0 && now_ms() - last >= idle_ms)
				break;
			continue;
		}
		if (r->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			eof_left--;
			last = now_ms();
		} else if (r->err) {
			fprintf(stderr, "%s: warning: %s\n", prog, rd_kafka_message_errstr(r));
		} else {
			last = now_ms();
			const char *topic = rd_kafka_topic_name(r->rkt);
			stoat_format kf, vf;
			topic_formats(app, topic, &kf, &vf);
			rd_kafka_timestamp_type_t tt;
			int64_t ts = rd_kafka_message_timestamp(r, &tt);
			stoat_header hs[64];
			size_t hn = 0;
			rd_kafka_headers_t *hdrs;
			if (rd_kafka_message_headers(r, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
				const char *name;
				const void *val;
				size_t size;
				while (hn < 64 && rd_kafka_header_get_all(hdrs, hn, &name, &val, &size) == 0) {
					hs[hn].key = (stoat_str){ name, strlen(name) };
					hs[hn].value = (stoat_str){ val, val ? size : 0 };
					hn++;
				}
			}
			out.len = 0;
			stoat_format_record_line(&out, &check, (stoat_str){ topic, strlen(topic) }, r->partition, r->offset,
						 ts < 0 ? 0 : ts, kf, (stoat_str){ r->key, r->key ? r->key_len : 0 }, vf,
						 (stoat_str){ r->payload, r->payload ? r->len : 0 }, hs, hn, NULL, 0);
			fwrite(out.data, 1, out.len, stdout);
			count++;
		}
		rd_kafka_message_destroy(r);
	}
	fflush(stdout);
	if (status == STOAT_EXIT_OK)
		fprintf(stderr, "%s: dumped %" PRIu64 " records\n", prog, count);
	stoat_buf_free(&out);
	stoat_arena_free(&check.arena);
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	return status;
}
