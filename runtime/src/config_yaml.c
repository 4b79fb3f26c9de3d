/*
 * config_yaml.c - the --config file, read with libyaml: one document, a
 * mapping of stoat's settings (config_settings.c) and of the sections
 * kafka: (both clients), consumer: and producer:, each a mapping of
 * librdkafka properties.  Any YAML style will do (flow mappings and
 * lists, quoting, comments, "---").  A list is one value only for a
 * setting that takes several (bootstrap_servers: [a:9092, b:9092] is
 * "a:9092,b:9092"); on_error also reads as {dlq: TOPIC}; a null value
 * (`guarantee:`, `guarantee: ~`) is no value.  A key twice is an error,
 * an alias of the same setting too (commit_interval, commit_interval_ms),
 * and so is a property named twice for the same client (kafka: and its
 * consumer.x, or twice in one section) -- but a property under
 * producer: or consumer: overrides kafka:'s for that client, no
 * duplicate.  Every problem is reported at its file:line:col, all of them
 * before the reading gives up.
 */
#include "config_impl.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

/* The three sections of librdkafka properties. */
static const char *const sections[] = { "kafka", "consumer", "producer" };
#define SECTION_COUNT (sizeof sections / sizeof sections[0])

/* What reading one file keeps: where each key was first seen. */
typedef struct yaml_reader {
	stoat_kafka_options *opt;
	const char *prog;
	const char *path;
	yaml_document_t *doc;
	char *setting_at[STOAT_KAFKA_SETTINGS_MAX];   /* file:line:col of each setting's key, or NULL */
	const char *setting_key[STOAT_KAFKA_SETTINGS_MAX]; /* the key it was written with (name or alias) */
	char *section_at[SECTION_COUNT];
} yaml_reader;

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

/* Whether node is YAML's null: a plain empty scalar, ~, null, Null or NULL. */
static bool yaml_is_null(const yaml_node_t *node)
{
	if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *text = (const char *)node->data.scalar.value;
	return node->data.scalar.length == 0 || strcmp(text, "~") == 0 || strcmp(text, "null") == 0 ||
	       strcmp(text, "Null") == 0 || strcmp(text, "NULL") == 0;
}

/* "mapping" or "list", for messages about a node that is no scalar. */
static const char *yaml_kind(const yaml_node_t *node)
{
	return node->type == YAML_MAPPING_NODE ? "mapping" : "list";
}

/*
 * A scalar node's text as a C string; NULL after a message when the node
 * is no scalar, or holds a NUL character (which no setting can take).
 * what says what the scalar is for messages ("a setting", "a value").
 */
static const char *yaml_text(const yaml_reader *r, const yaml_node_t *node, const char *what)
{
	if (node->type != YAML_SCALAR_NODE) {
		yaml_error(r->prog, r->path, node->start_mark, "expected %s here, not a %s", what, yaml_kind(node));
		return NULL;
	}
	const char *text = (const char *)node->data.scalar.value;
	if (strlen(text) != node->data.scalar.length) {
		yaml_error(r->prog, r->path, node->start_mark, "%s cannot hold a NUL character", what);
		return NULL;
	}
	return text;
}

/*
 * The items of a list as one value, joined with commas
 * (bootstrap_servers: [a:9092, b:9092]); NULL after a message.
 */
static char *yaml_join_list(const yaml_reader *r, const char *name, const yaml_node_t *key, const yaml_node_t *list)
{
	size_t len = 0;
	for (yaml_node_item_t *item = list->data.sequence.items.start; item < list->data.sequence.items.top; item++) {
		const yaml_node_t *node = yaml_document_get_node(r->doc, *item);
		assert(node);
		if (yaml_is_null(node)) {
			yaml_error(r->prog, r->path, node->start_mark, "an item of %s needs a value", name);
			return NULL;
		}
		const char *text = yaml_text(r, node, "one value of the list");
		if (!text)
			return NULL;
		len += strlen(text) + 1;
	}
	if (len == 0) {
		yaml_error(r->prog, r->path, key->start_mark, "%s needs a value", name);
		return NULL;
	}
	char *joined = stoat_xmalloc(len);
	joined[0] = '\0';
	for (yaml_node_item_t *item = list->data.sequence.items.start; item < list->data.sequence.items.top; item++) {
		const yaml_node_t *node = yaml_document_get_node(r->doc, *item);
		if (joined[0])
			strcat(joined, ",");
		strcat(joined, (const char *)node->data.scalar.value);
	}
	return joined;
}

/*
 * One of stoat's settings, key: value.  Its value as text (a scalar, a
 * list joined, a {KEY: V} mapping as "KEY:V") goes to
 * stoat_setting_apply; false after printing the problem.
 */
