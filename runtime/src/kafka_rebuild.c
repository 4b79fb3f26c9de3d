/*
 * kafka_rebuild.c - rebuilding a changelog partition from the intact
 * local state of its store partition (--on-state-mismatch
 * rebuild-changelog), which Kafka Streams cannot do.
 *
 * When a changelog topic is deleted (and re-created empty by the next
 * start), the checkpoint of every local store partition lies above the
 * changelog's end (kafka_rebalance.c's restore finds it).  Rebuilding
 * writes the store partition's committed contents to its changelog
 * partition, then checkpoints at the offset after the last record
 * written, so the changelog again holds the state the store holds:
 *
 *   1. the store partition is marked as being rebuilt (in RocksDB, so a
 *      crash before step 5 leaves a mismatch, never a checkpoint that
 *      the changelog does not back);
 *   2. records already in the changelog partition (another instance may
 *      have written some since the topic came back) are read, and a
 *      tombstone is written for each key the local state does not have;
 *   3. every key and value of the local state is written, by a producer
 *      of its own: transactional under exactly-once (transactional id
 *      "<the driver's>-rebuild"), in one transaction, so the changelog
 *      never shows half a rebuild to read_committed readers;
 *   4. the transaction is committed (or, at least once, the producer is
 *      flushed) and every record must have been acknowledged;
 *   5. the new checkpoint is written, clearing the mark.
 *
 * Its own producer keeps the rebuild out of the driver's open
 * transaction, which under cooperative rebalancing may hold other
 * partitions' work when a partition comes in.  Records written again
 * after a crash between steps 4 and 5 repeat the same keys and values:
 * restoring any suffix of them changes nothing.
 */
#include "kafka_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One rebuild in progress. */
typedef struct rebuild {
	stoat_kafka *k;
	stoat_store_part *part;
	const char *topic;
	rd_kafka_t *producer;
	uint64_t produced, acked, failed;
	int64_t last_offset; /* highest acknowledged offset; -1: none */
	char error[512];     /* the first failure */
	/* Keys in the changelog that the local state lacks (step 2). */
	stoat_str *stale;
	size_t stale_count, stale_cap;
	stoat_arena arena;
} rebuild;

/* Delivery reports of the rebuild's producer: count, remember the
 * highest offset and the first failure. */
static void rebuild_delivered(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	rebuild *r = opaque;
	(void)rk;
	if (m->err) {
		if (r->failed++ == 0)
			snprintf(r->error, sizeof r->error, "cannot write to %s[%" PRId32 "]: %s", r->topic, m->partition,
				 rd_kafka_err2str(m->err));
		return;
	}
	r->acked++;
	if (m->offset > r->last_offset)
		r->last_offset = m->offset;
}

/* Client errors of the rebuild's producer go to the driver's log. */
static void rebuild_client_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	rebuild *r = opaque;
	(void)rk;
	kafka_log(r->k, "warning: rebuilding changelog %s: %s: %s", r->topic, rd_kafka_err2name(err), reason);
}

/* The rebuild's producer (see the file's comment); NULL after a message. */
static rd_kafka_t *rebuild_producer(rebuild *r)
{
	stoat_kafka *k = r->k;
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char client_id[300];
	snprintf(client_id, sizeof client_id, "%s-rebuild", k->app->app_id);
	bool ok = kafka_conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  kafka_conf_set(conf, k->prog, "client.id", client_id) &&
		  kafka_conf_set(conf, k->prog, "enable.idempotence", "true") &&
		  kafka_conf_set(conf, k->prog, "acks", "all") &&
		  kafka_conf_set(conf, k->prog, "compression.type", "zstd") &&
		  kafka_conf_set(conf, k->prog, "linger.ms", "5") &&
		  kafka_conf_set(conf, k->prog, "message.timeout.ms", "60000");
	if (ok && k->eos) {
		char *txid = kafka_rebuild_transactional_id(k->transactional_id);
		ok = kafka_conf_set(conf, k->prog, "transactional.id", txid) &&
		     kafka_conf_set(conf, k->prog, "transaction.timeout.ms", "60000");
		free(txid);
	}
	rd_kafka_conf_set_dr_msg_cb(conf, rebuild_delivered);
	/* The user's producer properties (security, say) apply here too. */
	char what[320];
	snprintf(what, sizeof what, "the producer that rebuilds changelog %s", r->topic);
	return kafka_make_client(k, conf, ok, "producer", RD_KAFKA_PRODUCER, what, r, rebuild_client_error);
}

