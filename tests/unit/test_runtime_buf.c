/*
 * Unit tests for the output buffer and its formatters: integers, the
 * shortest round-trip doubles, JSON strings and big-endian serdes.
 */
#include "internal.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Formats with fn into a fresh buffer and compares with expected. */
static void expect_f64(double v, const char *expected)
{
	stoat_buf b;
	stoat_buf_init(&b);
	ck_assert(stoat_buf_put_f64(&b, v));
	ck_assert_msg(b.len == strlen(expected) && memcmp(b.data, expected, b.len) == 0,
		      "%.17g printed as '%.*s', expected '%s'", v, (int)b.len, b.data, expected);
	stoat_buf_free(&b);
}

START_TEST(test_f64_exact_text)
{
	expect_f64(0.1, "0.1");
	expect_f64(1.0, "1.0");
	expect_f64(-1.0, "-1.0");
	expect_f64(0.0, "0.0");
	expect_f64(-0.0, "-0.0");
	expect_f64(1e-7, "1e-7");
	expect_f64(1.5e-7, "1.5e-7");
	expect_f64(0.000001, "0.000001");
	/* The boundary, ECMAScript's Number::toString: plain down to 1e-6
	 * (decimal exponent -6), exponent notation below, so 1e-7 is the
	 * first value written with an exponent. */
	expect_f64(0.0000015, "0.0000015");
	expect_f64(-0.000001, "-0.000001");
	expect_f64(9.999999999999997e-7, "9.999999999999997e-7"); /* the double below 1e-6 */
	expect_f64(1e-7, "1e-7");
	expect_f64(1.0000000000000001e-7, "1.0000000000000001e-7"); /* the double above 1e-7 */
	expect_f64(-1e-7, "-1e-7");
	expect_f64(1e300, "1e300");
	expect_f64(123456789.0, "123456789.0");
	expect_f64(1e20, "100000000000000000000.0");
	expect_f64(1e21, "1e21");
	expect_f64(0.1 + 0.2, "0.30000000000000004");
	expect_f64(5e-324, "5e-324");
	expect_f64(DBL_MAX, "1.7976931348623157e308");
	expect_f64(-2.5, "-2.5");
	expect_f64(3.14159, "3.14159");
	expect_f64(1.0 / 3.0, "0.3333333333333333");
}
END_TEST

/* The shortest form always parses back to the same double (bit-exact,
 * so -0.0 keeps its sign) and is valid JSON number syntax. */
START_TEST(test_f64_round_trip)
{
	stoat_buf b;
	stoat_buf_init(&b);
	uint64_t state = 88172645463325252u;
	double fixed[] = { 0.1, 1e-7, 1e300, -0.0, 1.0, 123456789.0, DBL_MIN, DBL_MAX, 5e-324, 2.0 / 3.0,
			   9007199254740993.0, 1e23, 4.35, 0.3 };
	for (int i = 0; i < 20000; i++) {
		double v;
		if (i < (int)(sizeof fixed / sizeof fixed[0])) {
			v = fixed[i];
		} else {
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
			memcpy(&v, &state, sizeof v);
			if (!isfinite(v))
				continue;
		}
		b.len = 0;
		ck_assert(stoat_buf_put_f64(&b, v));
		stoat_buf_putc(&b, '\0');
		double back = strtod(b.data, NULL);
		ck_assert_msg(memcmp(&back, &v, sizeof v) == 0, "%s did not round-trip", b.data);
		ck_assert_msg(strchr(b.data, '.') || strchr(b.data, 'e'), "%s lacks '.' or exponent", b.data);
		/* JSON: no leading '+', no "e+", digits after '.'. */
		ck_assert_ptr_null(strstr(b.data, "e+"));
		ck_assert_ptr_null(strstr(b.data, ".e"));
	}
	stoat_buf_free(&b);
}
END_TEST

START_TEST(test_f64_not_finite)
{
	stoat_buf b;
	stoat_buf_init(&b);
	ck_assert(!stoat_buf_put_f64(&b, NAN));
	ck_assert(!stoat_buf_put_f64(&b, INFINITY));
	ck_assert(!stoat_buf_put_f64(&b, -INFINITY));
	ck_assert_uint_eq(b.len, 0);
	stoat_buf_free(&b);
}
END_TEST

