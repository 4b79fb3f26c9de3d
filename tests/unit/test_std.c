/*
 * test_std.c - unit tests for the standard library (stdlib/std.c).
 *
 * Every expected value is worked out by hand (time values were checked
 * against the proleptic Gregorian calendar; hash values are the published
 * FNV-1a test vectors).  Each test runs with a fresh context whose arena is
 * freed afterwards, so the sanitizers see every allocation.
 */
#include <stoat/std.h>

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static stoat_ctx cx;

#define S(lit) STOAT_STR_LIT(lit)

/* Gives each test a zeroed context with an empty arena. */
static void setup(void)
{
	memset(&cx, 0, sizeof(cx));
	stoat_arena_init(&cx.arena);
}

/* Releases the test's arena. */
static void teardown(void)
{
	stoat_arena_free(&cx.arena);
}

/* Asserts that no per-record error has been reported. */
#define ASSERT_OK() ck_assert_msg(!cx.error, "unexpected error: %s", cx.error_message)

/* Asserts that a string result equals a C string and no error was reported. */
#define ASSERT_STR(got, want)                                                                         \
	do {                                                                                          \
		stoat_str g_ = (got);                                                                 \
		const char *w_ = (want);                                                              \
		ASSERT_OK();                                                                          \
		ck_assert_msg(g_.ptr != NULL, "result has a NULL ptr");                               \
		ck_assert_msg(g_.len == strlen(w_) && memcmp(g_.ptr, w_, g_.len) == 0,                \
			      "got \"%.*s\" (%zu bytes), want \"%s\"", (int)g_.len, g_.ptr, g_.len, w_); \
	} while (0)

/* Asserts an i64 result and no error. */
#define ASSERT_I64(got, want)                                      \
	do {                                                       \
		int64_t g_ = (got);                                \
		ASSERT_OK();                                       \
		ck_assert_int_eq(g_, (int64_t)(want));             \
	} while (0)

/* Asserts an f64 result bit for bit (so -0.0 != 0.0) and no error. */
#define ASSERT_F64(got, want)                                                             \
	do {                                                                              \
		double g_ = (got), w_ = (want);                                           \
		ASSERT_OK();                                                              \
		ck_assert_msg(memcmp(&g_, &w_, sizeof(double)) == 0, "got %.17g, want %.17g", g_, w_); \
	} while (0)

/*
 * Asserts that a per-record error was reported whose message contains
 * `part`, then clears it for the next check.
 */
#define ASSERT_ERR(part)                                                                       \
	do {                                                                                   \
		ck_assert_msg(cx.error, "expected an error containing '%s'", (part));          \
		ck_assert_msg(strstr(cx.error_message, (part)) != NULL, "error '%s' lacks '%s'", \
			      cx.error_message, (part));                                       \
		cx.error = false;                                                              \
		cx.error_message[0] = '\0';                                                    \
	} while (0)

/* Asserts a failed call's zero i64 result and its error message. */
#define ASSERT_I64_ERR(got, want, part)                            \
	do {                                                       \
		int64_t g_ = (got);                                \
		ck_assert_int_eq(g_, (int64_t)(want));             \
		ASSERT_ERR(part);                                  \
	} while (0)

/* Asserts a failed call's zero f64 result and its error message. */
#define ASSERT_F64_ERR(got, want, part)                                                   \
	do {                                                                              \
		double g_ = (got), w_ = (want);                                           \
		ck_assert_msg(memcmp(&g_, &w_, sizeof(double)) == 0, "got %.17g, want %.17g", g_, w_); \
		ASSERT_ERR(part);                                                         \
	} while (0)

/* Asserts that an array of strings equals want[0..n) and no error was reported. */
static void check_arr(stoat_arr_str a, const char *const *want, size_t n, int line)
{
	ck_assert_msg(!cx.error, "line %d: unexpected error: %s", line, cx.error_message);
	ck_assert_msg(a.len == n, "line %d: got %zu items, want %zu", line, a.len, n);
	for (size_t i = 0; i < n; i++) {
		stoat_str g = a.items[i];
		ck_assert_msg(g.ptr != NULL && g.len == strlen(want[i]) && memcmp(g.ptr, want[i], g.len) == 0,
			      "line %d: item %zu is \"%.*s\", want \"%s\"", line, i, (int)g.len,
			      g.ptr ? g.ptr : "", want[i]);
	}
}

#define ASSERT_ARR(got, ...)                                                              \
	do {                                                                              \
		static const char *const w_[] = { __VA_ARGS__ };                          \
		check_arr((got), w_, sizeof(w_) / sizeof(w_[0]), __LINE__);               \
	} while (0)

/* The null-marking string the driver uses for absent keys and values. */
static const stoat_str NULLSTR = { NULL, 0 };

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

/* len counts bytes; the bytes and array overloads count bytes and items. */
START_TEST(test_len)
{
	ASSERT_I64(stoat_std_len(&cx, S("")), 0);
	ASSERT_I64(stoat_std_len(&cx, NULLSTR), 0);
	ASSERT_I64(stoat_std_len(&cx, S("hello")), 5);
	ASSERT_I64(stoat_std_len(&cx, S("h\xc3\xa9llo")), 6); /* é is 2 bytes */
	ASSERT_I64(stoat_std_len_bytes(&cx, S("a\0b")), 3);
	stoat_str items[2] = { S("a"), S("b") };
	ASSERT_I64(stoat_std_len_arr_str(&cx, (stoat_arr_str){ items, 2 }), 2);
	ASSERT_I64(stoat_std_len_arr_str(&cx, (stoat_arr_str){ NULL, 0 }), 0);
}
END_TEST

/* char_len counts code points, and each byte of malformed UTF-8 as one. */
START_TEST(test_char_len)
{
	ASSERT_I64(stoat_std_char_len(&cx, S("")), 0);
	ASSERT_I64(stoat_std_char_len(&cx, NULLSTR), 0);
	ASSERT_I64(stoat_std_char_len(&cx, S("hello")), 5);
	ASSERT_I64(stoat_std_char_len(&cx, S("h\xc3\xa9llo")), 5);
	ASSERT_I64(stoat_std_char_len(&cx, S("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e")), 3); /* 日本語 */
	ASSERT_I64(stoat_std_char_len(&cx, S("\xf0\x9f\x98\x80")), 1);                   /* U+1F600 */
	/* Each byte of an ill-formed sequence counts as one. */
	ASSERT_I64(stoat_std_char_len(&cx, S("\xff\xfe")), 2);
	ASSERT_I64(stoat_std_char_len(&cx, S("a\xe6\x97")), 3);     /* truncated 3-byte sequence */
	ASSERT_I64(stoat_std_char_len(&cx, S("\xc0\x80")), 2);      /* overlong NUL */
	ASSERT_I64(stoat_std_char_len(&cx, S("\xed\xa0\x80")), 3);  /* surrogate U+D800 */
	ASSERT_I64(stoat_std_char_len(&cx, S("\xf4\x90\x80\x80")), 4); /* above U+10FFFF */
}
END_TEST

/* lower and upper change ASCII letters only and return unchanged input as is. */
START_TEST(test_lower_upper)
{
	stoat_str in = S("abc 123");
	ASSERT_STR(stoat_std_lower(&cx, S("HeLLo")), "hello");
	ASSERT_STR(stoat_std_upper(&cx, S("HeLLo")), "HELLO");
	ASSERT_STR(stoat_std_lower(&cx, S("")), "");
	ASSERT_STR(stoat_std_lower(&cx, NULLSTR), "");
	ASSERT_STR(stoat_std_upper(&cx, NULLSTR), "");
	ASSERT_STR(stoat_std_lower(&cx, S("@[`{")), "@[`{"); /* the bytes around A-Z and a-z */
	ASSERT_STR(stoat_std_upper(&cx, S("@[`{")), "@[`{");
	/* Non-ASCII bytes are left alone: À stays À, ß stays ß. */
	ASSERT_STR(stoat_std_lower(&cx, S("\xc3\x80" "B")), "\xc3\x80" "b");
	ASSERT_STR(stoat_std_upper(&cx, S("stra\xc3\x9f" "e 1")), "STRA\xc3\x9f" "E 1");
	/* Nothing to change: the argument itself comes back. */
	ck_assert_ptr_eq(stoat_std_lower(&cx, in).ptr, in.ptr);
	stoat_str up = S("ABC");
	ck_assert_ptr_eq(stoat_std_upper(&cx, up).ptr, up.ptr);
}
END_TEST

