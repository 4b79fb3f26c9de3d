/*
 * Unit tests of the sliding window planner (sliding.c): for a record at t
 * and its key's windows, the steps Kafka Streams 4.4's
 * KStreamSlidingWindowAggregate takes, in its order.  The scenarios are
 * points of the e2e cases ks_sliding_create and ks_sliding_repeated
 * (ported from KStreamSlidingWindowAggregateTest), worked out by hand.
 */
#include "internal.h"

#include <check.h>
#include <stdlib.h>

/* Plans a record at t over the windows w[0..n) (start order). */
static size_t plan(stoat_arena *a, const stoat_sliding_window *w, size_t n, int64_t t, int64_t diff,
                   stoat_sliding_step **steps)
{
	size_t count;
	stoat_sliding_plan(a, w, n, t, diff, steps, &count);
	return count;
}

/* Checks step i: its kind, start and the window it starts from (-1: none). */
static void check_step(const stoat_sliding_step *s, const stoat_sliding_window *w, stoat_sliding_kind kind,
                       int64_t start, int from)
{
	ck_assert_int_eq(s->kind, kind);
	ck_assert_int_eq(s->start, start);
	if (from < 0)
		ck_assert_ptr_null(s->from);
	else
		ck_assert_ptr_eq(s->from, &w[from]);
}

/* Nothing stored: the record's left window, new. */
START_TEST(first_record)
{
	stoat_arena a;
	stoat_arena_init(&a);
	stoat_sliding_step *s;
	ck_assert_uint_eq(plan(&a, NULL, 0, 10, 10, &s), 1);
	check_step(&s[0], NULL, STOAT_SLIDING_NEW, 0, -1);
	stoat_arena_free(&a);
}
END_TEST

/* A@15 after A@10 (diff 10): the previous record's right window [11,21],
 * then the left window [5,15] from [0,10]. */
START_TEST(previous_right_window_then_left)
{
	stoat_arena a;
	stoat_arena_init(&a);
	stoat_sliding_window w[] = { { 0, 10, { 0 } } };
	stoat_sliding_step *s;
	ck_assert_uint_eq(plan(&a, w, 1, 15, 10, &s), 2);
	check_step(&s[0], w, STOAT_SLIDING_NEW, 11, -1);
	check_step(&s[1], w, STOAT_SLIDING_FROM, 5, 0);
	stoat_arena_free(&a);
}
END_TEST

/* A@12 out of order over [0,10] (ts 10), [5,15] (15), [11,21] (15): the
 * windows holding 12 latest start first, the left window [2,12] from
 * [0,10], the right window [13,23] copied from [11,21]. */
START_TEST(out_of_order_record)
{
	stoat_arena a;
	stoat_arena_init(&a);
	stoat_sliding_window w[] = { { 0, 10, { 0 } }, { 5, 15, { 0 } }, { 11, 15, { 0 } } };
	stoat_sliding_step *s;
	ck_assert_uint_eq(plan(&a, w, 3, 12, 10, &s), 4);
	check_step(&s[0], w, STOAT_SLIDING_UPDATE, 11, 2);
	check_step(&s[1], w, STOAT_SLIDING_UPDATE, 5, 1);
	check_step(&s[2], w, STOAT_SLIDING_FROM, 2, 0);
	check_step(&s[3], w, STOAT_SLIDING_COPY, 13, 2);
	stoat_arena_free(&a);
}
END_TEST

/* A second record at 15 over [5,15] (ts 15): its left window only. */
START_TEST(repeated_time)
{
	stoat_arena a;
	stoat_arena_init(&a);
	stoat_sliding_window w[] = { { 5, 15, { 0 } } };
	stoat_sliding_step *s;
	ck_assert_uint_eq(plan(&a, w, 1, 15, 10, &s), 1);
	check_step(&s[0], w, STOAT_SLIDING_UPDATE, 5, 0);
	stoat_arena_free(&a);
}
END_TEST

/* Early records (diff 5): 3@4 over [0,5] (ts 2), [1,6] (2) updates [1,6],
 * makes the previous record's right window [3,8], updates [0,5]; 4@0 over
 * [0,5] (4), [1,6] (4) only updates [0,5] ([1,6] is its right window). */
START_TEST(early_records)
{
	stoat_arena a;
	stoat_arena_init(&a);
	stoat_sliding_window w[] = { { 0, 2, { 0 } }, { 1, 2, { 0 } } };
	stoat_sliding_step *s;
	ck_assert_uint_eq(plan(&a, w, 2, 4, 5, &s), 3);
	check_step(&s[0], w, STOAT_SLIDING_UPDATE, 1, 1);
	check_step(&s[1], w, STOAT_SLIDING_NEW, 3, -1);
	check_step(&s[2], w, STOAT_SLIDING_UPDATE, 0, 0);
	stoat_sliding_window later[] = { { 0, 4, { 0 } }, { 1, 4, { 0 } } };
	ck_assert_uint_eq(plan(&a, later, 2, 0, 5, &s), 1);
	check_step(&s[0], later, STOAT_SLIDING_UPDATE, 0, 0);
	stoat_arena_free(&a);
}
END_TEST

static Suite *sliding_suite(void)
{
	Suite *s = suite_create("sliding");
	TCase *tc = tcase_create("plan");
	tcase_add_test(tc, first_record);
	tcase_add_test(tc, previous_right_window_then_left);
	tcase_add_test(tc, out_of_order_record);
	tcase_add_test(tc, repeated_time);
	tcase_add_test(tc, early_records);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sliding_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
