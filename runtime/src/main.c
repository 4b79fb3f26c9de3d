/*
 * main.c - stoat_main(), the command line every generated binary has:
 * `run` (the Kafka driver), `replay` (files), `load` and `dump` (tools
 * between replay files and Kafka), `config check` and `config print`
 * (the Kafka commands' settings), `store list` and `store dump` (state
 * read offline, store_dump.h), `describe`, --help and --version.
 * Nothing here calls exit(): stoat_main returns the status, so tests can
 * run it in-process.
 */
#include "kafka.h"
#include "replay.h"
#include "rocks.h"
#include "store_dump.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Prints the top-level usage. */
static void usage(FILE *f, const char *prog, const stoat_app *app)
{
	fprintf(f,
		"usage: %s COMMAND [options]\n"
		"\n"
		"%s: a stream-processing application built with stoat.\n"
		"\n"
		"commands:\n"
		"  run [options]              run against a Kafka cluster (consumer group, commits)\n"
		"  replay [options] INPUT...  run on records read from JSON-lines files\n"
		"  load [options] INPUT...    produce replay-format records to the source topics\n"
		"  dump [options] TOPIC...    print the records of topics as replay-format lines\n"
		"                             (a store's changelog decoded with the store's types)\n"
		"  store list                 print the state stores: types, changelog topics\n"
		"  store dump STORE [options] print a store's entries from the state directory\n"
		"  config check FILE [options]  validate a --config file (with the environment)\n"
		"  config print [--json] [options]  print the effective settings, secrets masked\n"
		"  describe                   print the application's sources, sinks and settings\n"
		"  --help, -h                 print this help\n"
		"  --version                  print the version\n"
		"\n"
		"Run '%s run --help', '%s replay --help', '%s config --help' or '%s store --help'\n"
		"for their options.\n",
		prog, app->app_id, prog, prog, prog, prog);
}

/* Prints the replay command's usage. */
static void replay_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s replay [options] INPUT...\n"
		"\n"
		"Reads records from JSON-lines files (- for standard input), runs them through\n"
		"the application in timestamp order, and writes the output records as JSON lines.\n"
		"\n"
		"options:\n"
		"  -o, --output FILE        write output records to FILE (default: standard output)\n"
		"  --on-error fail|skip|dlq:TOPIC  error policy for every source, overriding the program's\n"
		"  --partitions TOPIC=N     partition count of an output topic (default 1; repeatable)\n"
		"  --batch N                at most N records per batch (default 1024)\n"
		"  --state rocksdb|memory   where tables live: RocksDB in a temporary directory\n"
		"                           removed at exit (default), or hash maps\n"
		"  --state-dir DIR          keep the RocksDB stores in DIR/<app id>/default, where\n"
		"                           'store dump --state-dir DIR' reads them (a new one)\n"
		"  --cache-max-bytes SIZE   record cache of all stores (default 0: every update is\n"
		"                           passed on; replay commits after every batch)\n"
		"  --stats                  print record counts to standard error at the end\n"
		"  --schema-registry-url URL[,URL...]  the Schema Registry of format avro's ids\n"
		"                           (default: $STOAT_SCHEMA_REGISTRY_URL)\n"
		"  --schema-registry-subject-strategy topic|record|topic_record  the subjects\n"
		"                           sinks register their schemas under (default topic)\n"
		"  -h, --help               print this help\n"
		"\n"
		"Exit status: 0 ok, 1 a record failed under the fail policy, 2 bad usage,\n"
		"3 unreadable or malformed input, unwritable output.\n",
		prog);
}

/* Reports a command-line error with a pointer to --help; returns 2. */
static int usage_error(const char *prog, const char *command, const char *fmt, ...) STOAT_PRINTF(3, 4);
static int usage_error(const char *prog, const char *command, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: error: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s %s--help'.\n", prog, command);
	return STOAT_EXIT_USAGE;
}

