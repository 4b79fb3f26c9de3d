/*
 * store_dump.c - reading state stores offline (see store_dump.h).
 *
 * A store's bytes are its key and value in the store layouts (runtime.h),
 * which carry no type information: only the program that wrote them reads
 * them back.  The application table gives each store's types and the
 * generated functions that decode a key or a value and write it as JSON;
 * this file frames them: a window store's keys are
 * 01 | segment | key | end | start and its values the window's largest
 * record timestamp (8 bytes big-endian) then the aggregate, and its
 * metadata keys start 00 (window_store.c).
 *
 * `store dump` opens the state database read only (RocksDB takes no lock
 * then, so it works beside a running application, on the database as of
 * the open) and prints every entry of the store's partitions: the column
 * families "<store>.<partition>", in partition order, each in key order
 * (the order of the keys' values).  Windows the application no longer
 * reads (ending below stream time - retention, which the next expiry
 * deletes) are left out, as are metadata and time index entries.
 */
#include "config_impl.h"
#include "replay.h"
#include "rocks.h"
#include "store_dump.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The first byte of a window store key (window_store.c). */
enum { KEY_META = 0, KEY_WINDOW = 1, KEY_INDEX = 2 };

/* A window value: the largest record timestamp, then the aggregate. */
#define WINDOW_VALUE_TS 8

/* Writes ,"<field>_base64":"<bytes>" (or ,"<field>":null for a null). */
static void put_base64(stoat_buf *out, const char *field, stoat_str bytes)
{
	stoat_buf_putc(out, ',');
	stoat_buf_putc(out, '"');
	stoat_buf_put(out, field, strlen(field));
	if (!bytes.ptr) {
		stoat_buf_lit(out, "\":null");
		return;
	}
	stoat_buf_lit(out, "_base64\":\"");
	stoat_base64_encode(out, bytes);
	stoat_buf_putc(out, '"');
}

/* An int64 from 8 big-endian bytes. */
static int64_t get_be64(const char *p)
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | (unsigned char)p[i];
	return (int64_t)u;
}

/* ,"start":S,"end":E of a window. */
static void put_window(stoat_buf *out, int64_t start, int64_t end)
{
	stoat_buf_lit(out, ",\"start\":");
	stoat_buf_put_i64(out, start);
	stoat_buf_lit(out, ",\"end\":");
	stoat_buf_put_i64(out, end);
}

/* A metadata entry: ,"meta":"<name>","value":N (8 bytes) or in base64. */
static void put_meta(stoat_buf *out, stoat_str key, stoat_str value)
{
	stoat_buf_lit(out, ",\"meta\":");
	stoat_buf_put_json_str(out, (stoat_str){ key.ptr + 1, key.len - 1 });
	if (value.ptr && value.len == 8) {
		stoat_buf_lit(out, ",\"value\":");
		stoat_buf_put_i64(out, get_be64(value.ptr));
	} else {
		put_base64(out, "value", value);
	}
}

/* Decodes bytes with fn into out; on failure out is as before and cx->error set. */
static bool put_json(stoat_ctx *cx, stoat_store_json_fn fn, const char *field, stoat_str bytes, stoat_buf *out)
{
	size_t mark = out->len;
	stoat_buf_putc(out, ',');
	stoat_buf_putc(out, '"');
	stoat_buf_put(out, field, strlen(field));
	stoat_buf_lit(out, "\":");
	if (fn(cx, bytes, out) && !cx->error)
		return true;
	out->len = mark;
	if (!cx->error)
		stoat_error(cx, "the %s could not be written as JSON", field);
	return false;
}

/*
 * The entry in base64 (a store without JSON functions, or bytes they do
 * not read: then with the error), a window's with its start and end.
 */
static void put_undecoded(stoat_buf *out, bool window, stoat_str key, stoat_str value, const char *error)
{
	stoat_str k;
	int64_t start, end;
	if (window && stoat_window_key_parse(key, &k, &start, &end)) {
		put_base64(out, "key", k);
		put_window(out, start, end);
	} else {
		put_base64(out, "key", key);
	}
	put_base64(out, "value", value);
	if (error) {
		stoat_buf_lit(out, ",\"error\":");
		stoat_buf_put_json_str(out, (stoat_str){ error, strlen(error) });
	}
}

