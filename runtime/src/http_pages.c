/*
 * http_pages.c - what the operations endpoint answers (see http.h): the
 * routing of a request to its page, readiness, the Prometheus and
 * OpenMetrics exposition of the snapshot, and the JSON pages.  Functions
 * of their arguments only, so that unit tests call them without a socket.
 *
 * Metric names follow Prometheus' conventions: the stoat_ prefix, units
 * in the name (_seconds, _records), counters ending in _total, labels
 * for what varies (source, sink, topic, partition, reason).  The same
 * snapshot renders in both formats; OpenMetrics differs in the counter
 * family names (without _total), and the closing "# EOF".
 */
#include "http.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A C string onto a buffer (stoat_buf_lit takes literals only). */
static void put_cstr(stoat_buf *b, const char *s)
{
	stoat_buf_put(b, s, strlen(s));
}

/* 100 us to 60 s: a batch's processing, a commit, end-to-end latency. */
const double stoat_histogram_bounds[STOAT_HISTOGRAM_BUCKETS] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
	0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60,
};

/* Adds one observation: the first bucket whose bound holds it (bisection). */
void stoat_histogram_observe(stoat_histogram *h, double seconds)
{
	if (!(seconds > 0))
		seconds = 0; /* negative (a clock step, a future timestamp) or NaN */
	size_t lo = 0, hi = STOAT_HISTOGRAM_BUCKETS;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (seconds <= stoat_histogram_bounds[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	h->counts[lo]++;
	h->count++;
	h->sum += seconds;
}

/* Grows the partition array (the stream thread's own buffer only). */
void stoat_http_stats_reserve(stoat_http_stats *s, size_t n)
{
	if (n <= s->partition_cap)
		return;
	size_t cap = s->partition_cap ? s->partition_cap : 16;
	while (cap < n)
		cap *= 2;
	s->partitions = stoat_xrealloc(s->partitions, cap, sizeof *s->partitions);
	s->partition_cap = cap;
}

/* end - position, when both are known. */
int64_t stoat_http_partition_lag(const stoat_http_partition *p)
{
	if (p->end < 0 || p->position < 0)
		return -1;
	return p->end > p->position ? p->end - p->position : 0;
}

/* printf onto a buffer. */
static void put_fmt(stoat_buf *b, const char *fmt, ...) STOAT_PRINTF(2, 3);
static void put_fmt(stoat_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert(n >= 0);
	stoat_buf_reserve(b, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A C string as a JSON string. */
static void put_json(stoat_buf *b, const char *s)
{
	if (!s) {
		stoat_buf_lit(b, "null");
		return;
	}
	stoat_buf_put_json_str(b, (stoat_str){ s, strlen(s) });
}

/* Wall-clock seconds since the start, from the monotonic clock. */
static double uptime_seconds(const stoat_http_info *info, int64_t now_ms)
{
	return (double)(now_ms - info->started_ms) / 1000.0;
}

/* Whether the stream thread has published recently enough to be alive. */
static bool stream_thread_alive(const stoat_http_stats *s, int64_t now_ms)
{
	return s && now_ms - s->published_ms <= STOAT_HTTP_LIVE_MS;
}

/* The phase's name, as the pages show it. */
static const char *phase_name(stoat_http_phase p)
{
	switch (p) {
	case STOAT_HTTP_STARTING:
		return "starting";
	case STOAT_HTTP_RESTORING:
		return "restoring";
	case STOAT_HTTP_RUNNING:
		return "running";
	case STOAT_HTTP_STOPPING:
		return "stopping";
	}
	return "?";
}

/* Sum of the assigned partitions' lags; *unknown counts those without one. */
static int64_t total_lag(const stoat_http_stats *s, size_t *unknown)
{
	int64_t sum = 0;
	*unknown = 0;
	for (size_t i = 0; i < s->partition_count; i++) {
		int64_t lag = stoat_http_partition_lag(&s->partitions[i]);
		if (lag < 0)
			(*unknown)++;
		else
			sum += lag;
	}
	return sum;
}

/* Readiness (see http.h). */
bool stoat_http_ready(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, char *why,
		      size_t why_len)
{
	if (!s) {
		snprintf(why, why_len, "starting");
		return false;
	}
	if (!stream_thread_alive(s, now_ms)) {
		snprintf(why, why_len, "the stream thread has not come round its loop for %" PRId64 " ms",
			 now_ms - s->published_ms);
		return false;
	}
	switch (s->phase) {
	case STOAT_HTTP_STARTING:
		snprintf(why, why_len, "waiting for the consumer group's first assignment");
		return false;
	case STOAT_HTTP_RESTORING:
		snprintf(why, why_len, "restoring state stores from their changelogs");
		return false;
	case STOAT_HTTP_STOPPING:
		snprintf(why, why_len, "stopping");
		return false;
	case STOAT_HTTP_RUNNING:
		break;
	}
	if (info->ready_max_lag >= 0) {
		size_t unknown;
		int64_t lag = total_lag(s, &unknown);
		if (unknown > 0) {
			snprintf(why, why_len, "the lag of %zu of %zu partitions is not known yet (nothing fetched from them)",
				 unknown, s->partition_count);
			return false;
		}
		if (lag > info->ready_max_lag) {
			snprintf(why, why_len, "a lag of %" PRId64 " records, above http_ready_max_lag %" PRId64, lag,
				 info->ready_max_lag);
			return false;
		}
	}
	snprintf(why, why_len, "ready");
	return true;
}

/* ------------------------------------------------------------------ */
/* The exposition                                                      */
/* ------------------------------------------------------------------ */

/* One exposition in progress. */
typedef struct expo {
	stoat_buf *b;
	bool openmetrics;
} expo;

/* A label value, escaped as the text format wants (\\, \", \n). */
static void put_label_value(stoat_buf *b, const char *v)
{
	stoat_buf_putc(b, '"');
	for (const char *p = v ? v : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			stoat_buf_putc(b, '\\');
		if (*p == '\n') {
			stoat_buf_lit(b, "\\n");
			continue;
		}
		stoat_buf_putc(b, *p);
	}
	stoat_buf_putc(b, '"');
}

/*
 * A family's HELP and TYPE lines.  name is the sample name; OpenMetrics
 * names a counter's family without its _total.
 */
static void family(expo *e, const char *name, const char *type, const char *help)
{
	size_t n = strlen(name);
	int len = (int)n;
	if (e->openmetrics && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
		len -= 6;
	put_fmt(e->b, "# HELP %.*s %s\n# TYPE %.*s %s\n", len, name, help, len, name, type);
}

/* Labels: pairs of name and value, NULL-terminated; none when the first is NULL. */
static void put_labels(stoat_buf *b, const char *const *labels)
{
	if (!labels || !labels[0])
		return;
	stoat_buf_putc(b, '{');
	for (size_t i = 0; labels[i]; i += 2) {
		if (i)
			stoat_buf_putc(b, ',');
		put_fmt(b, "%s=", labels[i]);
		put_label_value(b, labels[i + 1]);
	}
	stoat_buf_putc(b, '}');
}

/* A sample with an integer value. */
static void sample_u64(expo *e, const char *name, const char *const *labels, uint64_t v)
{
	put_fmt(e->b, "%s", name);
	put_labels(e->b, labels);
	put_fmt(e->b, " %" PRIu64 "\n", v);
}

/* A sample with a floating-point value. */
static void sample_f64(expo *e, const char *name, const char *const *labels, double v)
{
	put_fmt(e->b, "%s", name);
	put_labels(e->b, labels);
	put_fmt(e->b, " %.17g\n", v);
}

/* A histogram's samples: cumulative buckets, +Inf, sum and count. */
static void sample_histogram(expo *e, const char *name, const char *const *labels, const stoat_histogram *h)
{
	const char *with_le[16];
	size_t n = 0;
	while (labels && labels[n] && n < 12)
		n++;
	for (size_t i = 0; i < n; i++)
		with_le[i] = labels[i];
	char le[32];
	with_le[n] = "le";
	with_le[n + 1] = le;
	with_le[n + 2] = NULL;
	uint64_t cum = 0;
	for (size_t i = 0; i <= STOAT_HISTOGRAM_BUCKETS; i++) {
		cum += h->counts[i];
		if (i < STOAT_HISTOGRAM_BUCKETS)
			snprintf(le, sizeof le, "%g", stoat_histogram_bounds[i]);
		else
			snprintf(le, sizeof le, "+Inf");
		put_fmt(e->b, "%s_bucket", name);
		put_labels(e->b, with_le);
		put_fmt(e->b, " %" PRIu64 "\n", cum);
	}
	put_fmt(e->b, "%s_sum", name);
	put_labels(e->b, labels);
	put_fmt(e->b, " %.17g\n", h->sum);
	put_fmt(e->b, "%s_count", name);
	put_labels(e->b, labels);
	put_fmt(e->b, " %" PRIu64 "\n", h->count);
}

/* Which per-source counter a family shows. */
typedef enum source_counter {
	COUNT_IN,
	COUNT_FAILED,
	COUNT_SKIPPED,
	COUNT_DEAD_LETTERED,
} source_counter;

/* One family of per-source counters. */
static void source_family(expo *e, const stoat_app *app, const stoat_http_stats *s, const char *name,
			  const char *help, source_counter which)
{
	family(e, name, "counter", help);
	for (size_t i = 0; i < app->source_count; i++) {
		const stoat_counters *c = &s->sources[i].counters;
		uint64_t v = which == COUNT_IN ? c->records_in
			     : which == COUNT_FAILED ? c->records_failed
			     : which == COUNT_SKIPPED ? c->records_skipped
						      : c->records_dead_lettered;
		const char *labels[] = { "source", app->sources[i].name, "topic", app->sources[i].topic, NULL };
		sample_u64(e, name, labels, v);
	}
}

/* A sink's label: its index (sinks have no names). */
static void sink_label(char *out, size_t n, size_t i)
{
	snprintf(out, n, "%zu", i);
}

/* GET /metrics: every family, in a fixed order. */
static void metrics_page(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, bool openmetrics,
			 stoat_buf *b)
{
	expo e = { b, openmetrics };
	const stoat_app *app = info->app;
	char why[256];
	bool ready = stoat_http_ready(info, s, now_ms, why, sizeof why);

	family(&e, "stoat_info", "gauge", "The application: its id, the stoat version, the guarantee, the instance.");
	const char *info_labels[] = { "app", app->app_id, "version", STOAT_VERSION, "guarantee",
				      stoat_guarantee_name(app->guarantee), "instance", info->instance_id, NULL };
	sample_u64(&e, "stoat_info", info_labels, 1);
	family(&e, "stoat_start_time_seconds", "gauge", "When the process started, in seconds since the epoch.");
	sample_f64(&e, "stoat_start_time_seconds", NULL, (double)info->started_unix_ms / 1000.0);
	family(&e, "stoat_uptime_seconds", "gauge", "Seconds since the process started.");
	sample_f64(&e, "stoat_uptime_seconds", NULL, uptime_seconds(info, now_ms));
	family(&e, "stoat_ready", "gauge", "1 when /health/ready answers 200.");
	sample_u64(&e, "stoat_ready", NULL, ready);
	if (!s)
		goto done;
	family(&e, "stoat_restoring", "gauge", "1 while state stores are restored from their changelogs.");
	sample_u64(&e, "stoat_restoring", NULL, s->phase == STOAT_HTTP_RESTORING);

	source_family(&e, app, s, "stoat_records_consumed_total", "Records read from the source's topic.", COUNT_IN);
	source_family(&e, app, s, "stoat_records_failed_total",
		      "Records that failed (a bad record, an expression error), whatever the policy.", COUNT_FAILED);
	source_family(&e, app, s, "stoat_records_skipped_total", "Failed records the skip policy let through.",
		      COUNT_SKIPPED);
	source_family(&e, app, s, "stoat_records_dead_lettered_total",
		      "Failed records written to the dead-letter topic.", COUNT_DEAD_LETTERED);
	family(&e, "stoat_records_dropped_total", "counter",
	       "Records an operator ignores by design: null_key_or_value (a null key or value where one is "
	       "needed), window_closed (late for a window that had closed).");
	for (size_t i = 0; i < app->source_count; i++) {
		const stoat_counters *c = &s->sources[i].counters;
		const char *null_labels[] = { "source", app->sources[i].name, "reason", "null_key_or_value", NULL };
		const char *late_labels[] = { "source", app->sources[i].name, "reason", "window_closed", NULL };
		sample_u64(&e, "stoat_records_dropped_total", null_labels, c->records_dropped);
		sample_u64(&e, "stoat_records_dropped_total", late_labels, c->records_late);
	}
	family(&e, "stoat_records_produced_total", "counter", "Records handed to the producer, per sink.");
	for (size_t i = 0; i < app->sink_count; i++) {
		char sink[24];
		sink_label(sink, sizeof sink, i);
		const char *labels[] = { "sink", sink, "topic", app->sinks[i].topic ? app->sinks[i].topic : "", NULL };
		sample_u64(&e, "stoat_records_produced_total", labels, s->sinks[i].produced);
	}
	family(&e, "stoat_source_paused", "gauge", "1 while the source is paused (POST /pause).");
	for (size_t i = 0; i < app->source_count; i++) {
		const char *labels[] = { "source", app->sources[i].name, NULL };
		sample_u64(&e, "stoat_source_paused", labels, s->sources[i].paused);
	}

	family(&e, "stoat_commits_total", "counter", "Commits (of offsets, or of transactions under exactly_once).");
	sample_u64(&e, "stoat_commits_total", NULL, s->commits);
	family(&e, "stoat_transactions_aborted_total", "counter", "Transactions aborted (exactly_once).");
	sample_u64(&e, "stoat_transactions_aborted_total", NULL, s->aborts);
	family(&e, "stoat_producer_fencings_total", "counter",
	       "Times the producer was fenced by another with the same transactional id.");
	sample_u64(&e, "stoat_producer_fencings_total", NULL, s->fencings);
	family(&e, "stoat_rebalances_total", "counter", "Partition assignments and revocations.");
	sample_u64(&e, "stoat_rebalances_total", NULL, s->rebalances);
	family(&e, "stoat_delivery_failures_total", "counter", "Records the producer could not deliver.");
	sample_u64(&e, "stoat_delivery_failures_total", NULL, s->delivery_failures);
	family(&e, "stoat_restored_records_total", "counter", "Changelog records applied while restoring stores.");
	sample_u64(&e, "stoat_restored_records_total", NULL, s->restored_records);

	family(&e, "stoat_assigned_partitions", "gauge", "Source partitions assigned to this instance.");
	sample_u64(&e, "stoat_assigned_partitions", NULL, s->partition_count);
	family(&e, "stoat_consumer_lag_records", "gauge",
	       "Records between the next one to process and the partition's end (absent while not known).");
	for (size_t i = 0; i < s->partition_count; i++) {
		const stoat_http_partition *p = &s->partitions[i];
		int64_t lag = stoat_http_partition_lag(p);
		if (lag < 0)
			continue;
		char part[16];
		snprintf(part, sizeof part, "%" PRId32, p->partition);
		const char *labels[] = { "topic", app->sources[p->source].topic, "partition", part, NULL };
		sample_u64(&e, "stoat_consumer_lag_records", labels, (uint64_t)lag);
	}

	family(&e, "stoat_batch_processing_seconds", "histogram",
	       "Time the source's pipeline took per run of records of one partition.");
	for (size_t i = 0; i < app->source_count; i++) {
		const char *labels[] = { "source", app->sources[i].name, NULL };
		sample_histogram(&e, "stoat_batch_processing_seconds", labels, &s->sources[i].batch_seconds);
	}
	family(&e, "stoat_end_to_end_latency_seconds", "histogram",
	       "From an output record's timestamp to its produce, wall clock.");
	for (size_t i = 0; i < app->sink_count; i++) {
		char sink[24];
		sink_label(sink, sizeof sink, i);
		const char *labels[] = { "sink", sink, "topic", app->sinks[i].topic ? app->sinks[i].topic : "", NULL };
		sample_histogram(&e, "stoat_end_to_end_latency_seconds", labels, &s->sinks[i].e2e_seconds);
	}
	family(&e, "stoat_commit_seconds", "histogram", "Time a commit took (a transaction's commit under exactly_once).");
	sample_histogram(&e, "stoat_commit_seconds", NULL, &s->commit_seconds);
done:
	if (openmetrics)
		stoat_buf_lit(b, "# EOF\n");
}

/* ------------------------------------------------------------------ */
/* JSON pages                                                          */
/* ------------------------------------------------------------------ */

/* {"status": ..., "reason": ...} */
static void status_json(stoat_buf *b, const char *status, const char *reason)
{
	stoat_buf_lit(b, "{\"status\": ");
	put_json(b, status);
	if (reason) {
		stoat_buf_lit(b, ", \"reason\": ");
		put_json(b, reason);
	}
	stoat_buf_lit(b, "}\n");
}

/* GET /info */
static void info_page(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, stoat_buf *b)
{
	const stoat_app *app = info->app;
	stoat_buf_lit(b, "{\"app\": ");
	put_json(b, app->app_id);
	stoat_buf_lit(b, ", \"version\": ");
	put_json(b, STOAT_VERSION);
	stoat_buf_lit(b, ", \"source_file\": ");
	put_json(b, app->source_file);
	stoat_buf_lit(b, ", \"guarantee\": ");
	put_json(b, stoat_guarantee_name(app->guarantee));
	stoat_buf_lit(b, ", \"instance\": ");
	put_json(b, info->instance_id);
	stoat_buf_lit(b, ", \"bootstrap_servers\": ");
	put_json(b, info->bootstrap_servers);
	stoat_buf_lit(b, ", \"state\": ");
	put_json(b, s ? phase_name(s->phase) : "starting");
	put_fmt(b, ", \"started_at_ms\": %" PRId64 ", \"uptime_seconds\": %.3f", info->started_unix_ms,
		uptime_seconds(info, now_ms));
	put_fmt(b, ", \"sources\": %zu, \"sinks\": %zu, \"stores\": %zu}\n", app->source_count, app->sink_count,
		app->store_count);
}

/* An offset, or null when not known. */
static void put_offset(stoat_buf *b, int64_t v)
{
	if (v < 0)
		stoat_buf_lit(b, "null");
	else
		stoat_buf_put_i64(b, v);
}

/* GET /offsets */
static void offsets_page(const stoat_http_info *info, const stoat_http_stats *s, stoat_buf *b)
{
	stoat_buf_lit(b, "{\"partitions\": [");
	size_t unknown = 0;
	int64_t lag_sum = s ? total_lag(s, &unknown) : 0;
	for (size_t i = 0; s && i < s->partition_count; i++) {
		const stoat_http_partition *p = &s->partitions[i];
		const stoat_source *src = &info->app->sources[p->source];
		put_cstr(b, i ? ",\n  {\"topic\": " : "\n  {\"topic\": ");
		put_json(b, src->topic);
		put_fmt(b, ", \"partition\": %" PRId32 ", \"source\": ", p->partition);
		put_json(b, src->name);
		stoat_buf_lit(b, ", \"committed\": ");
		put_offset(b, p->committed);
		stoat_buf_lit(b, ", \"position\": ");
		put_offset(b, p->position);
		stoat_buf_lit(b, ", \"end\": ");
		put_offset(b, p->end);
		stoat_buf_lit(b, ", \"lag\": ");
		put_offset(b, stoat_http_partition_lag(p));
		put_fmt(b, ", \"paused\": %s}", p->paused ? "true" : "false");
	}
	put_cstr(b, s && s->partition_count ? "\n], \"lag\": " : "], \"lag\": ");
	if (unknown)
		stoat_buf_lit(b, "null");
	else
		stoat_buf_put_i64(b, lag_sum);
	stoat_buf_lit(b, "}\n");
}

/* A JSON member ", name: true|false". */
static void put_bool(stoat_buf *b, const char *name, bool v)
{
	put_fmt(b, ", \"%s\": %s", name, v ? "true" : "false");
}

/* The largest sub-topology number of the app's sources and stores. */
static int last_subtopology(const stoat_app *app)
{
	int last = 0;
	for (size_t i = 0; i < app->source_count; i++)
		if (!app->sources[i].global && app->sources[i].subtopology > last)
			last = app->sources[i].subtopology;
	for (size_t i = 0; i < app->store_count; i++)
		if (!app->stores[i].global && app->stores[i].subtopology > last)
			last = app->stores[i].subtopology;
	return last;
}

/* A store, as /topology lists it. */
static void store_json(stoat_buf *b, const stoat_app *app, const stoat_store_desc *d)
{
	stoat_buf_lit(b, "{\"name\": ");
	put_json(b, d->name);
	stoat_buf_lit(b, ", \"kind\": ");
	put_json(b, d->kind == STOAT_STORE_WINDOW ? "window" : "key_value");
	stoat_buf_lit(b, ", \"changelog\": ");
	if (d->global) {
		stoat_buf_lit(b, "null");
	} else {
		stoat_buf_putc(b, '"');
		put_fmt(b, "%s-%s-changelog", app->app_id, d->name);
		stoat_buf_putc(b, '"');
	}
	put_bool(b, "in_memory", d->in_memory);
	stoat_buf_putc(b, '}');
}

/*
 * GET /topology: the sub-topologies (Kafka Streams' word: each a task per
 * partition) with their source topics and stores, the global tables, the
 * sinks and the co-partitioned topics, from the application table.  The
 * operators themselves are in the DOT picture (?format=dot).
 */
static void topology_page(const stoat_app *app, stoat_buf *b)
{
	stoat_buf_lit(b, "{\"app\": ");
	put_json(b, app->app_id);
	stoat_buf_lit(b, ", \"subtopologies\": [");
	int last = last_subtopology(app);
	for (int t = 0; t <= last; t++) {
		put_fmt(b, "%s\n  {\"id\": %d, \"sources\": [", t ? "," : "", t);
		bool first = true;
		for (size_t i = 0; i < app->source_count; i++) {
			const stoat_source *src = &app->sources[i];
			if (src->global || src->subtopology != t)
				continue;
			put_cstr(b, first ? "{\"name\": " : ", {\"name\": ");
			first = false;
			put_json(b, src->name);
			stoat_buf_lit(b, ", \"topic\": ");
			put_json(b, src->topic);
			put_bool(b, "internal", src->internal);
			stoat_buf_putc(b, '}');
		}
		stoat_buf_lit(b, "], \"stores\": [");
		first = true;
		for (size_t i = 0; i < app->store_count; i++) {
			if (app->stores[i].global || app->stores[i].subtopology != t)
				continue;
			if (!first)
				stoat_buf_lit(b, ", ");
			first = false;
			store_json(b, app, &app->stores[i]);
		}
		stoat_buf_lit(b, "]}");
	}
	stoat_buf_lit(b, "\n], \"global_tables\": [");
	bool first = true;
	for (size_t i = 0; i < app->source_count; i++) {
		const stoat_source *src = &app->sources[i];
		if (!src->global)
			continue;
		put_cstr(b, first ? "{\"source\": " : ", {\"source\": ");
		first = false;
		put_json(b, src->name);
		stoat_buf_lit(b, ", \"topic\": ");
		put_json(b, src->topic);
		stoat_buf_lit(b, ", \"store\": ");
		put_json(b, src->store_count ? app->stores[src->stores[0]].name : NULL);
		stoat_buf_putc(b, '}');
	}
	stoat_buf_lit(b, "], \"sinks\": [");
	for (size_t i = 0; i < app->sink_count; i++) {
		put_fmt(b, "%s{\"sink\": %zu, \"topic\": ", i ? ", " : "", i);
		put_json(b, app->sinks[i].topic);
		put_bool(b, "internal", app->sinks[i].internal);
		stoat_buf_putc(b, '}');
	}
	stoat_buf_lit(b, "], \"copartitioned\": [");
	for (size_t i = 0; i < app->copartition_count; i++) {
		const stoat_copartition *c = &app->copartitions[i];
		put_cstr(b, i ? ", {\"what\": " : "{\"what\": ");
		put_json(b, c->what);
		stoat_buf_lit(b, ", \"topics\": [");
		for (size_t j = 0; j < c->source_count; j++) {
			if (j)
				stoat_buf_lit(b, ", ");
			put_json(b, app->sources[c->sources[j]].topic);
		}
		stoat_buf_lit(b, "]}");
	}
	stoat_buf_lit(b, "]}\n");
}

/* The paused sources, as POST /pause and /resume answer. */
static void paused_json(const stoat_http_info *info, const stoat_http_response *out, stoat_buf *b)
{
	const stoat_app *app = info->app;
	stoat_buf_lit(b, "{\"status\": \"accepted\", \"sources\": [");
	bool first = true;
	for (size_t i = 0; i < app->source_count; i++) {
		if (out->control_source != SIZE_MAX && out->control_source != i)
			continue;
		if (!first)
			stoat_buf_lit(b, ", ");
		first = false;
		put_json(b, app->sources[i].name);
	}
	put_fmt(b, "], \"paused\": %s}\n", out->control == STOAT_HTTP_CONTROL_PAUSE ? "true" : "false");
}

/* ------------------------------------------------------------------ */
/* Routing                                                             */
/* ------------------------------------------------------------------ */

/* A plain-text answer. */
static void text(stoat_http_response *out, unsigned status, const char *body)
{
	out->status = status;
	out->content_type = "text/plain; charset=utf-8";
	stoat_buf_put(&out->body, body, strlen(body));
}

/* A JSON answer; the body is written by the caller. */
static void json(stoat_http_response *out, unsigned status)
{
	out->status = status;
	out->content_type = "application/json";
}

/* Whether the Accept header asks for OpenMetrics. */
static bool wants_openmetrics(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text") != NULL;
}

/* The index of the source named name, or SIZE_MAX. */
static size_t find_source(const stoat_app *app, const char *name)
{
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].name && strcmp(app->sources[i].name, name) == 0)
			return i;
	return SIZE_MAX;
}

/* Routes one request (see http.h). */
void stoat_http_route(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, const char *method,
		      const char *path, const char *source, const char *format, const char *accept,
		      stoat_http_response *out)
{
	out->control = STOAT_HTTP_CONTROL_NONE;
	out->control_source = SIZE_MAX;
	out->allow = NULL;
	static const struct {
		const char *path;
		const char *method;
	} pages[] = {
		{ "/health/live", "GET" }, { "/health/ready", "GET" }, { "/metrics", "GET" }, { "/info", "GET" },
		{ "/config", "GET" },      { "/offsets", "GET" },      { "/pause", "POST" },  { "/resume", "POST" },
		{ "/topology", "GET" },    { "/", "GET" },
	};
	size_t page = SIZE_MAX;
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
		if (strcmp(path, pages[i].path) == 0)
			page = i;
	if (page == SIZE_MAX) {
		json(out, 404);
		status_json(&out->body, "not found",
			    "paths: /health/live, /health/ready, /metrics, /info, /config, /offsets, /topology, "
			    "POST /pause, POST /resume");
		return;
	}
	/* HEAD is GET without the body (the server drops it). */
	bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
	if (strcmp(pages[page].method, "GET") == 0 ? !get : strcmp(method, pages[page].method) != 0) {
		json(out, 405);
		out->allow = strcmp(pages[page].method, "GET") == 0 ? "GET, HEAD" : pages[page].method;
		char reason[64];
		snprintf(reason, sizeof reason, "%s takes %s", path, out->allow);
		status_json(&out->body, "method not allowed", reason);
		return;
	}
	const char *p = pages[page].path;
	char why[256];
	if (strcmp(p, "/health/live") == 0) {
		bool alive = !s || stream_thread_alive(s, now_ms);
		json(out, alive ? 200 : 503);
		if (alive)
			status_json(&out->body, "alive", NULL);
		else {
			snprintf(why, sizeof why, "the stream thread has not come round its loop for %" PRId64 " ms",
				 now_ms - s->published_ms);
			status_json(&out->body, "not alive", why);
		}
	} else if (strcmp(p, "/health/ready") == 0) {
		bool ready = stoat_http_ready(info, s, now_ms, why, sizeof why);
		json(out, ready ? 200 : 503);
		status_json(&out->body, ready ? "ready" : "not ready", ready ? NULL : why);
	} else if (strcmp(p, "/metrics") == 0) {
		bool om = wants_openmetrics(accept);
		out->status = 200;
		out->content_type = om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				       : "text/plain; version=0.0.4; charset=utf-8";
		metrics_page(info, s, now_ms, om, &out->body);
	} else if (strcmp(p, "/info") == 0) {
		json(out, 200);
		info_page(info, s, now_ms, &out->body);
	} else if (strcmp(p, "/config") == 0) {
		json(out, 200);
		stoat_buf_put(&out->body, info->config_json, strlen(info->config_json));
	} else if (strcmp(p, "/offsets") == 0) {
		json(out, 200);
		offsets_page(info, s, &out->body);
	} else if (strcmp(p, "/topology") == 0) {
		if (!format || strcmp(format, "json") == 0) {
			json(out, 200);
			topology_page(info->app, &out->body);
		} else if (strcmp(format, "dot") == 0 && info->app->topology_dot) {
			text(out, 200, info->app->topology_dot);
			out->content_type = "text/vnd.graphviz; charset=utf-8";
		} else if (strcmp(format, "dot") == 0) {
			json(out, 404);
			status_json(&out->body, "not found", "this application table carries no DOT picture");
		} else {
			json(out, 400);
			snprintf(why, sizeof why, "format is json or dot, not '%.32s'", format);
			status_json(&out->body, "bad request", why);
		}
	} else if (strcmp(p, "/pause") == 0 || strcmp(p, "/resume") == 0) {
		size_t i = SIZE_MAX;
		if (source && (i = find_source(info->app, source)) == SIZE_MAX) {
			json(out, 404);
			snprintf(why, sizeof why, "no source named '%.64s'", source);
			status_json(&out->body, "not found", why);
			return;
		}
		out->control = strcmp(p, "/pause") == 0 ? STOAT_HTTP_CONTROL_PAUSE : STOAT_HTTP_CONTROL_RESUME;
		out->control_source = i;
		json(out, 202);
		paused_json(info, out, &out->body);
	} else {
		text(out, 200,
		     "stoat operations endpoint: /health/live, /health/ready, /metrics, /info, /config, /offsets, "
		     "/topology[?format=dot], POST /pause[?source=NAME], POST /resume[?source=NAME]\n");
	}
}