/* Parses a decimal integer in [1, max] with nothing after it. */
static bool parse_count(const char *s, long max, long *out)
{
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 1 || v > max)
		return false;
	*out = v;
	return true;
}

/*
 * Matches argv[*i] against an option taking a value, in the forms
 * "-o FILE", "-oFILE" (short only), "--output FILE" and "--output=FILE".
 * Returns 1 with *value set, 0 if it is another option, -1 if the value is
 * missing.
 */
static int option_with_value(int argc, char **argv, int *i, const char *short_name,
			     const char *long_name, const char **value)
{
	const char *arg = argv[*i];
	size_t long_len = strlen(long_name);
	if (strncmp(arg, long_name, long_len) == 0 && arg[long_len] == '=') {
		*value = arg + long_len + 1;
		return 1;
	}
	bool exact = strcmp(arg, long_name) == 0 || (short_name && strcmp(arg, short_name) == 0);
	if (!exact) {
		if (short_name && strncmp(arg, short_name, 2) == 0 && arg[2] != '\0') {
			*value = arg + 2;
			return 1;
		}
		return 0;
	}
	if (*i + 1 >= argc)
		return -1;
	*value = argv[++*i];
	return 1;
}

/* Parses the replay command line and runs the replay driver. */
static int replay_command(const stoat_app *app, const char *prog, int argc, char **argv)
{
	stoat_replay_options opt = { 0 };
	opt.batch_max = 1024;
	opt.policy_override = STOAT_POLICY_DEFAULT;
	opt.avro.registry.urls = getenv("STOAT_SCHEMA_REGISTRY_URL");
	opt.inputs = stoat_xcalloc((size_t)argc + 1, sizeof *opt.inputs);
	opt.partitions = stoat_xcalloc((size_t)argc + 1, sizeof *opt.partitions);
	int status = -1;
	bool only_inputs = false;
	for (int i = 0; i < argc && status < 0; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		int m;
		if (only_inputs || arg[0] != '-' || strcmp(arg, "-") == 0) {
			opt.inputs[opt.input_count++] = arg;
		} else if (strcmp(arg, "--") == 0) {
			only_inputs = true;
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			replay_usage(stdout, prog);
			status = STOAT_EXIT_OK;
		} else if (strcmp(arg, "--stats") == 0) {
			opt.stats = true;
		} else if ((m = option_with_value(argc, argv, &i, "-o", "--output", &value)) != 0) {
			if (m < 0)
				status = usage_error(prog, "replay ", "option '%s' needs a file name", arg);
			else
				opt.output_path = value;
		} else if ((m = option_with_value(argc, argv, &i, NULL, "--on-error", &value)) != 0) {
			if (m < 0)
				status = usage_error(prog, "replay ", "option '%s' needs fail or skip", arg);
			else if (strcmp(value, "fail") == 0)
				opt.policy_override = STOAT_POLICY_FAIL;
			else if (strcmp(value, "skip") == 0)
				opt.policy_override = STOAT_POLICY_SKIP;
			else if (strncmp(value, "dlq:", 4) == 0 && value[4]) {
				opt.policy_override = STOAT_POLICY_DLQ;
				opt.dlq_override = value + 4;
			} else
				status = usage_error(prog, "replay ", "--on-error takes fail, skip or dlq:TOPIC, not '%s'",
						     value);
		} else if ((m = option_with_value(argc, argv, &i, NULL, "--partitions", &value)) != 0) {
			const char *eq = m > 0 ? strrchr(value, '=') : NULL;
			long n;
			if (eq == NULL || eq == value || !parse_count(eq + 1, 1000000, &n)) {
				status = usage_error(prog, "replay ",
						     "--partitions takes TOPIC=N with N from 1 to 1000000, not '%s'",
						     m > 0 ? value : "");
			} else {
				/* The topic is the part before the last '='. */
				size_t len = (size_t)(eq - value);
				char *topic = stoat_xstrndup(value, len);
				opt.partitions[opt.partition_count].topic = topic;
				opt.partitions[opt.partition_count++].partitions = (int32_t)n;
			}
		} else if ((m = option_with_value(argc, argv, &i, NULL, "--batch", &value)) != 0) {
			long n;
			if (m < 0 || !parse_count(value, 1000000, &n))
				status = usage_error(prog, "replay ", "--batch takes a number from 1 to 1000000, not '%s'",
						     m > 0 ? value : "");
			else
				opt.batch_max = (size_t)n;
		} else if ((m = option_with_value(argc, argv, &i, NULL, "--state", &value)) != 0) {
			if (m > 0 && strcmp(value, "memory") == 0)
				opt.state_in_memory = true;
			else if (m > 0 && strcmp(value, "rocksdb") == 0)
				opt.state_in_memory = false;
			else
				status = usage_error(prog, "replay ", "--state takes memory or rocksdb, not '%s'",
						     m > 0 ? value : "");
		} else if ((m = option_with_value(argc, argv, &i, NULL, "--state-dir", &value)) != 0) {
			if (m < 0 || !*value)
				status = usage_error(prog, "replay ", "option '--state-dir' needs a directory");
			else
				opt.state_dir = value;
		} else if ((m = option_with_value(argc, argv, &i, NULL, "--schema-registry-url", &value)) != 0) {
			if (m < 0 || !*value)
				status = usage_error(prog, "replay ", "option '--schema-registry-url' needs a URL");
			else
				opt.avro.registry.urls = value;
		} else if ((m = option_with_value(argc, argv, &i, NULL, "--schema-registry-subject-strategy", &value)) !=
			   0) {
			if (m < 0 || !stoat_subject_strategy_parse(value, &opt.avro.strategy))
				status = usage_error(prog, "replay ",
						     "--schema-registry-subject-strategy takes topic, record or "
						     "topic_record, not '%s'",
						     m > 0 ? value : "");
		} else if ((m = option_with_value(argc, argv, &i, NULL, "--cache-max-bytes", &value)) != 0) {
			if (m > 0 && stoat_parse_byte_size(value, &opt.cache_max_bytes))
				;
			else
				status = usage_error(prog, "replay ",
						     "--cache-max-bytes takes a size such as 0, 65536 or 10M, not '%s'",
						     m > 0 ? value : "");
		} else {
			status = usage_error(prog, "replay ", "unknown option '%s'", arg);
		}
	}
	if (status < 0 && opt.input_count == 0)
		status = usage_error(prog, "replay ", "no input files");
	if (status < 0 && opt.state_dir && opt.state_in_memory)
		status = usage_error(prog, "replay ", "--state-dir keeps RocksDB stores: it cannot go with --state memory");
	if (status < 0)
		status = stoat_replay_run(app, &opt);
	for (size_t i = 0; i < opt.partition_count; i++)
		free((char *)opt.partitions[i].topic);
	free(opt.partitions);
	free(opt.inputs);
	return status;
}

