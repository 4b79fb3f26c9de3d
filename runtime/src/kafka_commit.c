/*
 * kafka_commit.c - committing the Kafka driver's work:
 *
 *   at_least_once  flush the producer (every output acknowledged), then
 *                  commit the consumed offsets;
 *   exactly_once   send the consumed offsets to the transaction and commit
 *                  it (EOS v2: the transaction carries the group
 *                  metadata, so one producer serves every partition).
 *                  An abortable error aborts the transaction and rewinds
 *                  every partition to its committed offset; a fatal error
 *                  or fencing stops the process with a message, or (a
 *                  fenced producer) replaces the producer.
 *
 * The record caches and then the pre-aggregation buffers flush before
 * the commit, and the stores apply the interval's writes only after it
 * (state.h's commit cycle).
 */
#include "kafka_impl.h"
#include "global.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Records that every assigned partition's progress is committed. */
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
	/* The partials combine records that are read again. */
	for (size_t i = 0; k->tasks && i < k->app->source_count; i++)
		stoat_preagg_discard(&k->tasks[i]);
	if (k->state)
		stoat_preagg_discard(stoat_state_flush_ctx(k->state));
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
		kafka_log(k, "warning: cannot read committed offsets (%s); retrying", rd_kafka_err2str(err));
		if (kafka_stop_requested)
			break;
		sleep(1);
	}
	for (int i = 0; i < l->cnt; i++) {
		if (l->elems[i].offset < 0)
			l->elems[i].offset = RD_KAFKA_OFFSET_BEGINNING;
		kafka_partition *p = kafka_find_part(k, l->elems[i].topic, l->elems[i].partition);
		if (p) {
			p->next_offset = p->committed = l->elems[i].offset >= 0 ? l->elems[i].offset : -1;
			/* Read again after the seek, with the end event again. */
			kafka_order_drop(k, p);
		}
	}
	rd_kafka_error_t *e = rd_kafka_seek_partitions(k->consumer, l, 10000);
	if (e) {
		kafka_log(k, "warning: cannot rewind: %s", rd_kafka_error_string(e));
		rd_kafka_error_destroy(e);
	}
	rd_kafka_topic_partition_list_destroy(l);
	k->dirty = false;
}

/* Serves delivery reports until every output is acknowledged. */
static bool flush_outputs(stoat_kafka *k)
{
	int64_t start = stoat_now_ms(), warned = start;
	while (rd_kafka_outq_len(k->producer) > 0) {
		rd_kafka_poll(k->producer, 100);
		if (k->delivery_error[0] || k->fatal)
			return false;
		if (stoat_now_ms() - warned > 10000) {
			warned = stoat_now_ms();
			kafka_log(k, "warning: %d output records still unacknowledged after %" PRId64 " s; waiting",
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
	if (kafka_fenced_error(code) || k->fenced) {
		/*
		 * Fenced: a newer epoch exists for our transactional id.  After a
		 * broker restart the coordinator may bump it itself; Kafka
		 * Streams then treats the tasks as migrated and makes a new
		 * producer, and so do we (kafka_replace_producer), unless it keeps
		 * happening, which means another live instance has our id.
		 */
		kafka_log(k, "warning: %s: %s: the producer was fenced%s%s%s", what, rd_kafka_error_string(e),
			  k->delivery_error[0] ? " after records could not be written (the first: " : "", k->delivery_error,
			  k->delivery_error[0] ? ")" : "");
		k->fenced = true;
	} else if (rd_kafka_error_is_fatal(e)) {
		kafka_log(k, "error: %s: %s (fatal: stopping)", what, rd_kafka_error_string(e));
		k->fatal = true;
		kafka_stop_requested = 1;
	} else if (rd_kafka_error_txn_requires_abort(e)) {
		/* "N message(s) failed delivery (see individual delivery reports)":
		 * the reports were printed as they came; name the first here. */
		kafka_log(k, "warning: %s: %s%s%s%s; aborting the transaction and reprocessing from the last commit", what,
			  rd_kafka_error_string(e), k->delivery_error[0] ? " (the first: " : "", k->delivery_error,
			  k->delivery_error[0] ? ")" : "");
		*abort = true;
	} else {
		kafka_log(k, "warning: %s: %s; retrying", what, rd_kafka_error_string(e));
	}
	rd_kafka_error_destroy(e);
	return false;
}

/*
 * Aborts the open transaction (retrying until the coordinator answers),
 * drops the held-back store writes and rewinds to the committed offsets.
 */
void kafka_abort_and_rewind(stoat_kafka *k)
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
	if (k->global)
		stoat_global_aborted(k->global);
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
		kafka_stop_requested = 1;
	}
	return false;
}

/*
 * Writes the pre-aggregated partials to their repartition topics before a
 * commit (in the transaction under exactly-once), so the commit covers
 * them with the input they combine: the tasks', and then the state flush
 * context's (a table's changes that the record cache held back and
 * flush_state passed on may feed a pre-aggregation too).  False if a
 * write failed: the batch was abandoned (fenced producer: the loop
 * replaces it and reprocesses), or the process stops without committing.
 */
static bool flush_preaggs(stoat_kafka *k)
{
	size_t n = k->tasks ? k->app->source_count : 0;
	for (size_t i = 0; i <= n; i++) {
		stoat_ctx *cx = i < n ? &k->tasks[i] : k->state ? stoat_state_flush_ctx(k->state) : NULL;
		if (!cx || stoat_preagg_flush(cx))
			continue;
		if (cx->abandoned) {
			cx->abandoned = false;
			cx->stopped = false;
		} else {
			kafka_log(k, "error: writing the pre-aggregated records: %s; stopping without committing",
				  cx->error_message);
			k->fatal = true;
			kafka_stop_requested = 1;
		}
		cx->error = false;
		return false;
	}
	return true;
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
	if (!k->state || stoat_state_commit(k->state, err, sizeof err)) {
		if (k->global)
			stoat_global_committed(k->global);
		return true;
	}
	kafka_log(k, "error: %s; stopping (the next run restores from the changelog)", err);
	k->fatal = true;
	kafka_stop_requested = 1;
	return false;
}

/*
 * Commits the work done so far.  Returns false only when the process must
 * stop (fatal error); transient failures are retried or, under
 * exactly-once, turned into an abort and a rewind.
 */
bool kafka_commit(stoat_kafka *k)
{
	if (k->failed || k->fatal)
		return !k->fatal;
	if (!k->eos) {
		if (!flush_state(k) || !flush_preaggs(k))
			return !k->fatal;
		if (!flush_outputs(k)) {
			if (k->delivery_error[0])
				kafka_log(k, "error: %s; stopping without committing (the records will be processed again)",
				      k->delivery_error);
			k->fatal = true;
			return false;
		}
		rd_kafka_topic_partition_list_t *l = progress(k, true);
		if (l->cnt > 0) {
			rd_kafka_resp_err_t err = rd_kafka_commit(k->consumer, l, 0);
			if (err) {
				kafka_log(k, "warning: cannot commit offsets: %s; will retry", rd_kafka_err2str(err));
				rd_kafka_topic_partition_list_destroy(l);
				return true;
			}
		}
		rd_kafka_topic_partition_list_destroy(l);
		mark_committed(k);
		k->last_commit_ms = stoat_now_ms();
		return commit_state(k);
	}
	if (!k->in_txn)
		return true;
	if (!flush_state(k) || !flush_preaggs(k))
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
				k->last_commit_ms = stoat_now_ms();
				serve_delivery_reports(k);
				return commit_state(k);
			}
		}
		if (k->fatal)
			return false;
		if (k->fenced)
			return true; /* the loop replaces the producer */
		if (abort) {
			kafka_abort_and_rewind(k);
			k->last_commit_ms = stoat_now_ms();
			return !k->fatal;
		}
		if (kafka_stop_requested && attempt > 3) {
			kafka_abort_and_rewind(k);
			return !k->fatal;
		}
		sleep(1);
	}
}

