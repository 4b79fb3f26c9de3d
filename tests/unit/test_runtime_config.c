/*
 * Unit tests for the Kafka commands' settings (config.c): the YAML layout
 * the --config file accepts (top-level settings, the kafka:, consumer: and
 * producer: sections, quoting, comments, long lines), the order in which
 * layers override each other, and the errors, each at its file:line:col
 * and never showing a secret.  The expected values are worked out by hand
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
	char line[1024];
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
	ck_assert_uint_eq(opt.prop_count, 0);
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
	char want[512];
#define AT(pos, msg) (snprintf(want, sizeof want, "%s:%s: %s", cfg_path, pos, msg), want)
	expect_error("guarantee: exactly_once\ncolour: x\n",
		     AT("2:1", "unknown setting 'colour' (settings: bootstrap_servers, guarantee, commit_interval, "
			       "instance_id, static_membership, on_error, batch_size, idle_exit, max_task_idle, memory, state_dir, "
			       "state_memory, cache_max_bytes, on_state_mismatch, repartition_purge_interval, shutdown_timeout; "
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
	char want[512];
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
	char want[512];
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

static Suite *config_suite(void)
{
	Suite *s = suite_create("runtime_config");
	TCase *tc = tcase_create("config");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_documented_layout);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_quotes_and_comments);
	tcase_add_test(tc, test_empty_files);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_layers);
	tcase_add_test(tc, test_errors_at_their_place);
	tcase_add_test(tc, test_unreadable_file);
	tcase_add_test(tc, test_secrets_never_shown);
	tcase_add_test(tc, test_secret_names);
	tcase_add_test(tc, test_redact);
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
