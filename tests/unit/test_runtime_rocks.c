/*
 * Unit tests for the RocksDB state module (runtime/src/rocks.c): reads see
 * uncommitted writes, abort discards them, commit persists them (with its
 * meta puts) across close and reopen, families are isolated, deletes,
 * bytewise scan order, memory budget parsing and open errors, and the
 * read-only open of store dump beside a writer.
 *
 * Every test works in its own mkdtemp directory and removes it.
 */
#include "internal.h"

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define STR(s) STOAT_STR_LIT(s)

#define TMPDIR_TEMPLATE "/tmp/stoat-rocks-XXXXXX"
#define TMPDIR_DB "state"
#include "tmpdir.h"

/* Opens db_dir with the low budget, failing the test on error. */
static stoat_rocks *open_db(void)
{
	char err[512] = "";
	stoat_rocks *db = stoat_rocks_open(db_dir, stoat_rocks_memory_budget("low"), err, sizeof err);
	ck_assert_msg(db != NULL, "open failed: %s", err);
	return db;
}

/* The family called name, failing the test on error. */
static int family(stoat_rocks *db, const char *name)
{
	char err[512] = "";
	int f = stoat_rocks_family(db, name, err, sizeof err);
	ck_assert_msg(f >= 0, "family %s: %s", name, err);
	return f;
}

/* Asserts that key is found in family with value want. */
static void expect_value(stoat_rocks *db, int f, stoat_str key, stoat_str want)
{
	stoat_arena a;
	stoat_arena_init(&a);
	char err[512] = "";
	stoat_str v = { NULL, 0 };
	bool found = false;
	ck_assert_msg(stoat_rocks_get(db, f, key, &a, &v, &found, err, sizeof err), "get: %s", err);
	ck_assert_msg(found, "key %.*s not found", (int)key.len, key.ptr);
	ck_assert_uint_eq(v.len, want.len);
	ck_assert(stoat_str_eq(v, want));
	stoat_arena_free(&a);
}

/* Asserts that key is absent from family. */
static void expect_absent(stoat_rocks *db, int f, stoat_str key)
{
	stoat_arena a;
	stoat_arena_init(&a);
	char err[512] = "";
	stoat_str v = { "x", 1 };
	bool found = true;
	ck_assert_msg(stoat_rocks_get(db, f, key, &a, &v, &found, err, sizeof err), "get: %s", err);
	ck_assert_msg(!found, "key %.*s unexpectedly found", (int)key.len, key.ptr);
	ck_assert_ptr_null(v.ptr);
	stoat_arena_free(&a);
}

/* Commits with no meta puts, failing the test on error. */
static void commit(stoat_rocks *db)
{
	char err[512] = "";
	ck_assert_msg(stoat_rocks_commit(db, NULL, 0, err, sizeof err), "commit: %s", err);
	ck_assert_int_eq(stoat_rocks_pending(db), 0);
}

/* Reads see the batch before commit, and the value is a copy in the arena. */
START_TEST(test_read_your_writes)
{
	make_dirs();
	stoat_rocks *db = open_db();
	int f = family(db, "counts.0_3");
	expect_absent(db, f, STR("apple"));
	stoat_rocks_put(db, f, STR("apple"), STR("1"));
	ck_assert_int_eq(stoat_rocks_pending(db), 1);
	expect_value(db, f, STR("apple"), STR("1"));
	stoat_rocks_put(db, f, STR("apple"), STR("22"));
	expect_value(db, f, STR("apple"), STR("22"));

	/* The value lives in the arena, not in RocksDB or the batch. */
	stoat_arena a;
	stoat_arena_init(&a);
	char err[256];
	stoat_str v;
	bool found;
	ck_assert(stoat_rocks_get(db, f, STR("apple"), &a, &v, &found, err, sizeof err));
	ck_assert(found);
	stoat_rocks_abort(db);
	ck_assert(stoat_str_eq(v, STR("22")));
	stoat_arena_free(&a);

	/* An empty value is found, and differs from an absent key. */
	stoat_rocks_put(db, f, STR("empty"), (stoat_str){ NULL, 0 });
	expect_value(db, f, STR("empty"), STR(""));
	commit(db);
	expect_value(db, f, STR("empty"), STR(""));
	expect_absent(db, f, STR("apple"));
	stoat_rocks_close(db);
	remove_dirs();
}
END_TEST

