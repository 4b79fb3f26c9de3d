/*
 * Unit tests for the JSON reader generated decoders use: strings and
 * escapes, numbers and their ranges, objects and arrays, skipping, the
 * nesting limit, and clean errors (never a crash) on malformed input.
 */
#include "internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static stoat_ctx cx;
static stoat_json j;

/* Points the reader at text with a fresh context. */
static void open_json(const char *text)
{
	stoat_arena_free(&cx.arena);
	memset(&cx, 0, sizeof cx);
	stoat_arena_init(&cx.arena);
	stoat_json_init(&j, &cx, (stoat_str){ text, strlen(text) });
}

static void teardown(void)
{
	stoat_arena_free(&cx.arena);
}

/* Asserts that the last error message is exactly want. */
static void expect_error(const char *want)
{
	ck_assert(cx.error);
	ck_assert_str_eq(cx.error_message, want);
}

/* Reads one string from text and compares its bytes. */
static void expect_string(const char *text, const char *want, size_t want_len)
{
	open_json(text);
	stoat_str s;
	ck_assert_msg(stoat_json_string(&j, &s), "%s: %s", text, cx.error_message);
	ck_assert_uint_eq(s.len, want_len);
	ck_assert(memcmp(s.ptr, want, want_len) == 0);
	ck_assert(stoat_json_end(&j));
}

START_TEST(test_string_slice)
{
	const char *text = "  \"plain text\"  ";
	open_json(text);
	stoat_str s;
	ck_assert(stoat_json_string(&j, &s));
	/* No escapes: a slice of the input, not a copy. */
	ck_assert_ptr_eq(s.ptr, text + 3);
	ck_assert_uint_eq(s.len, 10);
	ck_assert(stoat_json_end(&j));
}
END_TEST

START_TEST(test_string_escapes)
{
	expect_string("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", "a\"b\\c/d\b\f\n\r\t", 12);
	expect_string("\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac", 6);
	expect_string("\"\\u0000\"", "\0", 1);
	/* U+1F600 as a surrogate pair, and raw. */
	expect_string("\"\\ud83d\\ude00!\"", "\xf0\x9f\x98\x80!", 5);
	expect_string("\"\xf0\x9f\x98\x80\"", "\xf0\x9f\x98\x80", 4);
	expect_string("\"\"", "", 0);
}
END_TEST

/*
 * The plain-run scan takes 32, 16 and 8 bytes at a time: a special byte at
 * every offset of a long run, and runs ending at every length, are found
 * where they are (the closing quote, an escape, a control byte, UTF-8 and
 * invalid UTF-8), whichever block it falls in.
 */
START_TEST(test_string_special_at_every_offset)
{
	char text[128], want[128];
	stoat_str s;
	for (size_t i = 0; i < 80; i++) {
		/* i plain bytes, then the closing quote (a string of length i). */
		memset(want, 'a' + (int)(i % 26), i);
		text[0] = '"';
		memcpy(text + 1, want, i);
		memcpy(text + 1 + i, "\"", 2);
		expect_string(text, want, i);
		/* A newline escape at i, 20 plain bytes after it. */
		memset(text + 1, 'x', i);
		memcpy(text + 1 + i, "\\n", 2);
		memset(text + 3 + i, 'y', 20);
		memcpy(text + 23 + i, "\"", 2);
		memset(want, 'x', i);
		want[i] = '\n';
		memset(want + i + 1, 'y', 20);
		expect_string(text, want, i + 21);
		/* U+00E9 (2 bytes of UTF-8) at i passes through. */
		memcpy(text + 1 + i, "\xc3\xa9", 2);
		memcpy(want + i, "\xc3\xa9", 2);
		memset(want + i + 2, 'y', 19);
		memcpy(text + 3 + i, "yyyyyyyyyyyyyyyyyyy\"", 21);
		expect_string(text, want, i + 21);
		/* A raw control byte at i: an error at its byte (the quote is byte 0). */
		text[1 + i] = '\t';
		open_json(text);
		ck_assert(!stoat_json_string(&j, &s));
		char msg[120];
		snprintf(msg, sizeof msg, "invalid JSON at byte %zu: expected an escape sequence instead of a control character",
			 i + 1);
		expect_error(msg);
		/* A byte that starts no UTF-8 sequence at i. */
		text[1 + i] = (char)0xff;
		open_json(text);
		ck_assert(!stoat_json_string(&j, &s));
		snprintf(msg, sizeof msg, "invalid JSON at byte %zu: expected valid UTF-8", i + 1);
		expect_error(msg);
	}
}
END_TEST

