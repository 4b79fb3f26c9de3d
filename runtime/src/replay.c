/*
 * replay.c - the replay driver: reads records from JSON-lines files, feeds
 * them to the pipelines in the order a Kafka Streams task takes them
 * (offset order within a partition, the smallest head timestamp first
 * across partitions), runs what the application writes to its own
 * repartition topics as TopologyTestDriver does, and writes the emitted
 * records as JSON lines.  It is the test driver and the micro-benchmark
 * harness, so the per-record path avoids allocation: input files are
 * mapped (or read) whole, a first pass notes where each partition's
 * records are, envelopes are parsed in place with slices into the file,
 * and decoded data lives in arenas reset per batch.  The format and the
 * order are documented in docs/replay-format.md.
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

/* One input file, mapped (or read) whole. */
typedef struct replay_input {
	const char *path;
	const char *data;
	size_t size;
	bool mapped; /* data is mmap'd (else malloc'd) */
} replay_input;

/* Where one input record is, found by the first pass (input_scan). */
typedef struct input_rec {
	uint64_t at;       /* byte offset of its line in the file */
	uint32_t len;      /* the line's length, without \r\n */
	uint32_t input;    /* the file: index into inputs */
	uint64_t line_no;
	int64_t timestamp; /* its "timestamp": orders it among the heads */
} input_rec;

/*
 * The records of one topic-partition in one input file, in file order:
 * a partition's queue, whose head competes with the other queues' heads.
 */
typedef struct input_queue {
	size_t source;
	int32_t partition;
	input_rec *recs;
	size_t count, cap;
	size_t next; /* the head: recs[next] */
} input_queue;

/*
 * A record the application wrote to one of its repartition topics,
 * waiting to be read back by the internal source of that topic (its
 * bytes copied into the driver's internal arena).
 */
typedef struct internal_rec {
	stoat_msg msg;
	uint64_t seq; /* the order the records were written in */
} internal_rec;

/* The waiting records of one partition of one repartition topic. */
typedef struct internal_queue {
	size_t source; /* the internal source reading the topic */
	int32_t partition;
	internal_rec *recs;
	size_t count, cap;
	size_t next; /* the head: recs[next] */
} internal_queue;

typedef struct stoat_replay stoat_replay;

