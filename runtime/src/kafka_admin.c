/*
 * kafka_admin.c - the Kafka driver's Admin API work: creating the internal
 * topics (repartition topics, changelogs) and missing dead-letter topics
 * at start-up, and purging repartition records once they are consumed
 * and committed.
 */
#include "kafka_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Deletes repartition records that are consumed and committed (Admin
 * DeleteRecords up to each internal partition's committed offset), every
 * purge interval, as Kafka Streams does: repartition topics keep records
 * forever otherwise (retention -1).  Asynchronous; failures are warnings.
 */
void kafka_purge_repartition_topics(stoat_kafka *k)
{
	int64_t now = stoat_now_ms();
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
void kafka_purge_poll(stoat_kafka *k, int timeout_ms)
{
	rd_kafka_event_t *ev;
	while (k->purge_results && k->purges_in_flight > 0 &&
	       (ev = rd_kafka_queue_poll(k->purge_results, timeout_ms)) != NULL) {
		k->purges_in_flight--;
		if (rd_kafka_event_error(ev))
			kafka_log(k, "warning: cannot delete consumed repartition records: %s", rd_kafka_event_error_string(ev));
		rd_kafka_event_destroy(ev);
	}
}

/*
 * The dead-letter topic of source i, or NULL: the one the record path
 * would use (stoat_effective_policy and stoat_effective_dlq_topic, with
 * the command line's override).
 */
static const char *source_dlq_topic(const stoat_kafka *k, size_t i)
{
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	cx.app = k->app;
	cx.driver = (stoat_driver *)&k->driver;
	cx.source = &k->app->sources[i];
	return stoat_effective_policy(&cx) == STOAT_POLICY_DLQ ? stoat_effective_dlq_topic(&cx) : NULL;
}

/*
 * The distinct dead-letter topics of the sources, into names (room for
 * source_count); their count.
 */
static size_t dlq_topics(const stoat_kafka *k, const char **names)
{
	size_t n = 0;
	for (size_t i = 0; i < k->app->source_count; i++) {
		const char *t = source_dlq_topic(k, i);
		bool seen = false;
		for (size_t j = 0; t && j < n; j++)
			seen = seen || strcmp(names[j], t) == 0;
		if (t && !seen)
			names[n++] = t;
	}
	return n;
}

/* Whether topic is in the metadata md (without an error). */
static bool topic_exists(const struct rd_kafka_metadata *md, const char *topic)
{
	for (int t = 0; t < md->topic_cnt; t++)
		if (strcmp(md->topics[t].topic, topic) == 0 && !md->topics[t].err)
			return true;
	return false;
}

/*
 * Checks the application's co-partition groups (the two sides of each
 * join) against the source topics' partition counts, as Kafka Streams'
 * CopartitionedTopicsEnforcer does: the external topics of a group must
 * have as many partitions as each other, and its internal (repartition)
 * topics get that count (a group of internal topics only, and internal
 * topics in no group, get `partitions`, the largest source topic's).  Sets
 * source_partitions[i] of every internal source; false, with a message
 * naming both topics and their counts, when a group's topics differ.
 */
static bool check_copartitions(stoat_kafka *k, int *source_partitions, int partitions)
{
	const stoat_app *app = k->app;
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].internal)
			source_partitions[i] = 0;
	for (size_t g = 0; g < app->copartition_count; g++) {
		const stoat_copartition *cp = &app->copartitions[g];
		int first = -1;
		for (size_t j = 0; j < cp->source_count; j++) {
			int i = cp->sources[j];
			if (app->sources[i].internal)
				continue;
			if (first < 0) {
				first = i;
			} else if (source_partitions[i] != source_partitions[first]) {
				kafka_log(k, "error: topics %s (%d partitions) and %s (%d partitions) are co-partitioned for the %s, "
					 "so they must have the same number of partitions",
				      app->sources[first].topic, source_partitions[first], app->sources[i].topic,
				      source_partitions[i], cp->what);
				return false;
			}
		}
		int count = first >= 0 ? source_partitions[first] : partitions;
		for (size_t j = 0; j < cp->source_count; j++) {
			int i = cp->sources[j];
			if (!app->sources[i].internal)
				continue;
			if (source_partitions[i] && source_partitions[i] != count) {
				kafka_log(k, "error: repartition topic %s would need %d and %d partitions: it is co-partitioned "
					 "for the %s and for another join with topics of other sizes",
				      app->sources[i].topic, source_partitions[i], count, cp->what);
				return false;
			}
			source_partitions[i] = count;
		}
	}
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].internal && !source_partitions[i])
			source_partitions[i] = partitions;
	return true;
}