/* trim, trim_start and trim_end strip ASCII whitespace only. */
START_TEST(test_trim)
{
	ASSERT_STR(stoat_std_trim(&cx, S("  a b \t\n")), "a b");
	ASSERT_STR(stoat_std_trim(&cx, S("\r\n\v\f x")), "x");
	ASSERT_STR(stoat_std_trim(&cx, S("")), "");
	ASSERT_STR(stoat_std_trim(&cx, NULLSTR), "");
	ASSERT_STR(stoat_std_trim(&cx, S("   ")), "");
	ASSERT_STR(stoat_std_trim(&cx, S("x")), "x");
	ASSERT_STR(stoat_std_trim_start(&cx, S("  x ")), "x ");
	ASSERT_STR(stoat_std_trim_end(&cx, S("  x ")), "  x");
	/* U+00A0 (no-break space) is not ASCII whitespace. */
	ASSERT_STR(stoat_std_trim(&cx, S("\xc2\xa0x")), "\xc2\xa0x");
	/* A NUL byte is not whitespace either. */
	ASSERT_I64((int64_t)stoat_std_trim(&cx, S(" \0 ")).len, 1);
}
END_TEST

/* substr clamps to the string and rejects negative start and count. */
START_TEST(test_substr)
{
	ASSERT_STR(stoat_std_substr(&cx, S("hello"), 1, 3), "ell");
	ASSERT_STR(stoat_std_substr(&cx, S("hello"), 0, 5), "hello");
	ASSERT_STR(stoat_std_substr(&cx, S("hello"), 0, 0), "");
	ASSERT_STR(stoat_std_substr(&cx, S("hello"), 3, 100), "lo");
	ASSERT_STR(stoat_std_substr(&cx, S("hello"), 0, INT64_MAX), "hello");
	ASSERT_STR(stoat_std_substr(&cx, S("hello"), 5, 1), "");
	ASSERT_STR(stoat_std_substr(&cx, S("hello"), 99, 1), "");
	ASSERT_STR(stoat_std_substr(&cx, S("hello"), INT64_MAX, INT64_MAX), "");
	ASSERT_STR(stoat_std_substr(&cx, S(""), 0, 3), "");
	ASSERT_STR(stoat_std_substr(&cx, NULLSTR, 0, 3), "");
	stoat_str r = stoat_std_substr(&cx, S("hello"), -1, 2);
	ASSERT_ERR("substr: negative start -1");
	ck_assert_uint_eq(r.len, 0);
	stoat_std_substr(&cx, S("hello"), 1, -2);
	ASSERT_ERR("substr: negative count -2");
	stoat_std_substr(&cx, S("hello"), INT64_MIN, 0);
	ASSERT_ERR("negative start");
}
END_TEST

/* contains, starts_with, ends_with and index_of, with empty needles. */
START_TEST(test_search)
{
	ck_assert(stoat_std_contains(&cx, S("hello"), S("ll")));
	ck_assert(stoat_std_contains(&cx, S("hello"), S("")));
	ck_assert(stoat_std_contains(&cx, S(""), S("")));
	ck_assert(stoat_std_contains(&cx, NULLSTR, NULLSTR));
	ck_assert(!stoat_std_contains(&cx, S(""), S("a")));
	ck_assert(!stoat_std_contains(&cx, S("hello"), S("hello!")));
	ck_assert(!stoat_std_contains(&cx, S("hello"), S("L")));
	ck_assert(stoat_std_contains(&cx, S("a\0b"), S("\0b")));

	ck_assert(stoat_std_starts_with(&cx, S("hello"), S("he")));
	ck_assert(stoat_std_starts_with(&cx, S("hello"), S("")));
	ck_assert(stoat_std_starts_with(&cx, NULLSTR, S("")));
	ck_assert(stoat_std_starts_with(&cx, S("hello"), S("hello")));
	ck_assert(!stoat_std_starts_with(&cx, S("he"), S("hello")));
	ck_assert(!stoat_std_starts_with(&cx, S("hello"), S("el")));

	ck_assert(stoat_std_ends_with(&cx, S("hello"), S("lo")));
	ck_assert(stoat_std_ends_with(&cx, S("hello"), S("")));
	ck_assert(stoat_std_ends_with(&cx, NULLSTR, NULLSTR));
	ck_assert(!stoat_std_ends_with(&cx, S("lo"), S("hello")));
	ck_assert(!stoat_std_ends_with(&cx, S("hello"), S("he")));

	ASSERT_I64(stoat_std_index_of(&cx, S("hello"), S("lo")), 3);
	ASSERT_I64(stoat_std_index_of(&cx, S("hello"), S("l")), 2);
	ASSERT_I64(stoat_std_index_of(&cx, S("abcabc"), S("c")), 2);
	ASSERT_I64(stoat_std_index_of(&cx, S("hello"), S("")), 0);
	ASSERT_I64(stoat_std_index_of(&cx, S(""), S("")), 0);
	ASSERT_I64(stoat_std_index_of(&cx, S(""), S("a")), -1);
	ASSERT_I64(stoat_std_index_of(&cx, S("hello"), S("x")), -1);
	ASSERT_I64(stoat_std_index_of(&cx, S("hello"), S("hello world")), -1);
	ASSERT_I64(stoat_std_index_of(&cx, S("h\xc3\xa9llo"), S("l")), 3); /* a byte offset */
}
END_TEST

/* replace: non-overlapping, left to right; empty pattern and 16 MiB limit. */
START_TEST(test_replace)
{
	stoat_str in = S("abc");
	ASSERT_STR(stoat_std_replace(&cx, S("a.b.c"), S("."), S("--")), "a--b--c");
	ASSERT_STR(stoat_std_replace(&cx, S("aaaa"), S("aa"), S("b")), "bb");
	ASSERT_STR(stoat_std_replace(&cx, S("aaa"), S("aa"), S("b")), "ba");
	ASSERT_STR(stoat_std_replace(&cx, S("abc"), S("b"), S("")), "ac");
	ASSERT_STR(stoat_std_replace(&cx, S("abc"), S("abc"), S("")), "");
	ASSERT_STR(stoat_std_replace(&cx, S(""), S("a"), S("b")), "");
	ASSERT_STR(stoat_std_replace(&cx, NULLSTR, S("a"), S("b")), "");
	ASSERT_STR(stoat_std_replace(&cx, S("x"), S("x"), S("yyy")), "yyy");
	ASSERT_STR(stoat_std_replace(&cx, S("ab"), S("b"), S("bb")), "abb"); /* no re-scan of output */
	/* No occurrence: the argument itself comes back. */
	ck_assert_ptr_eq(stoat_std_replace(&cx, in, S("x"), S("y")).ptr, in.ptr);
	ASSERT_OK();

	stoat_std_replace(&cx, S("abc"), S(""), S("x"));
	ASSERT_ERR("replace: the string to replace is empty");

	/* 1 MiB of 'a', each replaced by 17 bytes: 17 MiB is over the limit. */
	size_t n = (size_t)1 << 20;
	char *big = stoat_arena_alloc(&cx.arena, n);
	memset(big, 'a', n);
	stoat_str r = stoat_std_replace(&cx, (stoat_str){ big, n }, S("a"), S("0123456789abcdefg"));
	ASSERT_ERR("longer than 16 MiB");
	ck_assert_uint_eq(r.len, 0);
	/* 16 bytes each is exactly 16 MiB: allowed. */
	r = stoat_std_replace(&cx, (stoat_str){ big, n }, S("a"), S("0123456789abcdef"));
	ASSERT_OK();
	ck_assert_uint_eq(r.len, STOAT_STD_MAX_STRING);
	ck_assert(memcmp(r.ptr + r.len - 16, "0123456789abcdef", 16) == 0);
}
END_TEST