/* Abort drops every uncommitted write, committed data stays. */
START_TEST(test_abort_discards)
{
	make_dirs();
	stoat_rocks *db = open_db();
	int f = family(db, "s.0_0");
	stoat_rocks_put(db, f, STR("kept"), STR("old"));
	commit(db);
	stoat_rocks_put(db, f, STR("kept"), STR("new"));
	stoat_rocks_put(db, f, STR("gone"), STR("x"));
	ck_assert_int_eq(stoat_rocks_pending(db), 2);
	expect_value(db, f, STR("kept"), STR("new"));
	stoat_rocks_abort(db);
	ck_assert_int_eq(stoat_rocks_pending(db), 0);
	expect_value(db, f, STR("kept"), STR("old"));
	expect_absent(db, f, STR("gone"));
	/* Committing after an abort writes nothing of the aborted batch. */
	commit(db);
	stoat_rocks_close(db);
	db = open_db();
	f = family(db, "s.0_0");
	expect_value(db, f, STR("kept"), STR("old"));
	expect_absent(db, f, STR("gone"));
	stoat_rocks_close(db);
	remove_dirs();
}
END_TEST

/* Commit persists the batch and its meta puts; reopen finds both and
 * every family; uncommitted writes at close are lost. */
START_TEST(test_commit_and_reopen)
{
	make_dirs();
	stoat_rocks *db = open_db();
	int counts = family(db, "counts.0_3");
	int totals = family(db, "totals.1_0");
	int meta = family(db, "meta");
	ck_assert_int_eq(stoat_rocks_family_count(db), 4); /* and "default" */
	ck_assert_int_eq(family(db, "counts.0_3"), counts);
	stoat_rocks_put(db, counts, STR("a"), STR("1"));
	stoat_rocks_put(db, totals, STR("b"), STR("2"));
	stoat_rocks_kv offsets[] = {
		{ meta, STR("counts-changelog.3"), STR("41") },
		{ meta, STR("totals-changelog.0"), STR("7") },
	};
	char err[512] = "";
	ck_assert_msg(stoat_rocks_commit(db, offsets, 2, err, sizeof err), "commit: %s", err);
	ck_assert_int_eq(stoat_rocks_pending(db), 0);
	stoat_rocks_put(db, counts, STR("uncommitted"), STR("x"));
	stoat_rocks_close(db);

	db = open_db();
	ck_assert_int_eq(stoat_rocks_family_count(db), 4);
	bool seen[3] = { false, false, false };
	for (int i = 0; i < stoat_rocks_family_count(db); i++) {
		const char *name = stoat_rocks_family_name(db, i);
		seen[0] |= strcmp(name, "counts.0_3") == 0;
		seen[1] |= strcmp(name, "totals.1_0") == 0;
		seen[2] |= strcmp(name, "meta") == 0;
	}
	ck_assert(seen[0] && seen[1] && seen[2]);
	counts = family(db, "counts.0_3");
	totals = family(db, "totals.1_0");
	meta = family(db, "meta");
	ck_assert_int_eq(stoat_rocks_family_count(db), 4); /* none created */
	expect_value(db, counts, STR("a"), STR("1"));
	expect_value(db, totals, STR("b"), STR("2"));
	expect_value(db, meta, STR("counts-changelog.3"), STR("41"));
	expect_value(db, meta, STR("totals-changelog.0"), STR("7"));
	expect_absent(db, counts, STR("uncommitted"));
	stoat_rocks_close(db);
	remove_dirs();
}
END_TEST

/* The same key holds different values in different families. */
START_TEST(test_families_isolated)
{
	make_dirs();
	stoat_rocks *db = open_db();
	int f0 = family(db, "counts.0_0");
	int f1 = family(db, "counts.0_1");
	ck_assert_int_ne(f0, f1);
	stoat_rocks_put(db, f0, STR("k"), STR("zero"));
	stoat_rocks_put(db, f1, STR("k"), STR("one"));
	stoat_rocks_put(db, f0, STR("only0"), STR("y"));
	expect_value(db, f0, STR("k"), STR("zero"));
	expect_value(db, f1, STR("k"), STR("one"));
	expect_absent(db, f1, STR("only0"));
	commit(db);
	expect_value(db, f0, STR("k"), STR("zero"));
	expect_value(db, f1, STR("k"), STR("one"));
	expect_absent(db, f1, STR("only0"));
	stoat_rocks_delete(db, f1, STR("k"));
	expect_value(db, f0, STR("k"), STR("zero"));
	expect_absent(db, f1, STR("k"));
	stoat_rocks_close(db);
	remove_dirs();
}
END_TEST

