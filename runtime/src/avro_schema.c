/*
 * avro_schema.c - Parsing Canonical Form and fingerprints (avro_schema.h).
 */
#include "avro_schema.h"

#include "util.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing string. */
typedef struct text {
	char *s;
	size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->s = stoat_xrealloc(t->s, t->cap, 1);
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void puts_(text *t, const char *s)
{
	put(t, s, strlen(s));
}

/* A JSON string as the canonical form writes it (jansson's escaping: the spec's [STRINGS]). */
static void put_string(text *t, const char *s)
{
	json_t *j = json_string(s);
	char *e = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	puts_(t, e);
	free(e);
	json_decref(j);
}

/* The names defined so far (each defined once, then referenced by full name). */
typedef struct names {
	char **full;
	size_t n, cap;
} names;

static bool defined(const names *ns, const char *full)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->full[i], full) == 0)
			return true;
	return false;
}

static void define(names *ns, const char *full)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 8;
		ns->full = stoat_xrealloc(ns->full, ns->cap, sizeof *ns->full);
	}
	ns->full[ns->n++] = stoat_xstrdup(full);
}

static char *full_name(const char *name, const char *space)
{
	if (strchr(name, '.') || !space || !*space)
		return stoat_xstrdup(name);
	size_t n = strlen(space) + strlen(name) + 2;
	char *f = stoat_xmalloc(n);
	snprintf(f, n, "%s.%s", space, name);
	return f;
}

static const char *const primitives[] = { "null", "boolean", "int", "long", "float", "double", "bytes", "string" };

static bool is_primitive(const char *s)
{
	for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++)
		if (strcmp(s, primitives[i]) == 0)
			return true;
	return false;
}