/* split keeps every empty part; an empty separator is an error. */
START_TEST(test_split)
{
	ASSERT_ARR(stoat_std_split(&cx, S("a,b,,c,"), S(",")), "a", "b", "", "c", "");
	ASSERT_ARR(stoat_std_split(&cx, S(",a"), S(",")), "", "a");
	ASSERT_ARR(stoat_std_split(&cx, S(""), S(",")), "");
	ASSERT_ARR(stoat_std_split(&cx, NULLSTR, S(",")), "");
	ASSERT_ARR(stoat_std_split(&cx, S(","), S(",")), "", "");
	ASSERT_ARR(stoat_std_split(&cx, S("abc"), S(",")), "abc");
	ASSERT_ARR(stoat_std_split(&cx, S("a::b"), S("::")), "a", "b");
	ASSERT_ARR(stoat_std_split(&cx, S("a:::b"), S("::")), "a", ":b");
	ASSERT_ARR(stoat_std_split(&cx, S("a b  c"), S(" ")), "a", "b", "", "c");

	stoat_arr_str r = stoat_std_split(&cx, S("a,b"), S(""));
	ASSERT_ERR("split: the separator is empty");
	ck_assert_uint_eq(r.len, 0);
}
END_TEST

/* split_words: runs of ASCII alphanumerics and bytes >= 0x80. */
START_TEST(test_split_words)
{
	ASSERT_ARR(stoat_std_split_words(&cx, S("Hello, world! It's 2024")), "Hello", "world", "It", "s", "2024");
	ASSERT_ARR(stoat_std_split_words(&cx, S("a")), "a");
	ASSERT_ARR(stoat_std_split_words(&cx, S("  the\tquick\nfox  ")), "the", "quick", "fox");
	ASSERT_ARR(stoat_std_split_words(&cx, S("snake_case-and.dots")), "snake", "case", "and", "dots");
	/* UTF-8 letters (bytes >= 0x80) stay inside their word. */
	ASSERT_ARR(stoat_std_split_words(&cx, S("na\xc3\xafve caf\xc3\xa9")), "na\xc3\xafve", "caf\xc3\xa9");
	ASSERT_ARR(stoat_std_split_words(&cx, S("\xc3\x80" "b-\xff")), "\xc3\x80" "b", "\xff"); /* 0x80 and 0xff */

	stoat_arr_str r = stoat_std_split_words(&cx, S(""));
	ASSERT_OK();
	ck_assert_uint_eq(r.len, 0);
	r = stoat_std_split_words(&cx, NULLSTR);
	ck_assert_uint_eq(r.len, 0);
	r = stoat_std_split_words(&cx, S(" ,.!' "));
	ck_assert_uint_eq(r.len, 0);
	ASSERT_OK();
}
END_TEST

/* join, its inverse relation to split, and its size limit. */
START_TEST(test_join)
{
	stoat_str abc[3] = { S("a"), S("b"), S("c") };
	stoat_str one[1] = { S("x") };
	stoat_str empties[2] = { S(""), S("") };
	ASSERT_STR(stoat_std_join(&cx, (stoat_arr_str){ abc, 3 }, S(", ")), "a, b, c");
	ASSERT_STR(stoat_std_join(&cx, (stoat_arr_str){ abc, 3 }, S("")), "abc");
	ASSERT_STR(stoat_std_join(&cx, (stoat_arr_str){ NULL, 0 }, S(",")), "");
	ASSERT_STR(stoat_std_join(&cx, (stoat_arr_str){ one, 1 }, S(",")), "x");
	ASSERT_STR(stoat_std_join(&cx, (stoat_arr_str){ empties, 2 }, S("-")), "-");
	/* join undoes split. */
	stoat_str s = S(",a,,b,");
	ASSERT_STR(stoat_std_join(&cx, stoat_std_split(&cx, s, S(",")), S(",")), ",a,,b,");

	/* Two 9 MiB parts make more than 16 MiB. */
	size_t n = (size_t)9 << 20;
	char *big = stoat_arena_alloc(&cx.arena, n);
	memset(big, 'j', n);
	stoat_str two[2] = { { big, n }, { big, n } };
	stoat_std_join(&cx, (stoat_arr_str){ two, 2 }, S(""));
	ASSERT_ERR("join: the result would be longer than 16 MiB");
}
END_TEST

/* repeat, including the exact 16 MiB boundary and huge counts. */
START_TEST(test_repeat)
{
	ASSERT_STR(stoat_std_repeat(&cx, S("ab"), 3), "ababab");
	ASSERT_STR(stoat_std_repeat(&cx, S("ab"), 1), "ab");
	ASSERT_STR(stoat_std_repeat(&cx, S("ab"), 0), "");
	ASSERT_STR(stoat_std_repeat(&cx, S(""), 5), "");
	ASSERT_STR(stoat_std_repeat(&cx, NULLSTR, INT64_MAX), "");

	stoat_std_repeat(&cx, S("ab"), -1);
	ASSERT_ERR("repeat: negative count -1");
	/* Exactly 16 MiB is allowed, one more repetition is not. */
	stoat_str r = stoat_std_repeat(&cx, S("ab"), 8 * 1024 * 1024);
	ASSERT_OK();
	ck_assert_uint_eq(r.len, STOAT_STD_MAX_STRING);
	ck_assert(r.ptr[r.len - 2] == 'a' && r.ptr[r.len - 1] == 'b');
	stoat_std_repeat(&cx, S("ab"), 8 * 1024 * 1024 + 1);
	ASSERT_ERR("longer than 16 MiB");
	stoat_std_repeat(&cx, S("x"), INT64_MAX);
	ASSERT_ERR("longer than 16 MiB");
}
END_TEST

/* pad_left and pad_right with one- and multi-byte fills. */
START_TEST(test_pad)
{
	ASSERT_STR(stoat_std_pad_left(&cx, S("42"), 5, S("0")), "00042");
	ASSERT_STR(stoat_std_pad_left(&cx, S("12345"), 3, S("0")), "12345");
	ASSERT_STR(stoat_std_pad_left(&cx, S("12345"), 5, S("0")), "12345");
	ASSERT_STR(stoat_std_pad_left(&cx, S("7"), 4, S("ab")), "aba7");
	ASSERT_STR(stoat_std_pad_left(&cx, S(""), 2, S("*")), "**");
	ASSERT_STR(stoat_std_pad_left(&cx, NULLSTR, 0, S("*")), "");
	ASSERT_STR(stoat_std_pad_left(&cx, S("x"), -5, S("*")), "x");
	ASSERT_STR(stoat_std_pad_right(&cx, S("ab"), 5, S(".")), "ab...");
	ASSERT_STR(stoat_std_pad_right(&cx, S("7"), 4, S("ab")), "7aba");
	ASSERT_STR(stoat_std_pad_right(&cx, S("abc"), 2, S(".")), "abc");

	stoat_std_pad_left(&cx, S("x"), 3, S(""));
	ASSERT_ERR("pad_left: the fill string is empty");
	stoat_std_pad_right(&cx, S("x"), 0, S(""));
	ASSERT_ERR("pad_right: the fill string is empty");
	stoat_std_pad_left(&cx, S("x"), INT64_MAX, S(" "));
	ASSERT_ERR("larger than 16 MiB");
}
END_TEST

