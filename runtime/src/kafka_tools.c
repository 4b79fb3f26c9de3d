/*
 * kafka_tools.c - `load` (replay-format files into the source topics,
 * through the replay reader) and `dump` (topics as replay-format lines;
 * a store's changelog as its entries, decoded with the store's types,
 * store_dump.h).
 */
#include "kafka_impl.h"
#include "replay.h"
#include "store_dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct load_state {
	stoat_kafka *k;
	uint64_t produced;
	bool failed;
} load_state;

/*
 * The partition to produce a loaded record to: the one its line named, or
 * none (RD_KAFKA_PARTITION_UA) so that the producer's partitioner
 * (murmur2_random, Kafka's Java default: murmur2 of the key; a null key
 * goes anywhere) places it where the replay driver's output would be.
 */
static int32_t load_partition(const stoat_msg *m, bool partition_given)
{
	return partition_given ? m->partition : RD_KAFKA_PARTITION_UA;
}

/* The batch hook of the replay reader: produce each record as given. */
static void load_batch(void *arg, stoat_ctx *cx, const stoat_msg *msgs, const bool *partition_given, size_t n)
{
	load_state *ls = arg;
	stoat_kafka *k = ls->k;
	const char *topic = cx->source->topic;
	for (size_t i = 0; i < n && !ls->failed; i++) {
		const stoat_msg *m = &msgs[i];
		int32_t partition = load_partition(m, partition_given[i]);
		rd_kafka_headers_t *hdrs = m->header_count ? rd_kafka_headers_new(m->header_count) : NULL;
		for (size_t h = 0; h < m->header_count; h++)
			rd_kafka_header_add(hdrs, m->headers[h].key.ptr, (ssize_t)m->headers[h].key.len,
					    m->headers[h].value.ptr, m->headers[h].value.ptr ? (ssize_t)m->headers[h].value.len : 0);
		for (;;) {
			rd_kafka_resp_err_t err = rd_kafka_producev(
				k->producer, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(partition),
				RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
				RD_KAFKA_V_KEY((void *)m->key.ptr, m->key.ptr ? m->key.len : 0),
				RD_KAFKA_V_VALUE((void *)m->value.ptr, m->value.ptr ? m->value.len : 0),
				RD_KAFKA_V_TIMESTAMP(m->timestamp), RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_END);
			if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL && !k->delivery_error[0]) {
				/* Room comes with deliveries, or their failure (message.timeout.ms). */
				rd_kafka_poll(k->producer, 50);
				continue;
			}
			if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
				if (hdrs)
					rd_kafka_headers_destroy(hdrs);
				ls->failed = true;
				break;
			}
			if (err) {
				if (partition == RD_KAFKA_PARTITION_UA)
					fprintf(stderr, "%s: error: cannot produce to %s: %s\n", k->app->app_id, topic,
						rd_kafka_err2str(err));
				else
					fprintf(stderr, "%s: error: cannot produce to %s[%" PRId32 "]: %s\n", k->app->app_id,
						topic, partition, rd_kafka_err2str(err));
				if (hdrs)
					rd_kafka_headers_destroy(hdrs);
				ls->failed = true;
			} else {
				ls->produced++;
			}
			break;
		}
		if (k->delivery_error[0])
			ls->failed = true;
	}
}

/*
 * The `load` command: reads the files with the replay reader and
 * produces every record to its source topic; waits for all deliveries.
 */
