/*
 * Unit tests for the operations endpoint (http.h): histograms, the
 * Prometheus and OpenMetrics exposition, readiness, routing, the JSON
 * pages, the `http` setting's parser, and the server itself on a
 * loopback port (a plain socket client, no Kafka).  Expected texts are
 * written out by hand from the fixture below.
 */
#include "http.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Two sources, one sink: the fixture every test uses. */
static const stoat_source sources[] = {
	{ .name = "orders", .topic = "orders-in" },
	{ .name = "clicks", .topic = "clicks-in" },
};
static const stoat_sink sinks[] = { { .topic = "enriched" } };
static const stoat_app app = {
	.app_id = "shop",
	.source_file = "shop.stoat",
	.guarantee = STOAT_EXACTLY_ONCE,
	.sources = sources,
	.source_count = 2,
	.sinks = sinks,
	.sink_count = 1,
};

static stoat_http_source fx_sources[2];
static stoat_http_sink fx_sinks[1];
static stoat_http_partition fx_parts[2];
static stoat_http_stats fx;
static stoat_http_info fx_info;

/* The fixture: running, published at 1000 ms, two partitions of orders. */
static void setup(void)
{
	memset(fx_sources, 0, sizeof fx_sources);
	memset(fx_sinks, 0, sizeof fx_sinks);
	fx_sources[0].counters = (stoat_counters){ .records_in = 5, .records_failed = 2, .records_skipped = 1,
						   .records_dead_lettered = 1, .records_dropped = 3, .records_late = 4 };
	fx_sources[1].counters.records_in = 7;
	fx_sources[1].paused = true;
	fx_sinks[0].produced = 9;
	fx_parts[0] = (stoat_http_partition){ .source = 0, .partition = 0, .committed = 10, .position = 12, .end = 15 };
	fx_parts[1] = (stoat_http_partition){ .source = 0, .partition = 1, .committed = -1, .position = -1, .end = 8 };
	fx = (stoat_http_stats){ .phase = STOAT_HTTP_RUNNING, .published_ms = 1000, .sources = fx_sources,
				 .sinks = fx_sinks, .partitions = fx_parts, .partition_count = 2, .commits = 6,
				 .aborts = 1, .rebalances = 2 };
	fx_info = (stoat_http_info){ .app = &app, .instance_id = "i-1", .bootstrap_servers = "127.0.0.1:9092",
				     .guarantee = STOAT_EXACTLY_ONCE, .started_unix_ms = 1700000000000, .started_ms = 500, .ready_max_lag = -1,
				     .config_json = "{\"settings\": {}}\n" };
}

/* Routes a request against the fixture at 1100 ms; the caller frees the body. */
static stoat_http_response route_format(const char *method, const char *path, const char *source,
					  const char *format, const char *accept)
{
	stoat_http_response r = { 0 };
	stoat_buf_init(&r.body);
	stoat_http_route(&fx_info, &fx, 1100, method, path, source, format, accept, &r);
	stoat_buf_putc(&r.body, '\0');
	r.body.len--;
	return r;
}

/* route_format without a format parameter. */
static stoat_http_response route(const char *method, const char *path, const char *source, const char *accept)
{
	return route_format(method, path, source, NULL, accept);
}

/* Asserts that text holds line (a whole line). */
static void expect_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = strstr(text, line); p; p = strstr(p + 1, line))
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	ck_abort_msg("no line '%s' in:\n%s", line, text);
}

START_TEST(test_histogram_buckets)
{
	stoat_histogram h = { 0 };
	stoat_histogram_observe(&h, 0.0001); /* on a bound: that bucket (le is inclusive) */
	stoat_histogram_observe(&h, 0.00011);
	stoat_histogram_observe(&h, 60);
	stoat_histogram_observe(&h, 61);
	stoat_histogram_observe(&h, -3); /* a clock step: 0 */
	ck_assert_uint_eq(h.counts[0], 2);
	ck_assert_uint_eq(h.counts[1], 1);
	ck_assert_uint_eq(h.counts[STOAT_HISTOGRAM_BUCKETS - 1], 1);
	ck_assert_uint_eq(h.counts[STOAT_HISTOGRAM_BUCKETS], 1);
	ck_assert_uint_eq(h.count, 5);
	ck_assert(h.sum > 121.000209 && h.sum < 121.000211);
}
END_TEST

