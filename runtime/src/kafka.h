/*
 * kafka.h - the Kafka driver as main.c sees it: its settings
 * (config.c; the table of them in config_settings.c, the YAML file in
 * config_yaml.c, `config print` in config_print.c, all sharing
 * config_impl.h), `run` (kafka_run.c) and the `load` and `dump` tools
 * (kafka_tools.c).  What the kafka_*.c files share among themselves is
 * in kafka_impl.h.
 */
#ifndef STOAT_RUNTIME_KAFKA_H
#define STOAT_RUNTIME_KAFKA_H

#include "avro_registry.h"
#include "log.h"
#include "state.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>

/* A librdkafka property given on the command line, in YAML or the env. */
typedef struct stoat_kafka_prop {
	char *name;  /* "x.y", or "consumer.x.y" / "producer.x.y" for one client */
	char *value;
	char *where; /* its origin for messages: "app.yaml:4:3", "-X", "STOAT_KAFKA_LINGER_MS" */
} stoat_kafka_prop;

/*
 * The process's memory preset: how much librdkafka may prefetch and buffer
 * and, unless state_memory says otherwise, RocksDB's budget (low 64 MB,
 * default 256 MB, high 1 GB).  low trades throughput for RSS.
 */
typedef enum stoat_memory {
	STOAT_MEMORY_DEFAULT = 0,
	STOAT_MEMORY_LOW,
	STOAT_MEMORY_HIGH,
} stoat_memory;

/* Room for stoat's own settings (config.c's table; checked there). */
#define STOAT_KAFKA_SETTINGS_MAX 32

/* Settings of `run`, `load` and `dump`, after YAML, environment, flags. */
typedef struct stoat_kafka_options {
	const char *bootstrap_servers;
	const char *instance_id;       /* NULL: a random one per process */
	stoat_guarantee guarantee;
	int64_t commit_interval_ms;
	stoat_policy policy_override;
	const char *dlq_override;
	size_t batch_max;
	int64_t idle_exit_ms;          /* run: exit after this long with no input (0: never) */
	int64_t max_task_idle_ms;      /* a task waits this long for an empty partition (-1: never waits) */
	int64_t purge_interval_ms;     /* delete consumed repartition records this often (0: never) */
	int64_t shutdown_timeout_ms;   /* run: the stop (commit, leave, close) takes at most this long */
	bool static_membership;        /* group.instance.id = instance_id (KIP-345) */
	const char *state_dir;         /* NULL: /tmp/stoat; stores in <dir>/<app_id>/<instance> */
	stoat_memory memory;           /* the process's memory preset */
	size_t memory_budget;          /* RocksDB, for all stores (0: the preset's) */
	size_t cache_max_bytes;        /* record cache, all stores (0: off) */
	stoat_state_mismatch on_state_mismatch; /* a checkpoint above its changelog's end */
	bool stats;
	char http_address[64];         /* run: the operations endpoint's address (http.h) ... */
	int http_port;                 /* ... and port: -1 off (the default), 0 any free one */
	int64_t http_ready_max_lag;    /* /health/ready only within this total lag (-1: no limit) */
	stoat_log_level log_level;     /* run: lines below it are not written */
	stoat_log_format log_format;   /* run: text (the default) or json */
	int64_t log_report_interval_ms; /* run: a throughput and lag line this often (0: never) */
	/* format avro's Schema Registry (owned strings in avro.registry; the user and password joined at the start). */
	stoat_avro_options avro;
	const char *registry_user;
	const char *registry_password;
	int64_t dump_idle_ms;          /* dump: stop after this long without a record (--idle-ms) */
	bool read_uncommitted;         /* dump: --read-uncommitted */
	stoat_kafka_prop *props;
	size_t prop_count;
	/*
	 * Where each setting's value came from, in config.c's table order:
	 * "app" (the app header), "app.yaml:3:1" (its key), "STOAT_GUARANTEE",
	 * "--guarantee"; NULL for the driver's default.
	 */
	char *origin[STOAT_KAFKA_SETTINGS_MAX];
} stoat_kafka_options;

/*
 * Fills opt from the app's defaults, then the YAML file (--config or
 * $STOAT_CONFIG), then STOAT_* environment variables, then the flags in
 * argv[0..argc) (command names the command for messages: "run", "config
 * print"; only "dump" takes --idle-ms and --read-uncommitted).  Leaves the
 * arguments that are no options, in order, in *rest (everything after a
 * "--" is one).  Returns 0, or STOAT_EXIT_USAGE after printing every
 * problem found; no cluster (bootstrap_servers) is one, except for
 * "config print".
 */
int stoat_kafka_configure(const stoat_app *app, const char *prog, const char *command, int argc, char **argv,
			  stoat_kafka_options *opt, char ***rest, int *rest_count);

/*
 * Prints the effective settings (`config print`, and GET /config): as
 * YAML that --config reads back, each value followed by a comment naming
 * its origin ("# app.yaml:3:1", "# STOAT_GUARANTEE", "# --guarantee",
 * "# app", "# default"), each librdkafka property under its section; or,
 * with json, one object {"settings": {...}, "kafka": {...}, "consumer":
 * {...}, "producer": {...}}.  Secret properties' values are "***".
 */
void stoat_kafka_config_print(FILE *f, const stoat_kafka_options *opt, bool json);

void stoat_kafka_options_free(stoat_kafka_options *opt, char **rest);

/*
 * Secrets: whether a librdkafka property's value must never be printed
 * (passwords, tokens, key material); the message for a property that
 * librdkafka refused (its value shown only when the property is known and
 * not secret; where may be NULL); and msg with every secret value of opt
 * blotted out (for librdkafka's own messages).
 */
bool stoat_kafka_prop_is_secret(const char *name);
void stoat_kafka_prop_refused(const char *prog, const char *where, const char *name, const char *value,
			      bool unknown, const char *err);
void stoat_kafka_redact(const stoat_kafka_options *opt, char *msg);

int stoat_kafka_run(const stoat_app *app, const stoat_kafka_options *opt);
int stoat_kafka_load(const stoat_app *app, const stoat_kafka_options *opt, const char **inputs, size_t n);
int stoat_kafka_dump(const stoat_app *app, const stoat_kafka_options *opt, const char **topics, size_t n,
		     int64_t idle_ms, bool read_committed);

#endif /* STOAT_RUNTIME_KAFKA_H */
