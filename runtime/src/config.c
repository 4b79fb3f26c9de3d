/*
 * config.c - settings of the Kafka commands (`run`, `load`, `dump`).
 *
 * Four layers, each overriding the one before: the application's own
 * defaults (from its app header), a YAML file, STOAT_* environment
 * variables, and command-line flags.  The YAML file, read with libyaml, is
 * one mapping of settings to scalars, with one level of nesting for
 * librdkafka properties; errors name their file:line:col:
 *
 *     bootstrap_servers: 127.0.0.1:9092
 *     guarantee: exactly_once
 *     commit_interval: 100ms
 *     instance_id: orders-1
 *     static_membership: true
 *     on_error: dlq orders-dlq
 *     state_dir: /var/lib/stoat     # stores under <state_dir>/<app_id>/<instance>
 *     memory: default               # preset: low (less prefetching, RSS), default, high
 *     state_memory: 512M            # RocksDB budget (default: the preset's)
 *     cache_max_bytes: 10M          # record cache of all stores; 0 turns it off
 *     on_state_mismatch: refuse     # or rebuild-changelog, reset (see state.h)
 *     http: 9464                    # the operations endpoint on 127.0.0.1:9464 (http.h)
 *     http_ready_max_lag: 10000     # /health/ready only within this lag
 *     log_level: info               # debug, info, warning, error
 *     log_format: text              # or json (one object per line)
 *     log_report_interval: 60s      # a throughput and lag line (0: never)
 *     kafka:              # both clients
 *       socket.timeout.ms: 10000
 *     consumer:
 *       fetch.wait.max.ms: 50
 *     producer:
 *       linger.ms: 10
 *
 * The librdkafka properties of every layer are checked against librdkafka
 * once all are read, each reported at its origin.  No secret is ever
 * printed (stoat_kafka_prop_refused): the value of a refused property only
 * when librdkafka knows it and its name says nothing secret.
 */
#include "http.h"
#include "kafka.h"
#include "rocks.h"
#include "state.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <librdkafka/rdkafka.h>
#include <yaml.h>

/* Adds or replaces a librdkafka property; where is its origin (see kafka.h). */
static void set_prop(stoat_kafka_options *opt, const char *name, const char *value, const char *where)
{
	for (size_t i = 0; i < opt->prop_count; i++)
		if (strcmp(opt->props[i].name, name) == 0) {
			free(opt->props[i].value);
			free(opt->props[i].where);
			opt->props[i].value = stoat_xstrdup(value);
			opt->props[i].where = stoat_xstrdup(where);
			return;
		}
	stoat_kafka_prop *p = stoat_xrealloc(opt->props, opt->prop_count + 1, sizeof *p);
	opt->props = p;
	p[opt->prop_count].name = stoat_xstrdup(name);
	p[opt->prop_count].value = stoat_xstrdup(value);
	p[opt->prop_count].where = stoat_xstrdup(where);
	opt->prop_count++;
}

/* Parses "100ms", "5s", "1m", "2h" or plain milliseconds. */
static bool parse_duration_ms(const char *s, int64_t *out)
{
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0)
		return false;
	int64_t scale = 1;
	if (strcmp(end, "") == 0 || strcmp(end, "ms") == 0)
		scale = 1;
	else if (strcmp(end, "s") == 0)
		scale = 1000;
	else if (strcmp(end, "m") == 0)
		scale = 60000;
	else if (strcmp(end, "h") == 0)
		scale = 3600000;
	else
		return false;
	if (v > INT64_MAX / scale)
		return false;
	*out = (int64_t)v * scale;
	return true;
}

/* The settings apply_setting knows (aliases too), librdkafka's aside. */
static const char *const setting_names[] = {
	"bootstrap_servers", "instance_id", "guarantee", "commit_interval", "commit_interval_ms", "on_error",
	"static_membership", "batch_size", "idle_exit", "idle_exit_ms", "max_task_idle", "repartition_purge_interval",
	"state_dir",
	"memory", "state_memory", "cache_max_bytes", "on_state_mismatch", "shutdown_timeout",
	"http", "http_ready_max_lag", "log_level", "log_format", "log_report_interval",
};

