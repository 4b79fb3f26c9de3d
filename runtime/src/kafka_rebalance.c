/*
 * kafka_rebalance.c - the Kafka driver's partitions: which this instance
 * holds, what happens when the group assigns (restore the stores behind
 * them from their changelogs, then take them) and revokes them (commit
 * first; lost partitions are dropped without a commit).
 */
#include "kafka_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The partition (topic, partition) this instance has seen, or NULL. */
kafka_partition *kafka_find_part(stoat_kafka *k, const char *topic, int32_t partition)
{
	for (size_t i = 0; i < k->part_count; i++)
		if (k->parts[i].partition == partition && strcmp(k->parts[i].topic, topic) == 0)
			return &k->parts[i];
	return NULL;
}

/* The index of the source reading topic, or SIZE_MAX. */
size_t kafka_source_of_topic(const stoat_app *app, const char *topic)
{
	for (size_t i = 0; i < app->source_count; i++)
		if (strcmp(app->sources[i].topic, topic) == 0)
			return i;
	return SIZE_MAX;
}

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
		kafka_log_event(k, what, "%s %d partition%s: %s", what, l->cnt, l->cnt == 1 ? "" : "s", text);
}

/*
 * True when some store is fed by more than one source (cogroup, say):
 * partition p of each of those topics must then be processed by the same
 * instance, which the cooperative-sticky assignor does not promise and the
 * range assignor does for topics of equal partition counts.
 */
bool kafka_has_shared_stores(const stoat_app *app)
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

/* One store partition being restored (kafka_impl.h). */
typedef kafka_restore_job restore_job;

/* Logs the end of one partition's restore (every partition gets a line). */
static void log_restored(stoat_kafka *k, const restore_job *j, int64_t ms)
{
	kafka_log_event(k, "restored", "restored %s[%" PRId32 "]: %" PRIu64 " records, checkpoint %" PRId64 ", changelog end %" PRId64
		 " (%" PRId64 " ms)",
	      j->topic, stoat_store_part_partition(j->part), stoat_store_part_restored(j->part), j->from, j->end, ms);
}

/* A changelog partition's offsets. */
typedef struct changelog_range {
	int64_t lo;     /* log start */
	int64_t stable; /* end for read_committed readers: where a restore stops */
	int64_t end;    /* high watermark: after the last acknowledged record */
} changelog_range;

/*
 * Reads the offsets of changelog partition topic[partition] through rk.
 * A changelog created a moment ago may have no leader yet: retries
 * quickly at first, and says so only if it lasts.  False if the process
 * must stop.
 */
static bool query_offsets(stoat_kafka *k, rd_kafka_t *rk, const char *topic, int32_t partition, int64_t *lo,
			  int64_t *hi)
{
	rd_kafka_resp_err_t e;
	for (int attempt = 0;
	     (e = rd_kafka_query_watermark_offsets(rk, topic, partition, lo, hi, 10000)) != RD_KAFKA_RESP_ERR_NO_ERROR;
	     attempt++) {
		if (attempt >= 20 && attempt % 10 == 0)
			kafka_log(k, "warning: cannot read the offsets of changelog %s[%" PRId32 "] (%s); retrying", topic,
				  partition, rd_kafka_err2str(e));
		if (kafka_stop_requested)
			return false;
		usleep(attempt < 20 ? 50 * 1000 : 500 * 1000);
	}
	return true;
}

/* The offsets of changelog partition topic[partition]; false if the
 * process must stop. */
static bool changelog_offsets(stoat_kafka *k, const char *topic, int32_t partition, changelog_range *r)
{
	if (!k->offsets_reader && !(k->offsets_reader = kafka_new_offsets_reader(k)))
		return false;
	int64_t lo = 0;
	if (!query_offsets(k, k->restorer, topic, partition, &r->lo, &r->stable) ||
	    !query_offsets(k, k->offsets_reader, topic, partition, &lo, &r->end))
		return false;
	/* The stable end is read first: the high watermark is never below it. */
	if (r->end < r->stable)
		r->end = r->stable;
	return true;
}

/*
 * A checkpoint above its changelog's end (the topic was deleted and
 * re-created, or a rebuild did not finish): nothing is discarded without
 * being asked to.  Refusing (the default) says what was found (and
 * restore_assigned what the choices are), and stops the process with
 * STOAT_EXIT_STATE; the local state and the changelog stay as they are.
 * False: the process stops.
 */
