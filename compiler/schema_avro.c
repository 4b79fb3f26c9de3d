/*
 * schema_avro.c - record types from Avro schema files (schema_avro.h).
 *
 * Two passes over the file: avro-c parses it first, which settles whether
 * it is a valid schema at all (its names, references to named types, one
 * definition per name) and gives the message when not; then jansson's
 * tree of the same text is walked here to build the AvroSchema tree and
 * the stoat types, since avro-c keeps neither logical types nor defaults.
 * The walk can therefore take the structure as valid and reports only
 * what stoat cannot represent.
 */
#include "schema_avro.h"

#include <avro.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* A named type (record, enum, fixed) of one import, or of an earlier one. */
typedef struct Named {
	char *fullname;
	AvroSchema *schema;
	json_t *json;     /* its definition, kept to compare with another file's */
	const char *path; /* the file that defined it first */
} Named;

/* Named types of every import so far, for reuse across files. */
static Named *all_named;
static int nall_named, capall_named;

typedef struct Importer {
	const char *path;
	Span span;
	const char *type_name;
	Named *named; /* this file's */
	int nnamed, capnamed;
	Record **records;
	int nrecords, caprecords;
	bool failed;
} Importer;

static AvroSchema *walk(Importer *im, json_t *j, const char *ns, const char *where);

/* Reports what stoat cannot represent at where inside the schema, once per import. */
static void unsupported(Importer *im, const char *where, const char *hint, const char *what)
{
	if (im->failed)
		return;
	im->failed = true;
	if (hint)
		error_hint(im->span, hint, "%s: %s: %s", im->path, where, what);
	else
		error_at(im->span, "%s: %s: %s", im->path, where, what);
}

static AvroSchema *schema_new(AvroKind kind)
{
	AvroSchema *s = xcalloc(1, sizeof *s);
	s->kind = kind;
	s->enum_default = -1;
	s->null_branch = -1;
	return s;
}

static const char *kind_name(AvroKind k)
{
	static const char *names[] = {
		[AV_NULL] = "null",     [AV_BOOLEAN] = "boolean", [AV_INT] = "int",     [AV_LONG] = "long",
		[AV_FLOAT] = "float",   [AV_DOUBLE] = "double",   [AV_BYTES] = "bytes", [AV_STRING] = "string",
		[AV_RECORD] = "record", [AV_ENUM] = "enum",       [AV_ARRAY] = "array", [AV_MAP] = "map",
		[AV_UNION] = "union",   [AV_FIXED] = "fixed",
	};
	return names[k];
}

/* A primitive type's kind from its name; -1 if it is not one. */
static int primitive_kind(const char *name)
{
	for (int k = AV_NULL; k <= AV_STRING; k++)
		if (strcmp(name, kind_name((AvroKind)k)) == 0)
			return k;
	return -1;
}

/* The full name of name written in namespace ns (the spec's rule: a name with a dot is full). */
static char *full_name(const char *name, const char *ns)
{
	if (strchr(name, '.') || !ns || !*ns)
		return xstrdup(name);
	return xasprintf("%s.%s", ns, name);
}

/* The namespace of a full name ("" for none). */
static char *namespace_of(const char *fullname)
{
	const char *dot = strrchr(fullname, '.');
	return dot ? xstrndup(fullname, (size_t)(dot - fullname)) : xstrdup("");
}

static const char *simple_name(const char *fullname)
{
	const char *dot = strrchr(fullname, '.');
	return dot ? dot + 1 : fullname;
}

static Named *find_named(Named *list, int n, const char *fullname)
{
	for (int i = 0; i < n; i++)
		if (strcmp(list[i].fullname, fullname) == 0)
			return &list[i];
	return NULL;
}

static void add_named(Named **list, int *n, int *cap, Named v)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*list = xrealloc(*list, sizeof **list * (size_t)*cap);
	}
	(*list)[(*n)++] = v;
}