START_TEST(test_i64)
{
	stoat_buf b;
	stoat_buf_init(&b);
	stoat_buf_put_i64(&b, INT64_MIN);
	stoat_buf_putc(&b, ' ');
	stoat_buf_put_i64(&b, INT64_MAX);
	stoat_buf_putc(&b, ' ');
	stoat_buf_put_i64(&b, 0);
	stoat_buf_putc(&b, ' ');
	stoat_buf_put_i64(&b, -42);
	ck_assert_uint_eq(b.len, strlen("-9223372036854775808 9223372036854775807 0 -42"));
	ck_assert(memcmp(b.data, "-9223372036854775808 9223372036854775807 0 -42", b.len) == 0);
	stoat_buf_free(&b);
}
END_TEST

START_TEST(test_json_str)
{
	stoat_buf b;
	stoat_buf_init(&b);
	const char in[] = "a\"b\\c\n\t\r\b\f\x01\x1f\xc3\xa9/";
	stoat_buf_put_json_str(&b, (stoat_str){ in, sizeof in - 1 });
	const char *want = "\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f\xc3\xa9/\"";
	ck_assert_uint_eq(b.len, strlen(want));
	ck_assert(memcmp(b.data, want, b.len) == 0);
	b.len = 0;
	stoat_buf_put_json_str(&b, (stoat_str){ "", 0 });
	ck_assert_uint_eq(b.len, 2);
	b.len = 0;
	char nul[] = { 'x', 0, 'y' };
	stoat_buf_put_json_str(&b, (stoat_str){ nul, 3 });
	ck_assert(b.len == 10 && memcmp(b.data, "\"x\\u0000y\"", 10) == 0);
	stoat_buf_free(&b);
}
END_TEST

/* Growth keeps the contents; capacity grows geometrically. */
START_TEST(test_growth)
{
	stoat_buf b;
	stoat_buf_init(&b);
	int reallocs = 0;
	size_t cap = b.cap;
	for (int i = 0; i < 100000; i++) {
		stoat_buf_putc(&b, (char)('a' + i % 26));
		if (b.cap != cap) {
			reallocs++;
			cap = b.cap;
		}
	}
	ck_assert_int_lt(reallocs, 20);
	for (int i = 0; i < 100000; i++)
		ck_assert_int_eq(b.data[i], 'a' + i % 26);
	stoat_buf_free(&b);
}
END_TEST

/* Big-endian encoders match Kafka's serializers and the decoders invert them. */
START_TEST(test_big_endian)
{
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	stoat_buf b;
	stoat_buf_init(&b);
	stoat_buf_put_be32(&b, 0x01020304);
	stoat_buf_put_be32(&b, -2);
	stoat_buf_put_be64(&b, INT64_MIN + 5);
	stoat_buf_put_be_f64(&b, 1.0);
	const unsigned char want[] = { 1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 5,
				       0x3f, 0xf0, 0, 0, 0, 0, 0, 0 };
	ck_assert_uint_eq(b.len, sizeof want);
	ck_assert(memcmp(b.data, want, sizeof want) == 0);
	int32_t i32;
	int64_t i64;
	double f;
	ck_assert(stoat_decode_be32(&cx, (stoat_str){ b.data, 4 }, &i32));
	ck_assert_int_eq(i32, 0x01020304);
	ck_assert(stoat_decode_be32(&cx, (stoat_str){ b.data + 4, 4 }, &i32));
	ck_assert_int_eq(i32, -2);
	ck_assert(stoat_decode_be64(&cx, (stoat_str){ b.data + 8, 8 }, &i64));
	ck_assert(i64 == INT64_MIN + 5);
	ck_assert(stoat_decode_be_f64(&cx, (stoat_str){ b.data + 16, 8 }, &f));
	ck_assert(f == 1.0);
	ck_assert(!cx.error);

	ck_assert(!stoat_decode_be64(&cx, (stoat_str){ b.data, 3 }, &i64));
	ck_assert(cx.error);
	ck_assert_str_eq(cx.error_message, "expected 8 bytes for i64, got 3");
	cx.error = false;
	ck_assert(!stoat_decode_be32(&cx, (stoat_str){ NULL, 0 }, &i32));
	ck_assert_str_eq(cx.error_message, "expected 4 bytes for i32, got 0");
	cx.error = false;
	ck_assert(!stoat_decode_be_f64(&cx, (stoat_str){ b.data, 9 }, &f));
	ck_assert_str_eq(cx.error_message, "expected 8 bytes for f64, got 9");
	stoat_buf_free(&b);
}
END_TEST


/* splitmix64, for reproducible random doubles. */
static uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Checks one value: fast and slow formatting give the same bytes, and
 * parsing them back (fast and strtod) gives v. */
