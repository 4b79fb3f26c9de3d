/*
 * config.c - settings of the Kafka commands (`run`, `load`, `dump`,
 * `config check`, `config print`).
 *
 * Four layers, each overriding the one before: the application's own
 * defaults (from its app header), a YAML file (config_yaml.c), STOAT_*
 * environment variables, and command-line flags (getopt_long).  Every
 * one of stoat's settings is one row of stoat_settings below: its YAML
 * key (and alias), environment variable, flag, parser and printer, so
 * that the four layers, "did you mean", the duplicate check of the file
 * and `config print` cannot disagree (config_impl.h says how to add one;
 * docs/kafka-driver.md has the table users read):
 *
 *     bootstrap_servers: [broker-1:9092, broker-2:9092]  # or a,b
 *     guarantee: exactly_once
 *     commit_interval: 100ms
 *     instance_id: orders-1
 *     static_membership: true       # or yes/no, on/off, any case
 *     on_error: dlq orders-dlq      # or dlq:TOPIC, {dlq: TOPIC}
 *     state_dir: /var/lib/stoat     # stores under <state_dir>/<app_id>/<instance>
 *     memory: default               # preset: low (less prefetching, RSS), default, high
 *     kafka: {socket.timeout.ms: 10000}   # both clients
 *     consumer:
 *       fetch.wait.max.ms: 50
 *     producer:
 *       linger.ms: 10               # overrides kafka:'s for the producer
 *
 * Unknown STOAT_* variables are ignored (scripts and tests have their
 * own), except near-misses of a setting's (edit distance 2 or less):
 * those are errors, like unknown YAML keys and flags.  Every problem is
 * printed before configure returns.  The librdkafka properties of every
 * layer are checked against librdkafka once all are read, each reported
 * at its origin.  No secret is ever printed (stoat_kafka_prop_refused):
 * the value of a refused property only when librdkafka knows it and its
 * name says nothing secret.
 */
#include "config_impl.h"
#include "rocks.h"
#include "state.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <librdkafka/rdkafka.h>

/* The property named name ("linger.ms", "consumer.x"), or NULL. */
stoat_kafka_prop *stoat_config_find_prop(const stoat_kafka_options *opt, const char *name)
{
	for (size_t i = 0; i < opt->prop_count; i++)
		if (strcmp(opt->props[i].name, name) == 0)
			return &opt->props[i];
	return NULL;
}

/* Adds or replaces a librdkafka property; where is its origin (see kafka.h). */
void stoat_config_set_prop(stoat_kafka_options *opt, const char *name, const char *value, const char *where)
{
	stoat_kafka_prop *old = stoat_config_find_prop(opt, name);
	if (old) {
		free(old->value);
		free(old->where);
		old->value = stoat_xstrdup(value);
		old->where = stoat_xstrdup(where);
		return;
	}
	stoat_kafka_prop *p = stoat_xrealloc(opt->props, opt->prop_count + 1, sizeof *p);
	opt->props = p;
	p[opt->prop_count].name = stoat_xstrdup(name);
	p[opt->prop_count].value = stoat_xstrdup(value);
	p[opt->prop_count].where = stoat_xstrdup(where);
	opt->prop_count++;
}

/* Applies one setting's value from one origin (see config_impl.h). */
bool stoat_setting_apply(stoat_kafka_options *opt, const char *prog, size_t index, const char *origin,
			 const char *where, const char *value)
{
	assert(index < stoat_setting_count);
	const stoat_setting *s = &stoat_settings[index];
	if (*value == '\0') {
		fprintf(stderr, "%s: error: %s: %s needs a value\n", prog, where, s->name);
		return false;
	}
	switch (s->parse(opt, prog, where, value)) {
	case STOAT_PARSED:
		free(opt->origin[index]);
		opt->origin[index] = stoat_xstrdup(origin);
		return true;
	case STOAT_BAD_VALUE:
		assert(s->must); /* a setting that can refuse a value says what it takes */
		fprintf(stderr, "%s: error: %s: %s, not '%s'\n", prog, where, s->must, value);
		return false;
	case STOAT_REPORTED:
		break;
	}
	return false;
}

