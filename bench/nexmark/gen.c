/*
 * gen.c - nexmark-gen: the Nexmark events (nexmark.h) into Kafka topics,
 * one per kind, and/or into a replay-format file (docs/replay-format.md).
 * `nexmark-gen --help` says how.
 */
#include "nexmark.h"

#define TOOL "nexmark-gen"
#include "../kafka/tool.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
	"usage: nexmark-gen -n EVENTS [options]\n"
	"\n"
	"Writes EVENTS Nexmark events (person, auction and bid, 1:3:46, the reference generator's\n"
	"model: bench/nexmark/nexmark.h) to Kafka and/or to a replay-format file. The same seed gives\n"
	"the same events, byte for byte. Each record is keyed by its id (a bid by its auction's),\n"
	"its value is one JSON object with the reference's field names, its timestamp the event's\n"
	"dateTime.\n"
	"\n"
	"  -n, --events N          how many events (required)\n"
	"      --seed S            the generator's seed (default 1)\n"
	"      --rate R            events per second of event time (default 10000)\n"
	"      --base-time MS      the first event's time, ms since the epoch (default 86400000:\n"
	"                          1970-01-02, as the bench's windowed inputs)\n"
	"  -b, --bootstrap HOSTS   write to the Kafka cluster at HOSTS (the topics must exist)\n"
	"      --topic-prefix P    the topics P-person, P-auction and P-bid (default nexmark)\n"
	"  -o, --replay FILE       write the events as replay-format lines to FILE (- for stdout)\n"
	"      --partitions N      the replay lines' partitions: Kafka's default partitioner over N\n"
	"                          (default 1); the same partitions the Kafka topics give with N\n"
	"      --bids-by-bidder    also write every bid to P-bid-bidder, keyed by its bidder (q11's\n"
	"                          sessions per bidder then need no repartition)\n"
	"  -h, --help              this text\n"
	"\n"
	"Prints \"events N person P auction A bid B bytes V first_time T0 last_time T1\" to stdout\n"
	"(V: the values' bytes; not when the replay lines go to stdout). Exit status: 0 done, 2 bad\n"
	"command line, 3 a Kafka or file error (a missing topic included).\n";

static void usage_error(const char *why)
{
	fprintf(stderr, "nexmark-gen: %s (nexmark-gen --help)\n", why);
	exit(2);
}

/* A whole decimal number in [min, max], or a usage error naming the option. */
static long long number(const char *option, const char *s, long long min, long long max)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		char why[128];
		snprintf(why, sizeof why, "%s wants a whole number from %lld to %lld, not '%s'", option, min, max, s);
		usage_error(why);
	}
	return v;
}

/* Dies unless the topic exists (a topic created a moment ago may take a few seconds to be known). */
static void check_topic(rd_kafka_t *rk, rd_kafka_topic_t *rkt, const char *name)
{
	for (int attempt = 0;; attempt++) {
		const struct rd_kafka_metadata *md = NULL;
		rd_kafka_resp_err_t me = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
		bool ok = !me && md->topic_cnt == 1 && !md->topics[0].err && md->topics[0].partition_cnt > 0;
		const char *why = me ? rd_kafka_err2str(me) : ok ? NULL : md->topics[0].err ? rd_kafka_err2str(md->topics[0].err)
		                                                                          : "no partitions";
		char copy[256];
		snprintf(copy, sizeof copy, "%s", why ? why : "");
		if (md)
			rd_kafka_metadata_destroy(md);
		if (ok)
			return;
		if (attempt == 50)
			die(name, copy);
		rd_kafka_poll(rk, 200);
	}
}

