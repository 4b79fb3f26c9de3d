/*
 * test_registry_client.c - the Schema Registry client (runtime/src/registry.h)
 * against a real registry: Apicurio Registry's Confluent API, started by
 * scripts/registry for the registry.* tests (STOAT_TEST_REGISTRY_URL).
 *
 * The expectations are the Confluent API's documented answers: a schema
 * registered twice under a subject keeps its id; a lookup of one never
 * registered is 404 with error_code 40401 (no subject) or 40403 (no
 * schema); an id never given is 404/40403; under BACKWARD compatibility
 * (scripts/registry sets it) a new version with a field that has no
 * default is refused with 409.
 */
#include "registry.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *url;
static char subject[128];

#define USER_V1 "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}"
/* A field without a default: not BACKWARD compatible with USER_V1. */
#define USER_V2_BAD                                                                                  \
	"{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":" \
	"\"n\",\"type\":\"int\"}]}"

static stoat_registry *client(const char *urls, bool lookup_only)
{
	stoat_registry_config cfg = { .urls = urls, .no_auto_register = lookup_only, .retries = 1, .backoff_ms = 10,
				      .timeout_ms = 5000 };
	char err[512];
	stoat_registry *r = stoat_registry_new(&cfg, err, sizeof err);
	ck_assert_msg(r != NULL, "%s", err);
	return r;
}

/* A subject no other test (or run) uses. */
static const char *fresh_subject(const char *what)
{
	static int n;
	snprintf(subject, sizeof subject, "stoat-test-%d-%s-%d-value", (int)getpid(), what, n++);
	return subject;
}

START_TEST(register_then_lookup)
{
	char err[512];
	const char *s = fresh_subject("register");
	stoat_registry *r = client(url, false);
	int32_t id = -1, again = -1;
	ck_assert_msg(stoat_registry_id_for(r, s, USER_V1, "AVRO", &id, err, sizeof err), "%s", err);
	ck_assert_int_ge(id, 0);
	uint64_t before = stoat_registry_requests(r);
	ck_assert(stoat_registry_id_for(r, s, USER_V1, "AVRO", &again, err, sizeof err));
	ck_assert_int_eq(again, id);
	ck_assert_msg(stoat_registry_requests(r) == before, "the second call asked the registry again");
	stoat_registry_free(r);
	/* Registered again by another client: the same id. */
	r = client(url, false);
	ck_assert(stoat_registry_id_for(r, s, USER_V1, "AVRO", &again, err, sizeof err));
	ck_assert_int_eq(again, id);
	stoat_registry_free(r);
	/* Looked up only. */
	r = client(url, true);
	ck_assert_msg(stoat_registry_id_for(r, s, USER_V1, "AVRO", &again, err, sizeof err), "%s", err);
	ck_assert_int_eq(again, id);
	stoat_registry_free(r);
}
END_TEST

START_TEST(schema_by_id)
{
	char err[512];
	stoat_registry *r = client(url, false);
	int32_t id;
	ck_assert(stoat_registry_id_for(r, fresh_subject("byid"), USER_V1, "AVRO", &id, err, sizeof err));
	const char *text = NULL;
	ck_assert_msg(stoat_registry_schema(r, id, &text, err, sizeof err), "%s", err);
	/* The text as registered (a registry may reformat it: compare without blanks). */
	char compact[512];
	size_t n = 0;
	for (const char *p = text; *p && n + 1 < sizeof compact; p++)
		if (*p != ' ' && *p != '\n')
			compact[n++] = *p;
	compact[n] = '\0';
	ck_assert_str_eq(compact, USER_V1);
	uint64_t before = stoat_registry_requests(r);
	const char *cached = NULL;
	ck_assert(stoat_registry_schema(r, id, &cached, err, sizeof err));
	ck_assert_ptr_eq(cached, text);
	ck_assert(stoat_registry_requests(r) == before);
	stoat_registry_free(r);
}
END_TEST

START_TEST(unknown_id)
{
	char err[512];
	stoat_registry *r = client(url, false);
	const char *text;
	ck_assert(!stoat_registry_schema(r, 987654321, &text, err, sizeof err));
	ck_assert_msg(strstr(err, "no such schema") && strstr(err, "40403"), "%s", err);
	stoat_registry_free(r);
}
END_TEST

START_TEST(incompatible_version)
{
	char err[512];
	const char *s = fresh_subject("compat");
	stoat_registry *r = client(url, false);
	int32_t id;
	ck_assert(stoat_registry_id_for(r, s, USER_V1, "AVRO", &id, err, sizeof err));
	ck_assert(!stoat_registry_id_for(r, s, USER_V2_BAD, "AVRO", &id, err, sizeof err));
	ck_assert_msg(strstr(err, "incompatible") && strstr(err, "HTTP 409") && strstr(err, s), "%s", err);
	stoat_registry_free(r);
}
END_TEST

START_TEST(lookup_of_unregistered)
{
	char err[512];
	stoat_registry *r = client(url, true);
	int32_t id;
	const char *s = fresh_subject("absent");
	ck_assert(!stoat_registry_id_for(r, s, USER_V1, "AVRO", &id, err, sizeof err));
	ck_assert_msg(strstr(err, "40401") && strstr(err, "auto-registration is off"), "%s", err);
	stoat_registry_free(r);
}
END_TEST

START_TEST(unreachable)
{
	char err[512];
	/* Port 1 on loopback: nothing listens; refused at once. */
	stoat_registry *r = client("http://127.0.0.1:1", false);
	int32_t id;
	ck_assert(!stoat_registry_id_for(r, "x-value", USER_V1, "AVRO", &id, err, sizeof err));
	ck_assert_msg(strstr(err, "did not answer (2 tries)") && strstr(err, "127.0.0.1:1"), "%s", err);
	ck_assert(stoat_registry_requests(r) == 2);
	stoat_registry_free(r);
}
END_TEST

START_TEST(second_url_answers)
{
	char err[512];
	char *urls = NULL;
	ck_assert(asprintf(&urls, "http://127.0.0.1:1/, %s", url) > 0);
	stoat_registry *r = client(urls, false);
	int32_t id;
	ck_assert_msg(stoat_registry_id_for(r, fresh_subject("failover"), USER_V1, "AVRO", &id, err, sizeof err), "%s",
		      err);
	stoat_registry_free(r);
	free(urls);
}
END_TEST

START_TEST(bad_configuration)
{
	char err[512];
	stoat_registry_config cfg = { .urls = "ftp://127.0.0.1:21" };
	ck_assert(stoat_registry_new(&cfg, err, sizeof err) == NULL);
	ck_assert_msg(strstr(err, "not http:// or https://"), "%s", err);
	cfg.urls = " , ";
	ck_assert(stoat_registry_new(&cfg, err, sizeof err) == NULL);
	ck_assert_str_eq(err, "no Schema Registry URL");
}
END_TEST

int main(void)
{
	url = getenv("STOAT_TEST_REGISTRY_URL");
	if (!url || !*url) {
		fprintf(stderr, "test_registry_client: STOAT_TEST_REGISTRY_URL is not set (the registry.start fixture sets it)\n");
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("registry");
	TCase *tc = tcase_create("client");
	tcase_add_test(tc, register_then_lookup);
	tcase_add_test(tc, schema_by_id);
	tcase_add_test(tc, unknown_id);
	tcase_add_test(tc, incompatible_version);
	tcase_add_test(tc, lookup_of_unregistered);
	tcase_add_test(tc, unreachable);
	tcase_add_test(tc, second_url_answers);
	tcase_add_test(tc, bad_configuration);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