int stoat_kafka_load(const stoat_app *app, const stoat_kafka_options *opt, const char **inputs, size_t n)
{
	stoat_kafka *k = stoat_xcalloc(1, sizeof *k);
	k->app = app;
	k->opt = opt;
	k->prog = app->app_id;
	/* Loading is a one-off: give up on an unreachable cluster. */
	k->one_off = true;
	k->producer = kafka_new_producer(k, false);
	if (!k->producer) {
		free(k);
		return STOAT_EXIT_USAGE;
	}
	if (!kafka_wait_for_cluster(k->producer, KAFKA_TOOL_CONNECT_MS)) {
		fprintf(stderr, "%s: error: cannot reach the Kafka cluster at %s (no answer within %d s)\n", app->app_id,
			opt->bootstrap_servers, KAFKA_TOOL_CONNECT_MS / 1000);
		rd_kafka_destroy(k->producer);
		free(k);
		return STOAT_EXIT_IO;
	}
	load_state ls = { .k = k };
	stoat_replay_options ro;
	memset(&ro, 0, sizeof ro);
	ro.policy_override = STOAT_POLICY_DEFAULT;
	ro.batch_max = 1024;
	ro.inputs = inputs;
	ro.input_count = n;
	ro.output_path = "/dev/null";
	ro.batch_hook = load_batch;
	ro.hook_arg = &ls;
	int status = stoat_replay_run(app, &ro);
	if (status == STOAT_EXIT_OK && !ls.failed) {
		int64_t start = stoat_now_ms();
		while (rd_kafka_outq_len(k->producer) > 0 && !k->delivery_error[0]) {
			rd_kafka_poll(k->producer, 100);
			if (stoat_now_ms() - start > 120000) {
				snprintf(k->delivery_error, sizeof k->delivery_error, "timed out waiting for the cluster");
				break;
			}
		}
	}
	if (k->delivery_error[0]) {
		fprintf(stderr, "%s: error: %s\n", app->app_id, k->delivery_error);
		status = STOAT_EXIT_IO;
	} else if (ls.failed && status == STOAT_EXIT_OK) {
		status = STOAT_EXIT_IO;
	}
	if (status == STOAT_EXIT_OK)
		fprintf(stderr, "%s: loaded %" PRIu64 " records\n", app->app_id, ls.produced);
	rd_kafka_destroy(k->producer);
	free(k);
	return status;
}

/* The formats to present a topic's records with: its sink's or source's. */
static void topic_formats(const stoat_app *app, const char *topic, stoat_format *kf, stoat_format *vf)
{
	*kf = *vf = STOAT_FMT_BYTES;
	for (size_t i = 0; i < app->sink_count; i++)
		if (app->sinks[i].topic && strcmp(app->sinks[i].topic, topic) == 0) {
			*kf = app->sinks[i].key_format;
			*vf = app->sinks[i].value_format;
			return;
		}
	for (size_t i = 0; i < app->source_count; i++)
		if (strcmp(app->sources[i].topic, topic) == 0) {
			*kf = app->sources[i].key_format;
			*vf = app->sources[i].value_format;
			return;
		}
	/* Per-record topics share their sink's formats; a DLQ topic is bytes. */
	for (size_t i = 0; i < app->sink_count; i++)
		if (!app->sinks[i].topic) {
			*kf = app->sinks[i].key_format;
			*vf = app->sinks[i].value_format;
		}
	if ((app->dlq_topic && strcmp(app->dlq_topic, topic) == 0))
		*kf = *vf = STOAT_FMT_BYTES;
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].dlq_topic && strcmp(app->sources[i].dlq_topic, topic) == 0)
			*kf = *vf = STOAT_FMT_BYTES;
}

/*
 * The `dump` command: reads every partition of the topics from the
 * beginning and prints each record as a replay-format line (a record of
 * one of the application's changelogs as the store entry it is:
 * stoat_format_changelog_line), until all are at their end and idle_ms
 * passed without a record.
 */
