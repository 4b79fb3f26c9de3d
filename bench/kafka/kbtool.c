/*
 * kbtool.c - small librdkafka helpers for bench/run-kafka (no JVM start-up
 * per call, unlike scripts/kafka's tools).
 *
 *   kbtool create BOOTSTRAP PARTITIONS TOPIC...   create topics (replication 1, no
 *                                                 time-based retention: see below)
 *   kbtool delete BOOTSTRAP TOPIC...              delete topics (missing ones are fine)
 *   kbtool count  BOOTSTRAP TOPIC                 read the whole topic, read_committed,
 *                                                 print "RECORDS DIGEST"
 *   kbtool final  BOOTSTRAP TOPIC                 the same, but the table the topic ends
 *                                                 in: print "KEYS DIGEST" over each key's
 *                                                 last value (a key lives in one partition)
 *   kbtool windows BOOTSTRAP TOPIC SIZE ADVANCE GRACE [final]
 *                                                 the reference for a windowed count of the
 *                                                 input TOPIC (keyed records, event time =
 *                                                 record timestamp), computed here from the
 *                                                 input alone: "WINDOWS DIGEST" as `final`
 *                                                 prints it for the count's output topic
 *                                                 (windowed keys, i64 counts); see below
 *   kbtool stjoin BOOTSTRAP STREAM TABLE          the reference for the stream-table left join
 *                                                 of bench/kafka/join_stream_table.stoat:
 *                                                 "RECORDS DIGEST" as `count` prints it for
 *                                                 the join's output; see below
 *   kbtool ssjoin BOOTSTRAP LEFT RIGHT WINDOW     the reference for the stream-stream inner
 *                                                 join of join_stream_stream.stoat, within
 *                                                 WINDOW ms: "RECORDS DIGEST" as `count`
 *                                                 prints it; see below
 *   kbtool dump BOOTSTRAP TOPIC                   print the whole topic, read_committed, one
 *                                                 JSON line per record: {"topic":T,
 *                                                 "partition":P,"offset":O,"timestamp":TS,
 *                                                 "key":K,"value":V}, K and V the bytes as
 *                                                 JSON strings (null for none), each
 *                                                 partition's records in offset order (the
 *                                                 Nexmark checks: tests/nexmark/reference.py
 *                                                 --kafka)
 *   kbtool load BOOTSTRAP TOPIC < LINES           produce one record per line of stdin,
 *                                                 KEY TAB VALUE (text; the key partitioned
 *                                                 as Java clients do), timestamp 0; print
 *                                                 the count (q13's side input)
 *
 * DIGEST is an order-independent digest of the records' keys and values
 * (the sum of a 64-bit hash of each), so a passthrough's output can be
 * compared with its input as a multiset; transaction markers and aborted
 * records are not counted (read_committed).
 *
 * `windows` follows Kafka Streams' time windows (TimeWindows.ofSizeAndGrace,
 * in milliseconds; tumbling when ADVANCE = SIZE): a record at t belongs to
 * every window [start, start + SIZE) with start a multiple of ADVANCE, start
 * >= 0, start <= t < start + SIZE; per input partition (one task each, the
 * count is by the record's own key) stream time is the largest timestamp
 * seen so far, advanced before the record, and the record updates a window
 * only if its end + GRACE > stream time.  The key on the wire is Kafka
 * Streams' TimeWindowedSerializer's: key bytes + the start as 8 bytes big
 * endian; the count is a LongSerde i64.  With `final` (emit on window close),
 * only the windows closed at the end are expected: end + GRACE <= the
 * partition's final stream time.
 *
 * `stjoin` reads the table topic whole first (each key's last value, a
 * tombstone deleting it), then the stream: every stream record gives one
 * output record with its key and the value STREAM-VALUE ":" TABLE-VALUE, or
 * STREAM-VALUE ":none" when the table holds nothing for its key.  That is
 * the join's output when every table record is processed before the first
 * stream record (bench/run makes sure of it, see bench/README.md).
 *
 * `ssjoin` gives every pair (left record, right record) of one key with
 * |t_left - t_right| <= WINDOW, value LEFT-VALUE ":" RIGHT-VALUE: the inner
 * join's result when no record's partner has left its store before the
 * record came (the stores' retention covers the input's whole time span,
 * see bench/README.md).  Each pair once, in any order.
 *
 * The benchmark's records carry fixed timestamps (bench/micro/gen.py's, in
 * 2026), so its topics are created with retention.ms=-1 (time-based
 * retention would delete the records under a running benchmark a week
 * later) and message.timestamp.after.max.ms at its maximum (Kafka 4
 * rejects timestamps more than an hour ahead of the broker's clock).
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <inttypes.h>
#include <stdbool.h>
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "kbtool"
#include "tool.h"

/* 64-bit FNV-1a, eight bytes at a time folded in (fast enough for 1 GB). */
static uint64_t hash(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h ^ (h >> 32);
}