/* See store_dump.h. */
stoat_store_entry stoat_store_entry_json(stoat_ctx *cx, const stoat_store_desc *d, stoat_str key, stoat_str value,
					 stoat_buf *out)
{
	bool window = d->kind == STOAT_STORE_WINDOW;
	if (window && key.len > 0 && key.ptr[0] == KEY_META) {
		put_meta(out, key, value);
		return STOAT_ENTRY_META;
	}
	if (window && key.len > 0 && key.ptr[0] == KEY_INDEX)
		return STOAT_ENTRY_INDEX;
	if (!d->key_json || !d->value_json) {
		put_undecoded(out, window, key, value, NULL);
		return STOAT_ENTRY_DECODED;
	}
	size_t mark = out->len;
	cx->error = false;
	stoat_str k = key, v = value;
	int64_t start = 0, end = 0;
	const char *why = NULL;
	if (window && !stoat_window_key_parse(key, &k, &start, &end))
		why = "malformed window key";
	else if (window && value.ptr && value.len < WINDOW_VALUE_TS)
		why = "malformed window value: shorter than its timestamp";
	if (!why && !put_json(cx, d->key_json, "key", k, out))
		why = cx->error_message;
	if (!why && window)
		put_window(out, start, end);
	if (!why && window && value.ptr) {
		stoat_buf_lit(out, ",\"value_timestamp\":");
		stoat_buf_put_i64(out, get_be64(value.ptr));
		v = (stoat_str){ value.ptr + WINDOW_VALUE_TS, value.len - WINDOW_VALUE_TS };
	}
	if (!why && !value.ptr)
		stoat_buf_lit(out, ",\"value\":null");
	else if (!why && !put_json(cx, d->value_json, "value", v, out))
		why = cx->error_message;
	if (!why)
		return STOAT_ENTRY_DECODED;
	out->len = mark;
	put_undecoded(out, window, key, value, why);
	cx->error = false;
	return STOAT_ENTRY_MALFORMED;
}

/* See store_dump.h. */
int stoat_store_of_changelog(const stoat_app *app, const char *topic)
{
	size_t id = strlen(app->app_id);
	if (strncmp(topic, app->app_id, id) != 0 || topic[id] != '-')
		return -1;
	const char *rest = topic + id + 1;
	for (size_t i = 0; i < app->store_count; i++) {
		const stoat_store_desc *d = &app->stores[i];
		size_t n = strlen(d->name);
		if (!d->global && strncmp(rest, d->name, n) == 0 && strcmp(rest + n, "-changelog") == 0)
			return (int)i;
	}
	return -1;
}

/* See store_dump.h. */
stoat_store_entry stoat_format_changelog_line(stoat_buf *b, stoat_ctx *cx, const stoat_app *app, int store,
					      stoat_str topic, int32_t partition, int64_t offset, int64_t timestamp,
					      stoat_str key, stoat_str value)
{
	assert(store >= 0 && (size_t)store < app->store_count);
	const stoat_store_desc *d = &app->stores[store];
	stoat_format_record_head(b, topic, partition, offset, timestamp);
	stoat_buf_lit(b, ",\"store\":");
	stoat_buf_put_json_str(b, (stoat_str){ d->name, strlen(d->name) });
	stoat_store_entry e = stoat_store_entry_json(cx, d, key, value, b);
	stoat_arena_reset(&cx->arena);
	stoat_buf_lit(b, "}\n");
	return e;
}

/* ------------------------------------------------------------------ */
/* The commands                                                        */
/* ------------------------------------------------------------------ */