START_TEST(test_string_errors)
{
	stoat_str s;
	open_json("\"abc");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("invalid JSON at byte 4: expected '\"' to close the string");
	open_json("\"\\ud83d\"");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("invalid JSON at byte 7: expected a low surrogate (\\udc00-\\udfff) after a high surrogate");
	open_json("\"\\ude00\"");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("invalid JSON at byte 1: expected a high surrogate before a low surrogate");
	open_json("\"\\u12G4\"");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("invalid JSON at byte 1: expected four hex digits after \\u");
	open_json("\"\\x\"");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("invalid JSON at byte 1: expected an escape sequence");
	open_json("\"a\nb\"");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("invalid JSON at byte 2: expected an escape sequence instead of a control character");
	open_json("\"\xc3\x28\"");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("invalid JSON at byte 1: expected valid UTF-8");
	open_json("\"\xed\xa0\x80\""); /* an encoded surrogate */
	ck_assert(!stoat_json_string(&j, &s));
	open_json("\"\\u00");
	ck_assert(!stoat_json_string(&j, &s));
	open_json("\"\\");
	ck_assert(!stoat_json_string(&j, &s));
	/* Valid JSON of another type is not "invalid JSON". */
	open_json("42");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("expected a string at byte 0, got a number");
	open_json("x");
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("invalid JSON at byte 0: expected a string");
	open_json("");
	ck_assert(!stoat_json_string(&j, &s));
}
END_TEST

/*
 * A value of the wrong type names its field, with a path through nested
 * objects and arrays, what was expected and what was found; number
 * errors name the field too.  Expected strings worked out from the
 * inputs: byte offsets count from 0.
 */
