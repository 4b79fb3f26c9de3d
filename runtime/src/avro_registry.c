/*
 * avro_registry.c - format avro's registry side (avro_registry.h): the
 * ids sinks write under and what the ids sources meet stand for.
 *
 * A writer id is judged once: its schema is fetched, brought to Parsing
 * Canonical Form and compared with the compiled reader schema's; the
 * verdict (same, or why not) is kept for the life of the process, so a
 * registry that goes away after the warm-up stops nothing whose ids are
 * known.  A new id while the registry does not answer waits: it is asked
 * again, with a warning, until the registry answers or the driver stops,
 * so that no record goes to the error policy for the registry's outage.
 */
#include "avro_registry.h"

#include "avro_schema.h"
#include "log.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stoat/avro.h>

/* An id a decoder met, and the verdict on it. */
typedef struct writer_verdict {
	int32_t id;
	bool same;
	char *why; /* !same: the error every record written with it gets */
} writer_verdict;

/* What the runtime keeps for one decoder (stoat_avro_writers.state). */
typedef struct writers_state {
	uint64_t reader_fingerprint;
	char *reader_error; /* the compiled schema has no canonical form (a bug): every record's error */
	writer_verdict *verdicts;
	size_t nverdicts, capverdicts;
	stoat_avro_writers *owner;  /* the decoder's static, forgotten at the close */
	struct writers_state *next; /* every decoder's, to free them */
} writers_state;

/* The id of a sink's key or value under a topic chosen per record. */
typedef struct topic_id {
	int sink;
	bool key;
	char *topic;
	int32_t id;  /* -1: refused, for why */
	char *why;
} topic_id;

static struct {
	bool open;
	const stoat_app *app;
	stoat_avro_options opt;
	stoat_registry *registry;
	volatile sig_atomic_t *stop;
	int32_t *sink_ids; /* [2 * sink + key]: a fixed topic's, -1 for none */
	topic_id *topic_ids;
	size_t ntopic_ids, captopic_ids;
	writers_state *states;
} av;

bool stoat_subject_strategy_parse(const char *s, stoat_subject_strategy *out)
{
	static const char *const names[] = { "topic", "record", "topic_record" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (stoat_subject_strategy)i;
			return true;
		}
	return false;
}

const char *stoat_subject_strategy_name(stoat_subject_strategy s)
{
	return s == STOAT_SUBJECT_RECORD ? "record" : s == STOAT_SUBJECT_TOPIC_RECORD ? "topic_record" : "topic";
}

bool stoat_avro_used(const stoat_app *app)
{
	for (size_t i = 0; i < app->source_count; i++)
		if (app->sources[i].key_format == STOAT_FMT_AVRO || app->sources[i].value_format == STOAT_FMT_AVRO)
			return true;
	for (size_t i = 0; i < app->sink_count; i++)
		if (app->sinks[i].key_format == STOAT_FMT_AVRO || app->sinks[i].value_format == STOAT_FMT_AVRO)
			return true;
	return false;
}

