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
 * max.partition.fetch.bytes, fetch.wait.max.ms, idempotence, acks=all,
 * zstd, linger.ms=5, batch.num.messages, murmur2_random, ...) but the
 * fetch queue: the driver's default queues 20,000 records and wakes
 * librdkafka's fetcher itself (runtime/src/kafka_wake.c); the limit, with
 * no waker, keeps the 200,000 records / 128 MiB the driver had before,
 * which never runs dry at these rates (the memory that costs is not what
 * the limit measures).  The same batch
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
 * --filter-map: instead of copying the value, does what
 * bench/kafka/filter_map.stoat does, as one would by hand: one pass over
 * the JSON value (fm_record below) that picks out the fields the Summary
 * needs and skips the rest without allocating or decoding it, the filter
 * amount >= 100.0, and the Summary written into a stack buffer and
 * produced with the input's key, timestamp and headers.  Its output is
 * byte for byte the stoat program's (bench/run checks count and digest):
 * the same field order, stoat's shortest round-trip f64 (fmt_f64), upper()
 * on ASCII letters.  It checks the JSON only as far as it has to walk it
 * (brackets, strings, the fields it reads); a value it cannot walk, or a
 * picked string with an escape sequence (the benchmark's input has none),
 * stops it with status 3.
 *
 * usage: limit -b HOST:PORT --in TOPIC --out TOPIC --group ID
 *              [--guarantee at_least_once|exactly_once]
 *              [--commit-interval MS] [--batch N] [--idle-exit MS]
 *              [--filter-map]
 *
 * Like the app's --idle-exit, it stops once nothing has come in for
 * --idle-exit ms and everything is committed, printing
 * "limit: no input for N ms: stopping (--idle-exit)" (the line the
 * benchmark times) and "limit: records in N, out N" at the end.
 */
#include <float.h>
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <math.h>
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

/* ---- --filter-map: filter_map.stoat by hand ------------------------------------ */

/* A JSON value's text the walk cannot follow: the limit has no error policy. */
static void bad_json(const char *why)
{
	die("--filter-map: the input value is not what filter_map reads", why);
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/*
 * The string whose opening quote is at p: its body in *s, *n; true when
 * it has an escape sequence.  Returns the position after the closing
 * quote.  memchr finds the quote; a backslash before it means escapes,
 * walked one by one (only to find the real closing quote).
 */
static const char *scan_string(const char *p, const char *end, const char **s, size_t *n, bool *escaped)
{
	if (p >= end || *p != '"')
		bad_json("a string expected");
	const char *body = ++p;
	const char *q = memchr(p, '"', (size_t)(end - p));
	if (!q)
		bad_json("an unterminated string");
	*escaped = memchr(p, '\\', (size_t)(q - p)) != NULL;
	if (*escaped) {
		for (q = p; q < end && *q != '"'; q++)
			if (*q == '\\')
				q++;
		if (q >= end)
			bad_json("an unterminated string");
	}
	*s = body;
	*n = (size_t)(q - body);
	return q + 1;
}

/* Past the value at p (any JSON value), without looking inside strings
 * further than their quotes. */
static const char *skip_value(const char *p, const char *end)
{
	p = skip_ws(p, end);
	if (p >= end)
		bad_json("a value expected");
	const char *s;
	size_t n;
	bool esc;
	if (*p == '"')
		return scan_string(p, end, &s, &n, &esc);
	if (*p != '{' && *p != '[') {
		/* A number, true, false or null: up to the next delimiter. */
		const char *q = p;
		while (q < end && *q != ',' && *q != '}' && *q != ']' && *q != ' ' && *q != '\n' && *q != '\t' &&
		       *q != '\r')
			q++;
		if (q == p)
			bad_json("a value expected");
		return q;
	}
	int depth = 0;
	while (p < end) {
		char c = *p;
		if (c == '"') {
			p = scan_string(p, end, &s, &n, &esc);
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return p + 1;
		p++;
	}
	bad_json("an unterminated object or array");
	return end;
}

/* The member separator after a value: true when another member follows,
 * false at the closing brace (or bracket), which it moves past. */
static bool next_member(const char **pp, const char *end, char close)
{
	const char *p = skip_ws(*pp, end);
	if (p < end && *p == ',') {
		*pp = p + 1;
		return true;
	}
	if (p < end && *p == close) {
		*pp = p + 1;
		return false;
	}
	bad_json("',' or a closing bracket expected");
	return false;
}

/* The member name at p (after the opening brace or a comma) and its ':';
 * returns where its value starts. */
static const char *member_name(const char *p, const char *end, const char **name, size_t *len)
{
	bool esc;
	p = scan_string(skip_ws(p, end), end, name, len, &esc);
	p = skip_ws(p, end);
	if (p >= end || *p != ':')
		bad_json("':' expected");
	return skip_ws(p + 1, end);
}

/* A picked string field: its bytes, copied to the output as they are. */
static const char *pick_string(const char *p, const char *end, const char **s, size_t *n)
{
	bool esc;
	p = scan_string(p, end, s, n, &esc);
	if (esc)
		bad_json("a string with an escape sequence (this hand-written reader takes none)");
	return p;
}

static const double pow10_exact[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/*
 * A number field as a double: up to 15 significant digits and a plain
 * fraction, m / 10^k in one correctly rounded division (what strtod gives);
 * anything else through strtod.  Returns the position after it.
 */
static const char *pick_f64(const char *p, const char *end, double *out)
{
	const char *q = p;
	bool negative = q < end && *q == '-';
	q += negative;
	uint64_t m = 0;
	int digits = 0, scale = 0;
	for (; q < end && *q >= '0' && *q <= '9'; q++, digits++)
		m = m * 10 + (uint64_t)(*q - '0');
	if (q < end && *q == '.')
		for (q++; q < end && *q >= '0' && *q <= '9'; q++, digits++, scale++)
			m = m * 10 + (uint64_t)(*q - '0');
	if (digits == 0)
		bad_json("a number expected");
	if (digits <= 15 && scale <= 22 && (q >= end || (*q != 'e' && *q != 'E'))) {
		double v = (double)m / pow10_exact[scale];
		*out = negative ? -v : v;
		return q;
	}
	char copy[64];
	q = skip_value(p, end);
	if ((size_t)(q - p) >= sizeof copy)
		bad_json("a number too long");
	memcpy(copy, p, (size_t)(q - p));
	copy[q - p] = '\0';
	*out = strtod(copy, NULL);
	return q;
}

/* An integer field (i64). */
static const char *pick_i64(const char *p, const char *end, int64_t *out)
{
	bool negative = p < end && *p == '-';
	p += negative;
	const char *start = p;
	uint64_t u = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (u > (UINT64_MAX - 9) / 10)
			bad_json("an integer out of range");
		u = u * 10 + (uint64_t)(*p - '0');
	}
	if (p == start || u > (uint64_t)INT64_MAX + negative)
		bad_json("an integer expected");
	*out = negative ? (int64_t)(0 - u) : (int64_t)u;
	return p;
}

/*
 * v as stoat's JSON writer has it (runtime/src/buf.c, stoat_format_f64):
 * the shortest decimal that parses back to v, plain for 1e-6 <= |v| <
 * 1e21 with at least one fraction digit ("3.0"), else d.ddde[-]X.  The
 * digits: the fewest k for which an integer m next to v * 10^k has m /
 * 10^k == v (exact operands, one rounding: the decimal parses back to v),
 * else printf's, the shortest precision that round-trips.  Returns the
 * length written to o (at most 32 bytes); 0 for NaN and infinities.
 */
static size_t fmt_f64(char *o, double v)
{
	if (!isfinite(v))
		return 0;
	char *start = o, digits[24];
	int nd = 0, exp10 = 0;
	double a = fabs(v);
	if (signbit(v))
		*o++ = '-';
	bool found = false;
	if (a == 0) {
		digits[nd++] = '0';
		found = true;
	} else if (a >= 1e-7 && a < 1e15) {
		for (int k = 0; k <= 22 && !found; k++) {
			double scaled = a * pow10_exact[k];
			if (scaled >= 1e15)
				break;
			double base = floor(scaled + 0.5);
			for (int d = -1; d <= 1 && !found; d++) {
				double m = base + d;
				if (m < 1 || m / pow10_exact[k] != a)
					continue;
				char tmp[24];
				int n = 0;
				for (uint64_t u = (uint64_t)m; u; u /= 10)
					tmp[n++] = (char)('0' + u % 10);
				exp10 = n - 1 - k;
				while (n > 0)
					digits[nd++] = tmp[--n];
				found = true;
			}
		}
	}
	if (!found) {
		char tmp[40];
		int prec = a < DBL_MIN ? 1 : 15;
		for (; prec < 17; prec++) {
			snprintf(tmp, sizeof tmp, "%.*e", prec - 1, a);
			if (strtod(tmp, NULL) == a)
				break;
		}
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, a);
		const char *t = tmp;
		for (; *t != 'e'; t++)
			if (*t != '.')
				digits[nd++] = *t;
		exp10 = atoi(t + 1);
	}
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (exp10 >= 21 || exp10 < -6) {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		o += sprintf(o, "e%d", exp10);
	} else if (exp10 >= 0) {
		for (int i = 0; i <= exp10; i++)
			*o++ = i < nd ? digits[i] : '0';
		*o++ = '.';
		if (nd > exp10 + 1) {
			memcpy(o, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
			o += nd - exp10 - 1;
		} else {
			*o++ = '0';
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -exp10 - 1; i++)
			*o++ = '0';
		memcpy(o, digits, (size_t)nd);
		o += nd;
	}
	return (size_t)(o - start);
}

/* Appends the literal s to o. */
#define PUT_LIT(o, s) (memcpy((o), (s), sizeof(s) - 1), (o) += sizeof(s) - 1)

/* Appends the JSON string of bytes s..s+n (picked without escapes, so
 * they need none). */
static char *put_str(char *o, const char *s, size_t n)
{
	*o++ = '"';
	memcpy(o, s, n);
	o += n;
	*o++ = '"';
	return o;
}

/* Appends u in decimal (a count: never negative). */
static char *put_u64(char *o, uint64_t u)
{
	char tmp[20];
	int n = 0;
	do
		tmp[n++] = (char)('0' + u % 10);
	while (u /= 10);
	while (n > 0)
		*o++ = tmp[--n];
	return o;
}

/*
 * filter_map.stoat on one value: the Summary's JSON in out (cap bytes:
 * room for the value's length and 256 more, since every string of it is
 * a piece of the value), or 0 when the filter drops the record.
 */
static size_t fm_record(const char *p, size_t len, char *out, size_t cap)
{
	const char *end = p + len;
	const char *id = NULL, *user = NULL, *kind = NULL, *country = NULL, *os = NULL, *version = NULL;
	size_t id_n = 0, user_n = 0, kind_n = 0, country_n = 0, os_n = 0, version_n = 0;
	double amount = 0;
	int64_t quantity = 0, tags = 0;
	bool referred = false;
	unsigned seen = 0; /* the fields above that were there, a bit each */
	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		bad_json("an object expected");
	p = skip_ws(p + 1, end);
	bool more = p >= end || *p != '}';
	if (!more)
		p++;
	while (more) {
		const char *name;
		size_t n;
		p = member_name(p, end, &name, &n);
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(name, lit, sizeof(lit) - 1))
		if (IS("event_id")) {
			p = pick_string(p, end, &id, &id_n);
			seen |= 1;
		} else if (IS("user_id")) {
			p = pick_string(p, end, &user, &user_n);
			seen |= 2;
		} else if (IS("kind")) {
			p = pick_string(p, end, &kind, &kind_n);
			seen |= 4;
		} else if (IS("country")) {
			p = pick_string(p, end, &country, &country_n);
			seen |= 8;
		} else if (IS("amount")) {
			p = pick_f64(p, end, &amount);
			seen |= 16;
		} else if (IS("quantity")) {
			p = pick_i64(p, end, &quantity);
			seen |= 32;
		} else if (IS("referrer")) {
			referred = !(end - p >= 4 && !memcmp(p, "null", 4));
			p = skip_value(p, end);
		} else if (IS("tags")) {
			/* Only the count: each element skipped. */
			if (p >= end || *p != '[')
				bad_json("tags: an array expected");
			p = skip_ws(p + 1, end);
			tags = 0;
			if (p < end && *p == ']')
				p++;
			else
				do {
					p = skip_value(p, end);
					tags++;
				} while (next_member(&p, end, ']'));
			seen |= 64;
		} else if (IS("device")) {
			if (p >= end || *p != '{')
				bad_json("device: an object expected");
			p = skip_ws(p + 1, end);
			if (p < end && *p == '}')
				p++;
			else
				do {
					p = member_name(p, end, &name, &n);
					if (IS("os")) {
						p = pick_string(p, end, &os, &os_n);
						seen |= 128;
					} else if (IS("version")) {
						p = pick_string(p, end, &version, &version_n);
						seen |= 256;
					} else {
						p = skip_value(p, end);
					}
				} while (next_member(&p, end, '}'));
		} else {
			p = skip_value(p, end);
		}
#undef IS
		more = next_member(&p, end, '}');
	}
	if (skip_ws(p, end) != end)
		bad_json("text after the value");
	if (seen != 511)
		bad_json("a field of Event missing");
	if (!(amount >= 100.0))
		return 0;
	if (len + 256 > cap)
		bad_json("a value too large for the output buffer");
	char *o = out;
	PUT_LIT(o, "{\"id\":");
	o = put_str(o, id, id_n);
	PUT_LIT(o, ",\"user\":");
	o = put_str(o, user, user_n);
	PUT_LIT(o, ",\"kind\":\"");
	for (size_t i = 0; i < kind_n; i++)
		*o++ = kind[i] >= 'a' && kind[i] <= 'z' ? (char)(kind[i] - 'a' + 'A') : kind[i];
	PUT_LIT(o, "\",\"country\":");
	o = put_str(o, country, country_n);
	PUT_LIT(o, ",\"total\":");
	size_t t = fmt_f64(o, amount * (double)quantity);
	if (t == 0)
		die("--filter-map", "total is not a finite number, which JSON cannot hold");
	o += t;
	PUT_LIT(o, ",\"tag_count\":");
	o = put_u64(o, (uint64_t)tags);
	PUT_LIT(o, ",\"platform\":\"");
	memcpy(o, os, os_n);
	o += os_n;
	*o++ = '/';
	memcpy(o, version, version_n);
	o += version_n;
	if (referred)
		PUT_LIT(o, "\",\"referred\":true}");
	else
		PUT_LIT(o, "\",\"referred\":false}");
	return (size_t)(o - out);
}

int main(int argc, char **argv)
{
	const char *bootstrap = NULL, *out_topic = NULL, *group = NULL, *guarantee = "at_least_once";
	int64_t commit_interval = 100, idle_exit = 2000;
	int batch = 1000;
	bool filter_map = false;
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--filter-map")) {
			filter_map = true;
			i--; /* a flag: no value */
		} else if (!v)
			die("option without a value", a);
		else if (!strcmp(a, "-b"))
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
				"[--idle-exit MS] [--filter-map]\n");
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

	uint64_t records = 0, produced = 0;
	char summary[8192]; /* --filter-map's output value (fm_record) */
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
			void *value = m->payload;
			size_t value_len = m->len;
			if (filter_map) {
				if (!m->payload)
					die("--filter-map", "a null value");
				value = summary;
				value_len = fm_record(m->payload, m->len, summary, sizeof summary);
			}
			if (!filter_map || value_len > 0) { /* 0: dropped by the filter */
				rd_kafka_headers_t *hdrs = NULL;
				if (rd_kafka_message_detach_headers(m, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR)
					hdrs = NULL;
				for (;;) {
					e = rd_kafka_producev(producer, RD_KAFKA_V_RKT(out),
							      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
							      RD_KAFKA_V_KEY(m->key, m->key_len), RD_KAFKA_V_VALUE(value, value_len),
							      RD_KAFKA_V_TIMESTAMP(rd_kafka_message_timestamp(m, NULL)),
							      RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_END);
					if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL)
						break;
					rd_kafka_poll(producer, 50);
				}
				if (e)
					die("producing", rd_kafka_err2str(e));
				produced++;
			}
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
	fprintf(stderr, "limit: records in %" PRIu64 ", out %" PRIu64 "\n", records, produced);
	return 0;
}