static bool yaml_setting(yaml_reader *r, size_t index, const char *key_text, const yaml_node_t *key,
			 const yaml_node_t *value)
{
	const stoat_setting *s = &stoat_settings[index];
	char *where_key = yaml_where(r->path, key->start_mark);
	if (r->setting_at[index]) {
		bool alias = strcmp(r->setting_key[index], key_text) != 0;
		yaml_error(r->prog, r->path, key->start_mark, "duplicate setting '%s' (first at %s%s%s%s)", key_text,
			   r->setting_at[index], alias ? " as '" : "", alias ? r->setting_key[index] : "",
			   alias ? "'" : "");
		free(where_key);
		return false;
	}
	r->setting_at[index] = stoat_xstrdup(where_key);
	r->setting_key[index] = key_text;
	char *text = NULL;
	const yaml_node_t *at = value; /* the node messages about the value point at */
	bool ok = true;
	if (yaml_is_null(value)) {
		ok = yaml_error(r->prog, r->path, key->start_mark, "%s needs a value", key_text);
	} else if (value->type == YAML_SCALAR_NODE) {
		const char *t = yaml_text(r, value, "the setting's value");
		ok = t != NULL;
		if (t)
			text = stoat_xstrdup(t);
	} else if (value->type == YAML_SEQUENCE_NODE && s->takes_list) {
		text = yaml_join_list(r, key_text, key, value);
		ok = text != NULL;
	} else if (value->type == YAML_MAPPING_NODE && s->mapping_key &&
		   value->data.mapping.pairs.top - value->data.mapping.pairs.start == 1) {
		const yaml_node_t *k = yaml_document_get_node(r->doc, value->data.mapping.pairs.start->key);
		const yaml_node_t *v = yaml_document_get_node(r->doc, value->data.mapping.pairs.start->value);
		assert(k && v);
		const char *kt = yaml_text(r, k, "a key");
		const char *vt = kt ? yaml_text(r, v, "a value") : NULL;
		if (kt && strcmp(kt, s->mapping_key) != 0)
			ok = yaml_error(r->prog, r->path, k->start_mark, "%s takes one value or {%s: VALUE}, not {%s: ...}",
					key_text, s->mapping_key, kt);
		else if (!vt)
			ok = false;
		else if (yaml_is_null(v))
			ok = yaml_error(r->prog, r->path, k->start_mark, "%s needs a value", kt);
		if (ok) {
			size_t n = strlen(kt) + 1 + strlen(vt) + 1;
			text = stoat_xmalloc(n);
			snprintf(text, n, "%s:%s", kt, vt);
			at = v;
		}
	} else if (s->mapping_key) {
		ok = yaml_error(r->prog, r->path, value->start_mark, "%s takes one value or {%s: VALUE}, not this %s",
				key_text, s->mapping_key, yaml_kind(value));
	} else {
		ok = yaml_error(r->prog, r->path, value->start_mark, "%s takes one value, not a %s", key_text,
				yaml_kind(value));
	}
	if (ok) {
		char *where_value = yaml_where(r->path, at->start_mark);
		ok = stoat_setting_apply(r->opt, r->prog, index, where_key, where_value, text);
		free(where_value);
	}
	free(text);
	free(where_key);
	return ok;
}

/*
 * The librdkafka properties of one section (kafka:, consumer: or
 * producer:), a mapping of property names to scalar values.  A section
 * left empty (`kafka:` alone) holds none.  The file is the first layer
 * to set properties, so one already set was set by this file: a
 * duplicate.
 */
static bool yaml_section(yaml_reader *r, const char *section, const yaml_node_t *node)
{
	if (yaml_is_null(node))
		return true;
	if (node->type != YAML_MAPPING_NODE)
		return yaml_error(r->prog, r->path, node->start_mark,
				  "%s: takes librdkafka properties, one per line indented under it", section);
	bool ok = true;
	for (yaml_node_pair_t *pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top; pair++) {
		const yaml_node_t *key = yaml_document_get_node(r->doc, pair->key);
		const yaml_node_t *value = yaml_document_get_node(r->doc, pair->value);
		assert(key && value);
		const char *name = yaml_text(r, key, "a librdkafka property");
		if (!name) {
			ok = false;
			continue;
		}
		const char *text = NULL;
		if (yaml_is_null(value))
			yaml_error(r->prog, r->path, key->start_mark, "Kafka property %s needs a value", name);
		else if (value->type != YAML_SCALAR_NODE)
			yaml_error(r->prog, r->path, value->start_mark, "Kafka property %s takes one value, not a %s", name,
				   yaml_kind(value));
		else
			text = yaml_text(r, value, "the property's value");
		if (!text) {
			ok = false;
			continue;
		}
		size_t n = strlen(section) + 1 + strlen(name) + 1;
		char *full = stoat_xmalloc(n);
		if (strcmp(section, "kafka") == 0)
			snprintf(full, n, "%s", name);
		else
			snprintf(full, n, "%s.%s", section, name);
		const stoat_kafka_prop *first = stoat_config_find_prop(r->opt, full);
		if (first) {
			ok = yaml_error(r->prog, r->path, key->start_mark, "duplicate Kafka property '%s' (first at %s)", full,
					first->where);
		} else {
			char *where = yaml_where(r->path, key->start_mark);
			stoat_config_set_prop(r->opt, full, text, where);
			free(where);
		}
		free(full);
	}
	return ok;
}

