/*
 * config_settings.c - the table of stoat's own settings (config_impl.h):
 * for each, its YAML key, environment variable and flag, the function
 * that parses a value into stoat_kafka_options and the one that writes it
 * back for `config print`.  How the layers reach them is config.c's.
 */
#include "config_impl.h"
#include "http.h"
#include "rocks.h"
#include "state.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Replaces an owned string of the options with a copy of value. */
static void replace_string(const char **field, const char *value)
{
	free((char *)*field);
	*field = stoat_xstrdup(value);
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
 * The one boolean parser of every setting and switch: YAML 1.1's words as
 * people write them, true/false, yes/no, on/off in any case ("True",
 * "OFF"), and 1/0.
 */
static bool parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* Writes a duration in the largest unit that keeps it whole ("100ms", "5s", "0"). */
static bool show_duration(int64_t ms, char *buf, size_t size)
{
	static const struct { int64_t scale; const char *unit; } units[] = {
		{ 3600000, "h" }, { 60000, "m" }, { 1000, "s" }, { 1, "ms" },
	};
	if (ms == 0) {
		snprintf(buf, size, "0");
		return true;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (ms % units[i].scale == 0) {
			snprintf(buf, size, "%" PRId64 "%s", ms / units[i].scale, units[i].unit);
			break;
		}
	return true;
}

/* Writes a byte count in the largest binary unit that keeps it whole ("10M", "65536"). */
static bool show_size(size_t n, char *buf, size_t size)
{
	static const struct { size_t scale; const char *unit; } units[] = {
		{ (size_t)1 << 30, "G" }, { (size_t)1 << 20, "M" }, { (size_t)1 << 10, "K" }, { 1, "" },
	};
	if (n == 0) {
		snprintf(buf, size, "0");
		return true;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (n % units[i].scale == 0) {
			snprintf(buf, size, "%zu%s", n / units[i].scale, units[i].unit);
			break;
		}
	return true;
}

/* A string setting's value, or false when unset. */
static bool show_string(const char *value, char *buf, size_t size)
{
	if (!value)
		return false;
	snprintf(buf, size, "%s", value);
	return true;
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
 * The settings' parse and show functions, in the table's order.  A parse
 * function gets a value that is neither NULL nor empty; values are shown
 * in messages: none of these settings is secret.
 */

/* bootstrap_servers: host:port[,host:port...], as librdkafka takes it. */
static stoat_parse_result parse_bootstrap_servers(stoat_kafka_options *opt, const char *prog, const char *where,
						  const char *value)
{
	(void)prog;
	(void)where;
	replace_string(&opt->bootstrap_servers, value);
	return STOAT_PARSED;
}

/* The cluster. */
static bool show_bootstrap_servers(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_string(opt->bootstrap_servers, buf, size);
}

/* guarantee: at_least_once, exactly_once (exactly_once_v2 too, Kafka Streams' name). */
static stoat_parse_result parse_guarantee(stoat_kafka_options *opt, const char *prog, const char *where,
					  const char *value)
{
	(void)prog;
	(void)where;
	if (strcmp(value, "at_least_once") == 0)
		opt->guarantee = STOAT_AT_LEAST_ONCE;
	else if (strcmp(value, "exactly_once") == 0 || strcmp(value, "exactly_once_v2") == 0)
		opt->guarantee = STOAT_EXACTLY_ONCE;
	else
		return STOAT_BAD_VALUE;
	return STOAT_PARSED;
}

/* The guarantee by its setting's name. */
static bool show_guarantee(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%s", opt->guarantee == STOAT_EXACTLY_ONCE ? "exactly_once" : "at_least_once");
	return true;
}

/* commit_interval: a positive duration. */
static stoat_parse_result parse_commit_interval(stoat_kafka_options *opt, const char *prog, const char *where,
						const char *value)
{
	(void)prog;
	(void)where;
	int64_t ms;
	if (!parse_duration_ms(value, &ms) || ms == 0)
		return STOAT_BAD_VALUE;
	opt->commit_interval_ms = ms;
	return STOAT_PARSED;
}

/* The commit interval. */
static bool show_commit_interval(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_duration(opt->commit_interval_ms, buf, size);
}

/* instance_id: any text (kafka_ids.c checks what it makes of it). */
static stoat_parse_result parse_instance_id(stoat_kafka_options *opt, const char *prog, const char *where,
					    const char *value)
{
	(void)prog;
	(void)where;
	replace_string(&opt->instance_id, value);
	return STOAT_PARSED;
}

/* The instance id, unset when random. */
static bool show_instance_id(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_string(opt->instance_id, buf, size);
}

/* static_membership: a boolean (parse_bool). */
static stoat_parse_result parse_static_membership(stoat_kafka_options *opt, const char *prog, const char *where,
						  const char *value)
{
	(void)prog;
	(void)where;
	return parse_bool(value, &opt->static_membership) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

/* Static membership as true or false. */
static bool show_static_membership(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%s", opt->static_membership ? "true" : "false");
	return true;
}

/*
 * on_error: fail, skip, or a dead-letter topic written "dlq:TOPIC",
 * "dlq: TOPIC" or "dlq TOPIC" (the YAML mapping {dlq: TOPIC} arrives as
 * "dlq:TOPIC"); the topic loses the blanks around it.
 */
static stoat_parse_result parse_on_error(stoat_kafka_options *opt, const char *prog, const char *where,
					 const char *value)
{
	if (strcmp(value, "fail") == 0) {
		opt->policy_override = STOAT_POLICY_FAIL;
		return STOAT_PARSED;
	}
	if (strcmp(value, "skip") == 0) {
		opt->policy_override = STOAT_POLICY_SKIP;
		return STOAT_PARSED;
	}
	if (strncmp(value, "dlq", 3) != 0 || (value[3] != ':' && value[3] != ' ' && value[3] != '\t'))
		return STOAT_BAD_VALUE;
	const char *topic = value + 3;
	topic += strspn(topic, " \t");
	if (*topic == ':')
		topic++;
	topic += strspn(topic, " \t");
	size_t n = strlen(topic);
	while (n > 0 && (topic[n - 1] == ' ' || topic[n - 1] == '\t'))
		n--;
	if (n == 0)
		return STOAT_BAD_VALUE;
	char *trimmed = stoat_xstrndup(topic, n);
	bool valid = dlq_topic_valid(prog, where, trimmed);
	if (valid) {
		opt->policy_override = STOAT_POLICY_DLQ;
		free((char *)opt->dlq_override);
		opt->dlq_override = trimmed;
	} else {
		free(trimmed);
	}
	return valid ? STOAT_PARSED : STOAT_REPORTED;
}

/* The policy override, unset when each source keeps the program's. */
static bool show_on_error(const stoat_kafka_options *opt, char *buf, size_t size)
{
	switch (opt->policy_override) {
	case STOAT_POLICY_DEFAULT:
		return false;
	case STOAT_POLICY_DLQ:
		snprintf(buf, size, "dlq:%s", opt->dlq_override);
		return true;
	default:
		snprintf(buf, size, "%s", stoat_policy_name(opt->policy_override));
		return true;
	}
}

/* batch_size: 1 to 1000000 records. */
static stoat_parse_result parse_batch_size(stoat_kafka_options *opt, const char *prog, const char *where,
					   const char *value)
{
	(void)prog;
	(void)where;
	char *end;
	errno = 0;
	long v = strtol(value, &end, 10);
	if (errno || *end || v < 1 || v > 1000000)
		return STOAT_BAD_VALUE;
	opt->batch_max = (size_t)v;
	return STOAT_PARSED;
}

/* The batch size. */
static bool show_batch_size(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%zu", opt->batch_max);
	return true;
}

/* idle_exit: a duration, 0 for never. */
static stoat_parse_result parse_idle_exit(stoat_kafka_options *opt, const char *prog, const char *where,
					  const char *value)
{
	(void)prog;
	(void)where;
	return parse_duration_ms(value, &opt->idle_exit_ms) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

/* The idle exit. */
static bool show_idle_exit(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_duration(opt->idle_exit_ms, buf, size);
}

/* max_task_idle: Kafka Streams' max.task.idle.ms, a duration or -1 (never waits, see kafka_order.c). */
static stoat_parse_result parse_max_task_idle(stoat_kafka_options *opt, const char *prog, const char *where,
					      const char *value)
{
	(void)prog;
	(void)where;
	if (strcmp(value, "-1") == 0) {
		opt->max_task_idle_ms = -1;
		return STOAT_PARSED;
	}
	return parse_duration_ms(value, &opt->max_task_idle_ms) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

/* The task idle time, -1 as itself. */
static bool show_max_task_idle(const stoat_kafka_options *opt, char *buf, size_t size)
{
	if (opt->max_task_idle_ms < 0) {
		snprintf(buf, size, "-1");
		return true;
	}
	return show_duration(opt->max_task_idle_ms, buf, size);
}

/* memory: the preset. */
static stoat_parse_result parse_memory(stoat_kafka_options *opt, const char *prog, const char *where,
				       const char *value)
{
	(void)prog;
	(void)where;
	if (strcmp(value, "low") == 0)
		opt->memory = STOAT_MEMORY_LOW;
	else if (strcmp(value, "default") == 0)
		opt->memory = STOAT_MEMORY_DEFAULT;
	else if (strcmp(value, "high") == 0)
		opt->memory = STOAT_MEMORY_HIGH;
	else
		return STOAT_BAD_VALUE;
	return STOAT_PARSED;
}

/* The memory preset by name. */
static bool show_memory(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%s",
		 opt->memory == STOAT_MEMORY_LOW ? "low" : opt->memory == STOAT_MEMORY_HIGH ? "high" : "default");
	return true;
}

/* state_dir: a directory (state_dir.c checks it when it is used). */
static stoat_parse_result parse_state_dir(stoat_kafka_options *opt, const char *prog, const char *where,
					  const char *value)
{
	(void)prog;
	(void)where;
	replace_string(&opt->state_dir, value);
	return STOAT_PARSED;
}

/* The state directory, unset for /tmp/stoat. */
static bool show_state_dir(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_string(opt->state_dir, buf, size);
}

/* state_memory: a preset's name or a size of at least 3M. */
static stoat_parse_result parse_state_memory(stoat_kafka_options *opt, const char *prog, const char *where,
					     const char *value)
{
	(void)prog;
	(void)where;
	size_t n = stoat_rocks_memory_budget(value);
	if (n < ((size_t)3 << 20))
		return STOAT_BAD_VALUE;
	opt->memory_budget = n;
	return STOAT_PARSED;
}

/* RocksDB's budget, unset when the preset's. */
static bool show_state_memory(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return opt->memory_budget ? show_size(opt->memory_budget, buf, size) : false;
}

/* cache_max_bytes: a size, 0 for no cache. */
static stoat_parse_result parse_cache_max_bytes(stoat_kafka_options *opt, const char *prog, const char *where,
						const char *value)
{
	(void)prog;
	(void)where;
	return stoat_parse_byte_size(value, &opt->cache_max_bytes) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

/* The record cache's size. */
static bool show_cache_max_bytes(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_size(opt->cache_max_bytes, buf, size);
}

/* on_state_mismatch: refuse, rebuild-changelog or reset (state.h). */
static stoat_parse_result parse_on_state_mismatch(stoat_kafka_options *opt, const char *prog, const char *where,
						  const char *value)
{
	(void)prog;
	(void)where;
	return stoat_state_mismatch_parse(value, &opt->on_state_mismatch) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

/* What a mismatch does, by name. */
static bool show_on_state_mismatch(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%s",
		 opt->on_state_mismatch == STOAT_MISMATCH_RESET		   ? "reset"
		 : opt->on_state_mismatch == STOAT_MISMATCH_REBUILD_CHANGELOG ? "rebuild-changelog"
									       : "refuse");
	return true;
}

/* repartition_purge_interval: a duration, 0 for never. */
static stoat_parse_result parse_purge_interval(stoat_kafka_options *opt, const char *prog, const char *where,
					       const char *value)
{
	(void)prog;
	(void)where;
	return parse_duration_ms(value, &opt->purge_interval_ms) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

/* The purge interval. */
static bool show_purge_interval(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_duration(opt->purge_interval_ms, buf, size);
}

/* shutdown_timeout: a positive duration. */
static stoat_parse_result parse_shutdown_timeout(stoat_kafka_options *opt, const char *prog, const char *where,
						 const char *value)
{
	(void)prog;
	(void)where;
	int64_t ms;
	if (!parse_duration_ms(value, &ms) || ms == 0)
		return STOAT_BAD_VALUE;
	opt->shutdown_timeout_ms = ms;
	return STOAT_PARSED;
}

/* The shutdown timeout. */
static bool show_shutdown_timeout(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_duration(opt->shutdown_timeout_ms, buf, size);
}

/* The operations endpoint: off, PORT, ADDRESS:PORT or [IPV6]:PORT (http.h). */
static stoat_parse_result parse_http(stoat_kafka_options *opt, const char *prog, const char *where, const char *value)
{
	(void)prog;
	(void)where;
	return stoat_http_parse_listen(value, opt->http_address, sizeof opt->http_address, &opt->http_port)
		       ? STOAT_PARSED
		       : STOAT_BAD_VALUE;
}

/* The endpoint as the setting reads it back. */
static bool show_http(const stoat_kafka_options *opt, char *buf, size_t size)
{
	if (opt->http_port < 0)
		snprintf(buf, size, "off");
	else if (strchr(opt->http_address, ':'))
		snprintf(buf, size, "[%s]:%d", opt->http_address, opt->http_port);
	else
		snprintf(buf, size, "%s:%d", opt->http_address, opt->http_port);
	return true;
}

/* The readiness lag limit: a number of records, or none. */
static stoat_parse_result parse_http_ready_max_lag(stoat_kafka_options *opt, const char *prog, const char *where,
						   const char *value)
{
	(void)prog;
	(void)where;
	if (strcmp(value, "none") == 0) {
		opt->http_ready_max_lag = -1;
		return STOAT_PARSED;
	}
	char *end;
	errno = 0;
	long long v = strtoll(value, &end, 10);
	if (errno || end == value || *end || v < 0 || value[0] == '+')
		return STOAT_BAD_VALUE;
	opt->http_ready_max_lag = v;
	return STOAT_PARSED;
}

/* The lag limit, or unset (none). */
static bool show_http_ready_max_lag(const stoat_kafka_options *opt, char *buf, size_t size)
{
	if (opt->http_ready_max_lag < 0)
		return false;
	snprintf(buf, size, "%" PRId64, opt->http_ready_max_lag);
	return true;
}

/* The log's level (log.h). */
static stoat_parse_result parse_log_level(stoat_kafka_options *opt, const char *prog, const char *where,
					  const char *value)
{
	(void)prog;
	(void)where;
	return stoat_log_parse_level(value, &opt->log_level) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

static bool show_log_level(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%s", stoat_log_level_name(opt->log_level));
	return true;
}

/* The log's format: text or json. */
static stoat_parse_result parse_log_format(stoat_kafka_options *opt, const char *prog, const char *where,
					   const char *value)
{
	(void)prog;
	(void)where;
	return stoat_log_parse_format(value, &opt->log_format) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

static bool show_log_format(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%s", opt->log_format == STOAT_LOG_JSON ? "json" : "text");
	return true;
}

/* How often the log's report line comes (0: never). */
static stoat_parse_result parse_log_report_interval(stoat_kafka_options *opt, const char *prog, const char *where,
						    const char *value)
{
	(void)prog;
	(void)where;
	return parse_duration_ms(value, &opt->log_report_interval_ms) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

static bool show_log_report_interval(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_duration(opt->log_report_interval_ms, buf, size);
}

/* ---- format avro's Schema Registry ---------------------------------- */

/* The registry's base URLs, comma-separated (a YAML list is joined so). */
static stoat_parse_result parse_registry_url(stoat_kafka_options *opt, const char *prog, const char *where,
					     const char *value)
{
	(void)prog;
	(void)where;
	replace_string(&opt->avro.registry.urls, value);
	return STOAT_PARSED;
}

static bool show_registry_url(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_string(opt->avro.registry.urls, buf, size);
}

/* HTTP basic authentication: the user, and (a secret) the password. */
static stoat_parse_result parse_registry_user(stoat_kafka_options *opt, const char *prog, const char *where,
					      const char *value)
{
	(void)prog;
	(void)where;
	replace_string(&opt->registry_user, value);
	return STOAT_PARSED;
}

static bool show_registry_user(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_string(opt->registry_user, buf, size);
}

static stoat_parse_result parse_registry_password(stoat_kafka_options *opt, const char *prog, const char *where,
						  const char *value)
{
	(void)prog;
	(void)where;
	replace_string(&opt->registry_password, value);
	return STOAT_PARSED;
}

/* A secret: shown as *** when set, never as itself. */
static bool show_registry_password(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_string(opt->registry_password ? "***" : NULL, buf, size);
}

/* An OAuth bearer token (a secret). */
static stoat_parse_result parse_registry_token(stoat_kafka_options *opt, const char *prog, const char *where,
					       const char *value)
{
	(void)prog;
	(void)where;
	replace_string(&opt->avro.registry.bearer_token, value);
	return STOAT_PARSED;
}

static bool show_registry_token(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_string(opt->avro.registry.bearer_token ? "***" : NULL, buf, size);
}

/* The CA bundle the registry's TLS certificate is checked against. */
static stoat_parse_result parse_registry_ca_file(stoat_kafka_options *opt, const char *prog, const char *where,
						 const char *value)
{
	(void)prog;
	(void)where;
	replace_string(&opt->avro.registry.ca_file, value);
	return STOAT_PARSED;
}

static bool show_registry_ca_file(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return show_string(opt->avro.registry.ca_file, buf, size);
}

/* Whether sinks register their schemas (true) or only look them up. */
static stoat_parse_result parse_registry_auto_register(stoat_kafka_options *opt, const char *prog,
						       const char *where, const char *value)
{
	(void)prog;
	(void)where;
	bool on;
	if (!parse_bool(value, &on))
		return STOAT_BAD_VALUE;
	opt->avro.registry.no_auto_register = !on;
	return STOAT_PARSED;
}

static bool show_registry_auto_register(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%s", opt->avro.registry.no_auto_register ? "false" : "true");
	return true;
}

/* topic, record or topic_record (avro_registry.h). */
static stoat_parse_result parse_registry_subject_strategy(stoat_kafka_options *opt, const char *prog,
							  const char *where, const char *value)
{
	(void)prog;
	(void)where;
	return stoat_subject_strategy_parse(value, &opt->avro.strategy) ? STOAT_PARSED : STOAT_BAD_VALUE;
}

static bool show_registry_subject_strategy(const stoat_kafka_options *opt, char *buf, size_t size)
{
	snprintf(buf, size, "%s", stoat_subject_strategy_name(opt->avro.strategy));
	return true;
}

/* Each request's timeout (0: the client's 10 s). */
static stoat_parse_result parse_registry_timeout(stoat_kafka_options *opt, const char *prog, const char *where,
						 const char *value)
{
	(void)prog;
	(void)where;
	return parse_duration_ms(value, &opt->avro.registry.timeout_ms) && opt->avro.registry.timeout_ms > 0
		       ? STOAT_PARSED
		       : STOAT_BAD_VALUE;
}

static bool show_registry_timeout(const stoat_kafka_options *opt, char *buf, size_t size)
{
	return opt->avro.registry.timeout_ms ? show_duration(opt->avro.registry.timeout_ms, buf, size) : false;
}

/*
 * Every one of stoat's settings, in the order messages list them and
 * `config print` prints them (config_impl.h says how to add one).
 */
const stoat_setting stoat_settings[] = {
	{ "bootstrap_servers", NULL, "STOAT_BOOTSTRAP_SERVERS", "bootstrap-servers", 'b', false, true, NULL, NULL,
	  parse_bootstrap_servers, show_bootstrap_servers, "run needs it" },
	{ "guarantee", NULL, "STOAT_GUARANTEE", "guarantee", 0, false, false, NULL,
	  "guarantee must be at_least_once or exactly_once", parse_guarantee, show_guarantee, NULL },
	{ "commit_interval", "commit_interval_ms", "STOAT_COMMIT_INTERVAL", "commit-interval", 0, false, false, NULL,
	  "commit interval must be a positive duration (100ms, 5s)", parse_commit_interval, show_commit_interval,
	  NULL },
	{ "instance_id", NULL, "STOAT_INSTANCE_ID", "instance-id", 0, false, false, NULL, NULL, parse_instance_id,
	  show_instance_id, "a random one per process" },
	{ "static_membership", NULL, "STOAT_STATIC_MEMBERSHIP", "static-membership", 0, true, false, NULL,
	  "static_membership must be true or false", parse_static_membership, show_static_membership, NULL },
	{ "on_error", NULL, "STOAT_ON_ERROR", "on-error", 0, false, false, "dlq",
	  "on_error must be fail, skip or dlq:TOPIC", parse_on_error, show_on_error,
	  "each source keeps the program's policy" },
	{ "batch_size", NULL, "STOAT_BATCH_SIZE", "batch", 0, false, false, NULL, "batch_size must be 1 to 1000000",
	  parse_batch_size, show_batch_size, NULL },
	{ "idle_exit", "idle_exit_ms", "STOAT_IDLE_EXIT", "idle-exit", 0, false, false, NULL,
	  "idle_exit must be a duration", parse_idle_exit, show_idle_exit, NULL },
	{ "max_task_idle", NULL, "STOAT_MAX_TASK_IDLE", "max-task-idle", 0, false, false, NULL,
	  "max_task_idle must be a duration (0, 500ms, 2s) or -1", parse_max_task_idle, show_max_task_idle, NULL },
	{ "memory", NULL, "STOAT_MEMORY", "memory", 0, false, false, NULL, "memory must be low, default or high",
	  parse_memory, show_memory, NULL },
	{ "state_dir", NULL, "STOAT_STATE_DIR", "state-dir", 0, false, false, NULL, NULL, parse_state_dir,
	  show_state_dir, "/tmp/stoat, not for production" },
	{ "state_memory", NULL, "STOAT_STATE_MEMORY", "state-memory", 0, false, false, NULL,
	  "state_memory must be low, default, high or a size of at least 3M (512M, 2G)", parse_state_memory,
	  show_state_memory, "the memory preset's: 64M, 256M or 1G" },
	{ "cache_max_bytes", NULL, "STOAT_CACHE_MAX_BYTES", "cache-max-bytes", 0, false, false, NULL,
	  "cache_max_bytes must be a size (0, 65536, 10M)", parse_cache_max_bytes, show_cache_max_bytes, NULL },
	{ "on_state_mismatch", NULL, "STOAT_ON_STATE_MISMATCH", "on-state-mismatch", 0, false, false, NULL,
	  "on_state_mismatch must be refuse, rebuild-changelog or reset", parse_on_state_mismatch,
	  show_on_state_mismatch, NULL },
	{ "repartition_purge_interval", NULL, "STOAT_REPARTITION_PURGE_INTERVAL", "repartition-purge-interval", 0,
	  false, false, NULL, "repartition_purge_interval must be a duration (30s; 0: never)", parse_purge_interval,
	  show_purge_interval, NULL },
	{ "shutdown_timeout", NULL, "STOAT_SHUTDOWN_TIMEOUT", "shutdown-timeout", 0, false, false, NULL,
	  "shutdown_timeout must be a positive duration (20s)", parse_shutdown_timeout, show_shutdown_timeout, NULL },
	{ "http", NULL, "STOAT_HTTP", "http", 0, false, false, NULL,
	  "http must be off, PORT (on 127.0.0.1), ADDRESS:PORT or [IPV6]:PORT, with PORT from 0 (any free one) to "
	  "65535",
	  parse_http, show_http, NULL },
	{ "http_ready_max_lag", NULL, "STOAT_HTTP_READY_MAX_LAG", "http-ready-max-lag", 0, false, false, NULL,
	  "http_ready_max_lag must be a number of records (0 or more) or none", parse_http_ready_max_lag,
	  show_http_ready_max_lag, "none: ready whatever the lag" },
	{ "log_level", NULL, "STOAT_LOG_LEVEL", "log-level", 0, false, false, NULL,
	  "log_level must be debug, info, warning or error", parse_log_level, show_log_level, NULL },
	{ "log_format", NULL, "STOAT_LOG_FORMAT", "log-format", 0, false, false, NULL, "log_format must be text or json",
	  parse_log_format, show_log_format, NULL },
	{ "log_report_interval", NULL, "STOAT_LOG_REPORT_INTERVAL", "log-report-interval", 0, false, false, NULL,
	  "log_report_interval must be a duration (60s; 0: never)", parse_log_report_interval, show_log_report_interval,
	  NULL },
	{ "schema_registry_url", NULL, "STOAT_SCHEMA_REGISTRY_URL", "schema-registry-url", 0, false, true, NULL, NULL,
	  parse_registry_url, show_registry_url, "none: an app using format avro refuses to start" },
	{ "schema_registry_user", NULL, "STOAT_SCHEMA_REGISTRY_USER", "schema-registry-user", 0, false, false, NULL,
	  NULL, parse_registry_user, show_registry_user, "no basic authentication" },
	{ "schema_registry_password", NULL, "STOAT_SCHEMA_REGISTRY_PASSWORD", "schema-registry-password", 0, false,
	  false, NULL, NULL, parse_registry_password, show_registry_password, NULL },
	{ "schema_registry_token", NULL, "STOAT_SCHEMA_REGISTRY_TOKEN", "schema-registry-token", 0, false, false, NULL,
	  NULL, parse_registry_token, show_registry_token, "no bearer token" },
	{ "schema_registry_ca_file", NULL, "STOAT_SCHEMA_REGISTRY_CA_FILE", "schema-registry-ca-file", 0, false, false,
	  NULL, NULL, parse_registry_ca_file, show_registry_ca_file, "the system's CA certificates" },
	{ "schema_registry_auto_register", NULL, "STOAT_SCHEMA_REGISTRY_AUTO_REGISTER", "schema-registry-auto-register", 0,
	  true, false, NULL, "schema_registry_auto_register must be true or false", parse_registry_auto_register,
	  show_registry_auto_register, NULL },
	{ "schema_registry_subject_strategy", NULL, "STOAT_SCHEMA_REGISTRY_SUBJECT_STRATEGY", "schema-registry-subject-strategy", 0,
	  false, false, NULL,
	  "schema_registry_subject_strategy must be topic, record or topic_record", parse_registry_subject_strategy,
	  show_registry_subject_strategy, NULL },
	{ "schema_registry_timeout", NULL, "STOAT_SCHEMA_REGISTRY_TIMEOUT", "schema-registry-timeout", 0, false, false,
	  NULL, "schema_registry_timeout must be a positive duration (10s)", parse_registry_timeout,
	  show_registry_timeout, "10s" },
};
const size_t stoat_setting_count = sizeof stoat_settings / sizeof stoat_settings[0];
_Static_assert(sizeof stoat_settings / sizeof stoat_settings[0] <= STOAT_KAFKA_SETTINGS_MAX,
	       "stoat_kafka_options.origin needs room for every setting (STOAT_KAFKA_SETTINGS_MAX)");

/* The index of the setting a YAML key (name or alias) names; -1 for none. */
int stoat_setting_find(const char *key)
{
	for (size_t i = 0; i < stoat_setting_count; i++)
		if (strcmp(stoat_settings[i].name, key) == 0 ||
		    (stoat_settings[i].alias && strcmp(stoat_settings[i].alias, key) == 0))
			return (int)i;
	return -1;
}