/* Whether name is one of stoat's own settings. */
static bool known_setting(const char *name)
{
	for (size_t i = 0; i < sizeof setting_names / sizeof setting_names[0]; i++)
		if (strcmp(setting_names[i], name) == 0)
			return true;
	return false;
}

/*
 * A dead-letter topic from a setting (the program's are checked by the
 * compiler): a name Kafka would refuse is an error at start-up, not at
 * the first bad record.
 */
static bool dlq_topic_valid(const char *prog, const char *where, const char *topic)
{
	if (stoat_topic_name_valid((stoat_str){ topic, strlen(topic) }))
		return true;
	fprintf(stderr,
		"%s: error: %s: invalid dead-letter topic name '%s' (Kafka topic names are 1 to 249 of a-z A-Z "
		"0-9 . _ -, and not . or ..)\n",
		prog, where, topic);
	return false;
}

/*
 * Applies one setting by name; `where_name` and `where` name the origins
 * of the name and of the value for messages ("--guarantee",
 * "config.yaml:3:12", "STOAT_GUARANTEE"): an unknown name is reported at
 * the first, a bad value at the second.  Returns false after printing the
 * problem.  Values are shown in messages: none of these settings is secret.
 */
static bool apply_setting(stoat_kafka_options *opt, const char *prog, const char *where_name, const char *where,
			  const char *name, const char *value)
{
	if (strcmp(name, "bootstrap_servers") == 0) {
		free((char *)opt->bootstrap_servers);
		opt->bootstrap_servers = stoat_xstrndup(value, strlen(value));
	} else if (strcmp(name, "instance_id") == 0) {
		free((char *)opt->instance_id);
		opt->instance_id = stoat_xstrndup(value, strlen(value));
	} else if (strcmp(name, "guarantee") == 0) {
		if (strcmp(value, "at_least_once") == 0)
			opt->guarantee = STOAT_AT_LEAST_ONCE;
		else if (strcmp(value, "exactly_once") == 0 || strcmp(value, "exactly_once_v2") == 0)
			opt->guarantee = STOAT_EXACTLY_ONCE;
		else {
			fprintf(stderr, "%s: error: %s: guarantee must be at_least_once or exactly_once, not '%s'\n",
				prog, where, value);
			return false;
		}
	} else if (strcmp(name, "commit_interval") == 0 || strcmp(name, "commit_interval_ms") == 0) {
		int64_t ms;
		if (!parse_duration_ms(value, &ms) || ms == 0) {
			fprintf(stderr, "%s: error: %s: commit interval must be a positive duration (100ms, 5s), not '%s'\n",
				prog, where, value);
			return false;
		}
		opt->commit_interval_ms = ms;
	} else if (strcmp(name, "on_error") == 0) {
		if (strcmp(value, "fail") == 0) {
			opt->policy_override = STOAT_POLICY_FAIL;
		} else if (strcmp(value, "skip") == 0) {
			opt->policy_override = STOAT_POLICY_SKIP;
		} else if (strncmp(value, "dlq", 3) == 0 && (value[3] == ' ' || value[3] == ':') && value[4]) {
			if (!dlq_topic_valid(prog, where, value + 4))
				return false;
			opt->policy_override = STOAT_POLICY_DLQ;
			free((char *)opt->dlq_override);
			opt->dlq_override = stoat_xstrndup(value + 4, strlen(value + 4));
		} else {
			fprintf(stderr, "%s: error: %s: on_error must be fail, skip or dlq:TOPIC, not '%s'\n", prog,
				where, value);
			return false;
		}
	} else if (strcmp(name, "static_membership") == 0) {
		if (strcmp(value, "true") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0)
			opt->static_membership = true;
		else if (strcmp(value, "false") == 0 || strcmp(value, "no") == 0 || strcmp(value, "0") == 0)
			opt->static_membership = false;
		else {
			fprintf(stderr, "%s: error: %s: static_membership must be true or false, not '%s'\n", prog, where,
				value);
			return false;
		}
	} else if (strcmp(name, "batch_size") == 0) {
		char *end;
		long v = strtol(value, &end, 10);
		if (*end || v < 1 || v > 1000000) {
			fprintf(stderr, "%s: error: %s: batch_size must be 1 to 1000000, not '%s'\n", prog, where, value);
			return false;
		}
		opt->batch_max = (size_t)v;
	} else if (strcmp(name, "idle_exit") == 0 || strcmp(name, "idle_exit_ms") == 0) {
		if (!parse_duration_ms(value, &opt->idle_exit_ms)) {
			fprintf(stderr, "%s: error: %s: idle_exit must be a duration, not '%s'\n", prog, where, value);
			return false;
		}
	} else if (strcmp(name, "max_task_idle") == 0) {
		/* Kafka Streams' max.task.idle.ms: -1 never waits (see kafka_order.c). */
		if (strcmp(value, "-1") == 0) {
			opt->max_task_idle_ms = -1;
		} else if (!parse_duration_ms(value, &opt->max_task_idle_ms)) {
			fprintf(stderr, "%s: error: %s: max_task_idle must be a duration (0, 500ms, 2s) or -1, not '%s'\n",
				prog, where, value);
			return false;
		}
	} else if (strcmp(name, "repartition_purge_interval") == 0) {
		if (!parse_duration_ms(value, &opt->purge_interval_ms)) {
			fprintf(stderr, "%s: error: %s: repartition_purge_interval must be a duration (30s; 0: never), not '%s'\n",
				prog, where, value);
			return false;
		}
	} else if (strcmp(name, "shutdown_timeout") == 0) {
		int64_t ms;
		if (!parse_duration_ms(value, &ms) || ms == 0) {
			fprintf(stderr, "%s: error: %s: shutdown_timeout must be a positive duration (20s), not '%s'\n", prog,
				where, value);
			return false;
		}
		opt->shutdown_timeout_ms = ms;
	} else if (strcmp(name, "state_dir") == 0) {
		free((char *)opt->state_dir);
		opt->state_dir = stoat_xstrndup(value, strlen(value));
	} else if (strcmp(name, "memory") == 0) {
		if (strcmp(value, "low") == 0)
			opt->memory = STOAT_MEMORY_LOW;
		else if (strcmp(value, "default") == 0)
			opt->memory = STOAT_MEMORY_DEFAULT;
		else if (strcmp(value, "high") == 0)
			opt->memory = STOAT_MEMORY_HIGH;
		else {
			fprintf(stderr, "%s: error: %s: memory must be low, default or high, not '%s'\n", prog, where,
				value);
			return false;
		}
	} else if (strcmp(name, "state_memory") == 0) {
		size_t n = stoat_rocks_memory_budget(value);
		if (n < ((size_t)3 << 20)) {
			fprintf(stderr, "%s: error: %s: state_memory must be low, default, high or a size of at least 3M "
					"(512M, 2G), not '%s'\n",
				prog, where, value);
			return false;
		}
		opt->memory_budget = n;
	} else if (strcmp(name, "on_state_mismatch") == 0) {
		if (!stoat_state_mismatch_parse(value, &opt->on_state_mismatch)) {
			fprintf(stderr, "%s: error: %s: on_state_mismatch must be refuse, rebuild-changelog or reset, not '%s'\n",
				prog, where, value);
			return false;
		}
	} else if (strcmp(name, "cache_max_bytes") == 0) {
		if (!stoat_parse_byte_size(value, &opt->cache_max_bytes)) {
			fprintf(stderr, "%s: error: %s: cache_max_bytes must be a size (0, 65536, 10M), not '%s'\n", prog,
				where, value);
			return false;
		}
	} else if (strcmp(name, "http") == 0) {
		if (!stoat_http_parse_listen(value, opt->http_address, sizeof opt->http_address, &opt->http_port)) {
			fprintf(stderr,
				"%s: error: %s: http must be off, PORT (on 127.0.0.1), ADDRESS:PORT or [IPV6]:PORT, with "
				"PORT from 0 (any free one) to 65535, not '%s'\n",
				prog, where, value);
			return false;
		}
	} else if (strcmp(name, "http_ready_max_lag") == 0) {
		char *end;
		errno = 0;
		long long v = strtoll(value, &end, 10);
		if (strcmp(value, "none") == 0) {
			opt->http_ready_max_lag = -1;
		} else if (errno || end == value || *end || v < 0) {
			fprintf(stderr, "%s: error: %s: http_ready_max_lag must be a number of records (0 or more) or none, "
					"not '%s'\n",
				prog, where, value);
			return false;
		} else {
			opt->http_ready_max_lag = v;
		}
	} else if (strcmp(name, "log_level") == 0) {
		if (!stoat_log_parse_level(value, &opt->log_level)) {
			fprintf(stderr, "%s: error: %s: log_level must be debug, info, warning or error, not '%s'\n", prog,
				where, value);
			return false;
		}
	} else if (strcmp(name, "log_format") == 0) {
		if (!stoat_log_parse_format(value, &opt->log_format)) {
			fprintf(stderr, "%s: error: %s: log_format must be text or json, not '%s'\n", prog, where, value);
			return false;
		}
	} else if (strcmp(name, "log_report_interval") == 0) {
		if (!parse_duration_ms(value, &opt->log_report_interval_ms)) {
			fprintf(stderr, "%s: error: %s: log_report_interval must be a duration (60s; 0: never), not '%s'\n",
				prog, where, value);
			return false;
		}
	} else {
		assert(!known_setting(name)); /* setting_names lists one that has no branch here */
		fprintf(stderr,
			"%s: error: %s: unknown setting '%s' (settings: bootstrap_servers, guarantee, "
			"commit_interval, instance_id, static_membership, on_error, batch_size, idle_exit, max_task_idle, "
			"memory, state_dir, state_memory, cache_max_bytes, on_state_mismatch, repartition_purge_interval, shutdown_timeout, "
			"http, http_ready_max_lag, log_level, log_format, log_report_interval; "
			"librdkafka properties "
			"go under kafka:, consumer: or producer:)\n",
			prog, where_name, name);
		return false;
	}
	return true;
}

