/*
 * Unit tests for the pre-aggregation buffers (runtime/src/preagg.c): what
 * a flush writes to the repartition sink, in which order, with which
 * timestamps; replaced partials; a buffer written out early when full; a
 * discard.  A driver of the test's own captures the writes.
 */
#include "internal.h"

#include <check.h>
#include <stdlib.h>

/* One record the flush wrote. */
typedef struct written {
	int sink;
	char key[64];
	size_t value_len;
	char value[64]; /* the first bytes */
	int64_t timestamp;
} written;

static written out[64];
static size_t nout;
static size_t out_total; /* every write, also past the 64 kept */
static int64_t out_count_sum; /* the sum of the partial counts written */

/* The test driver's emit: keeps the record (and sums its LongSerde count). */
static bool capture(stoat_driver *d, stoat_ctx *cx, int sink, stoat_str topic, stoat_str key, stoat_str value)
{
	(void)d;
	(void)topic;
	if (value.len == 8) {
		uint64_t n = 0;
		for (int i = 0; i < 8; i++)
			n = n << 8 | (unsigned char)value.ptr[i];
		out_count_sum += (int64_t)n;
	}
	out_total++;
	if (nout < sizeof out / sizeof out[0]) {
		written *w = &out[nout++];
		w->sink = sink;
		snprintf(w->key, sizeof w->key, "%.*s", (int)key.len, key.ptr);
		w->value_len = value.len;
		memcpy(w->value, value.ptr, value.len < sizeof w->value ? value.len : sizeof w->value);
		w->timestamp = cx->timestamp;
	}
	return true;
}

static const stoat_driver_ops test_ops = { .name = "test", .emit = capture };
static const stoat_sink sinks[] = {
	{ .topic = "out", .key_format = STOAT_FMT_TEXT, .value_format = STOAT_FMT_I64 },
	{ .topic = "app-t-repartition", .key_format = STOAT_FMT_TEXT, .value_format = STOAT_FMT_I64, .internal = true },
};
static const stoat_preagg_desc preaggs[] = { { .name = "t", .sink = 1 } };
static const stoat_app app = {
	.app_id = "app",
	.sinks = sinks,
	.sink_count = 2,
	.preaggs = preaggs,
	.preagg_count = 1,
};

static stoat_driver driver = { .ops = &test_ops, .app = &app };
static stoat_ctx cx;
static stoat_msg in;

/* A fresh context and capture. */
static void setup(void)
{
	stoat_ctx_init(&cx, &app, &driver);
	memset(&in, 0, sizeof in);
	cx.msg = &in;
	nout = out_total = 0;
	out_count_sum = 0;
}

static void teardown(void)
{
	stoat_ctx_free(&cx);
}

/* The i64 of a LongSerde value. */
static int64_t long_of(const written *w)
{
	ck_assert_uint_eq(w->value_len, 8);
	uint64_t n = 0;
	for (int i = 0; i < 8; i++)
		n = n << 8 | (unsigned char)w->value[i];
	return (int64_t)n;
}

/* Counts one record of key s at time t. */
static void count_at(const char *s, int64_t t)
{
	cx.timestamp = t;
	stoat_preagg_count(&cx, 0, (stoat_str){ s, strlen(s) });
	ck_assert(!cx.error);
}

START_TEST(test_count_combines_per_key)
{
	count_at("a", 5);
	count_at("b", 3);
	count_at("a", 9);
	count_at("a", 7);
	ck_assert_uint_eq(nout, 0); /* nothing before the flush */
	ck_assert(stoat_preagg_flush(&cx));
	/* One record per key, in the order the keys came, the largest time each. */
	ck_assert_uint_eq(nout, 2);
	ck_assert_int_eq(out[0].sink, 1);
	ck_assert_str_eq(out[0].key, "a");
	ck_assert_int_eq(long_of(&out[0]), 3);
	ck_assert_int_eq(out[0].timestamp, 9);
	ck_assert_str_eq(out[1].key, "b");
	ck_assert_int_eq(long_of(&out[1]), 1);
	ck_assert_int_eq(out[1].timestamp, 3);
	/* The record being processed is cx's again. */
	ck_assert_ptr_eq(cx.msg, &in);
	ck_assert(stoat_preagg_flush(&cx));
	ck_assert_uint_eq(nout, 2); /* emptied */
	count_at("a", 1);
	ck_assert(stoat_preagg_flush(&cx));
	ck_assert_uint_eq(nout, 3);
	ck_assert_int_eq(long_of(&out[2]), 1);
}
END_TEST

