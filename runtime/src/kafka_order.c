/*
 * kafka_order.c - the tasks with more than one source partition: their
 * records are taken smallest timestamp first, as a Kafka Streams task
 * takes them.
 *
 * A Kafka Streams task is one partition number of a sub-topology: the
 * partitions p of every topic the sub-topology reads (a join's two sides,
 * merge's topics, a table and a stream read together).  Its
 * PartitionGroup buffers what the consumer fetched, per partition, and
 * takes each time the head record of the partition whose head has the
 * smallest timestamp.  With max.task.idle.ms >= 0 (the default is 0) it
 * takes nothing while one of its partitions has nothing buffered and its
 * lag is above 0 or not known yet, and, once that lag is 0, waits
 * max.task.idle.ms more before it goes on without that partition
 * ("enforced processing").  With -1 it takes what is buffered at once.
 *
 * Here each partition of such a task has a librdkafka queue of its own,
 * not forwarded to the consumer queue, and the records taken from it wait
 * in p->held until the task runs them.  Its lag is known to be 0 when
 * librdkafka's end-of-partition event (enable.partition.eof) came after
 * the last record taken: a fetch found nothing after the fetch position,
 * which is past transaction markers and, under read_committed, compared
 * with the last stable offset, as the Java consumer's lag is then.  Until
 * the first fetch answers, the lag is unknown.  A seek (the rewind after
 * an abort) or a new assignment makes librdkafka start that partition's
 * fetch over, and its end event comes again.
 *
 * Tasks of one source partition (most programs) never come here: their
 * records run batch by batch from the consumer queue (kafka_run.c), in
 * their partition's order, which is all the order there is.
 */
#include "kafka_impl.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Per source of app, whether another source of its sub-topology feeds
 * the same tasks (global tables are read outside the group, never). */
bool *kafka_ordered_sources(const stoat_app *app)
{
	bool *ordered = NULL;
	for (size_t i = 0; i < app->source_count; i++) {
		const stoat_source *a = &app->sources[i];
		for (size_t j = 0; j < app->source_count && !a->global; j++) {
			const stoat_source *b = &app->sources[j];
			if (j == i || b->global || b->subtopology != a->subtopology)
				continue;
			if (!ordered)
				ordered = stoat_xcalloc(app->source_count, sizeof *ordered);
			ordered[i] = true;
			break;
		}
	}
	return ordered;
}

/* Whether p is an assigned partition of an ordered source. */
static bool ordered_part(const stoat_kafka *k, const kafka_partition *p)
{
	return k->ordered && p->assigned && p->source != SIZE_MAX && k->ordered[p->source];
}

/* Gives p its own queue: librdkafka then never forwards its records to
 * the consumer queue (the flag rd_kafka_queue_forward sets outlives a
 * revocation, so a later assignment keeps it). */
void kafka_order_take(stoat_kafka *k, rd_kafka_t *rk, kafka_partition *p)
{
	assert(k->ordered && p->source != SIZE_MAX && k->ordered[p->source]);
	kafka_order_drop(k, p);
	if (p->queue)
		return;
	p->queue = rd_kafka_queue_get_partition(rk, p->topic, p->partition);
	if (!p->queue) {
		/* Its records then come through the consumer queue and wait in
		 * p->held all the same (kafka_order_hold), without the end event. */
		kafka_log(k, "warning: no queue of its own for %s[%" PRId32 "]", p->topic, p->partition);
		return;
	}
	rd_kafka_queue_forward(p->queue, NULL);
}

/* Forgets what p holds: the records go back to librdkafka unprocessed,
 * and what is known of p's end with them. */
void kafka_order_drop(stoat_kafka *k, kafka_partition *p)
{
	(void)k;
	for (size_t i = p->held_head; i < p->held_len; i++)
		rd_kafka_message_destroy(p->held[i]);
	p->held_head = p->held_len = 0;
	p->at_end = false;
	p->idling = false;
}