START_TEST(test_metrics_text)
{
	setup();
	stoat_histogram_observe(&fx.commit_seconds, 0.25);
	stoat_histogram_observe(&fx.commit_seconds, 0.5);
	stoat_http_response r = route("GET", "/metrics", NULL, "text/plain");
	ck_assert_uint_eq(r.status, 200);
	ck_assert_str_eq(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
	const char *t = r.body.data;
	expect_line(t, "# TYPE stoat_records_consumed_total counter");
	expect_line(t, "stoat_records_consumed_total{source=\"orders\",topic=\"orders-in\"} 5");
	expect_line(t, "stoat_records_consumed_total{source=\"clicks\",topic=\"clicks-in\"} 7");
	expect_line(t, "stoat_records_failed_total{source=\"orders\",topic=\"orders-in\"} 2");
	expect_line(t, "stoat_records_skipped_total{source=\"orders\",topic=\"orders-in\"} 1");
	expect_line(t, "stoat_records_dead_lettered_total{source=\"orders\",topic=\"orders-in\"} 1");
	expect_line(t, "stoat_records_dropped_total{source=\"orders\",reason=\"null_key_or_value\"} 3");
	expect_line(t, "stoat_records_dropped_total{source=\"orders\",reason=\"window_closed\"} 4");
	expect_line(t, "stoat_records_produced_total{sink=\"0\",topic=\"enriched\"} 9");
	expect_line(t, "stoat_source_paused{source=\"clicks\"} 1");
	expect_line(t, "stoat_source_paused{source=\"orders\"} 0");
	expect_line(t, "stoat_commits_total 6");
	expect_line(t, "stoat_transactions_aborted_total 1");
	expect_line(t, "stoat_rebalances_total 2");
	expect_line(t, "stoat_assigned_partitions 2");
	expect_line(t, "stoat_consumer_lag_records{topic=\"orders-in\",partition=\"0\"} 3");
	ck_assert_ptr_null(strstr(t, "partition=\"1\"}")); /* its position is not known: no sample */
	expect_line(t, "stoat_info{app=\"shop\",version=\"" STOAT_VERSION "\",guarantee=\"exactly_once\",instance=\"i-1\"} 1");
	expect_line(t, "stoat_ready 1");
	expect_line(t, "stoat_uptime_seconds 0.59999999999999998");
	expect_line(t, "stoat_start_time_seconds 1700000000");
	/* Cumulative buckets: 0.25 falls in le=0.25, 0.5 in le=0.5. */
	expect_line(t, "# TYPE stoat_commit_seconds histogram");
	expect_line(t, "stoat_commit_seconds_bucket{le=\"0.1\"} 0");
	expect_line(t, "stoat_commit_seconds_bucket{le=\"0.25\"} 1");
	expect_line(t, "stoat_commit_seconds_bucket{le=\"0.5\"} 2");
	expect_line(t, "stoat_commit_seconds_bucket{le=\"+Inf\"} 2");
	expect_line(t, "stoat_commit_seconds_sum 0.75");
	expect_line(t, "stoat_commit_seconds_count 2");
	expect_line(t, "stoat_batch_processing_seconds_bucket{source=\"orders\",le=\"+Inf\"} 0");
	expect_line(t, "stoat_end_to_end_latency_seconds_count{sink=\"0\",topic=\"enriched\"} 0");
	ck_assert_ptr_null(strstr(t, "# EOF"));
	/* Every sample line is "name[{labels}] value", every family announced first. */
	char *copy = strdup(t);
	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		char name[128];
		ck_assert_int_eq(sscanf(line, "%127[a-z_]", name), 1);
		ck_assert_msg(strncmp(name, "stoat_", 6) == 0, "%s", line);
		ck_assert_msg(strchr(line, ' ') != NULL, "%s", line);
	}
	free(copy);
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_metrics_openmetrics)
{
	setup();
	const char *accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";
	stoat_http_response r = route("GET", "/metrics", NULL, accept);
	ck_assert_str_eq(r.content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
	const char *t = r.body.data;
	/* A counter's family has no _total; its samples do. */
	expect_line(t, "# TYPE stoat_records_consumed counter");
	expect_line(t, "# TYPE stoat_commits counter");
	expect_line(t, "stoat_commits_total 6");
	expect_line(t, "# TYPE stoat_ready gauge");
	ck_assert_ptr_null(strstr(t, "# TYPE stoat_commits_total"));
	size_t n = strlen(t);
	ck_assert(n > 6 && strcmp(t + n - 6, "# EOF\n") == 0);
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_label_escaping)
{
	setup();
	fx_info.instance_id = "a\"b\\c\nd";
	stoat_http_response r = route("GET", "/metrics", NULL, NULL);
	ck_assert_ptr_nonnull(strstr(r.body.data, "instance=\"a\\\"b\\\\c\\nd\"} 1\n"));
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_ready)
{
	setup();
	char why[256];
	ck_assert(stoat_http_ready(&fx_info, &fx, 1100, why, sizeof why));
	ck_assert(!stoat_http_ready(&fx_info, NULL, 1100, why, sizeof why));
	ck_assert_str_eq(why, "starting");
	fx.phase = STOAT_HTTP_STARTING;
	ck_assert(!stoat_http_ready(&fx_info, &fx, 1100, why, sizeof why));
	ck_assert_str_eq(why, "waiting for the consumer group's first assignment");
	fx.phase = STOAT_HTTP_RESTORING;
	ck_assert(!stoat_http_ready(&fx_info, &fx, 1100, why, sizeof why));
	ck_assert_str_eq(why, "restoring state stores from their changelogs");
	fx.phase = STOAT_HTTP_RUNNING;
	/* A lag limit: partition 1's lag is unknown. */
	fx_info.ready_max_lag = 2;
	ck_assert(!stoat_http_ready(&fx_info, &fx, 1100, why, sizeof why));
	ck_assert_str_eq(why, "the lag of 1 of 2 partitions is not known yet (nothing fetched from them)");
	fx_parts[1].position = 8; /* at its end */
	ck_assert(!stoat_http_ready(&fx_info, &fx, 1100, why, sizeof why));
	ck_assert_str_eq(why, "a lag of 3 records, above http_ready_max_lag 2");
	fx_info.ready_max_lag = 3;
	ck_assert(stoat_http_ready(&fx_info, &fx, 1100, why, sizeof why));
	/* A stream thread that stopped coming round. */
	ck_assert(!stoat_http_ready(&fx_info, &fx, 1000 + STOAT_HTTP_LIVE_MS + 1, why, sizeof why));
	ck_assert_str_eq(why, "the stream thread has not come round its loop for 60001 ms");
}
END_TEST

START_TEST(test_health_pages)
{
	setup();
	stoat_http_response r = route("GET", "/health/live", NULL, NULL);
	ck_assert_uint_eq(r.status, 200);
	ck_assert_str_eq(r.content_type, "application/json");
	ck_assert_str_eq(r.body.data, "{\"status\": \"alive\"}\n");
	stoat_buf_free(&r.body);
	fx.phase = STOAT_HTTP_RESTORING;
	r = route("GET", "/health/ready", NULL, NULL);
	ck_assert_uint_eq(r.status, 503);
	ck_assert_str_eq(r.body.data,
			 "{\"status\": \"not ready\", \"reason\": \"restoring state stores from their changelogs\"}\n");
	stoat_buf_free(&r.body);
	fx.published_ms = 1100 - STOAT_HTTP_LIVE_MS - 5;
	r = route("GET", "/health/live", NULL, NULL);
	ck_assert_uint_eq(r.status, 503);
	ck_assert_str_eq(r.body.data, "{\"status\": \"not alive\", \"reason\": \"the stream thread has not come round "
				      "its loop for 60005 ms\"}\n");
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_routing)
{
	setup();
	stoat_http_response r = route("GET", "/nope", NULL, NULL);
	ck_assert_uint_eq(r.status, 404);
	ck_assert_ptr_nonnull(strstr(r.body.data, "\"not found\""));
	stoat_buf_free(&r.body);
	r = route("POST", "/metrics", NULL, NULL);
	ck_assert_uint_eq(r.status, 405);
	ck_assert_str_eq(r.allow, "GET, HEAD");
	ck_assert_uint_eq(r.control, STOAT_HTTP_CONTROL_NONE);
	stoat_buf_free(&r.body);
	r = route("GET", "/pause", NULL, NULL);
	ck_assert_uint_eq(r.status, 405);
	ck_assert_str_eq(r.allow, "POST");
	ck_assert_uint_eq(r.control, STOAT_HTTP_CONTROL_NONE);
	stoat_buf_free(&r.body);
	r = route("HEAD", "/metrics", NULL, NULL);
	ck_assert_uint_eq(r.status, 200);
	stoat_buf_free(&r.body);
	r = route("GET", "/config", NULL, NULL);
	ck_assert_uint_eq(r.status, 200);
	ck_assert_str_eq(r.body.data, "{\"settings\": {}}\n");
	stoat_buf_free(&r.body);
	r = route("GET", "/health/live/", NULL, NULL); /* no trailing-slash aliases */
	ck_assert_uint_eq(r.status, 404);
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_pause_requests)
{
	setup();
	stoat_http_response r = route("POST", "/pause", NULL, NULL);
	ck_assert_uint_eq(r.status, 202);
	ck_assert_uint_eq(r.control, STOAT_HTTP_CONTROL_PAUSE);
	ck_assert_uint_eq(r.control_source, SIZE_MAX);
	ck_assert_str_eq(r.body.data, "{\"status\": \"accepted\", \"sources\": [\"orders\", \"clicks\"], \"paused\": true}\n");
	stoat_buf_free(&r.body);
	r = route("POST", "/resume", "clicks", NULL);
	ck_assert_uint_eq(r.status, 202);
	ck_assert_uint_eq(r.control, STOAT_HTTP_CONTROL_RESUME);
	ck_assert_uint_eq(r.control_source, 1);
	ck_assert_str_eq(r.body.data, "{\"status\": \"accepted\", \"sources\": [\"clicks\"], \"paused\": false}\n");
	stoat_buf_free(&r.body);
	r = route("POST", "/pause", "nope", NULL);
	ck_assert_uint_eq(r.status, 404);
	ck_assert_uint_eq(r.control, STOAT_HTTP_CONTROL_NONE);
	ck_assert_str_eq(r.body.data, "{\"status\": \"not found\", \"reason\": \"no source named 'nope'\"}\n");
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_offsets_page)
{
	setup();
	fx_parts[0].paused = true;
	stoat_http_response r = route("GET", "/offsets", NULL, NULL);
	ck_assert_uint_eq(r.status, 200);
	ck_assert_str_eq(r.body.data,
			 "{\"partitions\": [\n"
			 "  {\"topic\": \"orders-in\", \"partition\": 0, \"source\": \"orders\", \"committed\": 10, "
			 "\"position\": 12, \"end\": 15, \"lag\": 3, \"paused\": true},\n"
			 "  {\"topic\": \"orders-in\", \"partition\": 1, \"source\": \"orders\", \"committed\": null, "
			 "\"position\": null, \"end\": 8, \"lag\": null, \"paused\": false}\n"
			 "], \"lag\": null}\n");
	stoat_buf_free(&r.body);
	fx.partition_count = 0;
	r = route("GET", "/offsets", NULL, NULL);
	ck_assert_str_eq(r.body.data, "{\"partitions\": [], \"lag\": 0}\n");
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_info_page)
{
	setup();
	stoat_http_response r = route("GET", "/info", NULL, NULL);
	ck_assert_uint_eq(r.status, 200);
	ck_assert_str_eq(r.body.data,
			 "{\"app\": \"shop\", \"version\": \"" STOAT_VERSION "\", \"source_file\": \"shop.stoat\", "
			 "\"guarantee\": \"exactly_once\", \"instance\": \"i-1\", \"bootstrap_servers\": "
			 "\"127.0.0.1:9092\", \"state\": \"running\", \"started_at_ms\": 1700000000000, "
			 "\"uptime_seconds\": 0.600, \"sources\": 2, \"sinks\": 1, \"stores\": 0}\n");
	stoat_buf_free(&r.body);
	/* The guarantee run with (--guarantee over the program's exactly_once), in /info and stoat_info. */
	fx_info.guarantee = STOAT_AT_LEAST_ONCE;
	r = route("GET", "/info", NULL, NULL);
	ck_assert_ptr_nonnull(strstr(r.body.data, "\"guarantee\": \"at_least_once\""));
	stoat_buf_free(&r.body);
	r = route("GET", "/metrics", NULL, NULL);
	ck_assert_ptr_nonnull(strstr(r.body.data, ",guarantee=\"at_least_once\","));
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_topology_page)
{
	static const int orders_stores[] = { 0 };
	static const int region_stores[] = { 1 };
	static const stoat_source srcs[] = {
		{ .name = "orders", .topic = "orders" },
		{ .name = "by_region", .topic = "t-counts-repartition", .internal = true, .subtopology = 1,
		  .stores = orders_stores, .store_count = 1 },
		{ .name = "regions", .topic = "regions", .global = true, .stores = region_stores, .store_count = 1 },
	};
	static const stoat_sink snks[] = { { .topic = "t-counts-repartition", .internal = true }, { .topic = "out" } };
	static const stoat_store_desc stores[] = {
		{ .name = "counts", .kind = STOAT_STORE_WINDOW, .subtopology = 1 },
		{ .name = "regions", .global = true, .in_memory = true },
	};
	static const int pair[] = { 0, 2 };
	static const stoat_copartition cop[] = { { .what = "join at t.stoat:9", .sources = pair, .source_count = 2 } };
	static const stoat_app t = { .app_id = "t", .sources = srcs, .source_count = 3, .sinks = snks, .sink_count = 2,
				     .stores = stores, .store_count = 2, .copartitions = cop, .copartition_count = 1,
				     .topology_dot = "digraph \"t\" {\n}\n" };
	setup();
	fx_info.app = &t;
	stoat_http_response r = route("GET", "/topology", NULL, NULL);
	ck_assert_uint_eq(r.status, 200);
	ck_assert_str_eq(r.content_type, "application/json");
	ck_assert_str_eq(r.body.data,
			 "{\"app\": \"t\", \"subtopologies\": [\n"
			 "  {\"id\": 0, \"sources\": [{\"name\": \"orders\", \"topic\": \"orders\", \"internal\": false}], "
			 "\"stores\": []},\n"
			 "  {\"id\": 1, \"sources\": [{\"name\": \"by_region\", \"topic\": \"t-counts-repartition\", "
			 "\"internal\": true}], \"stores\": [{\"name\": \"counts\", \"kind\": \"window\", \"changelog\": "
			 "\"t-counts-changelog\", \"in_memory\": false}]}\n"
			 "], \"global_tables\": [{\"source\": \"regions\", \"topic\": \"regions\", \"store\": \"regions\"}], "
			 "\"sinks\": [{\"sink\": 0, \"topic\": \"t-counts-repartition\", \"internal\": true}, "
			 "{\"sink\": 1, \"topic\": \"out\", \"internal\": false}], "
			 "\"copartitioned\": [{\"what\": \"join at t.stoat:9\", \"topics\": [\"orders\", \"regions\"]}]}\n");
	stoat_buf_free(&r.body);
	r = route_format("GET", "/topology", NULL, "dot", NULL);
	ck_assert_uint_eq(r.status, 200);
	ck_assert_str_eq(r.content_type, "text/vnd.graphviz; charset=utf-8");
	ck_assert_str_eq(r.body.data, "digraph \"t\" {\n}\n");
	stoat_buf_free(&r.body);
	r = route_format("GET", "/topology", NULL, "svg", NULL);
	ck_assert_uint_eq(r.status, 400);
	ck_assert_str_eq(r.body.data, "{\"status\": \"bad request\", \"reason\": \"format is json or dot, not 'svg'\"}\n");
	stoat_buf_free(&r.body);
	fx_info.app = &app; /* no DOT in the fixture's table */
	r = route_format("GET", "/topology", NULL, "dot", NULL);
	ck_assert_uint_eq(r.status, 404);
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_state_page)
{
	static const stoat_source srcs[] = {
		{ .name = "words", .topic = "lines" },
		{ .name = "by_word", .topic = "wc-counts-repartition", .internal = true, .subtopology = 1 },
	};
	static const stoat_store_desc stores[] = { { .name = "counts", .subtopology = 1 } };
	static const stoat_app wc = { .app_id = "wc", .sources = srcs, .source_count = 2, .stores = stores,
				      .store_count = 1 };
	stoat_http_partition parts[] = {
		{ .source = 0, .partition = 0, .position = -1, .committed = -1, .end = -1 },
		{ .source = 1, .partition = 0, .position = -1, .committed = -1, .end = -1 },
	};
	stoat_store_usage usage[] = { { .store = 0, .partition = 0, .keys = 7, .bytes = 4096, .checkpoint = 12,
					.restored = 3 } };
	stoat_http_restore restores[] = { { .store = 0, .partition = 1, .from = 100, .end = 250, .position = 160,
					    .restored = 60 } };
	stoat_http_source wsources[2] = { 0 };
	setup();
	fx_info.app = &wc;
	fx.sources = wsources;
	fx.sinks = NULL;
	fx.partitions = parts;
	fx.partition_count = 2;
	fx.phase = STOAT_HTTP_RESTORING;
	fx.has_state = true;
	fx.stores = usage;
	fx.store_count = 1;
	fx.restores = restores;
	fx.restore_count = 1;
	fx.state = (stoat_state_usage){ .cache_max_bytes = 10485760, .cache_bytes = 512, .cache_entries = 4,
					.cache_hits = 9, .cache_misses = 5, .cache_size_flushes = 1,
					.rocksdb = { .memtables = 2048, .table_readers = 16, .block_cache = 64,
						     .block_cache_pinned = 8, .budget = 268435456 } };
	stoat_http_response r = route("GET", "/state", NULL, NULL);
	ck_assert_uint_eq(r.status, 200);
	ck_assert_str_eq(r.body.data,
			 "{\"state\": \"restoring\",\n"
			 "\"tasks\": [\n"
			 "  {\"id\": \"0_0\", \"subtopology\": 0, \"partition\": 0, \"topics\": [\"lines\"]},\n"
			 "  {\"id\": \"1_0\", \"subtopology\": 1, \"partition\": 0, \"topics\": [\"wc-counts-repartition\"]}\n"
			 "],\n"
			 "\"stores\": [\n"
			 "  {\"store\": \"counts\", \"partition\": 0, \"task\": \"1_0\", \"kind\": \"key_value\", "
			 "\"in_memory\": false, \"keys\": 7, \"bytes\": 4096, \"checkpoint\": 12, \"restored\": 3}\n"
			 "],\n"
			 "\"restoring\": [\n"
			 "  {\"store\": \"counts\", \"partition\": 1, \"changelog\": \"wc-counts-changelog\", \"from\": 100, "
			 "\"end\": 250, \"position\": 160, \"restored\": 60, \"remaining\": 90}\n"
			 "],\n"
			 "\"record_cache\": {\"max_bytes\": 10485760, \"bytes\": 512, \"entries\": 4, \"hits\": 9, "
			 "\"misses\": 5, \"size_flushes\": 1},\n"
			 "\"rocksdb\": {\"budget_bytes\": 268435456, \"memtable_bytes\": 2048, \"table_readers_bytes\": 16, "
			 "\"block_cache_bytes\": 64, \"block_cache_pinned_bytes\": 8}}\n");
	stoat_buf_free(&r.body);
	r = route("GET", "/metrics", NULL, NULL);
	const char *t = r.body.data;
	expect_line(t, "stoat_store_keys{store=\"counts\",partition=\"0\"} 7");
	expect_line(t, "stoat_store_bytes{store=\"counts\",partition=\"0\"} 4096");
	expect_line(t, "stoat_restore_remaining_records{store=\"counts\",partition=\"1\"} 90");
	expect_line(t, "stoat_record_cache_hits_total 9");
	expect_line(t, "stoat_record_cache_misses_total 5");
	expect_line(t, "stoat_record_cache_size_flushes_total 1");
	expect_line(t, "stoat_record_cache_bytes 512");
	expect_line(t, "stoat_rocksdb_memtable_bytes 2048");
	expect_line(t, "stoat_rocksdb_block_cache_bytes 64");
	expect_line(t, "stoat_rocksdb_budget_bytes 268435456");
	expect_line(t, "stoat_restoring 1");
	stoat_buf_free(&r.body);
	/* Without stores: none of their families, and null sections. */
	fx.has_state = false;
	r = route("GET", "/metrics", NULL, NULL);
	ck_assert_ptr_null(strstr(r.body.data, "stoat_store_keys"));
	ck_assert_ptr_null(strstr(r.body.data, "stoat_record_cache"));
	stoat_buf_free(&r.body);
	r = route("GET", "/state", NULL, NULL);
	ck_assert_ptr_nonnull(strstr(r.body.data, "\"stores\": [],\n\"restoring\": [],\n\"record_cache\": null, \"rocksdb\": null}\n"));
	stoat_buf_free(&r.body);
}
END_TEST

/* A producer's statistics in librdkafka's shape (trimmed), and a consumer's. */
START_TEST(test_librdkafka_stats)
{
	const char *producer =
		"{ \"name\": \"shop#producer-1\", \"client_id\": \"shop\", \"type\": \"producer\", \"ts\": 5, "
		"\"msg_cnt\": 12, \"msg_size\": 3400, \"msg_max\": 1000000, \"tx\": 9, \"tx_bytes\": 81920, \"rx\": 9, "
		"\"rx_bytes\": 2048, \"brokers\": { "
		"\"127.0.0.1:9092/bootstrap\": { \"name\": \"127.0.0.1:9092/bootstrap\", \"nodeid\": -1, \"state\": \"UP\", "
		"\"rtt\": { \"min\": 0, \"avg\": 0 } }, "
		"\"127.0.0.1:9092/1\": { \"name\": \"127.0.0.1:9092/1\", \"nodeid\": 1, \"state\": \"UP\", "
		"\"int_latency\": { \"avg\": 7 }, \"rtt\": { \"min\": 100, \"max\": 900, \"avg\": 1500, \"p99\": 800 }, "
		"\"toppars\": { \"out-0\": { \"topic\": \"out\", \"partition\": 0 } } }, "
		"\"127.0.0.1:9093/2\": { \"nodeid\": 2, \"state\": \"DOWN\", \"rtt\": { \"avg\": 0 } } }, "
		"\"topics\": { \"out\": { \"topic\": \"out\", \"partitions\": { \"0\": { \"fetchq_cnt\": 0 }, "
		"\"-1\": { \"fetchq_cnt\": 0 } } } }, \"eos\": { \"idemp_state\": \"Assigned\" } }";
	stoat_http_client c = { 0 };
	ck_assert(stoat_http_parse_librdkafka_stats((stoat_str){ producer, strlen(producer) }, &c));
	ck_assert(c.known);
	ck_assert_int_eq(c.queue_messages, 12);
	ck_assert_int_eq(c.queue_bytes, 3400);
	ck_assert_int_eq(c.sent_bytes, 81920);
	ck_assert_int_eq(c.received_bytes, 2048);
	ck_assert_uint_eq(c.broker_count, 2); /* the bootstrap entry is no broker */
	ck_assert_str_eq(c.brokers[0].name, "127.0.0.1:9092/1");
	ck_assert(c.brokers[0].up);
	ck_assert(c.brokers[0].rtt_seconds > 0.0014999 && c.brokers[0].rtt_seconds < 0.0015001);
	ck_assert(!c.brokers[1].up);

	const char *consumer = "{\"type\": \"consumer\", \"msg_cnt\": 0, \"topics\": {\"in\": {\"partitions\": {"
			       "\"0\": {\"fetchq_cnt\": 40, \"consumer_lag\": 3}, \"1\": {\"fetchq_cnt\": 2}, "
			       "\"-1\": {\"fetchq_cnt\": -1}}}, \"in2\": {\"partitions\": {\"0\": {\"fetchq_cnt\": 8}}}}, "
			       "\"cgrp\": {\"state\": \"up\", \"rebalance_cnt\": 1}}";
	stoat_http_client d = { 0 };
	ck_assert(stoat_http_parse_librdkafka_stats((stoat_str){ consumer, strlen(consumer) }, &d));
	ck_assert_int_eq(d.fetch_queue_messages, 50);
	/* Not librdkafka's JSON: refused, the last figures kept. */
	ck_assert(!stoat_http_parse_librdkafka_stats((stoat_str){ "{\"msg_cnt\": ", 12 }, &d));
	ck_assert_int_eq(d.fetch_queue_messages, 50);
	ck_assert(!stoat_http_parse_librdkafka_stats((stoat_str){ "[1]", 3 }, &d));

	setup();
	fx.producer = c;
	fx.consumer = d;
	stoat_http_response r = route("GET", "/metrics", NULL, NULL);
	const char *t = r.body.data;
	expect_line(t, "stoat_kafka_queue_messages{client=\"producer\"} 12");
	expect_line(t, "stoat_kafka_sent_bytes_total{client=\"producer\"} 81920");
	expect_line(t, "stoat_kafka_fetch_queue_messages{client=\"consumer\"} 50");
	expect_line(t, "stoat_kafka_broker_up{client=\"producer\",broker=\"127.0.0.1:9092/1\"} 1");
	expect_line(t, "stoat_kafka_broker_up{client=\"producer\",broker=\"127.0.0.1:9093/2\"} 0");
	expect_line(t, "stoat_kafka_broker_rtt_seconds{client=\"producer\",broker=\"127.0.0.1:9092/1\"} 0.0015");
	ck_assert_ptr_null(strstr(t, "rtt_seconds{client=\"producer\",broker=\"127.0.0.1:9093/2\"}"));
	stoat_buf_free(&r.body);
}
END_TEST

START_TEST(test_parse_listen)
{
	char a[64];
	int port = 5;
	ck_assert(stoat_http_parse_listen("off", a, sizeof a, &port));
	ck_assert_int_eq(port, -1);
	ck_assert(stoat_http_parse_listen("9464", a, sizeof a, &port));
	ck_assert_str_eq(a, "127.0.0.1");
	ck_assert_int_eq(port, 9464);
	ck_assert(stoat_http_parse_listen("0", a, sizeof a, &port));
	ck_assert_int_eq(port, 0);
	ck_assert(stoat_http_parse_listen("0.0.0.0:80", a, sizeof a, &port));
	ck_assert_str_eq(a, "0.0.0.0");
	ck_assert_int_eq(port, 80);
	ck_assert(stoat_http_parse_listen("[::1]:8080", a, sizeof a, &port));
	ck_assert_str_eq(a, "::1");
	ck_assert_int_eq(port, 8080);
	static const char *const bad[] = { "", "on", "localhost:80", ":80", "70000", "-1", "+5", "80x",
					   "1.2.3:80", "[::1]", "127.0.0.1:" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!stoat_http_parse_listen(bad[i], a, sizeof a, &port), "'%s' accepted", bad[i]);
}
END_TEST

/* Sends raw request text to 127.0.0.1:port and returns the whole answer (malloc'd). */
static char *http_exchange(int port, const char *request)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	size_t len = strlen(request);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, request + off, len - off);
		ck_assert_int_gt(n, 0);
		off += (size_t)n;
	}
	size_t cap = 4096, got = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (cap - got < 1024)
			buf = realloc(buf, cap *= 2);
		ssize_t n = read(fd, buf + got, cap - got - 1);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	return buf;
}

