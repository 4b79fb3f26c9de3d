/*
 * kafka_http.c - the Kafka driver's side of the operations endpoint
 * (http.h): starting it, the snapshots the stream thread hands it, and the
 * pause and resume requests it hands back.
 *
 * Everything here runs on the stream thread, between batches: a snapshot
 * at most every STOAT_HTTP_PUBLISH_MS (and while restoring, from the
 * restore loop), the requests once per loop.  A paused source's assigned
 * partitions are paused in librdkafka (rd_kafka_pause_partitions: no
 * fetching, the group membership kept), and so are partitions of it that
 * a later rebalance assigns, until a resume.
 */
#include "kafka_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * GET /config: the effective settings and librdkafka properties, secrets
 * masked, as `config print --json` writes them (config_print.c).
 * Rendered once: the settings do not change while the app runs.
 */
static char *config_json(const stoat_kafka *k)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		stoat_out_of_memory("GET /config", 0);
	stoat_kafka_config_print(f, k->opt, true);
	fclose(f);
	return text;
}

/* Starts the endpoint (see kafka_impl.h). */
bool kafka_http_start(stoat_kafka *k, const char *instance_id)
{
	const stoat_app *app = k->app;
	k->sink_produced = stoat_xcalloc(app->sink_count + 1, sizeof *k->sink_produced);
	k->source_paused = stoat_xcalloc(app->source_count + 1, sizeof *k->source_paused);
	if (k->opt->http_port < 0)
		return true;
	k->sink_e2e = stoat_xcalloc(app->sink_count + 1, sizeof *k->sink_e2e);
	k->batch_seconds = stoat_xcalloc(app->source_count + 1, sizeof *k->batch_seconds);
	k->http_config_json = config_json(k);
	k->http_info = (stoat_http_info){
		.app = app,
		.instance_id = instance_id,
		.bootstrap_servers = k->opt->bootstrap_servers,
		.guarantee = k->opt->guarantee,
		.started_unix_ms = stoat_wall_ms() - (stoat_now_ms() - k->started_ms),
		.started_ms = k->started_ms,
		.ready_max_lag = k->opt->http_ready_max_lag,
		.config_json = k->http_config_json,
	};
	char err[512];
	k->http = stoat_http_start(&k->http_info, k->opt->http_address, k->opt->http_port, err, sizeof err);
	if (!k->http) {
		kafka_log(k, "error: http: %s (the http setting; off turns the endpoint off)", err);
		return false;
	}
	const char *a = k->opt->http_address;
	bool v6 = strchr(a, ':') != NULL;
	kafka_log_event(k, "http_serving", "http: serving on http://%s%s%s:%d (/health/live, /health/ready, /metrics, /info, /config, "
		     "/offsets, /state, /topology, POST /pause, POST /resume)%s",
		  v6 ? "[" : "", a, v6 ? "]" : "", stoat_http_port(k->http),
		  strcmp(a, "127.0.0.1") == 0 || strcmp(a, "::1") == 0
			  ? ""
			  : "; beyond loopback: whoever reaches this address can pause the app");
	kafka_http_publish(k, true);
	return true;
}

/* The snapshot's view of partition p, offsets as http.h defines them. */
static void fill_partition(stoat_kafka *k, const kafka_partition *p, stoat_http_partition *out)
{
	out->source = p->source;
	out->partition = p->partition;
	out->paused = p->paused;
	out->committed = p->committed >= 0 ? p->committed : p->group_committed;
	out->position = p->next_offset >= 0 ? p->next_offset : out->committed;
	int64_t lo = -1, hi = -1;
	if (k->consumer &&
	    rd_kafka_get_watermark_offsets(k->consumer, p->topic, p->partition, &lo, &hi) != RD_KAFKA_RESP_ERR_NO_ERROR)
		lo = hi = -1;
	out->end = hi >= 0 ? hi : -1;
	/* Paused, it fetches nothing: its end is the one asked of the broker. */
	if (p->paused && p->paused_end > out->end)
		out->end = p->paused_end;
	/* Nothing committed: the consumer starts at the beginning (auto.offset.reset earliest). */
	if (out->position < 0 && p->group_committed == -1 && lo >= 0)
		out->position = lo;
	/*
	 * Reached its end with every record before it processed: what is
	 * left up to the high watermark are transaction markers and aborted
	 * records (read_committed), never records to process.  Not while
	 * paused: records that came since are not fetched, so no end says so.
	 */
	bool drained = !p->paused && (p->queue ? p->at_end && p->held_head == p->held_len : p->at_end);
	if (drained && out->end >= 0)
		out->position = out->end;
}