/*
 * Begins a transaction unless one is open, retrying transient errors;
 * false when fatal or fenced.
 */
bool kafka_begin_transaction(stoat_kafka *k)
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

/*
 * Registers the transactional id with its coordinator, which fences any
 * older producer with the same id and aborts what it left open.
 */
bool kafka_init_transactions(stoat_kafka *k)
{
	for (;;) {
		rd_kafka_error_t *e = rd_kafka_init_transactions(k->producer, 30000);
		bool abort;
		k->fenced = false;
		if (txn_error(k, e, "initialising transactions", &abort))
			return true;
		if (k->fatal || kafka_stop_requested)
			return false;
		sleep(1);
	}
}

/*
 * The producer was fenced (see txn_error): drop it with everything it
 * had not committed, make a new one with the same transactional id, and
 * reprocess from the last commit.  Three fencings within a minute mean a
 * live instance with the same id: stop, with a message.
 */
bool kafka_replace_producer(stoat_kafka *k)
{
	int64_t now = stoat_now_ms();
	if (k->fencings >= 3 && now - k->fenced_at[0] < 60000) {
		if (k->last_delivery_failure_ms > k->fenced_at[0])
			/* Records that cannot be written keep a transaction open past
			 * its timeout, and the coordinator fences it: that is no
			 * other instance. */
			kafka_log(k, "error: fenced three times within a minute after records could not be written (the "
				     "last: %s; see the delivery errors above): the transactions could not complete; stopping",
				  k->last_delivery_error);
		else
			kafka_log(k, "error: fenced three times within a minute: another instance with transactional id %s "
				     "is running; stopping",
				  k->transactional_id);
		k->fatal = true;
		kafka_stop_requested = 1;
		return false;
	}
	k->fenced_at[0] = k->fenced_at[1];
	k->fenced_at[1] = k->fenced_at[2];
	k->fenced_at[2] = now;
	k->fencings++;
	kafka_log(k, "replacing the fenced producer; reprocessing from the last commit");
	rd_kafka_purge(k->producer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
	rd_kafka_poll(k->producer, 0);
	kafka_close_sink_topics(k);
	rd_kafka_destroy(k->producer);
	k->producer = kafka_new_producer(k, true);
	k->in_txn = false;
	k->fenced = false;
	if (!k->producer || !kafka_init_transactions(k)) {
		k->fatal = true;
		kafka_stop_requested = 1;
		return false;
	}
	kafka_open_sink_topics(k);
	k->delivery_error[0] = '\0';
	if (k->state)
		stoat_state_abort(k->state);
	if (k->global)
		stoat_global_aborted(k->global);
	rewind_to_committed(k);
	return true;
}
