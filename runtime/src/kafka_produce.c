/*
 * kafka_produce.c - producing: the Kafka driver's operations (driver.h),
 * which send emitted records, dead letters and changelog records through
 * the one producer.
 */
#include "kafka_impl.h"

#include <stdio.h>
#include <string.h>

/*
 * Produces one record, waiting while the local queue is full: to rkt, or
 * the topic named by topic_name or topic; to partition (UA: by key); with
 * the input's headers and extra unless opaque is set (a changelog record,
 * whose opaque is its store partition, for the delivery report).
 */
static bool produce(stoat_kafka *k, stoat_ctx *cx, rd_kafka_topic_t *rkt, const char *topic_name,
		    stoat_str topic, stoat_str key, stoat_str value, const stoat_header *extra, size_t extra_count,
		    int32_t partition, void *opaque)
{
	const stoat_msg *m = cx->msg;
	enum { MAX_VU = 80 };
	rd_kafka_vu_t vu[MAX_VU];
	size_t n = 0;
	char topic_buf[256];
	if (rkt) {
		vu[n].vtype = RD_KAFKA_VTYPE_RKT;
		vu[n++].u.rkt = rkt;
	} else {
		const char *name = topic_name;
		if (!name) {
			size_t len = topic.len < sizeof topic_buf - 1 ? topic.len : sizeof topic_buf - 1;
			memcpy(topic_buf, topic.ptr, len);
			topic_buf[len] = '\0';
			name = topic_buf;
		}
		vu[n].vtype = RD_KAFKA_VTYPE_TOPIC;
		vu[n++].u.cstr = name;
	}
	vu[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
	vu[n++].u.i = RD_KAFKA_MSG_F_COPY;
	vu[n].vtype = RD_KAFKA_VTYPE_KEY;
	vu[n].u.mem.ptr = (void *)key.ptr;
	vu[n++].u.mem.size = key.ptr ? key.len : 0;
	vu[n].vtype = RD_KAFKA_VTYPE_VALUE;
	vu[n].u.mem.ptr = (void *)value.ptr;
	vu[n++].u.mem.size = value.ptr ? value.len : 0;
	vu[n].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
	vu[n++].u.i64 = m->timestamp;
	if (partition != RD_KAFKA_PARTITION_UA) {
		vu[n].vtype = RD_KAFKA_VTYPE_PARTITION;
		vu[n++].u.i32 = partition;
	}
	if (opaque) {
		vu[n].vtype = RD_KAFKA_VTYPE_OPAQUE;
		vu[n++].u.ptr = opaque;
	}
	/* Headers travel with the record, as in Kafka Streams. */
	for (size_t i = 0; !opaque && i < m->header_count + extra_count && n < MAX_VU; i++) {
		const stoat_header *h = i < m->header_count ? &m->headers[i] : &extra[i - m->header_count];
		vu[n].vtype = RD_KAFKA_VTYPE_HEADER;
		char *name = stoat_arena_alloc(&cx->arena, h->key.len + 1);
		memcpy(name, h->key.ptr, h->key.len);
		name[h->key.len] = '\0';
		vu[n].u.header.name = name;
		vu[n].u.header.val = h->value.ptr;
		vu[n++].u.header.size = h->value.ptr ? (ssize_t)h->value.len : 0;
	}
	for (;;) {
		rd_kafka_error_t *e = rd_kafka_produceva(k->producer, vu, n);
		if (!e)
			return true;
		rd_kafka_resp_err_t code = rd_kafka_error_code(e);
		if (code == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
			rd_kafka_error_destroy(e);
			rd_kafka_poll(k->producer, 50);
			continue;
		}
		if (code == RD_KAFKA_RESP_ERR__FATAL || kafka_fenced_error(code) || k->fenced) {
			/* Not the record's fault: abandon the batch (see kafka_replace_producer). */
			char why[256];
			rd_kafka_resp_err_t orig = rd_kafka_fatal_error(k->producer, why, sizeof why);
			if (k->eos && (kafka_fenced_error(orig) || k->fenced)) {
				k->fenced = true;
			} else {
				kafka_log(k, "error: the producer failed: %s (fatal: stopping)", rd_kafka_error_string(e));
				k->fatal = true;
				kafka_stop_requested = 1;
			}
			cx->abandoned = true;
			stoat_error(cx, "producer failed");
			rd_kafka_error_destroy(e);
			return false;
		}
		stoat_error(cx, "cannot produce to %s: %s", rkt ? rd_kafka_topic_name(rkt) : vu[0].u.cstr,
			    rd_kafka_error_string(e));
		rd_kafka_error_destroy(e);
		return false;
	}
}

/* The driver's emit: to the sink's topic handle or the per-record topic;
 * logs the start-up time at the first output record. */
static bool kafka_emit(stoat_driver *d, stoat_ctx *cx, int sink, stoat_str topic, stoat_str key, stoat_str value)
{
	stoat_kafka *k = STOAT_CONTAINER_OF(d, stoat_kafka, driver);
	rd_kafka_topic_t *rkt = topic.ptr ? NULL : k->sink_topics[sink];
	if (!produce(k, cx, rkt, NULL, topic, key, value, NULL, 0, RD_KAFKA_PARTITION_UA, NULL))
		return false;
	if (STOAT_UNLIKELY(!k->first_output_logged) && !k->app->sinks[sink].internal) {
		/* Start-up time as users see it (and the benchmark measures). */
		k->first_output_logged = true;
		kafka_log(k, "first output record after %" PRId64 " ms", stoat_now_ms() - k->started_ms);
	}
	return true;
}

/* A store write's changelog record: same key, value (NULL: tombstone),
 * to the store partition's own changelog partition. */
static bool kafka_changelog_write(stoat_driver *d, stoat_ctx *cx, stoat_store_part *p, stoat_str key,
				  stoat_str value)
{
	stoat_kafka *k = STOAT_CONTAINER_OF(d, stoat_kafka, driver);
	rd_kafka_topic_t *rkt = k->changelog_topics[stoat_store_part_store(p)];
	return produce(k, cx, rkt, NULL, (stoat_str){ NULL, 0 }, key, value, NULL, 0, stoat_store_part_partition(p),
		       p);
}

/* The driver's dead letter: the input record's bytes to dlq_topic.  Not
 * being able to write it stops the process (the record would be lost). */
static void kafka_dead_letter(stoat_driver *d, stoat_ctx *cx, const char *dlq_topic, const stoat_header *extra,
			      size_t extra_count)
{
	stoat_kafka *k = STOAT_CONTAINER_OF(d, stoat_kafka, driver);
	const stoat_msg *m = cx->msg;
	cx->error = false; /* produce() records its own failure, if any */
	if (!produce(k, cx, NULL, dlq_topic, (stoat_str){ NULL, 0 }, m->key, m->value, extra, extra_count,
		     RD_KAFKA_PARTITION_UA, NULL) &&
	    !cx->abandoned) {
		kafka_log(k, "error: cannot dead-letter a record: %s", cx->error_message);
		k->fatal = true;
		kafka_stop_requested = 1;
	}
	cx->error = true;
}

const stoat_driver_ops kafka_driver_ops = {
	.name = "kafka",
	.emit = kafka_emit,
	.dead_letter = kafka_dead_letter,
	.changelog_write = kafka_changelog_write,
	.opens_parts_on_assignment = true,
};
