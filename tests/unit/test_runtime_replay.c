/*
 * End-to-end tests of the replay driver through stoat_main(), in-process.
 * The application below is written by hand the way stoatc generates code:
 * a constant stoat_app table and one pipeline function per source that
 * loops over its batch, decodes, transforms, emits and routes failures
 * through stoat_record_failed().  Every expected output line was worked
 * out by hand (partitions from Kafka's published murmur2 test vectors).
 */
#include "internal.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* The application under test                                          */
/* ------------------------------------------------------------------ */

/* A log of the batches the driver handed to pipelines: "topic/p@o,o;". */
static char batch_log[4096];

/* Appends one batch's coordinates to batch_log. */
static void log_batch(const char *topic, const stoat_msg *msgs, size_t n)
{
	size_t len = strlen(batch_log);
	len += (size_t)snprintf(batch_log + len, sizeof batch_log - len, "%s/%d@", topic, msgs[0].partition);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(batch_log + len, sizeof batch_log - len, "%s%lld", i ? "," : "",
					(long long)msgs[i].offset);
	snprintf(batch_log + len, sizeof batch_log - len, ";");
}

/* type Order { id: i64, amount: i64, route: string? } */
typedef struct Order {
	int64_t id;
	int64_t amount;
	stoat_opt_str route;
} Order;

/* The generated JSON decoder for Order. */
static bool decode_Order_json(stoat_ctx *cx, stoat_str s, Order *o)
{
	stoat_json j;
	stoat_json_init(&j, cx, s);
	bool has_id = false, has_amount = false;
	o->route.has = false;
	if (!stoat_json_object_begin(&j))
		return false;
	bool first = true;
	stoat_str name;
	while (stoat_json_object_next(&j, &first, &name)) {
		if (stoat_str_eq(name, STOAT_STR_LIT("id"))) {
			if (!stoat_json_i64(&j, &o->id))
				return false;
			has_id = true;
		} else if (stoat_str_eq(name, STOAT_STR_LIT("amount"))) {
			if (!stoat_json_i64(&j, &o->amount))
				return false;
			has_amount = true;
		} else if (stoat_str_eq(name, STOAT_STR_LIT("route"))) {
			if (!stoat_json_null(&j)) {
				if (!stoat_json_string(&j, &o->route.v))
					return false;
				o->route.has = true;
			}
		} else if (!stoat_json_skip(&j)) {
			return false;
		}
	}
	if (cx->error || !stoat_json_end(&j))
		return false;
	if (!has_id)
		return stoat_json_missing(&j, "Order", "id");
	if (!has_amount)
		return stoat_json_missing(&j, "Order", "amount");
	return true;
}

/*
 * orders |> filter(o => o.amount >= 0)
 *        |> to "big-orders" as { id: o.id, total: o.amount * 2 }
 *   and, when o.route is set, to topic o.route as (o.id: i64, o.amount / 4.0: f64)
 */
static void p0_orders(stoat_ctx *cx, const stoat_msg *msgs, size_t n)
{
	log_batch("orders", msgs, n);
	for (size_t i = 0; i < n; i++) {
		const stoat_msg *m = &msgs[i];
		stoat_record_begin(cx, m);
		Order o;
		if (m->value.ptr == NULL) {
			stoat_error(cx, "null value for a non-nullable Order");
			goto failed;
		}
		if (!decode_Order_json(cx, m->value, &o))
			goto failed;
		if (!(o.amount >= 0))
			continue;
		int64_t total = stoat_mul_i64(cx, o.amount, 2);
		if (cx->error)
			goto failed;
		cx->value_buf.len = 0;
		stoat_buf_lit(&cx->value_buf, "{\"id\":");
		stoat_buf_put_i64(&cx->value_buf, o.id);
		stoat_buf_lit(&cx->value_buf, ",\"total\":");
		stoat_buf_put_i64(&cx->value_buf, total);
		stoat_buf_putc(&cx->value_buf, '}');
		stoat_emit(cx, 0, (stoat_str){ NULL, 0 }, m->key, stoat_buf_str(&cx->value_buf));
		if (cx->error)
			goto failed;
		if (o.route.has) {
			cx->key_buf.len = 0;
			stoat_buf_put_be64(&cx->key_buf, o.id);
			cx->value_buf.len = 0;
			stoat_buf_put_be_f64(&cx->value_buf, stoat_div_f64(cx, (double)o.amount, 4.0));
			stoat_emit(cx, 1, o.route.v, stoat_buf_str(&cx->key_buf), stoat_buf_str(&cx->value_buf));
			if (cx->error)
				goto failed;
		}
		continue;
	failed:
		if (!stoat_record_failed(cx))
			return;
	}
}

