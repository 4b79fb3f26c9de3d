/*
 * Unit tests for the decoding of store entries offline
 * (runtime/src/store_dump.c): a changelog record as `dump` prints it
 * (stoat_format_changelog_line) for a table's and a window store's
 * records, tombstones, window metadata, bytes the types do not read, a
 * store without JSON functions; and which topics are changelogs.  The
 * store's JSON functions are written here by hand as stoatc generates
 * them (a string key, an i64 value); the expected lines are worked out
 * from the layouts in runtime.h.
 */
#include "internal.h"
#include "store_dump.h"

#include <check.h>
#include <stdlib.h>

/* A string in the store key layout, as JSON (store_key_json_str). */
static bool key_json_str(stoat_ctx *cx, stoat_str bytes, stoat_buf *out)
{
	stoat_val_reader r = stoat_val_reader_of(bytes);
	stoat_str s;
	if (!stoat_key_get_str(&r, &cx->arena, &s) || !stoat_val_end(&r)) {
		stoat_error(cx, "malformed store key (%zu bytes) for the type string", bytes.len);
		return false;
	}
	stoat_buf_put_json_str(out, s);
	return true;
}

/* An i64 in the store value layout, as JSON (store_value_json_i64). */
static bool value_json_i64(stoat_ctx *cx, stoat_str bytes, stoat_buf *out)
{
	stoat_val_reader r = stoat_val_reader_of(bytes);
	int64_t v;
	if (!stoat_val_get_i64(&r, &v) || !stoat_val_end(&r)) {
		stoat_error(cx, "malformed stored value (%zu bytes) for the type i64", bytes.len);
		return false;
	}
	stoat_buf_put_i64(out, v);
	return true;
}

static const stoat_store_desc stores[] = {
	{ .name = "counts", .what = "table", .key_type = "string", .value_type = "i64", .key_json = key_json_str,
	  .value_json = value_json_i64 },
	{ .name = "w", .kind = STOAT_STORE_WINDOW, .retention_ms = 5, .segment_ms = 10, .key_type = "string",
	  .value_type = "i64", .key_json = key_json_str, .value_json = value_json_i64 },
	{ .name = "g", .global = true, .key_json = key_json_str, .value_json = value_json_i64 },
	{ .name = "join-3-this-join-store" },
};

static const stoat_app app = { .app_id = "app", .stores = stores, .store_count = 4 };

/* The line stoat_format_changelog_line writes for a record of store (partition 1, offset 5, time 100). */
static char *changelog_line(int store, stoat_str key, stoat_str value, stoat_store_entry *kind)
{
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	cx.app = &app;
	stoat_arena_init(&cx.arena);
	stoat_buf b;
	stoat_buf_init(&b);
	char topic[128];
	snprintf(topic, sizeof topic, "app-%s-changelog", stores[store].name);
	*kind = stoat_format_changelog_line(&b, &cx, &app, store, (stoat_str){ topic, strlen(topic) }, 1, 5, 100, key,
					    value);
	ck_assert(!cx.error);
	char *line = strndup(b.data, b.len);
	stoat_buf_free(&b);
	stoat_arena_free(&cx.arena);
	return line;
}

/* Asserts the line and the kind of entry of a record. */
static void expect_line(int store, stoat_str key, stoat_str value, stoat_store_entry want_kind, const char *want)
{
	stoat_store_entry kind;
	char *line = changelog_line(store, key, value, &kind);
	ck_assert_str_eq(line, want);
	ck_assert_int_eq(kind, want_kind);
	free(line);
}

/* A window store key: 01 | segment | key | end | start. */
static stoat_str window_key(stoat_buf *b, const char *key, int64_t start, int64_t end, int64_t segment_ms)
{
	b->len = 0;
	stoat_buf_putc(b, 1);
	stoat_key_put_i64(b, end / segment_ms);
	stoat_key_put_str(b, (stoat_str){ key, strlen(key) });
	stoat_key_put_i64(b, end);
	stoat_key_put_i64(b, start);
	return stoat_buf_str(b);
}

/* A table's record: the key and value with the store's types; a tombstone's value is null. */
START_TEST(test_table_record)
{
	stoat_buf k, v;
	stoat_buf_init(&k);
	stoat_buf_init(&v);
	stoat_key_put_str(&k, STOAT_STR_LIT("a"));
	stoat_val_put_i64(&v, 2);
	expect_line(0, stoat_buf_str(&k), stoat_buf_str(&v), STOAT_ENTRY_DECODED,
		    "{\"topic\":\"app-counts-changelog\",\"partition\":1,\"offset\":5,\"timestamp\":100,"
		    "\"store\":\"counts\",\"key\":\"a\",\"value\":2}\n");
	expect_line(0, stoat_buf_str(&k), (stoat_str){ NULL, 0 }, STOAT_ENTRY_DECODED,
		    "{\"topic\":\"app-counts-changelog\",\"partition\":1,\"offset\":5,\"timestamp\":100,"
		    "\"store\":\"counts\",\"key\":\"a\",\"value\":null}\n");
	/* A key with a 00 byte (escaped 00 FF in the layout) and a negative value. */
	k.len = v.len = 0;
	stoat_key_put_str(&k, (stoat_str){ "x\0y", 3 });
	stoat_val_put_i64(&v, -3);
	expect_line(0, stoat_buf_str(&k), stoat_buf_str(&v), STOAT_ENTRY_DECODED,
		    "{\"topic\":\"app-counts-changelog\",\"partition\":1,\"offset\":5,\"timestamp\":100,"
		    "\"store\":\"counts\",\"key\":\"x\\u0000y\",\"value\":-3}\n");
	stoat_buf_free(&k);
	stoat_buf_free(&v);
}
END_TEST

