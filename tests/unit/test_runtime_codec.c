/*
 * Unit tests for byte-level helpers and per-record error handling:
 * Kafka's murmur2 (with Kafka's own test vectors), base64, UTF-8
 * validation, checked arithmetic and stoat_error's first-error-wins rule.
 */
#include "internal.h"

#include <check.h>
#include <stdlib.h>

/* Vectors from Kafka's UtilsTest.testMurmur2 (clients/src/test/java/org/
 * apache/kafka/common/utils/UtilsTest.java). */
START_TEST(test_murmur2_kafka_vectors)
{
	static const struct {
		const char *in;
		int32_t want;
	} cases[] = {
		{ "21", -973932308 },
		{ "foobar", -790332482 },
		{ "a-little-bit-long-string", -985981536 },
		{ "a-little-bit-longer-string", -1486304829 },
		{ "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971 },
		{ "abc", 479470107 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_int_eq(stoat_murmur2(cases[i].in, strlen(cases[i].in)), cases[i].want);
}
END_TEST

/* The default partitioner: toPositive(murmur2) % n. */
START_TEST(test_partition_for_key)
{
	/* murmur2("foobar") = -790332482; & 0x7fffffff = 1357151166. */
	ck_assert_int_eq(stoat_partition_for_key(STOAT_STR_LIT("foobar"), 3), 1357151166 % 3);
	ck_assert_int_eq(stoat_partition_for_key(STOAT_STR_LIT("abc"), 10), 479470107 % 10);
	ck_assert_int_eq(stoat_partition_for_key(STOAT_STR_LIT("abc"), 1), 0);
	/* Empty key: murmur2 of zero bytes is still defined. */
	int32_t p = stoat_partition_for_key((stoat_str){ "", 0 }, 7);
	ck_assert(p >= 0 && p < 7);
}
END_TEST

/* Encodes and compares with the RFC 4648 section 10 vectors, then decodes back. */
START_TEST(test_base64)
{
	static const char *plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *coded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	stoat_buf b;
	stoat_buf_init(&b);
	for (size_t i = 0; i < 7; i++) {
		b.len = 0;
		stoat_base64_encode(&b, (stoat_str){ plain[i], strlen(plain[i]) });
		ck_assert_uint_eq(b.len, strlen(coded[i]));
		ck_assert(b.len == 0 || memcmp(b.data, coded[i], b.len) == 0);
		ck_assert_uint_eq(stoat_base64_encoded_len(strlen(plain[i])), strlen(coded[i]));
		char out[16];
		size_t n;
		ck_assert(stoat_base64_decode((stoat_str){ coded[i], strlen(coded[i]) }, out, &n));
		ck_assert_uint_eq(n, strlen(plain[i]));
		ck_assert(memcmp(out, plain[i], n) == 0);
	}
	/* Unpadded input is accepted. */
	char out[16];
	size_t n;
	ck_assert(stoat_base64_decode(STOAT_STR_LIT("Zm9vYg"), out, &n));
	ck_assert(n == 4 && memcmp(out, "foob", 4) == 0);
	/* All byte values survive. */
	char all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (char)i;
	b.len = 0;
	stoat_base64_encode(&b, (stoat_str){ all, 256 });
	char back[260];
	ck_assert(stoat_base64_decode(stoat_buf_str(&b), back, &n));
	ck_assert(n == 256 && memcmp(back, all, 256) == 0);
	/* Malformed input is refused. */
	const char *bad[] = { "Z", "Zg=", "Z===", "====", "Zm9v!A==", "Zg==Zg==", "Zh==" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!stoat_base64_decode((stoat_str){ bad[i], strlen(bad[i]) }, out, &n), "%s", bad[i]);
	stoat_buf_free(&b);
}
END_TEST

START_TEST(test_utf8)
{
	ck_assert(stoat_utf8_valid(STOAT_STR_LIT("plain")));
	ck_assert(stoat_utf8_valid(STOAT_STR_LIT("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80")));
	ck_assert(stoat_utf8_valid((stoat_str){ "", 0 }));
	ck_assert(!stoat_utf8_valid(STOAT_STR_LIT("\xff")));
	ck_assert(!stoat_utf8_valid(STOAT_STR_LIT("\xc0\xaf")));         /* overlong */
	ck_assert(!stoat_utf8_valid(STOAT_STR_LIT("\xe0\x80\xaf")));     /* overlong */
	ck_assert(!stoat_utf8_valid(STOAT_STR_LIT("\xed\xa0\x80")));     /* surrogate */
	ck_assert(!stoat_utf8_valid(STOAT_STR_LIT("\xf4\x90\x80\x80"))); /* > U+10FFFF */
	ck_assert(!stoat_utf8_valid(STOAT_STR_LIT("\xe2\x82")));         /* truncated */
	ck_assert(!stoat_utf8_valid(STOAT_STR_LIT("a\x80")));
}
END_TEST

/* Checked arithmetic reports overflow and division by zero as errors. */
START_TEST(test_checked_arithmetic)
{
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	ck_assert_int_eq(stoat_add_i32(&cx, 2, 3), 5);
	ck_assert(!cx.error);
	stoat_add_i32(&cx, INT32_MAX, 1);
	ck_assert(cx.error);
	ck_assert_str_eq(cx.error_message, "integer overflow in '+'");
	cx.error = false;
	stoat_sub_i64(&cx, INT64_MIN, 1);
	ck_assert_str_eq(cx.error_message, "integer overflow in '-'");
	cx.error = false;
	stoat_mul_i64(&cx, INT64_MAX / 2, 3);
	ck_assert_str_eq(cx.error_message, "integer overflow in '*'");
	cx.error = false;
	stoat_div_i32(&cx, INT32_MIN, -1);
	ck_assert_str_eq(cx.error_message, "integer overflow in '/'");
	cx.error = false;
	ck_assert_int_eq(stoat_mod_i32(&cx, INT32_MIN, -1), 0);
	ck_assert(!cx.error);
	stoat_div_i64(&cx, 1, 0);
	ck_assert_str_eq(cx.error_message, "division by zero");
	cx.error = false;
	stoat_mod_i64(&cx, 1, 0);
	ck_assert_str_eq(cx.error_message, "division by zero");
	cx.error = false;
	stoat_div_f64(&cx, 1.0, 0.0);
	ck_assert_str_eq(cx.error_message, "division by zero");
	cx.error = false;
	stoat_neg_i64(&cx, INT64_MIN);
	ck_assert_str_eq(cx.error_message, "integer overflow in '-'");
	cx.error = false;
	ck_assert_int_eq(stoat_div_i64(&cx, -7, 2), -3);
	ck_assert_int_eq(stoat_mod_i64(&cx, -7, 2), -1);
	ck_assert(!cx.error);
}
END_TEST

/* The first error of a record wins; messages are formatted and truncated safely. */
START_TEST(test_error_first_wins)
{
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	stoat_error(&cx, "bad %s #%d", "thing", 1);
	stoat_error(&cx, "second");
	ck_assert_str_eq(cx.error_message, "bad thing #1");
	cx.error = false;
	char big[2000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	stoat_error(&cx, "%s", big);
	ck_assert_uint_eq(strlen(cx.error_message), sizeof cx.error_message - 1);
}
END_TEST

/* Policy resolution: override, then source, then application. */
START_TEST(test_policy_resolution)
{
	stoat_source src = { .name = "s", .topic = "t", .on_error = STOAT_POLICY_DEFAULT };
	stoat_app app = { .app_id = "a", .on_error = STOAT_POLICY_SKIP };
	stoat_driver d = { .ops = NULL, .app = &app };
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	cx.app = &app;
	cx.source = &src;
	cx.driver = &d;
	ck_assert_int_eq(stoat_effective_policy(&cx), STOAT_POLICY_SKIP);
	src.on_error = STOAT_POLICY_FAIL;
	ck_assert_int_eq(stoat_effective_policy(&cx), STOAT_POLICY_FAIL);
	d.policy_override = STOAT_POLICY_SKIP;
	ck_assert_int_eq(stoat_effective_policy(&cx), STOAT_POLICY_SKIP);
}
END_TEST

/* Skip counts every failure but rate-limits the warnings. */
START_TEST(test_skip_rate_limit)
{
	stoat_source src = { .name = "s", .topic = "t", .on_error = STOAT_POLICY_SKIP };
	stoat_app app = { .app_id = "a", .on_error = STOAT_POLICY_FAIL };
	stoat_driver d = { .ops = NULL, .app = &app };
	stoat_msg m = { .partition = 0, .offset = 0 };
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	cx.app = &app;
	cx.source = &src;
	cx.driver = &d;
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	for (int i = 0; i < 2600; i++) {
		stoat_record_begin(&cx, &m);
		stoat_error(&cx, "bad");
		ck_assert(stoat_record_failed(&cx));
		ck_assert(!cx.error);
	}
	fclose(stderr);
	stderr = saved;
	ck_assert_uint_eq(cx.counters.records_failed, 2600);
	ck_assert_uint_eq(cx.counters.records_skipped, 2600);
	/* 100 first, then failures number 1100, 2100. */
	ck_assert_uint_eq(d.skip_warnings_printed, 102);
	ck_assert_uint_eq(d.skip_warnings_hidden, 2498);
	ck_assert(!cx.stopped);

	src.on_error = STOAT_POLICY_FAIL;
	stoat_record_begin(&cx, &m);
	stoat_error(&cx, "bad");
	stderr = fopen("/dev/null", "w");
	ck_assert(!stoat_record_failed(&cx));
	fclose(stderr);
	stderr = saved;
	ck_assert(cx.stopped);
	ck_assert_uint_eq(cx.counters.records_failed, 2601);
}
END_TEST

static Suite *codec_suite(void)
{
	Suite *s = suite_create("runtime_codec");
	TCase *tc = tcase_create("codec");
	tcase_add_test(tc, test_murmur2_kafka_vectors);
	tcase_add_test(tc, test_partition_for_key);
	tcase_add_test(tc, test_base64);
	tcase_add_test(tc, test_utf8);
	tcase_add_test(tc, test_checked_arithmetic);
	tcase_add_test(tc, test_error_first_wins);
	tcase_add_test(tc, test_policy_resolution);
	tcase_add_test(tc, test_skip_rate_limit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(codec_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