static bool refuse_mismatch(stoat_kafka *k, const restore_job *j, int64_t lo, int64_t hi)
{
	const stoat_store_part *p = j->part;
	int store = stoat_store_part_store(p);
	int32_t partition = stoat_store_part_partition(p);
	if (stoat_store_part_rebuild_pending(p))
		kafka_log(k, "error: store %s, partition %" PRId32 ": a rebuild of changelog %s[%" PRId32 "] from the "
			  "local state started and did not finish (the changelog now holds offsets %" PRId64 "..%" PRId64
			  ")",
			  k->app->stores[store].name, partition, j->topic, partition, lo, hi);
	else
		kafka_log(k, "error: store %s, partition %" PRId32 ": the local state's checkpoint is changelog offset "
			  "%" PRId64 ", but changelog %s[%" PRId32 "] holds offsets %" PRId64 "..%" PRId64 " only (was "
			  "the topic deleted or re-created?)",
			  k->app->stores[store].name, partition, stoat_store_part_checkpoint(p), j->topic, partition, lo,
			  hi);
	k->state_mismatch = true;
	return false;
}

/*
 * Prepares a job: reads the changelog partition's offsets and starts the
 * store partition's restore (stoat_store_part_restore_plan decides from
 * where).  A checkpoint below the changelog's start restores from scratch
 * (its head was removed: what a compacted changelog holds is still the
 * state, as Kafka Streams assumes on OffsetOutOfRange); one above its end
 * is a mismatch, handled as --on-state-mismatch says.
 */
static bool restore_prepare(stoat_kafka *k, restore_job *j)
{
	int32_t partition = stoat_store_part_partition(j->part);
	changelog_range r;
	if (!changelog_offsets(k, j->topic, partition, &r))
		return false;
	/* A checkpoint may be above the stable end (its transaction's markers
	 * are not written yet), never above the high watermark. */
	stoat_restore_plan plan = stoat_store_part_restore_plan(j->part, r.lo, r.end);
	if (plan == STOAT_RESTORE_MISMATCH) {
		if (k->opt->on_state_mismatch == STOAT_MISMATCH_REFUSE)
			return refuse_mismatch(k, j, r.lo, r.end);
		if (k->opt->on_state_mismatch == STOAT_MISMATCH_REBUILD_CHANGELOG) {
			kafka_log(k, "warning: %s[%" PRId32 "]: checkpoint %" PRId64 " is above the changelog's offsets "
				  "%" PRId64 "..%" PRId64 "; rebuilding the changelog from the local state "
				  "(--on-state-mismatch rebuild-changelog)",
				  j->topic, partition, stoat_store_part_checkpoint(j->part), r.lo, r.end);
			if (!kafka_rebuild_changelog(k, j->part, j->topic, r.lo, r.end) ||
			    !changelog_offsets(k, j->topic, partition, &r))
				return false;
			plan = stoat_store_part_restore_plan(j->part, r.lo, r.end);
			if (plan != STOAT_RESTORE_FROM_CHECKPOINT) {
				kafka_log(k, "error: %s[%" PRId32 "]: after the rebuild, checkpoint %" PRId64 " is still outside "
					  "the changelog's offsets %" PRId64 "..%" PRId64,
					  j->topic, partition, stoat_store_part_checkpoint(j->part), r.lo, r.end);
				return false;
			}
		} else {
			kafka_log(k, "warning: %s[%" PRId32 "]: checkpoint %" PRId64 " is above the changelog's offsets "
				  "%" PRId64 "..%" PRId64 "; discarding the local state and restoring the store partition "
				  "from the changelog (--on-state-mismatch reset)",
				  j->topic, partition, stoat_store_part_checkpoint(j->part), r.lo, r.end);
		}
	} else if (plan == STOAT_RESTORE_FROM_START && stoat_store_part_checkpoint(j->part) > 0) {
		kafka_log(k, "warning: %s[%" PRId32 "]: checkpoint %" PRId64 " is below the changelog's offsets %" PRId64
			  "..%" PRId64 " (its head was deleted); restoring the store partition from the start",
			  j->topic, partition, stoat_store_part_checkpoint(j->part), r.lo, r.end);
	}
	bool scratch = plan != STOAT_RESTORE_FROM_CHECKPOINT;
	j->from = scratch ? r.lo : stoat_store_part_checkpoint(j->part);
	j->end = r.stable;
	char err[1024];
	if (!stoat_store_part_restore_start(j->part, scratch, err, sizeof err)) {
		kafka_log(k, "error: %s", err);
		return false;
	}
	j->done = j->from >= j->end;
	return true;
}