/* Prints the Kafka commands' usage. */
static void kafka_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s run  [options]\n"
		"       %s load [options] INPUT...\n"
		"       %s dump [options] [--idle-ms N] [--read-uncommitted] TOPIC...\n"
		"\n"
		"run joins the application's consumer group (its application id), processes\n"
		"records and commits: at_least_once flushes outputs and commits offsets;\n"
		"exactly_once commits outputs, changelogs and offsets in one transaction.\n"
		"Tables are restored from their changelog topics on assignment.  SIGTERM or\n"
		"SIGINT finishes the batch, commits and leaves the group.\n"
		"\n"
		"options (later sources override earlier: app header, --config YAML file,\n"
		"STOAT_* environment variables, these flags; each flag's setting has the\n"
		"YAML key and STOAT_ variable of its name, see docs/kafka-driver.md):\n"
		"  -b, --bootstrap-servers HOST:PORT[,...]   the cluster ($STOAT_BOOTSTRAP_SERVERS)\n"
		"  --config FILE              YAML settings ($STOAT_CONFIG)\n"
		"  --guarantee at_least_once|exactly_once\n"
		"  --commit-interval DURATION e.g. 100ms, 5s\n"
		"  --instance-id ID           names this instance's transactional id (default random)\n"
		"  --static-membership[=true|false]  join as a static member named by --instance-id\n"
		"  --on-error fail|skip|dlq:TOPIC   error policy for every source\n"
		"  --batch N                  records per batch (default 1000; batch_size)\n"
		"  --idle-exit DURATION       run: stop after no input for this long\n"
		"  --max-task-idle DURATION|-1  a join's or merge's task waits this long for an\n"
		"                             input at its end (max.task.idle.ms; default 0)\n"
		"  --memory low|default|high  how much to prefetch and buffer (low: less RSS)\n"
		"  --state-dir DIR            tables in DIR/<app id>/<instance id> (default\n"
		"                             /tmp/stoat: not for production, see docs)\n"
		"  --state-memory SIZE        RocksDB budget for all tables (default: the preset's)\n"
		"  --cache-max-bytes SIZE     record cache of all tables (default 10M; 0: off)\n"
		"  --on-state-mismatch refuse|rebuild-changelog|reset   a checkpoint above its\n"
		"                             changelog's end (the topic was re-created): exit 4\n"
		"                             (default), rebuild the changelog, or reset the table\n"
		"  --repartition-purge-interval DURATION  delete consumed repartition records (30s)\n"
		"  --shutdown-timeout DURATION  run: longest a stop may take before exiting (20s)\n"
		"  --http PORT|ADDRESS:PORT|off  run: the operations endpoint (health, metrics,\n"
		"                             pause/resume; default off; PORT alone: 127.0.0.1)\n"
		"  --http-ready-max-lag N|none  run: /health/ready only within this lag\n"
		"  --log-level debug|info|warning|error  run: the least a line must be (info)\n"
		"  --log-format text|json     run: log lines as text (default) or JSON objects\n"
		"  --log-report-interval DURATION  run: a throughput and lag line (60s; 0: never)\n"
		"  --schema-registry-url URL[,URL...]  format avro's Schema Registry\n"
		"  --schema-registry-user USER, --schema-registry-password PASSWORD  its basic\n"
		"                             authentication (the password: better in the file or env)\n"
		"  --schema-registry-token TOKEN  an OAuth bearer token for it instead\n"
		"  --schema-registry-ca-file FILE  the CA bundle its TLS certificate is checked with\n"
		"  --schema-registry-auto-register[=true|false]  sinks register their schemas\n"
		"                             (default true; false: look them up only)\n"
		"  --schema-registry-subject-strategy topic|record|topic_record  sinks' subjects\n"
		"  --schema-registry-timeout DURATION  per request (10s)\n"
		"  -X PROPERTY=VALUE          librdkafka property for both clients;\n"
		"                             consumer.PROPERTY / producer.PROPERTY for one\n"
		"  --stats                    print commit counts (and window store sizes) at the end\n"
		"  --idle-ms N                dump: stop after N ms without a record (default 2000)\n"
		"  --read-uncommitted         dump: read records of open transactions too\n"
		"\n"
		"A flag's value may follow it, or an '=' (--guarantee=exactly_once), or come\n"
		"right after a one-letter flag (-b, -X); flags are taken by their whole names\n"
		"only; '--' ends the options.\n"
		"\n"
		"Exit status: 0 ok, 1 a record failed under the fail policy, 2 bad usage or\n"
		"configuration, 3 a fatal Kafka error (fenced, unwritable output), 4 the state\n"
		"directory cannot be used (another process holds it, or it cannot be created),\n"
		"or a checkpoint does not match its changelog (see --on-state-mismatch).\n",
		prog, prog, prog);
}

