/*
 * test_runtime_values.c - the store value layout (stoat_val_put_* and
 * stoat_val_get_*) and the inverse of the store key layout
 * (stoat_key_get_*).
 *
 * Every value must read back as itself, every proper prefix of an encoding
 * must be refused (a truncated stored value is an error, never a guess),
 * bytes a put cannot produce must be refused, and decoding an encoded key
 * must give the key back.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "stoat/runtime.h"

static stoat_buf buf;

static void setup(void)
{
	stoat_buf_init(&buf);
}

static void teardown(void)
{
	stoat_buf_free(&buf);
}

static stoat_val_reader reader(void)
{
	return stoat_val_reader_of(stoat_buf_str(&buf));
}

/* The reader over the first n bytes of buf. */
static stoat_val_reader prefix(size_t n)
{
	return stoat_val_reader_of((stoat_str){ buf.data, n });
}

START_TEST(test_varint_round_trip)
{
	const uint64_t values[] = { 0, 1, 127, 128, 300, 16383, 16384, (uint64_t)1 << 35, (uint64_t)1 << 63,
		                    UINT64_MAX };
	const size_t sizes[] = { 1, 1, 1, 2, 2, 2, 3, 6, 10, 10 };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		buf.len = 0;
		stoat_val_put_varint(&buf, values[i]);
		ck_assert_uint_eq(buf.len, sizes[i]);
		stoat_val_reader r = reader();
		uint64_t got;
		ck_assert(stoat_val_get_varint(&r, &got));
		ck_assert(got == values[i]);
		ck_assert(stoat_val_end(&r));
	}
}
END_TEST

/* Zigzag: small magnitudes of either sign take one byte. */
START_TEST(test_i64_round_trip_and_size)
{
	const struct { int64_t v; size_t size; } cases[] = {
		{ 0, 1 }, { -1, 1 }, { 1, 1 }, { -64, 1 }, { 63, 1 }, { 64, 2 }, { -65, 2 },
		{ 1000000, 3 }, { INT64_MAX, 10 }, { INT64_MIN, 10 }, { INT64_MIN + 1, 10 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		buf.len = 0;
		stoat_val_put_i64(&buf, cases[i].v);
		ck_assert_uint_eq(buf.len, cases[i].size);
		stoat_val_reader r = reader();
		int64_t got;
		ck_assert(stoat_val_get_i64(&r, &got));
		ck_assert(got == cases[i].v);
		ck_assert(stoat_val_end(&r));
	}
	/* The zigzag mapping itself: 0, -1, 1, -2 are 0, 1, 2, 3. */
	buf.len = 0;
	stoat_val_put_i64(&buf, -2);
	ck_assert_uint_eq((unsigned char)buf.data[0], 3);
}
END_TEST

START_TEST(test_i32_round_trip_and_range)
{
	const int32_t values[] = { 0, -1, 1, INT32_MIN, INT32_MAX, 12345, -12345 };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		buf.len = 0;
		stoat_val_put_i32(&buf, values[i]);
		stoat_val_reader r = reader();
		int32_t got;
		ck_assert(stoat_val_get_i32(&r, &got));
		ck_assert_int_eq(got, values[i]);
		ck_assert(stoat_val_end(&r));
	}
	/* An i64 outside the i32 range is not an i32. */
	const int64_t too_big[] = { (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1, INT64_MAX };
	for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++) {
		buf.len = 0;
		stoat_val_put_i64(&buf, too_big[i]);
		stoat_val_reader r = reader();
		int32_t got;
		ck_assert(!stoat_val_get_i32(&r, &got));
	}
}
END_TEST

/* Doubles keep their exact bits, including -0.0, infinities and NaN. */
START_TEST(test_f64_round_trip)
{
	const double values[] = { 0.0, -0.0, 1.5, -2.25, 1e-310, 1.7976931348623157e308, INFINITY, -INFINITY, NAN };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		buf.len = 0;
		stoat_val_put_f64(&buf, values[i]);
		ck_assert_uint_eq(buf.len, 8);
		stoat_val_reader r = reader();
		double got;
		ck_assert(stoat_val_get_f64(&r, &got));
		ck_assert(memcmp(&got, &values[i], sizeof got) == 0);
		ck_assert(stoat_val_end(&r));
	}
	/* Little-endian: 1.0 is 3F F0 00 ... 00, so the last byte is F0... */
	buf.len = 0;
	stoat_val_put_f64(&buf, 1.0);
	ck_assert_uint_eq((unsigned char)buf.data[7], 0x3f);
	ck_assert_uint_eq((unsigned char)buf.data[6], 0xf0);
	ck_assert_uint_eq((unsigned char)buf.data[0], 0x00);
}
END_TEST