START_TEST(test_wrong_type_names_the_field)
{
	stoat_str name, s;
	bool first = true;
	/* {"id":7}: the string field id holds a number at byte 6. */
	open_json("{\"id\":7}");
	ck_assert(stoat_json_object_begin(&j));
	ck_assert(stoat_json_object_next(&j, &first, &name));
	ck_assert(!stoat_json_string(&j, &s));
	expect_error("field id: expected a string at byte 6, got a number");

	/* {"a":{"b":"x"},"lines":[{"sku":"p"},{"sku":null}]}: lines[1].sku,
	 * at byte 43; the earlier nested member b must not be named. */
	const char *doc = "{\"a\":{\"b\":\"x\"},\"lines\":[{\"sku\":\"p\"},{\"sku\":null}]}";
	open_json(doc);
	first = true;
	ck_assert(stoat_json_object_begin(&j));
	ck_assert(stoat_json_object_next(&j, &first, &name)); /* a */
	ck_assert(stoat_json_skip(&j));
	ck_assert(stoat_json_object_next(&j, &first, &name)); /* lines */
	ck_assert(stoat_json_array_begin(&j));
	bool afirst = true;
	for (int i = 0; i < 2; i++) {
		ck_assert(stoat_json_array_next(&j, &afirst));
		bool ofirst = true;
		ck_assert(stoat_json_object_begin(&j));
		ck_assert(stoat_json_object_next(&j, &ofirst, &name));
		bool ok = stoat_json_string(&j, &s);
		if (i == 0) {
			ck_assert(ok);
			ck_assert(!stoat_json_object_next(&j, &ofirst, &name));
		} else {
			ck_assert(!ok);
		}
	}
	ck_assert_uint_eq((size_t)(strstr(doc, "null") - doc), 43);
	expect_error("field lines[1].sku: expected a string at byte 43, got null");

	/* Numbers, booleans, objects and arrays, and an element at the top. */
	int64_t v;
	double d;
	bool b;
	open_json("{\"qty\":\"3\"}");
	first = true;
	ck_assert(stoat_json_object_begin(&j));
	ck_assert(stoat_json_object_next(&j, &first, &name));
	ck_assert(!stoat_json_i64(&j, &v));
	expect_error("field qty: expected a number at byte 7, got a string");
	open_json("{\"qty\":1.5}");
	first = true;
	ck_assert(stoat_json_object_begin(&j));
	ck_assert(stoat_json_object_next(&j, &first, &name));
	ck_assert(!stoat_json_i64(&j, &v));
	expect_error("field qty: number 1.5 at byte 7 is not an integer (i64 expected)");
	open_json("[true,{}]");
	afirst = true;
	ck_assert(stoat_json_array_begin(&j));
	ck_assert(stoat_json_array_next(&j, &afirst));
	ck_assert(!stoat_json_f64(&j, &d));
	expect_error("element [0]: expected a number at byte 1, got true");
	open_json("[1,{}]");
	afirst = true;
	ck_assert(stoat_json_array_begin(&j));
	ck_assert(stoat_json_array_next(&j, &afirst));
	ck_assert(stoat_json_i64(&j, &v));
	ck_assert(stoat_json_array_next(&j, &afirst));
	ck_assert(!stoat_json_bool(&j, &b));
	expect_error("element [1]: expected true or false at byte 3, got an object");
	open_json("\"x\"");
	ck_assert(!stoat_json_array_begin(&j));
	expect_error("expected an array at byte 0, got a string");
	/* Malformed JSON stays "invalid JSON". */
	open_json("{\"id\":tru}");
	first = true;
	ck_assert(stoat_json_object_begin(&j));
	ck_assert(stoat_json_object_next(&j, &first, &name));
	ck_assert(!stoat_json_bool(&j, &b));
	expect_error("invalid JSON at byte 6: expected true or false");
}
END_TEST

START_TEST(test_integers)
{
	int64_t v;
	int32_t w;
	open_json(" -9223372036854775808 ");
	ck_assert(stoat_json_i64(&j, &v));
	ck_assert(v == INT64_MIN);
	open_json("9223372036854775807");
	ck_assert(stoat_json_i64(&j, &v));
	ck_assert(v == INT64_MAX);
	open_json("9223372036854775808");
	ck_assert(!stoat_json_i64(&j, &v));
	expect_error("number at byte 0 is out of range for i64");
	open_json("-9223372036854775809");
	ck_assert(!stoat_json_i64(&j, &v));
	open_json("99999999999999999999999");
	ck_assert(!stoat_json_i64(&j, &v));
	open_json("-0");
	ck_assert(stoat_json_i64(&j, &v));
	ck_assert(v == 0);
	open_json("2147483647");
	ck_assert(stoat_json_i32(&j, &w));
	ck_assert_int_eq(w, INT32_MAX);
	open_json("-2147483648");
	ck_assert(stoat_json_i32(&j, &w));
	ck_assert_int_eq(w, INT32_MIN);
	open_json("2147483648");
	ck_assert(!stoat_json_i32(&j, &w));
	expect_error("number at byte 0 is out of range for i32");
	open_json("1.0");
	ck_assert(!stoat_json_i64(&j, &v));
	expect_error("number 1.0 at byte 0 is not an integer (i64 expected)");
	open_json("1e3");
	ck_assert(!stoat_json_i32(&j, &w));
	expect_error("number 1e3 at byte 0 is not an integer (i32 expected)");
	open_json("-");
	ck_assert(!stoat_json_i64(&j, &v));
	expect_error("invalid JSON at byte 1: expected a number");
	open_json("+1");
	ck_assert(!stoat_json_i64(&j, &v));
	open_json("\"1\"");
	ck_assert(!stoat_json_i64(&j, &v));
	/* A leading zero ends the number; what follows is not the end. */
	open_json("01");
	ck_assert(stoat_json_i64(&j, &v));
	ck_assert(!stoat_json_end(&j));
	expect_error("invalid JSON at byte 1: expected the end of the input");
}
END_TEST