/*
 * The stores' part of a snapshot: their figures as read at most every
 * STOAT_HTTP_STATE_MS (RocksDB properties are not free; while a restore
 * runs, and once more right after it, at every snapshot), and the restores
 * under way as of now.
 */
static void fill_state(stoat_kafka *k, stoat_http_stats *s, int64_t now)
{
	s->has_state = k->state != NULL;
	s->store_count = s->restore_count = 0;
	if (!k->state)
		return;
	if (k->state_usage_ms == 0 || now - k->state_usage_ms >= STOAT_HTTP_STATE_MS || k->restoring ||
	    k->state_usage_restoring) {
		k->state_usage_ms = now;
		k->state_usage_restoring = k->restoring != NULL;
		size_t n = stoat_state_describe(k->state, k->store_usage, k->store_usage_cap, &k->state_usage);
		if (n > k->store_usage_cap) {
			k->store_usage_cap = n * 2;
			k->store_usage = stoat_xrealloc(k->store_usage, k->store_usage_cap, sizeof *k->store_usage);
			n = stoat_state_describe(k->state, k->store_usage, k->store_usage_cap, &k->state_usage);
		}
		k->store_usage_count = n;
	}
	stoat_http_stats_reserve_stores(s, k->store_usage_count);
	if (k->store_usage_count)
		memcpy(s->stores, k->store_usage, k->store_usage_count * sizeof *s->stores);
	s->store_count = k->store_usage_count;
	s->state = k->state_usage;
	stoat_http_stats_reserve_restores(s, k->restoring_count);
	for (size_t i = 0; k->restoring && i < k->restoring_count; i++) {
		const kafka_restore_job *j = &k->restoring[i];
		if (j->done)
			continue;
		stoat_http_restore *r = &s->restores[s->restore_count++];
		r->store = stoat_store_part_store(j->part);
		r->partition = stoat_store_part_partition(j->part);
		r->from = j->from;
		r->end = j->end;
		r->position = stoat_store_part_restore_position(j->part);
		if (r->position < j->from)
			r->position = j->from;
		r->restored = stoat_store_part_restored(j->part);
	}
}

/* Fills the stream thread's buffer from the driver's state. */
static void fill(stoat_kafka *k, stoat_http_stats *s, int64_t now)
{
	const stoat_app *app = k->app;
	s->phase = k->phase;
	s->published_ms = now;
	for (size_t i = 0; i < app->source_count; i++) {
		stoat_http_source *src = &s->sources[i];
		if (k->tasks)
			src->counters = k->tasks[i].counters;
		else
			memset(&src->counters, 0, sizeof src->counters);
		src->paused = k->source_paused[i];
		src->batch_seconds = k->batch_seconds[i];
	}
	/* What a flush passes on (a table's changes) counts as the store's source's output. */
	for (size_t i = 0; i < app->sink_count; i++) {
		s->sinks[i].produced = k->sink_produced[i];
		s->sinks[i].e2e_seconds = k->sink_e2e[i];
	}
	size_t n = 0;
	for (size_t i = 0; i < k->part_count; i++)
		n += k->parts[i].assigned && k->parts[i].source != SIZE_MAX;
	stoat_http_stats_reserve(s, n);
	s->partition_count = 0;
	for (size_t i = 0; i < k->part_count; i++)
		if (k->parts[i].assigned && k->parts[i].source != SIZE_MAX)
			fill_partition(k, &k->parts[i], &s->partitions[s->partition_count++]);
	s->commits = k->commits;
	s->aborts = k->aborts;
	s->fencings = k->fencings;
	s->rebalances = k->rebalances;
	s->delivery_failures = k->delivery_failures;
	s->restored_records = k->restored_records;
	s->commit_seconds = k->commit_seconds;
	fill_state(k, s, now);
	s->producer = k->producer_stats;
	s->consumer = k->consumer_stats;
}

/*
 * A paused partition fetches nothing, so librdkafka's cached watermarks
 * stop moving: its end is asked of the broker every
 * PAUSED_END_REFRESH_MS instead (read_committed: the last stable offset),
 * waiting at most PAUSED_END_WAIT_MS on the stream thread.
 */
enum { PAUSED_END_REFRESH_MS = 5000, PAUSED_END_WAIT_MS = 500 };

