/*
 * Unit tests for the Kafka commands' settings (config*.c): the YAML layout
 * the --config file accepts (top-level settings, the kafka:, consumer: and
 * producer: sections, quoting, comments, long lines, lists, flow style,
 * booleans, nulls), the order in which layers override each other, the
 * flag forms, duplicates, "did you mean", the origins and `config print`,
 * and the errors, each at its file:line:col and never showing a secret.  The expected values are worked out by hand
 * from docs/kafka-driver.md.
 */
#include "internal.h"

#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TMPDIR_TEMPLATE "/tmp/stoat-config-XXXXXX"
#define TMPDIR_DB "unused"
#include "tmpdir.h"

static const stoat_app app = {
	.app_id = "config-test",
	.guarantee = STOAT_AT_LEAST_ONCE,
	.commit_interval_ms = 250,
};

static stoat_kafka_options opt;
static char **rest;
static char cfg_path[128];
static char captured_err[8192]; /* what configure printed */

static void setup(void)
{
	make_dirs();
	snprintf(cfg_path, sizeof cfg_path, "%s/cfg.yaml", tmp_root);
	/* Nothing of the environment may configure what these tests read. */
	extern char **environ;
	for (size_t i = 0; environ[i];)
		if (strncmp(environ[i], "STOAT_", 6) == 0) {
			char name[256];
			snprintf(name, sizeof name, "%.*s", (int)strcspn(environ[i], "="), environ[i]);
			unsetenv(name);
		} else {
			i++;
		}
	rest = NULL;
}

static void teardown(void)
{
	if (rest)
		stoat_kafka_options_free(&opt, rest);
	rest = NULL;
	remove_dirs();
}

/* Writes the configuration file. */
static void write_config(const char *text)
{
	size_t n = strlen(text);
	FILE *f = fopen(cfg_path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * Runs stoat_kafka_configure for `run` with the arguments given (NULL
 * ended), stderr captured in captured_err; returns its status.
 */
static int configure(const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *)) {
		ck_assert_int_lt(argc, 31);
		argv[argc++] = (char *)a;
	}
	va_end(ap);
	argv[argc] = NULL;
	if (rest)
		stoat_kafka_options_free(&opt, rest);
	char err_path[128];
	snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmp_root);
	fflush(stderr);
	int saved = dup(2);
	int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	dup2(fd, 2);
	close(fd);
	int nrest = 0;
	int status = stoat_kafka_configure(&app, "app", "run", argc, argv, &opt, &rest, &nrest);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(err_path, "rb");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(captured_err, 1, sizeof captured_err - 1, f);
	captured_err[n] = '\0';
	fclose(f);
	return status;
}

/* The value of property name, NULL when it is not set. */
static const char *prop(const char *name)
{
	for (size_t i = 0; i < opt.prop_count; i++)
		if (strcmp(opt.props[i].name, name) == 0)
			return opt.props[i].value;
	return NULL;
}

/* Writes text as the file, configures with it; asserts the one error line. */
static void expect_error(const char *text, const char *want)
{
	write_config(text);
	ck_assert_int_eq(configure("-b", "127.0.0.1:1", "--config", cfg_path, NULL), STOAT_EXIT_USAGE);
	char line[1536];
	snprintf(line, sizeof line, "app: error: %s\n", want);
	ck_assert_str_eq(captured_err, line);
}

/* The layout docs/kafka-driver.md shows, every setting and section. */
START_TEST(test_documented_layout)
{
	const char *text = "# app.yaml\n"
			   "bootstrap_servers: broker-1:9092,broker-2:9092\n"
			   "guarantee: exactly_once\n"
			   "commit_interval: 100ms\n"
			   "instance_id: orders-1          # see \"Instances\" below\n"
			   "static_membership: true\n"
			   "on_error: dlq orders-dlq\n"
			   "batch_size: 500\n"
			   "idle_exit: 5s\n"
			   "state_dir: /var/lib/stoat      # stores in <state_dir>/<app-id>/<instance-id>\n"
			   "memory: low\n"
			   "state_memory: 512M\n"
			   "cache_max_bytes: 10M\n"
			   "repartition_purge_interval: 1m\n"
			   "on_state_mismatch: rebuild-changelog\n"
			   "shutdown_timeout: 7s\n"
			   "http: 9464                     # the operations endpoint, on 127.0.0.1\n"
			   "http_ready_max_lag: 1000\n"
			   "kafka:                         # librdkafka properties for both clients\n"
			   "  security.protocol: plaintext\n"
			   "consumer:\n"
			   "  fetch.wait.max.ms: 50\n"
			   "producer:\n"
			   "  linger.ms: 10\n";
	write_config(text);
	ck_assert_int_eq(configure("--config", cfg_path, NULL), 0);
	ck_assert_str_eq(captured_err, "");
	ck_assert_str_eq(opt.bootstrap_servers, "broker-1:9092,broker-2:9092");
	ck_assert_int_eq(opt.guarantee, STOAT_EXACTLY_ONCE);
	ck_assert_int_eq(opt.commit_interval_ms, 100);
	ck_assert_str_eq(opt.instance_id, "orders-1");
	ck_assert(opt.static_membership);
	ck_assert_int_eq(opt.policy_override, STOAT_POLICY_DLQ);
	ck_assert_str_eq(opt.dlq_override, "orders-dlq");
	ck_assert_uint_eq(opt.batch_max, 500);
	ck_assert_int_eq(opt.idle_exit_ms, 5000);
	ck_assert_str_eq(opt.state_dir, "/var/lib/stoat");
	ck_assert_int_eq(opt.memory, STOAT_MEMORY_LOW);
	ck_assert_uint_eq(opt.memory_budget, (size_t)512 << 20);
	ck_assert_uint_eq(opt.cache_max_bytes, (size_t)10 << 20);
	ck_assert_int_eq(opt.purge_interval_ms, 60000);
	ck_assert_int_eq(opt.on_state_mismatch, STOAT_MISMATCH_REBUILD_CHANGELOG);
	ck_assert_int_eq(opt.shutdown_timeout_ms, 7000);
	ck_assert_str_eq(opt.http_address, "127.0.0.1");
	ck_assert_int_eq(opt.http_port, 9464);
	ck_assert_int_eq(opt.http_ready_max_lag, 1000);
	ck_assert_uint_eq(opt.prop_count, 3);
	ck_assert_str_eq(prop("security.protocol"), "plaintext");
	ck_assert_str_eq(prop("consumer.fetch.wait.max.ms"), "50");
	ck_assert_str_eq(prop("producer.linger.ms"), "10");
}
END_TEST

