/*
 * limit.c - the physical limit for bench/run-kafka: a hand-written
 * librdkafka consume -> produce passthrough in a consumer group, with the
 * guarantees and client settings of stoat's Kafka driver
 * (runtime/src/kafka_client.c), and nothing else.
 *
 *   at_least_once  on the commit interval: flush the producer (every
 *                  output acknowledged), then commit the consumed offsets
 *                  (synchronously);
 *   exactly_once   one transaction per commit interval: begin it at the
 *                  first record, then send_offsets_to_transaction +
 *                  commit_transaction (EOS v2).
 *
 * Same client settings as the driver (cooperative-sticky, read_committed,
 * queued.min.messages, max.partition.fetch.bytes, fetch.wait.max.ms,
 * idempotence, acks=all, zstd, linger.ms=5, batch.num.messages,
 * murmur2_random, ...), the same batch
 * consumption (rd_kafka_consume_batch_queue, 1000 records, 100 ms), and
 * each record's key, value, timestamp and headers copied to the output
 * (RD_KAFKA_MSG_F_COPY: librdkafka cannot hand a consumed payload to the
 * producer without copying it).  The rebalance callback commits before
 * partitions are revoked, as the driver's does.
 *
 * What it leaves out, being the floor: error recovery (any error stops it
 * with status 3, where the driver retries or aborts and rewinds), the
 * per-record context, error policy and counters of the generated code.
 *
 * usage: limit -b HOST:PORT --in TOPIC --out TOPIC --group ID
 *              [--guarantee at_least_once|exactly_once]
 *              [--commit-interval MS] [--batch N] [--idle-exit MS]
 *
 * Like the app's --idle-exit, it stops once nothing has come in for
 * --idle-exit ms and everything is committed, printing
 * "limit: no input for N ms: stopping (--idle-exit)" (the line the
 * benchmark times) and "limit: records in N, out N" at the end.
 */
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static rd_kafka_t *consumer, *producer;
static bool eos, in_txn, dirty;
static int64_t *next_offset; /* per input partition: after the last record processed; -1: none */
static int64_t *committed;   /* next_offset as of the last commit */
static int32_t part_cap;
static const char *in_topic;
static char delivery_error[512];

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define TOOL "limit"
#include "tool.h"

static void txn_check(rd_kafka_error_t *e, const char *what)
{
	if (e)
		die(what, rd_kafka_error_string(e));
}


static void error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	(void)opaque;
	if (err == RD_KAFKA_RESP_ERR__FATAL) {
		char why[512];
		rd_kafka_fatal_error(rk, why, sizeof why);
		die("fatal Kafka error", why);
	}
	fprintf(stderr, "limit: warning: %s: %s\n", rd_kafka_err2name(err), reason);
}

static void delivery_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	(void)rk;
	(void)opaque;
	if (m->err && !delivery_error[0])
		snprintf(delivery_error, sizeof delivery_error, "%s", rd_kafka_err2str(m->err));
}

static void grow(int32_t partition)
{
	if (partition < part_cap)
		return;
	int32_t cap = part_cap ? part_cap : 16;
	while (cap <= partition)
		cap *= 2;
	next_offset = realloc(next_offset, (size_t)cap * sizeof *next_offset);
	committed = realloc(committed, (size_t)cap * sizeof *committed);
	if (!next_offset || !committed)
		abort();
	for (int32_t i = part_cap; i < cap; i++)
		next_offset[i] = committed[i] = -1;
	part_cap = cap;
}

/* The offsets that moved since the last commit. */
static rd_kafka_topic_partition_list_t *progress(void)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(part_cap);
	for (int32_t p = 0; p < part_cap; p++)
		if (next_offset[p] >= 0 && next_offset[p] != committed[p])
			rd_kafka_topic_partition_list_add(l, in_topic, p)->offset = next_offset[p];
	return l;
}