START_TEST(test_floats)
{
	double d;
	const char *ok[] = { "0", "-0.5", "1e10", "1E-5", "2.5e+3", "123456789012345678901234567890" };
	double want[] = { 0, -0.5, 1e10, 1e-5, 2.5e3, 123456789012345678901234567890.0 };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		open_json(ok[i]);
		ck_assert_msg(stoat_json_f64(&j, &d), "%s", ok[i]);
		ck_assert(d == want[i]);
		ck_assert(stoat_json_end(&j));
	}
	/* A long token (copied to the arena for strtod). */
	char longnum[300] = "0.";
	memset(longnum + 2, '0', 250);
	strcpy(longnum + 252, "15");
	open_json(longnum);
	ck_assert(stoat_json_f64(&j, &d));
	ck_assert(d == 15e-252);
	const char *bad[] = { "1.", ".5", "1e", "1e+", "-", "NaN", "Infinity", "0x10", "" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		open_json(bad[i]);
		ck_assert_msg(!(stoat_json_f64(&j, &d) && stoat_json_end(&j)), "%s parsed", bad[i]);
		ck_assert(cx.error);
	}
	open_json("1e400");
	ck_assert(!stoat_json_f64(&j, &d));
	expect_error("number at byte 0 is out of range for f64");
}
END_TEST

START_TEST(test_bool_null)
{
	bool b;
	open_json("true false nul");
	ck_assert(stoat_json_bool(&j, &b) && b);
	ck_assert(stoat_json_bool(&j, &b) && !b);
	ck_assert(!stoat_json_null(&j));
	ck_assert(!stoat_json_bool(&j, &b));
	expect_error("invalid JSON at byte 11: expected true or false");
	open_json(" null");
	ck_assert(stoat_json_null(&j));
	ck_assert(stoat_json_end(&j));
}
END_TEST

/* The pattern generated decoders use: objects with known and unknown
 * fields, arrays, and the end check. */
START_TEST(test_object_walk)
{
	open_json("{ \"id\" : 7, \"tags\": [\"a\", \"b\\n\"], \"extra\": {\"x\": [1, {\"y\": null}]}, "
		  "\"name\": \"n\" }");
	ck_assert(stoat_json_object_begin(&j));
	bool first = true;
	stoat_str name;
	int64_t id = 0;
	int tags = 0;
	stoat_str last_tag = { 0 };
	stoat_str n = { 0 };
	while (stoat_json_object_next(&j, &first, &name)) {
		if (stoat_str_eq(name, STOAT_STR_LIT("id"))) {
			ck_assert(stoat_json_i64(&j, &id));
		} else if (stoat_str_eq(name, STOAT_STR_LIT("tags"))) {
			ck_assert(stoat_json_array_begin(&j));
			bool afirst = true;
			while (stoat_json_array_next(&j, &afirst)) {
				ck_assert(stoat_json_string(&j, &last_tag));
				tags++;
			}
			ck_assert(!cx.error);
		} else if (stoat_str_eq(name, STOAT_STR_LIT("name"))) {
			ck_assert(stoat_json_string(&j, &n));
		} else {
			ck_assert(stoat_json_skip(&j));
		}
	}
	ck_assert(!cx.error);
	ck_assert(stoat_json_end(&j));
	ck_assert_int_eq(id, 7);
	ck_assert_int_eq(tags, 2);
	ck_assert(stoat_str_eq(last_tag, STOAT_STR_LIT("b\n")));
	ck_assert(stoat_str_eq(n, STOAT_STR_LIT("n")));
	ck_assert_int_eq(j.depth, 0);

	open_json("{}");
	first = true;
	ck_assert(stoat_json_object_begin(&j));
	ck_assert(!stoat_json_object_next(&j, &first, &name));
	ck_assert(!cx.error);
	ck_assert(stoat_json_end(&j));
}
END_TEST