static int admin(const char *cmd, const char *bootstrap, int partitions, char **topics, int n)
{
	char err[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	set(conf, "bootstrap.servers", bootstrap);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
	if (!rk)
		die("client", err);
	rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
	rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_ANY);
	rd_kafka_AdminOptions_set_operation_timeout(opt, 30000, err, sizeof err);
	if (!strcmp(cmd, "create")) {
		rd_kafka_NewTopic_t **nt = calloc((size_t)n, sizeof *nt);
		for (int i = 0; i < n; i++)
			if (!(nt[i] = rd_kafka_NewTopic_new(topics[i], partitions, 1, err, sizeof err)) ||
			    rd_kafka_NewTopic_set_config(nt[i], "retention.ms", "-1") ||
			    rd_kafka_NewTopic_set_config(nt[i], "message.timestamp.after.max.ms", "9223372036854775807"))
				die(topics[i], nt[i] ? "cannot set the topic's configuration" : err);
		rd_kafka_CreateTopics(rk, nt, (size_t)n, opt, q);
	} else {
		rd_kafka_DeleteTopic_t **dt = calloc((size_t)n, sizeof *dt);
		for (int i = 0; i < n; i++)
			dt[i] = rd_kafka_DeleteTopic_new(topics[i]);
		rd_kafka_DeleteTopics(rk, dt, (size_t)n, opt, q);
	}
	rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 60000);
	if (!ev)
		die(cmd, "timed out");
	if (rd_kafka_event_error(ev))
		die(cmd, rd_kafka_event_error_string(ev));
	const rd_kafka_topic_result_t **res;
	size_t cnt;
	if (!strcmp(cmd, "create"))
		res = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &cnt);
	else
		res = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev), &cnt);
	int status = 0;
	for (size_t i = 0; i < cnt; i++) {
		rd_kafka_resp_err_t e = rd_kafka_topic_result_error(res[i]);
		if (e && e != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
			fprintf(stderr, "kbtool: %s %s: %s\n", cmd, rd_kafka_topic_result_name(res[i]), rd_kafka_err2str(e));
			status = 3;
		}
	}
	rd_kafka_event_destroy(ev);
	rd_kafka_AdminOptions_destroy(opt);
	rd_kafka_queue_destroy(q);
	rd_kafka_destroy(rk);
	return status;
}

/* Last value hash per key hash: open addressing, grows at half full. */
typedef struct table {
	uint64_t *keys, *values; /* key hash 0: empty (hashes are made odd) */
	size_t cap, count;
} table;

static void table_put(table *t, uint64_t k, uint64_t v)
{
	if ((t->count + 1) * 2 > t->cap) {
		table old = *t;
		t->cap = old.cap ? old.cap * 2 : 1024;
		t->keys = calloc(t->cap, sizeof *t->keys);
		t->values = calloc(t->cap, sizeof *t->values);
		if (!t->keys || !t->values)
			die("final", "out of memory");
		t->count = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i])
				table_put(t, old.keys[i], old.values[i]);
		free(old.keys);
		free(old.values);
	}
	size_t i = (size_t)k & (t->cap - 1);
	while (t->keys[i] && t->keys[i] != k)
		i = (i + 1) & (t->cap - 1);
	if (!t->keys[i]) {
		t->keys[i] = k;
		t->count++;
	}
	t->values[i] = v;
}

/*
 * A read_committed consumer (group id group, never committing) assigned
 * every partition of topic from its beginning, with partition EOF events;
 * queued_min sets queued.min.messages (NULL: librdkafka's default).
 * *partitions is the topic's partition count.
 */
