/*
 * kafka_produce.c - producing: the Kafka driver's operations (driver.h),
 * which send emitted records, dead letters and changelog records through
 * the one producer, and the delivery reports that come back.
 *
 * A record the cluster refuses (too large, no such topic or partition)
 * is never the input record's fault, so no error policy applies to it:
 * skipping or dead-lettering a valid record would lose it.  The process
 * stops without committing (exit status 3), and the message says what to
 * change, since every restart meets the same record again.
 */
#include "kafka_impl.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Delivery errors printed one by one; the rest are only counted. */
enum { DELIVERY_ERRORS_SHOWN = 5 };

/*
 * The headers of a produced record: the input's, then extra; NULL when
 * there are none.  The caller owns them until rd_kafka_produceva()
 * succeeds, and then librdkafka does.
 *
 * Why a list of our own (RD_KAFKA_VTYPE_HEADERS) rather than one
 * RD_KAFKA_VTYPE_HEADER per header: with the latter, librdkafka 2.0.2's
 * rd_kafka_produceva() builds the list itself and, when the partitioner
 * refuses the record (a topic deleted or unknown to the cluster, an
 * invalid topic name), frees it twice: once with the message, once on
 * its way out (upstream confluentinc/librdkafka#4627, still open).  A
 * list the application passes is detached from the message before that
 * and left to the application on every error path of produceva() (an
 * earlier check, a record over message.max.bytes, a full queue, the
 * partitioner), so freeing it here after any error frees it once.
 */
static rd_kafka_headers_t *record_headers(stoat_ctx *cx, const stoat_msg *m, const stoat_header *extra,
					  size_t extra_count)
{
	stoat_msg_load_headers(cx, m);
	size_t count = m->header_count + extra_count;
	if (count == 0)
		return NULL;
	rd_kafka_headers_t *hdrs = rd_kafka_headers_new(count);
	for (size_t i = 0; i < count; i++) {
		const stoat_header *h = i < m->header_count ? &m->headers[i] : &extra[i - m->header_count];
		/* A NULL value stays a null header, as in Kafka. */
		rd_kafka_header_add(hdrs, h->key.ptr, (ssize_t)h->key.len, h->value.ptr,
				    h->value.ptr ? (ssize_t)h->value.len : 0);
	}
	return hdrs;
}

/* What to do about a record the cluster refused with code; NULL: no advice. */
static const char *write_error_hint(rd_kafka_resp_err_t code)
{
	switch (code) {
	case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
	case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
		return "raise the producer's message.max.bytes (default 1000000: -X producer.message.max.bytes=N) "
		       "and the topic's max.message.bytes, or change the program so that its records fit";
	case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
	case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
		return "create the topic";
	case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
		return "Kafka refuses the topic's name";
	case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
		return "the topic has fewer partitions than the record needs";
	case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
		return "grant the application Write on the topic";
	default:
		return NULL;
	}
}

/*
 * A record the cluster refused at once: logs the error with the input
 * record, the topic and what to do; stops the process without
 * committing and abandons the batch (no error policy applies; see the
 * top of the file).  `what`: "an output", "the dead letter", ...
 */