int stoat_kafka_dump(const stoat_app *app, const stoat_kafka_options *opt, const char **topics, size_t n,
		     int64_t idle_ms, bool read_committed)
{
	const char *prog = app->app_id;
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char err[512];
	/* Sized to the id: cut short, the pid would go and two dumps would
	 * share a group (and split the partitions between them). */
	size_t group_size = strlen(app->app_id) + sizeof "-dump-" + 3 * sizeof(int);
	char *group = stoat_xmalloc(group_size);
	snprintf(group, group_size, "%s-dump-%d", app->app_id, (int)getpid());
	stoat_kafka k0;
	memset(&k0, 0, sizeof k0);
	k0.app = app;
	k0.opt = opt;
	bool ok = kafka_conf_set(conf, prog, "bootstrap.servers", opt->bootstrap_servers) &&
		  kafka_conf_set(conf, prog, "group.id", group) &&
		  kafka_conf_set(conf, prog, "enable.auto.commit", "false") &&
		  kafka_conf_set(conf, prog, "enable.partition.eof", "true") &&
		  kafka_conf_set(conf, prog, "isolation.level", read_committed ? "read_committed" : "read_uncommitted") &&
		  kafka_conf_user(conf, opt, prog, "consumer");
	free(group); /* the configuration holds a copy */
	if (!ok) {
		rd_kafka_conf_destroy(conf);
		return STOAT_EXIT_USAGE;
	}
	rd_kafka_conf_set_opaque(conf, &k0);
	rd_kafka_conf_set_error_cb(conf, kafka_error_cb);
	rd_kafka_conf_set_log_cb(conf, kafka_librdkafka_log);
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
	if (!rk) {
		fprintf(stderr, "%s: error: cannot create the Kafka consumer: %s\n", prog, err);
		return STOAT_EXIT_USAGE;
	}
	/* Every partition of every topic, from the beginning. */
	rd_kafka_topic_partition_list_t *assign = rd_kafka_topic_partition_list_new(16);
	int status = STOAT_EXIT_OK;
	if (!kafka_wait_for_cluster(rk, KAFKA_TOOL_CONNECT_MS)) {
		fprintf(stderr, "%s: error: cannot reach the Kafka cluster at %s (no answer within %d s)\n", prog,
			opt->bootstrap_servers, KAFKA_TOOL_CONNECT_MS / 1000);
		status = STOAT_EXIT_IO;
	}
	for (size_t t = 0; t < n && status == STOAT_EXIT_OK; t++) {
		rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topics[t], NULL);
		const struct rd_kafka_metadata *md = NULL;
		rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
		if (e || md->topic_cnt != 1 || md->topics[0].err) {
			fprintf(stderr, "%s: error: topic %s: %s\n", prog, topics[t],
				rd_kafka_err2str(e ? e : md->topic_cnt ? md->topics[0].err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
			status = STOAT_EXIT_IO;
		} else {
			for (int p = 0; p < md->topics[0].partition_cnt; p++)
				rd_kafka_topic_partition_list_add(assign, topics[t], md->topics[0].partitions[p].id)->offset =
					RD_KAFKA_OFFSET_BEGINNING;
		}
		if (md)
			rd_kafka_metadata_destroy(md);
		rd_kafka_topic_destroy(rkt);
	}
	if (status == STOAT_EXIT_OK && rd_kafka_assign(rk, assign)) {
		fprintf(stderr, "%s: error: cannot assign partitions\n", prog);
		status = STOAT_EXIT_IO;
	}
	int eof_left = assign->cnt;
	rd_kafka_topic_partition_list_destroy(assign);
	stoat_ctx check;
	memset(&check, 0, sizeof check);
	check.app = app;
	stoat_arena_init(&check.arena);
	stoat_buf out;
	stoat_buf_init(&out);
	int64_t last = stoat_now_ms();
	uint64_t count = 0;
	while (status == STOAT_EXIT_OK) {
		rd_kafka_message_t *r = rd_kafka_consumer_poll(rk, 100);
		if (!r) {
			if (eof_left <= 0 && stoat_now_ms() - last >= idle_ms)
				break;
			continue;
		}
		if (r->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
			eof_left--;
			last = stoat_now_ms();
		} else if (r->err) {
			fprintf(stderr, "%s: warning: %s\n", prog, rd_kafka_message_errstr(r));
		} else {
			last = stoat_now_ms();
			const char *topic = rd_kafka_topic_name(r->rkt);
			stoat_format kf, vf;
			topic_formats(app, topic, &kf, &vf);
			rd_kafka_timestamp_type_t tt;
			int64_t ts = rd_kafka_message_timestamp(r, &tt);
			stoat_header hs[64];
			size_t hn = 0;
			rd_kafka_headers_t *hdrs;
			if (rd_kafka_message_headers(r, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
				const char *name;
				const void *val;
				size_t size;
				while (hn < 64 && rd_kafka_header_get_all(hdrs, hn, &name, &val, &size) == 0) {
					hs[hn].key = (stoat_str){ name, strlen(name) };
					hs[hn].value = (stoat_str){ val, val ? size : 0 };
					hn++;
				}
			}
			out.len = 0;
			int store = stoat_store_of_changelog(app, topic);
			if (store >= 0)
				(void)stoat_format_changelog_line(&out, &check, app, store, (stoat_str){ topic, strlen(topic) },
								  r->partition, r->offset, ts < 0 ? 0 : ts,
								  (stoat_str){ r->key, r->key ? r->key_len : 0 },
								  (stoat_str){ r->payload, r->payload ? r->len : 0 });
			else
				stoat_format_record_line(&out, &check, (stoat_str){ topic, strlen(topic) }, r->partition,
							 r->offset, ts < 0 ? 0 : ts, kf,
							 (stoat_str){ r->key, r->key ? r->key_len : 0 }, vf,
							 (stoat_str){ r->payload, r->payload ? r->len : 0 }, hs, hn, NULL, 0);
			fwrite(out.data, 1, out.len, stdout);
			count++;
		}
		rd_kafka_message_destroy(r);
	}
	fflush(stdout);
	if (status == STOAT_EXIT_OK)
		fprintf(stderr, "%s: dumped %" PRIu64 " records\n", prog, count);
	stoat_buf_free(&out);
	stoat_arena_free(&check.arena);
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	return status;
}