static rd_kafka_t *open_from_start(const char *bootstrap, const char *topic, const char *group,
				   const char *queued_min, int *partitions)
{
	char err[512];
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	set(conf, "bootstrap.servers", bootstrap);
	set(conf, "group.id", group);
	set(conf, "enable.auto.commit", "false");
	set(conf, "enable.partition.eof", "true");
	set(conf, "isolation.level", "read_committed");
	if (queued_min)
		set(conf, "queued.min.messages", queued_min);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
	if (!rk)
		die("consumer", err);
	rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
	const struct rd_kafka_metadata *md;
	rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
	if (e || md->topic_cnt != 1 || md->topics[0].err)
		die(topic, rd_kafka_err2str(e ? e : md->topics[0].err));
	*partitions = md->topics[0].partition_cnt;
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(*partitions);
	for (int p = 0; p < *partitions; p++)
		rd_kafka_topic_partition_list_add(l, topic, md->topics[0].partitions[p].id)->offset =
			RD_KAFKA_OFFSET_BEGINNING;
	rd_kafka_metadata_destroy(md);
	rd_kafka_topic_destroy(rkt);
	if (rd_kafka_assign(rk, l))
		die(topic, "cannot assign");
	rd_kafka_topic_partition_list_destroy(l);
	return rk;
}

/*
 * Reads rk's assignment (open_from_start's: every partition of topic from
 * its beginning) to the end of each of its partitions, calling each(m, arg)
 * for every record (offset order within a partition), then closes and
 * destroys rk.  A consumer error ends the tool.
 */
static void drain(rd_kafka_t *rk, const char *topic, int partitions,
		  void (*each)(const rd_kafka_message_t *m, void *arg), void *arg)
{
	rd_kafka_queue_t *q = rd_kafka_queue_get_consumer(rk);
	rd_kafka_message_t *msgs[1000];
	int eof_left = partitions;
	while (eof_left > 0) {
		ssize_t n = rd_kafka_consume_batch_queue(q, 1000, msgs, 1000);
		for (ssize_t i = 0; i < n; i++) {
			rd_kafka_message_t *m = msgs[i];
			if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)
				eof_left--;
			else if (m->err)
				die(topic, rd_kafka_message_errstr(m));
			else
				each(m, arg);
			rd_kafka_message_destroy(m);
		}
	}
	rd_kafka_queue_destroy(q);
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
}

/* What count() adds up. */
typedef struct counted {
	bool final;
	uint64_t records, digest;
	table last;
} counted;

/* count()'s step: a record into the digest, or (final) into each key's last value. */
static void count_one(const rd_kafka_message_t *m, void *arg)
{
	counted *c = arg;
	if (c->final) {
		/* A tombstone deletes the key from the table. */
		uint64_t k = hash(m->key, m->key_len, 0xcbf29ce484222325ULL) | 1;
		table_put(&c->last, k, m->payload ? hash(m->payload, m->len, k) | 1 : 0);
	} else {
		c->records++;
		c->digest += hash(m->payload, m->len, hash(m->key, m->key_len, 0xcbf29ce484222325ULL));
	}
}

static int count(const char *bootstrap, const char *topic, bool final)
{
	int partitions;
	rd_kafka_t *rk = open_from_start(bootstrap, topic, "kbtool-count", "200000", &partitions);
	counted c = { .final = final };
	drain(rk, topic, partitions, count_one, &c);
	uint64_t records = c.records, digest = c.digest;
	table last = c.last;
	if (final) {
		for (size_t i = 0; i < last.cap; i++)
			if (last.keys[i] && last.values[i]) {
				records++;
				digest += hash(&last.values[i], sizeof last.values[i], last.keys[i]);
			}
		free(last.keys);
		free(last.values);
	}
	printf("%" PRIu64 " %016" PRIx64 "\n", records, digest);
	return 0;
}

/* Counts per windowed key (by its hash), with the partition and end of each window. */
typedef struct windows {
	uint64_t *keys; /* hash of key + big-endian start, made odd; 0: empty */
	int64_t *counts, *ends;
	int32_t *partitions;
	size_t cap, count;
} windows;

