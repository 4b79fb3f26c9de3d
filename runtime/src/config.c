/*
 * config.c - settings of the Kafka commands (`run`, `load`, `dump`).
 *
 * Four layers, each overriding the one before: the application's own
 * defaults (from its app header), a YAML file, STOAT_* environment
 * variables, and command-line flags.  The YAML understood is the subset a
 * configuration file needs: `key: value` lines, `#` comments, quoted
 * values, and one level of nesting for librdkafka properties:
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
 *     kafka:              # both clients
 *       socket.timeout.ms: 10000
 *     consumer:
 *       fetch.wait.max.ms: 50
 *     producer:
 *       linger.ms: 10
 */
#include "kafka.h"
#include "rocks.h"
#include "state.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds or replaces a librdkafka property. */
static void set_prop(stoat_kafka_options *opt, const char *name, const char *value)
{
	for (size_t i = 0; i < opt->prop_count; i++)
		if (strcmp(opt->props[i].name, name) == 0) {
			free(opt->props[i].value);
			opt->props[i].value = stoat_xstrndup(value, strlen(value));
			return;
		}
	stoat_kafka_prop *p = stoat_xrealloc(opt->props, opt->prop_count + 1, sizeof *p);
	opt->props = p;
	p[opt->prop_count].name = stoat_xstrndup(name, strlen(name));
	p[opt->prop_count].value = stoat_xstrndup(value, strlen(value));
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

/*
 * Applies one setting by name; `where` names its origin for messages
 * ("--guarantee", "config.yaml:3", "STOAT_GUARANTEE").  Returns false after
 * printing the problem.
 */
static bool apply_setting(stoat_kafka_options *opt, const char *prog, const char *where, const char *name,
			  const char *value)
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
	} else if (strcmp(name, "cache_max_bytes") == 0) {
		if (!stoat_parse_byte_size(value, &opt->cache_max_bytes)) {
			fprintf(stderr, "%s: error: %s: cache_max_bytes must be a size (0, 65536, 10M), not '%s'\n", prog,
				where, value);
			return false;
		}
	} else {
		fprintf(stderr,
			"%s: error: %s: unknown setting '%s' (settings: bootstrap_servers, guarantee, "
			"commit_interval, instance_id, static_membership, on_error, batch_size, idle_exit, "
			"memory, state_dir, state_memory, cache_max_bytes, repartition_purge_interval, shutdown_timeout; "
			"librdkafka properties "
			"go under kafka:, consumer: or producer:)\n",
			prog, where, name);
		return false;
	}
	return true;
}

/* Strips blanks at both ends, and matching quotes. */
static char *trim_value(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = '\0';
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s[n - 1] = '\0';
		s++;
	}
	return s;
}

/* Reads the YAML configuration file; false after printing the problem. */
static bool read_yaml(stoat_kafka_options *opt, const char *prog, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: error: cannot read configuration %s: %s\n", prog, path, strerror(errno));
		return false;
	}
	char line[4096];
	char section[16] = "";
	int lineno = 0;
	bool ok = true;
	while (ok && fgets(line, sizeof line, f)) {
		lineno++;
		char where[512];
		snprintf(where, sizeof where, "%s:%d", path, lineno);
		/* Drop comments (a '#' outside quotes, at the start or after a blank). */
		bool quoted = false;
		char q = 0;
		for (char *p = line; *p; p++) {
			if (quoted) {
				if (*p == q)
					quoted = false;
			} else if (*p == '"' || *p == '\'') {
				quoted = true;
				q = *p;
			} else if (*p == '#' && (p == line || p[-1] == ' ' || p[-1] == '\t')) {
				*p = '\0';
				break;
			}
		}
		size_t indent = strspn(line, " ");
		char *text = line + indent;
		if (*trim_value(text) == '\0')
			continue;
		char *colon = strchr(text, ':');
		if (!colon) {
			fprintf(stderr, "%s: error: %s: expected 'key: value'\n", prog, where);
			ok = false;
			break;
		}
		*colon = '\0';
		char *key = trim_value(text);
		char *value = trim_value(colon + 1);
		if (indent == 0) {
			section[0] = '\0';
			if (*value == '\0') {
				if (strcmp(key, "kafka") != 0 && strcmp(key, "consumer") != 0 && strcmp(key, "producer") != 0) {
					fprintf(stderr, "%s: error: %s: unknown section '%s' (kafka, consumer or producer)\n",
						prog, where, key);
					ok = false;
					break;
				}
				snprintf(section, sizeof section, "%s", key);
				continue;
			}
			ok = apply_setting(opt, prog, where, key, value);
		} else {
			if (!section[0]) {
				fprintf(stderr, "%s: error: %s: indented line outside kafka:, consumer: or producer:\n",
					prog, where);
				ok = false;
				break;
			}
			char name[600];
			if (strcmp(section, "kafka") == 0)
				snprintf(name, sizeof name, "%s", key);
			else
				snprintf(name, sizeof name, "%s.%s", section, key);
			set_prop(opt, name, value);
		}
	}
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
		{ "STOAT_REPARTITION_PURGE_INTERVAL", "repartition_purge_interval" },
		{ "STOAT_SHUTDOWN_TIMEOUT", "shutdown_timeout" },
	};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i].env);
		if (v && *v && !apply_setting(opt, prog, vars[i].env, vars[i].name, v))
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
		set_prop(opt, name, eq + 1);
	}
	return true;
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
		{ "--batch", "batch_size" }, { "--idle-exit", "idle_exit" },
		{ "--state-dir", "state_dir" }, { "--state-memory", "state_memory" }, { "--memory", "memory" },
		{ "--cache-max-bytes", "cache_max_bytes" },
		{ "--repartition-purge-interval", "repartition_purge_interval" },
		{ "--shutdown-timeout", "shutdown_timeout" },
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
			set_prop(opt, name, eq + 1);
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
			if (!apply_setting(opt, prog, a, flags[f].name, argv[++i]))
				return STOAT_EXIT_USAGE;
			matched = true;
			break;
		}
		if (matched)
			continue;
		if (a[0] == '-' && a[1] && strcmp(a, "-") != 0 && strncmp(a, "--", 2) == 0 && strcmp(a, "--read-uncommitted") &&
		    strcmp(a, "--idle-ms")) {
			fprintf(stderr, "%s: error: unknown option '%s'\nTry '%s %s --help'.\n", prog, a, prog, command);
			return STOAT_EXIT_USAGE;
		}
		(*rest)[(*rest_count)++] = argv[i];
	}
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
	}
	free(opt->props);
	free(rest);
	memset(opt, 0, sizeof *opt);
}