/* to_string for i32, i64 (extremes included) and bool. */
START_TEST(test_to_string_int_bool)
{
	ASSERT_STR(stoat_std_to_string_i64(&cx, 0), "0");
	ASSERT_STR(stoat_std_to_string_i64(&cx, 7), "7");
	ASSERT_STR(stoat_std_to_string_i64(&cx, -1), "-1");
	ASSERT_STR(stoat_std_to_string_i64(&cx, 1234567890), "1234567890");
	ASSERT_STR(stoat_std_to_string_i64(&cx, INT64_MAX), "9223372036854775807");
	ASSERT_STR(stoat_std_to_string_i64(&cx, INT64_MIN), "-9223372036854775808");
	ASSERT_STR(stoat_std_to_string_i32(&cx, INT32_MIN), "-2147483648");
	ASSERT_STR(stoat_std_to_string_i32(&cx, 42), "42");
	ASSERT_STR(stoat_std_to_string_bool(&cx, true), "true");
	ASSERT_STR(stoat_std_to_string_bool(&cx, false), "false");
}
END_TEST

/* to_string(f64): shortest round-trip digits, JSON layout, specials. */
START_TEST(test_to_string_f64)
{
	ASSERT_STR(stoat_std_to_string_f64(&cx, 1.0), "1.0");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 0.0), "0.0");
	ASSERT_STR(stoat_std_to_string_f64(&cx, -0.0), "-0.0");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 0.1), "0.1");
	ASSERT_STR(stoat_std_to_string_f64(&cx, -2.5), "-2.5");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 0.1 + 0.2), "0.30000000000000004");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 1.0 / 3.0), "0.3333333333333333");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 123456.789), "123456.789");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 100.0), "100.0");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 9007199254740992.0), "9007199254740992.0");
	/* Plain notation up to 1e21, exponent notation from there. */
	ASSERT_STR(stoat_std_to_string_f64(&cx, 1e20), "100000000000000000000.0");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 1e21), "1e21");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 1.5e300), "1.5e300");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 0.000001), "0.000001");
	/* The boundary (ECMAScript's): 1e-6 plain, below it an exponent. */
	ASSERT_STR(stoat_std_to_string_f64(&cx, 0.0000015), "0.0000015");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 9.999999999999997e-7), "9.999999999999997e-7");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 1e-7), "1e-7");
	ASSERT_STR(stoat_std_to_string_f64(&cx, -1e-7), "-1e-7");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 1.5e-7), "1.5e-7");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 1.23e-18), "1.23e-18");
	ASSERT_STR(stoat_std_to_string_f64(&cx, DBL_MAX), "1.7976931348623157e308");
	ASSERT_STR(stoat_std_to_string_f64(&cx, -DBL_MAX), "-1.7976931348623157e308");
	ASSERT_STR(stoat_std_to_string_f64(&cx, 5e-324), "5e-324");
	ASSERT_STR(stoat_std_to_string_f64(&cx, NAN), "NaN");
	ASSERT_STR(stoat_std_to_string_f64(&cx, INFINITY), "Infinity");
	ASSERT_STR(stoat_std_to_string_f64(&cx, -INFINITY), "-Infinity");

	/* Every output parses back to the same double. */
	static const double samples[] = { 0.1, 2.0 / 3.0, 1e-300, 123.456e100, 4.35, 0.3, 1e23, 5e-324,
					  -9.87654321e-5, 2.2250738585072014e-308 };
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		stoat_str s = stoat_std_to_string_f64(&cx, samples[i]);
		ASSERT_F64(stoat_std_parse_f64(&cx, s), samples[i]);
	}
}
END_TEST

/* to_string(bytes) validates UTF-8; to_bytes is the identity. */
START_TEST(test_bytes_conversions)
{
	ASSERT_STR(stoat_std_to_string_bytes(&cx, S("h\xc3\xa9llo")), "h\xc3\xa9llo");
	ASSERT_STR(stoat_std_to_string_bytes(&cx, S("")), "");
	ASSERT_STR(stoat_std_to_string_bytes(&cx, NULLSTR), "");
	ASSERT_STR(stoat_std_to_string_bytes(&cx, S("\xf0\x9f\x98\x80")), "\xf0\x9f\x98\x80");
	stoat_std_to_string_bytes(&cx, S("ab\xff"));
	ASSERT_ERR("to_string: the bytes are not valid UTF-8 (byte 2 is 0xff)");
	stoat_std_to_string_bytes(&cx, S("\xed\xa0\x80")); /* a surrogate */
	ASSERT_ERR("byte 0 is 0xed");
	stoat_std_to_string_bytes(&cx, S("x\xe6\x97")); /* truncated */
	ASSERT_ERR("byte 1 is 0xe6");
	ASSERT_STR(stoat_std_to_bytes(&cx, S("abc")), "abc");
	ASSERT_STR(stoat_std_to_bytes(&cx, NULLSTR), "");
}
END_TEST

/* parse_i64 and try_parse_i64: syntax, range and the quoted message. */
START_TEST(test_parse_i64)
{
	ASSERT_I64(stoat_std_parse_i64(&cx, S("0")), 0);
	ASSERT_I64(stoat_std_parse_i64(&cx, S("-0")), 0);
	ASSERT_I64(stoat_std_parse_i64(&cx, S("+42")), 42);
	ASSERT_I64(stoat_std_parse_i64(&cx, S("-17")), -17);
	ASSERT_I64(stoat_std_parse_i64(&cx, S("007")), 7);
	ASSERT_I64(stoat_std_parse_i64(&cx, S("9223372036854775807")), INT64_MAX);
	ASSERT_I64(stoat_std_parse_i64(&cx, S("-9223372036854775808")), INT64_MIN);

	ASSERT_I64_ERR(stoat_std_parse_i64(&cx, S("12a")), 0, "parse_i64: \"12a\" is not an integer");
	stoat_std_parse_i64(&cx, S("9223372036854775808"));
	ASSERT_ERR("parse_i64: \"9223372036854775808\" is out of range for i64");
	stoat_std_parse_i64(&cx, S("-9223372036854775809"));
	ASSERT_ERR("out of range");
	stoat_std_parse_i64(&cx, S("99999999999999999999999999"));
	ASSERT_ERR("out of range");
	stoat_std_parse_i64(&cx, S("999999999999999999999x"));
	ASSERT_ERR("is not an integer");
	static const char *const bad[] = { "", "+", "-", " 1", "1 ", "1.0", "0x1", "1e3", "--1", "1_000" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		stoat_std_parse_i64(&cx, (stoat_str){ bad[i], strlen(bad[i]) });
		ASSERT_ERR("is not an integer");
	}
	stoat_std_parse_i64(&cx, NULLSTR);
	ASSERT_ERR("parse_i64: \"\" is not an integer");
	/* Control bytes and quotes are escaped; long text is cut. */
	stoat_std_parse_i64(&cx, S("a\n\"b"));
	ASSERT_ERR("\"a\\x0a\\\"b\"");
	stoat_std_parse_i64(&cx, S("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
	ASSERT_ERR("\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"... is not an integer");

	stoat_opt_i64 o = stoat_std_try_parse_i64(&cx, S("-5"));
	ck_assert(o.has);
	ck_assert_int_eq(o.v, -5);
	o = stoat_std_try_parse_i64(&cx, S("five"));
	ck_assert(!o.has);
	ck_assert_int_eq(o.v, 0);
	o = stoat_std_try_parse_i64(&cx, S("9223372036854775808"));
	ck_assert(!o.has);
	ck_assert_int_eq(o.v, 0);
	o = stoat_std_try_parse_i64(&cx, NULLSTR);
	ck_assert(!o.has);
	ASSERT_OK();
}
END_TEST

/* parse_f64 and try_parse_f64: accepted syntax, overflow, rejects. */
START_TEST(test_parse_f64)
{
	ASSERT_F64(stoat_std_parse_f64(&cx, S("3.14")), 3.14);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("-0")), -0.0);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("42")), 42.0);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("+2")), 2.0);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("1e3")), 1000.0);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("1E-2")), 0.01);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("2.5e+1")), 25.0);
	ASSERT_F64(stoat_std_parse_f64(&cx, S(".5")), 0.5);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("5.")), 5.0);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("0.30000000000000004")), 0.1 + 0.2);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("1.7976931348623157e308")), DBL_MAX);
	ASSERT_F64(stoat_std_parse_f64(&cx, S("1e-400")), 0.0); /* underflow rounds to zero */
	/* A long input goes through the arena copy. */
	char longnum[300];
	memset(longnum, '0', sizeof(longnum));
	longnum[0] = '1';
	longnum[1] = '.';
	longnum[299] = '5';
	ASSERT_F64(stoat_std_parse_f64(&cx, (stoat_str){ longnum, sizeof(longnum) }), 1.0);

	stoat_std_parse_f64(&cx, S("1e400"));
	ASSERT_ERR("parse_f64: \"1e400\" is out of range for f64");
	stoat_std_parse_f64(&cx, S("-1e999"));
	ASSERT_ERR("out of range");
	static const char *const bad[] = { "", "abc", " 1", "1 ", "1e", "1e+", ".", "-", "+.", "0x10",
					   "nan", "NaN", "inf", "Infinity", "1,5", "1.2.3", "e5", "1e5.0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double v = stoat_std_parse_f64(&cx, (stoat_str){ bad[i], strlen(bad[i]) });
		ck_assert_msg(v == 0.0, "bad input '%s' gave %g", bad[i], v);
		ASSERT_ERR("is not a number");
	}
	stoat_std_parse_f64(&cx, S("1.5x"));
	ASSERT_ERR("parse_f64: \"1.5x\" is not a number");

	stoat_opt_f64 o = stoat_std_try_parse_f64(&cx, S("2.5"));
	ck_assert(o.has);
	ck_assert(o.v == 2.5);
	o = stoat_std_try_parse_f64(&cx, S("2.5.1"));
	ck_assert(!o.has);
	ck_assert(o.v == 0.0);
	o = stoat_std_try_parse_f64(&cx, S("1e400"));
	ck_assert(!o.has);
	o = stoat_std_try_parse_f64(&cx, NULLSTR);
	ck_assert(!o.has);
	ASSERT_OK();
}
END_TEST

