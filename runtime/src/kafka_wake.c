/*
 * kafka_wake.c - waking librdkafka's fetcher when the consumer queue runs low.
 *
 * librdkafka stops fetching a partition while the queue its records go to
 * holds queued.min.messages records (or queued.max.messages.kbytes of
 * payload), and its broker thread, with nothing left to fetch, sleeps until
 * something else happens on that broker or a second has passed (librdkafka
 * before 2.2: a fixed one-second wait in rd_kafka_broker_ops_io_serve; 2.2
 * made the wait fetch.queue.backoff.ms, still 1 s by default).  A queue
 * smaller than a second of processing therefore stalls the pipeline each
 * time it runs dry: on the windowed-count benchmark, a queue of 50,000
 * records instead of 200,000 took 1M records from 4.8 to 12.3 s.  So the
 * queue had to hold a second of records at several hundred bytes of
 * librdkafka's own each, most of the process's memory.
 *
 * With librdkafka 2.2 or later the driver sets fetch.queue.backoff.ms
 * short (kafka_client.c) and needs nothing here.  Before 2.2 it wakes the
 * broker thread itself: once the queue it takes from is down to 3/4 of
 * its limit while records are still coming (a full batch was taken), the
 * waker thread asks the leader of one assigned partition for its
 * watermarks (rd_kafka_query_watermark_offsets: two ListOffsets requests).
 * The request reaches that broker's thread as an operation, which wakes
 * it, and before sleeping again it looks at its partitions' queues and
 * fetches the ones below their limit.  The partition asked about turns
 * round the assignment, so with several brokers each is woken in turn.
 * A separate thread, so that the stream thread never waits for a round
 * trip; at most one wake every KAFKA_WAKE_INTERVAL_MS.
 */
#include "kafka_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The shortest time between two wakes: the fetch one wake starts needs a
 * moment (a round trip) to land, and a wake sooner would find it still in
 * flight; it also bounds the requests a lagging consumer sends. */
#define KAFKA_WAKE_INTERVAL_MS 20

struct kafka_waker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	rd_kafka_t *consumer;
	bool stop;               /* under lock */
	bool pending;            /* under lock: a wake asked for, not yet sent */
	char topic[256];         /* under lock: the partition to ask about */
	int32_t partition;
	/* The stream thread's alone: */
	size_t min_records;      /* queued.min.messages */
	size_t max_bytes;        /* queued.max.messages.kbytes, in bytes */
	size_t next_part;        /* where the round of k->parts goes on */
	bool full_seen;          /* a queue held its limit since the last wake */
	int64_t last_wake_ms;
	uint64_t wakes;          /* asked for (--stats) */
};

/* The waker thread: sends each wake asked for until told to stop. */
static void *waker_main(void *arg)
{
	struct kafka_waker *w = arg;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && !w->pending)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop)
			break;
		char topic[sizeof w->topic];
		memcpy(topic, w->topic, sizeof topic);
		int32_t partition = w->partition;
		w->pending = false;
		pthread_mutex_unlock(&w->lock);
		/* The answer does not matter, nor does an error (a partition
		 * revoked or a leader moving meanwhile): only the request's
		 * arrival at the broker thread does.  A short timeout: a stop
		 * waits for a wake in flight (kafka_waker_stop), and one sent
		 * as the cluster went away would otherwise hold it up. */
		int64_t low, high;
		(void)rd_kafka_query_watermark_offsets(w->consumer, topic, partition, &low, &high, 1000);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* A consumer property's value as a number, or fallback if unset or unreadable. */
static size_t conf_number(rd_kafka_t *rk, const char *name, size_t fallback)
{
	char buf[64];
	size_t size = sizeof buf;
	if (rd_kafka_conf_get(rd_kafka_conf(rk), name, buf, &size) != RD_KAFKA_CONF_OK)
		return fallback;
	char *end;
	unsigned long long v = strtoull(buf, &end, 10);
	return end == buf ? fallback : (size_t)v;
}

/*
 * Starts the waker for k's consumer if its librdkafka needs one (before
 * 2.2); k->waker stays NULL otherwise, and if the thread cannot be
 * started (the app runs, slower, as without it).
 */
void kafka_waker_start(stoat_kafka *k)
{
	k->waker = NULL;
	if (!kafka_fetch_wait_is_fixed())
		return;
	struct kafka_waker *w = stoat_xcalloc(1, sizeof *w);
	w->consumer = k->consumer;
	w->min_records = conf_number(k->consumer, "queued.min.messages", 100000);
	w->max_bytes = conf_number(k->consumer, "queued.max.messages.kbytes", 65536) * 1024;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (pthread_create(&w->thread, NULL, waker_main, w) != 0) {
		kafka_log(k, "warning: cannot start the fetch waker thread: the consumer fetches more slowly");
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return;
	}
	k->waker = w;
}

/* Stops and frees k's waker (before the consumer is closed); returns the
 * wakes it was asked for. */
uint64_t kafka_waker_stop(stoat_kafka *k)
{
	struct kafka_waker *w = k->waker;
	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	uint64_t wakes = w->wakes;
	free(w);
	k->waker = NULL;
	return wakes;
}

/*
 * After the stream thread took taken records (bytes of payload) from q
 * when it asked for asked.  The fetcher stops only once q holds its limit
 * (queued.min.messages records, or fewer where queued.max.messages.kbytes
 * of records the size of these comes first), so a wake is due only after
 * q was seen that full: then, once what q still holds is below 3/4 of the
 * limit (early enough that the fetch lands before the queue runs dry) and
 * records are still coming (a full batch was taken), asks the waker
 * thread to wake the fetcher, at most every KAFKA_WAKE_INTERVAL_MS.
 */
void kafka_waker_note(stoat_kafka *k, rd_kafka_queue_t *q, size_t taken, size_t asked, size_t bytes)
{
	struct kafka_waker *w = k->waker;
	if (!w || taken == 0)
		return;
	size_t limit = w->min_records;
	size_t per_record = bytes / taken + 1;
	if (w->max_bytes / per_record < limit)
		limit = w->max_bytes / per_record;
	size_t left = rd_kafka_queue_length(q);
	if (left + taken >= limit)
		w->full_seen = true;
	if (!w->full_seen || taken < asked || left >= limit / 4 * 3)
		return;
	int64_t now = stoat_now_ms();
	if (now - w->last_wake_ms < KAFKA_WAKE_INTERVAL_MS)
		return;
	/* The next assigned partition after the last one asked about. */
	kafka_partition *p = NULL;
	for (size_t i = 0; i < k->part_count && !p; i++) {
		kafka_partition *c = &k->parts[(w->next_part + i) % k->part_count];
		if (c->assigned) {
			p = c;
			w->next_part = (w->next_part + i + 1) % k->part_count;
		}
	}
	if (!p || strlen(p->topic) >= sizeof w->topic)
		return;
	w->last_wake_ms = now;
	w->full_seen = false;
	w->wakes++;
	pthread_mutex_lock(&w->lock);
	strcpy(w->topic, p->topic);
	w->partition = p->partition;
	w->pending = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* Whether this librdkafka's broker threads wait a fixed second before
 * looking at a full queue again (before 2.2: no fetch.queue.backoff.ms). */
bool kafka_fetch_wait_is_fixed(void)
{
	return rd_kafka_version() < 0x02020000;
}