/*
 * Reports a key that is neither a setting nor a section: unknown, with
 * the nearest known name when one is close.
 */
static void yaml_unknown_key(const yaml_reader *r, const char *name, const yaml_node_t *key, const yaml_node_t *value)
{
	const char *candidates[2 * STOAT_KAFKA_SETTINGS_MAX + SECTION_COUNT + 1];
	size_t n = 0;
	for (size_t i = 0; i < stoat_setting_count; i++) {
		candidates[n++] = stoat_settings[i].name;
		if (stoat_settings[i].alias)
			candidates[n++] = stoat_settings[i].alias;
	}
	for (size_t i = 0; i < SECTION_COUNT; i++)
		candidates[n++] = sections[i];
	candidates[n] = NULL;
	const char *near = stoat_config_suggest(name, candidates, true);
	const char *what = value->type == YAML_MAPPING_NODE ? "section" : "setting";
	if (near) {
		yaml_error(r->prog, r->path, key->start_mark, "unknown %s '%s' (did you mean '%s'?)", what, name, near);
		return;
	}
	if (value->type == YAML_MAPPING_NODE) {
		yaml_error(r->prog, r->path, key->start_mark, "unknown section '%s' (kafka, consumer or producer)", name);
		return;
	}
	fprintf(stderr, "%s: error: %s:%zu:%zu: unknown setting '%s' (", r->prog, r->path, key->start_mark.line + 1,
		key->start_mark.column + 1, name);
	stoat_config_print_setting_list(stderr);
	fputs(")\n", stderr);
}

/* The settings of the file's one document: a mapping, or nothing at all. */
static bool yaml_document(yaml_reader *r)
{
	const yaml_node_t *root = yaml_document_get_root_node(r->doc);
	if (!root || yaml_is_null(root))
		return true; /* an empty file, or a lone "---" */
	if (root->type != YAML_MAPPING_NODE)
		return yaml_error(r->prog, r->path, root->start_mark, "expected settings, one 'key: value' per line");
	bool ok = true;
	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++) {
		const yaml_node_t *key = yaml_document_get_node(r->doc, pair->key);
		const yaml_node_t *value = yaml_document_get_node(r->doc, pair->value);
		assert(key && value);
		const char *name = yaml_text(r, key, "a setting");
		if (!name) {
			ok = false;
			continue;
		}
		size_t section = 0;
		while (section < SECTION_COUNT && strcmp(name, sections[section]) != 0)
			section++;
		int index = stoat_setting_find(name);
		if (section < SECTION_COUNT) {
			if (r->section_at[section]) {
				ok = yaml_error(r->prog, r->path, key->start_mark, "duplicate section '%s' (first at %s)", name,
						r->section_at[section]);
				continue;
			}
			r->section_at[section] = yaml_where(r->path, key->start_mark);
			if (!yaml_section(r, name, value))
				ok = false;
		} else if (index >= 0) {
			if (!yaml_setting(r, (size_t)index, name, key, value))
				ok = false;
		} else {
			yaml_unknown_key(r, name, key, value);
			ok = false;
		}
	}
	return ok;
}

/*
 * Reads the YAML configuration file with libyaml; false after printing
 * every problem, each at its file:line:col.  A directory is refused by
 * name (C would open it, and libyaml report a bare "input error").
 */
bool stoat_config_read_yaml(stoat_kafka_options *opt, const char *prog, const char *path)
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
		yaml_reader r = { .opt = opt, .prog = prog, .path = path, .doc = &doc };
		ok = yaml_document(&r);
		for (size_t i = 0; i < STOAT_KAFKA_SETTINGS_MAX; i++)
			free(r.setting_at[i]);
		for (size_t i = 0; i < SECTION_COUNT; i++)
			free(r.section_at[i]);
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