/* Writes one record (value.ptr NULL: a tombstone) to the changelog
 * partition, waiting while the local queue is full. */
static bool rebuild_write(rebuild *r, stoat_str key, stoat_str value)
{
	for (;;) {
		rd_kafka_resp_err_t e = rd_kafka_producev(
			r->producer, RD_KAFKA_V_TOPIC(r->topic), RD_KAFKA_V_PARTITION(stoat_store_part_partition(r->part)),
			RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY((void *)key.ptr, key.ptr ? key.len : 0),
			RD_KAFKA_V_VALUE((void *)value.ptr, value.ptr ? value.len : 0), RD_KAFKA_V_END);
		if (e == RD_KAFKA_RESP_ERR_NO_ERROR) {
			r->produced++;
			return true;
		}
		if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
			snprintf(r->error, sizeof r->error, "cannot write to %s: %s", r->topic, rd_kafka_err2str(e));
			return false;
		}
		rd_kafka_poll(r->producer, 50);
	}
}

/* stoat_store_part_scan's callback: one local key and value. */
static bool rebuild_write_local(void *arg, stoat_str key, stoat_str value)
{
	rebuild *r = arg;
	if (!value.ptr)
		value.ptr = ""; /* present, empty: not a tombstone */
	return !kafka_stop_requested && rebuild_write(r, key, value);
}

/*
 * Step 2: reads the changelog partition [lo, hi) and notes each key the
 * local state does not hold, for a tombstone.  False after a message.
 */
static bool find_stale_keys(rebuild *r, int64_t lo, int64_t hi)
{
	stoat_kafka *k = r->k;
	if (lo >= hi)
		return true;
	if (!k->restorer && !(k->restorer = kafka_new_restorer(k)))
		return false;
	int32_t partition = stoat_store_part_partition(r->part);
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
	rd_kafka_topic_partition_list_add(l, r->topic, partition)->offset = lo;
	rd_kafka_resp_err_t e = rd_kafka_assign(k->restorer, l);
	rd_kafka_topic_partition_list_destroy(l);
	if (e) {
		kafka_log(k, "error: cannot read changelog %s[%" PRId32 "]: %s", r->topic, partition, rd_kafka_err2str(e));
		return false;
	}
	bool ok = true, done = false;
	while (ok && !done && !kafka_stop_requested) {
		rd_kafka_message_t *m = rd_kafka_consumer_poll(k->restorer, 500);
		if (!m)
			continue;
		if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			done = true;
		} else if (m->err) {
			kafka_log(k, "warning: reading changelog %s[%" PRId32 "]: %s", r->topic, partition,
				  rd_kafka_message_errstr(m));
		} else {
			char err[1024];
			bool found = false;
			stoat_str key = { m->key, m->key ? m->key_len : 0 };
			if (!stoat_store_part_has(r->part, key, &found, err, sizeof err)) {
				kafka_log(k, "error: rebuilding %s[%" PRId32 "]: %s", r->topic, partition, err);
				ok = false;
			} else if (!found) {
				if (r->stale_count == r->stale_cap) {
					r->stale_cap = r->stale_cap ? r->stale_cap * 2 : 64;
					r->stale = stoat_xrealloc(r->stale, r->stale_cap, sizeof *r->stale);
				}
				r->stale[r->stale_count++] = stoat_arena_strdup(&r->arena, key);
			}
			done = m->offset + 1 >= hi;
		}
		rd_kafka_message_destroy(m);
	}
	rd_kafka_assign(k->restorer, NULL);
	return ok && done;
}

/* Logs a failed transactional call of the rebuild; false. */
static bool rebuild_txn_failed(rebuild *r, const char *what, rd_kafka_error_t *e)
{
	kafka_log(r->k, "error: rebuilding changelog %s: %s: %s", r->topic, what, rd_kafka_error_string(e));
	rd_kafka_error_destroy(e);
	return false;
}