/* The slot of windowed key k, inserted with count 0 when new. */
static size_t windows_slot(windows *w, uint64_t k, int32_t partition, int64_t end)
{
	if ((w->count + 1) * 2 > w->cap) {
		windows old = *w;
		w->cap = old.cap ? old.cap * 2 : 1024;
		w->keys = calloc(w->cap, sizeof *w->keys);
		w->counts = calloc(w->cap, sizeof *w->counts);
		w->ends = calloc(w->cap, sizeof *w->ends);
		w->partitions = calloc(w->cap, sizeof *w->partitions);
		if (!w->keys || !w->counts || !w->ends || !w->partitions)
			die("windows", "out of memory");
		w->count = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i]) {
				size_t slot = windows_slot(w, old.keys[i], old.partitions[i], old.ends[i]);
				w->counts[slot] = old.counts[i];
			}
		free(old.keys);
		free(old.counts);
		free(old.ends);
		free(old.partitions);
	}
	size_t i = (size_t)k & (w->cap - 1);
	while (w->keys[i] && w->keys[i] != k)
		i = (i + 1) & (w->cap - 1);
	if (!w->keys[i]) {
		w->keys[i] = k;
		w->partitions[i] = partition;
		w->ends[i] = end;
		w->count++;
	}
	return i;
}

static void put_be64(unsigned char *p, int64_t v)
{
	for (int i = 7; i >= 0; i--, v = (int64_t)((uint64_t)v >> 8))
		p[i] = (unsigned char)(v & 0xff);
}

/*
 * The reference windowed count of the input topic (see the header): read it
 * whole, read_committed, partition by partition in offset order (stream time
 * is per partition, so the order across partitions does not matter).
 */
/* What reference_windows() reads the input into. */
typedef struct windowing {
	int64_t size, advance, grace;
	int partitions;
	int64_t *stream_time; /* per partition */
	windows w;
	unsigned char *wkey; /* key bytes + big-endian start */
	size_t wkey_cap;
	uint64_t late;
} windowing;

/* reference_windows()'s step: a record counted in each window that takes it. */
static void window_one(const rd_kafka_message_t *m, void *arg)
{
	windowing *x = arg;
	const char *topic = rd_kafka_topic_name(m->rkt);
	int64_t t = rd_kafka_message_timestamp(m, NULL);
	if (t < 0 || !m->key || m->partition < 0 || m->partition >= x->partitions)
		die(topic, "a record without a key or a timestamp");
	int64_t *st = &x->stream_time[m->partition];
	if (t > *st)
		*st = t;
	if (m->key_len + 8 > x->wkey_cap) {
		x->wkey_cap = (m->key_len + 8) * 2;
		if (!(x->wkey = realloc(x->wkey, x->wkey_cap)))
			die("windows", "out of memory");
	}
	memcpy(x->wkey, m->key, m->key_len);
	int64_t size = x->size, advance = x->advance;
	int64_t first = t - size + advance > 0 ? (t - size + advance) / advance * advance : 0;
	for (int64_t start = first; start <= t; start += advance) {
		if (start + size + x->grace <= *st) {
			x->late++;
			continue;
		}
		put_be64(x->wkey + m->key_len, start);
		uint64_t k = hash(x->wkey, m->key_len + 8, 0xcbf29ce484222325ULL) | 1;
		/* The slot first: inserting may move w.counts. */
		size_t slot = windows_slot(&x->w, k, m->partition, start + size);
		x->w.counts[slot]++;
	}
}

static int reference_windows(const char *bootstrap, const char *topic, int64_t size, int64_t advance, int64_t grace,
			     bool final)
{
	int partitions;
	rd_kafka_t *rk = open_from_start(bootstrap, topic, "kbtool-windows", NULL, &partitions);
	int64_t *stream_time = malloc((size_t)partitions * sizeof *stream_time);
	if (!stream_time)
		die("windows", "out of memory");
	for (int p = 0; p < partitions; p++)
		stream_time[p] = -1;
	windowing x = { .size = size, .advance = advance, .grace = grace, .partitions = partitions,
			.stream_time = stream_time };
	drain(rk, topic, partitions, window_one, &x);
	windows w = x.w;
	unsigned char *wkey = x.wkey;
	uint64_t late = x.late;
	/* The digest `final` computes over the output: each windowed key's last value, an i64 count. */
	uint64_t records = 0, digest = 0;
	for (size_t i = 0; i < w.cap; i++) {
		if (!w.keys[i] || (final && w.ends[i] + grace > stream_time[w.partitions[i]]))
			continue;
		unsigned char value[8];
		put_be64(value, w.counts[i]);
		uint64_t v = hash(value, sizeof value, w.keys[i]) | 1;
		records++;
		digest += hash(&v, sizeof v, w.keys[i]);
	}
	fprintf(stderr, "kbtool: windows: %" PRIu64 " (record, window) pairs late\n", late);
	printf("%" PRIu64 " %016" PRIx64 "\n", records, digest);
	free(w.keys);
	free(w.counts);
	free(w.ends);
	free(w.partitions);
	free(wkey);
	free(stream_time);
	return 0;
}

