/*
 * http_expo.c - the operations endpoint's GET /metrics (see http.h): the
 * snapshot in the Prometheus text format (0.0.4) or OpenMetrics 1.0, and
 * the latency histograms behind it.
 *
 * Metric names follow Prometheus' conventions: the stoat_ prefix, units
 * in the name (_seconds, _bytes, _records), counters ending in _total,
 * labels for what varies (source, sink, topic, partition, store,
 * reason).  The same snapshot renders in both formats; OpenMetrics
 * differs in the counter family names (without _total), and the closing
 * "# EOF".
 */
#include "http_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

/* ------------------------------------------------------------------ */
/* The exposition                                                      */
/* ------------------------------------------------------------------ */

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
void http_family(http_expo *e, const char *name, const char *type, const char *help)
{
	size_t n = strlen(name);
	int len = (int)n;
	if (e->openmetrics && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
		len -= 6;
	http_put_fmt(e->b, "# HELP %.*s %s\n# TYPE %.*s %s\n", len, name, help, len, name, type);
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
		http_put_fmt(b, "%s=", labels[i]);
		put_label_value(b, labels[i + 1]);
	}
	stoat_buf_putc(b, '}');
}

/* A sample with an integer value. */
void http_sample_u64(http_expo *e, const char *name, const char *const *labels, uint64_t v)
{
	http_put_fmt(e->b, "%s", name);
	put_labels(e->b, labels);
	http_put_fmt(e->b, " %" PRIu64 "\n", v);
}

/* A sample with a floating-point value. */
void http_sample_f64(http_expo *e, const char *name, const char *const *labels, double v)
{
	http_put_fmt(e->b, "%s", name);
	put_labels(e->b, labels);
	http_put_fmt(e->b, " %.17g\n", v);
}

/* A histogram's samples: cumulative buckets, +Inf, sum and count. */
void http_sample_histogram(http_expo *e, const char *name, const char *const *labels, const stoat_histogram *h)
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
		http_put_fmt(e->b, "%s_bucket", name);
		put_labels(e->b, with_le);
		http_put_fmt(e->b, " %" PRIu64 "\n", cum);
	}
	http_put_fmt(e->b, "%s_sum", name);
	put_labels(e->b, labels);
	http_put_fmt(e->b, " %.17g\n", h->sum);
	http_put_fmt(e->b, "%s_count", name);
	put_labels(e->b, labels);
	http_put_fmt(e->b, " %" PRIu64 "\n", h->count);
}

/* A gauge family with one unlabelled sample. */
void http_gauge(http_expo *e, const char *name, const char *help, uint64_t v)
{
	http_family(e, name, "gauge", help);
	http_sample_u64(e, name, NULL, v);
}

/* A counter family with one unlabelled sample. */
void http_counter(http_expo *e, const char *name, const char *help, uint64_t v)
{
	http_family(e, name, "counter", help);
	http_sample_u64(e, name, NULL, v);
}

/* Which per-source counter a family shows. */
typedef enum source_counter {
	COUNT_IN,
	COUNT_FAILED,
	COUNT_SKIPPED,
	COUNT_DEAD_LETTERED,
} source_counter;

/* One http_family of per-source counters. */
static void source_family(http_expo *e, const stoat_app *app, const stoat_http_stats *s, const char *name,
			  const char *help, source_counter which)
{
	http_family(e, name, "counter", help);
	for (size_t i = 0; i < app->source_count; i++) {
		const stoat_counters *c = &s->sources[i].counters;
		uint64_t v = which == COUNT_IN ? c->records_in
			     : which == COUNT_FAILED ? c->records_failed
			     : which == COUNT_SKIPPED ? c->records_skipped
						      : c->records_dead_lettered;
		const char *labels[] = { "source", app->sources[i].name, "topic", app->sources[i].topic, NULL };
		http_sample_u64(e, name, labels, v);
	}
}

/* A sink's label: its index (sinks have no names). */
static void sink_label(char *out, size_t n, size_t i)
{
	snprintf(out, n, "%zu", i);
}

