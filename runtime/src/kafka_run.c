/*
 * kafka_run.c - the Kafka driver's `run`: start-up, the loop, shutdown.
 *
 * One stream thread: a consumer in the application's consumer group
 * (cooperative-sticky rebalancing, read_committed, offsets committed by
 * us) and one producer (idempotent, zstd; transactional under
 * exactly-once).  The loop takes a batch of records from the consumer
 * queue, hands each run of records from one partition to its source's
 * pipeline, and commits on the commit interval (kafka_commit.c).
 * Partitions are revoked only after the work done on them is committed
 * (kafka_rebalance.c).  SIGTERM and SIGINT finish the batch, commit and
 * leave the group, within the shutdown timeout (the watchdog below).
 */
#include "kafka_impl.h"
#include "global.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t kafka_stop_requested;

/*
 * The shutdown watchdog.  Some of librdkafka 2.0.2's calls can block for
 * ever while a process stops: rd_kafka_destroy of a consumer whose source
 * topic was deleted and re-created waits for a broker thread that never
 * ends (a leaked partition reference: confluentinc/librdkafka#4362).  So
 * the stop is bounded: a thread, woken by the signal or by the loop's own
 * stop, exits the process shutdown_timeout after the stop began if the
 * run has not finished by then, saying what the stop was doing.
 */
static struct {
	sem_t begin;                       /* posted when the stop begins (signal-safe) */
	sem_t done;                        /* posted when the run has finished */
	pthread_t thread;
	volatile sig_atomic_t running;     /* the thread exists */
	int64_t timeout_ms;
	const char *prog;
	_Atomic int64_t deadline_ms;       /* stoat_now_ms() time; 0 until the stop begins */
	const char *_Atomic stage;         /* what the stop does now, for the message */
	atomic_int status;                 /* the exit status once settled */
	atomic_bool settled;               /* all committed and closed but the clients */
} watchdog;

/* Sets the deadline, once: shutdown_timeout from now. */
static int64_t watchdog_deadline(void)
{
	int64_t none = 0;
	atomic_compare_exchange_strong(&watchdog.deadline_ms, &none, stoat_now_ms() + watchdog.timeout_ms);
	return atomic_load(&watchdog.deadline_ms);
}

/* The message and the exit when the deadline passes. */
static void watchdog_fire(void)
{
	char msg[768];
	int n;
	long long secs = (long long)(watchdog.timeout_ms / 1000);
	if (atomic_load(&watchdog.settled))
		n = snprintf(msg, sizeof msg,
			     "%s: warning: librdkafka did not finish %s within %lld s of the stop (it can wait for "
			     "ever there after a source topic was deleted: confluentinc/librdkafka#4362); everything "
			     "is committed: exiting with status %d without waiting for it\n",
			     watchdog.prog, atomic_load(&watchdog.stage), secs, atomic_load(&watchdog.status));
	else
		n = snprintf(msg, sizeof msg,
			     "%s: error: the stop did not finish within %lld s (shutdown_timeout), still %s; exiting "
			     "with status %d without waiting: what was not committed is processed again by the next "
			     "run\n",
			     watchdog.prog, secs, atomic_load(&watchdog.stage), STOAT_EXIT_IO);
	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0)
		n = 0;
	_exit(atomic_load(&watchdog.settled) ? atomic_load(&watchdog.status) : STOAT_EXIT_IO);
}

/* The watchdog thread: sleeps until the stop begins, then until the run
 * finishes or the deadline passes. */
static void *watchdog_main(void *arg)
{
	(void)arg;
	while (sem_wait(&watchdog.begin) != 0)
		assert(errno == EINTR);
	int64_t deadline = watchdog_deadline();
	for (;;) {
		int64_t left = deadline - stoat_now_ms();
		if (left <= 0)
			watchdog_fire();
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int64_t step = left < 200 ? left : 200; /* a wall-clock jump costs one step */
		ts.tv_nsec += (long)(step % 1000) * 1000000L;
		ts.tv_sec += (time_t)(step / 1000) + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		if (sem_timedwait(&watchdog.done, &ts) == 0)
			return NULL;
	}
}

/* Starts the watchdog thread (asleep until the stop begins). */
static void watchdog_start(const char *prog, int64_t timeout_ms)
{
	assert(!watchdog.running);
	watchdog.prog = prog;
	watchdog.timeout_ms = timeout_ms > 0 ? timeout_ms : 20000;
	atomic_store(&watchdog.deadline_ms, 0);
	atomic_store(&watchdog.stage, "starting");
	atomic_store(&watchdog.settled, false);
	atomic_store(&watchdog.status, STOAT_EXIT_OK);
	sem_init(&watchdog.begin, 0, 0);
	sem_init(&watchdog.done, 0, 0);
	watchdog.running = pthread_create(&watchdog.thread, NULL, watchdog_main, NULL) == 0;
}