/* hash is 64-bit FNV-1a (published test vectors). */
START_TEST(test_hash)
{
	/* FNV-1a 64 test vectors, as two's-complement i64. */
	ASSERT_I64(stoat_std_hash(&cx, S("")), (int64_t)-3750763034362895579);      /* 0xcbf29ce484222325 */
	ASSERT_I64(stoat_std_hash(&cx, NULLSTR), (int64_t)-3750763034362895579);
	ASSERT_I64(stoat_std_hash(&cx, S("a")), (int64_t)-5808556873153909620);     /* 0xaf63dc4c8601ec8c */
	ASSERT_I64(stoat_std_hash(&cx, S("foobar")), (int64_t)-8821353812377114648); /* 0x85944171f73967e8 */
	ASSERT_I64(stoat_std_hash(&cx, S("\xc3\xa9")), INT64_C(775207407765167617)); /* 0x0ac21707b7181e01 */
	ASSERT_I64(stoat_std_hash_bytes(&cx, S("foobar")), (int64_t)-8821353812377114648);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Numbers                                                             */
/* ------------------------------------------------------------------ */

/* abs, min and max for i64 and f64 (INT64_MIN, NaN, signed zeros). */
START_TEST(test_abs_min_max)
{
	ASSERT_I64(stoat_std_abs_i64(&cx, -5), 5);
	ASSERT_I64(stoat_std_abs_i64(&cx, 5), 5);
	ASSERT_I64(stoat_std_abs_i64(&cx, 0), 0);
	ASSERT_I64(stoat_std_abs_i64(&cx, INT64_MAX), INT64_MAX);
	ASSERT_I64(stoat_std_abs_i64(&cx, -INT64_MAX), INT64_MAX);
	ASSERT_I64_ERR(stoat_std_abs_i64(&cx, INT64_MIN), 0, "abs: -9223372036854775808 has no absolute value in i64");

	ASSERT_F64(stoat_std_abs_f64(&cx, -2.5), 2.5);
	ASSERT_F64(stoat_std_abs_f64(&cx, -0.0), 0.0);
	ASSERT_F64(stoat_std_abs_f64(&cx, -INFINITY), INFINITY);
	ck_assert(isnan(stoat_std_abs_f64(&cx, NAN)));

	ASSERT_I64(stoat_std_min_i64(&cx, 3, -4), -4);
	ASSERT_I64(stoat_std_max_i64(&cx, 3, -4), 3);
	ASSERT_I64(stoat_std_min_i64(&cx, INT64_MIN, INT64_MAX), INT64_MIN);
	ASSERT_I64(stoat_std_max_i64(&cx, INT64_MIN, INT64_MAX), INT64_MAX);
	ASSERT_F64(stoat_std_min_f64(&cx, 1.5, -2.0), -2.0);
	ASSERT_F64(stoat_std_max_f64(&cx, 1.5, -2.0), 1.5);
	ASSERT_F64(stoat_std_min_f64(&cx, 0.0, -0.0), -0.0);
	ASSERT_F64(stoat_std_min_f64(&cx, -0.0, 0.0), -0.0);
	ASSERT_F64(stoat_std_max_f64(&cx, -0.0, 0.0), 0.0);
	ASSERT_F64(stoat_std_max_f64(&cx, 0.0, -0.0), 0.0);
	ASSERT_F64(stoat_std_max_f64(&cx, -INFINITY, -1e308), -1e308);
	ck_assert(isnan(stoat_std_min_f64(&cx, NAN, 1.0)));
	ck_assert(isnan(stoat_std_min_f64(&cx, 1.0, NAN)));
	ck_assert(isnan(stoat_std_max_f64(&cx, NAN, 1.0)));
	ck_assert(isnan(stoat_std_max_f64(&cx, 1.0, NAN)));
	ASSERT_OK();
}
END_TEST

/* clamp for i64 and f64, including inverted and NaN bounds. */
START_TEST(test_clamp)
{
	ASSERT_I64(stoat_std_clamp_i64(&cx, 5, 0, 3), 3);
	ASSERT_I64(stoat_std_clamp_i64(&cx, -1, 0, 3), 0);
	ASSERT_I64(stoat_std_clamp_i64(&cx, 2, 0, 3), 2);
	ASSERT_I64(stoat_std_clamp_i64(&cx, 2, 3, 3), 3);
	ASSERT_I64(stoat_std_clamp_i64(&cx, INT64_MIN, INT64_MIN, INT64_MAX), INT64_MIN);
	ASSERT_I64_ERR(stoat_std_clamp_i64(&cx, 1, 4, 3), 0, "clamp: lower bound 4 is greater than upper bound 3");

	ASSERT_F64(stoat_std_clamp_f64(&cx, 2.5, 0.0, 1.0), 1.0);
	ASSERT_F64(stoat_std_clamp_f64(&cx, -2.5, 0.0, 1.0), 0.0);
	ASSERT_F64(stoat_std_clamp_f64(&cx, 0.25, 0.0, 1.0), 0.25);
	ASSERT_F64(stoat_std_clamp_f64(&cx, INFINITY, 0.0, 1.0), 1.0);
	ck_assert(isnan(stoat_std_clamp_f64(&cx, NAN, 0.0, 1.0)));
	ASSERT_OK();
	stoat_std_clamp_f64(&cx, 0.5, 1.0, 0.0);
	ASSERT_ERR("clamp: bounds [1.0, 0.0] are not an interval");
	stoat_std_clamp_f64(&cx, 0.5, NAN, 1.0);
	ASSERT_ERR("[NaN, 1.0]");
	stoat_std_clamp_f64(&cx, 0.5, 0.0, NAN);
	ASSERT_ERR("[0.0, NaN]");
}
END_TEST

/* floor, ceil and round (halves away from zero). */
START_TEST(test_rounding)
{
	ASSERT_F64(stoat_std_floor(&cx, -1.5), -2.0);
	ASSERT_F64(stoat_std_floor(&cx, 1.5), 1.0);
	ASSERT_F64(stoat_std_floor(&cx, 2.0), 2.0);
	ASSERT_F64(stoat_std_ceil(&cx, -1.5), -1.0);
	ASSERT_F64(stoat_std_ceil(&cx, 1.2), 2.0);
	ASSERT_F64(stoat_std_ceil(&cx, -0.5), -0.0);
	ASSERT_F64(stoat_std_round(&cx, 2.5), 3.0);
	ASSERT_F64(stoat_std_round(&cx, -2.5), -3.0);
	ASSERT_F64(stoat_std_round(&cx, 0.5), 1.0);
	ASSERT_F64(stoat_std_round(&cx, 1.4999999999999998), 1.0);
	ASSERT_F64(stoat_std_round(&cx, 0.49999999999999994), 0.0);
	ASSERT_F64(stoat_std_round(&cx, -0.4), -0.0);
	ASSERT_F64(stoat_std_round(&cx, 1e300), 1e300);
	ck_assert(isnan(stoat_std_floor(&cx, NAN)));
	ck_assert(isnan(stoat_std_round(&cx, NAN)));
	ASSERT_OK();
}
END_TEST

/* to_i64, to_i32 and to_f64 at the edges of their ranges. */
START_TEST(test_conversions)
{
	ASSERT_I64(stoat_std_to_i64(&cx, 3.99), 3);
	ASSERT_I64(stoat_std_to_i64(&cx, -3.99), -3);
	ASSERT_I64(stoat_std_to_i64(&cx, -0.0), 0);
	ASSERT_I64(stoat_std_to_i64(&cx, 9.2e18), INT64_C(9200000000000000000));
	ASSERT_I64(stoat_std_to_i64(&cx, -9223372036854775808.0), INT64_MIN);
	ASSERT_I64(stoat_std_to_i64(&cx, 9223372036854774784.0), INT64_C(9223372036854774784)); /* largest below 2^63 */
	stoat_std_to_i64(&cx, 9223372036854775808.0);
	ASSERT_ERR("to_i64: 9223372036854776000.0 is out of range for i64"); /* 2^63, shortest form */
	stoat_std_to_i64(&cx, -9223372036854777856.0); /* next double below -2^63 */
	ASSERT_ERR("out of range for i64");
	stoat_std_to_i64(&cx, NAN);
	ASSERT_ERR("to_i64: NaN is out of range");
	stoat_std_to_i64(&cx, -INFINITY);
	ASSERT_ERR("-Infinity");

	ASSERT_I64(stoat_std_to_i64_i32(&cx, INT32_MIN), INT32_MIN);
	ASSERT_I64(stoat_std_to_i32(&cx, -2147483648LL), INT32_MIN);
	ASSERT_I64(stoat_std_to_i32(&cx, 2147483647), INT32_MAX);
	stoat_std_to_i32(&cx, 2147483648LL);
	ASSERT_ERR("to_i32: 2147483648 is out of range for i32");
	stoat_std_to_i32(&cx, INT64_MIN);
	ASSERT_ERR("out of range for i32");

	ASSERT_F64(stoat_std_to_f64(&cx, 42), 42.0);
	ASSERT_F64(stoat_std_to_f64(&cx, -1), -1.0);
	ASSERT_F64(stoat_std_to_f64(&cx, INT64_C(9007199254740993)), 9007199254740992.0); /* 2^53 + 1 rounds */
}
END_TEST

/* sqrt and both pow overloads, with their error cases. */
START_TEST(test_sqrt_pow)
{
	ASSERT_F64(stoat_std_sqrt(&cx, 16.0), 4.0);
	ASSERT_F64(stoat_std_sqrt(&cx, 2.0), 1.4142135623730951);
	ASSERT_F64(stoat_std_sqrt(&cx, 0.0), 0.0);
	ASSERT_F64(stoat_std_sqrt(&cx, -0.0), -0.0);
	ASSERT_F64_ERR(stoat_std_sqrt(&cx, -1.0), 0.0, "sqrt: negative argument -1.0");
	stoat_std_sqrt(&cx, -INFINITY);
	ASSERT_ERR("negative argument");

	ASSERT_F64(stoat_std_pow(&cx, 2.0, 10.0), 1024.0);
	ASSERT_F64(stoat_std_pow(&cx, 2.0, -1.0), 0.5);
	ASSERT_F64(stoat_std_pow(&cx, 0.0, 0.0), 1.0);
	ASSERT_F64(stoat_std_pow(&cx, 9.0, 0.5), 3.0);
	ASSERT_F64(stoat_std_pow(&cx, -2.0, 3.0), -8.0);
	ASSERT_F64_ERR(stoat_std_pow(&cx, 0.0, -1.0), 0.0, "pow: pow(0.0, -1.0) is not a finite number");
	stoat_std_pow(&cx, -8.0, 1.0 / 3.0);
	ASSERT_ERR("is not a finite number");
	stoat_std_pow(&cx, 10.0, 400.0);
	ASSERT_ERR("pow(10.0, 400.0)");
	stoat_std_pow(&cx, NAN, 1.0);
	ASSERT_ERR("not a finite number");

	ASSERT_I64(stoat_std_pow_i64(&cx, 2, 10), 1024);
	ASSERT_I64(stoat_std_pow_i64(&cx, 2, 62), INT64_C(4611686018427387904));
	ASSERT_I64(stoat_std_pow_i64(&cx, -2, 63), INT64_MIN);
	ASSERT_I64(stoat_std_pow_i64(&cx, 10, 18), INT64_C(1000000000000000000));
	ASSERT_I64(stoat_std_pow_i64(&cx, -3, 3), -27);
	ASSERT_I64(stoat_std_pow_i64(&cx, 0, 0), 1);
	ASSERT_I64(stoat_std_pow_i64(&cx, 0, 5), 0);
	ASSERT_I64(stoat_std_pow_i64(&cx, 7, 0), 1);
	ASSERT_I64(stoat_std_pow_i64(&cx, 1, INT64_MAX), 1);
	ASSERT_I64(stoat_std_pow_i64(&cx, -1, INT64_MAX), -1);
	ASSERT_I64(stoat_std_pow_i64(&cx, -1, INT64_MAX - 1), 1);
	stoat_std_pow_i64(&cx, 2, 63);
	ASSERT_ERR("pow: the result is out of range for i64");
	stoat_std_pow_i64(&cx, -2, 64);
	ASSERT_ERR("out of range for i64");
	stoat_std_pow_i64(&cx, 10, 19);
	ASSERT_ERR("out of range for i64");
	stoat_std_pow_i64(&cx, 3, -1);
	ASSERT_ERR("pow: negative exponent -1");
}
END_TEST

/* ------------------------------------------------------------------ */
/* Time                                                                */
/* ------------------------------------------------------------------ */

/* 2026-11-30T09:04:14.123Z, a Monday. */
#define T0 INT64_C(1796029454123)

/* format_time and date, from year -292275055 to 292278994. */
START_TEST(test_format_time)
{
	ASSERT_STR(stoat_std_format_time(&cx, T0), "2026-11-30T09:04:14.123Z");
	ASSERT_STR(stoat_std_format_time(&cx, 0), "1970-01-01T00:00:00.000Z");
	ASSERT_STR(stoat_std_format_time(&cx, -1), "1969-12-31T23:59:59.999Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_C(951782400000)), "2000-02-29T00:00:00.000Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_C(-11670912000000)), "1600-03-01T00:00:00.000Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_C(253402300799999)), "9999-12-31T23:59:59.999Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_C(-62167219200000)), "0000-01-01T00:00:00.000Z");
	/* Years outside 0000..9999 use the expanded form. */
	ASSERT_STR(stoat_std_format_time(&cx, INT64_C(253402300800000)), "+010000-01-01T00:00:00.000Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_C(-62198755200000)), "-000001-01-01T00:00:00.000Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_C(31494784780799999)), "+999999-12-31T23:59:59.999Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_C(-31619087596800000)), "-999999-01-01T00:00:00.000Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_MAX), "+292278994-08-17T07:12:55.807Z");
	ASSERT_STR(stoat_std_format_time(&cx, INT64_MIN), "-292275055-05-16T16:47:04.192Z");

	ASSERT_STR(stoat_std_date(&cx, T0), "2026-11-30");
	ASSERT_STR(stoat_std_date(&cx, -1), "1969-12-31");
	ASSERT_STR(stoat_std_date(&cx, INT64_MIN), "-292275055-05-16");
}
END_TEST

