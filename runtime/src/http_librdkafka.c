/*
 * http_librdkafka.c - librdkafka's own statistics (the JSON its clients
 * hand the stats callback every statistics.interval.ms) folded into the
 * few figures the endpoint shows: queued messages and bytes, bytes sent
 * and received, per broker whether it is up and its round trip, and the
 * consumer's fetch queue.  The JSON is read with the runtime's own
 * reader (stoat_json); what is not needed is skipped.
 */
#include "http_impl.h"

#include <stddef.h>
#include <string.h>

/* Whether s is the C string lit. */
static bool is(stoat_str s, const char *lit)
{
	return s.len == strlen(lit) && memcmp(s.ptr, lit, s.len) == 0;
}

/* A broker object: its state, node id and "rtt": {"avg": microseconds}. */
static bool read_broker(stoat_json *j, stoat_str key, stoat_http_client *out)
{
	int64_t node_id = -1, rtt_us = 0;
	bool up = false;
	if (!stoat_json_object_begin(j))
		return false;
	stoat_str name;
	for (bool first = true; stoat_json_object_next(j, &first, &name);) {
		bool ok;
		if (is(name, "nodeid")) {
			ok = stoat_json_i64(j, &node_id);
		} else if (is(name, "state")) {
			stoat_str state;
			ok = stoat_json_string(j, &state);
			up = ok && is(state, "UP");
		} else if (is(name, "rtt")) {
			ok = stoat_json_object_begin(j);
			stoat_str f;
			for (bool first2 = true; ok && stoat_json_object_next(j, &first2, &f);)
				ok = is(f, "avg") ? stoat_json_i64(j, &rtt_us) : stoat_json_skip(j);
			ok = ok && !j->cx->error;
		} else {
			ok = stoat_json_skip(j);
		}
		if (!ok)
			return false;
	}
	if (j->cx->error)
		return false;
	/* Bootstrap entries (node id -1) are the configured addresses, not brokers. */
	if (node_id < 0 || out->broker_count == STOAT_HTTP_MAX_BROKERS)
		return true;
	stoat_http_broker *b = &out->brokers[out->broker_count++];
	size_t n = key.len < sizeof b->name - 1 ? key.len : sizeof b->name - 1;
	memcpy(b->name, key.ptr, n);
	b->name[n] = '\0';
	b->up = up;
	b->rtt_seconds = (double)rtt_us / 1e6;
	return true;
}

/* "topics": {"t": {"partitions": {"0": {"fetchq_cnt": n, ...}}}}: sums fetchq_cnt. */
static bool read_topics(stoat_json *j, stoat_http_client *out)
{
	if (!stoat_json_object_begin(j))
		return false;
	stoat_str topic;
	for (bool ft = true; stoat_json_object_next(j, &ft, &topic);) {
		if (!stoat_json_object_begin(j))
			return false;
		stoat_str field;
		for (bool ff = true; stoat_json_object_next(j, &ff, &field);) {
			if (!is(field, "partitions")) {
				if (!stoat_json_skip(j))
					return false;
				continue;
			}
			if (!stoat_json_object_begin(j))
				return false;
			stoat_str part;
			for (bool fp = true; stoat_json_object_next(j, &fp, &part);) {
				if (!stoat_json_object_begin(j))
					return false;
				stoat_str f;
				for (bool fq = true; stoat_json_object_next(j, &fq, &f);) {
					int64_t n;
					if (!is(f, "fetchq_cnt")) {
						if (!stoat_json_skip(j))
							return false;
					} else if (!stoat_json_i64(j, &n)) {
						return false;
					} else if (n > 0) {
						out->fetch_queue_messages += n;
					}
				}
				if (j->cx->error)
					return false;
			}
			if (j->cx->error)
				return false;
		}
		if (j->cx->error)
			return false;
	}
	return !j->cx->error;
}