/* "file:line:col" of a place in the YAML file (libyaml counts from 0). */
static char *yaml_where(const char *path, yaml_mark_t mark)
{
	int n = snprintf(NULL, 0, "%s:%zu:%zu", path, mark.line + 1, mark.column + 1);
	assert(n > 0);
	char *where = stoat_xmalloc((size_t)n + 1);
	snprintf(where, (size_t)n + 1, "%s:%zu:%zu", path, mark.line + 1, mark.column + 1);
	return where;
}

/* Prints a problem at a place of the YAML file; returns false. */
static bool yaml_error(const char *prog, const char *path, yaml_mark_t mark, const char *fmt, ...) STOAT_PRINTF(4, 5);
static bool yaml_error(const char *prog, const char *path, yaml_mark_t mark, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: error: %s:%zu:%zu: ", prog, path, mark.line + 1, mark.column + 1);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return false;
}

/*
 * Reports why libyaml could not parse the file: where the problem is and,
 * when libyaml says it, what it was reading then ("while scanning a
 * quoted scalar" and where that began).  libyaml's messages quote no
 * part of the file, so no value can show here.  Returns false.
 */
static bool yaml_parse_error(const char *prog, const char *path, FILE *f, const yaml_parser_t *parser)
{
	if (ferror(f)) {
		fprintf(stderr, "%s: error: cannot read configuration %s: %s\n", prog, path, strerror(errno));
		return false;
	}
	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		stoat_out_of_memory("the YAML parser", 0);
		break;
	case YAML_READER_ERROR:
		fprintf(stderr, "%s: error: %s: %s at byte %zu\n", prog, path, parser->problem, parser->problem_offset);
		return false;
	default:
		break;
	}
	if (parser->context)
		return yaml_error(prog, path, parser->problem_mark, "%s (%s at %zu:%zu)", parser->problem,
				  parser->context, parser->context_mark.line + 1, parser->context_mark.column + 1);
	return yaml_error(prog, path, parser->problem_mark, "%s", parser->problem ? parser->problem : "not YAML");
}