/* Writes the canonical form of schema j (in namespace space); false on a schema it cannot read. */
static bool canon(text *t, names *ns, json_t *j, const char *space, char *err, size_t errlen)
{
	if (json_is_string(j)) {
		const char *s = json_string_value(j);
		if (is_primitive(s)) {
			put_string(t, s);
			return true;
		}
		char *f = full_name(s, space);
		if (!defined(ns, f)) {
			snprintf(err, errlen, "unknown type name \"%s\"", f);
			free(f);
			return false;
		}
		put_string(t, f);
		free(f);
		return true;
	}
	if (json_is_array(j)) {
		puts_(t, "[");
		size_t i;
		json_t *b;
		json_array_foreach (j, i, b) {
			if (i)
				puts_(t, ",");
			if (!canon(t, ns, b, space, err, errlen))
				return false;
		}
		puts_(t, "]");
		return true;
	}
	if (!json_is_object(j)) {
		snprintf(err, errlen, "a schema is a name, an object or an array");
		return false;
	}
	json_t *type = json_object_get(j, "type");
	if (!json_is_string(type)) /* {"type": {...}} */
		return type ? canon(t, ns, type, space, err, errlen) : (snprintf(err, errlen, "an object without \"type\""), false);
	const char *ty = json_string_value(type);
	if (is_primitive(ty)) { /* {"type": "long", "logicalType": ...}: the primitive */
		put_string(t, ty);
		return true;
	}
	bool record = strcmp(ty, "record") == 0 || strcmp(ty, "error") == 0;
	if (record || strcmp(ty, "enum") == 0 || strcmp(ty, "fixed") == 0) {
		json_t *name = json_object_get(j, "name");
		json_t *nspace = json_object_get(j, "namespace");
		if (!json_is_string(name)) {
			snprintf(err, errlen, "a %s without a name", ty);
			return false;
		}
		char *f = full_name(json_string_value(name), json_is_string(nspace) ? json_string_value(nspace) : space);
		if (defined(ns, f)) {
			snprintf(err, errlen, "%s is defined twice", f);
			free(f);
			return false;
		}
		define(ns, f);
		puts_(t, "{\"name\":");
		put_string(t, f);
		puts_(t, ",\"type\":");
		put_string(t, record ? "record" : ty);
		/* The namespace of what is inside: the full name's. */
		const char *dot = strrchr(f, '.');
		char *inner = dot ? stoat_xstrndup(f, (size_t)(dot - f)) : stoat_xstrdup("");
		bool ok = true;
		if (record) {
			json_t *fields = json_object_get(j, "fields");
			if (!json_is_array(fields)) {
				snprintf(err, errlen, "record %s has no fields array", f);
				ok = false;
			} else {
				puts_(t, ",\"fields\":[");
				size_t i;
				json_t *fd;
				json_array_foreach (fields, i, fd) {
					json_t *fname = json_object_get(fd, "name");
					if (!json_is_string(fname)) {
						snprintf(err, errlen, "a field of %s without a name", f);
						ok = false;
						break;
					}
					puts_(t, i ? ",{\"name\":" : "{\"name\":");
					put_string(t, json_string_value(fname));
					puts_(t, ",\"type\":");
					if (!(ok = canon(t, ns, json_object_get(fd, "type"), inner, err, errlen)))
						break;
					puts_(t, "}");
				}
				puts_(t, "]");
			}
		} else if (ty[0] == 'e') {
			puts_(t, ",\"symbols\":[");
			size_t i;
			json_t *sym;
			json_array_foreach (json_object_get(j, "symbols"), i, sym) {
				if (i)
					puts_(t, ",");
				put_string(t, json_string_value(sym) ? json_string_value(sym) : "");
			}
			puts_(t, "]");
		} else {
			json_t *size = json_object_get(j, "size");
			if (!json_is_integer(size)) {
				snprintf(err, errlen, "fixed %s without a size", f);
				ok = false;
			} else {
				char num[32];
				snprintf(num, sizeof num, ",\"size\":%lld", (long long)json_integer_value(size));
				puts_(t, num);
			}
		}
		puts_(t, "}");
		free(inner);
		free(f);
		return ok;
	}
	if (strcmp(ty, "array") == 0 || strcmp(ty, "map") == 0) {
		bool array = ty[0] == 'a';
		puts_(t, array ? "{\"type\":\"array\",\"items\":" : "{\"type\":\"map\",\"values\":");
		json_t *inner = json_object_get(j, array ? "items" : "values");
		if (!inner) {
			snprintf(err, errlen, "an %s without \"%s\"", ty, array ? "items" : "values");
			return false;
		}
		if (!canon(t, ns, inner, space, err, errlen))
			return false;
		puts_(t, "}");
		return true;
	}
	/* A named type referenced as {"type": "Name"}. */
	return canon(t, ns, type, space, err, errlen);
}

char *stoat_avro_canonical_form(const char *schema_json, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *j = json_loads(schema_json, JSON_DECODE_ANY, &jerr);
	if (!j) {
		snprintf(err, errlen, "not JSON: %s (line %d)", jerr.text, jerr.line);
		return NULL;
	}
	text t = { 0 };
	names ns = { 0 };
	bool ok = canon(&t, &ns, j, "", err, errlen);
	json_decref(j);
	for (size_t i = 0; i < ns.n; i++)
		free(ns.full[i]);
	free(ns.full);
	if (!ok) {
		free(t.s);
		return NULL;
	}
	return t.s;
}

uint64_t stoat_avro_fingerprint(const void *bytes, size_t n)
{
	/* The specification's table, made on each call: fingerprints are taken once per schema. */
	const uint64_t empty = 0xc15d213aa4d7a795ULL;
	uint64_t table[256];
	for (int i = 0; i < 256; i++) {
		uint64_t fp = (uint64_t)i;
		for (int k = 0; k < 8; k++)
			fp = (fp >> 1) ^ (empty & -(fp & 1));
		table[i] = fp;
	}
	uint64_t fp = empty;
	const unsigned char *p = bytes;
	for (size_t i = 0; i < n; i++)
		fp = (fp >> 8) ^ table[(fp ^ p[i]) & 0xff];
	return fp;
}
