/*
 * test_runtime_avro.c - unit tests for Avro's binary encoding
 * (runtime/include/stoat/avro.h).
 *
 * The expected bytes are the Avro specification's own examples ("Binary
 * Encoding": long 0, -1, 1, -2, 2, -64, 64 and the string "foo"; the
 * array of longs 3, 27) and, beyond them, worked out by hand from its
 * rules (zigzag, then 7 bits a byte, low bits first; IEEE 754
 * little-endian).
 */
#include <stoat/avro.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* Asserts that buf holds exactly the bytes listed. */
#define ASSERT_BYTES(buf, ...)                                                                       \
	do {                                                                                         \
		static const unsigned char w_[] = { __VA_ARGS__ };                                   \
		ck_assert_uint_eq((buf).len, sizeof w_);                                             \
		ck_assert_msg(memcmp((buf).data, w_, sizeof w_) == 0, "the bytes differ");           \
	} while (0)

static stoat_str bytes(const char *p, size_t n)
{
	return (stoat_str){ p, n };
}

static void put_long(int64_t v, stoat_buf *b)
{
	b->len = 0;
	stoat_avro_put_long(b, v);
}

START_TEST(long_spec_examples)
{
	stoat_buf b;
	stoat_buf_init(&b);
	put_long(0, &b);
	ASSERT_BYTES(b, 0x00);
	put_long(-1, &b);
	ASSERT_BYTES(b, 0x01);
	put_long(1, &b);
	ASSERT_BYTES(b, 0x02);
	put_long(-2, &b);
	ASSERT_BYTES(b, 0x03);
	put_long(2, &b);
	ASSERT_BYTES(b, 0x04);
	put_long(-64, &b);
	ASSERT_BYTES(b, 0x7f);
	put_long(64, &b);
	ASSERT_BYTES(b, 0x80, 0x01);
	stoat_buf_free(&b);
}
END_TEST