/* Prints the store command's usage. */
static void store_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s store list\n"
		"       %s store dump STORE [--state-dir DIR] [--instance-id ID] [--partition N]\n"
		"\n"
		"list prints the application's stores: name, what each holds, its key and value\n"
		"types and its changelog topic.\n"
		"\n"
		"dump prints the entries of a store kept in RocksDB, one JSON object a line,\n"
		"decoded with the program's types:\n"
		"  {\"store\":\"NAME\",\"partition\":P,\"key\":K,\"value\":V}        a table's\n"
		"  {...,\"key\":K,\"start\":S,\"end\":E,\"value_timestamp\":T,\"value\":V}  a window's\n"
		"partitions in order, each in key order.  The state is read where run keeps it,\n"
		"DIR/<application id>/<instance id>, opened read only (a running application may\n"
		"hold it: the dump shows it as of the open).\n"
		"\n"
		"options:\n"
		"  --state-dir DIR     the state directory run was given ($STOAT_STATE_DIR,\n"
		"                      default /tmp/stoat)\n"
		"  --instance-id ID    the instance run was given ($STOAT_INSTANCE_ID, default\n"
		"                      \"default\")\n"
		"  --partition N       only partition N (default: every partition found)\n"
		"  -h, --help          print this help\n"
		"\n"
		"Exit status: 0 ok, 2 bad usage (an unknown store, one kept in memory), 3 an\n"
		"entry the program's types do not read (printed in base64 with \"error\"),\n"
		"4 no state for the store (no such directory, no database, no partition).\n",
		prog, prog);
}

/* Reports a command-line error with a pointer to --help; returns 2. */
static int store_usage_error(const char *prog, const char *fmt, ...) STOAT_PRINTF(2, 3);
static int store_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: error: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s store --help'.\n", prog);
	return STOAT_EXIT_USAGE;
}

/* A table's or a store's name, type or topic, "-" when it has none. */
static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

/* `store list`: one line per store under a header, columns aligned. */
static int store_list(const stoat_app *app)
{
	enum { COLS = 5 };
	const char *head[COLS] = { "STORE", "HOLDS", "KEY", "VALUE", "CHANGELOG" };
	size_t n = app->store_count;
	char **cells = stoat_xcalloc((n + 1) * COLS, sizeof *cells);
	size_t width[COLS] = { 0 };
	for (size_t r = 0; r <= n; r++) {
		for (int c = 0; c < COLS; c++) {
			char *cell;
			if (r == 0) {
				cell = stoat_xstrdup(head[c]);
			} else {
				const stoat_store_desc *d = &app->stores[r - 1];
				char buf[1024];
				switch (c) {
				case 0: snprintf(buf, sizeof buf, "%s", d->name); break;
				case 1:
					snprintf(buf, sizeof buf, "%s%s", or_dash(d->what), d->in_memory ? " (in memory)" : "");
					break;
				case 2: snprintf(buf, sizeof buf, "%s", or_dash(d->key_type)); break;
				case 3: snprintf(buf, sizeof buf, "%s", or_dash(d->value_type)); break;
				default:
					if (d->global)
						snprintf(buf, sizeof buf, "- (its source topic)");
					else
						snprintf(buf, sizeof buf, "%s-%s-changelog", app->app_id, d->name);
				}
				cell = stoat_xstrdup(buf);
			}
			cells[r * COLS + (size_t)c] = cell;
			if (strlen(cell) > width[c])
				width[c] = strlen(cell);
		}
	}
	for (size_t r = 0; r <= n; r++) {
		for (int c = 0; c < COLS; c++) {
			const char *cell = cells[r * COLS + (size_t)c];
			if (c == COLS - 1)
				printf("%s\n", cell);
			else
				printf("%-*s  ", (int)width[c], cell);
		}
	}
	for (size_t i = 0; i < (n + 1) * COLS; i++)
		free(cells[i]);
	free(cells);
	return fflush(stdout) == 0 ? STOAT_EXIT_OK : STOAT_EXIT_IO;
}