static const char *json_str(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* An attribute's aliases, as full names in namespace ns. */
static char **aliases_of(json_t *obj, const char *ns, int *count)
{
	json_t *a = json_object_get(obj, "aliases");
	*count = 0;
	if (!json_is_array(a) || json_array_size(a) == 0)
		return NULL;
	char **out = xcalloc(json_array_size(a), sizeof *out);
	size_t i;
	json_t *v;
	json_array_foreach (a, i, v)
		if (json_is_string(v))
			out[(*count)++] = ns ? full_name(json_string_value(v), ns) : xstrdup(json_string_value(v));
	return out;
}

/*
 * The logical type of a schema object and the stoat type it gives, or
 * NULL when it is none stoat knows (then the underlying type counts, as
 * the spec says of unknown logical types).  Reports decimal and duration,
 * which stoat cannot represent.
 */
static Type *logical_type(Importer *im, json_t *j, AvroSchema *s, const char *where)
{
	const char *lt = json_str(j, "logicalType");
	if (!lt)
		return NULL;
	static const struct {
		const char *name;
		AvroKind on;
		AvroLogical logical;
	} known[] = {
		{ "timestamp-millis", AV_LONG, AVL_TIMESTAMP_MILLIS },
		{ "timestamp-micros", AV_LONG, AVL_TIMESTAMP_MICROS },
		{ "local-timestamp-millis", AV_LONG, AVL_LOCAL_TIMESTAMP_MILLIS },
		{ "local-timestamp-micros", AV_LONG, AVL_LOCAL_TIMESTAMP_MICROS },
		{ "date", AV_INT, AVL_DATE },
		{ "time-millis", AV_INT, AVL_TIME_MILLIS },
		{ "time-micros", AV_LONG, AVL_TIME_MICROS },
		{ "uuid", AV_STRING, AVL_UUID },
	};
	if (strcmp(lt, "decimal") == 0 && (s->kind == AV_BYTES || s->kind == AV_FIXED)) {
		unsupported(im, where, "read it as bytes: drop the logicalType, or declare the field as plain bytes",
			    "the decimal logical type has no stoat type yet (stoat has no exact decimal, and a double "
			    "would not be exact)");
		return ty_error;
	}
	if (strcmp(lt, "duration") == 0 && s->kind == AV_FIXED) {
		unsupported(im, where, NULL, "the duration logical type (months, days, milliseconds) has no stoat type");
		return ty_error;
	}
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strcmp(lt, known[i].name) != 0 || s->kind != known[i].on)
			continue;
		s->logical = known[i].logical;
		switch (s->logical) {
		case AVL_TIME_MILLIS:
		case AVL_TIME_MICROS:
			return ty_duration;
		case AVL_UUID:
			return ty_string;
		default:
			return ty_timestamp;
		}
	}
	return NULL;
}

/* A record's fields, into s and its stoat record. */
static void walk_fields(Importer *im, json_t *j, AvroSchema *s, Record *rec, const char *ns)
{
	json_t *fields = json_object_get(j, "fields");
	size_t n = json_array_size(fields);
	s->fields = xcalloc(n ? n : 1, sizeof *s->fields);
	rec->fields = xcalloc(n ? n : 1, sizeof *rec->fields);
	size_t i;
	json_t *f;
	json_array_foreach (fields, i, f) {
		AvroField *af = &s->fields[s->nfields++];
		af->name = xstrdup(json_str(f, "name"));
		char *where = xasprintf("%s.%s", rec->name, af->name);
		af->type = walk(im, json_object_get(f, "type"), ns, where);
		json_t *def = json_object_get(f, "default");
		if (def) {
			char *text = json_dumps(def, JSON_ENCODE_ANY | JSON_COMPACT);
			af->default_json = xstrdup(text);
			free(text);
		}
		af->aliases = aliases_of(f, NULL, &af->naliases);
		Type *t = af->type ? af->type->type : ty_error;
		if (af->type && af->type->kind == AV_NULL) {
			unsupported(im, where, "drop the field, or make it [\"null\", T]",
				    "a field of type null has no stoat type");
			t = ty_error;
		}
		rec->fields[rec->nfields++] = (Field){ .name = af->name, .type = t, .span = im->span };
	}
	rec->resolved = true;
}