/* Prints the config command's usage. */
static void config_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s config check FILE [options]\n"
		"       %s config print [--json] [options]\n"
		"\n"
		"check reads FILE as `run --config FILE` would, with the STOAT_* environment\n"
		"and any of run's options after it, checks every setting and librdkafka\n"
		"property, prints \"FILE: ok\" and exits 0, or prints every problem and exits 2.\n"
		"A cluster must be given (in FILE, $STOAT_BOOTSTRAP_SERVERS or -b), as run needs.\n"
		"\n"
		"print takes run's options (--config FILE, -b, -X ...) and prints the settings\n"
		"run would use, after every layer, as YAML that --config reads back: each value\n"
		"with its origin in a comment (app, FILE:LINE:COL, STOAT_..., --flag, default),\n"
		"librdkafka properties under kafka:, consumer: and producer:, secret ones\n"
		"(passwords, keys, tokens) as '***'.  --json prints one JSON object instead:\n"
		"{\"settings\": {...}, \"kafka\": {...}, \"consumer\": {...}, \"producer\": {...}}.\n"
		"\n"
		"Run '%s run --help' for the options.  Exit status: 0 ok, 2 bad usage or\n"
		"configuration.\n",
		prog, prog, prog);
}

/* Whether args (before a "--") ask for help. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

/*
 * `config check FILE [options]` and `config print [--json] [options]`:
 * the settings as run would have them, checked or printed.
 */