/*
 * The optimal string alignment distance of a and b (Levenshtein's, with
 * a swap of two neighbours costing 1), capped: anything above 3 is 3.
 */
static size_t edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 64 || m > 64)
		return 3;
	if ((n > m ? n - m : m - n) > 2)
		return 3;
	size_t d[65][65];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m] > 3 ? 3 : d[n][m];
}

/* Whether the shorter of a and b, 3 letters or more, begins the other. */
static bool prefix_related(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	size_t shorter = n < m ? n : m;
	return shorter >= 3 && strncmp(a, b, shorter) == 0;
}

/* The candidate nearest to word, for "did you mean" (see config_impl.h). */
const char *stoat_config_suggest(const char *word, const char *const *candidates, bool allow_prefix)
{
	const char *best = NULL;
	size_t best_distance = 3;
	for (const char *const *c = candidates; *c; c++) {
		size_t d = edit_distance(word, *c);
		if (d < best_distance) {
			best = *c;
			best_distance = d;
		}
	}
	if (best || !allow_prefix)
		return best;
	for (const char *const *c = candidates; *c; c++)
		if (prefix_related(word, *c))
			return *c;
	return NULL;
}

/* The message part listing the settings, for an unknown one. */
void stoat_config_print_setting_list(FILE *f)
{
	fputs("settings: ", f);
	for (size_t i = 0; i < stoat_setting_count; i++)
		fprintf(f, "%s%s", i ? ", " : "", stoat_settings[i].name);
	fputs("; librdkafka properties go under kafka:, consumer: or producer:", f);
}

/* Whether name is the environment variable of a setting, or STOAT_CONFIG. */
static bool known_variable(const char *name, size_t len)
{
	if (len == strlen("STOAT_CONFIG") && strncmp(name, "STOAT_CONFIG", len) == 0)
		return true;
	for (size_t i = 0; i < stoat_setting_count; i++)
		if (strlen(stoat_settings[i].env) == len && strncmp(stoat_settings[i].env, name, len) == 0)
			return true;
	return false;
}

/*
 * One STOAT_* variable that is no setting's: an error when it is within
 * edit distance 2 of one (STOAT_GUARANTE), ignored otherwise (the test
 * scripts' STOAT_BROKER_*, stoatc's STOAT_CFLAGS).  Returns false after
 * printing the problem.
 */
static bool check_unknown_variable(const char *prog, const char *name)
{
	const char *candidates[STOAT_KAFKA_SETTINGS_MAX + 2];
	size_t n = 0;
	for (size_t i = 0; i < stoat_setting_count; i++)
		candidates[n++] = stoat_settings[i].env;
	candidates[n++] = "STOAT_CONFIG";
	candidates[n] = NULL;
	const char *near = stoat_config_suggest(name, candidates, false);
	if (!near)
		return true;
	fprintf(stderr, "%s: error: unknown environment variable '%s' (did you mean '%s'?)\n", prog, name, near);
	return false;
}

/*
 * The environment layer: each setting's STOAT_* variable (an empty one
 * is unset), and STOAT_KAFKA_<PROPERTY> for librdkafka properties (dots
 * as underscores: STOAT_KAFKA_LINGER_MS).  Returns false after printing
 * every problem.
 */
static bool read_environment(stoat_kafka_options *opt, const char *prog)
{
	bool ok = true;
	for (size_t i = 0; i < stoat_setting_count; i++) {
		const char *v = getenv(stoat_settings[i].env);
		if (v && *v && !stoat_setting_apply(opt, prog, i, stoat_settings[i].env, stoat_settings[i].env, v))
			ok = false;
	}
	extern char **environ;
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || strncmp(*e, "STOAT_", 6) != 0)
			continue;
		char env_name[256 + 12];
		size_t len = (size_t)(eq - *e);
		if (len >= sizeof env_name)
			continue;
		snprintf(env_name, sizeof env_name, "%.*s", (int)len, *e);
		if (strncmp(*e, "STOAT_KAFKA_", 12) != 0) {
			if (!known_variable(*e, len) && !check_unknown_variable(prog, env_name))
				ok = false;
			continue;
		}
		if (len == 12)
			continue;
		char name[256 + 12];
		for (size_t i = 12; i < len; i++) {
			char c = (*e)[i];
			name[i - 12] = c == '_' ? '.' : (char)tolower((unsigned char)c);
		}
		name[len - 12] = '\0';
		stoat_config_set_prop(opt, name, eq + 1, env_name);
	}
	return ok;
}

