/*
 * test_runtime_keys.c - the store key layout orders like the values.
 *
 * For each type, values sorted by their natural order must encode to keys
 * in strictly increasing bytewise order (what RocksDB sorts by), equal
 * values to equal keys, and composite keys must order field by field.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "stoat/runtime.h"

/* memcmp order of two encodings, shorter-is-smaller on a common prefix. */
static int key_cmp(const stoat_buf *a, const stoat_buf *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->data, b->data, n);
	if (c)
		return c < 0 ? -1 : 1;
	return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

START_TEST(test_i64_order)
{
	const int64_t values[] = { INT64_MIN, INT64_MIN + 1, -1000000000000LL, -256, -1, 0, 1, 255, 256, 65536,
	                           INT64_MAX - 1, INT64_MAX };
	size_t n = sizeof values / sizeof values[0];
	for (size_t i = 0; i + 1 < n; i++) {
		stoat_buf a, b;
		stoat_buf_init(&a);
		stoat_buf_init(&b);
		stoat_key_put_i64(&a, values[i]);
		stoat_key_put_i64(&b, values[i + 1]);
		ck_assert_uint_eq(a.len, 8);
		ck_assert_int_lt(key_cmp(&a, &b), 0);
		stoat_buf_free(&a);
		stoat_buf_free(&b);
	}
}
END_TEST

START_TEST(test_i32_order)
{
	const int32_t values[] = { INT32_MIN, -70000, -1, 0, 1, 70000, INT32_MAX };
	for (size_t i = 0; i + 1 < sizeof values / sizeof values[0]; i++) {
		stoat_buf a, b;
		stoat_buf_init(&a);
		stoat_buf_init(&b);
		stoat_key_put_i32(&a, values[i]);
		stoat_key_put_i32(&b, values[i + 1]);
		ck_assert_uint_eq(a.len, 4);
		ck_assert_int_lt(key_cmp(&a, &b), 0);
		stoat_buf_free(&a);
		stoat_buf_free(&b);
	}
}
END_TEST

START_TEST(test_f64_order)
{
	const double values[] = { -INFINITY, -1e300, -2.5, -1.0, -1e-300, 0.0, 1e-300, 1.0, 2.5, 1e300, INFINITY };
	for (size_t i = 0; i + 1 < sizeof values / sizeof values[0]; i++) {
		stoat_buf a, b;
		stoat_buf_init(&a);
		stoat_buf_init(&b);
		stoat_key_put_f64(&a, values[i]);
		stoat_key_put_f64(&b, values[i + 1]);
		ck_assert_int_lt(key_cmp(&a, &b), 0);
		stoat_buf_free(&a);
		stoat_buf_free(&b);
	}
	/* -0.0 and 0.0 compare equal, so they must be one key. */
	stoat_buf a, b;
	stoat_buf_init(&a);
	stoat_buf_init(&b);
	stoat_key_put_f64(&a, -0.0);
	stoat_key_put_f64(&b, 0.0);
	ck_assert_int_eq(key_cmp(&a, &b), 0);
	stoat_buf_free(&a);
	stoat_buf_free(&b);
}
END_TEST

/* Strings order bytewise, and a string's key is never a prefix of another's. */
START_TEST(test_string_order_and_prefixes)
{
	static const struct { const char *p; size_t n; } values[] = {
		{ "", 0 }, { "\0", 1 }, { "\0\0", 2 }, { "\0a", 2 }, { "\x01", 1 }, { "a", 1 },
		{ "a\0", 2 }, { "a\0b", 3 }, { "ab", 2 }, { "b", 1 }, { "\xff", 1 }, { "\xff\xff", 2 },
	};
	size_t n = sizeof values / sizeof values[0];
	for (size_t i = 0; i + 1 < n; i++) {
		stoat_buf a, b;
		stoat_buf_init(&a);
		stoat_buf_init(&b);
		stoat_key_put_str(&a, (stoat_str){ values[i].p, values[i].n });
		stoat_key_put_str(&b, (stoat_str){ values[i + 1].p, values[i + 1].n });
		ck_assert_int_lt(key_cmp(&a, &b), 0);
		/* Not a prefix: composite keys stay in field order. */
		ck_assert(a.len > b.len || memcmp(a.data, b.data, a.len) != 0);
		stoat_buf_free(&a);
		stoat_buf_free(&b);
	}
}
END_TEST

/* (string, i64) pairs order by the string first, then the number. */
START_TEST(test_composite_order)
{
	static const struct { const char *s; size_t len; int64_t n; } values[] = {
		{ "", 0, -5 }, { "", 0, 7 }, { "a", 1, INT64_MIN }, { "a", 1, 0 }, { "a", 1, 1 },
		{ "a\0", 2, -1 }, { "ab", 2, -100 }, { "b", 1, -100 },
	};
	size_t n = sizeof values / sizeof values[0];
	for (size_t i = 0; i + 1 < n; i++) {
		stoat_buf a, b;
		stoat_buf_init(&a);
		stoat_buf_init(&b);
		stoat_key_put_str(&a, (stoat_str){ values[i].s, values[i].len });
		stoat_key_put_i64(&a, values[i].n);
		stoat_key_put_str(&b, (stoat_str){ values[i + 1].s, values[i + 1].len });
		stoat_key_put_i64(&b, values[i + 1].n);
		ck_assert_int_lt(key_cmp(&a, &b), 0);
		stoat_buf_free(&a);
		stoat_buf_free(&b);
	}
}
END_TEST

/* Null sorts before every present value; bools false < true. */
START_TEST(test_presence_and_bool)
{
	stoat_buf null_key, zero, f, t;
	stoat_buf_init(&null_key);
	stoat_buf_init(&zero);
	stoat_buf_init(&f);
	stoat_buf_init(&t);
	stoat_key_put_presence(&null_key, false);
	stoat_key_put_presence(&zero, true);
	stoat_key_put_i64(&zero, INT64_MIN);
	ck_assert_int_lt(key_cmp(&null_key, &zero), 0);
	stoat_key_put_bool(&f, false);
	stoat_key_put_bool(&t, true);
	ck_assert_int_lt(key_cmp(&f, &t), 0);
	stoat_buf_free(&null_key);
	stoat_buf_free(&zero);
	stoat_buf_free(&f);
	stoat_buf_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime_keys");
	TCase *tc = tcase_create("order");
	tcase_add_test(tc, test_i64_order);
	tcase_add_test(tc, test_i32_order);
	tcase_add_test(tc, test_f64_order);
	tcase_add_test(tc, test_string_order_and_prefixes);
	tcase_add_test(tc, test_composite_order);
	tcase_add_test(tc, test_presence_and_bool);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