/* Collects a family's entries as "key=value;" into out. */
static void scan_all(stoat_rocks *db, int f, stoat_str start, char *out, size_t outlen)
{
	size_t n = 0;
	out[0] = '\0';
	stoat_rocks_iter *it = stoat_rocks_scan(db, f, start);
	for (; stoat_rocks_iter_valid(it); stoat_rocks_iter_next(it)) {
		stoat_str k = stoat_rocks_iter_key(it), v = stoat_rocks_iter_value(it);
		int w = snprintf(out + n, outlen - n, "%.*s=%.*s;", (int)k.len, k.ptr, (int)v.len, v.ptr);
		ck_assert(w > 0 && (size_t)w < outlen - n);
		n += (size_t)w;
	}
	char err[512] = "";
	ck_assert_msg(stoat_rocks_iter_close(it, err, sizeof err), "scan: %s", err);
}

/* Deletes hide keys in the batch, are undone by abort, persist on commit. */
START_TEST(test_delete)
{
	make_dirs();
	stoat_rocks *db = open_db();
	int f = family(db, "d.0_0");
	stoat_rocks_put(db, f, STR("a"), STR("1"));
	stoat_rocks_put(db, f, STR("b"), STR("2"));
	commit(db);
	stoat_rocks_delete(db, f, STR("a"));
	expect_absent(db, f, STR("a"));
	char got[256];
	scan_all(db, f, (stoat_str){ NULL, 0 }, got, sizeof got);
	ck_assert_str_eq(got, "b=2;");
	stoat_rocks_abort(db);
	expect_value(db, f, STR("a"), STR("1"));
	/* Put then delete in one batch: gone; delete of a missing key: fine. */
	stoat_rocks_put(db, f, STR("c"), STR("3"));
	stoat_rocks_delete(db, f, STR("c"));
	stoat_rocks_delete(db, f, STR("never"));
	stoat_rocks_delete(db, f, STR("a"));
	expect_absent(db, f, STR("c"));
	commit(db);
	stoat_rocks_close(db);
	db = open_db();
	f = family(db, "d.0_0");
	expect_absent(db, f, STR("a"));
	expect_absent(db, f, STR("c"));
	expect_value(db, f, STR("b"), STR("2"));
	stoat_rocks_close(db);
	remove_dirs();
}
END_TEST

/* Scans go in bytewise (unsigned) key order over committed and batch
 * entries alike, see batch overwrites, and start at the seek key. */
