/*
 * Unit tests for the state layer (runtime/src/state.c), on RocksDB and in
 * memory: writes are held back until commit and dropped by abort; commit
 * persists them with the changelog checkpoint across close and reopen;
 * partitions are separate; the record cache collapses updates per key and
 * flushes them in first-touch order with their old values, on demand and
 * when it outgrows its budget; restore applies changelog records (chunked,
 * tombstones included) and moves the checkpoint, or rebuilds from scratch;
 * state files are owner-only; only a checkpoint above its changelog's end
 * is a mismatch, and a rebuild of the changelog is marked durably.
 *
 * Each test uses its own mkdtemp directory and removes it.
 */
#include "internal.h"

#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define STR(s) STOAT_STR_LIT(s)

#define TMPDIR_TEMPLATE "/tmp/stoat-state-XXXXXX"
#define TMPDIR_DB "db"
#include "tmpdir.h"

/* ------------------------------------------------------------------ */
/* A fake application with one store and a flush function that records */
/* ------------------------------------------------------------------ */

typedef struct seen_update {
	char key[32], old[32], new_[32];
	bool has_old, has_new;
	int32_t partition;
	int64_t timestamp;
} seen_update;

static seen_update seen[64];
static size_t seen_count;
static size_t flush_calls;

static void copy_str(char *out, size_t n, stoat_str s)
{
	size_t len = s.len < n - 1 ? s.len : n - 1;
	memcpy(out, s.ptr ? s.ptr : "", len);
	out[len] = '\0';
}

/* The flush function of the test store: remembers every update. */
static void record_flush(stoat_ctx *cx, const stoat_store_update *u, size_t n)
{
	ck_assert_ptr_nonnull(cx);
	flush_calls++;
	for (size_t i = 0; i < n && seen_count < 64; i++) {
		seen_update *s = &seen[seen_count++];
		copy_str(s->key, sizeof s->key, u[i].record.key);
		s->has_old = u[i].old_value.ptr != NULL;
		s->has_new = u[i].record.value.ptr != NULL;
		copy_str(s->old, sizeof s->old, u[i].old_value);
		copy_str(s->new_, sizeof s->new_, u[i].record.value);
		s->partition = u[i].record.partition;
		s->timestamp = u[i].record.timestamp;
	}
}

static void no_pipeline(stoat_ctx *cx, const stoat_msg *msgs, size_t n)
{
	(void)cx;
	(void)msgs;
	(void)n;
}

static const int source_stores[] = { 0 };
static const stoat_source sources[] = {
	{ .name = "in", .topic = "in", .pipeline = no_pipeline, .stores = source_stores, .store_count = 1 },
};
static stoat_store_desc stores[] = { { .name = "totals", .flush = record_flush, .in_memory = false } };
static const stoat_app app = {
	.app_id = "state-test",
	.sources = sources,
	.source_count = 1,
	.stores = stores,
	.store_count = 1,
};

typedef struct fixture {
	stoat_driver driver;
	stoat_ctx cx;
	stoat_msg msg;
} fixture;

/* Opens the state (dir NULL: in memory) with the given cache budget. */
static void fixture_open(fixture *f, const char *dir, size_t cache)
{
	memset(f, 0, sizeof *f);
	f->driver.ops = NULL; /* no changelogs; partitions open on first use */
	f->driver.app = &app;
	stoat_state_options so = { .dir = dir, .memory_budget = (size_t)8 << 20, .cache_max_bytes = cache };
	char err[512] = "";
	f->driver.state = stoat_state_open(&app, &f->driver, &so, err, sizeof err);
	ck_assert_msg(f->driver.state != NULL, "%s", err);
	stoat_arena_init(&f->cx.arena);
	stoat_buf_init(&f->cx.key_buf);
	stoat_buf_init(&f->cx.value_buf);
	f->cx.app = &app;
	f->cx.source = &sources[0];
	f->cx.driver = &f->driver;
	f->cx.msg = &f->msg;
	seen_count = flush_calls = 0;
}

static void fixture_close(fixture *f)
{
	stoat_state_close(f->driver.state);
	stoat_arena_free(&f->cx.arena);
	stoat_buf_free(&f->cx.key_buf);
	stoat_buf_free(&f->cx.value_buf);
}

/* The record being processed: its partition and timestamp. */
static void on(fixture *f, int32_t partition, int64_t timestamp)
{
	f->msg.partition = partition;
	f->msg.timestamp = timestamp;
	f->cx.timestamp = timestamp; /* as stoat_record_begin sets it */
}