/* Sleeps ms milliseconds, or less when the driver is told to stop. */
static void wait_ms(int64_t ms)
{
	for (int64_t left = ms; left > 0 && !(av.stop && *av.stop); left -= 100) {
		struct timespec ts = { 0, (left < 100 ? left : 100) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/*
 * Whether to ask again after a request the registry did not answer
 * (err): after a warning and a wait (doubling to 10 s), unless there is
 * no stop flag to wait on or it is set.
 */
static bool again(const char *what, const char *err, int64_t *backoff)
{
	if (!av.stop || *av.stop)
		return false;
	stoat_log(STOAT_LOG_WARNING, "registry_unanswered", NULL, "warning: %s: %s; asking again in %lld ms", what, err,
		  (long long)*backoff);
	wait_ms(*backoff);
	if (*backoff < 10000)
		*backoff *= 2;
	return !*av.stop;
}

/*
 * Gives up on the record for the registry's silence, which is not the
 * record's fault: no error policy applies (cx->abandoned), the driver
 * stops without committing it, and the next run processes it again.
 */
static void give_up(stoat_ctx *cx, const char *what, const char *err)
{
	stoat_log(STOAT_LOG_ERROR, "registry_unanswered", NULL,
		  "error: %s: %s; stopping without committing the record: no error policy applies, and the next run "
		  "processes it again",
		  what, err);
	stoat_error(cx, "%s", err);
	cx->abandoned = true;
}

/* The full name of schema's top-level record (malloc'd), or NULL when it is not a named type. */
static char *record_full_name(const char *schema)
{
	json_t *j = json_loads(schema, JSON_DECODE_ANY, NULL);
	json_t *name = j && json_is_object(j) ? json_object_get(j, "name") : NULL;
	json_t *ns = j && json_is_object(j) ? json_object_get(j, "namespace") : NULL;
	char *out = NULL;
	if (json_is_string(name)) {
		const char *n = json_string_value(name);
		if (strchr(n, '.') || !json_is_string(ns) || !*json_string_value(ns)) {
			out = stoat_xstrdup(n);
		} else {
			size_t len = strlen(json_string_value(ns)) + 1 + strlen(n) + 1;
			out = stoat_xmalloc(len);
			snprintf(out, len, "%s.%s", json_string_value(ns), n);
		}
	}
	json_decref(j);
	return out;
}

/*
 * The subject of sink's key or value schema for topic under the
 * configured strategy (malloc'd); NULL with a message when the strategy
 * needs a record and the schema is none.
 */
static char *subject_of(const char *topic, bool key, const char *schema, char *err, size_t errlen)
{
	if (av.opt.strategy == STOAT_SUBJECT_TOPIC) {
		size_t len = strlen(topic) + 7;
		char *s = stoat_xmalloc(len);
		snprintf(s, len, "%s-%s", topic, key ? "key" : "value");
		return s;
	}
	char *name = record_full_name(schema);
	if (!name) {
		snprintf(err, errlen, "the %s of topic %s is no record, which the %s subject name strategy needs",
			 key ? "key" : "value", topic, stoat_subject_strategy_name(av.opt.strategy));
		return NULL;
	}
	if (av.opt.strategy == STOAT_SUBJECT_RECORD)
		return name;
	size_t len = strlen(topic) + 1 + strlen(name) + 1;
	char *s = stoat_xmalloc(len);
	snprintf(s, len, "%s-%s", topic, name);
	free(name);
	return s;
}

/* The id of schema under topic's subject, waiting out an unanswering registry; -1 with err. */
static int32_t id_under(const char *topic, bool key, const char *schema, char *err, size_t errlen)
{
	char *subject = subject_of(topic, key, schema, err, errlen);
	if (!subject)
		return -1;
	int32_t id = -1;
	int64_t backoff = 500;
	while (!stoat_registry_id_for(av.registry, subject, schema, "AVRO", &id, err, errlen)) {
		id = -1;
		if (!stoat_registry_unanswered(av.registry) || !again(subject, err, &backoff))
			break;
	}
	free(subject);
	return id;
}

bool stoat_avro_open(const stoat_app *app, const stoat_avro_options *opt, volatile sig_atomic_t *stop, char *err,
		     size_t errlen)
{
	if (!stoat_avro_used(app))
		return true;
	if (!opt->registry.urls || !*opt->registry.urls) {
		snprintf(err, errlen,
			 "format avro needs a Schema Registry: set schema_registry_url (or STOAT_SCHEMA_REGISTRY_URL, "
			 "--schema-registry-url)");
		return false;
	}
	av.registry = stoat_registry_new(&opt->registry, err, errlen);
	if (!av.registry)
		return false;
	av.open = true;
	av.app = app;
	av.opt = *opt;
	av.stop = stop;
	av.sink_ids = stoat_xcalloc(2 * (app->sink_count ? app->sink_count : 1), sizeof *av.sink_ids);
	for (size_t i = 0; i < app->sink_count; i++) {
		const stoat_sink *s = &app->sinks[i];
		for (int key = 0; key < 2; key++) {
			const char *schema = key ? s->key_schema : s->value_schema;
			av.sink_ids[2 * i + (size_t)key] = -1;
			if ((key ? s->key_format : s->value_format) != STOAT_FMT_AVRO || !s->topic)
				continue;
			char why[1024];
			int32_t id = id_under(s->topic, key, schema, why, sizeof why);
			if (id < 0) {
				snprintf(err, errlen, "the %s schema of the sink to %s: %s", key ? "key" : "value", s->topic, why);
				stoat_avro_close();
				return false;
			}
			av.sink_ids[2 * i + (size_t)key] = id;
			stoat_log(STOAT_LOG_INFO, "registry_id", NULL, "the sink to %s writes its %s with schema id %ld",
				  s->topic, key ? "key" : "value", (long)id);
		}
	}
	return true;
}

void stoat_avro_close(void)
{
	if (!av.open)
		return;
	stoat_registry_free(av.registry);
	free(av.sink_ids);
	for (size_t i = 0; i < av.ntopic_ids; i++) {
		free(av.topic_ids[i].topic);
		free(av.topic_ids[i].why);
	}
	free(av.topic_ids);
	while (av.states) {
		writers_state *next = av.states->next;
		av.states->owner->state = NULL;
		av.states->owner->has_same = false;
		for (size_t i = 0; i < av.states->nverdicts; i++)
			free(av.states->verdicts[i].why);
		free(av.states->verdicts);
		free(av.states->reader_error);
		free(av.states);
		av.states = next;
	}
	memset(&av, 0, sizeof av);
}

int32_t stoat_avro_sink_id(stoat_ctx *cx, int sink, bool key, stoat_str topic)
{
	if (!topic.ptr) {
		int32_t id = av.open ? av.sink_ids[2 * sink + key] : -1;
		if (STOAT_UNLIKELY(id < 0))
			stoat_error(cx, "format avro: no schema id for this sink (no Schema Registry)");
		return id;
	}
	for (size_t i = 0; i < av.ntopic_ids; i++) {
		topic_id *t = &av.topic_ids[i];
		if (t->sink == sink && t->key == key && strlen(t->topic) == topic.len &&
		    memcmp(t->topic, topic.ptr, topic.len) == 0) {
			if (t->id < 0)
				stoat_error(cx, "%s", t->why);
			return t->id;
		}
	}
	if (!av.open) {
		stoat_error(cx, "format avro: no Schema Registry");
		return -1;
	}
	const stoat_sink *s = &av.app->sinks[sink];
	char *name = stoat_xstrndup(topic.ptr, topic.len);
	char why[1024];
	int32_t id = id_under(name, key, key ? s->key_schema : s->value_schema, why, sizeof why);
	if (id < 0 && stoat_registry_unanswered(av.registry)) {
		give_up(cx, "the schema id of an output record", why);
		free(name);
		return -1;
	}
	if (av.ntopic_ids == av.captopic_ids) {
		av.captopic_ids = av.captopic_ids ? 2 * av.captopic_ids : 8;
		av.topic_ids = stoat_xrealloc(av.topic_ids, av.captopic_ids, sizeof *av.topic_ids);
	}
	av.topic_ids[av.ntopic_ids++] = (topic_id){ sink, key, name, id, id < 0 ? stoat_xstrdup(why) : NULL };
	if (id < 0)
		stoat_error(cx, "%s", why);
	return id;
}

bool stoat_avro_bad_frame(stoat_ctx *cx, stoat_str bytes, const char *what)
{
	if (bytes.len < 5)
		stoat_error(cx, "not in the Avro wire format: %zu bytes, shorter than its 5-byte header (0, then a schema id)",
			    bytes.len);
	else
		stoat_error(cx, "not in the Avro wire format: its first byte is %u, not 0 (format avro_raw reads Avro "
				"without the header)",
			    (unsigned)(unsigned char)bytes.ptr[0]);
	stoat_error_context(cx, what);
	return false;
}

/* The runtime's record for w, made on its first use. */
static writers_state *state_of(stoat_avro_writers *w)
{
	if (w->state)
		return w->state;
	writers_state *st = stoat_xcalloc(1, sizeof *st);
	char err[512];
	char *pcf = stoat_avro_canonical_form(w->reader_schema, err, sizeof err);
	if (pcf) {
		st->reader_fingerprint = stoat_avro_fingerprint(pcf, strlen(pcf));
		free(pcf);
	} else {
		size_t len = strlen(err) + 64;
		st->reader_error = stoat_xmalloc(len);
		snprintf(st->reader_error, len, "the compiled schema has no canonical form: %s", err);
	}
	st->owner = w;
	st->next = av.states;
	av.states = st;
	w->state = st;
	return st;
}

/* The verdict on writer schema id for st (malloc'd message when not the same). */
static writer_verdict judge(writers_state *st, int32_t id, const char *schema)
{
	char err[512];
	char *pcf = stoat_avro_canonical_form(schema, err, sizeof err);
	writer_verdict v = { id, false, NULL };
	char why[1024];
	if (!pcf) {
		snprintf(why, sizeof why, "written with schema id %ld, which this app cannot read: %s", (long)id, err);
	} else {
		uint64_t fp = stoat_avro_fingerprint(pcf, strlen(pcf));
		free(pcf);
		if (fp == st->reader_fingerprint)
			return (writer_verdict){ id, true, NULL };
		snprintf(why, sizeof why,
			 "written with schema id %ld (fingerprint %016llx), not the compiled schema (fingerprint %016llx): "
			 "reading another writer schema needs Avro schema resolution, which stoat does not do yet",
			 (long)id, (unsigned long long)fp, (unsigned long long)st->reader_fingerprint);
	}
	v.why = stoat_xstrdup(why);
	return v;
}

bool stoat_avro_check_writer(stoat_ctx *cx, stoat_avro_writers *w, int32_t id, const char *what)
{
	if (!av.open) {
		stoat_error(cx, "format avro: no Schema Registry to ask for schema id %ld", (long)id);
		stoat_error_context(cx, what);
		return false;
	}
	writers_state *st = state_of(w);
	if (st->reader_error) {
		stoat_error(cx, "%s", st->reader_error);
		stoat_error_context(cx, what);
		return false;
	}
	for (size_t i = 0; i < st->nverdicts; i++) {
		if (st->verdicts[i].id != id)
			continue;
		if (st->verdicts[i].same) {
			w->has_same = true;
			w->same_id = id;
			return true;
		}
		stoat_error(cx, "%s", st->verdicts[i].why);
		stoat_error_context(cx, what);
		return false;
	}
	const char *schema = NULL;
	char err[1024];
	int64_t backoff = 500;
	char asking[64];
	snprintf(asking, sizeof asking, "schema id %ld", (long)id);
	while (!stoat_registry_schema(av.registry, id, &schema, err, sizeof err)) {
		if (!stoat_registry_unanswered(av.registry)) {
			/* The registry answered: no such id, which stays so. */
			break;
		}
		if (!again(asking, err, &backoff)) {
			give_up(cx, asking, err);
			return false;
		}
	}
	writer_verdict v = schema ? judge(st, id, schema) : (writer_verdict){ id, false, stoat_xstrdup(err) };
	if (st->nverdicts == st->capverdicts) {
		st->capverdicts = st->capverdicts ? 2 * st->capverdicts : 4;
		st->verdicts = stoat_xrealloc(st->verdicts, st->capverdicts, sizeof *st->verdicts);
	}
	st->verdicts[st->nverdicts++] = v;
	if (v.same) {
		w->has_same = true;
		w->same_id = id;
		return true;
	}
	stoat_error(cx, "%s", v.why);
	stoat_error_context(cx, what);
	return false;
}