START_TEST(test_scan_order)
{
	make_dirs();
	stoat_rocks *db = open_db();
	int f = family(db, "o.0_0");
	int other = family(db, "o.0_1");
	stoat_rocks_put(db, other, STR("0"), STR("other"));
	/* Committed: "b", "ab", "\xff", "a". */
	stoat_rocks_put(db, f, STR("b"), STR("B"));
	stoat_rocks_put(db, f, STR("ab"), STR("AB"));
	stoat_rocks_put(db, f, STR("\xff"), STR("FF"));
	stoat_rocks_put(db, f, STR("a"), STR("A"));
	commit(db);
	/* Batch: "\x01", "aa", "Z", an overwrite of "b" and a delete of "ab". */
	stoat_rocks_put(db, f, STR("\x01"), STR("01"));
	stoat_rocks_put(db, f, STR("aa"), STR("AA"));
	stoat_rocks_put(db, f, STR("Z"), STR("z"));
	stoat_rocks_put(db, f, STR("b"), STR("B2"));
	stoat_rocks_delete(db, f, STR("ab"));

	stoat_arena a;
	stoat_arena_init(&a);
	const char *want[] = { "\x01", "Z", "a", "aa", "b", "\xff" };
	const char *want_v[] = { "01", "z", "A", "AA", "B2", "FF" };
	stoat_rocks_iter *it = stoat_rocks_scan(db, f, (stoat_str){ NULL, 0 });
	size_t i = 0;
	stoat_str prev = { NULL, 0 };
	for (; stoat_rocks_iter_valid(it); stoat_rocks_iter_next(it), i++) {
		ck_assert_uint_lt(i, 6);
		stoat_str k = stoat_rocks_iter_key(it);
		ck_assert(stoat_str_eq(k, (stoat_str){ want[i], strlen(want[i]) }));
		ck_assert(stoat_str_eq(stoat_rocks_iter_value(it), (stoat_str){ want_v[i], strlen(want_v[i]) }));
		if (prev.ptr)
			ck_assert_int_lt(stoat_str_cmp(prev, k), 0);
		prev = stoat_arena_strdup(&a, k);
	}
	ck_assert_uint_eq(i, 6);
	char err[256] = "";
	ck_assert(stoat_rocks_iter_close(it, err, sizeof err));
	stoat_arena_free(&a);

	char got[256];
	scan_all(db, f, STR("ab"), got, sizeof got);
	ck_assert_str_eq(got, "b=B2;\xff=FF;");
	scan_all(db, other, (stoat_str){ NULL, 0 }, got, sizeof got);
	ck_assert_str_eq(got, "0=other;");

	/* After commit, the same order from the database alone. */
	commit(db);
	stoat_rocks_close(db);
	db = open_db();
	f = family(db, "o.0_0");
	scan_all(db, f, (stoat_str){ NULL, 0 }, got, sizeof got);
	ck_assert_str_eq(got, "\x01=01;Z=z;a=A;aa=AA;b=B2;\xff=FF;");
	int empty = family(db, "empty.0_0");
	scan_all(db, empty, (stoat_str){ NULL, 0 }, got, sizeof got);
	ck_assert_str_eq(got, "");
	stoat_rocks_close(db);
	remove_dirs();
}
END_TEST

/* Presets, sizes with suffixes, and what is rejected. */
START_TEST(test_memory_budget)
{
	const size_t MB = (size_t)1 << 20;
	ck_assert_uint_eq(stoat_rocks_memory_budget("low"), 64 * MB);
	ck_assert_uint_eq(stoat_rocks_memory_budget("default"), 256 * MB);
	ck_assert_uint_eq(stoat_rocks_memory_budget("high"), 1024 * MB);
	ck_assert_uint_eq(stoat_rocks_memory_budget("123M"), 123 * MB);
	ck_assert_uint_eq(stoat_rocks_memory_budget("123m"), 123 * MB);
	ck_assert_uint_eq(stoat_rocks_memory_budget("512MB"), 512 * MB);
	ck_assert_uint_eq(stoat_rocks_memory_budget("2GiB"), 2048 * MB);
	ck_assert_uint_eq(stoat_rocks_memory_budget("64k"), 64 * 1024);
	ck_assert_uint_eq(stoat_rocks_memory_budget("1048576"), MB);
	ck_assert_uint_eq(stoat_rocks_memory_budget(NULL), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget(""), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget("0"), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget("Low"), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget("-5M"), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget("12Q"), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget("12 M"), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget("M"), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget("99999999999999999999999"), 0);
	ck_assert_uint_eq(stoat_rocks_memory_budget("99999999999999G"), 0);

	/* Each preset opens, and the database keeps the budget. */
	const char *presets[] = { "low", "default", "high" };
	for (int i = 0; i < 3; i++) {
		make_dirs();
		char err[512] = "";
		size_t budget = stoat_rocks_memory_budget(presets[i]);
		stoat_rocks *db = stoat_rocks_open(db_dir, budget, err, sizeof err);
		ck_assert_msg(db != NULL, "open: %s", err);
		ck_assert_uint_eq(stoat_rocks_budget(db), budget);
		stoat_rocks_close(db);
		remove_dirs();
	}
}
END_TEST