/* A record kept by stjoin and ssjoin: key and value bytes, timestamp. */
typedef struct kept {
	char *key, *value;
	size_t key_len, value_len;
	int64_t ts;
	bool null_key;
} kept;

/* A growing array of kept records. */
typedef struct kept_list {
	kept *v;
	size_t len, cap;
} kept_list;

/* Copies n bytes (NULL for none) with a NUL after them. */
static char *copy_bytes(const void *p, size_t n)
{
	char *c = malloc(n + 1);
	if (!c)
		die("join", "out of memory");
	if (n)
		memcpy(c, p, n);
	c[n] = 0;
	return c;
}

/* Reads the whole topic, read_committed, appending every record to l (a
 * tombstone with value NULL), each partition's in offset order. */
/* read_all()'s step: the record appended to the list. */
static void keep_one(const rd_kafka_message_t *m, void *arg)
{
	kept_list *l = arg;
	if (l->len == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4096;
		if (!(l->v = realloc(l->v, l->cap * sizeof *l->v)))
			die("join", "out of memory");
	}
	kept *k = &l->v[l->len++];
	k->key = copy_bytes(m->key, m->key ? m->key_len : 0);
	k->key_len = m->key ? m->key_len : 0;
	k->null_key = !m->key;
	/* A null value (a tombstone) is kept as value NULL. */
	k->value = m->payload ? copy_bytes(m->payload, m->len) : NULL;
	k->value_len = m->payload ? m->len : 0;
	k->ts = rd_kafka_message_timestamp(m, NULL);
}

static void read_all(const char *bootstrap, const char *topic, kept_list *l)
{
	int partitions;
	rd_kafka_t *rk = open_from_start(bootstrap, topic, "kbtool-join", NULL, &partitions);
	drain(rk, topic, partitions, keep_one, l);
}