/*
 * Creates the internal topics (Admin API), as Kafka Streams does, waiting
 * for the source topics to exist: repartition topics with as many
 * partitions as the largest external source topic (or, co-partitioned
 * for a join, as the topics on its other side), and one compacted
 * changelog per store with as many partitions as the topics feeding it.
 * Existing topics are kept.  A dead-letter topic that does not exist is
 * created too (as Kafka Connect creates its dead-letter queue), with as
 * many partitions as the largest source topic using it: otherwise the
 * first dead letters would fail only after librdkafka's metadata
 * propagation time, taking their transaction with them.  False if the
 * process should stop.
 */
bool kafka_create_internal_topics(stoat_kafka *k)
{
	const stoat_app *app = k->app;
	size_t internal = 0;
	for (size_t i = 0; i < app->source_count; i++)
		internal += app->sources[i].internal;
	size_t changelogs = k->state ? app->store_count : 0;
	const char **dlqs = stoat_xcalloc(1, (app->source_count + 1) * sizeof *dlqs);
	size_t dlq_count = dlq_topics(k, dlqs);
	bool *dlq_missing = stoat_xcalloc(1, (dlq_count + 1) * sizeof *dlq_missing);
	if (internal + changelogs + dlq_count == 0) {
		free(dlqs);
		free(dlq_missing);
		return true;
	}
	int partitions = 0;
	int *source_partitions = stoat_xcalloc(1, app->source_count * sizeof *source_partitions);
	while (!kafka_stop_requested) {
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
					/* A global table's topic sizes nothing: no task reads it. */
					if (md->topics[t].partition_cnt > partitions && !app->sources[i].global)
						partitions = md->topics[t].partition_cnt;
				}
			if (!found) {
				all = false;
				missing = app->sources[i].topic;
			}
		}
		for (size_t d = 0; all && d < dlq_count; d++)
			dlq_missing[d] = !topic_exists(md, dlqs[d]);
		if (md)
			rd_kafka_metadata_destroy(md);
		if (all)
			break;
		if (err)
			kafka_log(k, "warning: cannot read the cluster's metadata (%s); retrying", rd_kafka_err2str(err));
		else
			kafka_log(k, "warning: source topic %s does not exist (yet); waiting for it before creating "
				 "the %s topics",
				  missing, internal + changelogs ? "internal" : "dead-letter");
		sleep(5);
	}
	if (kafka_stop_requested) {
		free(source_partitions);
		free(dlqs);
		free(dlq_missing);
		return false;
	}
	if (!check_copartitions(k, source_partitions, partitions)) {
		free(source_partitions);
		free(dlqs);
		free(dlq_missing);
		return false;
	}
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
					kafka_log(k, "error: topics %s (%d partitions) and %s (%d partitions) both feed table %s, "
						 "so they must have the same number of partitions",
					      app->sources[first].topic, source_partitions[first], app->sources[i].topic,
					      source_partitions[i], app->stores[s].name);
					free(source_partitions);
					free(dlqs);
					free(dlq_missing);
					return false;
				}
			}
	}
	size_t cap = internal + changelogs + dlq_count;
	rd_kafka_NewTopic_t **nts = stoat_xcalloc(1, cap * sizeof *nts);
	int *counts = stoat_xcalloc(1, cap * sizeof *counts);
	const char **names = stoat_xcalloc(1, cap * sizeof *names);
	bool *is_dlq = stoat_xcalloc(1, cap * sizeof *is_dlq);
	size_t n = 0;
	char err[256];
	for (size_t i = 0; i < app->source_count; i++) {
		if (!app->sources[i].internal)
			continue;
		counts[n] = source_partitions[i];
		names[n] = app->sources[i].topic;
		nts[n] = rd_kafka_NewTopic_new(names[n], counts[n], -1, err, sizeof err);
		/*
		 * Records keep their event time, which may be old: time-based
		 * retention must not delete them before they are read back (as
		 * Kafka Streams configures its repartition topics).
		 */
		rd_kafka_NewTopic_set_config(nts[n], "retention.ms", "-1");
		n++;
	}
	for (size_t s = 0; s < changelogs; s++) {
		if (app->stores[s].global)
			continue; /* its source topic is its changelog */
		int count = 0;
		for (size_t i = 0; i < app->source_count; i++)
			for (size_t j = 0; j < app->sources[i].store_count; j++)
				if (app->sources[i].stores[j] == (int)s && source_partitions[i] > count)
					count = source_partitions[i];
		counts[n] = count > 0 ? count : partitions;
		names[n] = stoat_state_changelog_topic(k->state, (int)s);
		nts[n] = rd_kafka_NewTopic_new(names[n], counts[n], -1, err, sizeof err);
		/*
		 * Latest value per key is all a restore needs.  A window
		 * store's windows also expire there: retention.ms is the
		 * window retention (size + grace by default, counted from the
		 * window's start; not retention_ms, which counts from its end)
		 * plus a day, as Kafka Streams sets it (the store's retention
		 * period plus windowstore.changelog.additional.retention.ms).
		 */
		const stoat_store_desc *sd = &app->stores[s];
		if (sd->kind == STOAT_STORE_WINDOW) {
			char retention[32];
			int64_t w = sd->window_retention_ms > sd->retention_ms ? sd->window_retention_ms : sd->retention_ms;
			int64_t r = w > INT64_MAX - 86400000 ? INT64_MAX : w + 86400000;
			snprintf(retention, sizeof retention, "%" PRId64, r);
			rd_kafka_NewTopic_set_config(nts[n], "cleanup.policy", "compact,delete");
			rd_kafka_NewTopic_set_config(nts[n], "retention.ms", retention);
		} else {
			rd_kafka_NewTopic_set_config(nts[n], "cleanup.policy", "compact");
		}
		n++;
	}
	for (size_t d = 0; d < dlq_count; d++) {
		if (!dlq_missing[d])
			continue;
		int count = 0;
		for (size_t i = 0; i < app->source_count; i++) {
			const char *t = source_dlq_topic(k, i);
			if (t && strcmp(t, dlqs[d]) == 0 && source_partitions[i] > count)
				count = source_partitions[i];
		}
		counts[n] = count > 0 ? count : 1;
		names[n] = dlqs[d];
		is_dlq[n] = true;
		/* The broker's defaults otherwise: dead letters are ordinary records. */
		nts[n] = rd_kafka_NewTopic_new(names[n], counts[n], -1, err, sizeof err);
		n++;
	}
	free(source_partitions);
	free(dlq_missing);
	if (n == 0) {
		/* Only dead-letter topics, and they exist. */
		free(nts);
		free(counts);
		free(names);
		free(is_dlq);
		free(dlqs);
		return true;
	}
	rd_kafka_queue_t *q = rd_kafka_queue_new(k->producer);
	rd_kafka_CreateTopics(k->producer, nts, n, NULL, q);
	rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 60000);
	bool ok = ev != NULL;
	if (!ev) {
		kafka_log(k, "error: the cluster did not answer the request to create the internal%s topics",
			  dlq_count ? " and dead-letter" : "");
	} else if (rd_kafka_event_error(ev)) {
		kafka_log(k, "error: cannot create the internal%s topics: %s", dlq_count ? " and dead-letter" : "",
			  rd_kafka_event_error_string(ev));
		ok = false;
	} else {
		size_t cnt;
		const rd_kafka_topic_result_t **tr =
			rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &cnt);
		for (size_t i = 0; i < cnt; i++) {
			rd_kafka_resp_err_t e = rd_kafka_topic_result_error(tr[i]);
			const char *name = rd_kafka_topic_result_name(tr[i]);
			int count = 0;
			bool dlq = false;
			for (size_t j = 0; j < n; j++)
				if (strcmp(names[j], name) == 0) {
					count = counts[j];
					dlq = is_dlq[j];
				}
			if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
				kafka_log(k, "created %s topic %s with %d partitions", dlq ? "dead-letter" : "internal", name,
					  count);
			else if (e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS && dlq) {
				kafka_log(k, "error: dead-letter topic %s does not exist and cannot be created: %s (create it, "
					     "or name another with --on-error dlq:TOPIC)",
					  name, rd_kafka_topic_result_error_string(tr[i]));
				ok = false;
			} else if (e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
				kafka_log(k, "error: cannot create internal topic %s: %s", name,
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
	for (int64_t deadline = stoat_now_ms() + 30000; ok && !kafka_stop_requested && stoat_now_ms() < deadline;) {
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
					 * split keys (repartition) or lose state (changelog); a
					 * dead-letter topic may have any. */
					if (!is_dlq[j] && md->topics[t].partition_cnt != counts[j]) {
						kafka_log(k, "error: internal topic %s has %d partitions, but the application needs "
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
	free(is_dlq);
	free(dlqs);
	return ok;
}