/* The replay driver: stoat_driver first (see STOAT_CONTAINER_OF). */
struct stoat_replay {
	stoat_driver driver;
	const stoat_app *app;
	const stoat_replay_options *opt;
	replay_input *inputs;
	size_t input_count;
	input_queue *queues; /* every input topic-partition of every file */
	size_t queue_count, queue_cap;
	size_t *heap; /* queues with records left, as a heap (queue_before) */
	size_t heap_len;
	stoat_ctx pcx;                /* parses the records of a batch */
	stoat_envelope_cache pcache;  /* the last topic pcx saw and its source */
	internal_queue *iqueues; /* per (internal source, partition) seen */
	size_t iqueue_count, iqueue_cap;
	offset_map iqueue_index; /* (source, partition) -> index + 1 */
	size_t *iheap; /* non-empty internal queues, as Kafka Streams' heap */
	size_t iheap_len;
	size_t iwaiting; /* internal records not yet read back */
	uint64_t iseq;   /* internal records written so far */
	stoat_arena iarena; /* their bytes; reset when none is waiting */
	bool has_internal; /* the application writes repartition topics */
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

/* ------------------------------------------------------------------ */
/* Repartition topics: read back as TopologyTestDriver does            */
/* ------------------------------------------------------------------ */

/* True when the head of internal queue a comes before that of b: the
 * smaller timestamp, on a tie the record written first. */
static bool iqueue_before(const stoat_replay *r, size_t a, size_t b)
{
	const internal_queue *qa = &r->iqueues[a], *qb = &r->iqueues[b];
	assert(qa->next < qa->count && qb->next < qb->count);
	const internal_rec *x = &qa->recs[qa->next], *y = &qb->recs[qb->next];
	if (x->msg.timestamp != y->msg.timestamp)
		return x->msg.timestamp < y->msg.timestamp;
	return x->seq < y->seq;
}

/* Adds internal queue i (not empty) to the heap. */
static void iheap_offer(stoat_replay *r, size_t i)
{
	size_t k = r->iheap_len++;
	while (k > 0 && iqueue_before(r, i, r->iheap[(k - 1) / 2])) {
		r->iheap[k] = r->iheap[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	r->iheap[k] = i;
}

/* Removes and returns the internal queue whose head comes next. */
static size_t iheap_poll(stoat_replay *r)
{
	assert(r->iheap_len > 0);
	size_t top = r->iheap[0];
	size_t n = --r->iheap_len;
	if (n == 0)
		return top;
	size_t x = r->iheap[n], k = 0;
	for (;;) {
		size_t c = 2 * k + 1;
		if (c >= n)
			break;
		if (c + 1 < n && iqueue_before(r, r->iheap[c + 1], r->iheap[c]))
			c++;
		if (!iqueue_before(r, r->iheap[c], x))
			break;
		r->iheap[k] = r->iheap[c];
		k = c;
	}
	r->iheap[k] = x;
	return top;
}

/* The queue of (internal source, partition), made on first use. */
static size_t iqueue_get(stoat_replay *r, size_t source, int32_t partition)
{
	int64_t *slot = offset_map_get(&r->iqueue_index, partition_key(source, partition));
	if (*slot)
		return (size_t)(*slot - 1);
	if (r->iqueue_count == r->iqueue_cap) {
		r->iqueue_cap = r->iqueue_cap ? r->iqueue_cap * 2 : 8;
		r->iqueues = stoat_xrealloc(r->iqueues, r->iqueue_cap, sizeof *r->iqueues);
		r->iheap = stoat_xrealloc(r->iheap, r->iqueue_cap, sizeof *r->iheap);
	}
	size_t i = r->iqueue_count++;
	r->iqueues[i] = (internal_queue){ .source = source, .partition = partition };
	*slot = (int64_t)i + 1;
	return i;
}

/*
 * A record written to a repartition topic waits to be read back by the
 * internal source of that topic, with a copy of its bytes and of the
 * headers of the record being processed, and the timestamp the sink
 * wrote (as Kafka would carry it).  replay_drain reads it back.
 */
static void replay_internal(stoat_replay *r, stoat_ctx *cx, int sink, int32_t partition, int64_t offset,
			    stoat_str key, stoat_str value)
{
	size_t src = r->sink_reader[sink];
	if (src == SIZE_MAX) {
		stoat_error(cx, "internal error: no source reads the repartition topic %s", r->app->sinks[sink].topic);
		return;
	}
	size_t qi = iqueue_get(r, src, partition); /* may move r->iqueues */
	internal_queue *q = &r->iqueues[qi];
	if (q->count == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 16;
		q->recs = stoat_xrealloc(q->recs, q->cap, sizeof *q->recs);
	}
	q->recs[q->count].seq = r->iseq++;
	stoat_msg *m = &q->recs[q->count].msg;
	memset(m, 0, sizeof *m);
	m->partition = partition;
	m->offset = offset;
	m->timestamp = cx->timestamp;
	m->key = key.ptr ? stoat_arena_strdup(&r->iarena, key) : key;
	m->value = value.ptr ? stoat_arena_strdup(&r->iarena, value) : value;
	const stoat_msg *in = cx->msg;
	if (in && in->header_count) {
		stoat_header *h = stoat_arena_alloc(&r->iarena, in->header_count * sizeof *h);
		for (size_t i = 0; i < in->header_count; i++) {
			h[i].key = stoat_arena_strdup(&r->iarena, in->headers[i].key);
			h[i].value = in->headers[i].value.ptr ? stoat_arena_strdup(&r->iarena, in->headers[i].value)
							      : in->headers[i].value;
		}
		m->headers = h;
		m->header_count = in->header_count;
	}
	bool was_empty = q->next == q->count;
	q->count++;
	r->iwaiting++;
	if (was_empty)
		iheap_offer(r, qi);
}

/*
 * Reads back every waiting repartition record, one at a time, each
 * through its internal source's pipeline to completion; what they write
 * to repartition topics waits in turn.  The next record is the head of
 * the queue at the root of the heap; that queue goes back into the heap
 * before its record runs, as in Kafka Streams' PartitionGroup.  Called
 * after every input record (and every flush), so the records an input
 * record leads to run before the next input record, as in
 * TopologyTestDriver.  False when one of them hit the fail policy.
 */
static bool replay_drain(stoat_replay *r)
{
	while (r->iheap_len > 0) {
		size_t i = iheap_poll(r);
		internal_queue *q = &r->iqueues[i];
		stoat_msg m = q->recs[q->next++].msg;
		r->iwaiting--;
		if (q->next < q->count)
			iheap_offer(r, i);
		else
			q->next = q->count = 0;
		stoat_ctx *ic = &r->tasks[q->source];
		ic->source = &r->app->sources[q->source];
		ic->msg = NULL;
		ic->error = false;
		ic->source->pipeline(ic, &m, 1);
		ic->msg = NULL;
		stoat_arena_reset(&ic->arena);
		if (ic->stopped) {
			r->internal_stopped = true;
			return false;
		}
	}
	assert(r->iwaiting == 0);
	stoat_arena_reset(&r->iarena);
	return true;
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
 * The first pass over input file `index`: notes every record's line,
 * file position and timestamp in the queue of its topic-partition in this
 * file (each line looked at quickly: stoat_scan_envelope).  Prints
 * "<file>:<line>: error: ..." and returns false for a malformed line.
 */
static bool input_scan(stoat_replay *r, uint32_t index)
{
	const replay_input *in = &r->inputs[index];
	stoat_ctx scx;
	stoat_ctx_init(&scx, r->app, &r->driver);
	stoat_envelope_cache cache = { 0 };
	offset_map queue_of = { 0 }; /* (source, partition) -> queue index + 1 */
	bool ok = true;
	size_t at = 0;
	for (uint64_t line_no = 1; at < in->size; line_no++) {
		const char *start = in->data + at;
		size_t left = in->size - at;
		const char *nl = memchr(start, '\n', left);
		size_t len = nl ? (size_t)(nl - start) : left;
		size_t line_at = at;
		at += nl ? len + 1 : len;
		stoat_str line = { start, len };
		if (len && start[len - 1] == '\r')
			line.len--;
		if (line_blank(line))
			continue;
		stoat_envelope env;
		if (line.len > UINT32_MAX) {
			fprintf(stderr, "%s:%" PRIu64 ": error: the line is longer than 4 GiB\n", in->path, line_no);
			ok = false;
			break;
		}
		if (!stoat_scan_envelope(r->app, &scx, &cache, line, &env)) {
			fprintf(stderr, "%s:%" PRIu64 ": error: %s\n", in->path, line_no, scx.error_message);
			ok = false;
			break;
		}
		stoat_arena_reset(&scx.arena);
		int64_t *slot = offset_map_get(&queue_of, partition_key(env.source, env.msg.partition));
		if (*slot == 0) {
			if (r->queue_count == r->queue_cap) {
				r->queue_cap = r->queue_cap ? r->queue_cap * 2 : 8;
				r->queues = stoat_xrealloc(r->queues, r->queue_cap, sizeof *r->queues);
			}
			r->queues[r->queue_count] = (input_queue){ .source = env.source, .partition = env.msg.partition };
			*slot = (int64_t)++r->queue_count;
		}
		input_queue *q = &r->queues[*slot - 1];
		if (q->count == q->cap) {
			q->cap = q->cap ? q->cap * 2 : 64;
			q->recs = stoat_xrealloc(q->recs, q->cap, sizeof *q->recs);
		}
		q->recs[q->count++] = (input_rec){ .at = line_at, .len = (uint32_t)line.len, .input = index,
						   .line_no = line_no, .timestamp = env.msg.timestamp };
	}
	free(queue_of.slots);
	stoat_ctx_free(&scx);
	return ok;
}

/*
 * True when the head of queue a comes before the head of queue b: the
 * smaller timestamp (Kafka Streams' PartitionGroup takes the partition
 * whose head has the smallest timestamp); on a tie the record given
 * first (earlier file on the command line, then earlier line), as it
 * would be piped into TopologyTestDriver.
 */
static bool queue_before(const stoat_replay *r, size_t a, size_t b)
{
	const input_rec *x = &r->queues[a].recs[r->queues[a].next];
	const input_rec *y = &r->queues[b].recs[r->queues[b].next];
	if (x->timestamp != y->timestamp)
		return x->timestamp < y->timestamp;
	if (x->input != y->input)
		return x->input < y->input;
	return x->line_no < y->line_no;
}

/* True when input queue q reads a global table's topic (kept out of the heap). */
static bool queue_global(const stoat_replay *r, size_t q)
{
	return r->app->sources[r->queues[q].source].global;
}

/* True when the head of queue a was given before the head of queue b (file, then line). */
static bool queue_given_before(const stoat_replay *r, size_t a, size_t b)
{
	const input_rec *x = &r->queues[a].recs[r->queues[a].next];
	const input_rec *y = &r->queues[b].recs[r->queues[b].next];
	if (x->input != y->input)
		return x->input < y->input;
	return x->line_no < y->line_no;
}

/*
 * The global-table queue whose head was given first, if it comes before
 * every other queue's head (global or not) in input order, else SIZE_MAX.
 * Global tables' records are applied in input order, each before any
 * record given after it, as piping them into TopologyTestDriver does
 * (docs/replay-format.md): their timestamps play no part.
 */
static size_t global_next(const stoat_replay *r)
{
	size_t best = SIZE_MAX;
	for (size_t q = 0; q < r->queue_count; q++)
		if (queue_global(r, q) && r->queues[q].next < r->queues[q].count &&
		    (best == SIZE_MAX || queue_given_before(r, q, best)))
			best = q;
	if (best != SIZE_MAX && r->heap_len > 0 && !queue_given_before(r, best, r->heap[0]))
		return SIZE_MAX;
	return best;
}

/* True when some global-table queue's head was given before queue q's head. */
static bool global_before_queue(const stoat_replay *r, size_t q)
{
	for (size_t g = 0; g < r->queue_count; g++)
		if (queue_global(r, g) && r->queues[g].next < r->queues[g].count && queue_given_before(r, g, q))
			return true;
	return false;
}

/* Adds input queue q (with records left) to the heap. */
static void heap_push(stoat_replay *r, size_t q)
{
	size_t k = r->heap_len++;
	while (k > 0 && queue_before(r, q, r->heap[(k - 1) / 2])) {
		r->heap[k] = r->heap[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	r->heap[k] = q;
}

/* Removes and returns the queue whose head comes next. */
static size_t heap_pop(stoat_replay *r)
{
	assert(r->heap_len > 0);
	size_t top = r->heap[0];
	size_t x = r->heap[--r->heap_len];
	size_t n = r->heap_len, k = 0;
	for (;;) {
		size_t c = 2 * k + 1;
		if (c >= n)
			break;
		if (c + 1 < n && queue_before(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!queue_before(r, r->heap[c], x))
			break;
		r->heap[k] = r->heap[c];
		k = c;
	}
	if (n > 0)
		r->heap[k] = x;
	return top;
}

/*
 * Parses the head record of queue q into *m (bytes in r->pcx's arena)
 * and removes it, numbering it if the line gave no offset.  False after
 * printing "<file>:<line>: error: ..." for a line the first pass let
 * through but the full parse rejects (a bad payload).
 */
static bool take_head(stoat_replay *r, input_queue *q, stoat_msg *m, bool *partition_given)
{
	const input_rec *rec = &q->recs[q->next];
	const replay_input *in = &r->inputs[rec->input];
	stoat_envelope env;
	if (!stoat_parse_envelope(r->app, &r->pcx, &r->pcache, (stoat_str){ in->data + rec->at, rec->len }, &env)) {
		fprintf(stderr, "%s:%" PRIu64 ": error: %s\n", in->path, rec->line_no, r->pcx.error_message);
		return false;
	}
	assert(env.source == q->source && env.msg.partition == q->partition && env.msg.timestamp == rec->timestamp);
	q->next++;
	*m = env.msg;
	*partition_given = env.partition_given;
	int64_t *next = offset_map_get(&r->in_offsets, partition_key(q->source, m->partition));
	if (!env.offset_given)
		m->offset = *next;
	/* The largest offset is accepted; numbering after it stays there. */
	*next = m->offset < INT64_MAX ? m->offset + 1 : INT64_MAX;
	return true;
}

/*
 * The replay driver commits after every batch: the pre-aggregation
 * buffers write their partials to the repartition topics, which are read
 * back; the record caches flush (running what is downstream of the
 * stores, and then what that wrote to repartition topics, until nothing
 * is left) and the stores apply their writes.  False if a flushed update
 * failed under the fail policy.
 */
static bool replay_commit(stoat_replay *r)
{
	stoat_state *st = r->driver.state;
	size_t n = r->app->preagg_count ? r->app->source_count : 0;
	for (;;) {
		/* The partials of the tasks (and of the flush context: changes
		 * the record cache held back may feed a pre-aggregation). */
		for (size_t i = 0; i <= n && r->app->preagg_count; i++) {
			stoat_ctx *cx = i < n ? &r->tasks[i] : st ? stoat_state_flush_ctx(st) : NULL;
			if (cx && !stoat_preagg_flush(cx)) {
				fprintf(stderr, "%s: error: writing the pre-aggregated records: %s\n", r->app->app_id,
					cx->error_message);
				return false;
			}
		}
		/* What was written to repartition topics runs, and may update
		 * cached keys and partials again. */
		if (r->iwaiting && !replay_drain(r))
			return false;
		if (!st)
			return true;
		if (!stoat_state_flush(st))
			return false;
		bool pending = r->iwaiting > 0;
		for (size_t i = 0; i <= n && !pending; i++)
			pending = stoat_preagg_pending(i < n ? &r->tasks[i] : stoat_state_flush_ctx(st));
		if (!pending)
			break;
	}
	char err[512];
	if (!stoat_state_commit(st, err, sizeof err)) {
		fprintf(stderr, "%s: error: %s\n", r->app->app_id, err);
		return false;
	}
	return true;
}

/*
 * Runs a batch of records of one topic-partition through its source's
 * pipeline, with the stream time of the task (sub-topology, partition).
 * When the application writes repartition topics, the records go one at
 * a time, each followed by what it wrote there (replay_drain).
 */
static void run_batch(stoat_replay *r, stoat_ctx *cx, size_t n)
{
	cx->source = &r->app->sources[cx - r->tasks];
	cx->msg = NULL;
	cx->error = false;
	if (r->opt->batch_hook) {
		r->opt->batch_hook(r->opt->hook_arg, cx, r->batch, r->batch_partition_given, n);
	} else if (!r->has_internal) {
		cx->source->pipeline(cx, r->batch, n);
	} else {
		for (size_t i = 0; i < n && !cx->stopped; i++) {
			cx->source->pipeline(cx, &r->batch[i], 1);
			if (!cx->stopped && !replay_drain(r))
				break;
		}
	}
	cx->msg = NULL;
	stoat_arena_reset(&cx->arena);
}

/*
 * The main loop: repeatedly take a batch (consecutive records from the
 * queue whose head comes next, while its head still comes first), run
 * it, and reset the arenas.  Returns the exit status.
 */
static int replay_loop(stoat_replay *r)
{
	for (uint32_t i = 0; i < r->input_count; i++)
		if (!input_scan(r, i))
			return STOAT_EXIT_IO;
	r->heap = stoat_xcalloc(r->queue_count ? r->queue_count : 1, sizeof *r->heap);
	size_t nglobal = 0;
	for (size_t q = 0; q < r->queue_count; q++) {
		if (queue_global(r, q))
			nglobal++;
		else
			heap_push(r, q);
	}
	for (;;) {
		size_t gi = nglobal ? global_next(r) : SIZE_MAX;
		if (gi == SIZE_MAX && r->heap_len == 0)
			break;
		size_t qi = gi != SIZE_MAX ? gi : heap_pop(r);
		input_queue *q = &r->queues[qi];
		size_t n = 0;
		bool bad = false;
		if (gi != SIZE_MAX) {
			/* A global table's records, while they come first in input order. */
			do {
				if (!take_head(r, q, &r->batch[n], &r->batch_partition_given[n])) {
					bad = true;
					break;
				}
				n++;
			} while (n < r->opt->batch_max && q->next < q->count && global_next(r) == qi);
		} else {
			do {
				if (!take_head(r, q, &r->batch[n], &r->batch_partition_given[n])) {
					bad = true;
					break;
				}
				n++;
			} while (n < r->opt->batch_max && q->next < q->count &&
				 (r->heap_len == 0 || queue_before(r, qi, r->heap[0])) &&
				 (nglobal == 0 || !global_before_queue(r, qi)));
			if (q->next < q->count)
				heap_push(r, qi);
		}

		stoat_ctx *cx = &r->tasks[q->source];
		if (n > 0)
			run_batch(r, cx, n);
		/* The batch's envelope data goes. */
		stoat_arena_reset(&r->pcx.arena);
		if (cx->stopped || r->internal_stopped)
			return STOAT_EXIT_RECORD_FAILED;
		if (!replay_commit(r))
			return STOAT_EXIT_RECORD_FAILED;
		if (bad)
			return STOAT_EXIT_IO;
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
 * The directory of replay --state-dir base: base/<app_id>/default,
 * created (0700, state_dir.c) and holding no database yet, into db_dir.
 * False after a message.
 */
static bool replay_kept_dir(const stoat_app *app, const char *base, char *db_dir, size_t size)
{
	if (snprintf(db_dir, size, "%s/%s/default", base, app->app_id) >= (int)size) {
		fprintf(stderr, "%s: error: the state directory %s/%s/default is too long\n", app->app_id, base,
			app->app_id);
		return false;
	}
	size_t tightened = 0;
	if (!stoat_state_make_dir(base, db_dir, &tightened)) {
		fprintf(stderr, "%s: error: cannot create the state directory %s: %s\n", app->app_id, db_dir,
			strerror(errno));
		return false;
	}
	char current[4300];
	snprintf(current, sizeof current, "%s/CURRENT", db_dir);
	if (access(current, F_OK) == 0) {
		fprintf(stderr, "%s: error: %s already holds a state database: replay starts from empty stores (remove "
			"it, or give another --state-dir)\n", app->app_id, db_dir);
		return false;
	}
	return true;
}

/*
 * Opens the application's stores: RocksDB in a fresh temporary directory
 * or in the directory of --state-dir, kept (or hash maps with --state
 * memory).  False after a message.
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
	if (r->opt->state_dir) {
		if (!replay_kept_dir(app, r->opt->state_dir, db_dir, sizeof db_dir))
			return false;
		so.dir = db_dir;
	} else if (!r->opt->state_in_memory) {
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
	for (size_t i = 0; i < app->sink_count; i++)
		if (app->sinks[i].internal)
			r->has_internal = true;
	stoat_ctx_init(&r->pcx, app, &r->driver);
	stoat_arena_init(&r->iarena);
	r->input_count = opt->input_count;
	r->inputs = stoat_xcalloc(opt->input_count, sizeof *r->inputs);

	int status = STOAT_EXIT_OK;
	size_t opened = 0;
	for (; opened < opt->input_count; opened++) {
		replay_input *in = &r->inputs[opened];
		in->path = opt->inputs[opened];
		if (opened >= UINT32_MAX) {
			fprintf(stderr, "%s: error: too many input files\n", app->app_id);
			status = STOAT_EXIT_USAGE;
			break;
		}
		if (!input_open(in)) {
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
		char err[1024];
		/* `load` (a batch hook) runs no pipeline: it needs no registry. */
		if (!opt->batch_hook && !stoat_avro_open(app, &opt->avro, NULL, err, sizeof err)) {
			fprintf(stderr, "%s: error: %s\n", app->app_id, err);
			status = STOAT_EXIT_IO;
		}
	}
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

	stoat_avro_close();
	for (size_t i = 0; i < opened; i++)
		input_close(&r->inputs[i]);
	for (size_t i = 0; i < r->queue_count; i++)
		free(r->queues[i].recs);
	free(r->queues);
	free(r->heap);
	for (size_t i = 0; i < r->iqueue_count; i++)
		free(r->iqueues[i].recs);
	free(r->iqueues);
	free(r->iheap);
	free(r->iqueue_index.slots);
	stoat_arena_free(&r->iarena);
	stoat_ctx_free(&r->pcx);
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