/* counts |> map_values(v => v + 1) |> to "counts-out" format (i32, i64). */
static void p1_counts(stoat_ctx *cx, const stoat_msg *msgs, size_t n)
{
	log_batch("counts", msgs, n);
	for (size_t i = 0; i < n; i++) {
		const stoat_msg *m = &msgs[i];
		stoat_record_begin(cx, m);
		int64_t v;
		if (!stoat_decode_be64(cx, m->value, &v))
			goto failed;
		int64_t next = stoat_add_i64(cx, v, 1);
		if (cx->error)
			goto failed;
		cx->value_buf.len = 0;
		stoat_buf_put_be64(&cx->value_buf, next);
		stoat_emit(cx, 2, (stoat_str){ NULL, 0 }, m->key, stoat_buf_str(&cx->value_buf));
		if (cx->error)
			goto failed;
		continue;
	failed:
		if (!stoat_record_failed(cx))
			return;
	}
}

static const stoat_source test_sources[] = {
	{ "orders", "orders", STOAT_FMT_TEXT, STOAT_FMT_JSON, STOAT_POLICY_DEFAULT, p0_orders, NULL, false, NULL, 0, 0, false },
	{ "counts", "counts", STOAT_FMT_I32, STOAT_FMT_I64, STOAT_POLICY_DEFAULT, p1_counts, NULL, false, NULL, 0, 0, false },
};

static const stoat_sink test_sinks[] = {
	{ "big-orders", STOAT_FMT_TEXT, STOAT_FMT_JSON, false, NULL, NULL },
	{ NULL, STOAT_FMT_I64, STOAT_FMT_F64, false, NULL, NULL },
	{ "counts-out", STOAT_FMT_I32, STOAT_FMT_I64, false, NULL, NULL },
};

static const stoat_app test_app = {
	.app_id = "test-app",
	.source_file = "test.stoat",
	.guarantee = STOAT_EXACTLY_ONCE,
	.commit_interval_ms = 100,
	.on_error = STOAT_POLICY_FAIL,
	.sources = test_sources,
	.source_count = 2,
	.sinks = test_sinks,
	.sink_count = 3,
};

/* ------------------------------------------------------------------ */
/* Harness                                                             */
/* ------------------------------------------------------------------ */

static char tmpdir[64];
static char *captured_out; /* what the run wrote to stdout */
static char *captured_err; /* ... and to stderr */

/* A path inside the test's temporary directory (static storage, 4 slots). */
static const char *tmp_path(const char *name)
{
	static char paths[4][128];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
	return p;
}

/* Writes text to a file in the temporary directory; returns its path. */
static const char *write_file(const char *name, const char *text)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Reads a whole file into a malloc'd string ("" if it does not exist). */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return strdup("");
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = calloc((size_t)n + 1, 1);
	size_t got = fread(s, 1, (size_t)n, f);
	s[got] = '\0';
	fclose(f);
	return s;
}

/* Runs stoat_main with argv (NULL-terminated), capturing stdout and stderr
 * at the file-descriptor level. */
static int run_main(const char **args)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = (char *)"test-app";
	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	argv[argc] = NULL;
	batch_log[0] = '\0';

	const char *out_path = tmp_path("stdout.txt");
	char err_path[128];
	snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmpdir);
	fflush(stdout);
	fflush(stderr);
	int saved_out = dup(1), saved_err = dup(2);
	int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fo, 1);
	dup2(fe, 2);
	close(fo);
	close(fe);
	int status = stoat_main(&test_app, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	free(captured_out);
	free(captured_err);
	captured_out = read_file(out_path);
	captured_err = read_file(err_path);
	return status;
}

