/*
 * config_impl.h - what the configuration reader's files share: the one
 * table of stoat's settings (config.c), through which the YAML file
 * (config_yaml.c), the STOAT_* environment, the flags (config.c) and
 * `config print` (config_print.c) all go.  Users see kafka.h only.
 *
 * Adding a setting: a field in stoat_kafka_options (kafka.h), a parse and
 * a show function and one row of stoat_settings (config.c), a line of
 * `run --help` (main.c) and a row of the table in docs/kafka-driver.md.
 * Its YAML key, environment variable, flag, "did you mean", duplicate
 * check, origin and `config print` line come from the row.
 */
#ifndef STOAT_RUNTIME_CONFIG_IMPL_H
#define STOAT_RUNTIME_CONFIG_IMPL_H

#include "kafka.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What a setting's parse function made of a value. */
typedef enum stoat_parse_result {
	STOAT_PARSED,     /* stored in the options */
	STOAT_BAD_VALUE,  /* the caller prints "<where>: <must>, not '<value>'" */
	STOAT_REPORTED,   /* the parse function printed its own message */
} stoat_parse_result;

/* One of stoat's own settings (librdkafka's properties aside). */
typedef struct stoat_setting {
	const char *name;   /* the YAML key, and the name in messages */
	const char *alias;  /* another YAML key for the same setting, or NULL */
	const char *env;    /* its STOAT_* environment variable */
	const char *flag;   /* its long flag, without the "--" */
	char short_flag;    /* its one-letter flag, or 0 */
	bool is_switch;     /* a boolean: the flag alone means true (--flag=false too) */
	bool takes_list;    /* a YAML list is joined with commas (bootstrap_servers) */
	const char *mapping_key; /* a one-pair YAML mapping {KEY: V} reads as "KEY:V", or NULL */
	const char *must;   /* what a bad value is told: "guarantee must be ..." */
	/* Stores value (never NULL nor empty) in opt; prog and where for its own messages. */
	stoat_parse_result (*parse)(stoat_kafka_options *opt, const char *prog, const char *where, const char *value);
	/* Writes the value as the setting reads it back into buf; false when it is unset. */
	bool (*show)(const stoat_kafka_options *opt, char *buf, size_t size);
	const char *when_unset; /* what an unset value means, for `config print` */
} stoat_setting;

extern const stoat_setting stoat_settings[];
extern const size_t stoat_setting_count;

/* The index of the setting a YAML key (name or alias) names; -1 for none. */
int stoat_setting_find(const char *key);

/*
 * Applies value (as given: a YAML scalar, a list joined with commas, an
 * environment variable, a flag's argument) to setting index; origin is
 * what `config print` names it by ("app.yaml:3:1", "STOAT_GUARANTEE",
 * "--guarantee"), where is what messages name ("app.yaml:3:12").  Returns
 * false after printing the problem.
 */
bool stoat_setting_apply(stoat_kafka_options *opt, const char *prog, size_t index, const char *origin,
			 const char *where, const char *value);

/* Adds or replaces a librdkafka property; where is its origin (see kafka.h). */
void stoat_config_set_prop(stoat_kafka_options *opt, const char *name, const char *value, const char *where);

/* The property named name ("linger.ms", "consumer.x"), or NULL. */
stoat_kafka_prop *stoat_config_find_prop(const stoat_kafka_options *opt, const char *name);

/*
 * The candidate nearest to word, for "did you mean": one within edit
 * distance 2 (the nearest; a swap of two neighbours counts 1) or, when
 * allow_prefix, one that word begins or is the beginning of (3 letters or
 * more); NULL when none is that close.  candidates ends with NULL.
 */
const char *stoat_config_suggest(const char *word, const char *const *candidates, bool allow_prefix);

/* The YAML file's settings (config_yaml.c); false after printing every problem. */
bool stoat_config_read_yaml(stoat_kafka_options *opt, const char *prog, const char *path);

/*
 * The message part listing the settings ("settings: bootstrap_servers,
 * ...; librdkafka properties go under kafka:, consumer: or producer:"),
 * for an unknown setting without a near one.
 */
void stoat_config_print_setting_list(FILE *f);

#endif /* STOAT_RUNTIME_CONFIG_IMPL_H */
