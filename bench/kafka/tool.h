/*
 * tool.h - what the bench's librdkafka tools share (gen, kbtool, limit,
 * and bench/nexmark's nexmark-gen): fatal errors as "TOOL: error: what:
 * why" with exit status 3, configuration that dies on a bad setting, and
 * the batched, idempotent, murmur2-partitioned producer of the inputs.
 * Define TOOL (the program's name, a string) before including it; each
 * tool is one file compiled on its own (bench/run), so these are static.
 */
#ifndef BENCH_KAFKA_TOOL_H
#define BENCH_KAFKA_TOOL_H

#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>

static inline void die(const char *what, const char *why)
{
	fprintf(stderr, "%s: error: %s: %s\n", TOOL, what, why);
	exit(3);
}

static inline void set(rd_kafka_conf_t *conf, const char *name, const char *value)
{
	char err[512];
	if (rd_kafka_conf_set(conf, name, value, err, sizeof err) != RD_KAFKA_CONF_OK)
		die(name, err);
}

/* A failed delivery ends the tool: an input with a hole would measure nothing. */
static inline void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	(void)rk;
	(void)opaque;
	if (m->err)
		die("delivery", rd_kafka_err2str(m->err));
}

/* The inputs' producer: batched (20 ms, 10,000 records), lz4, idempotent, keys partitioned as Java clients do. */
static inline rd_kafka_t *input_producer(const char *bootstrap)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	set(conf, "bootstrap.servers", bootstrap);
	set(conf, "linger.ms", "20");
	set(conf, "batch.num.messages", "10000");
	set(conf, "queue.buffering.max.kbytes", "262144");
	set(conf, "compression.type", "lz4");
	set(conf, "partitioner", "murmur2_random");
	set(conf, "enable.idempotence", "true");
	rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
	char err[512];
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
	if (!rk)
		die("producer", err);
	return rk;
}

#endif