/* The value of key in the running partition, or "-" when absent. */
static const char *get(fixture *f, const char *key)
{
	static char out[64];
	stoat_str v;
	if (!stoat_store_get(&f->cx, 0, (stoat_str){ key, strlen(key) }, &v))
		return "-";
	copy_str(out, sizeof out, v);
	return out;
}

static bool put(fixture *f, const char *key, const char *value)
{
	return stoat_store_put(&f->cx, 0, (stoat_str){ key, strlen(key) }, (stoat_str){ value, strlen(value) });
}

static bool del(fixture *f, const char *key)
{
	return stoat_store_delete(&f->cx, 0, (stoat_str){ key, strlen(key) });
}

static void commit(fixture *f)
{
	char err[512] = "";
	ck_assert_msg(stoat_state_flush(f->driver.state), "flush failed");
	ck_assert_msg(stoat_state_commit(f->driver.state, err, sizeof err), "%s", err);
}

static stoat_store_part *part(fixture *f, int32_t partition)
{
	char err[512] = "";
	stoat_store_part *p = stoat_state_part(f->driver.state, 0, partition, err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	return p;
}

/* ------------------------------------------------------------------ */
/* Tests, each on RocksDB (_i == 0) and in memory (_i == 1)            */
/* ------------------------------------------------------------------ */

/* The backing of test _i: a directory for RocksDB, NULL for memory. */
static const char *backing(int i)
{
	make_dirs();
	return i == 0 ? db_dir : NULL;
}

START_TEST(held_back_until_commit)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	on(&f, 0, 1);
	ck_assert(put(&f, "a", "1")); /* no cache: the caller forwards now */
	ck_assert_str_eq(get(&f, "a"), "1"); /* read-your-writes */
	stoat_state_abort(f.driver.state);
	ck_assert_str_eq(get(&f, "a"), "-");
	ck_assert(put(&f, "a", "2"));
	ck_assert(put(&f, "b", ""));
	commit(&f);
	ck_assert_str_eq(get(&f, "a"), "2");
	ck_assert_str_eq(get(&f, "b"), ""); /* an empty value is a value */
	ck_assert(del(&f, "a"));
	ck_assert_str_eq(get(&f, "a"), "-");
	stoat_state_abort(f.driver.state);
	ck_assert_str_eq(get(&f, "a"), "2"); /* the delete was dropped */
	fixture_close(&f);
	remove_dirs();
}
END_TEST

