/*
 * gen.c - the benchmark's input generator: writes N deterministic records
 * straight into a Kafka topic with librdkafka (no JSON-lines file, no JVM).
 *
 *   gen -b BOOTSTRAP -t TOPIC -n N [--kind events|lines|bytes] [--seed S]
 *       [--keys K] [--zipf S] [--value-size BYTES] [--words-per-line W]
 *       [--ts-base MS] [--ts-step MS] [--ts-jitter MS] [--value-prefix P]
 *
 * Kinds:
 *   events  JSON values shaped like bench/kafka/filter_map.stoat's Event
 *           (amount uniform in [0, 200), so the filter keeps about half),
 *           padded to about --value-size bytes (default 1024); keys
 *           "u<k>" with k drawn from --keys (default 100000) values;
 *   lines   text lines of --words-per-line (default 10) lower-case words
 *           drawn from a vocabulary of --keys words; null keys (the word
 *           count's input);
 *   bytes   --value-size random bytes, keys "u<k>";
 *   keyed   short text values "e<i>" (--value-prefix changes the "e"), keys
 *           "u<k>" (the windowed counts' input: only the key and the
 *           timestamp matter; the joins' inputs, where the value is
 *           joined: a table's "c<i>", a second stream's "k<i>").
 * --zipf S skews the draw of keys (and words) with exponent S (0, the
 * default, is uniform).  Keys partition with murmur2, as Java clients do;
 * null keys go round-robin over the partitions.  The same seed gives the
 * same records, byte for byte, timestamps included: record i's timestamp
 * is --ts-base (default 2026-01-01T00:00:00Z; milliseconds since the
 * epoch) + i * --ts-step ms (default 1) minus a jitter drawn
 * uniformly from [0, --ts-jitter] ms (default 0) with its own seeded
 * generator, so records arrive a little out of order (at most the jitter
 * behind the largest timestamp before them: the windowed scenarios keep it
 * below their grace, so no record is late).
 *
 * Prints one line to stdout: "records N bytes B kept K words W" where K is
 * how many events filter_map keeps (amount >= 100) and W the number of
 * words written (lines).
 */
#include <getopt.h>
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "gen"
#include "tool.h"

#define BASE_TIMESTAMP INT64_C(1767225600000) /* 2026-01-01T00:00:00Z */

