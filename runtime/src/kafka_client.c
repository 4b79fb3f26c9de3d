/*
 * kafka_client.c - the Kafka driver's clients: librdkafka properties (ours,
 * then the user's), the callbacks every client shares, the producer, the
 * consumer and the changelog reader, the topic handles of the sinks and
 * changelogs, and the driver's log.
 */
#include "kafka_impl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A line of the driver's log (log.h): its level from the message's front. */
void kafka_log(const stoat_kafka *k, const char *fmt, ...)
{
	(void)k;
	va_list ap;
	va_start(ap, fmt);
	stoat_log_leveled(NULL, fmt, ap);
	va_end(ap);
}

/* The same, naming the event for the JSON log. */
void kafka_log_event(const stoat_kafka *k, const char *event, const char *fmt, ...)
{
	(void)k;
	va_list ap;
	va_start(ap, fmt);
	stoat_log_leveled(event, fmt, ap);
	va_end(ap);
}

/*
 * librdkafka's own lines (log_cb), through the same log, secrets blotted
 * out (log.h's redact): syslog levels 0-3 are errors, 4 warnings, 5-6
 * info, 7 debug.  Called from librdkafka's threads; the log is safe there.
 */
void kafka_librdkafka_log(const rd_kafka_t *rk, int level, const char *facility, const char *buf)
{
	(void)rk;
	stoat_log_level l = level <= 3 ? STOAT_LOG_ERROR
			    : level == 4 ? STOAT_LOG_WARNING
			    : level <= 6 ? STOAT_LOG_INFO
					 : STOAT_LOG_DEBUG;
	stoat_log(l, "librdkafka", NULL, "librdkafka: %s: %s", facility, buf);
}

/* Sets a property, reporting a bad one (never a secret: config.c); false on error. */
bool kafka_conf_set(rd_kafka_conf_t *conf, const char *prog, const char *name, const char *value)
{
	char err[512];
	rd_kafka_conf_res_t res = rd_kafka_conf_set(conf, name, value, err, sizeof err);
	if (res != RD_KAFKA_CONF_OK) {
		stoat_kafka_prop_refused(prog, NULL, name, value, res == RD_KAFKA_CONF_UNKNOWN, err);
		return false;
	}
	return true;
}

/* Applies user properties meant for `role` ("consumer" or "producer"). */
bool kafka_conf_user(rd_kafka_conf_t *conf, const stoat_kafka_options *opt, const char *prog, const char *role)
{
	size_t rl = strlen(role);
	for (size_t i = 0; i < opt->prop_count; i++) {
		const char *name = opt->props[i].name;
		bool for_consumer = strncmp(name, "consumer.", 9) == 0;
		bool for_producer = strncmp(name, "producer.", 9) == 0;
		if (for_consumer || for_producer) {
			if (strncmp(name, role, rl) != 0 || name[rl] != '.')
				continue;
			name += rl + 1;
		}
		if (!kafka_conf_set(conf, prog, name, opt->props[i].value))
			return false;
	}
	return true;
}

/* Errors saying a newer producer epoch exists for our transactional id. */
bool kafka_fenced_error(rd_kafka_resp_err_t e)
{
	return e == RD_KAFKA_RESP_ERR__FENCED || e == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
	       e == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
}

/* Logs client errors; connection trouble at most every 10 s. */
void kafka_error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	stoat_kafka *k = opaque;
	(void)rk;
	if (err == RD_KAFKA_RESP_ERR__FATAL) {
		char why[512];
		rd_kafka_resp_err_t orig = rd_kafka_fatal_error(rk, why, sizeof why);
		if (k->eos && rk == k->producer && kafka_fenced_error(orig)) {
			/* Handled where the transactional call fails: see replace_producer. */
			k->fenced = true;
			return;
		}
		kafka_log(k, "error: fatal Kafka error: %s: %s", rd_kafka_err2name(orig), why);
		k->fatal = true;
		kafka_stop_requested = 1;
		return;
	}
	int64_t now = stoat_now_ms();
	if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN || err == RD_KAFKA_RESP_ERR__TRANSPORT ||
	    err == RD_KAFKA_RESP_ERR__RESOLVE) {
		if (now - k->last_warn_ms < 10000)
			return;
		k->last_warn_ms = now;
		kafka_log_event(k, "kafka_unreachable", "warning: cannot reach the Kafka cluster at %s (%s); retrying", k->opt->bootstrap_servers,
		      reason);
		return;
	}
	kafka_log(k, "warning: Kafka: %s: %s", rd_kafka_err2name(err), reason);
}