/* The stop begins (again: harmless): the deadline runs from the first. */
static void watchdog_begin(const char *stage)
{
	atomic_store(&watchdog.stage, stage);
	if (!watchdog.running)
		return;
	watchdog_deadline();
	sem_post(&watchdog.begin);
}

/* What the stop does now, for the watchdog's message. */
static void watchdog_stage(const char *stage)
{
	atomic_store(&watchdog.stage, stage);
}

/* Everything is committed and closed; status is the run's. */
static void watchdog_settle(int status)
{
	atomic_store(&watchdog.status, status);
	atomic_store(&watchdog.settled, true);
}

/* The run has finished: the watchdog thread ends. */
static void watchdog_stop(void)
{
	if (!watchdog.running)
		return;
	sem_post(&watchdog.begin);
	sem_post(&watchdog.done);
	pthread_join(watchdog.thread, NULL);
	watchdog.running = 0;
	sem_destroy(&watchdog.begin);
	sem_destroy(&watchdog.done);
}

/* SIGTERM, SIGINT: finish the batch, commit, leave the group; the
 * watchdog's clock starts. */
static void on_signal(int sig)
{
	(void)sig;
	kafka_stop_requested = 1;
	if (watchdog.running)
		sem_post(&watchdog.begin);
}

/* The log's redact hook: opt's secret values blotted out of a line. */
static void redact_secrets(void *arg, char *message)
{
	stoat_kafka_redact(arg, message);
}

/* Converts librdkafka's messages rk[0..n) of partition p and runs them. */
void kafka_run_partition_batch(stoat_kafka *k, kafka_partition *p, rd_kafka_message_t **rk, size_t n)
{
	stoat_ctx *cx = &k->tasks[p->source];
	for (size_t i = 0; i < n; i++) {
		rd_kafka_message_t *r = rk[i];
		stoat_msg *m = &k->batch[i];
		rd_kafka_timestamp_type_t tt;
		m->partition = r->partition;
		m->offset = r->offset;
		/* Passed on as it is, -1 (none) or negative included: the
		 * generated code sends an invalid event time to the source's
		 * error policy, as Kafka Streams' FailOnInvalidTimestamp. */
		m->timestamp = rd_kafka_message_timestamp(r, &tt);
		m->key = (stoat_str){ r->key, r->key ? r->key_len : 0 };
		m->value = (stoat_str){ r->payload, r->payload ? r->len : 0 };
		/* Headers only when used (kafka_load_headers): librdkafka parses
		 * them into a malloc'd list per record on first access, a cost
		 * every record paid here though most never read or forward one. */
		m->headers = NULL;
		m->header_count = 0;
		m->lazy_headers = r;
	}
	cx->source = &k->app->sources[p->source];
	cx->msg = NULL;
	cx->error = false;
	if (k->http) {
		double t0 = stoat_now_seconds();
		cx->source->pipeline(cx, k->batch, n);
		stoat_histogram_observe(&k->batch_seconds[p->source], stoat_now_seconds() - t0);
	} else {
		cx->source->pipeline(cx, k->batch, n);
	}
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
		kafka_stop_requested = 1;
		return;
	}
	p->next_offset = rk[n - 1]->offset + 1;
	k->dirty = true;
}

/*
 * The driver's load_headers (driver.h): the headers of m's librdkafka
 * record, into cx's arena (names and values stay librdkafka's, valid
 * while the record is, which is the whole batch).
 */