/* Without a file, the app header's defaults and the driver's. */
START_TEST(test_defaults)
{
	ck_assert_int_eq(configure("-b", "h:1", NULL), 0);
	ck_assert_int_eq(opt.guarantee, STOAT_AT_LEAST_ONCE);
	ck_assert_int_eq(opt.commit_interval_ms, 250);
	ck_assert_ptr_null(opt.instance_id);
	ck_assert_ptr_null(opt.state_dir);
	ck_assert_uint_eq(opt.batch_max, 1000);
	ck_assert_int_eq(opt.purge_interval_ms, 30000);
	ck_assert_int_eq(opt.http_port, -1); /* the endpoint is off unless asked for */
	ck_assert_int_eq(opt.http_ready_max_lag, -1);
	ck_assert_uint_eq(opt.prop_count, 0);
}
END_TEST

/* The endpoint's settings: each layer, and what they refuse. */
START_TEST(test_http_settings)
{
	setenv("STOAT_HTTP", "0.0.0.0:8080", 1);
	ck_assert_int_eq(configure("-b", "h:1", NULL), 0);
	ck_assert_str_eq(opt.http_address, "0.0.0.0");
	ck_assert_int_eq(opt.http_port, 8080);
	ck_assert_int_eq(configure("-b", "h:1", "--http", "off", NULL), 0);
	ck_assert_int_eq(opt.http_port, -1);
	unsetenv("STOAT_HTTP");
	ck_assert_int_eq(configure("-b", "h:1", "--http", "[::1]:0", "--http-ready-max-lag", "0", NULL), 0);
	ck_assert_str_eq(opt.http_address, "::1");
	ck_assert_int_eq(opt.http_port, 0);
	ck_assert_int_eq(opt.http_ready_max_lag, 0);
	ck_assert_int_eq(configure("-b", "h:1", "--http", "localhost:80", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: --http: http must be off, PORT (on 127.0.0.1), ADDRESS:PORT or "
				       "[IPV6]:PORT, with PORT from 0 (any free one) to 65535, not 'localhost:80'\n");
	ck_assert_int_eq(configure("-b", "h:1", "--http-ready-max-lag", "-5", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: --http-ready-max-lag: http_ready_max_lag must be a number of "
				       "records (0 or more) or none, not '-5'\n");
}
END_TEST

/* Quotes keep what is inside ('#' too), comments and blank lines go, CRLF is a line end. */
START_TEST(test_quotes_and_comments)
{
	const char *text = "\r\n"
			   "# a comment\r\n"
			   "bootstrap_servers: 'h:1'   # quoted\r\n"
			   "instance_id: \"a # b\"\r\n"
			   "state_dir: '/srv/st oat'\r\n"
			   "\r\n"
			   "kafka:\r\n"
			   "  # a comment inside a section\r\n"
			   "  client.rack: \"rack #1\"\r\n"
			   "  sasl.username: \"\"\r\n";
	write_config(text);
	ck_assert_int_eq(configure("--config", cfg_path, NULL), 0);
	ck_assert_str_eq(opt.bootstrap_servers, "h:1");
	ck_assert_str_eq(opt.instance_id, "a # b");
	ck_assert_str_eq(opt.state_dir, "/srv/st oat");
	ck_assert_str_eq(prop("client.rack"), "rack #1");
	ck_assert_str_eq(prop("sasl.username"), "");
}
END_TEST

/* An empty file, or one of comments, or an empty section, sets nothing. */
START_TEST(test_empty_files)
{
	const char *texts[] = { "", "# nothing\n\n", "---\n", "kafka:\nconsumer:\n" };
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		write_config(texts[i]);
		ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, NULL), 0);
		ck_assert_str_eq(captured_err, "");
		ck_assert_uint_eq(opt.prop_count, 0);
		ck_assert_int_eq(opt.guarantee, STOAT_AT_LEAST_ONCE);
	}
}
END_TEST

/* A line far over 4,095 bytes is one line, its value whole. */
START_TEST(test_long_line)
{
	size_t n = 5000;
	char *text = malloc(n + 64);
	ck_assert_ptr_nonnull(text);
	int k = snprintf(text, 64, "instance_id: ");
	memset(text + k, 'a', n);
	snprintf(text + k + n, 64, "\nbootstrap_servers: h:1\n");
	write_config(text);
	free(text);
	ck_assert_int_eq(configure("--config", cfg_path, NULL), 0);
	ck_assert_uint_eq(strlen(opt.instance_id), n);
	ck_assert_str_eq(opt.bootstrap_servers, "h:1");
}
END_TEST