/* parse_time: accepted forms, zones, range errors, syntax errors. */
/* try_parse_time: a value for good text, null (and no error) for bad. */
START_TEST(test_try_parse_time)
{
	stoat_opt_i64 r = stoat_std_try_parse_time(&cx, S("1970-01-01T00:00:01.5Z"));
	ck_assert(r.has);
	ASSERT_I64(r.v, 1500);
	ck_assert(!cx.error);
	r = stoat_std_try_parse_time(&cx, S("soon"));
	ck_assert(!r.has);
	ck_assert(!cx.error);
	ck_assert_str_eq(cx.error_message, "");
	r = stoat_std_try_parse_time(&cx, S("2026-02-29"));
	ck_assert(!r.has);
	ck_assert(!cx.error);
}
END_TEST

START_TEST(test_parse_time)
{
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T09:04:14.123Z")), T0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T09:04:14.123")), T0); /* no zone: UTC */
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30t09:04:14.123z")), T0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30 09:04:14.123Z")), T0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T10:04:14.123+01:00")), T0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T04:04:14.123-05:00")), T0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T04:04:14.123-0500")), T0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T14:34:14.123+05:30")), T0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T09:04:14.123+00:00")), T0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T09:04:14Z")), T0 - 123);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T09:04:14.1Z")), T0 - 23);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T09:04:14.12Z")), T0 - 3);
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T09:04:14.123999999Z")), T0); /* truncated */
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30T09:04Z")), INT64_C(1796029440000));
	ASSERT_I64(stoat_std_parse_time(&cx, S("2026-11-30")), INT64_C(1795996800000));
	ASSERT_I64(stoat_std_parse_time(&cx, S("2024-02-29")), INT64_C(1709164800000));
	ASSERT_I64(stoat_std_parse_time(&cx, S("2000-02-29T00:00:00Z")), INT64_C(951782400000));
	ASSERT_I64(stoat_std_parse_time(&cx, S("1970-01-01T00:00:00Z")), 0);
	ASSERT_I64(stoat_std_parse_time(&cx, S("1969-12-31T23:59:59.999Z")), -1);
	ASSERT_I64(stoat_std_parse_time(&cx, S("1970-01-01T00:59:59.999+01:00")), -1);
	ASSERT_I64(stoat_std_parse_time(&cx, S("0000-01-01")), INT64_C(-62167219200000));
	ASSERT_I64(stoat_std_parse_time(&cx, S("+010000-01-01")), INT64_C(253402300800000));
	ASSERT_I64(stoat_std_parse_time(&cx, S("-000001-01-01T00:00:00.000Z")), INT64_C(-62198755200000));

	/* Out-of-range fields. */
	stoat_std_parse_time(&cx, S("2026-02-29"));
	ASSERT_ERR("parse_time: \"2026-02-29\" is not a valid date");
	stoat_std_parse_time(&cx, S("1900-02-29"));
	ASSERT_ERR("is not a valid date");
	stoat_std_parse_time(&cx, S("2026-13-01"));
	ASSERT_ERR("is not a valid date");
	stoat_std_parse_time(&cx, S("2026-00-10"));
	ASSERT_ERR("is not a valid date");
	stoat_std_parse_time(&cx, S("2026-04-31"));
	ASSERT_ERR("is not a valid date");
	stoat_std_parse_time(&cx, S("2026-04-00"));
	ASSERT_ERR("is not a valid date");
	stoat_std_parse_time(&cx, S("2026-11-30T24:00:00Z"));
	ASSERT_ERR("is not a valid time of day");
	stoat_std_parse_time(&cx, S("2026-11-30T23:60:00Z"));
	ASSERT_ERR("is not a valid time of day");
	stoat_std_parse_time(&cx, S("2026-11-30T23:59:60Z"));
	ASSERT_ERR("is not a valid time of day");
	stoat_std_parse_time(&cx, S("2026-11-30T09:04:14+24:00"));
	ASSERT_ERR("has an out-of-range UTC offset");
	stoat_std_parse_time(&cx, S("2026-11-30T09:04:14+01:60"));
	ASSERT_ERR("has an out-of-range UTC offset");

	/* Malformed text. */
	static const char *const bad[] = { "", "26-11-30", "2026-11-3", "2026/11/30", "2026-11-30T", "2026-11-30T09",
					   "2026-11-30T09:04:14.Z", "2026-11-30T09:04:14.1234567890Z",
					   "2026-11-30T09:04:14ZZ", "2026-11-30T09:04:14+01", "2026-11-30 junk",
					   "2026-11-30T9:04:14Z", "-000000-01-01", "+10000-01-01", "2026-11-30Z",
					   "2026-11-30T09:04:14 Z", " 2026-11-30", "x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v = stoat_std_parse_time(&cx, (stoat_str){ bad[i], strlen(bad[i]) });
		ck_assert_msg(cx.error, "'%s' was accepted", bad[i]);
		ck_assert_int_eq(v, 0);
		ASSERT_ERR("is not an ISO 8601 date or time");
	}
	stoat_std_parse_time(&cx, NULLSTR);
	ASSERT_ERR("parse_time: \"\" is not an ISO 8601");

	/* format_time and parse_time are inverses for years -999999..999999. */
	static const int64_t samples[] = { 0, -1, T0, INT64_C(951782400000), INT64_C(-62198755200001),
					   INT64_C(253402300800000), INT64_C(31494784780799999) /* +999999-12-31T23:59:59.999Z */,
					   INT64_C(-31619087596800000) /* -999999-01-01 */ };
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		ASSERT_I64(stoat_std_parse_time(&cx, stoat_std_format_time(&cx, samples[i])), samples[i]);
}
END_TEST