/* Steps 3 and 4: writes the stale keys' tombstones and the local state,
 * and makes them durable.  False after a message. */
static bool write_all(rebuild *r)
{
	stoat_kafka *k = r->k;
	rd_kafka_error_t *e;
	if (k->eos && (e = rd_kafka_init_transactions(r->producer, 60000)) != NULL)
		return rebuild_txn_failed(r, "registering its transactional id", e);
	if (k->eos && (e = rd_kafka_begin_transaction(r->producer)) != NULL)
		return rebuild_txn_failed(r, "beginning the transaction", e);
	bool ok = true;
	for (size_t i = 0; ok && i < r->stale_count && !kafka_stop_requested; i++)
		ok = rebuild_write(r, r->stale[i], (stoat_str){ NULL, 0 });
	char err[1024];
	if (ok && !stoat_store_part_scan(r->part, rebuild_write_local, r, err, sizeof err)) {
		kafka_log(k, "error: rebuilding changelog %s: reading the local state: %s", r->topic, err);
		ok = false;
	}
	if (ok && (r->error[0] || kafka_stop_requested)) {
		if (r->error[0])
			kafka_log(k, "error: rebuilding changelog %s: %s", r->topic, r->error);
		ok = false;
	}
	if (k->eos) {
		if (!ok) {
			if ((e = rd_kafka_abort_transaction(r->producer, 30000)) != NULL)
				rd_kafka_error_destroy(e);
			return false;
		}
		if ((e = rd_kafka_commit_transaction(r->producer, 60000)) != NULL)
			return rebuild_txn_failed(r, "committing the transaction", e);
	} else {
		rd_kafka_resp_err_t fe = rd_kafka_flush(r->producer, 60000);
		if (ok && fe) {
			kafka_log(k, "error: rebuilding changelog %s: %s", r->topic, rd_kafka_err2str(fe));
			ok = false;
		}
	}
	rd_kafka_poll(r->producer, 0); /* the last delivery reports */
	if (ok && (r->failed || r->acked != r->produced)) {
		kafka_log(k, "error: rebuilding changelog %s: %" PRIu64 " of %" PRIu64 " records acknowledged%s%s",
			  r->topic, r->acked, r->produced, r->error[0] ? ": " : "", r->error);
		ok = false;
	}
	return ok;
}

/*
 * Rebuilds changelog partition topic[p] (offsets lo..hi now) from the
 * local state of store partition p and checkpoints it at the offset after
 * the last record written (hi when nothing was written).  False after a
 * message: the process must stop, and the store partition stays marked,
 * so the next start finds the mismatch again.
 */
bool kafka_rebuild_changelog(stoat_kafka *k, stoat_store_part *p, const char *topic, int64_t lo, int64_t hi)
{
	rebuild r = { .k = k, .part = p, .topic = topic, .last_offset = -1 };
	stoat_arena_init(&r.arena);
	int32_t partition = stoat_store_part_partition(p);
	int64_t started = stoat_now_ms();
	char err[1024];
	bool ok = stoat_store_part_rebuild_begin(p, err, sizeof err);
	if (!ok)
		kafka_log(k, "error: rebuilding changelog %s[%" PRId32 "]: %s", topic, partition, err);
	ok = ok && find_stale_keys(&r, lo, hi);
	if (ok && !(r.producer = rebuild_producer(&r)))
		ok = false;
	ok = ok && write_all(&r);
	int64_t checkpoint = r.last_offset >= 0 ? r.last_offset + 1 : hi;
	if (ok && !stoat_store_part_rebuild_done(p, checkpoint, err, sizeof err)) {
		kafka_log(k, "error: rebuilding changelog %s[%" PRId32 "]: %s", topic, partition, err);
		ok = false;
	}
	if (ok)
		kafka_log(k, "rebuilt changelog %s[%" PRId32 "] from the local state: %" PRIu64 " records (%zu of them "
			  "tombstones for keys only the changelog had), checkpoint %" PRId64 " (%" PRId64 " ms)",
			  topic, partition, r.produced, r.stale_count, checkpoint, stoat_now_ms() - started);
	if (r.producer)
		rd_kafka_destroy(r.producer);
	free(r.stale);
	stoat_arena_free(&r.arena);
	return ok;
}