/* The store called name, or -1 after an error naming the known ones. */
static int find_store(const stoat_app *app, const char *prog, const char *name)
{
	for (size_t i = 0; i < app->store_count; i++)
		if (strcmp(app->stores[i].name, name) == 0)
			return (int)i;
	if (app->store_count == 0) {
		store_usage_error(prog, "unknown store '%s': the application has no stores", name);
		return -1;
	}
	const char **names = stoat_xcalloc(app->store_count + 1, sizeof *names);
	for (size_t i = 0; i < app->store_count; i++)
		names[i] = app->stores[i].name;
	const char *near = stoat_config_suggest(name, names, true);
	fprintf(stderr, "%s: error: unknown store '%s'", prog, name);
	if (near)
		fprintf(stderr, " (did you mean '%s'?)", near);
	fprintf(stderr, "; the stores are:");
	for (size_t i = 0; i < app->store_count; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, "\nTry '%s store list'.\n", prog);
	free(names);
	return -1;
}

/* The partition number of family `family` when it is one of store name's ("<name>.<N>"), else -1. */
static int64_t family_partition(const char *family, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(family, name, n) != 0 || family[n] != '.' || family[n + 1] < '0' || family[n + 1] > '9')
		return -1;
	errno = 0;
	char *end;
	long long p = strtoll(family + n + 1, &end, 10);
	if (errno != 0 || *end != '\0' || p > INT32_MAX)
		return -1;
	return p;
}

/* One store partition in the database: its family and partition number. */
typedef struct dump_part {
	int family;
	int32_t partition;
} dump_part;

/* Orders store partitions by partition number. */
static int compare_parts(const void *a, const void *b)
{
	const dump_part *x = a, *y = b;
	return (x->partition > y->partition) - (x->partition < y->partition);
}

/*
 * Prints the entries of one store partition (see the top), counting them
 * in *printed and the entries the types did not read in *malformed.
 * False and err on a RocksDB error.
 */
static bool dump_part_entries(stoat_rocks *db, const stoat_app *app, int store, const dump_part *part,
			      stoat_ctx *cx, stoat_buf *out, uint64_t *printed, uint64_t *malformed, char *err,
			      size_t errlen)
{
	const stoat_store_desc *d = &app->stores[store];
	bool window = d->kind == STOAT_STORE_WINDOW;
	int64_t cut = INT64_MIN; /* windows ending below it are expired */
	stoat_rocks_iter *it = stoat_rocks_scan(db, part->family, (stoat_str){ 0 });
	bool ok = true;
	for (; stoat_rocks_iter_valid(it) && ok; stoat_rocks_iter_next(it)) {
		stoat_str key = stoat_rocks_iter_key(it), value = stoat_rocks_iter_value(it);
		stoat_str k;
		int64_t start, end;
		if (window && key.len > 0 && key.ptr[0] == KEY_META) {
			/* "\0stream-time" sorts before every window: the cut is known before them. */
			static const char stream_time[] = "\0stream-time";
			if (key.len == sizeof stream_time - 1 && memcmp(key.ptr, stream_time, key.len) == 0 &&
			    value.len == 8 && get_be64(value.ptr) >= 0)
				cut = get_be64(value.ptr) - (d->retention_ms > 0 ? d->retention_ms : 0);
			continue;
		}
		if (window && stoat_window_key_parse(key, &k, &start, &end) && end < cut)
			continue;
		out->len = 0;
		stoat_buf_lit(out, "{\"store\":");
		stoat_buf_put_json_str(out, (stoat_str){ d->name, strlen(d->name) });
		stoat_buf_lit(out, ",\"partition\":");
		stoat_buf_put_i64(out, part->partition);
		stoat_store_entry e = stoat_store_entry_json(cx, d, key, value, out);
		stoat_arena_reset(&cx->arena);
		if (e == STOAT_ENTRY_INDEX || e == STOAT_ENTRY_META)
			continue;
		if (e == STOAT_ENTRY_MALFORMED)
			++*malformed;
		stoat_buf_lit(out, "}\n");
		if (fwrite(out->data, 1, out->len, stdout) != out->len) {
			snprintf(err, errlen, "cannot write the standard output: %s", strerror(errno));
			ok = false;
		}
		++*printed;
	}
	return stoat_rocks_iter_close(it, ok ? err : NULL, ok ? errlen : 0) && ok;
}