/*
 * A flag of the command line, kept until the file and the environment
 * are read (flags are the last layer): a setting's, or one of these.
 */
enum {
	FLAG_SETTING = 1000, /* + the setting's index */
	FLAG_CONFIG = 900,
	FLAG_STATS,
	FLAG_IDLE_MS,
	FLAG_READ_UNCOMMITTED,
	FLAG_PROPERTY = 'X',
};

typedef struct pending_flag {
	int code;          /* FLAG_*, or FLAG_SETTING + index */
	const char *value; /* its argument ("true" for a switch alone) */
	char as[64];       /* how messages name it: "-b", "--guarantee" */
} pending_flag;

/* "Try 'prog command --help'." after a usage error; returns STOAT_EXIT_USAGE. */
static int try_help(const char *prog, const char *command)
{
	fprintf(stderr, "Try '%s %s --help'.\n", prog, command);
	return STOAT_EXIT_USAGE;
}

/*
 * Reports an option that getopt_long did not take, or took as a prefix
 * of a longer one's name (flags are taken by their whole names only, so
 * that a new flag can never make an old abbreviation ambiguous): an
 * unknown option, with the nearest flag when one is close, or a switch
 * given a value.  The option is shown up to its '=' only: what follows
 * may be a secret (--sasl-password=...).
 */
static int bad_option(const char *prog, const char *command, const struct option *longopts, const char *arg,
		      int optopt_value)
{
	size_t len = strcspn(arg, "=");
	if (optopt_value != 0 && strncmp(arg, "--", 2) != 0) {
		fprintf(stderr, "%s: error: unknown option '-%c'\n", prog, optopt_value);
		return try_help(prog, command);
	}
	if (optopt_value != 0) {
		fprintf(stderr, "%s: error: option '%.*s' takes no value\n", prog, (int)len, arg);
		return try_help(prog, command);
	}
	const char *candidates[STOAT_KAFKA_SETTINGS_MAX + 8];
	size_t n = 0;
	for (const struct option *o = longopts; o->name; o++)
		candidates[n++] = o->name;
	candidates[n] = NULL;
	char word[64];
	size_t word_len = len - 2 < sizeof word ? len - 2 : sizeof word - 1;
	snprintf(word, sizeof word, "%.*s", (int)word_len, arg + 2);
	const char *near = stoat_config_suggest(word, candidates, true);
	fprintf(stderr, "%s: error: unknown option '%.*s'", prog, (int)len, arg);
	if (near)
		fprintf(stderr, " (did you mean '--%s'?)", near);
	fputc('\n', stderr);
	return try_help(prog, command);
}

/*
 * Reads the command line with getopt_long, in order (non-options, and
 * everything after "--", into rest); the flags into pending.  Every value
 * flag takes "--name value" and "--name=value", a switch "--name" and
 * "--name=true|false", -X "-X P=V" and "-XP=V".  Returns 0 or the usage
 * status after the message.
 */