static void setup(void)
{
	strcpy(tmpdir, "/tmp/stoat-replay-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	free(captured_out);
	free(captured_err);
	captured_out = captured_err = NULL;
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

/*
 * Two inputs with interleaved timestamps and ties.  Merged order (ties go
 * to the earlier file): A1 A2 (t100, one batch), B1 (t100), A3 (t200), B2
 * (t250), A4 (t300), A5 (t300, other topic: new batch), B3 (t300).
 * Partitions of big-orders (4): murmur2("foobar") = -790332482 -> 1357151166
 * % 4 = 2; murmur2("abc") = 479470107 % 4 = 3; murmur2("21") = -973932308 ->
 * 1173551340 % 4 = 0; a null key keeps input partition 1 % 4 = 1.
 */
START_TEST(test_replay_end_to_end)
{
	const char *a = write_file(
		"a.jsonl",
		"{\"topic\":\"orders\",\"key\":\"foobar\",\"value\":{\"id\":1,\"amount\":10},\"timestamp\":100}\n"
		"{\"topic\":\"orders\",\"key\":\"abc\",\"value\":{\"amount\":3,\"id\":5,\"x\":[1]},\"timestamp\":100}\n"
		"\n"
		"{\"topic\":\"orders\",\"key\":\"abc\",\"value\":{\"id\":2,\"amount\":-5},\"timestamp\":200}\n"
		"{\"timestamp\":300,\"topic\":\"orders\",\"key\":\"21\",\"value\":{\"id\":3,\"amount\":7,\"route\":\"audit\"},"
		"\"headers\":{\"h\":\"v\\u00e9\",\"n\":null}}\r\n"
		"   \n"
		"{\"topic\":\"counts\",\"partition\":2,\"key\":5,\"value\":41,\"timestamp\":300}");
	const char *b = write_file(
		"b.jsonl",
		"{\"topic\":\"counts\",\"partition\":1,\"key\":null,\"value\":1,\"timestamp\":100}\n"
		"{\"topic\":\"orders\",\"partition\":1,\"value\":{\"id\":4,\"amount\":1},\"timestamp\":250,\"offset\":77}\n"
		"{\"topic\":\"counts\",\"partition\":1,\"value_base64\":\"AAAAAAAAAAI=\",\"timestamp\":300}\n");
	const char *out = tmp_path("out.jsonl");
	const char *args[] = { "replay", "--partitions", "big-orders=4", "-o", out, "--stats", a, b, NULL };
	ck_assert_int_eq(run_main(args), 0);
	char *got = read_file(out);
	const char *want =
		"{\"topic\":\"big-orders\",\"partition\":2,\"offset\":0,\"timestamp\":100,\"key\":\"foobar\",\"value\":{\"id\":1,\"total\":20}}\n"
		"{\"topic\":\"big-orders\",\"partition\":3,\"offset\":0,\"timestamp\":100,\"key\":\"abc\",\"value\":{\"id\":5,\"total\":6}}\n"
		"{\"topic\":\"counts-out\",\"partition\":0,\"offset\":0,\"timestamp\":100,\"key\":null,\"value\":2}\n"
		"{\"topic\":\"big-orders\",\"partition\":1,\"offset\":0,\"timestamp\":250,\"key\":null,\"value\":{\"id\":4,\"total\":2}}\n"
		"{\"topic\":\"big-orders\",\"partition\":0,\"offset\":0,\"timestamp\":300,\"key\":\"21\",\"value\":{\"id\":3,\"total\":14},\"headers\":{\"h\":\"v\xc3\xa9\",\"n\":null}}\n"
		"{\"topic\":\"audit\",\"partition\":0,\"offset\":0,\"timestamp\":300,\"key\":3,\"value\":1.75,\"headers\":{\"h\":\"v\xc3\xa9\",\"n\":null}}\n"
		"{\"topic\":\"counts-out\",\"partition\":0,\"offset\":1,\"timestamp\":300,\"key\":5,\"value\":42}\n"
		"{\"topic\":\"counts-out\",\"partition\":0,\"offset\":2,\"timestamp\":300,\"key\":null,\"value\":3}\n";
	ck_assert_str_eq(got, want);
	free(got);
	ck_assert_str_eq(batch_log,
			 "orders/0@0,1;counts/1@0;orders/0@2;orders/1@77;orders/0@3;counts/2@0;counts/1@1;");
	ck_assert_str_eq(captured_err, "test-app: records in 8, out 8, failed 0, skipped 0, dead-lettered 0\n");
	ck_assert_str_eq(captured_out, "");
}
END_TEST

/* --batch caps batch sizes; default offsets count per topic-partition. */
START_TEST(test_batch_limit)
{
	const char *in = write_file("in.jsonl",
				    "{\"topic\":\"counts\",\"value\":1}\n{\"topic\":\"counts\",\"value\":2}\n"
				    "{\"topic\":\"counts\",\"value\":3}\n{\"topic\":\"counts\",\"value\":4}\n"
				    "{\"topic\":\"counts\",\"value\":5}\n");
	const char *args[] = { "replay", "--batch", "2", "-o", tmp_path("o"), in, NULL };
	ck_assert_int_eq(run_main(args), 0);
	ck_assert_str_eq(batch_log, "counts/0@0,1;counts/0@2,3;counts/0@4;");
}
END_TEST

static const char *bad_record_input =
	"{\"topic\":\"orders\",\"key\":\"k\",\"value\":{\"id\":1,\"amount\":1},\"timestamp\":1}\n"
	"{\"topic\":\"orders\",\"key\":\"k\",\"value\":\"not json\",\"timestamp\":2}\n"
	"{\"topic\":\"orders\",\"key\":\"k\",\"value\":{\"amount\":1},\"timestamp\":3}\n"
	"{\"topic\":\"orders\",\"key\":\"k\",\"value\":{\"id\":4,\"amount\":9223372036854775807},\"timestamp\":4}\n"
	"{\"topic\":\"orders\",\"key\":\"k\",\"value\":{\"id\":5,\"amount\":2},\"timestamp\":5}\n";

/* The fail policy stops at the first bad record, after flushing the output
 * of the records before it. */
START_TEST(test_fail_policy)
{
	const char *in = write_file("in.jsonl", bad_record_input);
	const char *out = tmp_path("out.jsonl");
	const char *args[] = { "replay", "-o", out, in, NULL };
	ck_assert_int_eq(run_main(args), STOAT_EXIT_RECORD_FAILED);
	char *got = read_file(out);
	ck_assert_str_eq(got, "{\"topic\":\"big-orders\",\"partition\":0,\"offset\":0,\"timestamp\":1,\"key\":\"k\","
			      "\"value\":{\"id\":1,\"total\":2}}\n");
	free(got);
	ck_assert_str_eq(captured_err,
			 "test-app: error: record orders/0@1 (timestamp 2): invalid JSON at byte 0: expected '{'\n"
			 "test-app: records in 2, out 1, failed 1, skipped 0, dead-lettered 0\n");
}
END_TEST

/* --on-error skip overrides the application's fail policy. */
START_TEST(test_skip_policy)
{
	const char *in = write_file("in.jsonl", bad_record_input);
	const char *out = tmp_path("out.jsonl");
	const char *args[] = { "replay", "--on-error=skip", "-o", out, in, NULL };
	ck_assert_int_eq(run_main(args), 0);
	char *got = read_file(out);
	ck_assert_str_eq(got,
			 "{\"topic\":\"big-orders\",\"partition\":0,\"offset\":0,\"timestamp\":1,\"key\":\"k\",\"value\":{\"id\":1,\"total\":2}}\n"
			 "{\"topic\":\"big-orders\",\"partition\":0,\"offset\":1,\"timestamp\":5,\"key\":\"k\",\"value\":{\"id\":5,\"total\":4}}\n");
	free(got);
	ck_assert_str_eq(
		captured_err,
		"test-app: warning: record orders/0@1 (timestamp 2): invalid JSON at byte 0: expected '{' (skipped)\n"
		"test-app: warning: record orders/0@2 (timestamp 3): missing field \"id\" in Order (skipped)\n"
		"test-app: warning: record orders/0@3 (timestamp 4): integer overflow in '*' (skipped)\n");
}
END_TEST

/* Bytes that do not fit the sink format are shown without loss; a bad
 * per-record topic is a per-record error. */
START_TEST(test_output_presentation)
{
	const char *in = write_file(
		"in.jsonl",
		"{\"topic\":\"orders\",\"key_base64\":\"/w==\",\"value\":{\"id\":1,\"amount\":0}}\n"
		"{\"topic\":\"counts\",\"key\":\"ab\",\"value\":5}\n"
		"{\"topic\":\"orders\",\"key\":\"\",\"value\":{\"id\":2,\"amount\":4,\"route\":\"bad topic\"}}\n");
	const char *out = tmp_path("out.jsonl");
	const char *args[] = { "replay", "--on-error", "skip", "--output", out, in, NULL };
	ck_assert_int_eq(run_main(args), 0);
	char *got = read_file(out);
	ck_assert_str_eq(got,
			 "{\"topic\":\"big-orders\",\"partition\":0,\"offset\":0,\"timestamp\":0,\"key_base64\":\"/w==\",\"value\":{\"id\":1,\"total\":0}}\n"
			 "{\"topic\":\"counts-out\",\"partition\":0,\"offset\":0,\"timestamp\":0,\"key\":\"ab\",\"value\":6}\n"
			 "{\"topic\":\"big-orders\",\"partition\":0,\"offset\":1,\"timestamp\":0,\"key\":\"\",\"value\":{\"id\":2,\"total\":8}}\n");
	free(got);
	ck_assert_ptr_nonnull(strstr(captured_err, "invalid topic name \"bad topic\""));
}
END_TEST

/* Envelope problems are reported with file:line and exit 3. */
START_TEST(test_envelope_errors)
{
	static const struct {
		const char *line;
		const char *message;
	} cases[] = {
		{ "{\"topic\":\"orders\",\"topc\":1}",
		  "unknown field \"topc\" (expected topic, partition, offset, timestamp, key, value, key_base64, "
		  "value_base64, headers)" },
		{ "{\"partition\":1}", "missing field \"topic\"" },
		{ "{\"topic\":\"nope\"}", "no source of application test-app reads topic \"nope\"" },
		{ "{\"topic\":\"orders\",\"partition\":-1}", "\"partition\" must not be negative" },
		{ "{\"topic\":\"orders\",\"partition\":1.5}", "field partition: number 1.5 at byte 30 is not an integer (i32 expected)" },
		{ "{\"topic\":\"orders\",\"key\":5}", "\"key\" must be a string or null for its source's text format" },
		{ "{\"topic\":\"counts\",\"key\":3000000000}", "field key: number at byte 24 is out of range for i32" },
		{ "{\"topic\":\"counts\",\"key\":true}",
		  "\"key\" must be a number, a string or null for its source's i32 format" },
		{ "{\"topic\":\"orders\",\"key\":\"a\",\"key_base64\":\"YQ==\"}",
		  "give \"key\" or \"key_base64\", not both" },
		{ "{\"topic\":\"orders\",\"value_base64\":\"@@\"}", "\"value_base64\" is not valid base64" },
		{ "{\"topic\":\"orders\",\"topic\":\"orders\"}", "field \"topic\" given twice" },
		{ "{\"topic\":\"orders\",\"headers\":{\"a\":1}}", "field headers.a: expected a string at byte 33, got a number" },
		{ "{\"topic\":\"orders\"} x", "invalid JSON at byte 19: expected the end of the input" },
		{ "[1]", "expected an object at byte 0, got an array" },
		{ "x", "invalid JSON at byte 0: expected '{'" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[512];
		snprintf(text, sizeof text, "{\"topic\":\"counts\",\"value\":1}\n%s\n", cases[i].line);
		const char *in = write_file("bad.jsonl", text);
		const char *args[] = { "replay", "-o", tmp_path("o"), in, NULL };
		ck_assert_int_eq(run_main(args), STOAT_EXIT_IO);
		char want[1024];
		snprintf(want, sizeof want, "%s:2: error: %s\n", in, cases[i].message);
		ck_assert_str_eq(captured_err, want);
	}
	const char *args[] = { "replay", tmp_path("does-not-exist"), NULL };
	ck_assert_int_eq(run_main(args), STOAT_EXIT_IO);
	ck_assert_ptr_nonnull(strstr(captured_err, "cannot open"));
}
END_TEST

/* Command-line errors exit 2; --version, describe and run behave. */
START_TEST(test_command_line)
{
	const char *none[] = { NULL };
	ck_assert_int_eq(run_main(none), STOAT_EXIT_USAGE);
	const char *version[] = { "--version", NULL };
	ck_assert_int_eq(run_main(version), 0);
	ck_assert_str_eq(captured_out, "test-app (stoat runtime 0.1.0)\n");
	const char *help[] = { "--help", NULL };
	ck_assert_int_eq(run_main(help), 0);
	ck_assert_ptr_nonnull(strstr(captured_out, "replay [options] INPUT..."));
	const char *rhelp[] = { "replay", "-h", NULL };
	ck_assert_int_eq(run_main(rhelp), 0);
	ck_assert_ptr_nonnull(strstr(captured_out, "--partitions TOPIC=N"));
	/* run without a cluster to connect to is a usage error, named as such. */
	unsetenv("STOAT_BOOTSTRAP_SERVERS");
	unsetenv("STOAT_CONFIG");
	const char *run[] = { "run", NULL };
	ck_assert_int_eq(run_main(run), STOAT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(captured_err, "no Kafka cluster given"));
	const char *run_bad[] = { "run", "-b", "127.0.0.1:1", "--guarantee", "twice", NULL };
	ck_assert_int_eq(run_main(run_bad), STOAT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(captured_err, "guarantee must be at_least_once or exactly_once"));
	const char *bogus[] = { "frobnicate", NULL };
	ck_assert_int_eq(run_main(bogus), STOAT_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(captured_err, "unknown command 'frobnicate'"));
	const char *bad_cases[][4] = {
		{ "replay", NULL },
		{ "replay", "--on-error", "maybe", NULL },
		{ "replay", "--batch", "0", NULL },
		{ "replay", "--batch", NULL },
		{ "replay", "--partitions", "x=0", NULL },
		{ "replay", "--partitions", "=3", NULL },
		{ "replay", "--frob", "x", NULL },
		{ "replay", "-o", NULL },
	};
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		ck_assert_int_eq(run_main(bad_cases[i]), STOAT_EXIT_USAGE);
		ck_assert_ptr_nonnull(strstr(captured_err, "test-app: error: "));
	}
	const char *describe[] = { "describe", NULL };
	ck_assert_int_eq(run_main(describe), 0);
	ck_assert_str_eq(captured_out,
			 "application      test-app\n"
			 "source file      test.stoat\n"
			 "guarantee        exactly_once\n"
			 "commit interval  100 ms\n"
			 "on error         fail\n"
			 "sources (2):\n"
			 "  orders           topic orders                   key text  value json  on error fail (application's)\n"
			 "  counts           topic counts                   key i32   value i64   on error fail (application's)\n"
			 "sinks (3):\n"
			 "  0   topic big-orders               key text  value json\n"
			 "  1   topic (per record)             key i64   value f64\n"
			 "  2   topic counts-out               key i32   value i64\n");
}
END_TEST

/* An empty input file and stdin-less runs produce no output and exit 0. */
START_TEST(test_empty_input)
{
	const char *in = write_file("empty.jsonl", "");
	const char *blank = write_file("blank.jsonl", "\n\n  \n");
	const char *out = tmp_path("out.jsonl");
	const char *args[] = { "replay", "-o", out, "--stats", in, blank, NULL };
	ck_assert_int_eq(run_main(args), 0);
	char *got = read_file(out);
	ck_assert_str_eq(got, "");
	free(got);
	ck_assert_str_eq(captured_err, "test-app: records in 0, out 0, failed 0, skipped 0, dead-lettered 0\n");
}
END_TEST

/*
 * Across partitions the head with the smallest timestamp goes first
 * (p2@50, p2@70 before p1@100), within a partition offset order (p1@30
 * after p1@100).
 */
START_TEST(test_order_smallest_head)
{
	const char *in = write_file("in.jsonl",
				    "{\"topic\":\"counts\",\"partition\":1,\"value\":1,\"timestamp\":100}\n"
				    "{\"topic\":\"counts\",\"partition\":2,\"value\":1,\"timestamp\":50}\n"
				    "{\"topic\":\"counts\",\"partition\":1,\"value\":1,\"timestamp\":30}\n"
				    "{\"topic\":\"counts\",\"partition\":2,\"value\":1,\"timestamp\":70}\n");
	const char *args[] = { "replay", "-o", tmp_path("o"), in, NULL };
	ck_assert_int_eq(run_main(args), 0);
	ck_assert_str_eq(batch_log, "counts/2@0,1;counts/1@0,1;");
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("runtime_replay");
	TCase *tc = tcase_create("replay");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_replay_end_to_end);
	tcase_add_test(tc, test_batch_limit);
	tcase_add_test(tc, test_fail_policy);
	tcase_add_test(tc, test_skip_policy);
	tcase_add_test(tc, test_output_presentation);
	tcase_add_test(tc, test_envelope_errors);
	tcase_add_test(tc, test_command_line);
	tcase_add_test(tc, test_empty_input);
	tcase_add_test(tc, test_order_smallest_head);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(replay_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