/* year, month, day_of_month, hour_of_day, minute_of_hour, day_of_week. */
START_TEST(test_calendar_fields)
{
	ASSERT_I64(stoat_std_year(&cx, T0), 2026);
	ASSERT_I64(stoat_std_month(&cx, T0), 11);
	ASSERT_I64(stoat_std_day_of_month(&cx, T0), 30);
	ASSERT_I64(stoat_std_hour_of_day(&cx, T0), 9);
	ASSERT_I64(stoat_std_minute_of_hour(&cx, T0), 4);
	ASSERT_I64(stoat_std_year(&cx, -1), 1969);
	ASSERT_I64(stoat_std_month(&cx, -1), 12);
	ASSERT_I64(stoat_std_day_of_month(&cx, -1), 31);
	ASSERT_I64(stoat_std_hour_of_day(&cx, -1), 23);
	ASSERT_I64(stoat_std_minute_of_hour(&cx, -1), 59);
	ASSERT_I64(stoat_std_hour_of_day(&cx, INT64_MIN), 16);
	ASSERT_I64(stoat_std_year(&cx, INT64_MAX), 292278994);

	ASSERT_I64(stoat_std_day_of_week(&cx, T0), 1);                          /* Monday */
	ASSERT_I64(stoat_std_day_of_week(&cx, INT64_C(1795910400000)), 7);      /* Sunday 2026-11-29 */
	ASSERT_I64(stoat_std_day_of_week(&cx, INT64_C(1795910400000) - 1), 6);  /* Saturday */
	ASSERT_I64(stoat_std_day_of_week(&cx, 0), 4);                           /* Thursday 1970-01-01 */
	ASSERT_I64(stoat_std_day_of_week(&cx, -1), 3);                          /* Wednesday 1969-12-31 */
	ASSERT_I64(stoat_std_day_of_week(&cx, INT64_C(951782400000)), 2);       /* Tuesday 2000-02-29 */
	ASSERT_I64(stoat_std_day_of_week(&cx, INT64_MIN), 7);                   /* Sunday (proleptic) */

	ASSERT_I64(stoat_std_millis(&cx, T0), T0);
	ASSERT_I64(stoat_std_from_millis(&cx, -5), -5);
	ASSERT_I64(stoat_std_duration_millis(&cx, 60000), 60000);
	ASSERT_I64(stoat_std_duration_from_millis(&cx, 1500), 1500);
}
END_TEST