/* A window's record: key, window, the largest record time and the aggregate; a tombstone. */
START_TEST(test_window_record)
{
	stoat_buf k, v;
	stoat_buf_init(&k);
	stoat_buf_init(&v);
	stoat_str key = window_key(&k, "a", 0, 10, 10);
	stoat_buf_put_be64(&v, 7);
	stoat_val_put_i64(&v, 3);
	expect_line(1, key, stoat_buf_str(&v), STOAT_ENTRY_DECODED,
		    "{\"topic\":\"app-w-changelog\",\"partition\":1,\"offset\":5,\"timestamp\":100,\"store\":\"w\","
		    "\"key\":\"a\",\"start\":0,\"end\":10,\"value_timestamp\":7,\"value\":3}\n");
	expect_line(1, key, (stoat_str){ NULL, 0 }, STOAT_ENTRY_DECODED,
		    "{\"topic\":\"app-w-changelog\",\"partition\":1,\"offset\":5,\"timestamp\":100,\"store\":\"w\","
		    "\"key\":\"a\",\"start\":0,\"end\":10,\"value\":null}\n");
	/* The stream time the state layer writes as metadata: 8 bytes big-endian. */
	v.len = 0;
	stoat_buf_put_be64(&v, 12);
	expect_line(1, (stoat_str){ "\0stream-time", 12 }, stoat_buf_str(&v), STOAT_ENTRY_META,
		    "{\"topic\":\"app-w-changelog\",\"partition\":1,\"offset\":5,\"timestamp\":100,\"store\":\"w\","
		    "\"meta\":\"stream-time\",\"value\":12}\n");
	stoat_buf_free(&k);
	stoat_buf_free(&v);
}
END_TEST

/* Bytes the types do not read: both in base64, and why. */
START_TEST(test_malformed)
{
	stoat_buf k;
	stoat_buf_init(&k);
	stoat_key_put_str(&k, STOAT_STR_LIT("a")); /* 61 00 01: "YQAB" */
	/* A varint cut short (80: more bytes follow). */
	expect_line(0, stoat_buf_str(&k), STOAT_STR_LIT("\x80"), STOAT_ENTRY_MALFORMED,
		    "{\"topic\":\"app-counts-changelog\",\"partition\":1,\"offset\":5,\"timestamp\":100,"
		    "\"store\":\"counts\",\"key_base64\":\"YQAB\",\"value_base64\":\"gA==\","
		    "\"error\":\"malformed stored value (1 bytes) for the type i64\"}\n");
	/* A key without its terminator. */
	expect_line(0, STOAT_STR_LIT("a"), STOAT_STR_LIT("\x04"), STOAT_ENTRY_MALFORMED,
		    "{\"topic\":\"app-counts-changelog\",\"partition\":1,\"offset\":5,\"timestamp\":100,"
		    "\"store\":\"counts\",\"key_base64\":\"YQ==\",\"value_base64\":\"BA==\","
		    "\"error\":\"malformed store key (1 bytes) for the type string\"}\n");
	/* A window value shorter than its timestamp. */
	stoat_str key = window_key(&k, "a", 0, 10, 10);
	stoat_store_entry kind;
	char *line = changelog_line(1, key, STOAT_STR_LIT("\x01\x02"), &kind);
	ck_assert_int_eq(kind, STOAT_ENTRY_MALFORMED);
	ck_assert_msg(strstr(line, ",\"start\":0,\"end\":10,\"value_base64\":\"AQI=\",\"error\":\"malformed window value"),
		      "line: %s", line);
	free(line);
	stoat_buf_free(&k);
}
END_TEST

/* A store without JSON functions (a join's own): its bytes in base64. */
START_TEST(test_no_types)
{
	expect_line(3, STOAT_STR_LIT("k"), STOAT_STR_LIT("v"), STOAT_ENTRY_DECODED,
		    "{\"topic\":\"app-join-3-this-join-store-changelog\",\"partition\":1,\"offset\":5,"
		    "\"timestamp\":100,\"store\":\"join-3-this-join-store\",\"key_base64\":\"aw==\","
		    "\"value_base64\":\"dg==\"}\n");
}
END_TEST

/* Which topics are changelogs: "<app id>-<store>-changelog", not a global table's. */
START_TEST(test_changelog_topics)
{
	ck_assert_int_eq(stoat_store_of_changelog(&app, "app-counts-changelog"), 0);
	ck_assert_int_eq(stoat_store_of_changelog(&app, "app-w-changelog"), 1);
	ck_assert_int_eq(stoat_store_of_changelog(&app, "app-join-3-this-join-store-changelog"), 3);
	ck_assert_int_eq(stoat_store_of_changelog(&app, "app-g-changelog"), -1);
	ck_assert_int_eq(stoat_store_of_changelog(&app, "app-counts"), -1);
	ck_assert_int_eq(stoat_store_of_changelog(&app, "app-counts-changelog-x"), -1);
	ck_assert_int_eq(stoat_store_of_changelog(&app, "other-counts-changelog"), -1);
	ck_assert_int_eq(stoat_store_of_changelog(&app, "appcounts-changelog"), -1);
}
END_TEST

/* The test suite of this file. */
static Suite *store_dump_suite(void)
{
	Suite *s = suite_create("runtime_store_dump");
	TCase *tc = tcase_create("store_dump");
	tcase_add_test(tc, test_table_record);
	tcase_add_test(tc, test_window_record);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_no_types);
	tcase_add_test(tc, test_changelog_topics);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(store_dump_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