/* Later layers win: the environment over the file, the flags over both. */
START_TEST(test_layers)
{
	const char *text = "guarantee: exactly_once\n"
			   "bootstrap_servers: file:1\n"
			   "kafka:\n"
			   "  linger.ms: 7\n";
	write_config(text);
	setenv("STOAT_KAFKA_LINGER_MS", "8", 1);
	setenv("STOAT_GUARANTEE", "at_least_once", 1);
	ck_assert_int_eq(configure("--config", cfg_path, NULL), 0);
	ck_assert_int_eq(opt.guarantee, STOAT_AT_LEAST_ONCE);
	ck_assert_str_eq(prop("linger.ms"), "8");
	ck_assert_int_eq(configure("--config", cfg_path, "--guarantee", "exactly_once", NULL), 0);
	ck_assert_int_eq(opt.guarantee, STOAT_EXACTLY_ONCE);
	ck_assert_int_eq(configure("--config", cfg_path, "-b", "flag:1", "-X", "linger.ms=9", NULL), 0);
	ck_assert_str_eq(opt.bootstrap_servers, "flag:1");
	ck_assert_str_eq(prop("linger.ms"), "9");
	/* A bad value overridden by a later layer is no error: the one used is checked. */
	write_config("kafka:\n  linger.ms: never\n");
	unsetenv("STOAT_KAFKA_LINGER_MS");
	ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, "-X", "linger.ms=9", NULL), 0);
	ck_assert_str_eq(prop("linger.ms"), "9");
}
END_TEST

/* Every error names file:line:col (from 1): at the key, the value, or where YAML broke. */
START_TEST(test_errors_at_their_place)
{
	char want[1024];
#define AT(pos, msg) (snprintf(want, sizeof want, "%s:%s: %s", cfg_path, pos, msg), want)
	expect_error("guarantee: exactly_once\ncolour: x\n",
		     AT("2:1", "unknown setting 'colour' (settings: bootstrap_servers, guarantee, commit_interval, "
			       "instance_id, static_membership, on_error, batch_size, idle_exit, max_task_idle, memory, state_dir, "
			       "state_memory, cache_max_bytes, on_state_mismatch, repartition_purge_interval, shutdown_timeout, "
			       "http, http_ready_max_lag, log_level, log_format, log_report_interval, schema_registry_url, "
			       "schema_registry_user, schema_registry_password, schema_registry_token, schema_registry_ca_file, "
			       "schema_registry_auto_register, schema_registry_subject_strategy, schema_registry_timeout; "
			       "librdkafka properties go "
			       "under kafka:, consumer: or producer:)"));
	expect_error("commit_interval:   soon\n",
		     AT("1:20", "commit interval must be a positive duration (100ms, 5s), not 'soon'"));
	expect_error("guarantee: exactly_once: yes\n", AT("1:24", "mapping values are not allowed in this context"));
	expect_error("guarantee: \"exactly_once\n",
		     AT("2:1", "found unexpected end of stream (while scanning a quoted scalar at 1:12)"));
	expect_error("kafka:\n  linger.ms: 1\n socket.timeout.ms: 2\n",
		     AT("3:2", "did not find expected key (while parsing a block mapping at 1:1)"));
	expect_error("kafka:\n  linger.ms: [1, 2]\n", AT("2:14", "Kafka property linger.ms takes one value, not a list"));
	expect_error("kafka:\n  linger.ms:\n    deeper: 1\n",
		     AT("3:5", "Kafka property linger.ms takes one value, not a mapping"));
	expect_error("kafka: 10\n", AT("1:8", "kafka: takes librdkafka properties, one per line indented under it"));
	expect_error("sections:\n  x: 1\n", AT("1:1", "unknown section 'sections' (kafka, consumer or producer)"));
	expect_error("guarantee:\n", AT("1:1", "guarantee needs a value"));
	expect_error("- guarantee\n", AT("1:1", "expected settings, one 'key: value' per line"));
	expect_error("state_dir: \"a\\0b\"\n", AT("1:12", "the setting's value cannot hold a NUL character"));
	expect_error("guarantee: exactly_once\n---\nguarantee: at_least_once\n",
		     AT("3:1", "a configuration file holds one YAML document, this is a second one"));
	expect_error("producer:\n  acks: maybe\n",
		     AT("2:3", "Kafka property acks=maybe: Invalid value for configuration property "
			       "\"request.required.acks\""));
#undef AT
}
END_TEST

/* A directory, or a file that is not there, is named with the reason. */
START_TEST(test_unreadable_file)
{
	char want[1024];
	ck_assert_int_eq(configure("-b", "h:1", "--config", tmp_root, NULL), STOAT_EXIT_USAGE);
	snprintf(want, sizeof want, "app: error: cannot read configuration %s: Is a directory\n", tmp_root);
	ck_assert_str_eq(captured_err, want);
	ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, NULL), STOAT_EXIT_USAGE);
	snprintf(want, sizeof want, "app: error: cannot read configuration %s: No such file or directory\n", cfg_path);
	ck_assert_str_eq(captured_err, want);
}
END_TEST