/* GET /metrics: every http_family, in a fixed order. */
void http_metrics_page(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, bool openmetrics,
			 stoat_buf *b)
{
	http_expo e = { b, openmetrics };
	const stoat_app *app = info->app;
	char why[256];
	bool ready = stoat_http_ready(info, s, now_ms, why, sizeof why);

	http_family(&e, "stoat_info", "gauge", "The application: its id, the stoat version, the guarantee, the instance.");
	const char *info_labels[] = { "app", app->app_id, "version", STOAT_VERSION, "guarantee",
				      stoat_guarantee_name(info->guarantee), "instance", info->instance_id, NULL };
	http_sample_u64(&e, "stoat_info", info_labels, 1);
	http_family(&e, "stoat_start_time_seconds", "gauge", "When the process started, in seconds since the epoch.");
	http_sample_f64(&e, "stoat_start_time_seconds", NULL, (double)info->started_unix_ms / 1000.0);
	http_family(&e, "stoat_uptime_seconds", "gauge", "Seconds since the process started.");
	http_sample_f64(&e, "stoat_uptime_seconds", NULL, http_uptime_seconds(info, now_ms));
	http_gauge(&e, "stoat_ready", "1 when /health/ready answers 200.", ready);
	if (!s)
		goto done;
	http_gauge(&e, "stoat_restoring", "1 while state stores are restored from their changelogs.", s->phase == STOAT_HTTP_RESTORING);

	source_family(&e, app, s, "stoat_records_consumed_total", "Records read from the source's topic.", COUNT_IN);
	source_family(&e, app, s, "stoat_records_failed_total",
		      "Records that failed (a bad record, an expression error), whatever the policy.", COUNT_FAILED);
	source_family(&e, app, s, "stoat_records_skipped_total", "Failed records the skip policy let through.",
		      COUNT_SKIPPED);
	source_family(&e, app, s, "stoat_records_dead_lettered_total",
		      "Failed records written to the dead-letter topic.", COUNT_DEAD_LETTERED);
	http_family(&e, "stoat_records_dropped_total", "counter",
	       "Records an operator ignores by design: null_key_or_value (a null key or value where one is "
	       "needed), window_closed (late for a window that had closed).");
	for (size_t i = 0; i < app->source_count; i++) {
		const stoat_counters *c = &s->sources[i].counters;
		const char *null_labels[] = { "source", app->sources[i].name, "reason", "null_key_or_value", NULL };
		const char *late_labels[] = { "source", app->sources[i].name, "reason", "window_closed", NULL };
		http_sample_u64(&e, "stoat_records_dropped_total", null_labels, c->records_dropped);
		http_sample_u64(&e, "stoat_records_dropped_total", late_labels, c->records_late);
	}
	http_family(&e, "stoat_records_produced_total", "counter", "Records handed to the producer, per sink.");
	for (size_t i = 0; i < app->sink_count; i++) {
		char sink[24];
		sink_label(sink, sizeof sink, i);
		const char *labels[] = { "sink", sink, "topic", app->sinks[i].topic ? app->sinks[i].topic : "", NULL };
		http_sample_u64(&e, "stoat_records_produced_total", labels, s->sinks[i].produced);
	}
	http_family(&e, "stoat_source_paused", "gauge", "1 while the source is paused (POST /pause).");
	for (size_t i = 0; i < app->source_count; i++) {
		const char *labels[] = { "source", app->sources[i].name, NULL };
		http_sample_u64(&e, "stoat_source_paused", labels, s->sources[i].paused);
	}

	http_counter(&e, "stoat_commits_total", "Commits (of offsets, or of transactions under exactly_once).", s->commits);
	http_counter(&e, "stoat_transactions_aborted_total", "Transactions aborted (exactly_once).", s->aborts);
	http_counter(&e, "stoat_producer_fencings_total", "Times the producer was fenced by another with the same transactional id.", s->fencings);
	http_counter(&e, "stoat_rebalances_total", "Partition assignments and revocations.", s->rebalances);
	http_counter(&e, "stoat_delivery_failures_total", "Records the producer could not deliver.", s->delivery_failures);
	http_counter(&e, "stoat_restored_records_total", "Changelog records applied while restoring stores.", s->restored_records);

	http_gauge(&e, "stoat_assigned_partitions", "Source partitions assigned to this instance.", s->partition_count);
	http_family(&e, "stoat_consumer_lag_records", "gauge",
	       "Records between the next one to process and the partition's end (absent while not known).");
	for (size_t i = 0; i < s->partition_count; i++) {
		const stoat_http_partition *p = &s->partitions[i];
		int64_t lag = stoat_http_partition_lag(p);
		if (lag < 0)
			continue;
		char part[16];
		snprintf(part, sizeof part, "%" PRId32, p->partition);
		const char *labels[] = { "topic", app->sources[p->source].topic, "partition", part, NULL };
		http_sample_u64(&e, "stoat_consumer_lag_records", labels, (uint64_t)lag);
	}

	http_family(&e, "stoat_batch_processing_seconds", "histogram",
	       "Time the source's pipeline took per run of records of one partition.");
	for (size_t i = 0; i < app->source_count; i++) {
		const char *labels[] = { "source", app->sources[i].name, NULL };
		http_sample_histogram(&e, "stoat_batch_processing_seconds", labels, &s->sources[i].batch_seconds);
	}
	http_family(&e, "stoat_end_to_end_latency_seconds", "histogram",
	       "From an output record's timestamp to its produce, wall clock.");
	for (size_t i = 0; i < app->sink_count; i++) {
		char sink[24];
		sink_label(sink, sizeof sink, i);
		const char *labels[] = { "sink", sink, "topic", app->sinks[i].topic ? app->sinks[i].topic : "", NULL };
		http_sample_histogram(&e, "stoat_end_to_end_latency_seconds", labels, &s->sinks[i].e2e_seconds);
	}
	http_family(&e, "stoat_commit_seconds", "histogram", "Time a commit took (a transaction's commit under exactly_once).");
	http_sample_histogram(&e, "stoat_commit_seconds", NULL, &s->commit_seconds);
	http_state_metrics(&e, info, s);
	http_librdkafka_metrics(&e, s);
done:
	if (openmetrics)
		stoat_buf_lit(b, "# EOF\n");
}