static int read_flags(const char *prog, const char *command, int argc, char **argv, pending_flag *pending,
		      size_t *pending_count, char **rest, int *rest_count)
{
	struct option longopts[STOAT_KAFKA_SETTINGS_MAX + 8];
	size_t n = 0;
	for (size_t i = 0; i < stoat_setting_count; i++)
		longopts[n++] = (struct option){ stoat_settings[i].flag,
						 stoat_settings[i].is_switch ? optional_argument : required_argument,
						 NULL, FLAG_SETTING + (int)i };
	longopts[n++] = (struct option){ "config", required_argument, NULL, FLAG_CONFIG };
	longopts[n++] = (struct option){ "stats", no_argument, NULL, FLAG_STATS };
	if (strcmp(command, "dump") == 0) {
		longopts[n++] = (struct option){ "idle-ms", required_argument, NULL, FLAG_IDLE_MS };
		longopts[n++] = (struct option){ "read-uncommitted", no_argument, NULL, FLAG_READ_UNCOMMITTED };
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	char shortopts[8 + 2 * STOAT_KAFKA_SETTINGS_MAX] = "-:X:"; /* in order; ':' reports a missing value */
	for (size_t i = 0; i < stoat_setting_count; i++)
		if (stoat_settings[i].short_flag) {
			size_t k = strlen(shortopts);
			shortopts[k] = stoat_settings[i].short_flag;
			shortopts[k + 1] = ':';
			shortopts[k + 2] = '\0';
		}

	/* getopt_long counts from argv[1] (argv[0] is the program): a copy with one in front. */
	char **args = stoat_xcalloc((size_t)argc + 2, sizeof *args);
	args[0] = (char *)prog;
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	optind = 0; /* glibc: start afresh (configure may run more than once in a process) */
	opterr = 0;
	int status = 0;
	int c;
	for (;;) {
		int at = optind > 0 ? optind : 1; /* in order: the option is in args[at] */
		int longindex = -1;
		if (status != 0 || (c = getopt_long(argc + 1, args, shortopts, longopts, &longindex)) == -1)
			break;
		const char *used = args[at];
		if (c == 1) {
			rest[(*rest_count)++] = optarg;
			continue;
		}
		if (c == '?') {
			status = bad_option(prog, command, longopts, used, optopt);
			continue;
		}
		if (longindex >= 0 && (strncmp(used + 2, longopts[longindex].name, strcspn(used + 2, "=")) != 0 ||
				       strcspn(used + 2, "=") != strlen(longopts[longindex].name))) {
			status = bad_option(prog, command, longopts, used, 0); /* an abbreviation */
			continue;
		}
		if (c == ':') {
			if (optopt == FLAG_PROPERTY)
				fprintf(stderr, "%s: error: -X needs PROPERTY=VALUE\n", prog);
			else
				fprintf(stderr, "%s: error: %s needs a value\n", prog, used);
			status = try_help(prog, command);
			continue;
		}
		for (size_t i = 0; i < stoat_setting_count; i++)
			if (c == stoat_settings[i].short_flag)
				c = FLAG_SETTING + (int)i; /* -b is --bootstrap-servers */
		pending_flag *p = &pending[(*pending_count)++];
		p->code = c;
		p->value = optarg ? optarg : "true";
		if (c >= FLAG_SETTING) {
			const stoat_setting *s = &stoat_settings[c - FLAG_SETTING];
			if (strncmp(used, "--", 2) == 0)
				snprintf(p->as, sizeof p->as, "--%s", s->flag);
			else
				snprintf(p->as, sizeof p->as, "-%c", s->short_flag);
		} else {
			snprintf(p->as, sizeof p->as, "%s", c == FLAG_PROPERTY ? "-X" : used);
		}
		if (c == FLAG_PROPERTY && (!strchr(optarg, '=') || optarg[0] == '=')) {
			fprintf(stderr, "%s: error: -X needs PROPERTY=VALUE\n", prog);
			status = try_help(prog, command);
		}
	}
	for (int i = optind; status == 0 && i < argc + 1; i++)
		rest[(*rest_count)++] = args[i];
	free(args);
	return status;
}

/*
 * Applies the flags read_flags kept, in their order (a later one wins);
 * false after printing every problem.
 */
static bool apply_flags(stoat_kafka_options *opt, const char *prog, const char *command, const pending_flag *pending,
			size_t count)
{
	bool ok = true;
	for (size_t i = 0; i < count; i++) {
		const pending_flag *p = &pending[i];
		if (p->code >= FLAG_SETTING) {
			if (!stoat_setting_apply(opt, prog, (size_t)(p->code - FLAG_SETTING), p->as, p->as, p->value))
				ok = false;
		} else if (p->code == FLAG_PROPERTY) {
			const char *eq = strchr(p->value, '=');
			char *name = stoat_xstrndup(p->value, (size_t)(eq - p->value));
			stoat_config_set_prop(opt, name, eq + 1, "-X");
			free(name);
		} else if (p->code == FLAG_STATS) {
			opt->stats = true;
		} else if (p->code == FLAG_READ_UNCOMMITTED) {
			opt->read_uncommitted = true;
		} else if (p->code == FLAG_IDLE_MS) {
			char *end;
			errno = 0;
			long v = strtol(p->value, &end, 10);
			if (errno || end == p->value || *end || v < 1 || v > 3600000 || !isdigit((unsigned char)*p->value)) {
				fprintf(stderr, "%s: error: --idle-ms needs milliseconds, not '%s'\n", prog, p->value);
				try_help(prog, command);
				ok = false;
			} else {
				opt->dump_idle_ms = v;
			}
		}
	}
	return ok;
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
 * earlier one's value before this runs.  Every refused one is reported.
 */
static bool check_props(const stoat_kafka_options *opt, const char *prog)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	bool ok = true;
	for (size_t i = 0; i < opt->prop_count; i++) {
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
 * (later sources win; see kafka.h).  Every problem is printed; getopt's
 * (an unknown option, a missing value) end the reading at once.
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
	opt->http_port = -1;             /* the operations endpoint is off unless asked for */
	opt->http_ready_max_lag = -1;
	opt->log_level = STOAT_LOG_INFO;
	opt->log_format = STOAT_LOG_TEXT;
	opt->log_report_interval_ms = 60000;
	opt->dump_idle_ms = 2000;
	opt->origin[stoat_setting_find("guarantee")] = stoat_xstrdup("app");
	if (app->commit_interval_ms > 0)
		opt->origin[stoat_setting_find("commit_interval")] = stoat_xstrdup("app");
	*rest = stoat_xcalloc((size_t)argc + 1, sizeof **rest);
	*rest_count = 0;

	pending_flag *pending = stoat_xcalloc((size_t)argc + 1, sizeof *pending);
	size_t pending_count = 0;
	int status = read_flags(prog, command, argc, argv, pending, &pending_count, *rest, rest_count);
	if (status != 0) {
		free(pending);
		return status;
	}
	/* The file first (flags override what it says); the last --config wins. */
	const char *config = getenv("STOAT_CONFIG");
	for (size_t i = 0; i < pending_count; i++)
		if (pending[i].code == FLAG_CONFIG)
			config = pending[i].value;
	bool ok = true;
	if (config && *config && !stoat_config_read_yaml(opt, prog, config))
		ok = false;
	if (!read_environment(opt, prog))
		ok = false;
	if (!apply_flags(opt, prog, command, pending, pending_count))
		ok = false;
	free(pending);
	if (!check_props(opt, prog))
		ok = false;
	if (ok && !opt->bootstrap_servers && strcmp(command, "config print") != 0) {
		fprintf(stderr,
			"%s: error: no Kafka cluster given: use --bootstrap-servers HOST:PORT, "
			"STOAT_BOOTSTRAP_SERVERS or bootstrap_servers: in the --config file\n",
			prog);
		ok = false;
	}
	return ok ? 0 : STOAT_EXIT_USAGE;
}

/* Frees what stoat_kafka_configure allocated. */
void stoat_kafka_options_free(stoat_kafka_options *opt, char **rest)
{
	free((char *)opt->bootstrap_servers);
	free((char *)opt->instance_id);
	free((char *)opt->dlq_override);
	free((char *)opt->state_dir);
	free((char *)opt->avro.registry.urls);
	free((char *)opt->avro.registry.bearer_token);
	free((char *)opt->avro.registry.ca_file);
	free((char *)opt->registry_user);
	free((char *)opt->registry_password);
	for (size_t i = 0; i < opt->prop_count; i++) {
		free(opt->props[i].name);
		free(opt->props[i].value);
		free(opt->props[i].where);
	}
	free(opt->props);
	for (size_t i = 0; i < STOAT_KAFKA_SETTINGS_MAX; i++)
		free(opt->origin[i]);
	free(rest);
	memset(opt, 0, sizeof *opt);
}