static int config_command(const stoat_app *app, const char *prog, int argc, char **argv)
{
	if (argc == 0)
		return usage_error(prog, "config ", "config needs check or print");
	if (wants_help(argc, argv)) {
		config_usage(stdout, prog);
		return STOAT_EXIT_OK;
	}
	bool check = strcmp(argv[0], "check") == 0;
	if (!check && strcmp(argv[0], "print") != 0)
		return usage_error(prog, "config ", "unknown config command '%s' (check or print)", argv[0]);
	if (check && (argc < 2 || argv[1][0] == '-'))
		return usage_error(prog, "config ", "config check needs a FILE");
	/* check: --config FILE, then the rest; print: the rest without --json. */
	char **args = stoat_xcalloc((size_t)argc + 2, sizeof *args);
	int nargs = 0;
	bool json = false, options_ended = false;
	if (check) {
		args[nargs++] = "--config";
		args[nargs++] = argv[1];
	}
	for (int i = check ? 2 : 1; i < argc; i++) {
		options_ended |= strcmp(argv[i], "--") == 0;
		if (!check && !options_ended && strcmp(argv[i], "--json") == 0)
			json = true;
		else
			args[nargs++] = argv[i];
	}
	stoat_kafka_options opt;
	char **rest;
	int nrest;
	const char *command = check ? "config check" : "config print";
	int status = stoat_kafka_configure(app, prog, command, nargs, args, &opt, &rest, &nrest);
	if (status == 0 && nrest > 0) /* not past an '=', as for run */
		status = usage_error(prog, check ? "config check " : "config print ", "unexpected argument '%.*s%s'",
				     (int)strcspn(rest[0], "="), rest[0], strchr(rest[0], '=') ? "=..." : "");
	if (status == 0) {
		if (check)
			printf("%s: ok\n", argv[1]);
		else
			stoat_kafka_config_print(stdout, &opt, json);
		if (fflush(stdout) != 0)
			status = STOAT_EXIT_IO;
	}
	stoat_kafka_options_free(&opt, rest);
	free(args);
	return status;
}

