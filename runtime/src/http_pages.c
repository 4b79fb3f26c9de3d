/*
 * http_pages.c - what the operations endpoint answers (see http.h): the
 * routing of a request to its page, readiness, and the JSON pages (the
 * exposition is http_expo.c's, /state http_state.c's).  Functions of
 * their arguments only, so that unit tests call them without a socket.
 */
#include "http_impl.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A C string onto a buffer. */
void http_put_str(stoat_buf *b, const char *s)
{
	stoat_buf_put(b, s, strlen(s));
}

/* Grows an array of `size`-byte elements to hold n (at least 16). */
static void *reserve(void *p, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return p;
	size_t c = *cap ? *cap : 16;
	while (c < n)
		c *= 2;
	*cap = c;
	return stoat_xrealloc(p, c, size);
}

/* Grows the partition array (the stream thread's own buffer only). */
void stoat_http_stats_reserve(stoat_http_stats *s, size_t n)
{
	s->partitions = reserve(s->partitions, &s->partition_cap, n, sizeof *s->partitions);
}

void stoat_http_stats_reserve_stores(stoat_http_stats *s, size_t n)
{
	s->stores = reserve(s->stores, &s->store_cap, n, sizeof *s->stores);
}

void stoat_http_stats_reserve_restores(stoat_http_stats *s, size_t n)
{
	s->restores = reserve(s->restores, &s->restore_cap, n, sizeof *s->restores);
}

/* end - position, when both are known. */
int64_t stoat_http_partition_lag(const stoat_http_partition *p)
{
	if (p->end < 0 || p->position < 0)
		return -1;
	return p->end > p->position ? p->end - p->position : 0;
}

/* printf onto a buffer. */
void http_put_fmt(stoat_buf *b, const char *fmt, ...)
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
void http_put_json(stoat_buf *b, const char *s)
{
	if (!s) {
		stoat_buf_lit(b, "null");
		return;
	}
	stoat_buf_put_json_str(b, (stoat_str){ s, strlen(s) });
}

/* Wall-clock seconds since the start, from the monotonic clock. */
double http_uptime_seconds(const stoat_http_info *info, int64_t now_ms)
{
	return (double)(now_ms - info->started_ms) / 1000.0;
}

/* Whether the stream thread has published recently enough to be alive. */
bool http_stream_thread_alive(const stoat_http_stats *s, int64_t now_ms)
{
	return s && now_ms - s->published_ms <= STOAT_HTTP_LIVE_MS;
}

/* The phase's name, as the pages show it. */
const char *http_phase_name(stoat_http_phase p)
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
int64_t http_total_lag(const stoat_http_stats *s, size_t *unknown)
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
	if (!http_stream_thread_alive(s, now_ms)) {
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
		int64_t lag = http_total_lag(s, &unknown);
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
/* JSON pages                                                          */
/* ------------------------------------------------------------------ */

/* {"status": ..., "reason": ...} */
static void status_json(stoat_buf *b, const char *status, const char *reason)
{
	stoat_buf_lit(b, "{\"status\": ");
	http_put_json(b, status);
	if (reason) {
		stoat_buf_lit(b, ", \"reason\": ");
		http_put_json(b, reason);
	}
	stoat_buf_lit(b, "}\n");
}

/* GET /info */
static void info_page(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, stoat_buf *b)
{
	const stoat_app *app = info->app;
	stoat_buf_lit(b, "{\"app\": ");
	http_put_json(b, app->app_id);
	stoat_buf_lit(b, ", \"version\": ");
	http_put_json(b, STOAT_VERSION);
	stoat_buf_lit(b, ", \"source_file\": ");
	http_put_json(b, app->source_file);
	stoat_buf_lit(b, ", \"guarantee\": ");
	http_put_json(b, stoat_guarantee_name(info->guarantee));
	stoat_buf_lit(b, ", \"instance\": ");
	http_put_json(b, info->instance_id);
	stoat_buf_lit(b, ", \"bootstrap_servers\": ");
	http_put_json(b, info->bootstrap_servers);
	stoat_buf_lit(b, ", \"state\": ");
	http_put_json(b, s ? http_phase_name(s->phase) : "starting");
	http_put_fmt(b, ", \"started_at_ms\": %" PRId64 ", \"uptime_seconds\": %.3f", info->started_unix_ms,
		http_uptime_seconds(info, now_ms));
	http_put_fmt(b, ", \"sources\": %zu, \"sinks\": %zu, \"stores\": %zu}\n", app->source_count, app->sink_count,
		app->store_count);
}

/* An offset, or null when not known. */
void http_put_offset(stoat_buf *b, int64_t v)
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
	int64_t lag_sum = s ? http_total_lag(s, &unknown) : 0;
	for (size_t i = 0; s && i < s->partition_count; i++) {
		const stoat_http_partition *p = &s->partitions[i];
		const stoat_source *src = &info->app->sources[p->source];
		http_put_str(b, i ? ",\n  {\"topic\": " : "\n  {\"topic\": ");
		http_put_json(b, src->topic);
		http_put_fmt(b, ", \"partition\": %" PRId32 ", \"source\": ", p->partition);
		http_put_json(b, src->name);
		stoat_buf_lit(b, ", \"committed\": ");
		http_put_offset(b, p->committed);
		stoat_buf_lit(b, ", \"position\": ");
		http_put_offset(b, p->position);
		stoat_buf_lit(b, ", \"end\": ");
		http_put_offset(b, p->end);
		stoat_buf_lit(b, ", \"lag\": ");
		http_put_offset(b, stoat_http_partition_lag(p));
		http_put_fmt(b, ", \"paused\": %s}", p->paused ? "true" : "false");
	}
	http_put_str(b, s && s->partition_count ? "\n], \"lag\": " : "], \"lag\": ");
	if (unknown)
		stoat_buf_lit(b, "null");
	else
		stoat_buf_put_i64(b, lag_sum);
	stoat_buf_lit(b, "}\n");
}