START_TEST(test_bool_presence_and_bad_bytes)
{
	stoat_val_put_bool(&buf, true);
	stoat_val_put_bool(&buf, false);
	stoat_val_put_presence(&buf, true);
	stoat_val_put_presence(&buf, false);
	ck_assert_uint_eq(buf.len, 4);
	stoat_val_reader r = reader();
	bool a, b, c, d;
	ck_assert(stoat_val_get_bool(&r, &a) && a);
	ck_assert(stoat_val_get_bool(&r, &b) && !b);
	ck_assert(stoat_val_get_presence(&r, &c) && c);
	ck_assert(stoat_val_get_presence(&r, &d) && !d);
	ck_assert(stoat_val_end(&r));
	/* A record without fields is one 0 byte. */
	buf.len = 0;
	stoat_val_put_empty(&buf);
	ck_assert_uint_eq(buf.len, 1);
	r = reader();
	ck_assert(stoat_val_get_empty(&r) && stoat_val_end(&r));
	r = prefix(0);
	ck_assert(!stoat_val_get_empty(&r));
	/* Only 0 and 1 are written. */
	buf.len = 0;
	stoat_buf_putc(&buf, 2);
	r = reader();
	ck_assert(!stoat_val_get_bool(&r, &a));
	r = reader();
	ck_assert(!stoat_val_get_presence(&r, &a));
	buf.len = 0;
	stoat_buf_putc(&buf, 1);
	r = reader();
	ck_assert(!stoat_val_get_empty(&r));
}
END_TEST

/* Strings are slices of the input; NUL bytes are ordinary bytes. */
START_TEST(test_str_round_trip)
{
	static const struct { const char *p; size_t n; } values[] = {
		{ "", 0 }, { "a", 1 }, { "\0", 1 }, { "h\0llo", 5 },
	};
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		buf.len = 0;
		stoat_val_put_str(&buf, (stoat_str){ values[i].p, values[i].n });
		ck_assert_uint_eq(buf.len, 1 + values[i].n);
		stoat_val_reader r = reader();
		stoat_str got;
		ck_assert(stoat_val_get_str(&r, &got));
		ck_assert(stoat_str_eq(got, (stoat_str){ values[i].p, values[i].n }));
		ck_assert(got.ptr == buf.data + 1); /* no copy */
		ck_assert(stoat_val_end(&r));
	}
	/* A 200-byte string has a two-byte length. */
	char big[200];
	memset(big, 'x', sizeof big);
	buf.len = 0;
	stoat_val_put_str(&buf, (stoat_str){ big, sizeof big });
	ck_assert_uint_eq(buf.len, 202);
	stoat_val_reader r = reader();
	stoat_str got;
	ck_assert(stoat_val_get_str(&r, &got));
	ck_assert_uint_eq(got.len, 200);
}
END_TEST

/*
 * A record { n: i64, name: string, score: f64?, tags: [string], ok: bool }
 * written field by field as generated code does, then read back.
 */
static void put_sample_record(void)
{
	stoat_val_put_i64(&buf, -42);
	stoat_val_put_str(&buf, STOAT_STR_LIT("ada"));
	stoat_val_put_presence(&buf, true);
	stoat_val_put_f64(&buf, 2.5);
	stoat_val_put_count(&buf, 2);
	stoat_val_put_str(&buf, STOAT_STR_LIT("x"));
	stoat_val_put_str(&buf, STOAT_STR_LIT(""));
	stoat_val_put_bool(&buf, true);
}

/* Reads the sample record; false at the first field that fails. */
static bool get_sample_record(stoat_val_reader *r)
{
	int64_t n;
	stoat_str name, tag;
	bool has, ok;
	double score;
	size_t count;
	if (!stoat_val_get_i64(r, &n) || n != -42)
		return false;
	if (!stoat_val_get_str(r, &name) || !stoat_str_eq(name, STOAT_STR_LIT("ada")))
		return false;
	if (!stoat_val_get_presence(r, &has) || !has || !stoat_val_get_f64(r, &score) || score != 2.5)
		return false;
	if (!stoat_val_get_count(r, &count) || count != 2)
		return false;
	if (!stoat_val_get_str(r, &tag) || !stoat_str_eq(tag, STOAT_STR_LIT("x")))
		return false;
	if (!stoat_val_get_str(r, &tag) || tag.len != 0)
		return false;
	return stoat_val_get_bool(r, &ok) && ok;
}