/* Each malformed document gives an error, and the reader stays in bounds. */
START_TEST(test_malformed_documents)
{
	const char *bad[] = {
		"{", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{,}", "[1,]",
		"[1 2]", "[", "]", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":-}", "{\"a\":\"\\u", "}",
		"{\"a\":1}}", "[1]x", "\"\\ud800\\u0041\"", "{\"a\":[}", "\x01",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		open_json(bad[i]);
		bool ok = stoat_json_skip(&j) && stoat_json_end(&j);
		ck_assert_msg(!ok, "'%s' accepted", bad[i]);
		ck_assert_msg(cx.error, "'%s' rejected without a message", bad[i]);
		ck_assert(strncmp(cx.error_message, "invalid JSON at byte ", 21) == 0);
		ck_assert(j.p >= j.start && j.p <= j.end);
	}
	open_json("{\"a\":1,}");
	ck_assert(!stoat_json_skip(&j));
	expect_error("invalid JSON at byte 7: expected a string");
}
END_TEST

/* Truncating a valid document anywhere never crashes and is rejected;
 * every byte of it is also read through a separate buffer so ASan would
 * catch an overread. */
START_TEST(test_truncations)
{
	const char *doc = "{\"k\":[1,-2.5e3,\"s\\u00e9\\ud83d\\ude00\",true,false,null,{\"z\":[]}]}";
	size_t len = strlen(doc);
	for (size_t n = 0; n < len; n++) {
		char *copy = malloc(n ? n : 1);
		memcpy(copy, doc, n);
		stoat_arena_free(&cx.arena);
		memset(&cx, 0, sizeof cx);
		stoat_arena_init(&cx.arena);
		stoat_json_init(&j, &cx, (stoat_str){ copy, n });
		ck_assert(!(stoat_json_skip(&j) && stoat_json_end(&j)));
		ck_assert(cx.error);
		free(copy);
	}
	open_json(doc);
	ck_assert(stoat_json_skip(&j) && stoat_json_end(&j));
}
END_TEST

/* 64 levels are fine; the 65th is refused with a message. */
START_TEST(test_depth_limit)
{
	char doc[300];
	memset(doc, '[', 64);
	memset(doc + 64, ']', 64);
	doc[128] = '\0';
	open_json(doc);
	ck_assert(stoat_json_skip(&j));
	ck_assert(stoat_json_end(&j));

	memset(doc, '[', 65);
	memset(doc + 65, ']', 65);
	doc[130] = '\0';
	open_json(doc);
	ck_assert(!stoat_json_skip(&j));
	expect_error("invalid JSON at byte 64: expected at most 64 levels of nesting");

	/* Objects count too, and a huge depth does not overflow the stack. */
	char *deep = malloc(200001);
	for (int i = 0; i < 100000; i++) {
		deep[2 * i] = i % 2 ? '[' : '{';
		deep[2 * i + 1] = i % 2 ? ' ' : ' ';
	}
	deep[200000] = '\0';
	open_json(deep);
	ck_assert(!stoat_json_skip(&j));
	ck_assert(cx.error);
	free(deep);
}
END_TEST

START_TEST(test_missing_field)
{
	open_json("{}");
	ck_assert(!stoat_json_missing(&j, "Order", "id"));
	expect_error("missing field \"id\" in Order");
	/* The first error of a record wins. */
	ck_assert(!stoat_json_fail(&j, "something else"));
	expect_error("missing field \"id\" in Order");
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("runtime_json");
	TCase *tc = tcase_create("json");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_string_slice);
	tcase_add_test(tc, test_string_escapes);
	tcase_add_test(tc, test_string_special_at_every_offset);
	tcase_add_test(tc, test_string_errors);
	tcase_add_test(tc, test_wrong_type_names_the_field);
	tcase_add_test(tc, test_integers);
	tcase_add_test(tc, test_floats);
	tcase_add_test(tc, test_bool_null);
	tcase_add_test(tc, test_object_walk);
	tcase_add_test(tc, test_malformed_documents);
	tcase_add_test(tc, test_truncations);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_missing_field);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(json_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