/*
 * A scalar node's text as a C string; NULL after a message when the node
 * is no scalar, or holds a NUL character (which no setting can take).
 * what says what the scalar is for messages ("a setting", "a value").
 */
static const char *yaml_text(const char *prog, const char *path, const yaml_node_t *node, const char *what)
{
	if (node->type != YAML_SCALAR_NODE) {
		yaml_error(prog, path, node->start_mark, "expected %s here, not a %s", what,
			   node->type == YAML_MAPPING_NODE ? "mapping" : "list");
		return NULL;
	}
	const char *text = (const char *)node->data.scalar.value;
	if (strlen(text) != node->data.scalar.length) {
		yaml_error(prog, path, node->start_mark, "%s cannot hold a NUL character", what);
		return NULL;
	}
	return text;
}

/*
 * The librdkafka properties of one section (kafka:, consumer: or
 * producer:), a mapping of property names to scalar values.  A section
 * left empty (`kafka:` alone) holds none.
 */
static bool read_yaml_section(stoat_kafka_options *opt, const char *prog, const char *path, yaml_document_t *doc,
			      const char *section, const yaml_node_t *node)
{
	if (node->type == YAML_SCALAR_NODE && node->data.scalar.length == 0)
		return true;
	if (node->type != YAML_MAPPING_NODE)
		return yaml_error(prog, path, node->start_mark,
				  "%s: takes librdkafka properties, one per line indented under it", section);
	for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
		const yaml_node_t *key = yaml_document_get_node(doc, pair->key);
		const yaml_node_t *value = yaml_document_get_node(doc, pair->value);
		assert(key && value);
		const char *name = yaml_text(prog, path, key, "a librdkafka property");
		const char *text = name ? yaml_text(prog, path, value, "the property's value") : NULL;
		if (!text)
			return false;
		char *where = yaml_where(path, key->start_mark);
		if (strcmp(section, "kafka") == 0) {
			set_prop(opt, name, text, where);
		} else {
			size_t n = strlen(section) + 1 + strlen(name) + 1;
			char *full = stoat_xmalloc(n);
			snprintf(full, n, "%s.%s", section, name);
			set_prop(opt, full, text, where);
			free(full);
		}
		free(where);
	}
	return true;
}