/* A record, enum or fixed definition (object j) named in namespace ns. */
static AvroSchema *walk_named(Importer *im, json_t *j, AvroKind kind, const char *ns, const char *where)
{
	char *fullname = full_name(json_str(j, "name"), json_str(j, "namespace") ? json_str(j, "namespace") : ns);
	char *own_ns = namespace_of(fullname);
	Named *prev = find_named(all_named, nall_named, fullname);
	if (prev) {
		/* The same definition in another file: the same type. */
		if (json_equal(prev->json, j)) {
			add_named(&im->named, &im->nnamed, &im->capnamed, *prev);
			return prev->schema;
		}
		unsupported(im, where, "give one of them another name or namespace",
			    xasprintf("%s %s is defined differently in %s", kind_name(kind), fullname, prev->path));
		return NULL;
	}
	AvroSchema *s = schema_new(kind);
	s->fullname = fullname;
	s->aliases = aliases_of(j, own_ns, &s->naliases);
	Named self = { fullname, s, json_incref(j), im->path };
	add_named(&im->named, &im->nnamed, &im->capnamed, self);
	add_named(&all_named, &nall_named, &capall_named, self);
	if (kind == AV_RECORD) {
		/* The top-level record takes the stoat name; the others their simple names. */
		const char *name = im->nrecords == 0 ? im->type_name : simple_name(fullname);
		for (int i = 0; i < im->nrecords; i++)
			if (strcmp(im->records[i]->name, name) == 0) {
				unsupported(im, where, "rename one of them in the schema",
					    xasprintf("records %s and %s would both be the stoat type '%s'",
						      im->records[i]->avro->fullname, fullname, name));
				return NULL;
			}
		Record *rec = record_new(name, im->span, false);
		rec->avro = s;
		s->type = ty_record(rec);
		if (im->nrecords == im->caprecords) {
			im->caprecords = im->caprecords ? im->caprecords * 2 : 4;
			im->records = xrealloc(im->records, sizeof *im->records * (size_t)im->caprecords);
		}
		im->records[im->nrecords++] = rec;
		walk_fields(im, j, s, rec, own_ns);
	} else if (kind == AV_ENUM) {
		json_t *syms = json_object_get(j, "symbols");
		s->symbols = xcalloc(json_array_size(syms) + 1, sizeof *s->symbols);
		size_t i;
		json_t *v;
		json_array_foreach (syms, i, v)
			s->symbols[s->nsymbols++] = xstrdup(json_string_value(v));
		const char *def = json_str(j, "default");
		for (int k = 0; def && k < s->nsymbols; k++)
			if (strcmp(s->symbols[k], def) == 0)
				s->enum_default = k;
		s->type = ty_string;
	} else {
		s->size = (int)json_integer_value(json_object_get(j, "size"));
		s->type = logical_type(im, j, s, where);
		if (!s->type)
			s->type = ty_bytes;
	}
	return s;
}

/* A union: ["null", T] or [T, "null"] is T?; anything else has no stoat type. */
static AvroSchema *walk_union(Importer *im, json_t *j, const char *ns, const char *where)
{
	AvroSchema *s = schema_new(AV_UNION);
	size_t n = json_array_size(j);
	s->branches = xcalloc(n ? n : 1, sizeof *s->branches);
	size_t i;
	json_t *b;
	json_array_foreach (j, i, b) {
		AvroSchema *bs = walk(im, b, ns, where);
		if (!bs)
			return NULL;
		s->branches[s->nbranches++] = bs;
	}
	if (s->nbranches == 2 && (s->branches[0]->kind == AV_NULL) != (s->branches[1]->kind == AV_NULL)) {
		s->null_branch = s->branches[0]->kind == AV_NULL ? 0 : 1;
		s->type = ty_nullable(s->branches[1 - s->null_branch]->type);
		return s;
	}
	char *list = xstrdup("");
	for (int k = 0; k < s->nbranches; k++)
		list = xasprintf("%s%s%s", list, k ? ", " : "",
				 s->branches[k]->fullname ? s->branches[k]->fullname : kind_name(s->branches[k]->kind));
	unsupported(im, where, "stoat has no sum type: of unions it reads only [\"null\", T], as T?",
		    xasprintf("a union of %s has no stoat type", list));
	return NULL;
}

/*
 * The schema j (a name, an object or a union) in namespace ns, at where
 * (a path for messages: Record.field); NULL after an error.
 */