static void commit(void)
{
	if (!eos) {
		while (rd_kafka_outq_len(producer) > 0 && !delivery_error[0])
			rd_kafka_poll(producer, 100);
		if (delivery_error[0])
			die("producing", delivery_error);
		rd_kafka_topic_partition_list_t *l = progress();
		if (l->cnt > 0) {
			rd_kafka_resp_err_t err = rd_kafka_commit(consumer, l, 0);
			if (err)
				die("committing offsets", rd_kafka_err2str(err));
		}
		rd_kafka_topic_partition_list_destroy(l);
	} else if (in_txn) {
		rd_kafka_topic_partition_list_t *l = progress();
		if (l->cnt > 0) {
			rd_kafka_consumer_group_metadata_t *md = rd_kafka_consumer_group_metadata(consumer);
			txn_check(rd_kafka_send_offsets_to_transaction(producer, l, md, 30000), "sending offsets");
			rd_kafka_consumer_group_metadata_destroy(md);
		}
		rd_kafka_topic_partition_list_destroy(l);
		txn_check(rd_kafka_commit_transaction(producer, 60000), "committing the transaction");
		in_txn = false;
	}
	for (int32_t p = 0; p < part_cap; p++)
		committed[p] = next_offset[p];
	dirty = false;
}

static void rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts,
			 void *opaque)
{
	(void)opaque;
	rd_kafka_error_t *e;
	if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
		for (int i = 0; i < parts->cnt; i++) {
			grow(parts->elems[i].partition);
			next_offset[parts->elems[i].partition] = committed[parts->elems[i].partition] = -1;
		}
		e = rd_kafka_incremental_assign(rk, parts);
	} else {
		if (!rd_kafka_assignment_lost(rk))
			commit();
		for (int i = 0; i < parts->cnt; i++)
			next_offset[parts->elems[i].partition] = committed[parts->elems[i].partition] = -1;
		e = rd_kafka_incremental_unassign(rk, parts);
	}
	txn_check(e, "rebalancing");
}