/* run, load and dump: configuration, then the driver. */
static int kafka_command(const stoat_app *app, const char *prog, const char *command, int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		kafka_usage(stdout, prog);
		return STOAT_EXIT_OK;
	}
	stoat_kafka_options opt;
	char **rest;
	int nrest;
	int status = stoat_kafka_configure(app, prog, command, argc, argv, &opt, &rest, &nrest);
	if (status != 0) {
		stoat_kafka_options_free(&opt, rest);
		return status;
	}
	if (strcmp(command, "run") == 0) {
		if (nrest > 0) /* not past an '=': `sasl.password=...` is no argument to show */
			status = usage_error(prog, "run ", "unexpected argument '%.*s%s'", (int)strcspn(rest[0], "="),
					     rest[0], strchr(rest[0], '=') ? "=..." : "");
		else
			status = stoat_kafka_run(app, &opt);
	} else if (strcmp(command, "load") == 0) {
		if (nrest == 0)
			status = usage_error(prog, "load ", "no input files");
		else
			status = stoat_kafka_load(app, &opt, (const char **)rest, (size_t)nrest);
	} else {
		/* dump (its --idle-ms and --read-uncommitted are read by configure) */
		if (nrest == 0)
			status = usage_error(prog, "dump ", "no topics");
		else
			status = stoat_kafka_dump(app, &opt, (const char **)rest, (size_t)nrest, opt.dump_idle_ms,
						  !opt.read_uncommitted);
	}
	stoat_kafka_options_free(&opt, rest);
	return status;
}

/* A policy as `describe` shows it: dlq with its dead-letter topic. */
static void describe_one_policy(FILE *f, stoat_policy p, const char *dlq_topic)
{
	fprintf(f, "%s", stoat_policy_name(p));
	if (p == STOAT_POLICY_DLQ && dlq_topic)
		fprintf(f, " %s", dlq_topic);
}

/* The policy as `describe` shows it: a source's own, or the app's. */
static void describe_policy(FILE *f, const stoat_source *s, const stoat_app *app)
{
	if (s->on_error == STOAT_POLICY_DEFAULT) {
		describe_one_policy(f, app->on_error, app->dlq_topic);
		fprintf(f, " (application's)");
	} else {
		describe_one_policy(f, s->on_error, s->dlq_topic);
	}
}

/* The dead-letter topic a source's failed records go to, or NULL. */
static const char *source_dlq_topic(const stoat_source *s, const stoat_app *app)
{
	if (s->on_error == STOAT_POLICY_DLQ)
		return s->dlq_topic;
	if (s->on_error == STOAT_POLICY_DEFAULT && app->on_error == STOAT_POLICY_DLQ)
		return app->dlq_topic;
	return NULL;
}

/*
 * The distinct dead-letter topics of the sources, in source order, into
 * topics (room for app->source_count); returns how many.
 */
static size_t dlq_topics(const stoat_app *app, const char **topics)
{
	size_t n = 0;
	for (size_t i = 0; i < app->source_count; i++) {
		const char *t = source_dlq_topic(&app->sources[i], app);
		bool seen = !t;
		for (size_t j = 0; j < n && !seen; j++)
			seen = strcmp(topics[j], t) == 0;
		if (!seen)
			topics[n++] = t;
	}
	return n;
}

/* Prints the application table, for people and for checking what stoatc
 * generated. */