/*
 * (kafka_impl.h)  Finishes a client: the user's properties for role
 * ("producer" or "consumer") go last, so they win; then opaque and the
 * error callback, and the client itself.  conf is consumed; NULL after a
 * message (naming `what`, with secrets masked) when a property was
 * refused (ok false: one of the caller's) or creation failed.
 */
rd_kafka_t *kafka_make_client(stoat_kafka *k, rd_kafka_conf_t *conf, bool ok, const char *role,
			      rd_kafka_type_t type, const char *what, void *opaque,
			      void (*error_cb)(rd_kafka_t *, int, const char *, void *))
{
	if (!ok || !kafka_conf_user(conf, k->opt, k->prog, role)) {
		rd_kafka_conf_destroy(conf);
		return NULL;
	}
	rd_kafka_conf_set_opaque(conf, opaque);
	rd_kafka_conf_set_error_cb(conf, error_cb);
	rd_kafka_conf_set_log_cb(conf, kafka_librdkafka_log);
	char err[512];
	rd_kafka_t *rk = rd_kafka_new(type, conf, err, sizeof err);
	if (!rk) {
		stoat_kafka_redact(k->opt, err);
		stoat_log(STOAT_LOG_ERROR, NULL, NULL, "cannot create %s: %s", what, err);
	}
	return rk;
}

/* A client of the driver's own: opaque k, errors to kafka_error_cb. */
static rd_kafka_t *make_client(stoat_kafka *k, rd_kafka_conf_t *conf, bool ok, const char *role,
			       rd_kafka_type_t type, const char *what)
{
	return kafka_make_client(k, conf, ok, role, type, what, k, kafka_error_cb);
}

/*
 * With the endpoint on, librdkafka's statistics every 5 s (a user's
 * statistics.interval.ms, applied after, wins) for its gauges.
 */
static bool with_statistics(stoat_kafka *k, rd_kafka_conf_t *conf)
{
	if (k->opt->http_port < 0)
		return true;
	rd_kafka_conf_set_stats_cb(conf, kafka_stats_cb);
	return kafka_conf_set(conf, k->prog, "statistics.interval.ms", "5000");
}

/*
 * The producer: idempotent, zstd, murmur2 partitioning as Kafka's Java
 * default; transactional under exactly-once, retrying forever otherwise.
 */
