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
 * leave the group.
 */
#include "kafka_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t kafka_stop_requested;

/* SIGTERM, SIGINT: finish the batch, commit, leave the group. */
static void on_signal(int sig)
{
	(void)sig;
	kafka_stop_requested = 1;
}

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
		kafka_stop_requested = 1;
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
	ssize_t records = 0;
	for (ssize_t i = 0; i < n; i++)
		if (!k->rkmsgs[i]->err)
			records++;
	if (records > 0 && k->eos && !k->failed && !kafka_begin_transaction(k)) {
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
		kafka_partition *p = kafka_find_part(k, rd_kafka_topic_name(r->rkt), r->partition);
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
 * kafka_rebalance_cb), then the consumer queue.  Records an app writes to its
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
	k->changelog_topics = stoat_xcalloc(1, (k->app->store_count + 1) * sizeof *k->changelog_topics);
	kafka_log(k, "state: %zu store%s in %s, memory budget %zu MB, record cache %zu KB", k->app->store_count,
	      k->app->store_count == 1 ? "" : "s", dir, budget >> 20, k->opt->cache_max_bytes >> 10);
	return true;
}

/*
 * The `run` command: opens the state, makes the clients, creates the
 * internal topics, subscribes and loops until stopped; returns the exit
 * status (STOAT_EXIT_*).
 */
int stoat_kafka_run(const stoat_app *app, const stoat_kafka_options *opt)
{
	/* First of all, so that a SIGTERM during start-up (restoring state,
	 * say) still stops cleanly, exits 0 and writes profiles. */
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
	kafka_log(k, "starting: %s, commit interval %" PRId64 " ms, cluster %s%s%s", k->eos ? "exactly_once" : "at_least_once",
	      opt->commit_interval_ms, opt->bootstrap_servers, k->eos ? ", transactional id " : "",
	      k->eos ? k->transactional_id : "");

	/* Also fences and aborts what a previous incarnation left open. */
	if (k->eos && !kafka_init_transactions(k)) {
		status = kafka_stop_requested && !k->fatal ? STOAT_EXIT_OK : STOAT_EXIT_IO;
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

	if (!kafka_create_internal_topics(k)) {
		status = kafka_stop_requested && !k->fatal ? STOAT_EXIT_OK : STOAT_EXIT_IO;
		goto out;
	}
	rd_kafka_topic_partition_list_t *subs = rd_kafka_topic_partition_list_new((int)app->source_count);
	for (size_t i = 0; i < app->source_count; i++)
		rd_kafka_topic_partition_list_add(subs, app->sources[i].topic, RD_KAFKA_PARTITION_UA);
	rd_kafka_resp_err_t err = rd_kafka_subscribe(k->consumer, subs);
	rd_kafka_topic_partition_list_destroy(subs);
	if (err) {
		kafka_log(k, "error: cannot subscribe: %s", rd_kafka_err2str(err));
		status = STOAT_EXIT_IO;
		goto out;
	}
	rd_kafka_poll_set_consumer(k->consumer);
	k->queue = rd_kafka_queue_get_consumer(k->consumer);
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].internal && !k->internal_queue)
			k->internal_queue = rd_kafka_queue_new(k->consumer);
	k->last_commit_ms = k->last_input_ms = stoat_now_ms();

	while (!kafka_stop_requested) {
		ssize_t got = poll_once(k);
		int64_t now = stoat_now_ms();
		if (got > 0)
			k->last_input_ms = now;
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
			if (!kafka_commit(k))
				break;
		}
		kafka_purge_poll(k, 0);
		kafka_purge_repartition_topics(k);
		/*
		 * Idle: nothing read for the idle time.  An instance holding no
		 * partitions (they were lost, say, while a broker restarted)
		 * waits three times as long for the group to give it some back.
		 */
		int64_t idle_limit = opt->idle_exit_ms * (assigned_count(k) > 0 ? 1 : 3);
		if (opt->idle_exit_ms > 0 && now - k->last_input_ms >= idle_limit && !k->dirty && !k->in_txn) {
			kafka_log(k, "no input for %" PRId64 " ms: stopping (--idle-exit)", opt->idle_exit_ms);
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
		status = k->state_mismatch ? STOAT_EXIT_STATE : STOAT_EXIT_IO;
	} else {
		kafka_log(k, "stopping: committing and leaving the group");
		if (!kafka_commit(k))
			status = STOAT_EXIT_IO;
		else if (k->fenced)
			kafka_log(k, "warning: the producer was fenced while stopping: the last records will be "
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
		kafka_purge_poll(k, 2000);
		rd_kafka_queue_destroy(k->purge_results);
	}
	if (k->restorer) {
		rd_kafka_consumer_close(k->restorer);
		rd_kafka_destroy(k->restorer);
	}
	if (k->offsets_reader)
		rd_kafka_destroy(k->offsets_reader);
	if (k->producer) {
		if (status == STOAT_EXIT_OK && !k->eos)
			rd_kafka_flush(k->producer, 30000);
		kafka_close_sink_topics(k);
		rd_kafka_destroy(k->producer);
	}
	if (k->tasks) {
		stoat_counters total = stoat_counters_sum(app, k->tasks, app->source_count,
							   k->state ? stoat_state_flush_ctx(k->state) : NULL);
		stoat_print_summary(stderr, &k->driver, &total);
		if (opt->stats)
			kafka_log(k, "commits %" PRIu64 ", aborted transactions %" PRIu64, k->commits, k->aborts);
		for (size_t i = 0; i < app->source_count; i++)
			stoat_ctx_free(&k->tasks[i]);
	}
	for (size_t i = 0; i < k->part_count; i++)
		free(k->parts[i].topic);
	free(k->parts);
	free(k->tasks);
	free(k->rkmsgs);
	free(k->batch);
	free(k->sink_topics);
	free(k->changelog_topics);
	free(k->transactional_id);
	stoat_state_close(k->state);
	free(k);
	return status;
}