static AvroSchema *walk(Importer *im, json_t *j, const char *ns, const char *where)
{
	if (im->failed)
		return NULL;
	if (json_is_array(j))
		return walk_union(im, j, ns, where);
	const char *name = json_is_string(j) ? json_string_value(j) : json_str(j, "type");
	if (!name) {
		/* {"type": {...}}: a schema wrapped in an object. */
		json_t *inner = json_object_get(j, "type");
		return inner ? walk(im, inner, ns, where) : NULL;
	}
	int prim = primitive_kind(name);
	if (prim >= 0) {
		AvroSchema *s = schema_new((AvroKind)prim);
		static Type **map[AV_STRING + 1] = {
			[AV_NULL] = &ty_null,    [AV_BOOLEAN] = &ty_bool, [AV_INT] = &ty_i32,     [AV_LONG] = &ty_i64,
			[AV_FLOAT] = &ty_f64,    [AV_DOUBLE] = &ty_f64,   [AV_BYTES] = &ty_bytes, [AV_STRING] = &ty_string,
		};
		s->type = json_is_object(j) ? logical_type(im, j, s, where) : NULL;
		if (!s->type)
			s->type = *map[prim];
		return s;
	}
	if (json_is_object(j)) {
		if (strcmp(name, "record") == 0 || strcmp(name, "error") == 0)
			return walk_named(im, j, AV_RECORD, ns, where);
		if (strcmp(name, "enum") == 0)
			return walk_named(im, j, AV_ENUM, ns, where);
		if (strcmp(name, "fixed") == 0)
			return walk_named(im, j, AV_FIXED, ns, where);
		if (strcmp(name, "array") == 0 || strcmp(name, "map") == 0) {
			bool is_map = name[0] == 'm';
			AvroSchema *s = schema_new(is_map ? AV_MAP : AV_ARRAY);
			s->items = walk(im, json_object_get(j, is_map ? "values" : "items"), ns,
					xasprintf("%s[]", where));
			if (!s->items)
				return NULL;
			if (is_map) {
				/* A map is its entries: [{key: string, value: T}]. */
				Field entry[2] = {
					{ .name = xstrdup("key"), .type = ty_string, .span = im->span },
					{ .name = xstrdup("value"), .type = s->items->type, .span = im->span },
				};
				s->type = ty_array(anon_record(entry, 2, im->span));
			} else {
				s->type = ty_array(s->items->type);
			}
			return s;
		}
	}
	/* A reference to a named type defined before (avro-c checked that it is). */
	char *fullname = full_name(name, ns);
	Named *n = find_named(im->named, im->nnamed, fullname);
	if (!n)
		n = find_named(im->named, im->nnamed, name);
	if (!n) {
		unsupported(im, where, NULL, xasprintf("unknown type '%s'", name));
		return NULL;
	}
	return n->schema;
}

/* avro-c's message without its trailing newline. */
static const char *avro_message(void)
{
	char *m = xstrdup(avro_strerror());
	size_t n = strlen(m);
	while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' '))
		m[--n] = '\0';
	return m;
}