int main(int argc, char **argv)
{
	nx_config config = nx_config_default();
	long long events = -1, partitions = 1;
	const char *bootstrap = NULL, *prefix = "nexmark", *replay = NULL;
	bool by_bidder = false;
	enum { SEED = 256, RATE, BASE_TIME, PREFIX, PARTITIONS, BY_BIDDER };
	static const struct option longs[] = {
		{ "events", required_argument, 0, 'n' },       { "seed", required_argument, 0, SEED },
		{ "rate", required_argument, 0, RATE },        { "base-time", required_argument, 0, BASE_TIME },
		{ "bootstrap", required_argument, 0, 'b' },    { "topic-prefix", required_argument, 0, PREFIX },
		{ "replay", required_argument, 0, 'o' },       { "partitions", required_argument, 0, PARTITIONS },
		{ "bids-by-bidder", no_argument, 0, BY_BIDDER }, { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "n:b:o:h", longs, NULL)) != -1) {
		switch (c) {
		case 'n': events = number("--events", optarg, 0, INT64_MAX / 2); break;
		case SEED: config.seed = (uint64_t)number("--seed", optarg, 0, INT64_MAX); break;
		case RATE: config.rate = (double)number("--rate", optarg, 1, 1000000000); break;
		case BASE_TIME: config.base_time = number("--base-time", optarg, 0, INT64_MAX / 4); break;
		case 'b': bootstrap = optarg; break;
		case PREFIX: prefix = optarg; break;
		case 'o': replay = optarg; break;
		case PARTITIONS: partitions = number("--partitions", optarg, 1, 1000000); break;
		case BY_BIDDER: by_bidder = true; break;
		case 'h': fputs(USAGE, stdout); return 0;
		default: usage_error("unknown option");
		}
	}
	if (optind < argc)
		usage_error("unexpected argument");
	if (events < 0)
		usage_error("-n EVENTS is required");
	if (!bootstrap && !replay)
		usage_error("give -b BOOTSTRAP, -o FILE or both");

	const char *err = NULL;
	nx_gen *g = nx_gen_new(&config, &err);
	if (!g)
		die("generator", err);
	/* The topics of the three kinds, then (index BY_BIDDER_TOPIC) the bids keyed by bidder. */
	enum { BY_BIDDER_TOPIC = NX_BID + 1 };
	char topics[4][256];
	for (int k = NX_PERSON; k <= NX_BID; k++)
		if ((size_t)snprintf(topics[k], sizeof topics[k], "%s-%s", prefix, nx_kind_name((nx_kind)k)) >=
		    sizeof topics[k])
			usage_error("--topic-prefix is too long");
	if ((size_t)snprintf(topics[BY_BIDDER_TOPIC], sizeof topics[BY_BIDDER_TOPIC], "%s-bid-bidder", prefix) >=
	    sizeof topics[BY_BIDDER_TOPIC])
		usage_error("--topic-prefix is too long");
	int last_topic = by_bidder ? BY_BIDDER_TOPIC : NX_BID;
	rd_kafka_t *rk = bootstrap ? input_producer(bootstrap) : NULL;
	rd_kafka_topic_t *rkt[4] = { 0 };
	for (int k = NX_PERSON; rk && k <= last_topic; k++)
		check_topic(rk, rkt[k] = rd_kafka_topic_new(rk, topics[k], NULL), topics[k]);
	FILE *file = NULL;
	if (replay) {
		file = strcmp(replay, "-") == 0 ? stdout : fopen(replay, "w");
		if (!file)
			die(replay, strerror(errno));
	}

	uint64_t per_kind[3] = { 0 }, bytes = 0;
	int64_t first_time = 0, last_time = 0;
	size_t cap = 4096;
	char *value = malloc(cap), key[32], bidder[32];
	if (!value)
		die("buffer", "out of memory");
	nx_event e;
	for (long long i = 0; i < events; i++) {
		nx_next(g, &e);
		size_t key_len = nx_key(&e, key, sizeof key);
		size_t len = nx_json(&e, value, cap);
		if (len > cap) {
			cap = len * 2;
			free(value);
			if (!(value = malloc(cap)))
				die("buffer", "out of memory");
			len = nx_json(&e, value, cap);
		}
		per_kind[e.kind]++;
		bytes += len;
		if (i == 0)
			first_time = e.date_time;
		last_time = e.date_time;
		/* The record, and with --bids-by-bidder a bid once more under its bidder. */
		int copies = by_bidder && e.kind == NX_BID ? 2 : 1;
		for (int copy = 0; copy < copies; copy++) {
			int t = copy ? BY_BIDDER_TOPIC : (int)e.kind;
			const char *k = key;
			size_t k_len = key_len;
			if (copy) {
				k_len = (size_t)snprintf(bidder, sizeof bidder, "%" PRId64, e.bid.bidder);
				k = bidder;
			}
			if (file) {
				fprintf(file,
					"{\"topic\":\"%s\",\"partition\":%d,\"timestamp\":%" PRId64
					",\"key\":\"%.*s\",\"value\":%.*s}\n",
					topics[t], nx_partition(k, k_len, (int32_t)partitions), e.date_time, (int)k_len, k,
					(int)len, value);
				if (ferror(file))
					die(replay, strerror(errno));
			}
			while (rk) {
				rd_kafka_resp_err_t pe = rd_kafka_producev(
					rk, RD_KAFKA_V_RKT(rkt[t]), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
					RD_KAFKA_V_KEY(k, k_len), RD_KAFKA_V_VALUE(value, len),
					RD_KAFKA_V_TIMESTAMP(e.date_time), RD_KAFKA_V_END);
				if (pe == RD_KAFKA_RESP_ERR_NO_ERROR) {
					rd_kafka_poll(rk, 0);
					break;
				}
				if (pe != RD_KAFKA_RESP_ERR__QUEUE_FULL)
					die(topics[t], rd_kafka_err2str(pe));
				rd_kafka_poll(rk, 50);
			}
		}
	}
	if (rk) {
		rd_kafka_resp_err_t fe = rd_kafka_flush(rk, 120000);
		if (fe)
			die("flush", rd_kafka_err2str(fe));
		for (int k = NX_PERSON; k <= last_topic; k++)
			rd_kafka_topic_destroy(rkt[k]);
		rd_kafka_destroy(rk);
	}
	if (file && file != stdout && fclose(file) != 0)
		die(replay, strerror(errno));
	if (file == stdout && fflush(stdout) != 0)
		die(replay, strerror(errno));
	if (file != stdout)
		printf("events %lld person %" PRIu64 " auction %" PRIu64 " bid %" PRIu64 " bytes %" PRIu64
		       " first_time %" PRId64 " last_time %" PRId64 "\n",
		       events, per_kind[NX_PERSON], per_kind[NX_AUCTION], per_kind[NX_BID], bytes, first_time, last_time);
	free(value);
	nx_gen_free(g);
	return 0;
}
