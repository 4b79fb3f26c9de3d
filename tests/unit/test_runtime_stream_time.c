/*
 * Unit tests of the drivers' stream time slots (driver.c): one per task
 * (sub-topology, partition), -1 before the first record, each at an
 * address that stays put while the table grows around it, and what
 * stoat_observe_time does through a context pointed at one.
 */
#include "internal.h"

#include <check.h>
#include <stdlib.h>

/* A new slot is -1; asking again gives the same slot. */
START_TEST(test_slot_made_once)
{
	stoat_driver d = { 0 };
	int64_t *s = stoat_stream_time_slot(&d, 0, 0);
	ck_assert_int_eq(*s, -1);
	*s = 42;
	ck_assert_ptr_eq(stoat_stream_time_slot(&d, 0, 0), s);
	ck_assert_int_eq(*stoat_stream_time_slot(&d, 0, 0), 42);
	stoat_stream_times_free(&d);
	ck_assert_int_eq(d.stream_times.nsubtopologies, 0);
}
END_TEST

/* Tasks are separate: other partitions, other sub-topologies; slots keep
 * their addresses and values while later ones grow the table. */
START_TEST(test_slots_per_task)
{
	stoat_driver d = { 0 };
	int64_t *a = stoat_stream_time_slot(&d, 0, 0);
	int64_t *b = stoat_stream_time_slot(&d, 0, 1);
	int64_t *c = stoat_stream_time_slot(&d, 2, 0);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_ne(a, c);
	ck_assert_ptr_ne(b, c);
	*a = 1;
	*b = 2;
	*c = 3;
	/* Growth: a far partition and a far sub-topology. */
	int64_t *far = stoat_stream_time_slot(&d, 0, 1000);
	int64_t *farther = stoat_stream_time_slot(&d, 7, 5);
	ck_assert_int_eq(*far, -1);
	ck_assert_int_eq(*farther, -1);
	ck_assert_ptr_eq(stoat_stream_time_slot(&d, 0, 0), a);
	ck_assert_ptr_eq(stoat_stream_time_slot(&d, 0, 1), b);
	ck_assert_ptr_eq(stoat_stream_time_slot(&d, 2, 0), c);
	ck_assert_int_eq(*a, 1);
	ck_assert_int_eq(*b, 2);
	ck_assert_int_eq(*c, 3);
	/* A sub-topology between the ones asked for starts fresh. */
	ck_assert_int_eq(*stoat_stream_time_slot(&d, 1, 0), -1);
	stoat_stream_times_free(&d);
}
END_TEST

/* stoat_observe_time through a context pointed at a slot: the slot only
 * moves forward and the stream time before the record is returned. */
START_TEST(test_observe_through_slot)
{
	stoat_driver d = { 0 };
	stoat_ctx cx;
	stoat_ctx_init(&cx, NULL, &d);
	ck_assert_int_eq(*cx.stream_time, -1); /* its own until a driver points it */
	cx.stream_time = stoat_stream_time_slot(&d, 1, 3);
	ck_assert_int_eq(stoat_observe_time(&cx, 100), -1);
	ck_assert_int_eq(stoat_observe_time(&cx, 50), 100);
	ck_assert_int_eq(stoat_observe_time(&cx, 100), 100);
	ck_assert_int_eq(stoat_observe_time(&cx, 150), 100);
	ck_assert_int_eq(*stoat_stream_time_slot(&d, 1, 3), 150);
	ck_assert_int_eq(cx.own_stream_time, -1);
	stoat_ctx_free(&cx);
	stoat_stream_times_free(&d);
}
END_TEST

static Suite *stream_time_suite(void)
{
	Suite *s = suite_create("runtime_stream_time");
	TCase *tc = tcase_create("slots");
	tcase_add_test(tc, test_slot_made_once);
	tcase_add_test(tc, test_slots_per_task);
	tcase_add_test(tc, test_observe_through_slot);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stream_time_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