/* Parses N of --partition: 0 to INT32_MAX, nothing after it. */
static bool parse_partition(const char *s, int32_t *out)
{
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

/* The options of `store dump`. */
typedef struct dump_options {
	const char *store;
	const char *state_dir;
	const char *instance_id;
	bool one_partition;
	int32_t partition;
} dump_options;

/*
 * Matches argv[*i] against --name VALUE or --name=VALUE: 1 with *value
 * set, 0 for another argument, -1 when the value is missing.
 */
static int take_value(int argc, char **argv, int *i, const char *name, const char **value)
{
	size_t n = strlen(name);
	if (strncmp(argv[*i], name, n) != 0)
		return 0;
	if (argv[*i][n] == '=') {
		*value = argv[*i] + n + 1;
		return 1;
	}
	if (argv[*i][n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}

/* Parses `store dump`'s arguments into opt; 0, or the exit status after a message. */
static int parse_dump(const char *prog, int argc, char **argv, dump_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->state_dir = getenv("STOAT_STATE_DIR");
	opt->instance_id = getenv("STOAT_INSTANCE_ID");
	bool only_names = false;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		int m;
		if (only_names || arg[0] != '-') {
			if (opt->store)
				return store_usage_error(prog, "store dump takes one store, got '%s' too", arg);
			opt->store = arg;
		} else if (strcmp(arg, "--") == 0) {
			only_names = true;
		} else if ((m = take_value(argc, argv, &i, "--state-dir", &value)) != 0) {
			if (m < 0 || !*value)
				return store_usage_error(prog, "option '--state-dir' needs a directory");
			opt->state_dir = value;
		} else if ((m = take_value(argc, argv, &i, "--instance-id", &value)) != 0) {
			if (m < 0 || !*value)
				return store_usage_error(prog, "option '--instance-id' needs an id");
			opt->instance_id = value;
		} else if ((m = take_value(argc, argv, &i, "--partition", &value)) != 0) {
			if (m < 0 || !parse_partition(value, &opt->partition))
				return store_usage_error(prog, "--partition takes a partition number (0 or more), not '%s'",
							 m > 0 ? value : "");
			opt->one_partition = true;
		} else {
			return store_usage_error(prog, "unknown option '%s'", arg);
		}
	}
	if (!opt->store)
		return store_usage_error(prog, "store dump needs a STORE (see '%s store list')", prog);
	if (!opt->state_dir || !*opt->state_dir)
		opt->state_dir = "/tmp/stoat";
	if (!opt->instance_id || !*opt->instance_id)
		opt->instance_id = "default";
	return 0;
}

/* `store dump STORE [options]`: see store_usage. */
static int store_dump(const stoat_app *app, const char *prog, int argc, char **argv)
{
	dump_options opt;
	int status = parse_dump(prog, argc, argv, &opt);
	if (status != 0)
		return status;
	int store = find_store(app, prog, opt.store);
	if (store < 0)
		return STOAT_EXIT_USAGE;
	const stoat_store_desc *d = &app->stores[store];
	if (d->in_memory) {
		fprintf(stderr,
			"%s: error: store %s is kept in memory, not in the state directory: nothing to read offline "
			"(its changelog %s-%s-changelog holds it: '%s dump' it)\n",
			prog, d->name, app->app_id, d->name, prog);
		return STOAT_EXIT_USAGE;
	}
	char dir[4096];
	if (snprintf(dir, sizeof dir, "%s/%s/%s", opt.state_dir, app->app_id, opt.instance_id) >= (int)sizeof dir) {
		fprintf(stderr, "%s: error: the state directory %s/%s/%s is too long\n", prog, opt.state_dir, app->app_id,
			opt.instance_id);
		return STOAT_EXIT_STATE;
	}
	struct stat sb;
	char current[4200];
	snprintf(current, sizeof current, "%s/CURRENT", dir);
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		fprintf(stderr,
			"%s: error: no state directory %s (%s): give the --state-dir and --instance-id the application "
			"ran with\n",
			prog, dir, stat(dir, &sb) != 0 ? strerror(errno) : "not a directory");
		return STOAT_EXIT_STATE;
	}
	if (stat(current, &sb) != 0) {
		fprintf(stderr, "%s: error: %s holds no state database (no CURRENT file)\n", prog, dir);
		return STOAT_EXIT_STATE;
	}
	char err[1024] = "";
	stoat_rocks *db = stoat_rocks_open_read_only(dir, stoat_rocks_memory_budget("low"), err, sizeof err);
	if (!db) {
		fprintf(stderr, "%s: error: %s\n", prog, err);
		return STOAT_EXIT_STATE;
	}
	int nfamilies = stoat_rocks_family_count(db);
	dump_part *parts = stoat_xcalloc((size_t)nfamilies, sizeof *parts);
	size_t nparts = 0;
	for (int f = 0; f < nfamilies; f++) {
		int64_t p = family_partition(stoat_rocks_family_name(db, f), d->name);
		if (p >= 0 && (!opt.one_partition || p == opt.partition))
			parts[nparts++] = (dump_part){ f, (int32_t)p };
	}
	qsort(parts, nparts, sizeof *parts, compare_parts);
	if (nparts == 0) {
		if (opt.one_partition)
			fprintf(stderr, "%s: error: store %s has no partition %" PRId32 " in %s\n", prog, d->name,
				opt.partition, dir);
		else
			fprintf(stderr, "%s: error: store %s has no partitions in %s (no record has reached it there)\n",
				prog, d->name, dir);
		free(parts);
		stoat_rocks_close(db);
		return STOAT_EXIT_STATE;
	}
	stoat_ctx cx;
	memset(&cx, 0, sizeof cx);
	cx.app = app;
	stoat_arena_init(&cx.arena);
	stoat_buf out;
	stoat_buf_init(&out);
	uint64_t printed = 0, malformed = 0;
	status = STOAT_EXIT_OK;
	for (size_t i = 0; i < nparts && status == STOAT_EXIT_OK; i++)
		if (!dump_part_entries(db, app, store, &parts[i], &cx, &out, &printed, &malformed, err, sizeof err)) {
			fprintf(stderr, "%s: error: %s\n", prog, err);
			status = STOAT_EXIT_IO;
		}
	if (fflush(stdout) != 0 && status == STOAT_EXIT_OK) {
		fprintf(stderr, "%s: error: cannot write the standard output: %s\n", prog, strerror(errno));
		status = STOAT_EXIT_IO;
	}
	if (status == STOAT_EXIT_OK && malformed) {
		fprintf(stderr, "%s: error: %" PRIu64 " of %" PRIu64 " entries of store %s are not values of its types "
			"(printed in base64, with \"error\")\n", prog, malformed, printed, d->name);
		status = STOAT_EXIT_IO;
	}
	if (status == STOAT_EXIT_OK)
		fprintf(stderr, "%s: dumped %" PRIu64 " entr%s of store %s (%zu partition%s)\n", prog, printed,
			printed == 1 ? "y" : "ies", d->name, nparts, nparts == 1 ? "" : "s");
	stoat_buf_free(&out);
	stoat_arena_free(&cx.arena);
	free(parts);
	stoat_rocks_close(db);
	return status;
}

/* See store_dump.h. */
int stoat_store_command(const stoat_app *app, const char *prog, int argc, char **argv)
{
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			store_usage(stdout, prog);
			return STOAT_EXIT_OK;
		}
	if (argc == 0)
		return store_usage_error(prog, "store needs list or dump");
	if (strcmp(argv[0], "list") == 0) {
		if (argc > 1)
			return store_usage_error(prog, "store list takes no arguments, got '%s'", argv[1]);
		return store_list(app);
	}
	if (strcmp(argv[0], "dump") == 0)
		return store_dump(app, prog, argc - 1, argv + 1);
	return store_usage_error(prog, "unknown store command '%s' (list or dump)", argv[0]);
}