static void check_fast_matches_slow(double v)
{
	char fast[40], slow[40];
	size_t nf = stoat_format_f64_with(fast, v, true);
	size_t ns = stoat_format_f64_with(slow, v, false);
	fast[nf] = slow[ns] = '\0';
	ck_assert_msg(nf == ns && memcmp(fast, slow, nf) == 0, "%.17g: fast %s, slow %s", v, fast, slow);
	double pf = stoat_parse_f64(fast, nf, true), ps = stoat_parse_f64(fast, nf, false);
	ck_assert_msg(memcmp(&pf, &ps, sizeof pf) == 0 && pf == v, "%s: fast %.17g, strtod %.17g", fast, pf, ps);
}

/*
 * The fast paths (formatting short decimals, Clinger's parse) give exactly
 * the bytes and doubles of the slow ones (printf and strtod), on one kind
 * of value per loop iteration (_i): cents, like amount * quantity (the
 * fast paths' case); any bit pattern; short decimals at any scale; 15 to
 * 17 significant digits.  5,000 pseudo-random values each (a fixed seed
 * per kind, so every run checks the same values): the slow path costs a
 * few printf and strtod calls per value, and the test must stay well
 * inside Check's per-test timeout under the sanitizers on a busy machine
 * (300,000 values once did not).  The edges the random values could miss
 * are checked one by one in test_f64_fast_path_edges.
 */
START_TEST(test_f64_fast_paths_match)
{
	uint64_t state = 42 + (uint64_t)_i;
	for (int i = 0; i < 5000; i++) {
		double v;
		uint64_t r = mix(&state);
		switch (_i) {
		case 0: /* cents, like amount * quantity */
			v = (double)(int64_t)(r % 100000000) / 100.0 * (double)(1 + (r >> 40) % 9);
			break;
		case 1: /* any bits */
			memcpy(&v, &r, sizeof v);
			break;
		case 2: /* short decimals at any scale */
			v = (double)(r % 1000000) * pow(10.0, (double)((int)((r >> 32) % 40) - 20));
			break;
		default: /* 15 to 17 significant digits */
			v = (double)(r % 100000000000000000ULL) / pow(10.0, (double)((r >> 60) % 16));
			break;
		}
		if (isfinite(v))
			check_fast_matches_slow(v);
	}
}
END_TEST

/*
 * The edges of the fast paths, each checked: every power of ten from
 * 1e-30 to 1e30 and its neighbouring doubles (the fast path covers
 * 1e-7 <= |v| < 1e15), 15- and 16-digit values around 1e15, tiny and huge
 * values, and texts Clinger's parse must hand to strtod.
 */
START_TEST(test_f64_fast_path_edges)
{
	for (int e = -30; e <= 30; e++) {
		double p = pow(10.0, e);
		check_fast_matches_slow(p);
		check_fast_matches_slow(-p);
		check_fast_matches_slow(nextafter(p, 0));
		check_fast_matches_slow(nextafter(p, INFINITY));
		check_fast_matches_slow(1.5 * p);
		check_fast_matches_slow(9.99999999999999 * p);
	}
	static const double values[] = { 999999999999999.0, 1000000000000001.0, 123456789012345.6,
					 0.1 + 0.2, 1.0 / 3.0, DBL_MIN, DBL_MAX, 5e-324, DBL_EPSILON, 9007199254740993.0 };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
		check_fast_matches_slow(values[i]);
	static const char *const texts[] = { "0", "-0", "1", "0.1", "123.45", "1e22", "1e23", "9007199254740993",
					     "123456789012345", "1234567890123456", "0.000000000000000000001",
					     "4.9406564584124654e-324", "1.7976931348623157e308", "2.5E-3", "-7e+2" };
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		double pf = stoat_parse_f64(texts[i], strlen(texts[i]), true);
		double ps = stoat_parse_f64(texts[i], strlen(texts[i]), false);
		ck_assert_msg(memcmp(&pf, &ps, sizeof pf) == 0, "%s: fast %.17g, strtod %.17g", texts[i], pf, ps);
	}
}
END_TEST

static Suite *buf_suite(void)
{
	Suite *s = suite_create("runtime_buf");
	TCase *tc = tcase_create("buf");
	tcase_add_test(tc, test_f64_exact_text);
	tcase_add_test(tc, test_f64_round_trip);
	tcase_add_loop_test(tc, test_f64_fast_paths_match, 0, 4);
	tcase_add_test(tc, test_f64_fast_path_edges);
	tcase_add_test(tc, test_f64_not_finite);
	tcase_add_test(tc, test_i64);
	tcase_add_test(tc, test_json_str);
	tcase_add_test(tc, test_growth);
	tcase_add_test(tc, test_big_endian);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(buf_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