START_TEST(partitions_are_separate)
{
	fixture f;
	fixture_open(&f, backing(_i), 0);
	on(&f, 0, 1);
	put(&f, "k", "zero");
	on(&f, 3, 1);
	ck_assert_str_eq(get(&f, "k"), "-");
	put(&f, "k", "three");
	commit(&f);
	on(&f, 0, 1);
	ck_assert_str_eq(get(&f, "k"), "zero");
	on(&f, 3, 1);
	ck_assert_str_eq(get(&f, "k"), "three");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* Commits persist data and checkpoints across a reopen (RocksDB only). */
START_TEST(commit_survives_reopen)
{
	make_dirs();
	fixture f;
	fixture_open(&f, db_dir, 0);
	on(&f, 2, 1);
	put(&f, "x", "10");
	put(&f, "y", "20");
	stoat_store_part *p = part(&f, 2);
	ck_assert_int_eq(stoat_store_part_checkpoint(p), 0);
	stoat_store_part_acked(p, 40);
	stoat_store_part_acked(p, 41);
	commit(&f);
	ck_assert_int_eq(stoat_store_part_checkpoint(p), 42);
	del(&f, "y");
	put(&f, "z", "30");
	stoat_store_part_acked(p, 57);
	/* Crash before the next commit: the second interval is lost. */
	fixture_close(&f);

	fixture_open(&f, db_dir, 0);
	on(&f, 2, 1);
	ck_assert_int_eq(stoat_store_part_checkpoint(part(&f, 2)), 42);
	ck_assert_str_eq(get(&f, "x"), "10");
	ck_assert_str_eq(get(&f, "y"), "20");
	ck_assert_str_eq(get(&f, "z"), "-");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* The cache collapses updates per key; a flush passes them on once, in
 * first-touch order, with the value as of the previous flush. */
START_TEST(cache_collapses_updates)
{
	fixture f;
	fixture_open(&f, backing(_i), (size_t)1 << 20);
	on(&f, 1, 100);
	ck_assert(!put(&f, "k", "1")); /* held by the cache */
	on(&f, 1, 101);
	ck_assert(!put(&f, "j", "1"));
	on(&f, 1, 102);
	ck_assert(!put(&f, "k", "2"));
	ck_assert_str_eq(get(&f, "k"), "2");
	ck_assert(!put(&f, "gone", "x"));
	ck_assert(!del(&f, "gone")); /* never existed: nothing to pass on */
	ck_assert_uint_eq(seen_count, 0);
	commit(&f);
	ck_assert_uint_eq(seen_count, 2);
	ck_assert_str_eq(seen[0].key, "k");
	ck_assert(!seen[0].has_old);
	ck_assert_str_eq(seen[0].new_, "2");
	ck_assert_int_eq(seen[0].timestamp, 102);
	ck_assert_int_eq(seen[0].partition, 1);
	ck_assert_str_eq(seen[1].key, "j");
	ck_assert_str_eq(seen[1].new_, "1");
	ck_assert_int_eq(seen[1].timestamp, 101);

	/* The next interval: old values are those flushed before. */
	on(&f, 1, 200);
	ck_assert_str_eq(get(&f, "k"), "2");
	put(&f, "k", "3");
	del(&f, "j");
	commit(&f);
	ck_assert_uint_eq(seen_count, 4);
	ck_assert_str_eq(seen[2].key, "k");
	ck_assert(seen[2].has_old);
	ck_assert_str_eq(seen[2].old, "2");
	ck_assert_str_eq(seen[2].new_, "3");
	ck_assert_str_eq(seen[3].key, "j");
	ck_assert_str_eq(seen[3].old, "1");
	ck_assert(!seen[3].has_new);
	ck_assert_str_eq(get(&f, "j"), "-");
	ck_assert_str_eq(get(&f, "k"), "3");

	/* An abort drops cached updates with the rest. */
	put(&f, "k", "4");
	stoat_state_abort(f.driver.state);
	commit(&f);
	ck_assert_uint_eq(seen_count, 4);
	ck_assert_str_eq(get(&f, "k"), "3");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

static bool put_quiet(fixture *f, const char *key, const char *value)
{
	return stoat_store_put_quiet(&f->cx, 0, (stoat_str){ key, strlen(key) }, (stoat_str){ value, strlen(value) });
}

/* A quiet put is stored and read back but never passed on: without a
 * cache it is not "now"; with one, a flush passes on the key's newest put
 * that was not quiet (with its timestamp), or nothing. */
START_TEST(quiet_put_is_not_passed_on)
{
	fixture f;
	bool cached = _i >= 2;
	fixture_open(&f, backing(_i % 2), cached ? (size_t)1 << 20 : 0);
	on(&f, 0, 10);
	ck_assert(put(&f, "k", "1") == !cached);
	on(&f, 0, 11);
	ck_assert(put_quiet(&f, "k", "2"));
	ck_assert(put_quiet(&f, "q", "x"));
	ck_assert_str_eq(get(&f, "k"), "2");
	ck_assert_str_eq(get(&f, "q"), "x");
	commit(&f);
	ck_assert_uint_eq(seen_count, cached ? 1 : 0);
	if (cached) {
		ck_assert_str_eq(seen[0].key, "k");
		ck_assert_str_eq(seen[0].new_, "1");
		ck_assert_int_eq(seen[0].timestamp, 10);
	}
	ck_assert_str_eq(get(&f, "k"), "2");
	/* The next interval: only a quiet put, nothing to pass on; the store keeps it. */
	on(&f, 0, 12);
	ck_assert(put_quiet(&f, "k", "3"));
	commit(&f);
	ck_assert_uint_eq(seen_count, cached ? 1 : 0);
	ck_assert_str_eq(get(&f, "k"), "3");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* A cache over its budget flushes by itself, without losing updates. */
START_TEST(cache_flushes_when_full)
{
	fixture f;
	fixture_open(&f, backing(_i), 256);
	on(&f, 0, 1);
	char key[16];
	for (int i = 0; i < 20; i++) {
		snprintf(key, sizeof key, "key%02d", i);
		put(&f, key, "value");
	}
	ck_assert_uint_gt(flush_calls, 0); /* before any commit */
	commit(&f);
	ck_assert_uint_eq(seen_count, 20);
	for (int i = 0; i < 20; i++) {
		snprintf(key, sizeof key, "key%02d", i);
		ck_assert_str_eq(seen[i].key, key);
		ck_assert_str_eq(get(&f, key), "value");
	}
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* Restore applies records in chunks with their checkpoint; tombstones
 * delete; from scratch empties the partition first. */
START_TEST(restore_from_changelog)
{
	fixture f;
	const char *dir = backing(_i);
	fixture_open(&f, dir, 0);
	on(&f, 0, 1);
	put(&f, "stale", "old");
	commit(&f);
	stoat_store_part *p = part(&f, 0);
	char err[512] = "";
	ck_assert(stoat_store_part_restore_start(p, true, err, sizeof err));
	char key[16], value[16];
	for (int i = 0; i < 10000; i++) { /* more than one chunk */
		snprintf(key, sizeof key, "k%d", i % 6000);
		snprintf(value, sizeof value, "v%d", i);
		ck_assert(stoat_store_part_restore_record(p, (stoat_str){ key, strlen(key) },
							  (stoat_str){ value, strlen(value) }, 100 + i, err, sizeof err));
	}
	ck_assert(stoat_store_part_restore_record(p, STR("k1"), (stoat_str){ NULL, 0 }, 10100, err, sizeof err));
	ck_assert(stoat_store_part_restore_done(p, err, sizeof err));
	ck_assert_uint_eq(stoat_store_part_restored(p), 10001);
	ck_assert_int_eq(stoat_store_part_checkpoint(p), 10101);
	ck_assert_str_eq(get(&f, "stale"), "-");
	ck_assert_str_eq(get(&f, "k0"), "v6000");
	ck_assert_str_eq(get(&f, "k1"), "-");
	ck_assert_str_eq(get(&f, "k5999"), "v5999");
	fixture_close(&f);
	if (dir) {
		fixture_open(&f, dir, 0);
		on(&f, 0, 1);
		ck_assert_int_eq(stoat_store_part_checkpoint(part(&f, 0)), 10101);
		ck_assert_str_eq(get(&f, "k4000"), "v4000");
		ck_assert_str_eq(get(&f, "k1"), "-");
		fixture_close(&f);
	}
	remove_dirs();
}
END_TEST

/* An in-memory store beside RocksDB ones never touches the database. */
START_TEST(in_memory_store_with_a_directory)
{
	make_dirs();
	stores[0].in_memory = true;
	fixture f;
	fixture_open(&f, db_dir, 0);
	on(&f, 0, 1);
	put(&f, "m", "1");
	commit(&f);
	ck_assert_str_eq(get(&f, "m"), "1");
	fixture_close(&f);
	ck_assert_int_ne(access(db_dir, F_OK), 0); /* no store needed RocksDB */
	stores[0].in_memory = false;
	remove_dirs();
}
END_TEST

/*
 * `run` with a state directory another holder has locked exits with
 * STOAT_EXIT_STATE (4), not the fatal-Kafka-error status, before it
 * creates any Kafka client (the bootstrap address is never contacted).
 * RocksDB refuses a second open of a locked database in the same process
 * just as from another one.
 */
START_TEST(run_with_a_locked_state_directory)
{
	make_dirs();
	char dir[256], err[512] = "";
	snprintf(dir, sizeof dir, "%s/%s", tmp_root, app.app_id);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof dir, "%s/%s/default", tmp_root, app.app_id);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	stoat_rocks *holder = stoat_rocks_open(dir, (size_t)8 << 20, err, sizeof err);
	ck_assert_msg(holder != NULL, "%s", err);
	char *argv[] = { "state-test", "run", "-b", "127.0.0.1:1", "--state-dir", tmp_root, NULL };
	ck_assert_int_eq(stoat_main(&app, 6, argv), STOAT_EXIT_STATE);
	ck_assert_int_eq(STOAT_EXIT_STATE, 4);
	stoat_rocks_close(holder);
	remove_dirs();
}
END_TEST

/* ------------------------------------------------------------------ */
/* State files are owner-only (issue 11)                               */
/* ------------------------------------------------------------------ */

/* Fails unless every entry directly in dir (and dir) is owner-only:
 * directories 0700, files 0600. */
static void assert_owner_only(const char *dir)
{
	struct stat sb;
	ck_assert_int_eq(stat(dir, &sb), 0);
	ck_assert_msg((sb.st_mode & 0777) == 0700, "%s has mode %o", dir, (unsigned)(sb.st_mode & 0777));
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	size_t files = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		ck_assert_int_eq(lstat(path, &sb), 0);
		mode_t want = S_ISDIR(sb.st_mode) ? 0700 : 0600;
		ck_assert_msg((sb.st_mode & 0777) == want, "%s has mode %o, want %o", path, (unsigned)(sb.st_mode & 0777),
			      (unsigned)want);
		files += S_ISREG(sb.st_mode);
	}
	closedir(d);
	ck_assert_uint_gt(files, 0);
}

/*
 * RocksDB's files (the checkpoints among them) are 0600 and its directory
 * 0700 under the common umask 022, and the umask is the user's again once
 * the state is closed.
 */
START_TEST(state_files_are_owner_only)
{
	make_dirs();
	mode_t user = umask(022);
	fixture f;
	fixture_open(&f, db_dir, 0);
	on(&f, 0, 1);
	put(&f, "k", "v");
	stoat_store_part_acked(part(&f, 0), 7);
	commit(&f);
	fixture_close(&f);
	assert_owner_only(db_dir);
	ck_assert_int_eq(umask(user), 022);
	remove_dirs();
}
END_TEST

/*
 * `run` makes <state dir>/<app>/<instance> owner-only, tightening what an
 * earlier version left 0755 and 0644, and leaves the user's --state-dir as
 * it is.  The instance directory is locked by another holder, so run stops
 * (STOAT_EXIT_STATE) right after preparing it, before any Kafka client.
 */
START_TEST(run_tightens_state_directories)
{
	make_dirs();
	mode_t user = umask(022);
	ck_assert_int_eq(chmod(tmp_root, 0755), 0);
	char dir[256], err[512] = "";
	snprintf(dir, sizeof dir, "%s/%s", tmp_root, app.app_id);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof dir, "%s/%s/default", tmp_root, app.app_id);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	stoat_rocks *holder = stoat_rocks_open(dir, (size_t)8 << 20, err, sizeof err);
	ck_assert_msg(holder != NULL, "%s", err);
	char *argv[] = { "state-test", "run", "-b", "127.0.0.1:1", "--state-dir", tmp_root, NULL };
	ck_assert_int_eq(stoat_main(&app, 6, argv), STOAT_EXIT_STATE);
	stoat_rocks_close(holder);
	assert_owner_only(dir);
	struct stat sb;
	snprintf(dir, sizeof dir, "%s/%s", tmp_root, app.app_id);
	ck_assert_int_eq(stat(dir, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0700);
	ck_assert_int_eq(stat(tmp_root, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0755); /* the user's */
	ck_assert_int_eq(umask(user), 022);
	remove_dirs();
}
END_TEST

/* stoat_state_make_dir creates missing directories 0700, the user's base
 * included, and counts what it tightened. */
START_TEST(make_dir_creates_owner_only)
{
	make_dirs();
	mode_t user = umask(022);
	char base[256], dir[300];
	snprintf(base, sizeof base, "%s/state", tmp_root);
	snprintf(dir, sizeof dir, "%s/app/one", base);
	size_t tightened = 99;
	ck_assert(stoat_state_make_dir(base, dir, &tightened));
	ck_assert_uint_eq(tightened, 0);
	struct stat sb;
	const char *paths[] = { base, dir };
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(stat(paths[i], &sb), 0);
		ck_assert_int_eq(sb.st_mode & 0777, 0700);
	}
	/* A file of an earlier version, 0644: tightened once. */
	char file[400];
	snprintf(file, sizeof file, "%s/CURRENT", dir);
	FILE *fp = fopen(file, "w");
	ck_assert_ptr_nonnull(fp);
	fclose(fp);
	ck_assert(stoat_state_make_dir(base, dir, &tightened));
	ck_assert_uint_eq(tightened, 1);
	ck_assert(stoat_state_make_dir(base, dir, &tightened));
	ck_assert_uint_eq(tightened, 0);
	ck_assert_int_eq(stat(file, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	umask(user);
	remove_dirs();
}
END_TEST

/* ------------------------------------------------------------------ */
/* Checkpoints against their changelog (issue 11)                      */
/* ------------------------------------------------------------------ */

/*
 * Only a checkpoint above the changelog's end is a mismatch (the topic
 * was deleted or re-created); one below its start (the head was removed)
 * restores from the start.
 */
START_TEST(restore_plan_refuses_only_above_the_end)
{
	make_dirs();
	fixture f;
	fixture_open(&f, db_dir, 0);
	on(&f, 1, 1);
	put(&f, "k", "v");
	stoat_store_part *p = part(&f, 1);
	stoat_store_part_acked(p, 9);
	commit(&f);
	ck_assert_int_eq(stoat_store_part_checkpoint(p), 10);
	ck_assert_int_eq(stoat_store_part_restore_plan(p, 0, 10), STOAT_RESTORE_FROM_CHECKPOINT);
	ck_assert_int_eq(stoat_store_part_restore_plan(p, 10, 25), STOAT_RESTORE_FROM_CHECKPOINT);
	ck_assert_int_eq(stoat_store_part_restore_plan(p, 11, 25), STOAT_RESTORE_FROM_START);
	ck_assert_int_eq(stoat_store_part_restore_plan(p, 0, 9), STOAT_RESTORE_MISMATCH);
	ck_assert_int_eq(stoat_store_part_restore_plan(p, 0, 0), STOAT_RESTORE_MISMATCH);
	stoat_state_mismatch m = STOAT_MISMATCH_RESET;
	ck_assert(stoat_state_mismatch_parse("refuse", &m) && m == STOAT_MISMATCH_REFUSE);
	ck_assert(stoat_state_mismatch_parse("rebuild-changelog", &m) && m == STOAT_MISMATCH_REBUILD_CHANGELOG);
	ck_assert(stoat_state_mismatch_parse("reset", &m) && m == STOAT_MISMATCH_RESET);
	ck_assert(!stoat_state_mismatch_parse("wipe", &m));
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* scan's callback: appends "key=value;" to the string buffer. */
static bool append_pair(void *arg, stoat_str key, stoat_str value)
{
	char *out = arg;
	size_t n = strlen(out);
	snprintf(out + n, 256 - n, "%.*s=%.*s;", (int)key.len, key.ptr, (int)value.len, value.ptr);
	return true;
}

/*
 * A rebuild's mark survives a crash (the next start sees a mismatch
 * whatever the changelog's offsets); done moves the checkpoint and clears
 * the mark in one write; scan gives the committed data in key order.
 */
START_TEST(rebuild_mark_is_durable)
{
	make_dirs();
	fixture f;
	fixture_open(&f, db_dir, 0);
	on(&f, 0, 1);
	put(&f, "b", "2");
	put(&f, "a", "1");
	stoat_store_part *p = part(&f, 0);
	stoat_store_part_acked(p, 41);
	commit(&f);
	char err[512] = "";
	ck_assert_msg(stoat_store_part_rebuild_begin(p, err, sizeof err), "%s", err);
	fixture_close(&f); /* a crash mid-rebuild */

	fixture_open(&f, db_dir, 0);
	on(&f, 0, 1);
	p = part(&f, 0);
	ck_assert(stoat_store_part_rebuild_pending(p));
	ck_assert_int_eq(stoat_store_part_restore_plan(p, 0, 100), STOAT_RESTORE_MISMATCH);
	char pairs[256] = "";
	ck_assert_msg(stoat_store_part_scan(p, append_pair, pairs, err, sizeof err), "%s", err);
	ck_assert_str_eq(pairs, "a=1;b=2;");
	ck_assert_msg(stoat_store_part_rebuild_done(p, 3, err, sizeof err), "%s", err);
	ck_assert(!stoat_store_part_rebuild_pending(p));
	fixture_close(&f);

	fixture_open(&f, db_dir, 0);
	on(&f, 0, 1);
	p = part(&f, 0);
	ck_assert(!stoat_store_part_rebuild_pending(p));
	ck_assert_int_eq(stoat_store_part_checkpoint(p), 3);
	ck_assert_int_eq(stoat_store_part_restore_plan(p, 0, 4), STOAT_RESTORE_FROM_CHECKPOINT);
	ck_assert_str_eq(get(&f, "a"), "1");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/*
 * A reset (restore from scratch) stores checkpoint 0 with the cleared
 * data: stopped before anything is restored or committed, the next start
 * must not find the old checkpoint over an empty store.
 */
START_TEST(reset_clears_the_checkpoint)
{
	make_dirs();
	fixture f;
	fixture_open(&f, db_dir, 0);
	on(&f, 0, 1);
	put(&f, "a", "1");
	stoat_store_part *p = part(&f, 0);
	stoat_store_part_acked(p, 99);
	commit(&f);
	char err[512] = "";
	ck_assert(stoat_store_part_rebuild_begin(p, err, sizeof err));
	ck_assert_msg(stoat_store_part_restore_start(p, true, err, sizeof err), "%s", err);
	ck_assert(stoat_store_part_restore_done(p, err, sizeof err));
	fixture_close(&f);

	fixture_open(&f, db_dir, 0);
	on(&f, 0, 1);
	p = part(&f, 0);
	ck_assert_int_eq(stoat_store_part_checkpoint(p), 0);
	ck_assert(!stoat_store_part_rebuild_pending(p));
	ck_assert_int_eq(stoat_store_part_restore_plan(p, 0, 0), STOAT_RESTORE_FROM_CHECKPOINT);
	ck_assert_str_eq(get(&f, "a"), "-");
	fixture_close(&f);
	remove_dirs();
}
END_TEST

/* stoat_state_describe: the open partitions with their keys and bytes,
 * the record cache's hits and misses, RocksDB's memory. */
START_TEST(describe_counts_stores)
{
	fixture f;
	fixture_open(&f, backing(_i), (size_t)1 << 20);
	on(&f, 0, 1);
	put(&f, "a", "1");                /* a miss: read from the store first */
	put(&f, "a", "11");               /* a hit */
	ck_assert_str_eq(get(&f, "a"), "11"); /* a hit */
	ck_assert_str_eq(get(&f, "z"), "-");  /* a miss */
	put(&f, "bb", "22");              /* a miss */
	on(&f, 3, 1);
	put(&f, "c", "333");              /* a miss */
	commit(&f);
	stoat_store_usage u[4];
	stoat_state_usage su;
	ck_assert_uint_eq(stoat_state_describe(f.driver.state, u, 1, &su), 2); /* counts all, fills one */
	ck_assert_uint_eq(stoat_state_describe(f.driver.state, u, 4, &su), 2);
	ck_assert_int_eq(u[0].partition, 0);
	ck_assert_int_eq(u[1].partition, 3);
	ck_assert_uint_eq(u[0].keys, 2);
	ck_assert_uint_eq(u[1].keys, 1);
	ck_assert_uint_eq(su.cache_hits, 2);
	ck_assert_uint_eq(su.cache_misses, 4);
	ck_assert_uint_eq(su.cache_size_flushes, 0);
	ck_assert_uint_eq(su.cache_max_bytes, (size_t)1 << 20);
	if (_i == 1) {
		/* In memory: the keys' and values' bytes exactly. */
		ck_assert(u[0].in_memory);
		ck_assert_uint_eq(u[0].bytes, 1 + 2 + 2 + 2);
		ck_assert_uint_eq(u[1].bytes, 1 + 3);
		ck_assert_uint_eq(su.rocksdb.budget, 0);
	} else {
		ck_assert(!u[0].in_memory);
		ck_assert_uint_gt(u[0].bytes, 0);
		ck_assert_uint_gt(su.rocksdb.memtables, 0);
		ck_assert_uint_eq(su.rocksdb.budget, (size_t)8 << 20);
	}
	fixture_close(&f);
	remove_dirs();
}
END_TEST

static Suite *state_suite(void)
{
	Suite *s = suite_create("state");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, held_back_until_commit, 0, 2);
	tcase_add_loop_test(tc, partitions_are_separate, 0, 2);
	tcase_add_test(tc, commit_survives_reopen);
	tcase_add_loop_test(tc, cache_collapses_updates, 0, 2);
	tcase_add_loop_test(tc, cache_flushes_when_full, 0, 2);
	tcase_add_loop_test(tc, describe_counts_stores, 0, 2);
	tcase_add_loop_test(tc, quiet_put_is_not_passed_on, 0, 4);
	tcase_add_loop_test(tc, restore_from_changelog, 0, 2);
	tcase_add_test(tc, in_memory_store_with_a_directory);
	tcase_add_test(tc, run_with_a_locked_state_directory);
	tcase_add_test(tc, state_files_are_owner_only);
	tcase_add_test(tc, run_tightens_state_directories);
	tcase_add_test(tc, make_dir_creates_owner_only);
	tcase_add_test(tc, restore_plan_refuses_only_above_the_end);
	tcase_add_test(tc, rebuild_mark_is_durable);
	tcase_add_test(tc, reset_clears_the_checkpoint);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(state_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