START_TEST(long_extremes)
{
	stoat_buf b;
	stoat_buf_init(&b);
	/* zigzag(INT64_MAX) = 2^64 - 2: nine bytes of 7 ones (the first without its lowest), then 1. */
	put_long(INT64_MAX, &b);
	ASSERT_BYTES(b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	put_long(INT64_MIN, &b);
	ASSERT_BYTES(b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	/* 8192 = 2^13: zigzag 2^14, bits 14 and up in the third byte. */
	put_long(8192, &b);
	ASSERT_BYTES(b, 0x80, 0x80, 0x01);
	stoat_buf_free(&b);
}
END_TEST

START_TEST(long_round_trip)
{
	static const int64_t vs[] = { 0, 1, -1, 63, -64, 64, -65, 127, 128, 300, -300, 1LL << 31, -(1LL << 31),
				      (1LL << 31) - 1, 1LL << 62, -(1LL << 62), INT64_MAX, INT64_MIN };
	stoat_buf b;
	stoat_buf_init(&b);
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		put_long(vs[i], &b);
		stoat_avro_reader r = stoat_avro_reader_of(bytes(b.data, b.len));
		int64_t got;
		ck_assert(stoat_avro_get_long(&r, &got));
		ck_assert_int_eq(got, vs[i]);
		ck_assert(stoat_avro_end(&r));
	}
	stoat_buf_free(&b);
}
END_TEST

START_TEST(long_malformed)
{
	int64_t v;
	/* Cut short: a continuation bit on the last byte. */
	stoat_avro_reader r = stoat_avro_reader_of(bytes("\x80", 1));
	ck_assert(!stoat_avro_get_long(&r, &v));
	/* Empty. */
	r = stoat_avro_reader_of(bytes("", 0));
	ck_assert(!stoat_avro_get_long(&r, &v));
	/* Eleven bytes: more than 64 bits. */
	r = stoat_avro_reader_of(bytes("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11));
	ck_assert(!stoat_avro_get_long(&r, &v));
	/* Ten bytes whose last carries bits above the 64th. */
	r = stoat_avro_reader_of(bytes("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10));
	ck_assert(!stoat_avro_get_long(&r, &v));
}
END_TEST

START_TEST(int_range)
{
	int32_t v;
	/* 2^31 as a long (zigzag 2^32): not an int. */
	stoat_avro_reader r = stoat_avro_reader_of(bytes("\x80\x80\x80\x80\x10", 5));
	ck_assert(!stoat_avro_get_int(&r, &v));
	/* 2^31 - 1 (zigzag 2^32 - 2): the largest int. */
	r = stoat_avro_reader_of(bytes("\xfe\xff\xff\xff\x0f", 5));
	ck_assert(stoat_avro_get_int(&r, &v));
	ck_assert_int_eq(v, INT32_MAX);
	/* -2^31 (zigzag 2^32 - 1): the least. */
	r = stoat_avro_reader_of(bytes("\xff\xff\xff\xff\x0f", 5));
	ck_assert(stoat_avro_get_int(&r, &v));
	ck_assert_int_eq(v, INT32_MIN);
}
END_TEST

START_TEST(string_spec_example)
{
	stoat_buf b;
	stoat_buf_init(&b);
	stoat_avro_put_str(&b, STOAT_STR_LIT("foo"));
	ASSERT_BYTES(b, 0x06, 'f', 'o', 'o');
	stoat_avro_reader r = stoat_avro_reader_of(bytes(b.data, b.len));
	stoat_str s;
	ck_assert(stoat_avro_get_str(&r, &s));
	ck_assert(s.len == 3 && memcmp(s.ptr, "foo", 3) == 0);
	/* A slice of the message, not a copy. */
	ck_assert_ptr_eq(s.ptr, b.data + 1);
	ck_assert(stoat_avro_end(&r));
	stoat_buf_free(&b);
}
END_TEST

START_TEST(string_malformed)
{
	stoat_str s;
	/* Length -1. */
	stoat_avro_reader r = stoat_avro_reader_of(bytes("\x01", 1));
	ck_assert(!stoat_avro_get_str(&r, &s));
	/* Length 3, two bytes left; the cursor stays where the string began. */
	r = stoat_avro_reader_of(bytes("\x06" "ab", 3));
	ck_assert(!stoat_avro_get_str(&r, &s));
	ck_assert_ptr_eq(r.p, r.start);
	/* Length 0: the empty string. */
	r = stoat_avro_reader_of(bytes("\x00", 1));
	ck_assert(stoat_avro_get_str(&r, &s));
	ck_assert_uint_eq(s.len, 0);
}
END_TEST

START_TEST(floats)
{
	stoat_buf b;
	stoat_buf_init(&b);
	stoat_avro_put_double(&b, 1.0);
	ASSERT_BYTES(b, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f);
	b.len = 0;
	stoat_avro_put_float(&b, 1.0);
	ASSERT_BYTES(b, 0, 0, 0x80, 0x3f);
	b.len = 0;
	/* -2.5 = -1.25 * 2^1: float 0xc0200000. */
	stoat_avro_put_float(&b, -2.5);
	ASSERT_BYTES(b, 0, 0, 0x20, 0xc0);
	stoat_avro_reader r = stoat_avro_reader_of(bytes(b.data, b.len));
	double d;
	ck_assert(stoat_avro_get_float(&r, &d));
	ck_assert(d == -2.5);
	/* 0.1 is no float: it comes back as the nearest one. */
	b.len = 0;
	stoat_avro_put_float(&b, 0.1);
	r = stoat_avro_reader_of(bytes(b.data, b.len));
	ck_assert(stoat_avro_get_float(&r, &d));
	ck_assert(d == (double)0.1f);
	/* Cut short. */
	r = stoat_avro_reader_of(bytes("\0\0\0", 3));
	ck_assert(!stoat_avro_get_float(&r, &d));
	r = stoat_avro_reader_of(bytes("\0\0\0\0\0\0\0", 7));
	ck_assert(!stoat_avro_get_double(&r, &d));
	stoat_buf_free(&b);
}
END_TEST

START_TEST(booleans)
{
	bool v;
	stoat_avro_reader r = stoat_avro_reader_of(bytes("\x01\x00\x02", 3));
	ck_assert(stoat_avro_get_bool(&r, &v) && v);
	ck_assert(stoat_avro_get_bool(&r, &v) && !v);
	ck_assert(!stoat_avro_get_bool(&r, &v));
}
END_TEST

START_TEST(union_and_enum_index)
{
	int i;
	/* Branch 1 of two: the long 1. */
	stoat_avro_reader r = stoat_avro_reader_of(bytes("\x02", 1));
	ck_assert(stoat_avro_get_index(&r, 2, &i));
	ck_assert_int_eq(i, 1);
	/* Branch 2 of two: none. */
	r = stoat_avro_reader_of(bytes("\x04", 1));
	ck_assert(!stoat_avro_get_index(&r, 2, &i));
	/* -1: none. */
	r = stoat_avro_reader_of(bytes("\x01", 1));
	ck_assert(!stoat_avro_get_index(&r, 2, &i));
}
END_TEST

START_TEST(array_spec_example)
{
	/* The specification's array of longs {3, 27}: 04 06 36 00. */
	stoat_buf b;
	stoat_buf_init(&b);
	stoat_avro_put_block(&b, 2);
	stoat_avro_put_long(&b, 3);
	stoat_avro_put_long(&b, 27);
	stoat_avro_put_end(&b);
	ASSERT_BYTES(b, 0x04, 0x06, 0x36, 0x00);
	stoat_avro_reader r = stoat_avro_reader_of(bytes(b.data, b.len));
	size_t n;
	int64_t v;
	ck_assert(stoat_avro_get_block(&r, 100, &n));
	ck_assert_uint_eq(n, 2);
	ck_assert(stoat_avro_get_long(&r, &v) && v == 3);
	ck_assert(stoat_avro_get_long(&r, &v) && v == 27);
	ck_assert(stoat_avro_get_block(&r, 100, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert(stoat_avro_end(&r));
	/* No items: the end block alone. */
	b.len = 0;
	stoat_avro_put_block(&b, 0);
	stoat_avro_put_end(&b);
	ASSERT_BYTES(b, 0x00);
	stoat_buf_free(&b);
}
END_TEST

START_TEST(array_negative_count)
{
	/* Count -2 (03), block size 2 bytes (04), the longs 3 and 27, the end. */
	stoat_avro_reader r = stoat_avro_reader_of(bytes("\x03\x04\x06\x36\x00", 5));
	size_t n;
	ck_assert(stoat_avro_get_block(&r, 100, &n));
	ck_assert_uint_eq(n, 2);
	/* A block size beyond the message. */
	r = stoat_avro_reader_of(bytes("\x03\x20\x06\x36\x00", 5));
	ck_assert(!stoat_avro_get_block(&r, 100, &n));
	/* A count above the limit (a hostile 2^40). */
	r = stoat_avro_reader_of(bytes("\x80\x80\x80\x80\x80\x40", 6));
	ck_assert(!stoat_avro_get_block(&r, 100, &n));
}
END_TEST

START_TEST(fixed)
{
	stoat_str s;
	stoat_avro_reader r = stoat_avro_reader_of(bytes("abcde", 5));
	ck_assert(stoat_avro_get_fixed(&r, 4, &s));
	ck_assert(s.len == 4 && memcmp(s.ptr, "abcd", 4) == 0);
	ck_assert(!stoat_avro_get_fixed(&r, 2, &s));
}
END_TEST

static Suite *avro_suite(void)
{
	Suite *s = suite_create("avro");
	TCase *tc = tcase_create("binary");
	tcase_add_test(tc, long_spec_examples);
	tcase_add_test(tc, long_extremes);
	tcase_add_test(tc, long_round_trip);
	tcase_add_test(tc, long_malformed);
	tcase_add_test(tc, int_range);
	tcase_add_test(tc, string_spec_example);
	tcase_add_test(tc, string_malformed);
	tcase_add_test(tc, floats);
	tcase_add_test(tc, booleans);
	tcase_add_test(tc, union_and_enum_index);
	tcase_add_test(tc, array_spec_example);
	tcase_add_test(tc, array_negative_count);
	tcase_add_test(tc, fixed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(avro_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