rd_kafka_t *kafka_new_producer(stoat_kafka *k, bool transactional)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	bool ok = kafka_conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  kafka_conf_set(conf, k->prog, "client.id", k->app->app_id) &&
		  kafka_conf_set(conf, k->prog, "enable.idempotence", "true") &&
		  kafka_conf_set(conf, k->prog, "acks", "all") &&
		  kafka_conf_set(conf, k->prog, "compression.type", "zstd") &&
		  kafka_conf_set(conf, k->prog, "linger.ms", "5") &&
		  kafka_conf_set(conf, k->prog, "batch.num.messages", "10000") &&
		  kafka_conf_set(conf, k->prog, "queue.buffering.max.messages", k->opt->memory == STOAT_MEMORY_LOW ? "100000" : "1000000") &&
		  kafka_conf_set(conf, k->prog, "queue.buffering.max.kbytes", k->opt->memory == STOAT_MEMORY_LOW ? "32768" : "262144") &&
		  /* Kafka's Java default partitioner: murmur2 of the key. */
		  kafka_conf_set(conf, k->prog, "partitioner", "murmur2_random") &&
		  kafka_conf_set(conf, k->prog, "topic.metadata.refresh.interval.ms", "10000");
	if (ok && transactional) {
		/*
		 * 10 s, Kafka Streams' value: a transaction left open by an
		 * instance that died holds back read_committed readers and the
		 * instance taking over its partitions until it times out.  It is
		 * shorter than a broker restart, and a transaction coordinator
		 * that comes back after a crash aborts the transactions that
		 * timed out meanwhile as soon as it has loaded them, before its
		 * broker has rejoined the cluster; Kafka (4.4 here) then takes
		 * the leaderless output partitions for deleted topics and skips
		 * their abort markers ("Couldn't find leader endpoint for
		 * partitions ... likely deleted already and hence can be
		 * skipped", KAFKA-5202), and the next transaction of the same
		 * producer id commits the aborted records with its own:
		 * duplicates.  Where brokers restart slower than that, raise it
		 * (-X producer.transaction.timeout.ms=60000, which our fault
		 * injection tests do): docs/kafka-driver.md.
		 */
		ok = kafka_conf_set(conf, k->prog, "transactional.id", k->transactional_id) &&
		     kafka_conf_set(conf, k->prog, "transaction.timeout.ms", "10000");
	} else if (ok && k->one_off) {
		/* load: a cluster that goes away is an error, not a wait. */
		ok = kafka_conf_set(conf, k->prog, "message.timeout.ms", "120000");
	} else if (ok) {
		/* At-least-once: keep retrying while the cluster is away. */
		ok = kafka_conf_set(conf, k->prog, "message.timeout.ms", "0");
	}
	rd_kafka_conf_set_dr_msg_cb(conf, kafka_delivery_report);
	ok = ok && with_statistics(k, conf);
	return make_client(k, conf, ok, "producer", RD_KAFKA_PRODUCER, "the Kafka producer");
}

/*
 * The consumer in the application's group: offsets committed by the
 * driver, read_committed, prefetching set by the memory preset.
 */
rd_kafka_t *kafka_new_consumer(stoat_kafka *k)
{
	/*
	 * The memory preset trades prefetching (throughput) for RSS.  The
	 * queue thresholds apply to the one consumer queue (librdkafka
	 * forwards every partition's queue to it; the repartition topics'
	 * queue and a multi-source task's partition queues have their own).
	 * Each queued record costs a few hundred bytes of librdkafka's own
	 * besides its payload, so queued.min.messages is most of what the
	 * process holds: the word count's peak RSS was ~180 MiB at 200,000,
	 * ~97 MiB at 20,000.  A full queue is looked at again only a second
	 * later unless something wakes the broker thread: kafka_wake.c does
	 * (before librdkafka 2.2), fetch.queue.backoff.ms does (from 2.2), so
	 * a queue far smaller than a second of processing keeps up.  What the
	 * thresholds do not bound is one fetch: it is decompressed whole into
	 * queued records, and kbytes counts payload only, so a 1 MiB fetch
	 * per partition of small compressed records is hundreds of thousands
	 * of records.  Capping fetches at 256 KiB per partition (default and
	 * low) cut the windowed bench's peak RSS from ~225 to ~150 MiB at 1M
	 * records (bench/results/windowed-2026-12-02-2x200k-1m.md).  The
	 * figures behind these values: bench/results/memory-preset-2026-12-03.md.
	 */
	bool low = k->opt->memory == STOAT_MEMORY_LOW;
	bool high = k->opt->memory == STOAT_MEMORY_HIGH;
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	bool ok = kafka_conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  kafka_conf_set(conf, k->prog, "group.id", k->app->app_id) &&
		  kafka_conf_set(conf, k->prog, "client.id", k->app->app_id) &&
		  kafka_conf_set(conf, k->prog, "partition.assignment.strategy",
			   kafka_has_shared_stores(k->app) ? "range" : "cooperative-sticky") &&
		  kafka_conf_set(conf, k->prog, "enable.auto.commit", "false") &&
		  kafka_conf_set(conf, k->prog, "enable.auto.offset.store", "false") &&
		  kafka_conf_set(conf, k->prog, "auto.offset.reset", "earliest") &&
		  kafka_conf_set(conf, k->prog, "isolation.level", "read_committed") &&
		  kafka_conf_set(conf, k->prog, "queued.min.messages", low ? "5000" : high ? "200000" : "20000") &&
		  kafka_conf_set(conf, k->prog, "queued.max.messages.kbytes", low ? "8192" : high ? "131072" : "32768") &&
		  kafka_conf_set(conf, k->prog, "max.partition.fetch.bytes", high ? "1048576" : "262144") &&
		  kafka_conf_set(conf, k->prog, "fetch.wait.max.ms", "100") &&
		  kafka_conf_set(conf, k->prog, "session.timeout.ms", "10000") &&
		  kafka_conf_set(conf, k->prog, "heartbeat.interval.ms", "1000") &&
		  kafka_conf_set(conf, k->prog, "topic.metadata.refresh.interval.ms", "5000") &&
		  /* A task of several partitions waits for one with nothing
		   * fetched until it is known to be at its end (kafka_order.c). */
		  kafka_conf_set(conf, k->prog, "enable.partition.eof",
				 k->ordered || k->opt->http_port >= 0 ? "true" : "false") &&
		  kafka_conf_set(conf, k->prog, "allow.auto.create.topics", "false") &&
		  (kafka_fetch_wait_is_fixed() || kafka_conf_set(conf, k->prog, "fetch.queue.backoff.ms", "20"));
	/*
	 * Opt-in static membership (KIP-345): restarted with the same id, the
	 * instance gets its partitions back at once instead of after a
	 * rebalance.  Not the default: a static member does not leave the
	 * group on shutdown, and a broker restart can fence it.
	 */
	if (ok && k->opt->static_membership) {
		if (!k->opt->instance_id) {
			stoat_log(STOAT_LOG_ERROR, NULL, NULL, "static membership needs --instance-id");
			ok = false;
		} else {
			ok = kafka_conf_set(conf, k->prog, "group.instance.id", k->opt->instance_id);
		}
	}
	rd_kafka_conf_set_rebalance_cb(conf, kafka_rebalance_cb);
	ok = ok && with_statistics(k, conf);
	return make_client(k, conf, ok, "consumer", RD_KAFKA_CONSUMER, "the Kafka consumer");
}