/* Secrets: refused properties are named, their values never shown when secret or unknown. */
START_TEST(test_secrets_never_shown)
{
	char want[1024];
	write_config("kafka:\n  sasl.passwrod: hunter2\n");
	ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, NULL), STOAT_EXIT_USAGE);
	snprintf(want, sizeof want,
		 "app: error: %s:2:3: Kafka property sasl.passwrod (value not shown): No such configuration property: "
		 "\"sasl.passwrod\"\n",
		 cfg_path);
	ck_assert_str_eq(captured_err, want);
	setenv("STOAT_KAFKA_SASL_PASSWD", "hunter2", 1);
	ck_assert_int_eq(configure("-b", "h:1", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: STOAT_KAFKA_SASL_PASSWD: Kafka property sasl.passwd (value not "
				       "shown): No such configuration property: \"sasl.passwd\"\n");
	unsetenv("STOAT_KAFKA_SASL_PASSWD");
	ck_assert_int_eq(configure("-b", "h:1", "-X", "consumer.sasl.jaas.config=x password=\"hunter2\";", NULL),
			 STOAT_EXIT_USAGE);
	ck_assert_ptr_null(strstr(captured_err, "hunter2"));
	ck_assert_ptr_nonnull(strstr(captured_err, "app: error: -X: Kafka property sasl.jaas.config (value not shown): "));
	ck_assert_int_eq(configure("-b", "h:1", "--ssl-key-password=hunter2", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: unknown option '--ssl-key-password'\nTry 'app run --help'.\n");
}
END_TEST

/* Which property names hide their values. */
START_TEST(test_secret_names)
{
	const char *secret[] = { "sasl.password", "sasl.passwd", "ssl.key.password", "ssl.key.pem", "ssl_key",
				 "ssl.keystore.password", "ssl.keystore.location", "sasl.oauthbearer.client.secret",
				 "sasl.oauthbearer.config", "sasl.jaas.config", "SASL.PASSWORD", "producer.sasl.password",
				 "sasl.kerberos.keytab", "ssl.certificate.pem", "my.token", "x.credentials" };
	for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
		ck_assert_msg(stoat_kafka_prop_is_secret(secret[i]), "%s", secret[i]);
	const char *plain[] = { "linger.ms", "acks", "sasl.username", "sasl.mechanism", "security.protocol",
				"bootstrap.servers", "client.id", "consumer.fetch.wait.max.ms" };
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
		ck_assert_msg(!stoat_kafka_prop_is_secret(plain[i]), "%s", plain[i]);
}
END_TEST

/* librdkafka's messages lose every secret value of the options, whatever its length. */
START_TEST(test_redact)
{
	write_config("kafka:\n  sasl.password: hunter2\n  sasl.username: ab\n  ssl.key.password: ab\n");
	ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, NULL), 0);
	char msg[128] = "login hunter2 failed for ab (hunter2hunter2)";
	stoat_kafka_redact(&opt, msg);
	ck_assert_str_eq(msg, "login *** failed for ** (******)");
}
END_TEST

/* Writes text as the file, configures with it; asserts the error lines (several, in order). */
static void expect_errors(const char *text, const char *want)
{
	write_config(text);
	ck_assert_int_eq(configure("-b", "127.0.0.1:1", "--config", cfg_path, NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, want);
}

/* The origin configure kept for a setting, NULL for the default. */
static const char *origin(const char *setting)
{
	int i = stoat_setting_find(setting);
	ck_assert_int_ge(i, 0);
	return opt.origin[i];
}

/* A key twice is an error at the second, naming the first's place. */
START_TEST(test_duplicate_setting)
{
	char want[512];
	snprintf(want, sizeof want, "app: error: %s:3:1: duplicate setting 'guarantee' (first at %s:2:1)\n", cfg_path,
		 cfg_path);
	expect_errors("bootstrap_servers: h:1\nguarantee: exactly_once\nguarantee: at_least_once\n", want);
}
END_TEST

/* Two names of one setting are one setting written twice. */
START_TEST(test_duplicate_alias)
{
	char want[512];
	snprintf(want, sizeof want,
		 "app: error: %s:2:1: duplicate setting 'commit_interval_ms' (first at %s:1:1 as 'commit_interval')\n",
		 cfg_path, cfg_path);
	expect_errors("commit_interval: 1s\ncommit_interval_ms: 5\n", want);
	snprintf(want, sizeof want,
		 "app: error: %s:3:1: duplicate setting 'idle_exit' (first at %s:1:1 as 'idle_exit_ms')\n", cfg_path,
		 cfg_path);
	expect_errors("idle_exit_ms: 5\nguarantee: exactly_once\nidle_exit: 5s\n", want);
}
END_TEST

/* A property twice for the same client: in one section, or kafka:'s consumer.X and consumer:'s X. */
START_TEST(test_duplicate_property)
{
	char want[512];
	snprintf(want, sizeof want, "app: error: %s:3:3: duplicate Kafka property 'linger.ms' (first at %s:2:3)\n",
		 cfg_path, cfg_path);
	expect_errors("kafka:\n  linger.ms: 1\n  linger.ms: 2\n", want);
	snprintf(want, sizeof want,
		 "app: error: %s:4:3: duplicate Kafka property 'consumer.fetch.wait.max.ms' (first at %s:2:3)\n",
		 cfg_path, cfg_path);
	expect_errors("kafka:\n  consumer.fetch.wait.max.ms: 5\nconsumer:\n  fetch.wait.max.ms: 6\n", want);
	snprintf(want, sizeof want, "app: error: %s:3:1: duplicate section 'kafka' (first at %s:1:1)\n", cfg_path,
		 cfg_path);
	expect_errors("kafka:\n  linger.ms: 1\nkafka: {acks: all}\n", want);
}
END_TEST

/* producer: and consumer: override kafka:'s property for their client: no duplicate. */
START_TEST(test_client_section_overrides)
{
	write_config("kafka: {linger.ms: 5, fetch.wait.max.ms: 7}\nproducer:\n  linger.ms: 10\nconsumer:\n  "
		     "fetch.wait.max.ms: 50\n");
	ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, NULL), 0);
	ck_assert_str_eq(captured_err, "");
	ck_assert_str_eq(prop("linger.ms"), "5");
	ck_assert_str_eq(prop("producer.linger.ms"), "10");
	ck_assert_str_eq(prop("fetch.wait.max.ms"), "7");
	ck_assert_str_eq(prop("consumer.fetch.wait.max.ms"), "50");
}
END_TEST

/* bootstrap_servers takes a list, flow or block, joined with commas. */
START_TEST(test_bootstrap_list)
{
	write_config("bootstrap_servers: [a:9092, b:9092]\n");
	ck_assert_int_eq(configure("--config", cfg_path, NULL), 0);
	ck_assert_str_eq(opt.bootstrap_servers, "a:9092,b:9092");
	write_config("bootstrap_servers:\n  - a:1\n  - 'b:2'\n  - c:3\n");
	ck_assert_int_eq(configure("--config", cfg_path, NULL), 0);
	ck_assert_str_eq(opt.bootstrap_servers, "a:1,b:2,c:3");
}
END_TEST