/* Finishes a job: writes what is left with the new checkpoint. */
static bool restore_finish(stoat_kafka *k, restore_job *j, int64_t start)
{
	char err[1024];
	if (!stoat_store_part_restore_done(j->part, err, sizeof err)) {
		kafka_log(k, "error: restoring %s[%" PRId32 "]: %s", j->topic, stoat_store_part_partition(j->part), err);
		return false;
	}
	j->done = true;
	log_restored(k, j, stoat_now_ms() - start);
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
		size_t src = kafka_source_of_topic(k->app, parts->elems[i].topic);
		if (src != SIZE_MAX)
			cap += k->app->sources[src].store_count;
	}
	if (cap == 0)
		return true;
	if (!k->restorer && !(k->restorer = kafka_new_restorer(k)))
		return false;
	restore_job *jobs = stoat_xcalloc(1, cap * sizeof *jobs);
	size_t n = 0, pending = 0;
	bool ok = true;
	int64_t start = stoat_now_ms(), last_log = start;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)cap);
	for (int i = 0; ok && i < parts->cnt; i++) {
		size_t src = kafka_source_of_topic(k->app, parts->elems[i].topic);
		if (src == SIZE_MAX)
			continue;
		const stoat_source *source = &k->app->sources[src];
		for (size_t s = 0; ok && s < source->store_count; s++) {
			char err[1024];
			int32_t partition = parts->elems[i].partition;
			stoat_store_part *p = stoat_state_part(k->state, source->stores[s], partition, err, sizeof err);
			if (!p) {
				kafka_log(k, "error: %s", err);
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
			if (!ok && k->state_mismatch && !kafka_stop_requested) {
				/* Name every mismatched partition before stopping. */
				ok = true;
				j->done = true;
				continue;
			}
			if (ok && j->done)
				ok = restore_finish(k, j, start);
			else if (ok) {
				rd_kafka_topic_partition_list_add(l, j->topic, partition)->offset = j->from;
				pending++;
			}
		}
	}
	if (ok && k->state_mismatch) {
		kafka_log(k, "error: the local state is kept; stopping without processing its partitions. Start again with "
			  "--on-state-mismatch rebuild-changelog to write the local state to the changelog and go on "
			  "from it, or with --on-state-mismatch reset to discard the local state and restore the store "
			  "from what the changelog holds");
		ok = false;
	}
	if (ok && pending > 0) {
		rd_kafka_resp_err_t e = rd_kafka_assign(k->restorer, l);
		if (e) {
			kafka_log(k, "error: cannot read the changelogs: %s", rd_kafka_err2str(e));
			ok = false;
		}
	}
	rd_kafka_topic_partition_list_destroy(l);
	k->restoring = jobs;
	k->restoring_count = n;
	/* /state lists the restores from their start (the phase alone was published before). */
	kafka_http_publish(k, true);
	while (ok && pending > 0 && !kafka_stop_requested) {
		kafka_http_publish(k, false);
		rd_kafka_message_t *m = rd_kafka_consumer_poll(k->restorer, 500);
		int64_t now = stoat_now_ms();
		if (now - last_log >= 5000) {
			last_log = now;
			uint64_t records = 0;
			for (size_t j = 0; j < n; j++)
				records += stoat_store_part_restored(jobs[j].part);
			kafka_log_event(k, "restoring", "restoring: %zu of %zu store partitions to go, %" PRIu64 " records so far", pending, n,
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
				kafka_log(k, "warning: reading the changelogs: %s", rd_kafka_message_errstr(m));
		} else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			ok = restore_finish(k, j, start);
			pending--;
		} else if (m->err) {
			kafka_log(k, "warning: reading changelog %s[%" PRId32 "]: %s", j->topic, m->partition,
			      rd_kafka_message_errstr(m));
		} else {
			char err[1024];
			stoat_str key = { m->key, m->key ? m->key_len : 0 };
			stoat_str value = { m->payload, m->payload ? m->len : 0 }; /* NULL: tombstone */
			if (!stoat_store_part_restore_record(j->part, key, value, m->offset, err, sizeof err)) {
				kafka_log(k, "error: restoring %s[%" PRId32 "]: %s", j->topic, m->partition, err);
				ok = false;
			} else {
				k->restored_records++;
				if (m->offset + 1 >= j->end) {
					ok = restore_finish(k, j, start);
					pending--;
				}
			}
		}
		rd_kafka_message_destroy(m);
	}
	rd_kafka_assign(k->restorer, NULL);
	k->restoring = NULL;
	k->restoring_count = 0;
	free(jobs);
	return ok && pending == 0;
}

