/*
 * generic_jansson.c - the filter+map micro-benchmark written by hand against
 * a generic JSON DOM library (jansson), as a baseline for the code stoatc
 * generates from filter_map.stoat.
 *
 * It does the same job as `filter_map replay FILE`: read replay records
 * (docs/replay-format.md) line by line, parse each line -- envelope and
 * value -- into a jansson DOM, keep the events with amount >= 100.0, map them
 * to the smaller Summary record and write one output line per kept record in
 * the replay driver's output format:
 *
 *   {"topic":"summaries","partition":0,"offset":N,"timestamp":TS,"key":K,"value":{...}}
 *
 * Simplifications that do not change the output for gen.py's data:
 *  - the output topic has one partition (the driver's default), so the
 *    partition is always 0 and no murmur2 is needed;
 *  - only the fields the job uses are looked at (a generic program has no
 *    schema); a missing or mistyped one stops the run with status 1, as the
 *    stoat program's on_error = fail does.
 * Reals are written by jansson as "%.17g" (1297.1000000000001 but also
 * 59.969999999999999 where stoat writes the shortest round-trip form
 * 59.97), so bench/run-micro compares the two outputs after normalising
 * numbers.
 *
 * usage: generic_jansson INPUT.jsonl > OUTPUT.jsonl
 * build: cc -O2 -o generic_jansson generic_jansson.c -ljansson
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(long lineno, const char *msg)
{
	fprintf(stderr, "generic_jansson: line %ld: %s\n", lineno, msg);
	exit(1);
}

static const char *get_str(json_t *obj, const char *name, long lineno)
{
	const char *s = json_string_value(json_object_get(obj, name));
	if (!s)
		die(lineno, name);
	return s;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: generic_jansson INPUT.jsonl\n");
		return 2;
	}
	FILE *in = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 3;
	}
	static char outbuf[1 << 20]; /* the driver's 1 MiB output buffer */
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	long long offset = 0;
	char upper[256];
	char platform[512];

	while ((n = getline(&line, &cap, in)) > 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (n == 0)
			continue;

		json_error_t err;
		json_t *env = json_loadb(line, (size_t)n, 0, &err);
		if (!env || !json_is_object(env))
			die(lineno, err.text);
		if (strcmp(get_str(env, "topic", lineno), "events") != 0)
			die(lineno, "unknown topic");
		json_int_t ts = json_integer_value(json_object_get(env, "timestamp"));
		json_t *key = json_object_get(env, "key");
		json_t *value = json_object_get(env, "value");
		json_t *owned = NULL;
		if (json_is_string(value)) { /* JSON text given as a string */
			owned = value = json_loads(json_string_value(value), 0, &err);
			if (!value)
				die(lineno, err.text);
		}
		if (!json_is_object(value))
			die(lineno, "value is not an object");

		/* filter(e => e.amount >= 100.0) */
		json_t *amount = json_object_get(value, "amount");
		if (!json_is_number(amount))
			die(lineno, "amount");
		double a = json_number_value(amount);
		if (a >= 100.0) {
			/* map_values(e => Summary { ... }) */
			json_t *quantity = json_object_get(value, "quantity");
			json_t *tags = json_object_get(value, "tags");
			json_t *device = json_object_get(value, "device");
			json_t *referrer = json_object_get(value, "referrer");
			if (!json_is_integer(quantity) || !json_is_array(tags) || !json_is_object(device))
				die(lineno, "quantity, tags or device");

			const char *kind = get_str(value, "kind", lineno);
			size_t k = 0;
			for (; kind[k] && k < sizeof upper - 1; k++)
				upper[k] = (char)toupper((unsigned char)kind[k]);
			upper[k] = 0;
			snprintf(platform, sizeof platform, "%s/%s", get_str(device, "os", lineno),
				 get_str(device, "version", lineno));

			json_t *out = json_object();
			json_object_set_new(out, "id", json_string(get_str(value, "event_id", lineno)));
			json_object_set_new(out, "user", json_string(get_str(value, "user_id", lineno)));
			json_object_set_new(out, "kind", json_string(upper));
			json_object_set_new(out, "country", json_string(get_str(value, "country", lineno)));
			json_object_set_new(out, "total",
					    json_real(a * (double)json_integer_value(quantity)));
			json_object_set_new(out, "tag_count", json_integer((json_int_t)json_array_size(tags)));
			json_object_set_new(out, "platform", json_string(platform));
			json_object_set_new(out, "referred",
					    json_boolean(referrer != NULL && !json_is_null(referrer)));

			char *v = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);
			char *kj = key ? json_dumps(key, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
			printf("{\"topic\":\"summaries\",\"partition\":0,\"offset\":%lld,\"timestamp\":%lld,"
			       "\"key\":%s,\"value\":%s",
			       offset++, (long long)ts, kj ? kj : "null", v);
			json_t *headers = json_object_get(env, "headers");
			if (headers) {
				char *h = json_dumps(headers, JSON_COMPACT | JSON_PRESERVE_ORDER);
				printf(",\"headers\":%s", h);
				free(h);
			}
			fputs("}\n", stdout);
			free(kj);
			free(v);
			json_decref(out);
		}
		json_decref(owned);
		json_decref(env);
	}
	free(line);
	if (ferror(in) || fflush(stdout) != 0) {
		perror("generic_jansson");
		return 3;
	}
	return 0;
}