/* truncate_time floors, also before 1970, and reports underflow. */
START_TEST(test_truncate_time)
{
	ASSERT_I64(stoat_std_truncate_time(&cx, T0, 3600000), INT64_C(1796029200000));   /* 09:00 */
	ASSERT_I64(stoat_std_truncate_time(&cx, T0, 86400000), INT64_C(1795996800000));  /* midnight */
	ASSERT_I64(stoat_std_truncate_time(&cx, T0, 1000), T0 - 123);
	ASSERT_I64(stoat_std_truncate_time(&cx, T0, 1), T0);
	ASSERT_I64(stoat_std_truncate_time(&cx, -1, 1000), -1000);
	ASSERT_I64(stoat_std_truncate_time(&cx, -1000, 1000), -1000);
	ASSERT_I64(stoat_std_truncate_time(&cx, -1001, 1000), -2000);
	ASSERT_I64(stoat_std_truncate_time(&cx, -1, 86400000), -86400000);
	ASSERT_I64(stoat_std_truncate_time(&cx, 999, 1000), 0);
	ASSERT_I64(stoat_std_truncate_time(&cx, INT64_MAX, INT64_MAX), INT64_MAX);
	ASSERT_I64(stoat_std_truncate_time(&cx, INT64_MIN, 1), INT64_MIN);
	ASSERT_I64(stoat_std_truncate_time(&cx, INT64_C(-9223372036854775000), 1000), INT64_C(-9223372036854775000));

	stoat_std_truncate_time(&cx, T0, 0);
	ASSERT_ERR("truncate_time: the unit must be positive, not 0ms");
	stoat_std_truncate_time(&cx, T0, -60000);
	ASSERT_ERR("not -60000ms");
	/* The floor of INT64_MIN to whole seconds is below INT64_MIN. */
	ASSERT_I64_ERR(stoat_std_truncate_time(&cx, INT64_MIN, 1000), 0, "truncate_time: the result is before the earliest timestamp");
	stoat_std_truncate_time(&cx, INT64_MIN + 1, INT64_MAX - 1);
	ASSERT_ERR("before the earliest timestamp");
	ASSERT_I64(stoat_std_truncate_time(&cx, INT64_MIN + 1, INT64_MAX), INT64_MIN + 1); /* -1 * INT64_MAX */
}
END_TEST

/* ------------------------------------------------------------------ */
/* Record metadata                                                     */
/* ------------------------------------------------------------------ */

/* The record_* functions read cx->msg and cx->source. */
START_TEST(test_record_metadata)
{
	static const stoat_header headers[] = {
		{ { "trace", 5 }, { "abc", 3 } },
		{ { "nullh", 5 }, { NULL, 0 } },
		{ { "trace", 5 }, { "def", 3 } },
		{ { "empty", 5 }, { "", 0 } },
	};
	stoat_msg m = { .partition = 3, .offset = 42, .timestamp = T0, .headers = headers, .header_count = 4 };
	stoat_source src = { .name = "orders", .topic = "orders-v1" };

	/* Outside a record every accessor is an error. */
	ASSERT_I64_ERR(stoat_std_record_timestamp(&cx), 0, "record_timestamp: there is no input record here");
	ASSERT_I64_ERR(stoat_std_record_partition(&cx), 0, "record_partition:");
	ASSERT_I64_ERR(stoat_std_record_offset(&cx), 0, "record_offset:");
	stoat_str t = stoat_std_record_topic(&cx);
	ASSERT_ERR("record_topic:");
	ck_assert(t.ptr != NULL && t.len == 0);
	stoat_std_record_header(&cx, S("trace"));
	ASSERT_ERR("record_header:");

	stoat_record_begin(&cx, &m);
	ASSERT_I64(stoat_std_record_timestamp(&cx), T0);
	ASSERT_I64(stoat_std_record_partition(&cx), 3);
	ASSERT_I64(stoat_std_record_offset(&cx), 42);
	stoat_std_record_topic(&cx);
	ASSERT_ERR("record_topic: the record has no source topic");
	cx.source = &src;
	ASSERT_STR(stoat_std_record_topic(&cx), "orders-v1");

	stoat_opt_str h = stoat_std_record_header(&cx, S("trace"));
	ck_assert(h.has);
	ASSERT_STR(h.v, "def"); /* the last one wins */
	h = stoat_std_record_header(&cx, S("nullh"));
	ck_assert(!h.has);
	ck_assert_ptr_null(h.v.ptr);
	h = stoat_std_record_header(&cx, S("missing"));
	ck_assert(!h.has);
	h = stoat_std_record_header(&cx, S("TRACE")); /* names are case-sensitive */
	ck_assert(!h.has);
	h = stoat_std_record_header(&cx, S("empty"));
	ck_assert(h.has);
	ASSERT_STR(h.v, "");
}
END_TEST

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* Only the first error of a record is kept. */
START_TEST(test_first_error_wins)
{
	/* A failing call inside an expression keeps the first message. */
	stoat_std_parse_i64(&cx, S("x"));
	stoat_std_sqrt(&cx, -1.0);
	ASSERT_ERR("parse_i64");
}
END_TEST

/* Builds the suite: one test case per area, each test with a fresh context. */
static Suite *std_suite(void)
{
	Suite *s = suite_create("std");
	struct {
		const char *name;
		const TTest *tests[12];
	} cases[] = {
		{ "strings",
		  { test_len, test_char_len, test_lower_upper, test_trim, test_substr, test_search, test_replace,
		    test_split, test_split_words, test_join, test_repeat, test_pad } },
		{ "conversions",
		  { test_to_string_int_bool, test_to_string_f64, test_bytes_conversions, test_parse_i64,
		    test_parse_f64, test_hash } },
		{ "numbers", { test_abs_min_max, test_clamp, test_rounding, test_conversions, test_sqrt_pow } },
		{ "time", { test_format_time, test_parse_time, test_try_parse_time, test_calendar_fields, test_truncate_time } },
		{ "records", { test_record_metadata, test_first_error_wins } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);
		tcase_add_checked_fixture(tc, setup, teardown);
		for (size_t j = 0; j < 12 && cases[i].tests[j]; j++)
			tcase_add_test(tc, cases[i].tests[j]);
		suite_add_tcase(s, tc);
	}
	return s;
}

/* Runs the suite; the exit status is non-zero if any test failed. */
int main(void)
{
	SRunner *sr = srunner_create(std_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