/* Reads one statistics document (see http.h). */
bool stoat_http_parse_librdkafka_stats(stoat_str json, stoat_http_client *out)
{
	stoat_ctx cx;
	stoat_ctx_init(&cx, NULL, NULL);
	stoat_json j;
	stoat_json_init(&j, &cx, json);
	stoat_http_client c = { .known = true };
	bool ok = stoat_json_object_begin(&j);
	stoat_str name;
	for (bool first = true; ok && stoat_json_object_next(&j, &first, &name);) {
		if (is(name, "msg_cnt"))
			ok = stoat_json_i64(&j, &c.queue_messages);
		else if (is(name, "msg_size"))
			ok = stoat_json_i64(&j, &c.queue_bytes);
		else if (is(name, "tx_bytes"))
			ok = stoat_json_i64(&j, &c.sent_bytes);
		else if (is(name, "rx_bytes"))
			ok = stoat_json_i64(&j, &c.received_bytes);
		else if (is(name, "topics"))
			ok = read_topics(&j, &c);
		else if (is(name, "brokers")) {
			ok = stoat_json_object_begin(&j);
			stoat_str key;
			for (bool fb = true; ok && stoat_json_object_next(&j, &fb, &key);)
				ok = read_broker(&j, key, &c);
			ok = ok && !cx.error;
		} else {
			ok = stoat_json_skip(&j);
		}
	}
	ok = ok && !cx.error && stoat_json_end(&j);
	stoat_ctx_free(&cx);
	if (ok)
		*out = c;
	return ok;
}

/* One gauge or counter family over the two clients (those with statistics). */
static void client_family(http_expo *e, const stoat_http_stats *s, const char *name, const char *type,
			  const char *help, size_t offset)
{
	const stoat_http_client *clients[2] = { &s->producer, &s->consumer };
	static const char *const roles[2] = { "producer", "consumer" };
	http_family(e, name, type, help);
	for (int i = 0; i < 2; i++) {
		if (!clients[i]->known)
			continue;
		const char *labels[] = { "client", roles[i], NULL };
		int64_t v;
		memcpy(&v, (const char *)clients[i] + offset, sizeof v);
		http_sample_u64(e, name, labels, v > 0 ? (uint64_t)v : 0);
	}
}

/* librdkafka's families of /metrics (see http_impl.h). */
void http_librdkafka_metrics(http_expo *e, const stoat_http_stats *s)
{
	if (!s || (!s->producer.known && !s->consumer.known))
		return;
	client_family(e, s, "stoat_kafka_queue_messages", "gauge",
		      "Records in librdkafka's producer queue, not yet delivered (msg_cnt).",
		      offsetof(stoat_http_client, queue_messages));
	client_family(e, s, "stoat_kafka_queue_bytes", "gauge", "Their bytes (msg_size).",
		      offsetof(stoat_http_client, queue_bytes));
	client_family(e, s, "stoat_kafka_fetch_queue_messages", "gauge",
		      "Records fetched and waiting to be processed (the partitions' fetchq_cnt).",
		      offsetof(stoat_http_client, fetch_queue_messages));
	client_family(e, s, "stoat_kafka_sent_bytes_total", "counter", "Bytes sent to the brokers (tx_bytes).",
		      offsetof(stoat_http_client, sent_bytes));
	client_family(e, s, "stoat_kafka_received_bytes_total", "counter",
		      "Bytes received from the brokers (rx_bytes).", offsetof(stoat_http_client, received_bytes));
	const stoat_http_client *clients[2] = { &s->producer, &s->consumer };
	static const char *const roles[2] = { "producer", "consumer" };
	http_family(e, "stoat_kafka_broker_up", "gauge", "1 while the client's connection to the broker is UP.");
	for (int i = 0; i < 2; i++)
		for (size_t b = 0; b < clients[i]->broker_count; b++) {
			const char *labels[] = { "client", roles[i], "broker", clients[i]->brokers[b].name, NULL };
			http_sample_u64(e, "stoat_kafka_broker_up", labels, clients[i]->brokers[b].up);
		}
	http_family(e, "stoat_kafka_broker_rtt_seconds", "gauge",
		    "The average round trip to the broker over the last statistics interval.");
	for (int i = 0; i < 2; i++)
		for (size_t b = 0; b < clients[i]->broker_count; b++) {
			if (!clients[i]->brokers[b].up)
				continue;
			const char *labels[] = { "client", roles[i], "broker", clients[i]->brokers[b].name, NULL };
			http_sample_f64(e, "stoat_kafka_broker_rtt_seconds", labels, clients[i]->brokers[b].rtt_seconds);
		}
}
