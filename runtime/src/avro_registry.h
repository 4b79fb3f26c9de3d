/*
 * avro_registry.h - format avro's side of a running app: the Schema
 * Registry its frames name ids of (registry.h), the ids its sinks write
 * under (registered, or looked up, at the start for a fixed topic, on
 * first use for a topic chosen per record) and what the ids its sources
 * meet stand for (fetched once, compared with the compiled schema by
 * Parsing Canonical Form).  The generated code's side is stoat/avro.h's
 * stoat_avro_unframe, stoat_avro_put_frame and stoat_avro_sink_id.
 *
 * One per process, used by the stream thread alone (both drivers have
 * one).  Layering: under the drivers, over registry.h and avro_schema.h.
 */
#ifndef STOAT_RUNTIME_AVRO_REGISTRY_H
#define STOAT_RUNTIME_AVRO_REGISTRY_H

#include "registry.h"

#include <signal.h>
#include <stoat/runtime.h>

/* How a sink's subject is named (Confluent's subject name strategies). */
typedef enum stoat_subject_strategy {
	STOAT_SUBJECT_TOPIC = 0,    /* TopicNameStrategy: <topic>-key, <topic>-value (the default) */
	STOAT_SUBJECT_RECORD,       /* RecordNameStrategy: the record's full name */
	STOAT_SUBJECT_TOPIC_RECORD, /* TopicRecordNameStrategy: <topic>-<full name> */
} stoat_subject_strategy;

typedef struct stoat_avro_options {
	stoat_registry_config registry; /* registry.urls NULL: none configured */
	stoat_subject_strategy strategy;
} stoat_avro_options;

/* Reads "topic", "record" or "topic_record"; false for anything else. */
bool stoat_subject_strategy_parse(const char *s, stoat_subject_strategy *out);
const char *stoat_subject_strategy_name(stoat_subject_strategy s);

/*
 * Whether app reads or writes format avro anywhere: then it needs a
 * registry, and stoat_avro_open before its first record.
 */
bool stoat_avro_used(const stoat_app *app);

/*
 * Connects to the registry (when app uses format avro; else nothing) and
 * settles the id of every format-avro sink with a fixed topic, so that a
 * registry that refuses a schema stops the app before its first record.
 * While the registry does not answer, a source's new id waits and is
 * asked again until *stop is set (NULL: it fails at once).  False with
 * a message in err: no registry configured, a subject refused, none
 * answered.
 */
bool stoat_avro_open(const stoat_app *app, const stoat_avro_options *opt, volatile sig_atomic_t *stop, char *err,
		     size_t errlen);

/* Ends what stoat_avro_open began; nothing when it was not opened. */
void stoat_avro_close(void);

#endif