/* The settings of the file's one document: a mapping, or nothing at all. */
static bool read_yaml_document(stoat_kafka_options *opt, const char *prog, const char *path, yaml_document_t *doc)
{
	const yaml_node_t *root = yaml_document_get_root_node(doc);
	if (!root)
		return true;
	if (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0 &&
	    root->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
		return true; /* a lone "---" */
	if (root->type != YAML_MAPPING_NODE)
		return yaml_error(prog, path, root->start_mark, "expected settings, one 'key: value' per line");
	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++) {
		const yaml_node_t *key = yaml_document_get_node(doc, pair->key);
		const yaml_node_t *value = yaml_document_get_node(doc, pair->value);
		assert(key && value);
		const char *name = yaml_text(prog, path, key, "a setting");
		if (!name)
			return false;
		if (strcmp(name, "kafka") == 0 || strcmp(name, "consumer") == 0 || strcmp(name, "producer") == 0) {
			if (!read_yaml_section(opt, prog, path, doc, name, value))
				return false;
			continue;
		}
		bool empty = value->type == YAML_SCALAR_NODE && value->data.scalar.length == 0;
		if (empty || value->type != YAML_SCALAR_NODE) {
			if (!known_setting(name))
				return yaml_error(prog, path, key->start_mark,
						  "unknown section '%s' (kafka, consumer or producer)", name);
			if (empty)
				return yaml_error(prog, path, key->start_mark, "%s needs a value", name);
		}
		const char *text = yaml_text(prog, path, value, "the setting's value");
		if (!text)
			return false;
		char *where_key = yaml_where(path, key->start_mark);
		char *where_value = yaml_where(path, value->start_mark);
		bool ok = apply_setting(opt, prog, where_key, where_value, name, text);
		free(where_key);
		free(where_value);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * Reads the YAML configuration file with libyaml; false after printing
 * the problem, at its file:line:col.  A directory is refused by name (C
 * would open it, and libyaml report a bare "input error").
 */
static bool read_yaml(stoat_kafka_options *opt, const char *prog, const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		fprintf(stderr, "%s: error: cannot read configuration %s: %s\n", prog, path, strerror(errno));
		return false;
	}
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		stoat_out_of_memory("the YAML parser", sizeof parser);
	yaml_parser_set_input_file(&parser, f);
	yaml_document_t doc;
	bool ok = yaml_parser_load(&parser, &doc) ? true : yaml_parse_error(prog, path, f, &parser);
	if (ok) {
		ok = read_yaml_document(opt, prog, path, &doc);
		yaml_document_delete(&doc);
	}
	/* One document: a second one is a mistake (two files pasted together?). */
	if (ok) {
		if (!yaml_parser_load(&parser, &doc)) {
			ok = yaml_parse_error(prog, path, f, &parser);
		} else {
			const yaml_node_t *extra = yaml_document_get_root_node(&doc);
			if (extra)
				ok = yaml_error(prog, path, extra->start_mark,
						"a configuration file holds one YAML document, this is a second one");
			yaml_document_delete(&doc);
		}
	}
	yaml_parser_delete(&parser);
	fclose(f);
	return ok;
}

/*
 * STOAT_BOOTSTRAP_SERVERS, STOAT_GUARANTEE, STOAT_COMMIT_INTERVAL,
 * STOAT_INSTANCE_ID, STOAT_ON_ERROR, STOAT_BATCH_SIZE, and
 * STOAT_KAFKA_<PROPERTY> (dots as underscores: STOAT_KAFKA_LINGER_MS).
 */
static bool read_environment(stoat_kafka_options *opt, const char *prog)
{
	static const struct { const char *env, *name; } vars[] = {
		{ "STOAT_BOOTSTRAP_SERVERS", "bootstrap_servers" },
		{ "STOAT_GUARANTEE", "guarantee" },
		{ "STOAT_COMMIT_INTERVAL", "commit_interval" },
		{ "STOAT_INSTANCE_ID", "instance_id" },
		{ "STOAT_ON_ERROR", "on_error" },
		{ "STOAT_BATCH_SIZE", "batch_size" },
		{ "STOAT_STATIC_MEMBERSHIP", "static_membership" },
		{ "STOAT_STATE_DIR", "state_dir" },
		{ "STOAT_MEMORY", "memory" },
		{ "STOAT_STATE_MEMORY", "state_memory" },
		{ "STOAT_CACHE_MAX_BYTES", "cache_max_bytes" },
		{ "STOAT_ON_STATE_MISMATCH", "on_state_mismatch" },
		{ "STOAT_REPARTITION_PURGE_INTERVAL", "repartition_purge_interval" },
		{ "STOAT_SHUTDOWN_TIMEOUT", "shutdown_timeout" },
		{ "STOAT_MAX_TASK_IDLE", "max_task_idle" },
		{ "STOAT_HTTP", "http" },
		{ "STOAT_HTTP_READY_MAX_LAG", "http_ready_max_lag" },
		{ "STOAT_LOG_LEVEL", "log_level" },
		{ "STOAT_LOG_FORMAT", "log_format" },
		{ "STOAT_LOG_REPORT_INTERVAL", "log_report_interval" },
	};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i].env);
		if (v && *v && !apply_setting(opt, prog, vars[i].env, vars[i].env, vars[i].name, v))
			return false;
	}
	extern char **environ;
	for (char **e = environ; *e; e++) {
		if (strncmp(*e, "STOAT_KAFKA_", 12) != 0)
			continue;
		const char *eq = strchr(*e, '=');
		if (!eq || eq == *e + 12)
			continue;
		char name[256];
		size_t n = (size_t)(eq - (*e + 12));
		if (n >= sizeof name)
			continue;
		for (size_t i = 0; i < n; i++) {
			char c = (*e)[12 + i];
			name[i] = c == '_' ? '.' : (char)tolower((unsigned char)c);
		}
		name[n] = '\0';
		char env_name[256 + 12];
		snprintf(env_name, sizeof env_name, "%.*s", (int)(eq - *e), *e);
		set_prop(opt, name, eq + 1, env_name);
	}
	return true;
}