static void describe(FILE *f, const stoat_app *app)
{
	fprintf(f, "application      %s\n", app->app_id);
	fprintf(f, "source file      %s\n", app->source_file ? app->source_file : "(unknown)");
	fprintf(f, "guarantee        %s\n", stoat_guarantee_name(app->guarantee));
	fprintf(f, "commit interval  %" PRId64 " ms\n", app->commit_interval_ms);
	fprintf(f, "on error         ");
	describe_one_policy(f, app->on_error, app->dlq_topic);
	fputc('\n', f);
	fprintf(f, "sources (%zu):\n", app->source_count);
	for (size_t i = 0; i < app->source_count; i++) {
		const stoat_source *s = &app->sources[i];
		fprintf(f, "  %-16s topic %-24s key %-5s value %-5s on error ", s->name ? s->name : "?",
			s->topic ? s->topic : "?", stoat_format_name(s->key_format),
			stoat_format_name(s->value_format));
		describe_policy(f, s, app);
		fputc('\n', f);
	}
	/* Dead-letter topics are sinks too: failed records go there, bytes unchanged. */
	const char **dead = calloc(app->source_count ? app->source_count : 1, sizeof *dead);
	size_t ndead = dead ? dlq_topics(app, dead) : 0;
	fprintf(f, "sinks (%zu):\n", app->sink_count + ndead);
	for (size_t i = 0; i < app->sink_count; i++) {
		const stoat_sink *s = &app->sinks[i];
		fprintf(f, "  %-3zu topic %-24s key %-5s value %s", i, s->topic ? s->topic : "(per record)",
			stoat_format_name(s->key_format), stoat_format_name(s->value_format));
		for (size_t j = 0; j < app->preagg_count; j++)
			if (app->preaggs[j].sink == (int)i)
				fprintf(f, ", partials pre-aggregated for %s", app->preaggs[j].name);
		fputc('\n', f);
	}
	for (size_t i = 0; i < ndead; i++) {
		fprintf(f, "  dlq topic %-24s the failed records of", dead[i]);
		for (size_t j = 0; j < app->source_count; j++) {
			const char *t = source_dlq_topic(&app->sources[j], app);
			if (t && strcmp(t, dead[i]) == 0)
				fprintf(f, " %s", app->sources[j].name);
		}
		fputc('\n', f);
	}
	free(dead);
	if (app->store_count == 0)
		return;
	fprintf(f, "stores (%zu):\n", app->store_count);
	for (size_t i = 0; i < app->store_count; i++) {
		const stoat_store_desc *d = &app->stores[i];
		fprintf(f, "  %-16s %-8s changelog %s-%s-changelog, fed by", d->name, d->in_memory ? "memory" : "rocksdb",
			app->app_id, d->name);
		for (size_t j = 0; j < app->source_count; j++)
			for (size_t k = 0; k < app->sources[j].store_count; k++)
				if (app->sources[j].stores[k] == (int)i)
					fprintf(f, " %s", app->sources[j].name);
		fputc('\n', f);
	}
}

/* Entry point of every generated binary: dispatches on the command. */
int stoat_main(const stoat_app *app, int argc, char **argv)
{
	const char *prog = argc > 0 && argv[0] && argv[0][0] ? argv[0] : app->app_id;
	/* A command-line tool's lines until `run` makes them a service's (log.h). */
	stoat_log_configure(&(stoat_log_config){ .app = app->app_id, .level = STOAT_LOG_INFO, .format = STOAT_LOG_PLAIN });
	if (argc < 2) {
		usage(stderr, prog, app);
		return STOAT_EXIT_USAGE;
	}
	const char *command = argv[1];
	if (strcmp(command, "replay") == 0)
		return replay_command(app, prog, argc - 2, argv + 2);
	if (strcmp(command, "describe") == 0) {
		if (argc > 2)
			return usage_error(prog, "", "describe takes no arguments, got '%s'", argv[2]);
		describe(stdout, app);
		return fflush(stdout) == 0 ? STOAT_EXIT_OK : STOAT_EXIT_IO;
	}
	if (strcmp(command, "run") == 0 || strcmp(command, "load") == 0 || strcmp(command, "dump") == 0)
		return kafka_command(app, prog, command, argc - 2, argv + 2);
	if (strcmp(command, "config") == 0)
		return config_command(app, prog, argc - 2, argv + 2);
	if (strcmp(command, "store") == 0)
		return stoat_store_command(app, prog, argc - 2, argv + 2);
	if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 || strcmp(command, "help") == 0) {
		usage(stdout, prog, app);
		return STOAT_EXIT_OK;
	}
	if (strcmp(command, "--version") == 0) {
		printf("%s (stoat runtime %s)\n", app->app_id, STOAT_VERSION);
		return STOAT_EXIT_OK;
	}
	return usage_error(prog, "", "unknown command '%s'", command);
}