/* Incremental (cooperative) rebalancing, or eager (range: see
 * kafka_has_shared_stores)? */
static bool cooperative(rd_kafka_t *rk)
{
	const char *protocol = rd_kafka_rebalance_protocol(rk);
	return protocol && strcmp(protocol, "COOPERATIVE") == 0;
}

/*
 * The consumer's rebalance callback: assigned partitions are restored
 * and taken, revoked ones committed first, lost ones dropped uncommitted.
 */
void kafka_rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts,
			 void *opaque)
{
	stoat_kafka *k = opaque;
	/* A rebalance is activity: the idle timer starts again. */
	k->last_input_ms = stoat_now_ms();
	/* The group's first answer has come: see close_consumer (kafka_run.c). */
	k->rebalanced = true;
	if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
		log_partitions(k, "assigned", parts);
		for (int i = 0; i < parts->cnt; i++) {
			const char *topic = parts->elems[i].topic;
			kafka_partition *p = kafka_find_part(k, topic, parts->elems[i].partition);
			if (!p) {
				if (k->part_count == k->part_cap) {
					k->part_cap = k->part_cap ? k->part_cap * 2 : 16;
					k->parts = stoat_xrealloc(k->parts, k->part_cap, sizeof *k->parts);
				}
				p = &k->parts[k->part_count++];
				memset(p, 0, sizeof *p);
				p->topic = stoat_xstrdup(topic);
				p->partition = parts->elems[i].partition;
				p->source = kafka_source_of_topic(k->app, topic);
			}
			p->assigned = true;
			p->next_offset = p->committed = -1;
			p->group_committed = -2; /* not read (kafka_http_assigned) */
			/* Its own queue before the assignment starts the fetch. */
			if (k->ordered && p->source != SIZE_MAX && k->ordered[p->source])
				kafka_order_take(k, rk, p);
		}
		if (k->phase != STOAT_HTTP_STOPPING)
			k->phase = STOAT_HTTP_RESTORING;
		kafka_http_publish(k, true);
		if (!restore_assigned(k, parts) && !kafka_stop_requested) {
			k->fatal = true;
			kafka_stop_requested = 1;
		}
		/* So is restoring: the idle time counts from its end. */
		k->last_input_ms = stoat_now_ms();
		if (!cooperative(rk)) {
			rd_kafka_resp_err_t ae = rd_kafka_assign(rk, parts);
			if (ae)
				kafka_log(k, "error: cannot take the assigned partitions: %s", rd_kafka_err2str(ae));
		} else {
			rd_kafka_error_t *e = rd_kafka_incremental_assign(rk, parts);
			if (e) {
				kafka_log(k, "error: cannot take the assigned partitions: %s", rd_kafka_error_string(e));
				rd_kafka_error_destroy(e);
			}
		}
		kafka_http_assigned(k, parts);
		if (k->phase != STOAT_HTTP_STOPPING)
			k->phase = STOAT_HTTP_RUNNING;
		kafka_http_publish(k, true);
		/* Repartition records get their own queue: see poll_once. */
		for (int i = 0; k->internal_queue && i < parts->cnt; i++) {
			size_t src = kafka_source_of_topic(k->app, parts->elems[i].topic);
			if (src == SIZE_MAX || !k->app->sources[src].internal || (k->ordered && k->ordered[src]))
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
		k->rebalances++;
		bool lost = rd_kafka_assignment_lost(rk);
		if (lost) {
			/* Another instance owns them already: committing would be wrong. */
			log_partitions(k, "lost", parts);
			if (k->eos && k->in_txn)
				kafka_abort_and_rewind(k);
		} else {
			log_partitions(k, "revoked", parts);
			kafka_commit(k);
		}
		for (int i = 0; i < parts->cnt; i++) {
			kafka_partition *p = kafka_find_part(k, parts->elems[i].topic, parts->elems[i].partition);
			if (p) {
				p->assigned = false;
				kafka_order_release(k, p);
			}
		}
		if (!cooperative(rk)) {
			rd_kafka_assign(rk, NULL);
			return;
		}
		rd_kafka_error_t *e = rd_kafka_incremental_unassign(rk, parts);
		if (e) {
			kafka_log(k, "warning: cannot release partitions: %s", rd_kafka_error_string(e));
			rd_kafka_error_destroy(e);
		}
		return;
	}
	kafka_log(k, "warning: rebalance error: %s", rd_kafka_err2str(err));
}