static void refresh_paused_ends(stoat_kafka *k, int64_t now)
{
	for (size_t i = 0; i < k->part_count; i++) {
		kafka_partition *p = &k->parts[i];
		if (!p->assigned || !p->paused || (p->paused_end_ms && now - p->paused_end_ms < PAUSED_END_REFRESH_MS))
			continue;
		p->paused_end_ms = now;
		int64_t lo, hi;
		if (rd_kafka_query_watermark_offsets(k->consumer, p->topic, p->partition, &lo, &hi, PAUSED_END_WAIT_MS) ==
		    RD_KAFKA_RESP_ERR_NO_ERROR)
			p->paused_end = hi;
	}
}

/* Hands over a snapshot (see kafka_impl.h). */
void kafka_http_publish(stoat_kafka *k, bool force)
{
	if (!k->http)
		return;
	int64_t now = stoat_now_ms();
	if (!force && now - k->http_published_ms < STOAT_HTTP_PUBLISH_MS)
		return;
	refresh_paused_ends(k, now);
	k->http_published_ms = now;
	fill(k, stoat_http_scratch(k->http), now);
	stoat_http_publish(k->http);
}

/* Pauses or resumes the assigned partitions of source `source` that are
 * not yet as wanted. */
static void set_paused(stoat_kafka *k, size_t source, bool pause)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(8);
	for (size_t i = 0; i < k->part_count; i++) {
		kafka_partition *p = &k->parts[i];
		if (p->assigned && p->source == source && p->paused != pause) {
			rd_kafka_topic_partition_list_add(l, p->topic, p->partition);
			p->paused_end = -1;
			p->paused_end_ms = 0;
		}
	}
	if (l->cnt > 0) {
		rd_kafka_resp_err_t e =
			pause ? rd_kafka_pause_partitions(k->consumer, l) : rd_kafka_resume_partitions(k->consumer, l);
		if (e)
			kafka_log(k, "warning: cannot %s source %s: %s", pause ? "pause" : "resume",
				  k->app->sources[source].name, rd_kafka_err2str(e));
		for (int j = 0; j < l->cnt; j++) {
			kafka_partition *p = kafka_find_part(k, l->elems[j].topic, l->elems[j].partition);
			if (p && !l->elems[j].err)
				p->paused = pause;
		}
	}
	rd_kafka_topic_partition_list_destroy(l);
}

/* Applies the requests that came since the last call (see kafka_impl.h). */
void kafka_http_control(stoat_kafka *k)
{
	if (!k->http)
		return;
	unsigned g = stoat_http_control_generation(k->http);
	if (g == k->http_generation)
		return;
	k->http_generation = g;
	for (size_t i = 0; i < k->app->source_count; i++) {
		bool want = stoat_http_paused_wanted(k->http, i);
		if (want == k->source_paused[i])
			continue;
		k->source_paused[i] = want;
		set_paused(k, i, want);
		kafka_log_event(k, want ? "paused" : "resumed", "%s source %s (topic %s)%s", want ? "paused" : "resumed", k->app->sources[i].name,
			  k->app->sources[i].topic,
			  want ? ": no records are fetched from it until POST /resume" : "");
	}
	kafka_http_publish(k, true);
}

/*
 * After an assignment: partitions of paused sources are paused (a fresh
 * assignment fetches), and with the endpoint on the group's committed
 * offsets are read, so that the lag of a partition with nothing processed
 * yet is known.
 */