/* The consumer that reads changelogs (assign only, no group). */
rd_kafka_t *kafka_new_restorer(stoat_kafka *k)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char client_id[300];
	snprintf(client_id, sizeof client_id, "%s-restore", k->app->app_id);
	bool ok = kafka_conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  kafka_conf_set(conf, k->prog, "client.id", client_id) &&
		  /* librdkafka wants a group for assign(); it is never joined. */
		  kafka_conf_set(conf, k->prog, "group.id", client_id) &&
		  kafka_conf_set(conf, k->prog, "enable.auto.commit", "false") &&
		  kafka_conf_set(conf, k->prog, "enable.auto.offset.store", "false") &&
		  kafka_conf_set(conf, k->prog, "auto.offset.reset", "earliest") &&
		  kafka_conf_set(conf, k->prog, "isolation.level", "read_committed") &&
		  kafka_conf_set(conf, k->prog, "enable.partition.eof", "true") &&
		  kafka_conf_set(conf, k->prog, "fetch.wait.max.ms", "50") &&
		  kafka_conf_set(conf, k->prog, "allow.auto.create.topics", "false");
	return make_client(k, conf, ok, "consumer", RD_KAFKA_CONSUMER, "the changelog reader");
}

/*
 * The client that reads changelogs' high watermarks: read_uncommitted, as
 * librdkafka answers a watermark query at the client's isolation level
 * (the restorer's read_committed gives the last stable offset, which lags
 * a committed transaction until its markers are written).
 */
rd_kafka_t *kafka_new_offsets_reader(stoat_kafka *k)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char client_id[300];
	snprintf(client_id, sizeof client_id, "%s-restore-offsets", k->app->app_id);
	bool ok = kafka_conf_set(conf, k->prog, "bootstrap.servers", k->opt->bootstrap_servers) &&
		  kafka_conf_set(conf, k->prog, "client.id", client_id) &&
		  kafka_conf_set(conf, k->prog, "isolation.level", "read_uncommitted") &&
		  kafka_conf_set(conf, k->prog, "allow.auto.create.topics", "false");
	return make_client(k, conf, ok, "consumer", RD_KAFKA_CONSUMER, "the changelog offsets reader");
}