/*
 * Whether a property's value is a secret, from its name: passwords and
 * passphrases, secrets, tokens, Java's JAAS configuration (which holds the
 * password), key material and what configures it (ssl.key.*, ssl_key,
 * ssl.keystore.*, *.key.password, sasl.kerberos.keytab, inline PEM),
 * credentials, and everything OAUTHBEARER (sasl.oauthbearer.*).  Matched
 * loosely on purpose: hiding a harmless value costs less than showing a
 * password.
 */
bool stoat_kafka_prop_is_secret(const char *name)
{
	static const char *const words[] = { "pass", "secret", "token", "jaas", "key", "pem", "credential",
					     "oauthbearer" };
	for (const char *p = name; *p; p++)
		for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
			if (strncasecmp(p, words[i], strlen(words[i])) == 0)
				return true;
	return false;
}

/*
 * Blots out every occurrence of secret in msg, in place: "***" (or as
 * many '*' as the secret is long, when it is shorter than that).
 */
static void blot(char *msg, const char *secret)
{
	size_t n = strlen(secret);
	if (n == 0)
		return;
	size_t stars = n < 3 ? n : 3;
	for (char *p = strstr(msg, secret); p; p = strstr(p + stars, secret)) {
		memset(p, '*', stars);
		memmove(p + stars, p + n, strlen(p + n) + 1);
	}
}