/*
 * For --idle-exit: how many source partitions that this instance does not
 * hold have records after the group's committed offset (read_committed,
 * read from there with the restorer, so that transaction markers after
 * the last record do not count); their names go to names, and the sum of
 * their committed offsets to *committed_sum, so that the caller can see
 * whether some instance is working on them.  -1: the cluster did not
 * tell within a few seconds.
 *
 * Why: an instance that is idle only knows about its own partitions.
 * Without this, a group whose partitions were never assigned (a static
 * member that librdkafka 2.0.2 left without its assignment after a broker
 * restart, say) ended its --idle-exit drain with status 0 and records
 * never processed.
 */
int kafka_unprocessed_elsewhere(stoat_kafka *k, int64_t *committed_sum, char *names, size_t names_len)
{
	*committed_sum = 0;
	if (names_len)
		names[0] = '\0';
	const struct rd_kafka_metadata *md = NULL;
	if (rd_kafka_metadata(k->consumer, 1, NULL, &md, 5000) != RD_KAFKA_RESP_ERR_NO_ERROR)
		return -1;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(16);
	for (int t = 0; t < md->topic_cnt; t++) {
		size_t src = kafka_source_of_topic(k->app, md->topics[t].topic);
		/* A global table's topic is read whole outside the group (global.c). */
		if (src == SIZE_MAX || k->app->sources[src].global)
			continue;
		for (int i = 0; i < md->topics[t].partition_cnt; i++) {
			kafka_partition *p = kafka_find_part(k, md->topics[t].topic, md->topics[t].partitions[i].id);
			if (!p || !p->assigned)
				rd_kafka_topic_partition_list_add(l, md->topics[t].topic, md->topics[t].partitions[i].id);
		}
	}
	rd_kafka_metadata_destroy(md);
	int unprocessed = -1;
	if (l->cnt == 0) {
		unprocessed = 0;
		goto done;
	}
	if (rd_kafka_committed(k->consumer, l, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR)
		goto done;
	for (int i = 0; i < l->cnt; i++) {
		if (l->elems[i].offset >= 0)
			*committed_sum += l->elems[i].offset;
		else
			l->elems[i].offset = RD_KAFKA_OFFSET_BEGINNING;
	}
	if (!k->restorer && !(k->restorer = kafka_new_restorer(k)))
		goto done;
	if (rd_kafka_assign(k->restorer, l) != RD_KAFKA_RESP_ERR_NO_ERROR)
		goto done;
	/* offset: 0 unknown yet, 1 caught up, 2 unprocessed records. */
	for (int i = 0; i < l->cnt; i++)
		l->elems[i].offset = 0;
	int open = l->cnt, found = 0;
	size_t n = 0;
	int64_t deadline = stoat_now_ms() + 10000;
	while (open > 0 && stoat_now_ms() < deadline && !kafka_stop_requested) {
		rd_kafka_message_t *m = rd_kafka_consumer_poll(k->restorer, 200);
		if (!m)
			continue;
		rd_kafka_topic_partition_t *e =
			m->rkt ? rd_kafka_topic_partition_list_find(l, rd_kafka_topic_name(m->rkt), m->partition) : NULL;
		if (e && e->offset == 0 && (!m->err || m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)) {
			open--;
			e->offset = m->err ? 1 : 2;
			if (!m->err) {
				found++;
				if (n < names_len)
					n += (size_t)snprintf(names + n, names_len - n, "%s%s[%" PRId32 "]", found > 1 ? ", " : "",
							      e->topic, e->partition);
			}
		}
		rd_kafka_message_destroy(m);
	}
	rd_kafka_assign(k->restorer, NULL);
	if (open == 0)
		unprocessed = found;
done:
	rd_kafka_topic_partition_list_destroy(l);
	return unprocessed;
}