/* splitmix64: small, fast and deterministic across platforms. */
static uint64_t next_u64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double next_unit(uint64_t *state)
{
	return (double)(next_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* A key space of n ranks, uniform or Zipf(s) by inverse CDF lookup. */
typedef struct keyspace {
	size_t n;
	double *cdf; /* NULL: uniform */
} keyspace;

static keyspace keyspace_new(size_t n, double s)
{
	keyspace k = { n, NULL };
	if (s <= 0)
		return k;
	k.cdf = malloc(n * sizeof *k.cdf);
	if (!k.cdf)
		die("zipf", "out of memory");
	double total = 0;
	for (size_t r = 0; r < n; r++)
		k.cdf[r] = total += 1.0 / pow((double)(r + 1), s);
	for (size_t r = 0; r < n; r++)
		k.cdf[r] /= total;
	return k;
}

/* Draws a rank in [0, n). */
static size_t keyspace_draw(const keyspace *k, uint64_t *state)
{
	if (!k->cdf)
		return (size_t)(next_u64(state) % k->n);
	double u = next_unit(state);
	size_t lo = 0, hi = k->n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The word of rank r: letters only (split_words keeps them whole), at
 * least two of them, distinct for distinct ranks ("ba", "ca", ... in a
 * base-25 spelling with a leading consonant-like first letter).
 */
static size_t word_of(size_t r, char *out)
{
	size_t n = 0;
	out[n++] = (char)('b' + r % 25);
	r /= 25;
	do {
		out[n++] = (char)('a' + r % 26);
		r /= 26;
	} while (r);
	return n;
}

typedef struct buffer {
	char *p;
	size_t len, cap;
} buffer;

static void put(buffer *b, const char *s, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("buffer", "out of memory");
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void putf(buffer *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(buffer *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	put(b, tmp, (size_t)n);
}

static const char *const KINDS[] = { "view", "click", "cart", "purchase", "refund" };
static const char *const COUNTRIES[] = { "DE", "FR", "US", "BR", "JP", "IN", "NG", "SE" };
static const char *const OSES[] = { "Android", "iOS", "Windows", "Linux", "macOS" };

/* One Event value (see filter_map.stoat), about size bytes; true when
 * filter_map keeps it. */
static bool make_event(buffer *b, uint64_t *rng, uint64_t i, size_t user, size_t size)
{
	double amount = floor(next_unit(rng) * 20000.0) / 100.0;
	bool referred = next_u64(rng) % 3 != 0;
	b->len = 0;
	putf(b, "{\"event_id\":\"e%" PRIu64 "\",\"user_id\":\"u%zu\",\"session_id\":\"s%" PRIu64 "\",", i, user,
	     next_u64(rng) % 1000000);
	putf(b, "\"kind\":\"%s\",\"ts\":%" PRId64 ",\"amount\":%.2f,\"quantity\":%d,\"score\":%.3f,",
	     KINDS[next_u64(rng) % 5], BASE_TIMESTAMP + (int64_t)i, amount, (int)(next_u64(rng) % 9) + 1,
	     next_unit(rng));
	putf(b, "\"country\":\"%s\",\"url\":\"https://shop.example/p/%" PRIu64 "\",", COUNTRIES[next_u64(rng) % 8],
	     next_u64(rng) % 100000);
	if (referred)
		putf(b, "\"referrer\":\"https://search.example/?q=%" PRIu64 "\",", next_u64(rng) % 10000);
	else
		putf(b, "\"referrer\":null,");
	putf(b, "\"user_agent\":\"Mozilla/5.0 (bench; stoat) Gecko/20100101\",");
	putf(b, "\"device\":{\"os\":\"%s\",\"version\":\"%d\",\"model\":\"m%d\",\"screen\":{\"width\":%d,"
		"\"height\":%d,\"dpr\":%.1f}},",
	     OSES[next_u64(rng) % 5], (int)(next_u64(rng) % 10) + 8, (int)(next_u64(rng) % 50), 1080, 2400, 2.5);
	putf(b, "\"tags\":[\"a\",\"b%d\",\"c\"],\"cart\":[%d,%d],\"note\":\"n\",\"description\":\"",
	     (int)(next_u64(rng) % 10), (int)(next_u64(rng) % 100), (int)(next_u64(rng) % 100));
	while (b->len + 2 < size)
		put(b, "lorem ipsum dolor sit amet ", b->len + 29 < size ? 27 : 1);
	put(b, "\"}", 2);
	return amount >= 100.0;
}

int main(int argc, char **argv)
{
	const char *bootstrap = NULL, *topic = NULL, *kind = "events";
	uint64_t n = 0, seed = 1;
	size_t keys = 100000, value_size = 1024, words_per_line = 10;
	double zipf = 0;
	int64_t ts_base = BASE_TIMESTAMP, ts_step = 1, ts_jitter = 0;
	const char *value_prefix = "e";
	static const struct option longs[] = {
		{ "kind", required_argument, 0, 'k' }, { "seed", required_argument, 0, 's' },
		{ "keys", required_argument, 0, 'K' }, { "zipf", required_argument, 0, 'z' },
		{ "value-size", required_argument, 0, 'v' }, { "words-per-line", required_argument, 0, 'w' },
		{ "ts-base", required_argument, 0, 'B' }, { "ts-step", required_argument, 0, 'S' },
		{ "ts-jitter", required_argument, 0, 'J' }, { "value-prefix", required_argument, 0, 'P' },
		{ 0, 0, 0, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "b:t:n:", longs, NULL)) != -1) {
		switch (c) {
		case 'b': bootstrap = optarg; break;
		case 't': topic = optarg; break;
		case 'n': n = strtoull(optarg, NULL, 10); break;
		case 'k': kind = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'K': keys = strtoull(optarg, NULL, 10); break;
		case 'z': zipf = atof(optarg); break;
		case 'v': value_size = strtoull(optarg, NULL, 10); break;
		case 'w': words_per_line = strtoull(optarg, NULL, 10); break;
		case 'B': ts_base = strtoll(optarg, NULL, 10); break;
		case 'S': ts_step = strtoll(optarg, NULL, 10); break;
		case 'J': ts_jitter = strtoll(optarg, NULL, 10); break;
		case 'P': value_prefix = optarg; break;
		default: return 2;
		}
	}
	bool events = !strcmp(kind, "events"), lines = !strcmp(kind, "lines"), bytes = !strcmp(kind, "bytes");
	bool keyed = !strcmp(kind, "keyed");
	if (!bootstrap || !topic || n == 0 || keys == 0 || !(events || lines || bytes || keyed) || ts_step < 0 ||
	    ts_jitter < 0 || ts_base < ts_jitter) {
		fprintf(stderr, "usage: gen -b BOOTSTRAP -t TOPIC -n N [--kind events|lines|bytes|keyed] [--seed S] "
				"[--keys K] [--zipf S] [--value-size BYTES] [--words-per-line W] "
				"[--ts-base MS] [--ts-step MS] [--ts-jitter MS] [--value-prefix P] "
				"(--ts-base >= --ts-jitter)\n");
		return 2;
	}

	rd_kafka_t *rk = input_producer(bootstrap);
	rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
	/* Null keys go round-robin, so the partition count is needed. */
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_resp_err_t me;
	/* A topic created a moment ago may not be known everywhere yet. */
	for (int attempt = 0;; attempt++) {
		me = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
		if (!me && md->topic_cnt == 1 && !md->topics[0].err && md->topics[0].partition_cnt > 0)
			break;
		if (attempt == 50)
			die(topic, me ? rd_kafka_err2str(me) : "no such topic");
		if (md)
			rd_kafka_metadata_destroy(md);
		md = NULL;
		rd_kafka_poll(rk, 200);
	}
	int32_t partitions = md->topics[0].partition_cnt;
	rd_kafka_metadata_destroy(md);

	keyspace ks = keyspace_new(keys, zipf);
	/* The jitter has its own generator: the records of the other kinds stay as they were. */
	uint64_t ts_rng = seed ^ 0x5deece66dULL;
	uint64_t rng = seed, kept = 0, words = 0, total_bytes = 0;
	buffer value = { 0 };
	char key[32], word[32];
	for (uint64_t i = 0; i < n; i++) {
		size_t key_len = 0;
		const char *key_ptr = NULL;
		if (events || bytes || keyed) {
			key_len = (size_t)snprintf(key, sizeof key, "u%zu", keyspace_draw(&ks, &rng));
			key_ptr = key;
		}
		if (events) {
			kept += make_event(&value, &rng, i, keyspace_draw(&ks, &rng), value_size);
		} else if (keyed) {
			value.len = 0;
			putf(&value, "%s%" PRIu64, value_prefix, i);
		} else if (lines) {
			value.len = 0;
			for (size_t w = 0; w < words_per_line; w++) {
				if (w)
					put(&value, " ", 1);
				put(&value, word, word_of(keyspace_draw(&ks, &rng), word));
			}
			words += words_per_line;
		} else {
			value.len = 0;
			for (size_t j = 0; j < value_size; j++) {
				char ch = (char)next_u64(&rng);
				put(&value, &ch, 1);
			}
		}
		total_bytes += value.len + key_len;
		int64_t ts = ts_base + (int64_t)i * ts_step;
		if (ts_jitter > 0)
			ts -= (int64_t)(next_u64(&ts_rng) % (uint64_t)(ts_jitter + 1));
		int32_t partition = key_ptr ? RD_KAFKA_PARTITION_UA : (int32_t)(i % (uint64_t)partitions);
		for (;;) {
			rd_kafka_resp_err_t e = rd_kafka_producev(
				rk, RD_KAFKA_V_RKT(rkt), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
				RD_KAFKA_V_KEY(key_ptr, key_len), RD_KAFKA_V_VALUE(value.p, value.len),
				RD_KAFKA_V_PARTITION(partition),
				RD_KAFKA_V_TIMESTAMP(ts), RD_KAFKA_V_END);
			if (e == RD_KAFKA_RESP_ERR_NO_ERROR)
				break;
			if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
				die("produce", rd_kafka_err2str(e));
			rd_kafka_poll(rk, 50);
		}
		rd_kafka_poll(rk, 0);
	}
	while (rd_kafka_outq_len(rk) > 0)
		rd_kafka_poll(rk, 100);
	printf("records %" PRIu64 " bytes %" PRIu64 " kept %" PRIu64 " words %" PRIu64 "\n", n, total_bytes, kept,
	       words);
	rd_kafka_topic_destroy(rkt);
	rd_kafka_destroy(rk);
	free(ks.cdf);
	free(value.p);
	return 0;
}