/* Frees l's records and array. */
static void free_list(kept_list *l)
{
	for (size_t i = 0; i < l->len; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
}

/* Adds output record (key, a ":" b) to *records and *digest as `count` does. */
static void add_joined(const kept *k, const char *a, size_t a_len, const char *b, size_t b_len, char **buf,
		       size_t *cap, uint64_t *records, uint64_t *digest)
{
	size_t n = a_len + 1 + b_len;
	if (n > *cap) {
		*cap = n * 2;
		if (!(*buf = realloc(*buf, *cap)))
			die("join", "out of memory");
	}
	memcpy(*buf, a, a_len);
	(*buf)[a_len] = ':';
	memcpy(*buf + a_len + 1, b, b_len);
	(*records)++;
	*digest += hash(*buf, n, hash(k->key, k->key_len, 0xcbf29ce484222325ULL));
}

/* Orders kept records by key bytes, then timestamp. */
static int by_key_time(const void *x, const void *y)
{
	const kept *a = x, *b = y;
	size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
	int c = memcmp(a->key, b->key, n);
	if (c)
		return c;
	if (a->key_len != b->key_len)
		return a->key_len < b->key_len ? -1 : 1;
	return (a->ts > b->ts) - (a->ts < b->ts);
}

/* Orders kept records by key bytes only. */
static int key_cmp(const kept *a, const kept *b)
{
	size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
	int c = memcmp(a->key, b->key, n);
	return c ? c : (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

/* key_cmp for bsearch. */
static int by_key(const void *x, const void *y)
{
	return key_cmp(x, y);
}

/*
 * The stream-table left join's reference (see the header).  The table's
 * last value per key: sorted by key, the last record of a key in topic order
 * wins (a key lives in one partition, so its records keep their order).
 */
static int reference_stjoin(const char *bootstrap, const char *stream, const char *table)
{
	kept_list t = { 0 }, s = { 0 };
	read_all(bootstrap, table, &t);
	/* Stable by key: a sort by (key, position) keeps topic order within a key. */
	for (size_t i = 0; i < t.len; i++)
		t.v[i].ts = (int64_t)i;
	qsort(t.v, t.len, sizeof *t.v, by_key_time);
	size_t keys = 0;
	for (size_t i = 0; i < t.len; i++)
		if (i + 1 == t.len || key_cmp(&t.v[i], &t.v[i + 1]))
			t.v[keys++] = t.v[i];
		else {
			free(t.v[i].key);
			free(t.v[i].value);
		}
	t.len = keys;
	read_all(bootstrap, stream, &s);
	uint64_t records = 0, digest = 0, found = 0;
	char *buf = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < s.len; i++) {
		const kept *r = &s.v[i];
		if (!r->value)
			continue; /* dropped by the join */
		/* A null key is passed on with no table value, without a lookup (KIP-962). */
		const kept *hit = r->null_key ? NULL : bsearch(r, t.v, t.len, sizeof *t.v, by_key);
		if (hit && hit->value) {
			found++;
			add_joined(r, r->value, r->value_len, hit->value, hit->value_len, &buf, &cap, &records, &digest);
		} else {
			add_joined(r, r->value, r->value_len, "none", 4, &buf, &cap, &records, &digest);
		}
	}
	fprintf(stderr, "kbtool: stjoin: %" PRIu64 " of %" PRIu64 " records found a table value (%zu table keys)\n",
		found, records, t.len);
	printf("%" PRIu64 " %016" PRIx64 "\n", records, digest);
	free(buf);
	free_list(&t);
	free_list(&s);
	return 0;
}

/* The stream-stream inner join's reference (see the header). */
static int reference_ssjoin(const char *bootstrap, const char *left, const char *right, int64_t window)
{
	kept_list l = { 0 }, r = { 0 };
	read_all(bootstrap, left, &l);
	read_all(bootstrap, right, &r);
	qsort(l.v, l.len, sizeof *l.v, by_key_time);
	qsort(r.v, r.len, sizeof *r.v, by_key_time);
	uint64_t records = 0, digest = 0;
	char *buf = NULL;
	size_t cap = 0, from = 0;
	for (size_t i = 0; i < l.len; i++) {
		const kept *a = &l.v[i];
		if (!a->value || a->null_key)
			continue; /* null keys and values join nothing */
		/* from: the first right record of a's key with ts >= a's ts - window (both sorted). */
		while (from < r.len && (key_cmp(&r.v[from], a) < 0 ||
					(!key_cmp(&r.v[from], a) && r.v[from].ts < a->ts - window)))
			from++;
		for (size_t j = from; j < r.len && !key_cmp(&r.v[j], a) && r.v[j].ts <= a->ts + window; j++)
			if (r.v[j].value && !r.v[j].null_key)
				add_joined(a, a->value, a->value_len, r.v[j].value, r.v[j].value_len, &buf, &cap, &records,
					   &digest);
	}
	printf("%" PRIu64 " %016" PRIx64 "\n", records, digest);
	free(buf);
	free_list(&l);
	free_list(&r);
	return 0;
}

/* Writes n bytes as a JSON string: quote, backslash and control bytes
 * escaped, everything else as it is (UTF-8 passes through; a consumer that
 * wants the bytes back reads the line as UTF-8 with surrogate escapes). */
static void put_json_bytes(FILE *f, const unsigned char *p, size_t n)
{
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else {
			putc(c, f);
		}
	}
	putc('"', f);
}

/* dump()'s step: the record as one JSON line on stdout (topic: arg). */
static void dump_one(const rd_kafka_message_t *m, void *arg)
{
	const char *topic = arg;
	printf("{\"topic\":");
	put_json_bytes(stdout, (const unsigned char *)topic, strlen(topic));
	printf(",\"partition\":%" PRId32 ",\"offset\":%" PRId64 ",\"timestamp\":%" PRId64 ",\"key\":", m->partition,
	       m->offset, rd_kafka_message_timestamp(m, NULL));
	if (m->key)
		put_json_bytes(stdout, m->key, m->key_len);
	else
		fputs("null", stdout);
	fputs(",\"value\":", stdout);
	if (m->payload)
		put_json_bytes(stdout, m->payload, m->len);
	else
		fputs("null", stdout);
	fputs("}\n", stdout);
}

/* kbtool dump: every committed record of topic as a JSON line on stdout. */
static int dump(const char *bootstrap, const char *topic)
{
	int partitions;
	rd_kafka_t *rk = open_from_start(bootstrap, topic, "kbtool-dump", "200000", &partitions);
	drain(rk, topic, partitions, dump_one, (void *)topic);
	if (fflush(stdout) || ferror(stdout))
		die("dump", "cannot write to stdout");
	return 0;
}

/* kbtool load: stdin's KEY<TAB>VALUE lines as records of topic, timestamp 0
 * (a side input that precedes every event). */
static int load(const char *bootstrap, const char *topic)
{
	rd_kafka_t *rk = input_producer(bootstrap);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t records = 0;
	while ((len = getline(&line, &cap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = 0;
		char *tab = memchr(line, '\t', (size_t)len);
		if (!tab)
			die("load", "a line without a TAB between key and value");
		rd_kafka_resp_err_t e;
		while ((e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_KEY(line, (size_t)(tab - line)),
					      RD_KAFKA_V_VALUE(tab + 1, (size_t)(line + len - tab - 1)),
					      RD_KAFKA_V_TIMESTAMP(0), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
					      RD_KAFKA_V_END)) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
			rd_kafka_poll(rk, 100);
		if (e)
			die(topic, rd_kafka_err2str(e));
		records++;
		rd_kafka_poll(rk, 0);
	}
	free(line);
	if (rd_kafka_flush(rk, 60000))
		die(topic, "not every record was delivered within 60 s");
	rd_kafka_destroy(rk);
	printf("%" PRIu64 "\n", records);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "load"))
		return load(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "dump"))
		return dump(argv[2], argv[3]);
	if ((argc == 7 || (argc == 8 && !strcmp(argv[7], "final"))) && !strcmp(argv[1], "windows")) {
		int64_t size = strtoll(argv[4], NULL, 10), advance = strtoll(argv[5], NULL, 10);
		int64_t grace = strtoll(argv[6], NULL, 10);
		if (size <= 0 || advance <= 0 || advance > size || grace < 0)
			die("windows", "SIZE > 0, 0 < ADVANCE <= SIZE and GRACE >= 0 (milliseconds)");
		return reference_windows(argv[2], argv[3], size, advance, grace, argc == 8);
	}
	if (argc == 5 && !strcmp(argv[1], "stjoin"))
		return reference_stjoin(argv[2], argv[3], argv[4]);
	if (argc == 6 && !strcmp(argv[1], "ssjoin")) {
		int64_t window = strtoll(argv[5], NULL, 10);
		if (window < 0)
			die("ssjoin", "WINDOW >= 0 (milliseconds)");
		return reference_ssjoin(argv[2], argv[3], argv[4], window);
	}
	if (argc >= 5 && !strcmp(argv[1], "create"))
		return admin("create", argv[2], atoi(argv[3]), argv + 4, argc - 4);
	if (argc >= 4 && !strcmp(argv[1], "delete"))
		return admin("delete", argv[2], 0, argv + 3, argc - 3);
	if (argc == 4 && !strcmp(argv[1], "count"))
		return count(argv[2], argv[3], false);
	if (argc == 4 && !strcmp(argv[1], "final"))
		return count(argv[2], argv[3], true);
	fprintf(stderr, "usage: kbtool create BOOTSTRAP PARTITIONS TOPIC... | delete BOOTSTRAP TOPIC... | "
			"count|final BOOTSTRAP TOPIC | windows BOOTSTRAP TOPIC SIZE ADVANCE GRACE [final] | "
			"stjoin BOOTSTRAP STREAM TABLE | ssjoin BOOTSTRAP LEFT RIGHT WINDOW | dump BOOTSTRAP TOPIC | load BOOTSTRAP TOPIC\n");
	return 2;
}