AvroImport *avro_import(const char *path, const char *open_path, const char *type_name, Span span)
{
	struct stat st;
	if (stat(open_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		error_at(span, "cannot read the schema file %s: not a regular file", path);
		return NULL;
	}
	SourceFile *src = source_read(open_path);
	if (!src) {
		error_at(span, "cannot read the schema file %s: %s", path, strerror(errno));
		return NULL;
	}
	avro_schema_t checked = NULL;
	if (avro_schema_from_json_length(src->text, src->len, &checked) != 0) {
		error_hint(span, "the file must hold one Avro schema (https://avro.apache.org/docs/current/specification/)",
			   "%s: not a valid Avro schema: %s", path, avro_message());
		return NULL;
	}
	avro_schema_decref(checked);
	json_error_t jerr;
	json_t *root = json_loadb(src->text, src->len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		error_at(span, "%s:%d:%d: not valid JSON: %s", path, jerr.line, jerr.column, jerr.text);
		return NULL;
	}
	Importer im = { .path = path, .span = span, .type_name = type_name };
	const char *top = json_is_object(root) ? json_str(root, "type") : NULL;
	if (!top || (strcmp(top, "record") != 0 && strcmp(top, "error") != 0)) {
		const char *what = json_is_array(root) ? "a union" : json_is_string(root) ? json_string_value(root) : top ? top : "not a record";
		error_hint(span, "import a schema whose top level is a record, or declare the type in stoat",
			   "%s: the schema's top level is %s%s; a type import needs a record", path,
			   json_is_array(root) || !top ? "" : "of type ", what);
		json_decref(root);
		return NULL;
	}
	AvroSchema *s = walk(&im, root, "", type_name);
	json_decref(root);
	if (im.failed || !s)
		return NULL;
	AvroImport *imp = xcalloc(1, sizeof *imp);
	imp->path = path;
	imp->text = xstrndup(src->text, src->len);
	s->source_text = imp->text;
	imp->root = s;
	imp->records = im.records;
	imp->nrecords = im.nrecords;
	return imp;
}

/* Schemas made for types that were not imported, by type (avro_schema_of). */
static Type **derived_types;
static AvroSchema **derived_schemas;
static int nderived, capderived;

const AvroSchema *avro_schema_of(Type *t)
{
	if (t->kind == TY_RECORD && t->rec->avro)
		return t->rec->avro;
	for (int i = 0; i < nderived; i++)
		if (derived_types[i] == t)
			return derived_schemas[i];
	AvroSchema *s = NULL;
	switch (t->kind) {
	case TY_BOOL: s = schema_new(AV_BOOLEAN); break;
	case TY_I32: s = schema_new(AV_INT); break;
	case TY_I64: case TY_DURATION: s = schema_new(AV_LONG); break;
	case TY_TIMESTAMP:
		s = schema_new(AV_LONG);
		s->logical = AVL_TIMESTAMP_MILLIS;
		break;
	case TY_F64: s = schema_new(AV_DOUBLE); break;
	case TY_STRING: s = schema_new(AV_STRING); break;
	case TY_BYTES: s = schema_new(AV_BYTES); break;
	case TY_NULLABLE:
		s = schema_new(AV_UNION);
		s->nbranches = 2;
		s->branches = xcalloc(2, sizeof *s->branches);
		s->branches[0] = schema_new(AV_NULL);
		s->branches[0]->type = ty_null;
		s->branches[1] = (AvroSchema *)avro_schema_of(t->elem);
		s->null_branch = 0;
		break;
	case TY_ARRAY:
		s = schema_new(AV_ARRAY);
		s->items = (AvroSchema *)avro_schema_of(t->elem);
		break;
	case TY_RECORD: {
		Record *r = t->rec;
		s = schema_new(AV_RECORD);
		s->fullname = xstrdup(r->name);
		/* Registered before its fields: a record may hold itself through an array. */
		s->type = t;
		break;
	}
	default:
		/* TY_ERROR, TY_NULL, TY_PAIR: sema let none of them reach a format. */
		s = schema_new(AV_NULL);
		break;
	}
	s->type = t;
	if (nderived == capderived) {
		capderived = capderived ? capderived * 2 : 16;
		derived_types = xrealloc(derived_types, sizeof *derived_types * (size_t)capderived);
		derived_schemas = xrealloc(derived_schemas, sizeof *derived_schemas * (size_t)capderived);
	}
	derived_types[nderived] = t;
	derived_schemas[nderived++] = s;
	if (t->kind == TY_RECORD) {
		Record *r = t->rec;
		s->fields = xcalloc((size_t)(r->nfields ? r->nfields : 1), sizeof *s->fields);
		for (int i = 0; i < r->nfields; i++)
			s->fields[s->nfields++] = (AvroField){ .name = r->fields[i].name,
							       .type = (AvroSchema *)avro_schema_of(r->fields[i].type) };
	}
	return s;
}

/* The name a primitive kind has in a schema. */
static const char *primitive_name(AvroKind k)
{
	static const char *names[] = { [AV_NULL] = "null", [AV_BOOLEAN] = "boolean", [AV_INT] = "int",
		                       [AV_LONG] = "long", [AV_FLOAT] = "float", [AV_DOUBLE] = "double",
		                       [AV_BYTES] = "bytes", [AV_STRING] = "string" };
	return names[k];
}

/* The logicalType attribute's value of l (NULL for none). */
static const char *logical_name(AvroLogical l)
{
	static const char *names[] = { [AVL_NONE] = NULL,
		                       [AVL_TIMESTAMP_MILLIS] = "timestamp-millis",
		                       [AVL_TIMESTAMP_MICROS] = "timestamp-micros",
		                       [AVL_LOCAL_TIMESTAMP_MILLIS] = "local-timestamp-millis",
		                       [AVL_LOCAL_TIMESTAMP_MICROS] = "local-timestamp-micros",
		                       [AVL_DATE] = "date",
		                       [AVL_TIME_MILLIS] = "time-millis",
		                       [AVL_TIME_MICROS] = "time-micros",
		                       [AVL_UUID] = "uuid" };
	return names[l];
}

/* An array of aliases as JSON. */
static json_t *aliases_json(char **aliases, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(aliases[i]));
	return a;
}