/*
 * Repartition topics are written uncompressed (as Kafka Streams writes
 * everything by default): their small records compress so well that one
 * fetch of a compressed batch expands to hundreds of thousands of queued
 * records, which librdkafka's queue limits cannot see coming; partitioned
 * by murmur2 of the key, as every topic.  NULL (the producer's settings)
 * for other sinks.
 */
static rd_kafka_topic_conf_t *internal_topic_conf(stoat_kafka *k, const stoat_sink *sink)
{
	if (!sink->internal)
		return NULL;
	/*
	 * A topic conf of its own replaces the producer's default one whole, so
	 * it starts from a copy of it: a fresh one would partition by
	 * librdkafka's consistent_random (CRC32) instead of murmur2, and a
	 * repartition topic would no longer meet the partitions of the topics
	 * it is co-partitioned with.
	 */
	rd_kafka_topic_conf_t *tc = rd_kafka_default_topic_conf_dup(k->producer);
	if (!tc)
		tc = rd_kafka_topic_conf_new();
	char err[256];
	if (rd_kafka_topic_conf_set(tc, "compression.type", "none", err, sizeof err) != RD_KAFKA_CONF_OK)
		kafka_log(k, "warning: repartition topic %s: %s", sink->topic, err);
	if (rd_kafka_topic_conf_set(tc, "partitioner", "murmur2_random", err, sizeof err) != RD_KAFKA_CONF_OK)
		kafka_log(k, "warning: repartition topic %s: %s", sink->topic, err);
	return tc;
}

/* Topic handles of the fixed output topics and the changelogs. */
void kafka_open_sink_topics(stoat_kafka *k)
{
	for (size_t i = 0; i < k->app->sink_count; i++)
		if (k->app->sinks[i].topic)
			k->sink_topics[i] = rd_kafka_topic_new(k->producer, k->app->sinks[i].topic,
							       internal_topic_conf(k, &k->app->sinks[i]));
	for (size_t i = 0; k->state && i < k->app->store_count; i++)
		k->changelog_topics[i] =
			rd_kafka_topic_new(k->producer, stoat_state_changelog_topic(k->state, (int)i), NULL);
}

/* Releases the topic handles (before their producer is destroyed). */
void kafka_close_sink_topics(stoat_kafka *k)
{
	for (size_t i = 0; k->changelog_topics && i < k->app->store_count; i++)
		if (k->changelog_topics[i]) {
			rd_kafka_topic_destroy(k->changelog_topics[i]);
			k->changelog_topics[i] = NULL;
		}
	for (size_t i = 0; k->sink_topics && i < k->app->sink_count; i++)
		if (k->sink_topics[i]) {
			rd_kafka_topic_destroy(k->sink_topics[i]);
			k->sink_topics[i] = NULL;
		}
}

/* A random hex id for this process (its transactional.id suffix). */
void kafka_random_id(char *out, size_t n)
{
	FILE *f = fopen("/dev/urandom", "rb");
	unsigned char b[8] = { 0 };
	if (!f || fread(b, 1, sizeof b, f) != sizeof b) {
		uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
		memcpy(b, &x, sizeof b);
	}
	if (f)
		fclose(f);
	snprintf(out, n, "%02x%02x%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
}

/*
 * Waits until client rk has heard from the cluster (it knows the cluster
 * id, which comes with the first metadata answer), in short steps so that
 * a SIGTERM is honoured at once.  False after limit_ms (0: no limit) or
 * when a stop is requested; the error callback meanwhile reports every
 * 10 s that the cluster cannot be reached.
 */
bool kafka_wait_for_cluster(rd_kafka_t *rk, int64_t limit_ms)
{
	int64_t start = stoat_now_ms();
	while (!kafka_stop_requested) {
		char *id = rd_kafka_clusterid(rk, 200);
		if (id) {
			rd_kafka_mem_free(rk, id);
			return true;
		}
		/* Serves the error callback (the "cannot reach" warnings). */
		rd_kafka_poll(rk, 0);
		if (limit_ms > 0 && stoat_now_ms() - start >= limit_ms)
			return false;
	}
	return false;
}