void kafka_load_headers(stoat_driver *d, stoat_ctx *cx, stoat_msg *m)
{
	(void)d;
	const rd_kafka_message_t *r = m->lazy_headers;
	m->lazy_headers = NULL;
	m->headers = NULL;
	m->header_count = 0;
	rd_kafka_headers_t *hdrs;
	if (rd_kafka_message_headers(r, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR)
		return;
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

/* Handles an error event from a consumer queue. */
void kafka_consumer_event(stoat_kafka *k, rd_kafka_message_t *r)
{
	if (r->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
		/* In the queue's order: every record before the end has been run (the endpoint's lag). */
		kafka_partition *p = r->rkt ? kafka_find_part(k, rd_kafka_topic_name(r->rkt), r->partition) : NULL;
		if (p && !p->queue)
			p->at_end = true;
		return;
	}
	int64_t now = stoat_now_ms();
	if (r->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || r->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC) {
		if (now - k->last_warn_ms >= 10000) {
			k->last_warn_ms = now;
			kafka_log(k, "warning: source topic %s does not exist (yet); waiting for it",
			      r->rkt ? rd_kafka_topic_name(r->rkt) : "?");
		}
		return;
	}
	if (now - k->last_warn_ms >= 1000) {
		k->last_warn_ms = now;
		kafka_log(k, "warning: consumer: %s", rd_kafka_message_errstr(r));
	}
}

/* Runs one batch from queue q, waiting up to timeout_ms for it; returns
 * the records taken. */
static ssize_t poll_queue(stoat_kafka *k, rd_kafka_queue_t *q, int timeout_ms)
{
	ssize_t n = rd_kafka_consume_batch_queue(q, timeout_ms, k->rkmsgs, k->opt->batch_max);
	if (n < 0) {
		kafka_log(k, "warning: consumer: %s", rd_kafka_err2str(rd_kafka_last_error()));
		return 0;
	}
	ssize_t records = 0, run = 0;
	size_t bytes = 0;
	for (ssize_t i = 0; i < n; i++) {
		rd_kafka_message_t *r = k->rkmsgs[i];
		if (r->err)
			continue;
		records++;
		bytes += r->len;
		/* Fetched before its partition had its own queue (kafka_order.c):
		 * held there, in offset order, for its task. */
		if (k->ordered) {
			kafka_partition *p = kafka_find_part(k, rd_kafka_topic_name(r->rkt), r->partition);
			if (p && p->assigned && p->source != SIZE_MAX && k->ordered[p->source]) {
				kafka_order_hold(k, p, r);
				k->rkmsgs[i] = NULL;
				continue;
			}
		}
		run++;
	}
	kafka_waker_note(k, q, (size_t)records, k->opt->batch_max, bytes);
	if (k->http && run > 0)
		k->wall_ms = stoat_wall_ms(); /* end-to-end latency of the batch's outputs */
	if (run > 0 && k->eos && !k->failed && !kafka_begin_transaction(k)) {
		for (ssize_t i = 0; i < n; i++)
			if (k->rkmsgs[i])
				rd_kafka_message_destroy(k->rkmsgs[i]);
		return 0;
	}
	ssize_t i = 0;
	while (i < n && !k->failed && !k->fatal && !k->fenced) {
		rd_kafka_message_t *r = k->rkmsgs[i];
		if (!r) {
			i++;
			continue;
		}
		if (r->err) {
			kafka_consumer_event(k, r);
			i++;
			continue;
		}
		ssize_t j = i + 1;
		while (j < n && k->rkmsgs[j] && !k->rkmsgs[j]->err && k->rkmsgs[j]->rkt == r->rkt &&
		       k->rkmsgs[j]->partition == r->partition)
			j++;
		kafka_partition *p = kafka_find_part(k, rd_kafka_topic_name(r->rkt), r->partition);
		/* Records of a partition revoked meanwhile are not ours to process. */
		if (p && p->assigned && p->source != SIZE_MAX) {
			p->at_end = false;
			kafka_run_partition_batch(k, p, &k->rkmsgs[i], (size_t)(j - i));
		}
		i = j;
	}
	for (ssize_t m = 0; m < n; m++)
		if (k->rkmsgs[m])
			rd_kafka_message_destroy(k->rkmsgs[m]);
	rd_kafka_poll(k->producer, 0);
	return records;
}

/*
 * Runs what is waiting: repartition records first (their own queue, see
 * kafka_rebalance_cb), then the tasks of several partitions (each
 * partition's own queue, kafka_order.c), then the consumer queue.  Records
 * an app writes to its own repartition topics would otherwise wait behind
 * everything already fetched from the source topics (queued.min.messages
 * of them), delaying every downstream sub-topology by that backlog.  The
 * consumer queue is waited on only when nothing ran, and briefly while
 * partitions with queues of their own are held: nothing wakes the wait
 * when records come to those.
 */
static ssize_t poll_once(stoat_kafka *k)
{
	ssize_t internal = 0, ordered = 0;
	if (k->internal_queue)
		internal = poll_queue(k, k->internal_queue, 0);
	if (k->ordered && !k->failed && !k->fatal && !k->fenced)
		ordered = kafka_order_poll(k);
	if (k->failed || k->fatal || k->fenced)
		return internal + ordered;
	int timeout = internal > 0 || ordered > 0 ? 0 : k->ordered_count > 0 ? 10 : 100;
	return internal + ordered + poll_queue(k, k->queue, timeout);
}

/* Partitions this instance holds now. */
static size_t assigned_count(const stoat_kafka *k)
{
	size_t n = 0;
	for (size_t i = 0; i < k->part_count; i++)
		n += k->parts[i].assigned;
	return n;
}

/*
 * Whether an idle instance may stop (--idle-exit): only when no source
 * partition it does not hold has records after the group's committed
 * offset (kafka_unprocessed_elsewhere).  While some do and another
 * instance commits progress on them, it waits; when none commits any for
 * three times the idle time, it stops with an error (k->fatal: status 3)
 * naming them, rather than end the drain with status 0 and records never
 * processed (a group member that never got its assignment, say).
 */
static bool idle_exit_allowed(stoat_kafka *k, int64_t now)
{
	char names[512];
	int64_t committed = 0;
	int n = kafka_unprocessed_elsewhere(k, &committed, names, sizeof names);
	now = stoat_now_ms();
	if (n == 0)
		return true;
	k->idle_next_check_ms = now + 2000;
	if (k->idle_wait_since_ms == 0 || (n > 0 && committed != k->idle_wait_committed)) {
		if (k->idle_wait_since_ms == 0 && n > 0)
			kafka_log(k, "idle, but not stopping: %s hold%s records this instance was not given; waiting for "
				     "them to be processed",
				  names, n == 1 ? "s" : "");
		else if (k->idle_wait_since_ms == 0)
			kafka_log(k, "idle, but not stopping: cannot read the group's progress on the partitions of other "
				     "instances; waiting");
		k->idle_wait_since_ms = now;
		k->idle_wait_committed = committed;
		return false;
	}
	int64_t limit = 3 * k->opt->idle_exit_ms;
	if (now - k->idle_wait_since_ms < limit)
		return false;
	if (n > 0)
		kafka_log(k, "error: no input for %" PRId64 " ms (--idle-exit), but %s still hold%s records that no "
			  "instance of the group has made progress on for %" PRId64 " ms (not assigned to any "
			  "running instance?): stopping with them unprocessed",
			  k->opt->idle_exit_ms, names, n == 1 ? "s" : "", limit);
	else
		kafka_log(k, "error: no input for %" PRId64 " ms (--idle-exit), but the group's progress on the "
			  "partitions of other instances could not be read for %" PRId64 " ms: stopping",
			  k->opt->idle_exit_ms, limit);
	k->fatal = true;
	return true;
}

/*
 * Opens the stores: RocksDB in <state_dir>/<app_id>/<instance id or
 * "default">, which one process at a time may hold, owner-only (see
 * state_dir.c).
 */
static bool open_state(stoat_kafka *k)
{
	const char *base = k->opt->state_dir ? k->opt->state_dir : "/tmp/stoat";
	char dir[4096];
	/* Cut short, two instance ids could share one directory. */
	if (snprintf(dir, sizeof dir, "%s/%s/%s", base, k->app->app_id,
		     k->opt->instance_id ? k->opt->instance_id : "default") >= (int)sizeof dir) {
		kafka_log(k, "error: the state directory <state dir>/<application id>/<instance id> would be longer "
			     "than %zu bytes: give a shorter --state-dir or --instance-id", sizeof dir - 1);
		return false;
	}
	size_t tightened = 0;
	if (!stoat_state_make_dir(base, dir, &tightened)) {
		kafka_log(k, "error: cannot create the state directory %s: %s", dir, strerror(errno));
		return false;
	}
	if (tightened)
		kafka_log(k, "state: took group and other permissions off %zu existing entr%s of %s (state is "
			  "owner-only: directories 0700, files 0600)",
			  tightened, tightened == 1 ? "y" : "ies", dir);
	static const char *const presets[] = { "default", "low", "high" };
	size_t budget = k->opt->memory_budget ? k->opt->memory_budget : stoat_rocks_memory_budget(presets[k->opt->memory]);
	stoat_state_options so = { .dir = dir, .memory_budget = budget, .cache_max_bytes = k->opt->cache_max_bytes };
	char err[1024];
	k->state = stoat_state_open(k->app, &k->driver, &so, err, sizeof err);
	if (!k->state) {
		kafka_log(k, "error: %s%s", err,
		      strstr(err, "lock") ? " (another process uses this state directory: give each instance its own "
					    "--instance-id or --state-dir)"
					  : "");
		return false;
	}
	k->driver.state = k->state;
	k->state_path = stoat_xstrdup(dir);
	k->changelog_topics = stoat_xcalloc(1, (k->app->store_count + 1) * sizeof *k->changelog_topics);
	kafka_log(k, "state: %zu store%s in %s, memory budget %zu MB, record cache %zu KB", k->app->store_count,
	      k->app->store_count == 1 ? "" : "s", dir, budget >> 20, k->opt->cache_max_bytes >> 10);
	return true;
}

/* Whether consumer rk may use the cooperative-sticky assignor. */
/*
 * The global tables (global.h): their reader opened and brought up to the
 * end offsets of now, before the group is joined, so no stream record is
 * processed before they are whole (Kafka Streams starts its global thread
 * and waits for its bootstrap before the stream threads).  True when the
 * app has none.
 */
static bool open_global(stoat_kafka *k)
{
	bool any = false;
	for (size_t i = 0; i < k->app->source_count; i++)
		any = any || k->app->sources[i].global;
	if (!any)
		return true;
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char client_id[300];
	snprintf(client_id, sizeof client_id, "%s-global", k->app->app_id);
	bool ok = kafka_conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  kafka_conf_set(conf, k->prog, "client.id", client_id) &&
		  /* librdkafka wants a group for assign(); it is never joined. */
		  kafka_conf_set(conf, k->prog, "group.id", client_id) &&
		  kafka_conf_set(conf, k->prog, "enable.auto.commit", "false") &&
		  kafka_conf_set(conf, k->prog, "enable.auto.offset.store", "false") &&
		  kafka_conf_set(conf, k->prog, "auto.offset.reset", "earliest") &&
		  kafka_conf_set(conf, k->prog, "isolation.level", "read_committed") &&
		  kafka_conf_set(conf, k->prog, "enable.partition.eof", "true") &&
		  kafka_conf_set(conf, k->prog, "fetch.wait.max.ms", "50") &&
		  kafka_conf_set(conf, k->prog, "allow.auto.create.topics", "false");
	if (!ok) {
		rd_kafka_conf_destroy(conf);
		return false;
	}
	rd_kafka_conf_set_log_cb(conf, kafka_librdkafka_log);
	char err[1024];
	watchdog_stage("reading the global tables");
	k->global = stoat_global_open(k->app, k->state, k->tasks, conf, k->state_path, err, sizeof err);
	if (!k->global) {
		kafka_log(k, "error: %s", err);
		return false;
	}
	int64_t start = stoat_now_ms();
	if (!stoat_global_bootstrap(k->global, &kafka_stop_requested, err, sizeof err)) {
		if (!kafka_stop_requested)
			kafka_log(k, "error: %s", err);
		return false;
	}
	kafka_log(k, "global tables: %" PRIu64 " records applied in %" PRId64 " ms, up to the end offsets read at "
		  "start-up", stoat_global_applied(k->global), stoat_now_ms() - start);
	watchdog_stage("starting");
	return true;
}

static bool cooperative_sticky(rd_kafka_t *rk)
{
	char v[512];
	size_t n = sizeof v;
	if (rd_kafka_conf_get(rd_kafka_conf(rk), "partition.assignment.strategy", v, &n) != RD_KAFKA_CONF_OK)
		return true; /* unknown: assume it does */
	return strstr(v, "cooperative-sticky") != NULL;
}

/* A consumer closed but not destroyed (see close_consumer): it goes with
 * the process, reachable from here. */
static rd_kafka_t *abandoned_consumer;

/*
 * Leaves the group: the last revocation runs through the rebalance
 * callback, and the queue is served until the consumer is closed or the
 * stop's deadline (less a moment for the rest) has passed.  Returns
 * whether the consumer may now be destroyed.
 *
 * librdkafka 2.0.2 aborts in rd_kafka_destroy (assertion `assignor_state`
 * in rdkafka_sticky_assignor.c; confluentinc/librdkafka#4312, fixed in
 * 2.3.0) when a cooperative-sticky consumer is destroyed after the group
 * answered its JoinGroup but before its first assignment: the JoinGroup
 * answer sets the assignor, only the first SyncGroup answer sets the
 * assignor's state, and a close in between makes librdkafka drop that
 * answer, so rd_kafka_cgrp_destroy_final hands a NULL state to the
 * assignor.  The first rebalance callback comes after that answer.  A
 * subscribed consumer that has had none is therefore closed (it leaves the
 * group) but never destroyed.
 */
static bool close_consumer(stoat_kafka *k)
{
	bool destroyable = !k->subscribed || k->rebalanced || !cooperative_sticky(k->consumer);
	rd_kafka_queue_t *q = k->queue ? k->queue : rd_kafka_queue_get_consumer(k->consumer);
	rd_kafka_error_t *e = rd_kafka_consumer_close_queue(k->consumer, q);
	if (e) {
		/* A fatal error, say: rd_kafka_destroy does not wait for a group then. */
		kafka_log(k, "warning: leaving the group: %s", rd_kafka_error_string(e));
		rd_kafka_error_destroy(e);
	} else {
		int64_t margin = watchdog.timeout_ms / 4 < 1000 ? watchdog.timeout_ms / 4 : 1000;
		int64_t deadline = watchdog_deadline() - margin;
		while (!rd_kafka_consumer_closed(k->consumer)) {
			if (stoat_now_ms() >= deadline) {
				kafka_log(k, "warning: the consumer did not finish leaving the group within the shutdown "
					 "timeout; not waiting for it (the group notices after the session timeout)");
				destroyable = false;
				break;
			}
			/* Serves the rebalance callback; records are not processed now. */
			rd_kafka_message_t *m = rd_kafka_consume_queue(q, 100);
			if (m)
				rd_kafka_message_destroy(m);
		}
	}
	if (q != k->queue)
		rd_kafka_queue_destroy(q);
	return destroyable;
}

/*
 * The `run` command: opens the state, makes the clients, creates the
 * internal topics, subscribes and loops until stopped; returns the exit
 * status (STOAT_EXIT_*).
 */
/*
 * Format avro's registry (avro_registry.h), when the app uses it: the
 * sinks' ids settled before the first record.  A registry that does not
 * answer is waited for, with a warning per try, until it does or a
 * signal stops the app; one that refuses a schema stops it (false).
 */
static bool open_registry(stoat_kafka *k)
{
	if (!stoat_avro_used(k->app))
		return true;
	const stoat_kafka_options *opt = k->opt;
	stoat_avro_options ao = opt->avro;
	char *auth = NULL;
	if (opt->registry_user || opt->registry_password) {
		const char *user = opt->registry_user ? opt->registry_user : "";
		const char *password = opt->registry_password ? opt->registry_password : "";
		size_t len = strlen(user) + 1 + strlen(password) + 1;
		auth = stoat_xmalloc(len);
		snprintf(auth, len, "%s:%s", user, password);
		ao.registry.basic_auth = auth;
	}
	watchdog_stage("asking the Schema Registry for the sinks' schema ids");
	char err[1024];
	bool ok = stoat_avro_open(k->app, &ao, &kafka_stop_requested, err, sizeof err);
	free(auth);
	if (!ok && !kafka_stop_requested)
		kafka_log(k, "error: %s", err);
	return ok;
}

int stoat_kafka_run(const stoat_app *app, const stoat_kafka_options *opt)
{
	/* First of all, so that a SIGTERM during start-up (restoring state,
	 * say) still stops cleanly, exits 0 and writes profiles. */
	watchdog_start(app->app_id, opt->shutdown_timeout_ms);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	stoat_kafka *k = stoat_xcalloc(1, sizeof *k);
	k->started_ms = stoat_now_ms();
	k->app = app;
	k->opt = opt;
	k->eos = opt->guarantee == STOAT_EXACTLY_ONCE;
	k->driver.ops = &kafka_driver_ops;
	k->driver.app = app;
	k->driver.policy_override = opt->policy_override;
	k->driver.dlq_override = opt->dlq_override;
	char rid[32], id_err[512];
	if (!opt->instance_id)
		kafka_random_id(rid, sizeof rid);
	/* From here on, lines are a service's: time, app[instance], level. */
	stoat_log_configure(&(stoat_log_config){ .app = app->app_id,
						 .instance = opt->instance_id ? opt->instance_id : rid,
						 .level = opt->log_level,
						 .format = opt->log_format,
						 .redact = redact_secrets,
						 .redact_arg = (void *)opt });
	const char *prog = app->app_id;
	k->prog = prog;
	int status = STOAT_EXIT_OK;
	k->transactional_id = kafka_transactional_id(app->app_id, opt->instance_id ? opt->instance_id : rid,
						     opt->instance_id != NULL, id_err, sizeof id_err);
	/* Only exactly-once uses the id: at-least-once goes on without one. */
	if (!k->transactional_id && k->eos) {
		kafka_log(k, "error: %s", id_err);
		status = STOAT_EXIT_USAGE;
		goto out;
	}

	/* Before the consumer: it asks for end events only if some has. */
	k->ordered = kafka_ordered_sources(app);
	if (app->store_count > 0 && !open_state(k)) {
		status = STOAT_EXIT_STATE;
		goto out;
	}
	k->producer = kafka_new_producer(k, k->eos);
	k->consumer = k->producer ? kafka_new_consumer(k) : NULL;
	if (!k->producer || !k->consumer) {
		status = STOAT_EXIT_USAGE;
		goto out;
	}
	kafka_waker_start(k);
	kafka_log_event(k, "starting", "starting: %s, commit interval %" PRId64 " ms, cluster %s%s%s", k->eos ? "exactly_once" : "at_least_once",
	      opt->commit_interval_ms, opt->bootstrap_servers, k->eos ? ", transactional id " : "",
	      k->eos ? k->transactional_id : "");

	/*
	 * A cluster that does not answer is waited for in short steps, so
	 * that SIGTERM and --idle-exit are honoured (init_transactions, say,
	 * would block 30 s at a time).
	 */
	watchdog_stage("waiting for the Kafka cluster");
	if (!kafka_wait_for_cluster(k->producer, opt->idle_exit_ms)) {
		if (!kafka_stop_requested) {
			kafka_log(k, "error: no answer from the Kafka cluster at %s for %" PRId64 " ms: stopping (--idle-exit)",
			      opt->bootstrap_servers, opt->idle_exit_ms);
			status = STOAT_EXIT_IO;
		}
		goto out;
	}
	watchdog_stage("starting");

	/* Also fences and aborts what a previous incarnation left open. */
	if (k->eos && !kafka_init_transactions(k)) {
		status = kafka_stop_requested && !k->fatal ? STOAT_EXIT_OK : STOAT_EXIT_IO;
		goto out;
	}

	if (!open_registry(k)) {
		status = kafka_stop_requested ? STOAT_EXIT_OK : STOAT_EXIT_IO;
		goto out;
	}

	k->sink_topics = stoat_xcalloc(1, (app->sink_count + 1) * sizeof *k->sink_topics);
	kafka_open_sink_topics(k);
	k->tasks = stoat_xcalloc(1, app->source_count * sizeof *k->tasks);
	for (size_t i = 0; i < app->source_count; i++) {
		stoat_ctx *cx = &k->tasks[i];
		stoat_ctx_init(cx, app, &k->driver);
		cx->source = &app->sources[i];
	}
	k->rkmsgs = stoat_xcalloc(1, opt->batch_max * sizeof *k->rkmsgs);
	k->batch = stoat_xcalloc(1, opt->batch_max * sizeof *k->batch);
	if (!kafka_http_start(k, opt->instance_id ? opt->instance_id : rid)) {
		status = STOAT_EXIT_USAGE;
		goto out;
	}

	if (!kafka_create_internal_topics(k)) {
		status = kafka_stop_requested && !k->fatal ? STOAT_EXIT_OK : STOAT_EXIT_IO;
		goto out;
	}
	if (!open_global(k)) {
		status = kafka_stop_requested && !k->fatal ? STOAT_EXIT_OK : STOAT_EXIT_IO;
		goto out;
	}
	/* The group reads every topic but the global tables' (global.c reads those whole). */
	rd_kafka_topic_partition_list_t *subs = rd_kafka_topic_partition_list_new((int)app->source_count);
	for (size_t i = 0; i < app->source_count; i++)
		if (!app->sources[i].global)
			rd_kafka_topic_partition_list_add(subs, app->sources[i].topic, RD_KAFKA_PARTITION_UA);
	rd_kafka_resp_err_t err = rd_kafka_subscribe(k->consumer, subs);
	rd_kafka_topic_partition_list_destroy(subs);
	if (err) {
		kafka_log(k, "error: cannot subscribe: %s", rd_kafka_err2str(err));
		status = STOAT_EXIT_IO;
		goto out;
	}
	k->subscribed = true;
	rd_kafka_poll_set_consumer(k->consumer);
	k->queue = rd_kafka_queue_get_consumer(k->consumer);
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].internal && !k->internal_queue)
			k->internal_queue = rd_kafka_queue_new(k->consumer);
	k->last_commit_ms = k->last_input_ms = stoat_now_ms();

	while (!kafka_stop_requested) {
		kafka_http_control(k);
		kafka_http_publish(k, false);
		ssize_t got = poll_once(k);
		if (k->global && got >= 0 && !k->failed && !k->fatal) {
			char gerr[512];
			ssize_t applied = stoat_global_poll(k->global, gerr, sizeof gerr);
			if (applied < 0) {
				kafka_log(k, "error: %s", gerr);
				k->failed = true;
				break;
			}
			if (applied > 0) {
				k->dirty = true;
				got += applied;
			}
		}
		int64_t now = stoat_now_ms();
		if (got > 0) {
			k->last_input_ms = now;
			k->idle_wait_since_ms = 0;
		}
		if (k->failed || k->fatal)
			break;
		if (k->fenced) {
			if (!kafka_replace_producer(k))
				break;
			continue;
		}
		if (k->delivery_error[0]) {
			if (k->eos) {
				kafka_log(k, "warning: %s; aborting the transaction", k->delivery_error);
				kafka_abort_and_rewind(k);
			} else {
				kafka_log(k, "error: %s; stopping without committing", k->delivery_error);
				k->fatal = true;
				break;
			}
		}
		if (now - k->last_commit_ms >= opt->commit_interval_ms && (k->dirty || k->in_txn)) {
			double t0 = k->http ? stoat_now_seconds() : 0;
			if (!kafka_commit(k))
				break;
			if (k->http)
				stoat_histogram_observe(&k->commit_seconds, stoat_now_seconds() - t0);
		}
		kafka_purge_poll(k, 0);
		kafka_purge_repartition_topics(k);
		if (opt->log_report_interval_ms > 0 &&
		    now - (k->last_report_ms ? k->last_report_ms : k->started_ms) >= opt->log_report_interval_ms)
			kafka_log_report(k, now);
		/*
		 * Idle: nothing read for the idle time.  An instance holding no
		 * partitions (they were lost, say, while a broker restarted)
		 * waits three times as long for the group to give it some back.
		 */
		int64_t idle_limit = opt->idle_exit_ms * (assigned_count(k) > 0 ? 1 : 3);
		/* A paused source is no idle one: it waits for POST /resume. */
		if (kafka_http_any_paused(k))
			k->last_input_ms = now;
		if (opt->idle_exit_ms > 0 && now - k->last_input_ms >= idle_limit && !k->dirty && !k->in_txn &&
		    now >= k->idle_next_check_ms && idle_exit_allowed(k, now)) {
			if (k->fatal)
				break;
			kafka_log_event(k, "idle_exit", "no input for %" PRId64 " ms: stopping (--idle-exit)", opt->idle_exit_ms);
			break;
		}
	}

	watchdog_begin("committing");
	k->phase = STOAT_HTTP_STOPPING;
	kafka_http_publish(k, true);
	if (k->failed) {
		/* The fail policy: nothing after the last commit is kept. */
		watchdog_stage("aborting the transaction");
		if (k->state)
			stoat_state_abort(k->state);
		if (k->eos && k->in_txn) {
			rd_kafka_error_t *e = rd_kafka_abort_transaction(k->producer, 30000);
			if (e)
				rd_kafka_error_destroy(e);
		}
		status = STOAT_EXIT_RECORD_FAILED;
	} else if (k->fatal) {
		status = k->state_mismatch ? STOAT_EXIT_STATE : STOAT_EXIT_IO;
	} else {
		kafka_log_event(k, "stopping", "stopping: committing and leaving the group");
		if (!kafka_commit(k))
			status = STOAT_EXIT_IO;
		else if (k->fenced)
			kafka_log(k, "warning: the producer was fenced while stopping: the last records will be "
				 "processed again by the next run");
		/* The window stores' sizes as of that commit (--stats). */
		char err[256];
		if (status == STOAT_EXIT_OK && opt->stats && k->state &&
		    !stoat_state_print_window_sizes(k->state, stderr, err, sizeof err))
			kafka_log(k, "warning: cannot count the window stores' windows: %s", err);
	}

out:
	watchdog_begin("stopping");
	stoat_avro_close();
	/* Leaving the group first; the revocation commits nothing more now. */
	bool destroy_consumer = true;
	uint64_t fetch_wakes = kafka_waker_stop(k);
	if (k->consumer) {
		k->failed = k->failed || k->fatal || status != STOAT_EXIT_OK;
		watchdog_stage("leaving the consumer group");
		destroy_consumer = close_consumer(k);
	}
	/* Every message goes back before the consumer is destroyed. */
	for (size_t i = 0; i < k->part_count; i++)
		kafka_order_release(k, &k->parts[i]);
	if (k->queue)
		rd_kafka_queue_destroy(k->queue);
	if (k->internal_queue)
		rd_kafka_queue_destroy(k->internal_queue);
	if (k->purge_results) {
		kafka_purge_poll(k, 2000);
		rd_kafka_queue_destroy(k->purge_results);
	}
	if (k->global) {
		watchdog_stage("closing the global tables' reader");
		stoat_global_close(k->global);
		k->global = NULL;
	}
	if (k->restorer) {
		watchdog_stage("closing the changelog reader");
		rd_kafka_consumer_close(k->restorer);
	}
	if (k->offsets_reader)
		rd_kafka_destroy(k->offsets_reader);
	if (k->producer) {
		watchdog_stage("flushing the producer");
		if (status == STOAT_EXIT_OK && !k->eos)
			rd_kafka_flush(k->producer, 30000);
		kafka_close_sink_topics(k);
	}
	if (k->tasks) {
		stoat_counters total = stoat_counters_sum(app, k->tasks, app->source_count,
							   k->state ? stoat_state_flush_ctx(k->state) : NULL);
		stoat_print_summary(stderr, &k->driver, &total);
		if (opt->stats)
			kafka_log(k, "commits %" PRIu64 ", aborted transactions %" PRIu64 ", fetch wakes %" PRIu64,
				  k->commits, k->aborts, fetch_wakes);
		for (size_t i = 0; i < app->source_count; i++)
			stoat_ctx_free(&k->tasks[i]);
	}
	watchdog_stage("closing the state");
	stoat_state_close(k->state);
	k->state = NULL;
	/*
	 * Only librdkafka's own teardown is left (no callback of ours runs in
	 * rd_kafka_destroy): if it does not return, the watchdog ends the
	 * process with this status.
	 */
	watchdog_settle(status);
	if (k->restorer) {
		watchdog_stage("destroying the changelog reader");
		rd_kafka_destroy(k->restorer);
	}
	if (k->consumer && destroy_consumer) {
		watchdog_stage("destroying the consumer");
		rd_kafka_destroy(k->consumer);
	} else if (k->consumer) {
		abandoned_consumer = k->consumer;
	}
	if (k->producer) {
		watchdog_stage("destroying the producer");
		rd_kafka_destroy(k->producer);
	}
	for (size_t i = 0; i < k->part_count; i++)
		free(k->parts[i].topic);
	free(k->parts);
	free(k->members);
	free(k->ordered);
	free(k->tasks);
	free(k->rkmsgs);
	free(k->batch);
	free(k->sink_topics);
	free(k->changelog_topics);
	free(k->transactional_id);
	free(k->state_path);
	kafka_http_stop(k);
	free(k);
	watchdog_stop();
	return status;
}
