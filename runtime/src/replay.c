/*
 * replay.c - the replay driver: reads records from JSON-lines files, feeds
 * them to the pipelines in timestamp order across files, and writes the
 * emitted records as JSON lines.  It is the test driver and the
 * micro-benchmark harness, so the per-record path avoids allocation: input
 * files are mapped (or read) whole, envelopes are parsed in place with
 * slices into the file, and decoded data lives in arenas reset per batch.
 * The format is documented in docs/replay-format.md.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "replay.h"
#include "state.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <ftw.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Output is handed to stdio in pieces of about this size. */
#define REPLAY_OUTPUT_CHUNK ((size_t)1 << 20)

/* ------------------------------------------------------------------ */
/* A map from 64-bit keys to offsets (per topic-partition counters)    */
/* ------------------------------------------------------------------ */

typedef struct offset_slot {
	uint64_t key;
	int64_t next; /* the next offset to hand out */
	bool used;
} offset_slot;

/* Open addressing, power-of-two capacity, never more than half full. */
typedef struct offset_map {
	offset_slot *slots;
	size_t cap;
	size_t count;
} offset_map;

/* A 64-bit mixer (splitmix64's finaliser) for spreading keys. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9u;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebu;
	x ^= x >> 31;
	return x;
}

/* The counter for key, created at 0 when new.  Grows by doubling; that
 * happens once per new topic-partition, never per record. */
static int64_t *offset_map_get(offset_map *m, uint64_t key)
{
	if (m->count * 2 >= m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		offset_slot *slots = stoat_xcalloc(cap, sizeof *slots);
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->slots[i].used)
				continue;
			size_t k = mix64(m->slots[i].key) & (cap - 1);
			while (slots[k].used)
				k = (k + 1) & (cap - 1);
			slots[k] = m->slots[i];
		}
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	size_t k = mix64(key) & (m->cap - 1);
	while (m->slots[k].used) {
		if (m->slots[k].key == key)
			return &m->slots[k].next;
		k = (k + 1) & (m->cap - 1);
	}
	m->slots[k].used = true;
	m->slots[k].key = key;
	m->slots[k].next = 0;
	m->count++;
	return &m->slots[k].next;
}

/* Combines a table index and a partition into one map key. */
static uint64_t partition_key(size_t index, int32_t partition)
{
	return (uint64_t)index << 32 | (uint32_t)partition;
}

/* ------------------------------------------------------------------ */
/* Driver state                                                        */
/* ------------------------------------------------------------------ */

/* An output topic: the sinks' topics and every per-record topic seen. */
typedef struct out_topic {
	char *name;
	size_t len;
	int32_t partitions;
} out_topic;

/* One input file, read as a queue of records; its head is parsed ahead. */
typedef struct replay_input {
	const char *path;
	const char *data;
	size_t size;
	bool mapped; /* data is mmap'd (else malloc'd) */
	size_t next_line;      /* byte offset of the line after the head */
	uint64_t next_line_no; /* its line number */
	stoat_ctx pcx;         /* parse context: arena for decoded envelope bytes */
	bool has_head;
	stoat_envelope head;
	stoat_str head_line;
	uint64_t head_line_no;
	stoat_envelope_cache cache; /* the last topic seen and its source */
} replay_input;

typedef struct stoat_replay stoat_replay;

/* The replay driver: stoat_driver first (see STOAT_CONTAINER_OF). */
struct stoat_replay {
	stoat_driver driver;
	const stoat_app *app;
	const stoat_replay_options *opt;
	replay_input *inputs;
	size_t input_count;
	stoat_ctx *tasks; /* one per source */
	stoat_msg *batch;
	bool *batch_partition_given; /* per record of batch: for batch_hook */
	offset_map in_offsets;  /* (source, partition) -> next default offset */
	offset_map out_offsets; /* (out topic, partition) -> next offset */
	out_topic *topics;
	size_t topic_count, topic_cap;
	size_t *topic_index; /* hash index into topics, SIZE_MAX empty */
	size_t topic_index_cap;
	size_t *sink_topic; /* per sink: index into topics, SIZE_MAX: per record */
	size_t *sink_reader; /* per internal sink: the source reading its topic */
	stoat_buf out;
	FILE *out_file;
	const char *out_name;
	stoat_ctx check_cx; /* scratch context for validating JSON output */
	bool internal_stopped; /* a repartition reader hit the fail policy */
	char *state_dir;       /* the temporary RocksDB directory, removed at exit */
};

