/*
 * tmpdir.h - a fresh temporary directory per test, for the unit tests that
 * need files (RocksDB state).  Define TMPDIR_TEMPLATE (a mkdtemp template,
 * "/tmp/stoat-rocks-XXXXXX") and TMPDIR_DB (the database's name inside it)
 * before including.  make_dirs() creates tmp_root and sets db_dir;
 * remove_dirs() removes everything and checks it is gone; a test that
 * fails midway (a failed ck_assert exits its forked process) has its
 * directory removed at exit.
 */
#ifndef STOAT_TEST_TMPDIR_H
#define STOAT_TEST_TMPDIR_H

#include <check.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char tmp_root[64];
static char db_dir[128];

/* nftw callback: removes one file or (emptied) directory. */
static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* At exit: removes a temporary directory the test did not get to remove. */
static void remove_leftover(void)
{
	if (tmp_root[0])
		nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh temporary directory; the database goes in db_dir under it. */
static void make_dirs(void)
{
	static bool registered;
	if (!registered) {
		atexit(remove_leftover);
		registered = true;
	}
	snprintf(tmp_root, sizeof tmp_root, "%s", TMPDIR_TEMPLATE);
	ck_assert_ptr_nonnull(mkdtemp(tmp_root));
	snprintf(db_dir, sizeof db_dir, "%s/%s", tmp_root, TMPDIR_DB);
}

/* Removes the temporary directory and everything in it. */
static void remove_dirs(void)
{
	ck_assert_int_eq(nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
	ck_assert_int_ne(access(tmp_root, F_OK), 0);
	tmp_root[0] = '\0';
}

#endif /* STOAT_TEST_TMPDIR_H */