/* Blots the value of every secret property of opt out of msg. */
void stoat_kafka_redact(const stoat_kafka_options *opt, char *msg)
{
	for (size_t i = 0; i < opt->prop_count; i++)
		if (stoat_kafka_prop_is_secret(opt->props[i].name))
			blot(msg, opt->props[i].value);
}

/*
 * The message for a property librdkafka refused (err is librdkafka's
 * reason).  The value is shown only for a property librdkafka knows whose
 * name says nothing secret: a misspelt "sasl.passwrod" holds a password
 * all the same, so an unknown property's value is never shown, nor found
 * in the reason.
 */
void stoat_kafka_prop_refused(const char *prog, const char *where, const char *name, const char *value,
			      bool unknown, const char *err)
{
	bool hide = unknown || stoat_kafka_prop_is_secret(name);
	char reason[512];
	snprintf(reason, sizeof reason, "%s", err);
	if (hide)
		blot(reason, value);
	fprintf(stderr, "%s: error: %s%sKafka property %s%s%s: %s\n", prog, where ? where : "", where ? ": " : "",
		name, hide ? "" : "=", hide ? " (value not shown)" : value, reason);
}

/*
 * Checks the librdkafka properties of every origin against librdkafka
 * itself (on a configuration of its own, as each client applies them), so
 * that a misspelt or bad one is reported at its origin -- "app.yaml:4:3",
 * "-X", "STOAT_KAFKA_LINGER_MS" -- before anything starts.  Only the
 * properties that end up set are checked: a later origin overrides an
 * earlier one's value before this runs.
 */
static bool check_props(const stoat_kafka_options *opt, const char *prog)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	bool ok = true;
	for (size_t i = 0; ok && i < opt->prop_count; i++) {
		const stoat_kafka_prop *p = &opt->props[i];
		const char *name = p->name;
		if (strncmp(name, "consumer.", 9) == 0 || strncmp(name, "producer.", 9) == 0)
			name += 9;
		char err[512];
		rd_kafka_conf_res_t res = rd_kafka_conf_set(conf, name, p->value, err, sizeof err);
		if (res != RD_KAFKA_CONF_OK) {
			stoat_kafka_prop_refused(prog, p->where, name, p->value, res == RD_KAFKA_CONF_UNKNOWN, err);
			ok = false;
		}
	}
	rd_kafka_conf_destroy(conf);
	return ok;
}

/*
 * Fills opt: app defaults, then YAML, then the environment, then argv
 * (later sources win; see kafka.h).
 */