/* FNV-1a, for the topic-name index. */
static uint64_t fnv1a(stoat_str s)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < s.len; i++) {
		h ^= (unsigned char)s.ptr[i];
		h *= 0x100000001b3u;
	}
	return h;
}

/* The partition count given for topic with --partitions, else 1. */
static int32_t configured_partitions(const stoat_replay *r, stoat_str topic)
{
	for (size_t i = 0; i < r->opt->partition_count; i++) {
		const char *t = r->opt->partitions[i].topic;
		if (strlen(t) == topic.len && memcmp(t, topic.ptr, topic.len) == 0)
			return r->opt->partitions[i].partitions;
	}
	return 1;
}

/* Puts topic index i into the hash index. */
static void topic_index_insert(stoat_replay *r, size_t i)
{
	size_t mask = r->topic_index_cap - 1;
	size_t k = fnv1a((stoat_str){ r->topics[i].name, r->topics[i].len }) & mask;
	while (r->topic_index[k] != SIZE_MAX)
		k = (k + 1) & mask;
	r->topic_index[k] = i;
}

/*
 * The index of output topic `name`, added (with a copy of the name) the
 * first time it is seen.  Adding happens once per topic, not per record.
 */
static size_t topic_lookup(stoat_replay *r, stoat_str name)
{
	if (r->topic_index_cap) {
		size_t mask = r->topic_index_cap - 1;
		size_t k = fnv1a(name) & mask;
		while (r->topic_index[k] != SIZE_MAX) {
			const out_topic *t = &r->topics[r->topic_index[k]];
			if (t->len == name.len && memcmp(t->name, name.ptr, name.len) == 0)
				return r->topic_index[k];
			k = (k + 1) & mask;
		}
	}
	if (r->topic_count == r->topic_cap) {
		r->topic_cap = r->topic_cap ? r->topic_cap * 2 : 16;
		r->topics = stoat_xrealloc(r->topics, r->topic_cap, sizeof *r->topics);
	}
	size_t i = r->topic_count++;
	out_topic *t = &r->topics[i];
	t->name = stoat_xcalloc(name.len + 1, 1);
	memcpy(t->name, name.ptr, name.len);
	t->len = name.len;
	t->partitions = configured_partitions(r, name);
	if (r->topic_count * 2 > r->topic_index_cap) {
		free(r->topic_index);
		r->topic_index_cap = r->topic_index_cap ? r->topic_index_cap * 2 : 64;
		r->topic_index = stoat_xcalloc(r->topic_index_cap, sizeof *r->topic_index);
		for (size_t k = 0; k < r->topic_index_cap; k++)
			r->topic_index[k] = SIZE_MAX;
		for (size_t k = 0; k < r->topic_count; k++)
			topic_index_insert(r, k);
	} else {
		topic_index_insert(r, i);
	}
	return i;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

/* Hands the buffered output to stdio. */
static void output_flush(stoat_replay *r)
{
	if (r->out.len) {
		fwrite(r->out.data, 1, r->out.len, r->out_file);
		r->out.len = 0;
	}
}

/* Picks the partition as Kafka's default partitioner would and numbers
 * the record; returns the output topic's index. */
static size_t place_record(stoat_replay *r, const stoat_ctx *cx, size_t ti, stoat_str key, int32_t *partition,
			   int64_t *offset)
{
	const out_topic *t = &r->topics[ti];
	*partition = key.ptr ? stoat_partition_for_key(key, t->partitions) : cx->msg->partition % t->partitions;
	int64_t *next = offset_map_get(&r->out_offsets, partition_key(ti, *partition));
	*offset = (*next)++;
	return ti;
}

/*
 * A record written to a repartition topic is read back at once by the
 * internal source of that topic (depth first, as Kafka Streams' test
 * driver does), so output order stays deterministic.  The nested pipeline
 * has its own context; the bytes it reads live in the caller's buffers,
 * which stay put until it returns.
 */
static void replay_internal(stoat_replay *r, stoat_ctx *cx, int sink, int32_t partition, int64_t offset,
			    stoat_str key, stoat_str value)
{
	const stoat_sink *s = &r->app->sinks[sink];
	size_t src = r->sink_reader[sink];
	if (src == SIZE_MAX) {
		stoat_error(cx, "internal error: no source reads the repartition topic %s", s->topic);
		return;
	}
	stoat_ctx *ic = &r->tasks[src];
	assert(ic != cx);
	stoat_msg m = *cx->msg;
	m.partition = partition;
	m.offset = offset;
	m.key = key;
	m.value = value;
	m.timestamp = cx->timestamp; /* what the sink wrote, as Kafka would carry it */
	ic->source = &r->app->sources[src];
	ic->msg = NULL;
	ic->error = false;
	ic->source->pipeline(ic, &m, 1);
	ic->msg = NULL;
	stoat_arena_reset(&ic->arena);
	if (ic->stopped)
		r->internal_stopped = true;
}

/*
 * The replay half of stoat_emit: places the record and appends its JSON
 * line, with the timestamp and headers of the record being processed.
 */
static bool replay_emit(stoat_driver *d, stoat_ctx *cx, int sink, stoat_str topic, stoat_str key, stoat_str value)
{
	stoat_replay *r = STOAT_CONTAINER_OF(d, stoat_replay, driver);
	size_t ti = topic.ptr ? topic_lookup(r, topic) : r->sink_topic[sink];
	assert(ti < r->topic_count);
	int32_t partition;
	int64_t offset;
	place_record(r, cx, ti, key, &partition, &offset);
	const stoat_msg *m = cx->msg;
	const stoat_sink *s = &r->app->sinks[sink];
	if (s->internal) {
		replay_internal(r, cx, sink, partition, offset, key, value);
		return true;
	}
	stoat_format_record_line(&r->out, &r->check_cx, (stoat_str){ r->topics[ti].name, r->topics[ti].len },
				 partition, offset, cx->timestamp, s->key_format, key, s->value_format, value,
				 m->headers, m->header_count, NULL, 0);
	if (r->out.len >= REPLAY_OUTPUT_CHUNK)
		output_flush(r);
	return true;
}

/*
 * Writes the record being processed, unchanged, to the dead-letter topic
 * with the error headers (see stoat_dead_letter).
 */
static void replay_dead_letter(stoat_driver *d, stoat_ctx *cx, const char *dlq_topic, const stoat_header *extra,
			       size_t extra_count)
{
	stoat_replay *r = STOAT_CONTAINER_OF(d, stoat_replay, driver);
	size_t ti = topic_lookup(r, (stoat_str){ dlq_topic, strlen(dlq_topic) });
	int32_t partition;
	int64_t offset;
	const stoat_msg *m = cx->msg;
	place_record(r, cx, ti, m->key, &partition, &offset);
	stoat_format_record_line(&r->out, &r->check_cx, (stoat_str){ r->topics[ti].name, r->topics[ti].len },
				 partition, offset, m->timestamp, STOAT_FMT_BYTES, m->key, STOAT_FMT_BYTES, m->value,
				 m->headers, m->header_count, extra, extra_count);
	if (r->out.len >= REPLAY_OUTPUT_CHUNK)
		output_flush(r);
}

/* The replay driver's operations: no changelogs (its stores live and die
 * with the run), store partitions open on first use. */
static const stoat_driver_ops replay_driver_ops = {
	.name = "replay",
	.emit = replay_emit,
	.dead_letter = replay_dead_letter,
	.changelog_write = NULL,
	.opens_parts_on_assignment = false,
};

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

/* Maps (or, for pipes and stdin, reads) a whole input file. */
static bool input_open(replay_input *in)
{
	bool is_stdin = strcmp(in->path, "-") == 0;
	int fd = is_stdin ? 0 : open(in->path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: error: cannot open: %s\n", in->path, strerror(errno));
		return false;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		fprintf(stderr, "%s: error: cannot stat: %s\n", in->path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: error: is a directory\n", in->path);
		goto fail;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			in->data = p;
			in->size = (size_t)st.st_size;
			in->mapped = true;
			if (!is_stdin)
				close(fd);
			return true;
		}
	}
	/* Not mappable: read it whole. */
	size_t cap = 65536, len = 0;
	char *buf = stoat_xcalloc(cap, 1);
	for (;;) {
		if (len == cap) {
			cap *= 2;
			buf = stoat_xrealloc(buf, cap, 1);
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: error: cannot read: %s\n", in->path, strerror(errno));
			free(buf);
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	in->data = buf;
	in->size = len;
	in->mapped = false;
	if (!is_stdin)
		close(fd);
	return true;
fail:
	if (!is_stdin)
		close(fd);
	return false;
}

/* Unmaps or frees an input's bytes. */
static void input_close(replay_input *in)
{
	if (in->mapped)
		munmap((void *)in->data, in->size);
	else
		free((void *)in->data);
	in->data = NULL;
}

/* True when the line holds only JSON whitespace. */
static bool line_blank(stoat_str line)
{
	for (size_t i = 0; i < line.len; i++) {
		char c = line.ptr[i];
		if (c != ' ' && c != '\t' && c != '\r')
			return false;
	}
	return true;
}

/*
 * Parses the next record of `in` into its head (has_head false at the end
 * of the file).  Prints "<file>:<line>: error: ..." and returns false for a
 * malformed line.
 */
static bool input_advance(const stoat_replay *r, replay_input *in)
{
	in->has_head = false;
	while (in->next_line < in->size) {
		const char *start = in->data + in->next_line;
		size_t left = in->size - in->next_line;
		const char *nl = memchr(start, '\n', left);
		size_t len = nl ? (size_t)(nl - start) : left;
		in->next_line += nl ? len + 1 : len;
		uint64_t line_no = in->next_line_no++;
		stoat_str line = { start, len };
		if (len && start[len - 1] == '\r')
			line.len--;
		if (line_blank(line))
			continue;
		if (!stoat_parse_envelope(r->app, &in->pcx, &in->cache, line, &in->head)) {
			fprintf(stderr, "%s:%" PRIu64 ": error: %s\n", in->path, line_no,
				in->pcx.error_message);
			return false;
		}
		in->head_line = line;
		in->head_line_no = line_no;
		in->has_head = true;
		return true;
	}
	return true;
}

/* The input whose head record comes next: smallest timestamp, ties to the
 * earlier file on the command line.  NULL when all are exhausted. */
static replay_input *next_input(stoat_replay *r)
{
	replay_input *best = NULL;
	for (size_t i = 0; i < r->input_count; i++) {
		replay_input *in = &r->inputs[i];
		if (in->has_head && (best == NULL || in->head.msg.timestamp < best->head.msg.timestamp))
			best = in;
	}
	return best;
}

/* Removes the head record of `in` for processing, numbering it if the line
 * gave no offset. */
static stoat_msg take_head(stoat_replay *r, replay_input *in)
{
	stoat_msg m = in->head.msg;
	int64_t *next = offset_map_get(&r->in_offsets, partition_key(in->head.source, m.partition));
	if (!in->head.offset_given)
		m.offset = *next;
	/* The largest offset is accepted; numbering after it stays there. */
	*next = m.offset < INT64_MAX ? m.offset + 1 : INT64_MAX;
	return m;
}

/*
 * The replay driver commits after every batch: the record caches flush
 * (running what is downstream of the stores) and the stores apply their
 * writes.  False if a flushed update failed under the fail policy.
 */
static bool replay_commit(stoat_replay *r)
{
	stoat_state *st = r->driver.state;
	if (!st)
		return true;
	if (!stoat_state_flush(st))
		return false;
	char err[512];
	if (!stoat_state_commit(st, err, sizeof err)) {
		fprintf(stderr, "%s: error: %s\n", r->app->app_id, err);
		return false;
	}
	return true;
}

/*
 * The main loop: repeatedly take a batch (consecutive records from one file
 * and one topic-partition, in merged timestamp order), run its source's
 * pipeline, and reset the arenas.  Returns the exit status.
 */
static int replay_loop(stoat_replay *r)
{
	for (size_t i = 0; i < r->input_count; i++) {
		if (!input_advance(r, &r->inputs[i]))
			return STOAT_EXIT_IO;
	}
	replay_input *in;
	while ((in = next_input(r)) != NULL) {
		size_t source = in->head.source;
		int32_t partition = in->head.msg.partition;
		size_t n = 0;
		do {
			r->batch_partition_given[n] = in->head.partition_given;
			r->batch[n++] = take_head(r, in);
			if (!input_advance(r, in))
				return STOAT_EXIT_IO;
		} while (n < r->opt->batch_max && next_input(r) == in && in->head.source == source &&
			 in->head.msg.partition == partition);

		stoat_ctx *cx = &r->tasks[source];
		cx->source = &r->app->sources[source];
		cx->msg = NULL;
		cx->error = false;
		if (r->opt->batch_hook)
			r->opt->batch_hook(r->opt->hook_arg, cx, r->batch, r->batch_partition_given, n);
		else
			cx->source->pipeline(cx, r->batch, n);
		cx->msg = NULL;
		stoat_arena_reset(&cx->arena);

		/* The batch's envelope data goes; the lookahead head is parsed
		 * again into the fresh arena (it parsed before, so it will). */
		stoat_arena_reset(&in->pcx.arena);
		if (in->has_head) {
			bool ok = stoat_parse_envelope(r->app, &in->pcx, &in->cache, in->head_line, &in->head);
			assert(ok);
			(void)ok;
		}
		if (cx->stopped || r->internal_stopped)
			return STOAT_EXIT_RECORD_FAILED;
		if (!replay_commit(r))
			return STOAT_EXIT_RECORD_FAILED;
	}
	return STOAT_EXIT_OK;
}

/* Removes the tree at path (files and directories), best effort. */
static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/*
 * Opens the application's stores: RocksDB in a fresh temporary directory
 * (or hash maps with --state memory).  False after a message.
 */
static bool replay_state_open(stoat_replay *r)
{
	const stoat_app *app = r->app;
	if (app->store_count == 0)
		return true;
	stoat_state_options so = { 0 };
	so.memory_budget = stoat_rocks_memory_budget("low");
	so.cache_max_bytes = r->opt->cache_max_bytes;
	char db_dir[4200];
	if (!r->opt->state_in_memory) {
		const char *tmp = getenv("TMPDIR");
		char templ[4096];
		snprintf(templ, sizeof templ, "%s/stoat-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(templ)) {
			fprintf(stderr, "%s: error: cannot create a state directory %s: %s\n", app->app_id, templ,
				strerror(errno));
			return false;
		}
		r->state_dir = stoat_xstrdup(templ);
		snprintf(db_dir, sizeof db_dir, "%s/rocksdb", templ);
		so.dir = db_dir;
	}
	char err[1024];
	r->driver.state = stoat_state_open(app, &r->driver, &so, err, sizeof err);
	if (!r->driver.state) {
		fprintf(stderr, "%s: error: %s\n", app->app_id, err);
		return false;
	}
	return true;
}

/* Closes the stores and removes the temporary directory. */
static void replay_state_close(stoat_replay *r)
{
	stoat_state_close(r->driver.state);
	r->driver.state = NULL;
	if (r->state_dir) {
		nftw(r->state_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(r->state_dir);
		r->state_dir = NULL;
	}
}

/* Checks the application table before anything runs. */
static bool app_valid(const stoat_app *app)
{
	if (app->source_count == 0) {
		fprintf(stderr, "%s: error: the application has no sources\n", app->app_id);
		return false;
	}
	for (size_t i = 0; i < app->source_count; i++) {
		if (app->sources[i].topic == NULL || app->sources[i].pipeline == NULL) {
			fprintf(stderr, "%s: error: source %zu has no topic or pipeline\n", app->app_id, i);
			return false;
		}
	}
	return true;
}

/* Runs the replay driver with parsed options; returns the exit status. */
int stoat_replay_run(const stoat_app *app, const stoat_replay_options *opt)
{
	assert(opt->batch_max > 0);
	if (!app_valid(app))
		return STOAT_EXIT_USAGE;
	stoat_replay *r = stoat_xcalloc(1, sizeof *r);
	r->driver.ops = &replay_driver_ops;
	r->driver.app = app;
	r->driver.policy_override = opt->policy_override;
	r->driver.dlq_override = opt->dlq_override;
	r->app = app;
	r->opt = opt;
	stoat_buf_init(&r->out);
	stoat_ctx_init(&r->check_cx, app, &r->driver);
	r->tasks = stoat_xcalloc(app->source_count, sizeof *r->tasks);
	for (size_t i = 0; i < app->source_count; i++) {
		stoat_ctx_init(&r->tasks[i], app, &r->driver);
		r->tasks[i].source = &app->sources[i];
	}
	r->batch = stoat_xcalloc(opt->batch_max, sizeof *r->batch);
	r->batch_partition_given = stoat_xcalloc(opt->batch_max, sizeof *r->batch_partition_given);
	r->sink_topic = stoat_xcalloc(app->sink_count, sizeof *r->sink_topic);
	r->sink_reader = stoat_xcalloc(app->sink_count, sizeof *r->sink_reader);
	for (size_t i = 0; i < app->sink_count; i++) {
		r->sink_reader[i] = SIZE_MAX;
		for (size_t j = 0; app->sinks[i].internal && j < app->source_count; j++)
			if (app->sources[j].internal && strcmp(app->sources[j].topic, app->sinks[i].topic) == 0)
				r->sink_reader[i] = j;
	}
	for (size_t i = 0; i < app->sink_count; i++) {
		const char *t = app->sinks[i].topic;
		r->sink_topic[i] = t ? topic_lookup(r, (stoat_str){ t, strlen(t) }) : SIZE_MAX;
	}
	r->input_count = opt->input_count;
	r->inputs = stoat_xcalloc(opt->input_count, sizeof *r->inputs);

	int status = STOAT_EXIT_OK;
	size_t opened = 0;
	for (; opened < opt->input_count; opened++) {
		replay_input *in = &r->inputs[opened];
		in->path = opt->inputs[opened];
		in->next_line_no = 1;
		stoat_ctx_init(&in->pcx, app, &r->driver);
		if (!input_open(in)) {
			stoat_ctx_free(&in->pcx);
			status = STOAT_EXIT_IO;
			break;
		}
	}
	if (status == STOAT_EXIT_OK) {
		if (opt->output_path) {
			r->out_file = fopen(opt->output_path, "w");
			r->out_name = opt->output_path;
			if (r->out_file == NULL) {
				fprintf(stderr, "%s: error: cannot open for writing: %s\n", opt->output_path,
					strerror(errno));
				status = STOAT_EXIT_IO;
			}
		} else {
			r->out_file = stdout;
			r->out_name = "standard output";
		}
	}
	if (status == STOAT_EXIT_OK && !replay_state_open(r))
		status = STOAT_EXIT_IO;
	if (status == STOAT_EXIT_OK) {
		status = replay_loop(r);
		output_flush(r);
		bool write_failed = fflush(r->out_file) != 0 || ferror(r->out_file);
		if (r->out_file != stdout && fclose(r->out_file) != 0)
			write_failed = true;
		if (write_failed) {
			fprintf(stderr, "%s: error: cannot write %s: %s\n", app->app_id, r->out_name,
				strerror(errno));
			status = STOAT_EXIT_IO;
		}
		stoat_counters total = stoat_counters_sum(app, r->tasks, app->source_count,
							   r->driver.state ? stoat_state_flush_ctx(r->driver.state) : NULL);
		if (opt->stats || status == STOAT_EXIT_RECORD_FAILED || r->driver.skip_warnings_hidden)
			stoat_print_summary(stderr, &r->driver, &total);
	}

	for (size_t i = 0; i < opened; i++) {
		input_close(&r->inputs[i]);
		stoat_ctx_free(&r->inputs[i].pcx);
	}
	for (size_t i = 0; i < app->source_count; i++)
		stoat_ctx_free(&r->tasks[i]);
	replay_state_close(r);
	stoat_ctx_free(&r->check_cx);
	for (size_t i = 0; i < r->topic_count; i++)
		free(r->topics[i].name);
	free(r->topics);
	free(r->topic_index);
	free(r->sink_topic);
	free(r->sink_reader);
	free(r->batch);
	free(r->batch_partition_given);
	free(r->inputs);
	free(r->tasks);
	free(r->in_offsets.slots);
	free(r->out_offsets.slots);
	stoat_buf_free(&r->out);
	free(r);
	return status;
}
