/*
 * Unit tests for the runtime's log (log.h): the three formats, levels,
 * a message's own level in front, the redact hook, and the per call site
 * rate limit.  Standard error is captured in a file per test.
 */
#include "log.h"

#include <check.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char captured[8192];
static char path[] = "/tmp/stoat-log-XXXXXX";
static int saved = -1;

/* Sends standard error to a fresh file. */
static void capture(void)
{
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Ends the capture: what was written, in captured. */
static const char *captured_text(void)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(captured, 1, sizeof captured - 1, f);
	captured[n] = '\0';
	fclose(f);
	unlink(path);
	strcpy(path, "/tmp/stoat-log-XXXXXX");
	return captured;
}

static void configure(stoat_log_format format, stoat_log_level level)
{
	stoat_log_configure(&(stoat_log_config){ .app = "orders", .instance = "orders-1", .level = level,
						 .format = format });
}

/* Logs through stoat_log_leveled, as the Kafka driver does. */
static void leveled(const char *event, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stoat_log_leveled(event, fmt, ap);
	va_end(ap);
}

START_TEST(test_plain)
{
	configure(STOAT_LOG_PLAIN, STOAT_LOG_INFO);
	capture();
	stoat_log(STOAT_LOG_WARNING, NULL, NULL, "topic %s is missing", "t");
	stoat_log(STOAT_LOG_INFO, NULL, NULL, "assigned %d partitions", 2);
	stoat_log(STOAT_LOG_DEBUG, NULL, NULL, "not shown");
	leveled(NULL, "error: no answer from %s", "b:9092");
	ck_assert_str_eq(captured_text(), "orders: warning: topic t is missing\n"
					  "orders: assigned 2 partitions\n"
					  "orders: error: no answer from b:9092\n");
}
END_TEST

START_TEST(test_text)
{
	configure(STOAT_LOG_TEXT, STOAT_LOG_INFO);
	capture();
	leveled("assigned", "assigned %d partitions: %s", 1, "in[0]");
	leveled(NULL, "warning: consumer: %s", "slow");
	const char *t = captured_text();
	regex_t re;
	ck_assert_int_eq(regcomp(&re,
				 "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z orders\\[orders-1\\]: "
				 "info: assigned 1 partitions: in\\[0\\]\n"
				 "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z orders\\[orders-1\\]: warning: consumer: slow\n$",
				 REG_EXTENDED),
			 0);
	ck_assert_msg(regexec(&re, t, 0, NULL, 0) == 0, "%s", t);
	regfree(&re);
}
END_TEST

START_TEST(test_json)
{
	configure(STOAT_LOG_JSON, STOAT_LOG_INFO);
	capture();
	stoat_log(STOAT_LOG_INFO, "report", "\"lag\": 3", "report: lag %d \"quoted\"", 3);
	stoat_log(STOAT_LOG_ERROR, NULL, NULL, "boom");
	const char *t = captured_text();
	/* The timestamp varies: everything after it is exact. */
	const char *a = strstr(t, "\", \"level\": \"info\"");
	ck_assert_msg(a != NULL && strncmp(t, "{\"ts\": \"", 8) == 0, "%s", t);
	const char *want1 = "\", \"level\": \"info\", \"app\": \"orders\", \"instance\": \"orders-1\", \"event\": \"report\", "
			    "\"message\": \"report: lag 3 \\\"quoted\\\"\", \"lag\": 3}\n";
	ck_assert_msg(strncmp(a, want1, strlen(want1)) == 0, "%s", t);
	const char *b = strstr(a + 1, "\", \"level\": \"error\"");
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(b, "\", \"level\": \"error\", \"app\": \"orders\", \"instance\": \"orders-1\", \"event\": \"log\", "
			    "\"message\": \"boom\"}\n");
}
END_TEST

START_TEST(test_levels)
{
	configure(STOAT_LOG_PLAIN, STOAT_LOG_WARNING);
	capture();
	stoat_log(STOAT_LOG_INFO, NULL, NULL, "hidden");
	leveled(NULL, "also hidden");
	stoat_log(STOAT_LOG_WARNING, NULL, NULL, "shown");
	ck_assert_str_eq(captured_text(), "orders: warning: shown\n");
	stoat_log_level l;
	ck_assert(stoat_log_parse_level("WARN", &l) && l == STOAT_LOG_WARNING);
	ck_assert(stoat_log_parse_level("debug", &l) && l == STOAT_LOG_DEBUG);
	ck_assert(!stoat_log_parse_level("loud", &l));
	stoat_log_format f;
	ck_assert(stoat_log_parse_format("json", &f) && f == STOAT_LOG_JSON);
	ck_assert(!stoat_log_parse_format("xml", &f));
}
END_TEST

/* The redact hook: a secret's value blotted out. */
static void blot_hunter2(void *arg, char *m)
{
	ck_assert_ptr_eq(arg, (void *)blot_hunter2);
	char *p = strstr(m, "hunter2");
	if (p)
		memcpy(p, "*******", 7);
}

START_TEST(test_redact)
{
	stoat_log_configure(&(stoat_log_config){ .app = "orders", .format = STOAT_LOG_PLAIN, .level = STOAT_LOG_INFO,
						 .redact = blot_hunter2, .redact_arg = (void *)blot_hunter2 });
	capture();
	stoat_log(STOAT_LOG_WARNING, "librdkafka", NULL, "librdkafka: SASL: password hunter2 refused");
	ck_assert_str_eq(captured_text(), "orders: warning: librdkafka: SASL: password ******* refused\n");
}
END_TEST

/* Counts the lines of text holding needle. */
static int count_lines(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

START_TEST(test_rate_limit)
{
	stoat_log_configure(&(stoat_log_config){ .app = "orders", .instance = "i", .format = STOAT_LOG_TEXT,
						 .level = STOAT_LOG_INFO, .limit_window_ms = 50 });
	capture();
	for (int i = 0; i < STOAT_LOG_BURST + 5; i++)
		stoat_log(STOAT_LOG_WARNING, NULL, NULL, "retrying %d", i);
	for (int i = 0; i < STOAT_LOG_BURST + 5; i++)
		stoat_log(STOAT_LOG_INFO, NULL, NULL, "info %d is never limited", i);
	usleep(80 * 1000); /* past the window: the next line says what was held back */
	stoat_log(STOAT_LOG_WARNING, NULL, NULL, "retrying %d", 99);
	const char *t = captured_text();
	ck_assert_int_eq(count_lines(t, ": warning: retrying "), STOAT_LOG_BURST + 1);
	ck_assert_int_eq(count_lines(t, "is never limited"), STOAT_LOG_BURST + 5);
	ck_assert_msg(strstr(t, ": warning: 5 more like \"retrying %d\" were not shown in 0.05 s\n") != NULL, "%s", t);
	ck_assert_ptr_nonnull(strstr(t, "retrying 99\n"));
	ck_assert_ptr_null(strstr(t, "retrying 10\n")); /* the eleventh was held back */
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("runtime_log");
	TCase *tc = tcase_create("log");
	tcase_add_test(tc, test_plain);
	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_levels);
	tcase_add_test(tc, test_redact);
	tcase_add_test(tc, test_rate_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(log_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