void kafka_http_assigned(stoat_kafka *k, rd_kafka_topic_partition_list_t *parts)
{
	k->rebalances++;
	for (int i = 0; i < parts->cnt; i++) {
		kafka_partition *p = kafka_find_part(k, parts->elems[i].topic, parts->elems[i].partition);
		if (p) {
			p->paused = false;
			p->group_committed = -2; /* not read */
		}
	}
	for (size_t s = 0; s < k->app->source_count; s++)
		if (k->source_paused[s])
			set_paused(k, s, true);
	if (!k->http || parts->cnt == 0)
		return;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_copy(parts);
	if (rd_kafka_committed(k->consumer, l, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
		for (int i = 0; i < l->cnt; i++) {
			kafka_partition *p = kafka_find_part(k, l->elems[i].topic, l->elems[i].partition);
			if (p && !l->elems[i].err)
				p->group_committed = l->elems[i].offset >= 0 ? l->elems[i].offset : -1;
		}
	}
	rd_kafka_topic_partition_list_destroy(l);
}

/*
 * librdkafka's statistics, every statistics.interval.ms (5 s when the
 * endpoint is on): kept for the next snapshot.  Called from the client's
 * poll, on the stream thread.  Returns 0: librdkafka frees the JSON.
 */
int kafka_stats_cb(rd_kafka_t *rk, char *json, size_t json_len, void *opaque)
{
	stoat_kafka *k = opaque;
	stoat_http_client *c = rd_kafka_type(rk) == RD_KAFKA_PRODUCER ? &k->producer_stats : &k->consumer_stats;
	if (!stoat_http_parse_librdkafka_stats((stoat_str){ json, json_len }, c) && !k->stats_unreadable_reported) {
		k->stats_unreadable_reported = true;
		kafka_log(k, "warning: http: cannot read librdkafka's statistics (its gauges are not served)");
	}
	return 0;
}

/*
 * The periodic report (log_report_interval): records in and out since the
 * start with their rates since the last report, failures, the lag of the
 * assigned partitions (those whose lag is known), commits.
 */
void kafka_log_report(stoat_kafka *k, int64_t now)
{
	const stoat_app *app = k->app;
	stoat_counters c = stoat_counters_sum(app, k->tasks, app->source_count,
					       k->state ? stoat_state_flush_ctx(k->state) : NULL);
	uint64_t out = 0;
	for (size_t i = 0; i < app->sink_count; i++)
		if (!app->sinks[i].internal)
			out += k->sink_produced[i];
	double secs = (double)(now - (k->last_report_ms ? k->last_report_ms : k->started_ms)) / 1000.0;
	double in_rate = secs > 0 ? (double)(c.records_in - k->report_in) / secs : 0;
	double out_rate = secs > 0 ? (double)(out - k->report_out) / secs : 0;
	int64_t lag = 0;
	size_t parts = 0, unknown = 0;
	for (size_t i = 0; i < k->part_count; i++) {
		const kafka_partition *p = &k->parts[i];
		if (!p->assigned || p->source == SIZE_MAX)
			continue;
		stoat_http_partition v;
		fill_partition(k, p, &v);
		int64_t l = stoat_http_partition_lag(&v);
		parts++;
		if (l < 0)
			unknown++;
		else
			lag += l;
	}
	char unknown_text[64] = "";
	if (unknown)
		snprintf(unknown_text, sizeof unknown_text, " (%zu not known yet)", unknown);
	char fields[512];
	snprintf(fields, sizeof fields,
		 "\"records_in\": %" PRIu64 ", \"records_out\": %" PRIu64 ", \"in_per_second\": %.1f, "
		 "\"out_per_second\": %.1f, \"failed\": %" PRIu64 ", \"dead_lettered\": %" PRIu64 ", \"lag\": %" PRId64
		 ", \"partitions\": %zu, \"lag_unknown\": %zu, \"commits\": %" PRIu64,
		 c.records_in, out, in_rate, out_rate, c.records_failed, c.records_dead_lettered, lag, parts, unknown,
		 k->commits);
	stoat_log(STOAT_LOG_INFO, "report", fields,
		  "report: %" PRIu64 " records in (%.0f/s), %" PRIu64 " out (%.0f/s), %" PRIu64 " failed, %" PRIu64
		  " dead-lettered; lag %" PRId64 " on %zu partition%s%s; %" PRIu64 " commits",
		  c.records_in, in_rate, out, out_rate, c.records_failed, c.records_dead_lettered, lag, parts,
		  parts == 1 ? "" : "s", unknown_text, k->commits);
	k->last_report_ms = now;
	k->report_in = c.records_in;
	k->report_out = out;
}

bool kafka_http_any_paused(const stoat_kafka *k)
{
	for (size_t i = 0; k->source_paused && i < k->app->source_count; i++)
		if (k->source_paused[i])
			return true;
	return false;
}

/* Stops the endpoint (first: its pages read the driver's options). */
void kafka_http_stop(stoat_kafka *k)
{
	stoat_http_stop(k->http);
	k->http = NULL;
	free(k->http_config_json);
	free(k->sink_produced);
	free(k->sink_e2e);
	free(k->batch_seconds);
	free(k->source_paused);
	free(k->store_usage);
	k->store_usage = NULL;
	k->http_config_json = NULL;
	k->sink_produced = NULL;
	k->sink_e2e = NULL;
	k->batch_seconds = NULL;
	k->source_paused = NULL;
}