static void write_failed(stoat_kafka *k, stoat_ctx *cx, const char *what, const char *topic, int32_t partition,
			 const rd_kafka_error_t *e)
{
	const stoat_msg *m = cx->msg;
	char part[24] = "", record[600] = "";
	if (partition != RD_KAFKA_PARTITION_UA)
		snprintf(part, sizeof part, "[%" PRId32 "]", partition);
	if (m)
		snprintf(record, sizeof record, " of record %s/%" PRId32 "@%" PRId64, cx->source ? cx->source->topic : "?",
			 m->partition, m->offset);
	const char *hint = write_error_hint(rd_kafka_error_code(e));
	kafka_log(k, "error: cannot write %s%s to topic %s%s: %s; stopping without committing: the input record is "
		     "not at fault, so no error policy applies, and the next run processes it again%s%s%s",
		  what, record, topic, part, rd_kafka_error_string(e), hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
	stoat_error(cx, "cannot write %s to topic %s%s: %s", what, topic, part, rd_kafka_error_string(e));
	k->fatal = true;
	kafka_stop_requested = 1;
	cx->abandoned = true;
}

/*
 * Produces one record, waiting while the local queue is full: to rkt, or
 * the topic named by topic_name or topic; to partition (UA: by key); at
 * timestamp; with the input's headers and extra unless opaque is set (a changelog record,
 * whose opaque is its store partition, for the delivery report).  False
 * when the record could not be written: the batch is abandoned (cx), and
 * the process stops unless the producer was fenced (it is replaced).
 */
static bool produce(stoat_kafka *k, stoat_ctx *cx, rd_kafka_topic_t *rkt, const char *topic_name,
		    stoat_str topic, stoat_str key, stoat_str value, const stoat_header *extra, size_t extra_count,
		    int32_t partition, int64_t timestamp, void *opaque, const char *what)
{
	const stoat_msg *m = cx->msg;
	enum { MAX_VU = 10 };
	rd_kafka_vu_t vu[MAX_VU];
	size_t n = 0;
	char topic_buf[256];
	const char *name = topic_name;
	if (rkt) {
		vu[n].vtype = RD_KAFKA_VTYPE_RKT;
		vu[n++].u.rkt = rkt;
		name = rd_kafka_topic_name(rkt);
	} else {
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
	vu[n++].u.i64 = timestamp;
	if (partition != RD_KAFKA_PARTITION_UA) {
		vu[n].vtype = RD_KAFKA_VTYPE_PARTITION;
		vu[n++].u.i32 = partition;
	}
	if (opaque) {
		vu[n].vtype = RD_KAFKA_VTYPE_OPAQUE;
		vu[n++].u.ptr = opaque;
	}
	/* Headers travel with the record, as in Kafka Streams. */
	rd_kafka_headers_t *hdrs = opaque ? NULL : record_headers(cx, m, extra, extra_count);
	if (hdrs) {
		vu[n].vtype = RD_KAFKA_VTYPE_HEADERS;
		vu[n++].u.headers = hdrs;
	}
	assert(n <= MAX_VU);
	for (;;) {
		rd_kafka_error_t *e = rd_kafka_produceva(k->producer, vu, n);
		if (!e)
			return true; /* hdrs are librdkafka's now */
		rd_kafka_resp_err_t code = rd_kafka_error_code(e);
		if (code == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
			rd_kafka_error_destroy(e);
			rd_kafka_poll(k->producer, 50);
			continue;
		}
		/* Every error return leaves the headers ours: see record_headers. */
		if (hdrs)
			rd_kafka_headers_destroy(hdrs);
		if (code == RD_KAFKA_RESP_ERR__FATAL || rd_kafka_error_is_fatal(e) || kafka_fenced_error(code) ||
		    k->fenced) {
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
		} else if (k->eos && code == RD_KAFKA_RESP_ERR__STATE) {
			/*
			 * The transaction is in an abortable error state (outputs
			 * of it failed delivery, say the broker was away longer than
			 * message.timeout.ms), so librdkafka takes no more records
			 * into it.  Not the record's fault, nor fatal: the batch is
			 * abandoned and the main loop aborts the transaction and
			 * rewinds, as after the delivery failure itself.
			 */
			if (!k->delivery_error[0])
				snprintf(k->delivery_error, sizeof k->delivery_error, "cannot write %s to topic %s: %s", what,
					 name, rd_kafka_error_string(e));
			cx->abandoned = true;
			stoat_error(cx, "the transaction must be aborted");
		} else {
			write_failed(k, cx, what, name, partition, e);
		}
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
	if (!produce(k, cx, rkt, NULL, topic, key, value, NULL, 0, RD_KAFKA_PARTITION_UA, cx->timestamp, NULL,
		     "an output"))
		return false;
	k->sink_produced[sink]++;
	if (k->http)
		stoat_histogram_observe(&k->sink_e2e[sink], (double)(k->wall_ms - cx->timestamp) / 1000.0);
	if (STOAT_UNLIKELY(!k->first_output_logged) && !k->app->sinks[sink].internal) {
		/* Start-up time as users see it (and the benchmark measures). */
		k->first_output_logged = true;
		kafka_log_event(k, "first_output", "first output record after %" PRId64 " ms", stoat_now_ms() - k->started_ms);
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
		       cx->timestamp, p, "a changelog record");
}

/* The driver's dead letter: the input record's bytes to dlq_topic.  Not
 * being able to write it stops the process (the record would be lost):
 * produce() says why and abandons the batch. */
static void kafka_dead_letter(stoat_driver *d, stoat_ctx *cx, const char *dlq_topic, const stoat_header *extra,
			      size_t extra_count)
{
	stoat_kafka *k = STOAT_CONTAINER_OF(d, stoat_kafka, driver);
	const stoat_msg *m = cx->msg;
	cx->error = false; /* produce() records its own failure, if any */
	produce(k, cx, NULL, dlq_topic, (stoat_str){ NULL, 0 }, m->key, m->value, extra, extra_count,
		RD_KAFKA_PARTITION_UA, m->timestamp, NULL, "the dead letter");
	cx->error = true;
}

/*
 * The producer's delivery reports.  A failure is printed with its topic
 * and partition (the first DELIVERY_ERRORS_SHOWN of the run; the rest
 * are counted), and the first one since the last commit or abort is kept
 * in delivery_error: the loop and the commit act on it.  A changelog
 * record's report carries its store partition: its checkpoint.
 */
void kafka_delivery_report(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	stoat_kafka *k = opaque;
	(void)rk;
	if (!m->err) {
		if (m->_private)
			stoat_store_part_acked(m->_private, m->offset);
		return;
	}
	const char *topic = rd_kafka_topic_name(m->rkt);
	char part[24] = "";
	if (m->partition != RD_KAFKA_PARTITION_UA)
		snprintf(part, sizeof part, " partition %" PRId32, m->partition);
	k->delivery_failures++;
	k->last_delivery_failure_ms = stoat_now_ms();
	snprintf(k->last_delivery_error, sizeof k->last_delivery_error, "cannot write to topic %s%s: %s", topic, part,
		 rd_kafka_err2str(m->err));
	if (!k->delivery_error[0])
		memcpy(k->delivery_error, k->last_delivery_error, sizeof k->delivery_error);
	/* Refused for good: a retry would meet the same refusal (see the top
	 * of the file).  Other failures abort the transaction (exactly-once),
	 * and the records are produced again. */
	bool permanent = m->err == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE ||
			 m->err == RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE || m->err == RD_KAFKA_RESP_ERR_INVALID_RECORD ||
			 m->err == RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION ||
			 m->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED;
	if (permanent) {
		k->fatal = true;
		kafka_stop_requested = 1;
	}
	const char *hint = write_error_hint(m->err);
	if (k->delivery_failures <= DELIVERY_ERRORS_SHOWN) {
		kafka_log(k, "error: cannot write a record to topic %s%s: %s%s%s%s%s%s", topic, part, rd_kafka_err2str(m->err),
			  hint ? " (" : "", hint ? hint : "", hint ? ")" : "",
			  permanent ? "; stopping without committing" : "",
			  k->delivery_failures == DELIVERY_ERRORS_SHOWN ? "; further ones are counted at 10, 100, 1000, ..."
									: "");
		return;
	}
	uint64_t power = 10;
	while (power < k->delivery_failures && power <= UINT64_MAX / 10)
		power *= 10;
	if (k->delivery_failures == power)
		kafka_log(k, "error: %" PRIu64 " records could not be written so far (the last: %s)", k->delivery_failures,
			  k->last_delivery_error);
}

const stoat_driver_ops kafka_driver_ops = {
	.name = "kafka",
	.emit = kafka_emit,
	.dead_letter = kafka_dead_letter,
	.changelog_write = kafka_changelog_write,
	.load_headers = kafka_load_headers,
	.opens_parts_on_assignment = true,
};