START_TEST(test_put_replaces)
{
	stoat_str k = STOAT_STR_LIT("k"), p;
	ck_assert(!stoat_preagg_get(&cx, 0, k, &p));
	cx.timestamp = 4;
	stoat_preagg_put(&cx, 0, k, STOAT_STR_LIT("xy"));
	ck_assert(stoat_preagg_get(&cx, 0, k, &p));
	ck_assert(stoat_str_eq(p, STOAT_STR_LIT("xy")));
	cx.timestamp = 2;
	stoat_preagg_put(&cx, 0, k, STOAT_STR_LIT("z")); /* shorter: in place */
	cx.timestamp = 3;
	stoat_preagg_put(&cx, 0, k, STOAT_STR_LIT("uvwx")); /* longer: moved */
	ck_assert(stoat_preagg_get(&cx, 0, k, &p));
	ck_assert(stoat_str_eq(p, STOAT_STR_LIT("uvwx")));
	ck_assert(stoat_preagg_flush(&cx));
	ck_assert_uint_eq(nout, 1);
	ck_assert_uint_eq(out[0].value_len, 4);
	ck_assert(memcmp(out[0].value, "uvwx", 4) == 0);
	ck_assert_int_eq(out[0].timestamp, 4);
}
END_TEST

/* More keys than a buffer holds: written out early, nothing lost or doubled. */
START_TEST(test_full_buffer_written_early)
{
	enum { KEYS = 100000 };
	char key[16];
	for (int i = 0; i < KEYS; i++) {
		snprintf(key, sizeof key, "w%d", i);
		count_at(key, i);
		count_at(key, i);
	}
	ck_assert_uint_gt(out_total, 0); /* written out before the flush */
	ck_assert(stoat_preagg_flush(&cx));
	/* Each key's two records combined once, none lost, none twice. */
	ck_assert_uint_eq(out_total, KEYS);
	ck_assert_int_eq(out_count_sum, 2 * KEYS);
}
END_TEST

/*
 * A longer partial that no longer fits: the key's old partial is not
 * written with the others (the new one holds it), and the new one is
 * written at the next flush.
 */
START_TEST(test_longer_partial_when_full)
{
	cx.timestamp = 10;
	stoat_preagg_put(&cx, 0, STOAT_STR_LIT("k"), STOAT_STR_LIT("a"));
	size_t big_len = STOAT_PREAGG_MAX_BYTES / 2 - 100;
	char *big = calloc(1, big_len);
	ck_assert_ptr_nonnull(big);
	memset(big, 'b', big_len);
	cx.timestamp = 20;
	stoat_preagg_put(&cx, 0, STOAT_STR_LIT("big"), (stoat_str){ big, big_len });
	char longer[200];
	memset(longer, 'c', sizeof longer);
	cx.timestamp = 5;
	stoat_preagg_put(&cx, 0, STOAT_STR_LIT("k"), (stoat_str){ longer, sizeof longer });
	ck_assert(!cx.error);
	ck_assert_uint_eq(nout, 1);
	ck_assert_str_eq(out[0].key, "big");
	ck_assert_uint_eq(out[0].value_len, big_len);
	ck_assert(stoat_preagg_flush(&cx));
	ck_assert_uint_eq(nout, 2);
	ck_assert_str_eq(out[1].key, "k");
	ck_assert_uint_eq(out[1].value_len, sizeof longer);
	ck_assert_int_eq(out[1].timestamp, 10); /* the larger of the two records' */
	free(big);
}
END_TEST

START_TEST(test_discard)
{
	count_at("a", 1);
	stoat_preagg_discard(&cx);
	ck_assert(stoat_preagg_flush(&cx));
	ck_assert_uint_eq(nout, 0);
}
END_TEST

static Suite *preagg_suite(void)
{
	Suite *s = suite_create("preagg");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_count_combines_per_key);
	tcase_add_test(tc, test_put_replaces);
	tcase_add_test(tc, test_full_buffer_written_early);
	tcase_add_test(tc, test_longer_partial_when_full);
	tcase_add_test(tc, test_discard);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(preagg_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