/*
 * The JSON tree of s; a named type is defined where it first occurs
 * (defined lists those already written) and referenced by its full name
 * after, as the specification requires.
 */
static json_t *schema_json(const AvroSchema *s, const char ***defined, int *ndefined)
{
	json_t *j = NULL;
	switch (s->kind) {
	case AV_NULL: case AV_BOOLEAN: case AV_INT: case AV_LONG: case AV_FLOAT: case AV_DOUBLE: case AV_BYTES:
	case AV_STRING:
		if (!logical_name(s->logical))
			return json_string(primitive_name(s->kind));
		j = json_object();
		json_object_set_new(j, "type", json_string(primitive_name(s->kind)));
		json_object_set_new(j, "logicalType", json_string(logical_name(s->logical)));
		return j;
	case AV_RECORD: case AV_ENUM: case AV_FIXED:
		for (int i = 0; i < *ndefined; i++)
			if (strcmp((*defined)[i], s->fullname) == 0)
				return json_string(s->fullname);
		*defined = xrealloc(*defined, sizeof **defined * (size_t)(*ndefined + 1));
		(*defined)[(*ndefined)++] = s->fullname;
		j = json_object();
		json_object_set_new(j, "type", json_string(s->kind == AV_RECORD ? "record" : s->kind == AV_ENUM ? "enum" : "fixed"));
		json_object_set_new(j, "name", json_string(s->fullname));
		if (s->naliases)
			json_object_set_new(j, "aliases", aliases_json(s->aliases, s->naliases));
		if (s->kind == AV_RECORD) {
			json_t *fields = json_array();
			for (int i = 0; i < s->nfields; i++) {
				const AvroField *f = &s->fields[i];
				json_t *fj = json_object();
				json_object_set_new(fj, "name", json_string(f->name));
				json_object_set_new(fj, "type", schema_json(f->type, defined, ndefined));
				json_t *def = f->default_json ? json_loads(f->default_json, JSON_DECODE_ANY, NULL) : NULL;
				if (def)
					json_object_set_new(fj, "default", def);
				if (f->naliases)
					json_object_set_new(fj, "aliases", aliases_json(f->aliases, f->naliases));
				json_array_append_new(fields, fj);
			}
			json_object_set_new(j, "fields", fields);
		} else if (s->kind == AV_ENUM) {
			json_t *symbols = json_array();
			for (int i = 0; i < s->nsymbols; i++)
				json_array_append_new(symbols, json_string(s->symbols[i]));
			json_object_set_new(j, "symbols", symbols);
			if (s->enum_default >= 0)
				json_object_set_new(j, "default", json_string(s->symbols[s->enum_default]));
		} else {
			json_object_set_new(j, "size", json_integer(s->size));
		}
		if (logical_name(s->logical))
			json_object_set_new(j, "logicalType", json_string(logical_name(s->logical)));
		return j;
	case AV_ARRAY:
	case AV_MAP:
		j = json_object();
		json_object_set_new(j, "type", json_string(s->kind == AV_ARRAY ? "array" : "map"));
		json_object_set_new(j, s->kind == AV_ARRAY ? "items" : "values", schema_json(s->items, defined, ndefined));
		return j;
	case AV_UNION:
		j = json_array();
		for (int i = 0; i < s->nbranches; i++)
			json_array_append_new(j, schema_json(s->branches[i], defined, ndefined));
		return j;
	}
	return json_null();
}

char *avro_schema_json(const AvroSchema *s)
{
	if (s->source_text)
		return xstrdup(s->source_text);
	const char **defined = NULL;
	int ndefined = 0;
	json_t *j = schema_json(s, &defined, &ndefined);
	char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
	json_decref(j);
	xfree(defined);
	char *out = xstrdup(text);
	free(text);
	return out;
}