/* A list for any other setting, or an empty one, is refused. */
START_TEST(test_list_elsewhere)
{
	char want[512];
#define AT(pos, msg) (snprintf(want, sizeof want, "%s:%s: %s", cfg_path, pos, msg), want)
	expect_error("guarantee: [exactly_once]\n", AT("1:12", "guarantee takes one value, not a list"));
	expect_error("instance_id:\n  - a\n  - b\n", AT("2:3", "instance_id takes one value, not a list"));
	expect_error("bootstrap_servers: []\n", AT("1:1", "bootstrap_servers needs a value"));
	expect_error("bootstrap_servers: [a:1, {b: 2}]\n", AT("1:26", "expected one value of the list here, not a mapping"));
	expect_error("guarantee: {exactly: once}\n", AT("1:12", "guarantee takes one value, not a mapping"));
#undef AT
}
END_TEST

/* Booleans as YAML 1.1 people write them, any case, from every layer; one parser. */
START_TEST(test_booleans)
{
	const char *yes[] = { "true", "True", "TRUE", "yes", "Yes", "on", "ON", "1" };
	const char *no[] = { "false", "False", "no", "NO", "off", "Off", "0" };
	char text[128];
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		snprintf(text, sizeof text, "static_membership: %s\n", yes[i]);
		write_config(text);
		ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, NULL), 0);
		ck_assert_msg(opt.static_membership, "%s", yes[i]);
	}
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		setenv("STOAT_STATIC_MEMBERSHIP", no[i], 1);
		ck_assert_int_eq(configure("-b", "h:1", NULL), 0);
		ck_assert_msg(!opt.static_membership, "%s", no[i]);
	}
	setenv("STOAT_STATIC_MEMBERSHIP", "Yes", 1);
	ck_assert_int_eq(configure("-b", "h:1", "--static-membership=OFF", NULL), 0);
	ck_assert(!opt.static_membership);
	unsetenv("STOAT_STATIC_MEMBERSHIP");
	ck_assert_int_eq(configure("-b", "h:1", "--static-membership", NULL), 0);
	ck_assert(opt.static_membership);
	ck_assert_int_eq(configure("-b", "h:1", "--static-membership=maybe", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err,
			 "app: error: --static-membership: static_membership must be true or false, not 'maybe'\n");
	char want[512];
	snprintf(want, sizeof want, "%s:1:20: static_membership must be true or false, not 'y'", cfg_path);
	expect_error("static_membership: y\n", want);
}
END_TEST

/* A null value, however YAML writes it, is no value: refused at the key. */
START_TEST(test_null_is_no_value)
{
	char want[512];
	const char *texts[] = { "guarantee:\n", "guarantee: ~\n", "guarantee: null\n", "guarantee: NULL\n" };
	snprintf(want, sizeof want, "%s:1:1: guarantee needs a value", cfg_path);
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		expect_error(texts[i], want);
	snprintf(want, sizeof want, "%s:1:14: instance_id needs a value", cfg_path); /* at the value: there is one */
	expect_error("instance_id: ''\n", want);
	snprintf(want, sizeof want, "%s:2:3: Kafka property linger.ms needs a value", cfg_path);
	expect_error("kafka:\n  linger.ms: ~\n", want);
	/* A quoted "null" is the text null. */
	write_config("instance_id: 'null'\n");
	ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, NULL), 0);
	ck_assert_str_eq(opt.instance_id, "null");
}
END_TEST

/* on_error's dead-letter topic, written every way, has no blanks around it. */
START_TEST(test_on_error_forms)
{
	const char *texts[] = { "on_error: dlq:orders-dlq\n", "on_error: 'dlq: orders-dlq'\n",
				"on_error: dlq orders-dlq\n", "on_error: \"dlq  :  orders-dlq  \"\n",
				"on_error: {dlq: orders-dlq}\n", "on_error:\n  dlq: orders-dlq\n" };
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		write_config(texts[i]);
		ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, NULL), 0);
		ck_assert_int_eq(opt.policy_override, STOAT_POLICY_DLQ);
		ck_assert_str_eq(opt.dlq_override, "orders-dlq");
	}
	setenv("STOAT_ON_ERROR", "dlq: env-dlq", 1);
	ck_assert_int_eq(configure("-b", "h:1", NULL), 0);
	ck_assert_str_eq(opt.dlq_override, "env-dlq");
	unsetenv("STOAT_ON_ERROR");
	ck_assert_int_eq(configure("-b", "h:1", "--on-error", "dlq flag-dlq", NULL), 0);
	ck_assert_str_eq(opt.dlq_override, "flag-dlq");
	ck_assert_int_eq(configure("-b", "h:1", "--on-error=dlq: flag-dlq", NULL), 0);
	ck_assert_str_eq(opt.dlq_override, "flag-dlq");
	ck_assert_int_eq(configure("-b", "h:1", "--on-error=skip", NULL), 0);
	ck_assert_int_eq(opt.policy_override, STOAT_POLICY_SKIP);
	char want[512];
	snprintf(want, sizeof want, "%s:1:12: on_error takes one value or {dlq: VALUE}, not {skip: ...}", cfg_path);
	expect_error("on_error: {skip: x}\n", want);
	snprintf(want, sizeof want, "%s:1:11: on_error must be fail, skip or dlq:TOPIC, not 'dlq: '", cfg_path);
	expect_error("on_error: 'dlq: '\n", want);
	snprintf(want, sizeof want,
		 "%s:1:17: invalid dead-letter topic name 'a b' (Kafka topic names are 1 to 249 of a-z A-Z 0-9 . _ -, "
		 "and not . or ..)",
		 cfg_path);
	expect_error("on_error: {dlq: a b}\n", want);
}
END_TEST