START_TEST(test_record_round_trip)
{
	put_sample_record();
	/* 1 (i64) + 4 (string) + 1 + 8 (f64?) + 1 + 2 + 1 (array) + 1 (bool) */
	ck_assert_uint_eq(buf.len, 19);
	stoat_val_reader r = reader();
	ck_assert(get_sample_record(&r));
	ck_assert(stoat_val_end(&r));
}
END_TEST

/* Every proper prefix of a record's bytes is refused somewhere. */
START_TEST(test_truncation_detected)
{
	put_sample_record();
	for (size_t n = 0; n < buf.len; n++) {
		stoat_val_reader r = prefix(n);
		ck_assert_msg(!get_sample_record(&r), "a %zu-byte prefix read as a whole record", n);
	}
	/* And one byte too many is left over, which stoat_val_end notices. */
	stoat_buf_putc(&buf, 0);
	stoat_val_reader r = reader();
	ck_assert(get_sample_record(&r));
	ck_assert(!stoat_val_end(&r));
}
END_TEST

START_TEST(test_bad_lengths_and_counts)
{
	/* A string claiming 5 bytes with 3 left. */
	stoat_val_put_varint(&buf, 5);
	stoat_buf_put(&buf, "abc", 3);
	stoat_val_reader r = reader();
	stoat_str s;
	ck_assert(!stoat_val_get_str(&r, &s));
	/* An array claiming more elements than bytes left. */
	buf.len = 0;
	stoat_val_put_count(&buf, 4);
	stoat_buf_put(&buf, "\0\0\0", 3);
	r = reader();
	size_t count;
	ck_assert(!stoat_val_get_count(&r, &count));
	/* A varint longer than 64 bits. */
	buf.len = 0;
	for (int i = 0; i < 10; i++)
		stoat_buf_putc(&buf, (char)0xff);
	stoat_buf_putc(&buf, 1);
	r = reader();
	uint64_t u;
	ck_assert(!stoat_val_get_varint(&r, &u));
	/* Ten bytes whose last carries more than the 64th bit. */
	buf.len = 0;
	for (int i = 0; i < 9; i++)
		stoat_buf_putc(&buf, (char)0x80);
	stoat_buf_putc(&buf, 2);
	r = reader();
	ck_assert(!stoat_val_get_varint(&r, &u));
	/* Nothing at all. */
	r = stoat_val_reader_of((stoat_str){ NULL, 0 });
	ck_assert(!stoat_val_get_i64(&r, &(int64_t){ 0 }));
	ck_assert(stoat_val_end(&r));
}
END_TEST

/* ---- Keys: decode(encode(x)) == x ---------------------------------- */

START_TEST(test_key_ints_round_trip)
{
	const int64_t v64[] = { INT64_MIN, -1000000000000LL, -1, 0, 1, 255, 256, INT64_MAX };
	for (size_t i = 0; i < sizeof v64 / sizeof v64[0]; i++) {
		buf.len = 0;
		stoat_key_put_i64(&buf, v64[i]);
		stoat_val_reader r = reader();
		int64_t got;
		ck_assert(stoat_key_get_i64(&r, &got));
		ck_assert(got == v64[i]);
		ck_assert(stoat_val_end(&r));
		r = prefix(7);
		ck_assert(!stoat_key_get_i64(&r, &got));
	}
	const int32_t v32[] = { INT32_MIN, -70000, -1, 0, 1, 70000, INT32_MAX };
	for (size_t i = 0; i < sizeof v32 / sizeof v32[0]; i++) {
		buf.len = 0;
		stoat_key_put_i32(&buf, v32[i]);
		stoat_val_reader r = reader();
		int32_t got;
		ck_assert(stoat_key_get_i32(&r, &got));
		ck_assert_int_eq(got, v32[i]);
		ck_assert(stoat_val_end(&r));
		r = prefix(3);
		ck_assert(!stoat_key_get_i32(&r, &got));
	}
}
END_TEST

START_TEST(test_key_f64_round_trip)
{
	const double values[] = { -INFINITY, -1e300, -2.5, -1e-300, 0.0, 1e-300, 1.0, 2.5, 1e300, INFINITY };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		buf.len = 0;
		stoat_key_put_f64(&buf, values[i]);
		stoat_val_reader r = reader();
		double got;
		ck_assert(stoat_key_get_f64(&r, &got));
		ck_assert(memcmp(&got, &values[i], sizeof got) == 0);
		ck_assert(stoat_val_end(&r));
	}
	/* -0.0 is stored as 0.0 (they are one key), and reads back as 0.0. */
	buf.len = 0;
	stoat_key_put_f64(&buf, -0.0);
	stoat_val_reader r = reader();
	double got;
	ck_assert(stoat_key_get_f64(&r, &got));
	ck_assert(got == 0.0 && !signbit(got));
}
END_TEST