/* Failures to open give a message, not a crash. */
START_TEST(test_open_errors)
{
	make_dirs();
	char err[512] = "";
	/* The state directory is a regular file. */
	FILE *f = fopen(db_dir, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not a database\n", f);
	fclose(f);
	stoat_rocks *db = stoat_rocks_open(db_dir, stoat_rocks_memory_budget("low"), err, sizeof err);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err, "cannot open state store") != NULL, "message: %s", err);
	ck_assert_msg(strstr(err, db_dir) != NULL, "message: %s", err);

	/* Its parent does not exist. */
	char deep[256];
	snprintf(deep, sizeof deep, "%s/no/such/dir", tmp_root);
	err[0] = '\0';
	db = stoat_rocks_open(deep, stoat_rocks_memory_budget("low"), err, sizeof err);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err, "cannot open state store") != NULL, "message: %s", err);

	/* A budget too small to split. */
	err[0] = '\0';
	db = stoat_rocks_open(deep, 1024, err, sizeof err);
	ck_assert_ptr_null(db);
	ck_assert_msg(strstr(err, "too small") != NULL, "message: %s", err);

	/* A NULL or tiny buffer is fine too. */
	db = stoat_rocks_open(db_dir, stoat_rocks_memory_budget("low"), NULL, 0);
	ck_assert_ptr_null(db);
	char tiny[8];
	db = stoat_rocks_open(db_dir, stoat_rocks_memory_budget("low"), tiny, sizeof tiny);
	ck_assert_ptr_null(db);
	ck_assert_uint_eq(strlen(tiny), sizeof tiny - 1);

	/* Empty family name. */
	remove(db_dir);
	db = open_db();
	err[0] = '\0';
	ck_assert_int_eq(stoat_rocks_family(db, "", err, sizeof err), -1);
	ck_assert_msg(strstr(err, "empty column family name") != NULL, "message: %s", err);
	stoat_rocks_close(db);
	remove_dirs();
}
END_TEST

/*
 * A read-only open (store dump) beside a process holding the database:
 * it takes no lock, sees what was committed before it opened, finds the
 * families without creating any, and fails on a directory holding none.
 */
START_TEST(test_read_only)
{
	make_dirs();
	char err[512] = "";
	ck_assert_ptr_null(stoat_rocks_open_read_only(db_dir, stoat_rocks_memory_budget("low"), err, sizeof err));
	ck_assert_msg(err[0] != '\0', "no message for a missing database");
	stoat_rocks *db = open_db();
	int f = family(db, "counts.0");
	stoat_rocks_put(db, f, STR("a"), STR("1"));
	commit(db);
	stoat_rocks_put(db, f, STR("b"), STR("2")); /* uncommitted: not seen */
	err[0] = '\0';
	stoat_rocks *ro = stoat_rocks_open_read_only(db_dir, stoat_rocks_memory_budget("low"), err, sizeof err);
	ck_assert_msg(ro != NULL, "read-only open beside the writer: %s", err);
	int rf = -1;
	for (int i = 0; i < stoat_rocks_family_count(ro); i++)
		if (strcmp(stoat_rocks_family_name(ro, i), "counts.0") == 0)
			rf = i;
	ck_assert_int_ge(rf, 0);
	stoat_rocks_iter *it = stoat_rocks_scan(ro, rf, (stoat_str){ 0 });
	ck_assert(stoat_rocks_iter_valid(it));
	ck_assert(stoat_str_eq(stoat_rocks_iter_key(it), STR("a")));
	ck_assert(stoat_str_eq(stoat_rocks_iter_value(it), STR("1")));
	stoat_rocks_iter_next(it);
	ck_assert(!stoat_rocks_iter_valid(it));
	ck_assert_msg(stoat_rocks_iter_close(it, err, sizeof err), "scan: %s", err);
	err[0] = '\0';
	ck_assert_int_eq(stoat_rocks_family(ro, "counts.1", err, sizeof err), -1);
	ck_assert_msg(strstr(err, "opened read only") != NULL, "message: %s", err);
	stoat_rocks_close(ro);
	stoat_rocks_close(db);
	remove_dirs();
}
END_TEST

/* The test suite of this file. */
static Suite *rocks_suite(void)
{
	Suite *s = suite_create("runtime_rocks");
	TCase *tc = tcase_create("rocks");
	tcase_add_test(tc, test_read_your_writes);
	tcase_add_test(tc, test_abort_discards);
	tcase_add_test(tc, test_commit_and_reopen);
	tcase_add_test(tc, test_families_isolated);
	tcase_add_test(tc, test_delete);
	tcase_add_test(tc, test_scan_order);
	tcase_add_test(tc, test_memory_budget);
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_read_only);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rocks_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