/* Forgets what p holds and gives up its queue and buffer (revoked, or
 * the consumer closes: every message must go before it is destroyed). */
void kafka_order_release(stoat_kafka *k, kafka_partition *p)
{
	kafka_order_drop(k, p);
	if (p->queue)
		rd_kafka_queue_destroy(p->queue);
	p->queue = NULL;
	free(p->held);
	p->held = NULL;
	p->held_cap = 0;
}

/* Room for n more records in p->held, the taken ones moved out of the way. */
static void held_reserve(kafka_partition *p, size_t n)
{
	if (p->held_head > 0) {
		memmove(p->held, p->held + p->held_head, (p->held_len - p->held_head) * sizeof *p->held);
		p->held_len -= p->held_head;
		p->held_head = 0;
	}
	if (p->held_cap - p->held_len >= n)
		return;
	size_t cap = p->held_cap ? p->held_cap : 64;
	while (cap - p->held_len < n)
		cap *= 2;
	p->held = stoat_xrealloc(p->held, cap, sizeof *p->held);
	p->held_cap = cap;
}

/* Holds record r, which came through the consumer queue. */
void kafka_order_hold(stoat_kafka *k, kafka_partition *p, rd_kafka_message_t *r)
{
	(void)k;
	assert(ordered_part(k, p) && !r->err);
	held_reserve(p, 1);
	p->held[p->held_len++] = r;
	p->at_end = false;
}

/* Takes from p's queue what it has, up to batch_max records held. */
static void fill(stoat_kafka *k, kafka_partition *p)
{
	size_t held = p->held_len - p->held_head;
	if (!p->queue || held >= k->opt->batch_max)
		return;
	size_t want = k->opt->batch_max - held;
	ssize_t n = rd_kafka_consume_batch_queue(p->queue, 0, k->rkmsgs, want);
	if (n <= 0)
		return;
	held_reserve(p, (size_t)n);
	size_t records = 0, bytes = 0;
	for (ssize_t i = 0; i < n; i++) {
		rd_kafka_message_t *r = k->rkmsgs[i];
		if (!r->err) {
			records++;
			bytes += r->len;
			p->held[p->held_len++] = r;
			p->at_end = false;
			continue;
		}
		/* In the queue's order: the end comes after the records before it. */
		if (r->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)
			p->at_end = true;
		else
			kafka_consumer_event(k, r);
		rd_kafka_message_destroy(r);
	}
	kafka_waker_note(k, p->queue, records, want, bytes);
}

/*
 * Whether a task (its partitions m[0..n)) may take a record now, as
 * PartitionGroup.readyToProcess decides: always under max_task_idle -1;
 * otherwise not while a partition holds nothing and is not known to be
 * at its end, nor while one at its end has held the task up for less
 * than max_task_idle since it was seen empty; and never with nothing held.
 */
static bool task_ready(stoat_kafka *k, kafka_partition **m, size_t n, int64_t now)
{
	int64_t idle = k->opt->max_task_idle_ms;
	if (idle < 0)
		return true;
	bool queued = false;
	for (size_t i = 0; i < n; i++) {
		kafka_partition *p = m[i];
		if (p->held_head < p->held_len) {
			p->idling = false;
			queued = true;
			continue;
		}
		if (!p->at_end) {
			p->idling = false;
			return false;
		}
		if (!p->idling) {
			p->idling = true;
			p->idle_deadline_ms = now + idle;
		}
		if (now < p->idle_deadline_ms)
			return false;
	}
	return queued;
}

/* A record's timestamp for the order: a negative one (none, or invalid)
 * comes first, so that its source's error policy has it at once, as
 * Kafka Streams' RecordQueue fails or skips it before it is ever a head. */
static int64_t order_time(const rd_kafka_message_t *r)
{
	rd_kafka_timestamp_type_t tt;
	int64_t ts = rd_kafka_message_timestamp(r, &tt);
	return ts < 0 ? INT64_MIN : ts;
}