/* An unknown key close to a known one names it; far from all, the list. */
START_TEST(test_did_you_mean_yaml)
{
	char want[512];
#define AT(pos, msg) (snprintf(want, sizeof want, "%s:%s: %s", cfg_path, pos, msg), want)
	expect_error("guarante: exactly_once\n", AT("1:1", "unknown setting 'guarante' (did you mean 'guarantee'?)"));
	expect_error("comit_interval_ms: 5\n",
		     AT("1:1", "unknown setting 'comit_interval_ms' (did you mean 'commit_interval_ms'?)"));
	expect_error("bootstrap: h:1\n", AT("1:1", "unknown setting 'bootstrap' (did you mean 'bootstrap_servers'?)"));
	expect_error("kafak:\n  linger.ms: 1\n", AT("1:1", "unknown section 'kafak' (did you mean 'kafka'?)"));
#undef AT
}
END_TEST

/* A STOAT_* variable one or two letters from a setting's is refused; others are not stoat's business. */
START_TEST(test_did_you_mean_env)
{
	setenv("STOAT_GUARANTE", "exactly_once", 1);
	ck_assert_int_eq(configure("-b", "h:1", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err,
			 "app: error: unknown environment variable 'STOAT_GUARANTE' (did you mean 'STOAT_GUARANTEE'?)\n");
	unsetenv("STOAT_GUARANTE");
	setenv("STOAT_CONFIGS", "x", 1);
	ck_assert_int_eq(configure("-b", "h:1", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err,
			 "app: error: unknown environment variable 'STOAT_CONFIGS' (did you mean 'STOAT_CONFIG'?)\n");
	unsetenv("STOAT_CONFIGS");
	/* The variables of stoatc, the test scripts and scripts/kafka. */
	const char *others[] = { "STOAT_CFLAGS", "STOAT_E2E_CFLAGS", "STOAT_BROKER_PORT", "STOAT_BROKER_VERSION",
				 "STOAT_TEST_KAFKA_PORT", "STOAT_RUNTIME_DIR", "STOAT_INCLUDE_DIR", "STOAT_CACHE_DIR" };
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
		setenv(others[i], "1", 1);
	ck_assert_int_eq(configure("-b", "h:1", NULL), 0);
	ck_assert_str_eq(captured_err, "");
}
END_TEST

/* An unknown flag close to a flag names it; abbreviations are no flags. */
START_TEST(test_did_you_mean_flag)
{
	ck_assert_int_eq(configure("-b", "h:1", "--gaurantee", "exactly_once", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err,
			 "app: error: unknown option '--gaurantee' (did you mean '--guarantee'?)\nTry 'app run --help'.\n");
	ck_assert_int_eq(configure("-b", "h:1", "--guarante=exactly_once", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err,
			 "app: error: unknown option '--guarante' (did you mean '--guarantee'?)\nTry 'app run --help'.\n");
	ck_assert_int_eq(configure("-b", "h:1", "--repartition", "1s", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: unknown option '--repartition' (did you mean "
				       "'--repartition-purge-interval'?)\nTry 'app run --help'.\n");
	ck_assert_int_eq(configure("-b", "h:1", "--colour", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: unknown option '--colour'\nTry 'app run --help'.\n");
}
END_TEST

/* Every flag form: --name=value, -bVALUE, -XP=V, switches, and "--" ending the options. */
START_TEST(test_flag_forms)
{
	ck_assert_int_eq(configure("--bootstrap-servers=h:2", "--guarantee=exactly_once", "--batch", "7",
				   "-Xlinger.ms=3", "-X", "acks=all", "--stats", "--", "--guarantee", "at_least_once",
				   NULL),
			 0);
	ck_assert_str_eq(opt.bootstrap_servers, "h:2");
	ck_assert_int_eq(opt.guarantee, STOAT_EXACTLY_ONCE);
	ck_assert_uint_eq(opt.batch_max, 7);
	ck_assert_str_eq(prop("linger.ms"), "3");
	ck_assert_str_eq(prop("acks"), "all");
	ck_assert(opt.stats);
	ck_assert_str_eq(rest[0], "--guarantee");
	ck_assert_str_eq(rest[1], "at_least_once");
	ck_assert_ptr_null(rest[2]);
	ck_assert_int_eq(configure("-bh:3", "file-1", "--idle-exit=2s", "-", NULL), 0);
	ck_assert_str_eq(opt.bootstrap_servers, "h:3");
	ck_assert_int_eq(opt.idle_exit_ms, 2000);
	ck_assert_str_eq(rest[0], "file-1");
	ck_assert_str_eq(rest[1], "-");
}
END_TEST

/* The usage errors of flags, each with the pointer to --help. */
START_TEST(test_flag_errors)
{
	ck_assert_int_eq(configure("-b", "h:1", "--guarantee", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: --guarantee needs a value\nTry 'app run --help'.\n");
	ck_assert_int_eq(configure("-b", "h:1", "-X", "linger.ms", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: -X needs PROPERTY=VALUE\nTry 'app run --help'.\n");
	ck_assert_int_eq(configure("-b", "h:1", "--stats=yes", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: option '--stats' takes no value\nTry 'app run --help'.\n");
	ck_assert_int_eq(configure("-b", "h:1", "-q", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: unknown option '-q'\nTry 'app run --help'.\n");
	ck_assert_int_eq(configure("-b", "h:1", "--idle-ms", "5", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: unknown option '--idle-ms'\nTry 'app run --help'.\n");
	ck_assert_int_eq(configure("-b", "h:1", "--instance-id=", NULL), STOAT_EXIT_USAGE);
	ck_assert_str_eq(captured_err, "app: error: --instance-id: instance_id needs a value\n");
}
END_TEST

/* Every problem is reported, from every layer, not only the first. */
START_TEST(test_every_problem_reported)
{
	write_config("guarantee: maybe\nbatch_size: 0\n");
	setenv("STOAT_MEMORY", "huge", 1);
	ck_assert_int_eq(configure("--config", cfg_path, "--shutdown-timeout", "0", "-X", "linger.ms=soon", NULL),
			 STOAT_EXIT_USAGE);
	char want[2048];
	snprintf(want, sizeof want,
		 "app: error: %s:1:12: guarantee must be at_least_once or exactly_once, not 'maybe'\n"
		 "app: error: %s:2:13: batch_size must be 1 to 1000000, not '0'\n"
		 "app: error: STOAT_MEMORY: memory must be low, default or high, not 'huge'\n"
		 "app: error: --shutdown-timeout: shutdown_timeout must be a positive duration (20s), not '0'\n"
		 "app: error: -X: Kafka property linger.ms=soon: Invalid value for configuration property "
		 "\"queue.buffering.max.ms\"\n", /* librdkafka names the property by its canonical name */
		 cfg_path, cfg_path);
	ck_assert_str_eq(captured_err, want);
}
END_TEST

/* Each setting's origin: app, file (its key), environment, flag, or NULL for the default. */
START_TEST(test_origins)
{
	write_config("bootstrap_servers: h:1\nguarantee: exactly_once\n");
	setenv("STOAT_BATCH_SIZE", "5", 1);
	ck_assert_int_eq(configure("--config", cfg_path, "--idle-exit", "1s", "-b", "h:2", NULL), 0);
	char want[256];
	snprintf(want, sizeof want, "%s:2:1", cfg_path);
	ck_assert_str_eq(origin("guarantee"), want);
	ck_assert_str_eq(origin("bootstrap_servers"), "-b");
	ck_assert_str_eq(origin("batch_size"), "STOAT_BATCH_SIZE");
	ck_assert_str_eq(origin("idle_exit"), "--idle-exit");
	ck_assert_str_eq(origin("commit_interval"), "app");
	ck_assert_ptr_null(origin("memory"));
}
END_TEST

/* Prints what stoat_kafka_config_print writes into out. */
static void print_config(bool json, char *out, size_t size)
{
	FILE *f = fmemopen(out, size, "w");
	ck_assert_ptr_nonnull(f);
	stoat_kafka_config_print(f, &opt, json);
	ck_assert_int_eq(fclose(f), 0);
}

/* config print: every setting with its origin, properties by section, secrets as '***'. */
START_TEST(test_print_yaml)
{
	write_config("bootstrap_servers: [a:1, b:2]\non_error: {dlq: dead}\nkafka:\n  sasl.password: hunter2\n"
		     "  linger.ms: 5\nproducer:\n  linger.ms: 10\n"
		     "schema_registry_url: [http://r1:8081, http://r2:8081]\nschema_registry_password: hunter3\n");
	setenv("STOAT_KAFKA_SSL_KEY_PASSWORD", "s3cret", 1);
	setenv("STOAT_INSTANCE_ID", "it's", 1);
	setenv("STOAT_SCHEMA_REGISTRY_TOKEN", "t0ken", 1);
	ck_assert_int_eq(configure("--config", cfg_path, "-X", "consumer.sasl.oauthbearer.config=tok", "--memory", "low",
				   "--state-memory=512M", "--schema-registry-subject-strategy=record",
				   "--schema-registry-user", "ann", NULL),
			 0);
	ck_assert_str_eq(opt.registry_password, "hunter3");
	ck_assert_str_eq(opt.avro.registry.bearer_token, "t0ken");
	char out[4096], want[4096];
	print_config(false, out, sizeof out);
	snprintf(want, sizeof want,
		 "# The effective settings: app header < --config file < STOAT_* environment < flags;\n"
		 "# after each value, where it came from.\n"
		 "bootstrap_servers: a:1,b:2                # %s:1:1\n"
		 "guarantee: at_least_once                  # app\n"
		 "commit_interval: 250ms                    # app\n"
		 "instance_id: 'it''s'                      # STOAT_INSTANCE_ID\n"
		 "static_membership: false                  # default\n"
		 "on_error: dlq:dead                        # %s:2:1\n"
		 "batch_size: 1000                          # default\n"
		 "idle_exit: 0                              # default\n"
		 "max_task_idle: 0                          # default\n"
		 "memory: low                               # --memory\n"
		 "# state_dir: not set (/tmp/stoat, not for production)\n"
		 "state_memory: 512M                        # --state-memory\n"
		 "cache_max_bytes: 10M                      # default\n"
		 "on_state_mismatch: refuse                 # default\n"
		 "repartition_purge_interval: 30s           # default\n"
		 "shutdown_timeout: 20s                     # default\n"
		 "http: off                                 # default\n"
		 "# http_ready_max_lag: not set (none: ready whatever the lag)\n"
		 "log_level: info                           # default\n"
		 "log_format: text                          # default\n"
		 "log_report_interval: 1m                   # default\n"
		 "schema_registry_url: http://r1:8081,http://r2:8081  # %s:8:1\n"
		 "schema_registry_user: ann                 # --schema-registry-user\n"
		 "schema_registry_password: '***'           # %s:9:1\n"
		 "schema_registry_token: '***'              # STOAT_SCHEMA_REGISTRY_TOKEN\n"
		 "# schema_registry_ca_file: not set (the system's CA certificates)\n"
		 "schema_registry_auto_register: true       # default\n"
		 "schema_registry_subject_strategy: record  # --schema-registry-subject-strategy\n"
		 "# schema_registry_timeout: not set (10s)\n"
		 "kafka:\n"
		 "  sasl.password: '***'                    # %s:4:3\n"
		 "  linger.ms: 5                            # %s:5:3\n"
		 "  ssl.key.password: '***'                 # STOAT_KAFKA_SSL_KEY_PASSWORD\n"
		 "consumer:\n"
		 "  sasl.oauthbearer.config: '***'          # -X\n"
		 "producer:\n"
		 "  linger.ms: 10                           # %s:7:3\n",
		 cfg_path, cfg_path, cfg_path, cfg_path, cfg_path, cfg_path, cfg_path);
	ck_assert_str_eq(out, want);
	ck_assert_ptr_null(strstr(out, "hunter"));
	ck_assert_ptr_null(strstr(out, "t0ken"));
	ck_assert_ptr_null(strstr(out, "hunter2"));
	ck_assert_ptr_null(strstr(out, "s3cret"));
}
END_TEST

/* The lines of text that are no comments, each without its comment and the blanks before it. */
static void without_comments(const char *text, char *out, size_t size)
{
	size_t n = 0;
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		const char *hash = strstr(line, "  #");
		size_t keep = hash && (size_t)(hash - line) < len ? (size_t)(hash - line) : len;
		while (keep > 0 && line[keep - 1] == ' ')
			keep--;
		if (line[0] != '#') {
			ck_assert_uint_lt(n + keep + 1, size);
			memcpy(out + n, line, keep);
			n += keep;
			out[n++] = '\n';
		}
		line += len + (line[len] == '\n');
	}
	out[n] = '\0';
}

/* What config print writes, --config reads back as the same settings. */
START_TEST(test_print_reads_back)
{
	write_config("bootstrap_servers: 'h:1'\nguarantee: exactly_once\ncommit_interval: 1500ms\ninstance_id: \"a # b\"\n"
		     "static_membership: on\non_error: skip\nmax_task_idle: -1\nstate_dir: /srv/st oat\n"
		     "cache_max_bytes: 65536\nidle_exit: 2m\nkafka:\n  client.id: 'x: y'\n");
	ck_assert_int_eq(configure("--config", cfg_path, NULL), 0);
	char out[4096], first[4096];
	print_config(false, out, sizeof out);
	write_config(out);
	ck_assert_int_eq(configure("--config", cfg_path, NULL), 0);
	ck_assert_str_eq(captured_err, "");
	ck_assert_str_eq(opt.instance_id, "a # b");
	ck_assert_str_eq(opt.state_dir, "/srv/st oat");
	ck_assert_int_eq(opt.commit_interval_ms, 1500);
	ck_assert_int_eq(opt.max_task_idle_ms, -1);
	ck_assert_int_eq(opt.idle_exit_ms, 120000);
	ck_assert(opt.static_membership);
	ck_assert_str_eq(prop("client.id"), "x: y");
	/* The same settings print the same, but for the origins. */
	without_comments(out, first, sizeof first);
	print_config(false, out, sizeof out);
	char second[4096];
	without_comments(out, second, sizeof second);
	ck_assert_str_eq(second, first);
}
END_TEST

/* config print --json: one object, unset settings null, switches booleans, secrets masked. */
START_TEST(test_print_json)
{
	write_config("kafka:\n  sasl.password: hunter2\n  client.id: \"q\\\"t\"\nconsumer: {fetch.wait.max.ms: 50}\n");
	ck_assert_int_eq(configure("-b", "h:1", "--config", cfg_path, "--static-membership", NULL), 0);
	char out[4096];
	print_config(true, out, sizeof out);
	ck_assert_str_eq(out, "{\"settings\": {\"bootstrap_servers\": \"h:1\", \"guarantee\": \"at_least_once\", "
			      "\"commit_interval\": \"250ms\", \"instance_id\": null, \"static_membership\": true, "
			      "\"on_error\": null, \"batch_size\": \"1000\", \"idle_exit\": \"0\", \"max_task_idle\": \"0\", "
			      "\"memory\": \"default\", \"state_dir\": null, \"state_memory\": null, "
			      "\"cache_max_bytes\": \"10M\", \"on_state_mismatch\": \"refuse\", "
			      "\"repartition_purge_interval\": \"30s\", \"shutdown_timeout\": \"20s\", \"http\": \"off\", "
			      "\"http_ready_max_lag\": null, \"log_level\": \"info\", \"log_format\": \"text\", "
			      "\"log_report_interval\": \"1m\", \"schema_registry_url\": null, \"schema_registry_user\": null, "
			      "\"schema_registry_password\": null, \"schema_registry_token\": null, "
			      "\"schema_registry_ca_file\": null, \"schema_registry_auto_register\": true, "
			      "\"schema_registry_subject_strategy\": \"topic\", \"schema_registry_timeout\": null}, "
			      "\"kafka\": {\"sasl.password\": \"***\", \"client.id\": \"q\\\"t\"}, "
			      "\"consumer\": {\"fetch.wait.max.ms\": \"50\"}, \"producer\": {}}\n");
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("runtime_config");
	TCase *tc = tcase_create("config");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_documented_layout);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_http_settings);
	tcase_add_test(tc, test_quotes_and_comments);
	tcase_add_test(tc, test_empty_files);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_layers);
	tcase_add_test(tc, test_errors_at_their_place);
	tcase_add_test(tc, test_unreadable_file);
	tcase_add_test(tc, test_secrets_never_shown);
	tcase_add_test(tc, test_secret_names);
	tcase_add_test(tc, test_redact);
	tcase_add_test(tc, test_duplicate_setting);
	tcase_add_test(tc, test_duplicate_alias);
	tcase_add_test(tc, test_duplicate_property);
	tcase_add_test(tc, test_client_section_overrides);
	tcase_add_test(tc, test_bootstrap_list);
	tcase_add_test(tc, test_list_elsewhere);
	tcase_add_test(tc, test_booleans);
	tcase_add_test(tc, test_null_is_no_value);
	tcase_add_test(tc, test_on_error_forms);
	tcase_add_test(tc, test_did_you_mean_yaml);
	tcase_add_test(tc, test_did_you_mean_env);
	tcase_add_test(tc, test_did_you_mean_flag);
	tcase_add_test(tc, test_flag_forms);
	tcase_add_test(tc, test_flag_errors);
	tcase_add_test(tc, test_every_problem_reported);
	tcase_add_test(tc, test_origins);
	tcase_add_test(tc, test_print_yaml);
	tcase_add_test(tc, test_print_reads_back);
	tcase_add_test(tc, test_print_json);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(config_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