/* A JSON member ", name: true|false". */
void http_put_bool(stoat_buf *b, const char *name, bool v)
{
	http_put_fmt(b, ", \"%s\": %s", name, v ? "true" : "false");
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
	http_put_json(b, d->name);
	stoat_buf_lit(b, ", \"kind\": ");
	http_put_json(b, d->kind == STOAT_STORE_WINDOW ? "window" : "key_value");
	stoat_buf_lit(b, ", \"changelog\": ");
	if (d->global) {
		stoat_buf_lit(b, "null");
	} else {
		stoat_buf_putc(b, '"');
		http_put_fmt(b, "%s-%s-changelog", app->app_id, d->name);
		stoat_buf_putc(b, '"');
	}
	http_put_bool(b, "in_memory", d->in_memory);
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
	http_put_json(b, app->app_id);
	stoat_buf_lit(b, ", \"subtopologies\": [");
	int last = last_subtopology(app);
	for (int t = 0; t <= last; t++) {
		http_put_fmt(b, "%s\n  {\"id\": %d, \"sources\": [", t ? "," : "", t);
		bool first = true;
		for (size_t i = 0; i < app->source_count; i++) {
			const stoat_source *src = &app->sources[i];
			if (src->global || src->subtopology != t)
				continue;
			http_put_str(b, first ? "{\"name\": " : ", {\"name\": ");
			first = false;
			http_put_json(b, src->name);
			stoat_buf_lit(b, ", \"topic\": ");
			http_put_json(b, src->topic);
			http_put_bool(b, "internal", src->internal);
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
		http_put_str(b, first ? "{\"source\": " : ", {\"source\": ");
		first = false;
		http_put_json(b, src->name);
		stoat_buf_lit(b, ", \"topic\": ");
		http_put_json(b, src->topic);
		stoat_buf_lit(b, ", \"store\": ");
		http_put_json(b, src->store_count ? app->stores[src->stores[0]].name : NULL);
		stoat_buf_putc(b, '}');
	}
	stoat_buf_lit(b, "], \"sinks\": [");
	for (size_t i = 0; i < app->sink_count; i++) {
		http_put_fmt(b, "%s{\"sink\": %zu, \"topic\": ", i ? ", " : "", i);
		http_put_json(b, app->sinks[i].topic);
		http_put_bool(b, "internal", app->sinks[i].internal);
		stoat_buf_putc(b, '}');
	}
	stoat_buf_lit(b, "], \"copartitioned\": [");
	for (size_t i = 0; i < app->copartition_count; i++) {
		const stoat_copartition *c = &app->copartitions[i];
		http_put_str(b, i ? ", {\"what\": " : "{\"what\": ");
		http_put_json(b, c->what);
		stoat_buf_lit(b, ", \"topics\": [");
		for (size_t j = 0; j < c->source_count; j++) {
			if (j)
				stoat_buf_lit(b, ", ");
			http_put_json(b, app->sources[c->sources[j]].topic);
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
		http_put_json(b, app->sources[i].name);
	}
	http_put_fmt(b, "], \"paused\": %s}\n", out->control == STOAT_HTTP_CONTROL_PAUSE ? "true" : "false");
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
		{ "/topology", "GET" },    { "/state", "GET" },        { "/", "GET" },
	};
	size_t page = SIZE_MAX;
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
		if (strcmp(path, pages[i].path) == 0)
			page = i;
	if (page == SIZE_MAX) {
		json(out, 404);
		status_json(&out->body, "not found",
			    "paths: /health/live, /health/ready, /metrics, /info, /config, /offsets, /state, "
			    "/topology, POST /pause, POST /resume");
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
		bool alive = !s || http_stream_thread_alive(s, now_ms);
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
		http_metrics_page(info, s, now_ms, om, &out->body);
	} else if (strcmp(p, "/info") == 0) {
		json(out, 200);
		info_page(info, s, now_ms, &out->body);
	} else if (strcmp(p, "/config") == 0) {
		json(out, 200);
		stoat_buf_put(&out->body, info->config_json, strlen(info->config_json));
	} else if (strcmp(p, "/offsets") == 0) {
		json(out, 200);
		offsets_page(info, s, &out->body);
	} else if (strcmp(p, "/state") == 0) {
		json(out, 200);
		http_state_page(info, s, &out->body);
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
		     "/state, /topology[?format=dot], POST /pause[?source=NAME], POST /resume[?source=NAME]\n");
	}
}