/* Whether a record at ts of source a comes before one at ts2 of source b:
 * the smaller timestamp; on a tie the source declared first (Kafka
 * Streams' PriorityQueue leaves a tie in no particular order). */
static bool comes_before(int64_t ts, size_t a, int64_t ts2, size_t b)
{
	return ts < ts2 || (ts == ts2 && a < b);
}

/*
 * Runs task m[0..n) while it is ready, at most batch_max records: each
 * time the partition whose head comes first, as many of its records as
 * come before every other partition's head (what taking one at a time
 * would run, in one pipeline call).  Returns the records run.
 */
static ssize_t run_task(stoat_kafka *k, kafka_partition **m, size_t n, int64_t now)
{
	size_t ran = 0;
	while (ran < k->opt->batch_max && !k->failed && !k->fatal && !k->fenced) {
		for (size_t i = 0; i < n; i++)
			if (m[i]->held_head == m[i]->held_len)
				fill(k, m[i]);
		if (!task_ready(k, m, n, now))
			break;
		kafka_partition *best = NULL;
		int64_t best_ts = 0, next_ts = INT64_MAX;
		size_t next_source = SIZE_MAX;
		for (size_t i = 0; i < n; i++) {
			kafka_partition *p = m[i];
			if (p->held_head == p->held_len)
				continue;
			int64_t ts = order_time(p->held[p->held_head]);
			if (!best || comes_before(ts, p->source, best_ts, best->source)) {
				if (best) {
					next_ts = best_ts;
					next_source = best->source;
				}
				best = p;
				best_ts = ts;
			} else if (comes_before(ts, p->source, next_ts, next_source)) {
				next_ts = ts;
				next_source = p->source;
			}
		}
		assert(best); /* a ready task holds something */
		size_t count = 1, limit = best->held_len - best->held_head;
		if (limit > k->opt->batch_max - ran)
			limit = k->opt->batch_max - ran;
		while (count < limit &&
		       comes_before(order_time(best->held[best->held_head + count]), best->source, next_ts, next_source))
			count++;
		if (k->eos && !kafka_begin_transaction(k))
			break;
		rd_kafka_message_t **run = &best->held[best->held_head];
		kafka_run_partition_batch(k, best, run, count);
		for (size_t i = 0; i < count; i++)
			rd_kafka_message_destroy(run[i]);
		best->held_head += count;
		ran += count;
	}
	return (ssize_t)ran;
}

/* Whether assigned ordered partitions p and q belong to one task. */
static bool same_task(const stoat_kafka *k, const kafka_partition *p, const kafka_partition *q)
{
	return p->partition == q->partition &&
	       k->app->sources[p->source].subtopology == k->app->sources[q->source].subtopology;
}

/* Runs every task of ordered partitions this instance holds. */
ssize_t kafka_order_poll(stoat_kafka *k)
{
	assert(k->ordered);
	if (k->members_cap < k->part_count) {
		k->members = stoat_xrealloc(k->members, k->part_count, sizeof *k->members);
		k->members_cap = k->part_count;
	}
	int64_t now = stoat_now_ms();
	ssize_t ran = 0;
	size_t ordered = 0;
	for (size_t i = 0; i < k->part_count && !k->failed && !k->fatal && !k->fenced; i++) {
		kafka_partition *p = &k->parts[i];
		if (!ordered_part(k, p))
			continue;
		ordered++;
		bool first = true; /* of its task, in k->parts */
		for (size_t j = 0; j < i && first; j++)
			first = !(ordered_part(k, &k->parts[j]) && same_task(k, p, &k->parts[j]));
		if (!first)
			continue;
		size_t n = 0;
		for (size_t j = i; j < k->part_count; j++)
			if (ordered_part(k, &k->parts[j]) && same_task(k, p, &k->parts[j]))
				k->members[n++] = &k->parts[j];
		ran += run_task(k, k->members, n, now);
	}
	k->ordered_count = ordered;
	if (ran > 0)
		rd_kafka_poll(k->producer, 0);
	return ran;
}