START_TEST(test_key_str_round_trip)
{
	static const struct { const char *p; size_t n; } values[] = {
		{ "", 0 }, { "a", 1 }, { "\0", 1 }, { "\0\0", 2 }, { "a\0b", 3 }, { "\xff", 1 }, { "\x01", 1 },
		{ "\0\x01", 2 }, { "end\0", 4 },
	};
	stoat_arena arena;
	stoat_arena_init(&arena);
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		stoat_str want = { values[i].p, values[i].n };
		buf.len = 0;
		stoat_key_put_str(&buf, want);
		stoat_key_put_i64(&buf, 7); /* something after it, as in a composite key */
		stoat_val_reader r = reader();
		stoat_str got;
		int64_t seven;
		ck_assert(stoat_key_get_str(&r, &arena, &got));
		ck_assert(stoat_str_eq(got, want));
		ck_assert(stoat_key_get_i64(&r, &seven) && seven == 7);
		ck_assert(stoat_val_end(&r));
		/* Without NUL bytes the result is a slice of the key. */
		if (!memchr(values[i].p, 0, values[i].n) && values[i].n > 0)
			ck_assert(got.ptr == buf.data);
		/* Cut anywhere before its terminator ends, it is refused. */
		size_t encoded = buf.len - 8;
		for (size_t n = 0; n < encoded; n++) {
			r = prefix(n);
			ck_assert_msg(!stoat_key_get_str(&r, &arena, &got), "case %zu: %zu-byte prefix accepted", i, n);
		}
	}
	/* 00 followed by anything but 01 or FF cannot have been written. */
	buf.len = 0;
	stoat_buf_put(&buf, "a\0\x02", 3);
	stoat_val_reader r = reader();
	stoat_str got;
	ck_assert(!stoat_key_get_str(&r, &arena, &got));
	stoat_arena_free(&arena);
}
END_TEST

/* A composite key as generated code writes one: (bool, string?, [i32]). */
START_TEST(test_key_composite_round_trip)
{
	stoat_arena arena;
	stoat_arena_init(&arena);
	const int32_t items[] = { -5, 0, 9 };
	stoat_key_put_bool(&buf, true);
	stoat_key_put_presence(&buf, true);
	stoat_key_put_str(&buf, STOAT_STR_LIT("k\0y"));
	for (size_t i = 0; i < 3; i++) {
		stoat_buf_putc(&buf, 1);
		stoat_key_put_i32(&buf, items[i]);
	}
	stoat_buf_putc(&buf, 0);
	stoat_key_put_presence(&buf, false);

	stoat_val_reader r = reader();
	bool flag, has, more;
	stoat_str s;
	ck_assert(stoat_key_get_bool(&r, &flag) && flag);
	ck_assert(stoat_key_get_presence(&r, &has) && has);
	ck_assert(stoat_key_get_str(&r, &arena, &s));
	ck_assert(stoat_str_eq(s, STOAT_STR_LIT("k\0y")));
	for (size_t i = 0; i < 3; i++) {
		int32_t x;
		ck_assert(stoat_key_get_array_next(&r, &more) && more);
		ck_assert(stoat_key_get_i32(&r, &x) && x == items[i]);
	}
	ck_assert(stoat_key_get_array_next(&r, &more) && !more);
	ck_assert(stoat_key_get_presence(&r, &has) && !has);
	ck_assert(stoat_val_end(&r));
	stoat_arena_free(&arena);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runtime_values");
	TCase *tc = tcase_create("values");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_varint_round_trip);
	tcase_add_test(tc, test_i64_round_trip_and_size);
	tcase_add_test(tc, test_i32_round_trip_and_range);
	tcase_add_test(tc, test_f64_round_trip);
	tcase_add_test(tc, test_bool_presence_and_bad_bytes);
	tcase_add_test(tc, test_str_round_trip);
	tcase_add_test(tc, test_record_round_trip);
	tcase_add_test(tc, test_truncation_detected);
	tcase_add_test(tc, test_bad_lengths_and_counts);
	suite_add_tcase(s, tc);
	TCase *keys = tcase_create("keys");
	tcase_add_checked_fixture(keys, setup, teardown);
	tcase_add_test(keys, test_key_ints_round_trip);
	tcase_add_test(keys, test_key_f64_round_trip);
	tcase_add_test(keys, test_key_str_round_trip);
	tcase_add_test(keys, test_key_composite_round_trip);
	suite_add_tcase(s, keys);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