int stoat_kafka_configure(const stoat_app *app, const char *prog, const char *command, int argc, char **argv,
			  stoat_kafka_options *opt, char ***rest, int *rest_count)
{
	memset(opt, 0, sizeof *opt);
	opt->guarantee = app->guarantee;
	opt->commit_interval_ms = app->commit_interval_ms > 0 ? app->commit_interval_ms : 100;
	opt->policy_override = STOAT_POLICY_DEFAULT;
	opt->batch_max = 1000;
	opt->cache_max_bytes = STOAT_CACHE_DEFAULT_BYTES;
	opt->purge_interval_ms = 30000; /* Kafka Streams' repartition.purge.interval.ms */
	opt->shutdown_timeout_ms = 20000; /* within Kubernetes' default 30 s grace period */
	opt->http_port = -1;
	opt->http_ready_max_lag = -1;
	opt->log_level = STOAT_LOG_INFO;
	opt->log_format = STOAT_LOG_TEXT;
	opt->log_report_interval_ms = 60000;
	*rest = stoat_xcalloc((size_t)argc + 1, sizeof **rest);
	*rest_count = 0;

	/* The file first (flags may override what it says). */
	const char *config = getenv("STOAT_CONFIG");
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			config = argv[i + 1];
	if (config && *config && !read_yaml(opt, prog, config))
		return STOAT_EXIT_USAGE;
	if (!read_environment(opt, prog))
		return STOAT_EXIT_USAGE;

	static const struct { const char *flag, *name; } flags[] = {
		{ "--bootstrap-servers", "bootstrap_servers" }, { "-b", "bootstrap_servers" },
		{ "--guarantee", "guarantee" }, { "--commit-interval", "commit_interval" },
		{ "--instance-id", "instance_id" }, { "--on-error", "on_error" },
		{ "--batch", "batch_size" }, { "--idle-exit", "idle_exit" }, { "--max-task-idle", "max_task_idle" },
		{ "--state-dir", "state_dir" }, { "--state-memory", "state_memory" }, { "--memory", "memory" },
		{ "--cache-max-bytes", "cache_max_bytes" }, { "--on-state-mismatch", "on_state_mismatch" },
		{ "--repartition-purge-interval", "repartition_purge_interval" },
		{ "--shutdown-timeout", "shutdown_timeout" },
		{ "--http", "http" }, { "--http-ready-max-lag", "http_ready_max_lag" },
		{ "--log-level", "log_level" }, { "--log-format", "log_format" },
		{ "--log-report-interval", "log_report_interval" },
	};
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool matched = false;
		if (strcmp(a, "--config") == 0) {
			i++;
			continue;
		}
		if (strcmp(a, "--stats") == 0) {
			opt->stats = true;
			continue;
		}
		if (strcmp(a, "--static-membership") == 0) {
			opt->static_membership = true;
			continue;
		}
		if (strcmp(a, "-X") == 0) {
			if (i + 1 >= argc || !strchr(argv[i + 1], '=')) {
				fprintf(stderr, "%s: error: -X needs PROPERTY=VALUE\nTry '%s %s --help'.\n", prog, prog, command);
				return STOAT_EXIT_USAGE;
			}
			char *eq = strchr(argv[++i], '=');
			char *name = stoat_xstrndup(argv[i], (size_t)(eq - argv[i]));
			set_prop(opt, name, eq + 1, "-X");
			free(name);
			continue;
		}
		for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
			if (strcmp(a, flags[f].flag) != 0)
				continue;
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: error: %s needs a value\nTry '%s %s --help'.\n", prog, a, prog, command);
				return STOAT_EXIT_USAGE;
			}
			if (!apply_setting(opt, prog, a, a, flags[f].name, argv[++i]))
				return STOAT_EXIT_USAGE;
			matched = true;
			break;
		}
		if (matched)
			continue;
		if (a[0] == '-' && a[1] && strcmp(a, "-") != 0 && strncmp(a, "--", 2) == 0 && strcmp(a, "--read-uncommitted") &&
		    strcmp(a, "--idle-ms")) {
			/* Up to an '=': what follows may be a secret (--sasl-password=...). */
			fprintf(stderr, "%s: error: unknown option '%.*s'\nTry '%s %s --help'.\n", prog,
				(int)strcspn(a, "="), a, prog, command);
			return STOAT_EXIT_USAGE;
		}
		(*rest)[(*rest_count)++] = argv[i];
	}
	if (!check_props(opt, prog))
		return STOAT_EXIT_USAGE;
	if (!opt->bootstrap_servers) {
		fprintf(stderr,
			"%s: error: no Kafka cluster given: use --bootstrap-servers HOST:PORT, "
			"STOAT_BOOTSTRAP_SERVERS or bootstrap_servers: in the --config file\n",
			prog);
		return STOAT_EXIT_USAGE;
	}
	return 0;
}

/* Frees what stoat_kafka_configure allocated. */
void stoat_kafka_options_free(stoat_kafka_options *opt, char **rest)
{
	free((char *)opt->bootstrap_servers);
	free((char *)opt->instance_id);
	free((char *)opt->dlq_override);
	free((char *)opt->state_dir);
	for (size_t i = 0; i < opt->prop_count; i++) {
		free(opt->props[i].name);
		free(opt->props[i].value);
		free(opt->props[i].where);
	}
	free(opt->props);
	free(rest);
	memset(opt, 0, sizeof *opt);
}
