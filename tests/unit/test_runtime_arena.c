/*
 * Unit tests for the per-batch arena and what is built on it: alignment,
 * growth past a chunk, reuse of chunks after reset, strdup, concat, vec.
 */
#include "internal.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

/* Every allocation is 8-aligned, whatever the sizes before it. */
START_TEST(test_alignment)
{
	stoat_arena a;
	stoat_arena_init(&a);
	for (size_t n = 0; n < 200; n++) {
		char *p = stoat_arena_alloc(&a, n % 13);
		ck_assert_uint_eq((uintptr_t)p % 8, 0);
		memset(p, 0xab, n % 13);
	}
	stoat_arena_free(&a);
}
END_TEST

/* Allocations larger than a chunk and many small ones both work, and the
 * memory stays intact (writes to one allocation do not hit another). */
START_TEST(test_growth)
{
	stoat_arena a;
	stoat_arena_init(&a);
	char *big = stoat_arena_alloc(&a, 1 << 20);
	memset(big, 1, 1 << 20);
	uint32_t *small[5000];
	for (uint32_t i = 0; i < 5000; i++) {
		small[i] = stoat_arena_alloc(&a, 64);
		memset(small[i], 0, 64);
		*small[i] = i;
	}
	for (uint32_t i = 0; i < 5000; i++)
		ck_assert_uint_eq(*small[i], i);
	ck_assert_int_eq(big[0], 1);
	ck_assert_int_eq(big[(1 << 20) - 1], 1);
	ck_assert_uint_ge(a.allocated, (1 << 20) + 5000 * 64);
	stoat_arena_free(&a);
	ck_assert_uint_eq(a.allocated, 0);
}
END_TEST

/* After reset, the same workload is served from the kept chunks: nothing
 * new is malloc'd. */
START_TEST(test_reset_reuses_chunks)
{
	stoat_arena a;
	stoat_arena_init(&a);
	for (int i = 0; i < 3000; i++)
		stoat_arena_alloc(&a, 100);
	size_t allocated = a.allocated;
	for (int round = 0; round < 5; round++) {
		stoat_arena_reset(&a);
		for (int i = 0; i < 3000; i++)
			stoat_arena_alloc(&a, 100);
		ck_assert_uint_eq(a.allocated, allocated);
	}
	stoat_arena_free(&a);
}
END_TEST

/* Reset on a fresh arena and zero-byte allocations are harmless. */
START_TEST(test_empty_cases)
{
	stoat_arena a;
	stoat_arena_init(&a);
	stoat_arena_reset(&a);
	void *p = stoat_arena_alloc(&a, 0);
	ck_assert_ptr_nonnull(p);
	stoat_str s = stoat_arena_strdup(&a, (stoat_str){ NULL, 0 });
	ck_assert_ptr_nonnull(s.ptr);
	ck_assert_uint_eq(s.len, 0);
	stoat_arena_free(&a);
	stoat_arena_free(&a);
}
END_TEST

/* strdup copies; concat joins into the context's arena. */
START_TEST(test_strdup_concat)
{
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	stoat_arena_init(&cx.arena);
	char src[] = "hello";
	stoat_str copy = stoat_arena_strdup(&cx.arena, (stoat_str){ src, 5 });
	src[0] = 'j';
	ck_assert(stoat_str_eq(copy, STOAT_STR_LIT("hello")));
	stoat_str both = stoat_str_concat(&cx, copy, STOAT_STR_LIT(", world"));
	ck_assert(stoat_str_eq(both, STOAT_STR_LIT("hello, world")));
	stoat_str empty = stoat_str_concat(&cx, (stoat_str){ "", 0 }, (stoat_str){ "", 0 });
	ck_assert_uint_eq(empty.len, 0);
	ck_assert_ptr_nonnull(empty.ptr);
	stoat_arena_free(&cx.arena);
}
END_TEST

/* Vectors start at 8 and double, keeping their elements. */
START_TEST(test_vec)
{
	stoat_arena a;
	stoat_arena_init(&a);
	stoat_vec v = { 0 };
	for (int64_t i = 0; i < 1000; i++) {
		*(int64_t *)stoat_vec_push(&a, &v, sizeof(int64_t)) = i * 3;
		if (i == 0)
			ck_assert_uint_eq(v.cap, 8);
	}
	ck_assert_uint_eq(v.len, 1000);
	ck_assert_uint_eq(v.cap, 1024);
	for (int64_t i = 0; i < 1000; i++)
		ck_assert_int_eq(((int64_t *)v.data)[i], i * 3);
	stoat_arena_free(&a);
}
END_TEST

/* The test suite of this file. */
static Suite *arena_suite(void)
{
	Suite *s = suite_create("runtime_arena");
	TCase *tc = tcase_create("arena");
	tcase_add_test(tc, test_alignment);
	tcase_add_test(tc, test_growth);
	tcase_add_test(tc, test_reset_reuses_chunks);
	tcase_add_test(tc, test_empty_cases);
	tcase_add_test(tc, test_strdup_concat);
	tcase_add_test(tc, test_vec);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(arena_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