START_TEST(test_server)
{
	setup();
	char err[256];
	stoat_http *h = stoat_http_start(&fx_info, "127.0.0.1", 0, err, sizeof err);
	ck_assert_msg(h != NULL, "%s", err);
	int port = stoat_http_port(h);
	ck_assert_int_gt(port, 0);
	/* Before the first snapshot: alive, not ready. */
	char *a = http_exchange(port, "GET /health/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	ck_assert_msg(strncmp(a, "HTTP/1.1 503", 12) == 0, "%s", a);
	ck_assert_ptr_nonnull(strstr(a, "\"reason\": \"starting\""));
	free(a);
	/* A snapshot: the stream thread's buffer, published. */
	stoat_http_stats *s = stoat_http_scratch(h);
	s->phase = STOAT_HTTP_RUNNING;
	s->published_ms = stoat_now_ms();
	s->sources[0].counters.records_in = 42;
	stoat_http_publish(h);
	ck_assert_ptr_ne(stoat_http_scratch(h), s);
	a = http_exchange(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	ck_assert_msg(strncmp(a, "HTTP/1.1 200", 12) == 0, "%s", a);
	ck_assert_ptr_nonnull(strstr(a, "\nstoat_records_consumed_total{source=\"orders\",topic=\"orders-in\"} 42\n"));
	ck_assert_ptr_nonnull(strstr(a, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
	free(a);
	/* A query string selects the source. */
	unsigned g = stoat_http_control_generation(h);
	a = http_exchange(port, "POST /pause?source=clicks HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
				"Connection: close\r\n\r\n");
	ck_assert_msg(strncmp(a, "HTTP/1.1 202", 12) == 0, "%s", a);
	free(a);
	ck_assert_uint_eq(stoat_http_control_generation(h), g + 1);
	ck_assert(stoat_http_paused_wanted(h, 1));
	ck_assert(!stoat_http_paused_wanted(h, 0));
	/* Headers beyond the connection's memory: refused, the server goes on. */
	size_t big = 64 * 1024;
	char *req = malloc(big + 128);
	int n = snprintf(req, 128, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
	memset(req + n, 'a', big);
	strcpy(req + n + big, "\r\nConnection: close\r\n\r\n");
	a = http_exchange(port, req);
	ck_assert_msg(strncmp(a, "HTTP/1.1 431", 12) == 0 || strncmp(a, "HTTP/1.1 413", 12) == 0 || a[0] == '\0',
		      "%.200s", a);
	free(a);
	free(req);
	a = http_exchange(port, "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	ck_assert_msg(strncmp(a, "HTTP/1.1 200", 12) == 0, "%s", a);
	free(a);
	/* A taken port is refused with the reason. */
	stoat_http *again = stoat_http_start(&fx_info, "127.0.0.1", port, err, sizeof err);
	ck_assert_ptr_null(again);
	ck_assert_msg(strstr(err, "cannot listen on 127.0.0.1:") != NULL, "%s", err);
	stoat_http_stop(h);
}
END_TEST

static Suite *http_suite(void)
{
	Suite *s = suite_create("runtime_http");
	TCase *tc = tcase_create("http");
	tcase_add_test(tc, test_histogram_buckets);
	tcase_add_test(tc, test_metrics_text);
	tcase_add_test(tc, test_metrics_openmetrics);
	tcase_add_test(tc, test_label_escaping);
	tcase_add_test(tc, test_ready);
	tcase_add_test(tc, test_health_pages);
	tcase_add_test(tc, test_routing);
	tcase_add_test(tc, test_pause_requests);
	tcase_add_test(tc, test_offsets_page);
	tcase_add_test(tc, test_info_page);
	tcase_add_test(tc, test_topology_page);
	tcase_add_test(tc, test_state_page);
	tcase_add_test(tc, test_librdkafka_stats);
	tcase_add_test(tc, test_parse_listen);
	tcase_add_test(tc, test_server);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(http_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