int main(int argc, char **argv)
{
	const char *bootstrap = NULL, *out_topic = NULL, *group = NULL, *guarantee = "at_least_once";
	int64_t commit_interval = 100, idle_exit = 2000;
	int batch = 1000;
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];
		if (!strcmp(a, "-b"))
			bootstrap = v;
		else if (!strcmp(a, "--in"))
			in_topic = v;
		else if (!strcmp(a, "--out"))
			out_topic = v;
		else if (!strcmp(a, "--group"))
			group = v;
		else if (!strcmp(a, "--guarantee"))
			guarantee = v;
		else if (!strcmp(a, "--commit-interval"))
			commit_interval = atoll(v);
		else if (!strcmp(a, "--batch"))
			batch = atoi(v);
		else if (!strcmp(a, "--idle-exit"))
			idle_exit = atoll(v);
		else
			die("unknown option", a);
	}
	if (!bootstrap || !in_topic || !out_topic || !group || batch < 1) {
		fprintf(stderr, "usage: limit -b HOST:PORT --in TOPIC --out TOPIC --group ID "
				"[--guarantee at_least_once|exactly_once] [--commit-interval MS] [--batch N] "
				"[--idle-exit MS]\n");
		return 2;
	}
	eos = !strcmp(guarantee, "exactly_once");
	char err[512], txn_id[300];
	snprintf(txn_id, sizeof txn_id, "%s-%d", group, (int)getpid());

	/* The producer: kafka_new_producer() in runtime/src/kafka_client.c. */
	rd_kafka_conf_t *pc = rd_kafka_conf_new();
	set(pc, "bootstrap.servers", bootstrap);
	set(pc, "client.id", group);
	set(pc, "enable.idempotence", "true");
	set(pc, "acks", "all");
	set(pc, "compression.type", "zstd");
	set(pc, "linger.ms", "5");
	set(pc, "batch.num.messages", "10000");
	set(pc, "queue.buffering.max.messages", "1000000");
	set(pc, "queue.buffering.max.kbytes", "262144");
	set(pc, "partitioner", "murmur2_random");
	set(pc, "topic.metadata.refresh.interval.ms", "10000");
	if (eos) {
		set(pc, "transactional.id", txn_id);
		set(pc, "transaction.timeout.ms", "10000");
	} else {
		set(pc, "message.timeout.ms", "0");
	}
	rd_kafka_conf_set_error_cb(pc, error_cb);
	rd_kafka_conf_set_dr_msg_cb(pc, delivery_cb);
	if (!(producer = rd_kafka_new(RD_KAFKA_PRODUCER, pc, err, sizeof err)))
		die("producer", err);

	/* The consumer: kafka_new_consumer() in runtime/src/kafka_client.c. */
	rd_kafka_conf_t *cc = rd_kafka_conf_new();
	set(cc, "bootstrap.servers", bootstrap);
	set(cc, "group.id", group);
	set(cc, "client.id", group);
	set(cc, "partition.assignment.strategy", "cooperative-sticky");
	set(cc, "enable.auto.commit", "false");
	set(cc, "enable.auto.offset.store", "false");
	set(cc, "auto.offset.reset", "earliest");
	set(cc, "isolation.level", "read_committed");
	set(cc, "queued.min.messages", "200000");
	set(cc, "queued.max.messages.kbytes", "131072");
	set(cc, "max.partition.fetch.bytes", "262144");
	set(cc, "fetch.wait.max.ms", "100");
	set(cc, "session.timeout.ms", "10000");
	set(cc, "heartbeat.interval.ms", "1000");
	set(cc, "topic.metadata.refresh.interval.ms", "5000");
	set(cc, "allow.auto.create.topics", "false");
	rd_kafka_conf_set_error_cb(cc, error_cb);
	rd_kafka_conf_set_rebalance_cb(cc, rebalance_cb);
	if (!(consumer = rd_kafka_new(RD_KAFKA_CONSUMER, cc, err, sizeof err)))
		die("consumer", err);

	if (eos)
		txn_check(rd_kafka_init_transactions(producer, 30000), "initialising transactions");
	rd_kafka_topic_t *out = rd_kafka_topic_new(producer, out_topic, NULL);
	rd_kafka_topic_partition_list_t *subs = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(subs, in_topic, RD_KAFKA_PARTITION_UA);
	rd_kafka_resp_err_t e = rd_kafka_subscribe(consumer, subs);
	if (e)
		die("subscribing", rd_kafka_err2str(e));
	rd_kafka_topic_partition_list_destroy(subs);
	rd_kafka_poll_set_consumer(consumer);
	rd_kafka_queue_t *queue = rd_kafka_queue_get_consumer(consumer);
	rd_kafka_message_t **msgs = calloc((size_t)batch, sizeof *msgs);

	uint64_t records = 0;
	int64_t last_commit = now_ms(), last_input = last_commit;
	for (;;) {
		ssize_t n = rd_kafka_consume_batch_queue(queue, 100, msgs, (size_t)batch);
		if (n < 0)
			die("consuming", rd_kafka_err2str(rd_kafka_last_error()));
		int64_t now = now_ms();
		for (ssize_t i = 0; i < n; i++) {
			rd_kafka_message_t *m = msgs[i];
			if (m->err) {
				if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
					fprintf(stderr, "limit: warning: %s\n", rd_kafka_message_errstr(m));
				continue;
			}
			if (eos && !in_txn) {
				txn_check(rd_kafka_begin_transaction(producer), "beginning a transaction");
				in_txn = true;
			}
			rd_kafka_headers_t *hdrs = NULL;
			if (rd_kafka_message_detach_headers(m, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR)
				hdrs = NULL;
			for (;;) {
				e = rd_kafka_producev(producer, RD_KAFKA_V_RKT(out), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
						      RD_KAFKA_V_KEY(m->key, m->key_len), RD_KAFKA_V_VALUE(m->payload, m->len),
						      RD_KAFKA_V_TIMESTAMP(rd_kafka_message_timestamp(m, NULL)),
						      RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_END);
				if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
					break;
				rd_kafka_poll(producer, 50);
			}
			if (e)
				die("producing", rd_kafka_err2str(e));
			next_offset[m->partition] = m->offset + 1;
			dirty = true;
			records++;
			last_input = now;
		}
		for (ssize_t i = 0; i < n; i++)
			rd_kafka_message_destroy(msgs[i]);
		rd_kafka_poll(producer, 0);
		if (delivery_error[0])
			die("producing", delivery_error);
		now = now_ms();
		if (now - last_commit >= commit_interval && (dirty || in_txn)) {
			commit();
			last_commit = now_ms();
		}
		if (idle_exit > 0 && now - last_input >= idle_exit && !dirty && !in_txn) {
			fprintf(stderr, "limit: no input for %" PRId64 " ms: stopping (--idle-exit)\n", idle_exit);
			break;
		}
	}
	commit();
	rd_kafka_queue_destroy(queue);
	rd_kafka_consumer_close(consumer);
	rd_kafka_destroy(consumer);
	if (!eos)
		rd_kafka_flush(producer, 30000);
	rd_kafka_topic_destroy(out);
	rd_kafka_destroy(producer);
	free(msgs);
	fprintf(stderr, "limit: records in %" PRIu64 ", out %" PRIu64 "\n", records, records);
	return 0;
}
