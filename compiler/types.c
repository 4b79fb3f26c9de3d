/*
 * types.c - interned types, record shapes and their C names.
 */
#include "types.h"

#include <stdio.h>
#include <string.h>

Type *ty_error, *ty_null, *ty_bool, *ty_i32, *ty_i64, *ty_f64, *ty_string, *ty_bytes,
	*ty_timestamp, *ty_duration;

/*
 * Interned composite types, and their index by shape (open addressing,
 * at most half full): a program with thousands of types interns one per
 * record, array and nullable it names, so a list scan was quadratic.
 */
static Type **composites;
static int ncomposites, capcomposites;
static Type **composite_index;
static int capcomposite_index;

static Record **records;
static int nrecords, caprecords;
/* The anonymous records by shape (names and types of the fields, in order), likewise. */
static Record **anon_index;
static int nanon, capanon_index;
/* The windowed<K> records made so far: few key types are windowed in one program, so a list. */
static Record **windowed_records;
static int nwindowed, capwindowed;

static const char *c_safe_type_name(const char *name);

static Type *type_new(TypeKind kind)
{
	Type *t = xcalloc(1, sizeof *t);
	t->kind = kind;
	return t;
}

void types_init(void)
{
	composites = NULL;
	ncomposites = capcomposites = 0;
	composite_index = NULL;
	capcomposite_index = 0;
	records = NULL;
	nrecords = caprecords = 0;
	anon_index = NULL;
	nanon = capanon_index = 0;
	windowed_records = NULL;
	nwindowed = capwindowed = 0;
	ty_error = type_new(TY_ERROR);
	ty_null = type_new(TY_NULL);
	ty_bool = type_new(TY_BOOL);
	ty_i32 = type_new(TY_I32);
	ty_i64 = type_new(TY_I64);
	ty_f64 = type_new(TY_F64);
	ty_string = type_new(TY_STRING);
	ty_bytes = type_new(TY_BYTES);
	ty_timestamp = type_new(TY_TIMESTAMP);
	ty_duration = type_new(TY_DURATION);
}

/* Mixes a pointer or a number into hash h (FNV-1a over its bytes). */
static size_t mix(size_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211u;
	return h;
}

/* The hash of a composite type's shape (only for the index: nothing depends on its value's order). */
static size_t shape_hash(TypeKind kind, Type *elem, Type *key, Type *val, Record *rec)
{
	size_t h = mix(14695981039346656037u, &kind, sizeof kind);
	h = mix(h, &elem, sizeof elem);
	h = mix(h, &key, sizeof key);
	h = mix(h, &val, sizeof val);
	return mix(h, &rec, sizeof rec);
}

/* Puts t in composite_index's first free slot after its hash. */
static void index_composite(Type *t)
{
	size_t mask = (size_t)capcomposite_index - 1;
	size_t i = shape_hash(t->kind, t->elem, t->key, t->val, t->rec) & mask;
	while (composite_index[i])
		i = (i + 1) & mask;
	composite_index[i] = t;
}

static Type *intern(TypeKind kind, Type *elem, Type *key, Type *val, Record *rec)
{
	if (capcomposite_index) {
		size_t mask = (size_t)capcomposite_index - 1;
		for (size_t i = shape_hash(kind, elem, key, val, rec) & mask; composite_index[i]; i = (i + 1) & mask) {
			Type *t = composite_index[i];
			if (t->kind == kind && t->elem == elem && t->key == key && t->val == val && t->rec == rec)
				return t;
		}
	}
	Type *t = type_new(kind);
	t->elem = elem;
	t->key = key;
	t->val = val;
	t->rec = rec;
	if (ncomposites == capcomposites) {
		capcomposites = capcomposites ? capcomposites * 2 : 32;
		composites = xrealloc(composites, sizeof *composites * (size_t)capcomposites);
	}
	composites[ncomposites++] = t;
	if (2 * ncomposites > capcomposite_index) {
		xfree(composite_index);
		capcomposite_index = capcomposite_index ? capcomposite_index * 2 : 64;
		composite_index = xcalloc((size_t)capcomposite_index, sizeof *composite_index);
		for (int i = 0; i < ncomposites; i++)
			index_composite(composites[i]);
	} else {
		index_composite(t);
	}
	return t;
}

Type *ty_array(Type *elem)
{
	if (elem->kind == TY_ERROR)
		return ty_error;
	return intern(TY_ARRAY, elem, NULL, NULL, NULL);
}

Type *ty_nullable(Type *elem)
{
	if (elem->kind == TY_NULLABLE || elem->kind == TY_ERROR || elem->kind == TY_NULL)
		return elem;
	return intern(TY_NULLABLE, elem, NULL, NULL, NULL);
}

Type *ty_pair(Type *key, Type *val)
{
	return intern(TY_PAIR, NULL, key, val, NULL);
}

Type *ty_record(Record *rec)
{
	return intern(TY_RECORD, NULL, NULL, NULL, rec);
}

/* The windowed<K> or session_windowed<K> record of key, made on first use. */
static Type *windowed_of(Type *key, bool session)
{
	for (int i = 0; i < nwindowed; i++)
		if (windowed_records[i]->fields[0].type == key && windowed_records[i]->session == session)
			return ty_record(windowed_records[i]);
	Record *r = record_new(xasprintf("%swindowed_%s", session ? "session_" : "", type_mangle(key)), (Span){ 0 }, true);
	r->windowed = true;
	r->session = session;
	r->resolved = true;
	r->nfields = 3;
	r->fields = xcalloc(3, sizeof *r->fields);
	r->fields[0] = (Field){ .name = xstrdup("key"), .type = key };
	r->fields[1] = (Field){ .name = xstrdup("start"), .type = ty_timestamp };
	r->fields[2] = (Field){ .name = xstrdup("end"), .type = ty_timestamp };
	if (nwindowed == capwindowed) {
		capwindowed = capwindowed ? capwindowed * 2 : 8;
		windowed_records = xrealloc(windowed_records, sizeof *windowed_records * (size_t)capwindowed);
	}
	windowed_records[nwindowed++] = r;
	return ty_record(r);
}

/* See types.h. */
Type *ty_windowed(Type *key)
{
	return windowed_of(key, false);
}

/* See types.h. */
Type *ty_session_windowed(Type *key)
{
	return windowed_of(key, true);
}

Record **all_records(int *count)
{
	*count = nrecords;
	return records;
}

Record *record_new(const char *name, Span span, bool anonymous)
{
	Record *r = xcalloc(1, sizeof *r);
	r->name = xstrdup(name);
	r->span = span;
	r->anonymous = anonymous;
	r->id = nrecords;
	if (nrecords == caprecords) {
		caprecords = caprecords ? caprecords * 2 : 16;
		records = xrealloc(records, sizeof *records * (size_t)caprecords);
	}
	records[nrecords++] = r;
	return r;
}

/* FNV-1a of a name. */
static size_t name_hash(const char *name)
{
	return mix(14695981039346656037u, name, strlen(name));
}

/*
 * The field called name, or NULL.  A record of many fields gets an index
 * by name the first time (rebuilt if its fields changed count, as when
 * sema resolves them), so that a literal or a type of thousands of fields
 * is checked in linear time; a small one is scanned.
 */
Field *record_field(Record *rec, const char *name)
{
	enum { SCAN_FIELDS = 16 };
	if (rec->nfields <= SCAN_FIELDS) {
		for (int i = 0; i < rec->nfields; i++)
			if (strcmp(rec->fields[i].name, name) == 0)
				return &rec->fields[i];
		return NULL;
	}
	if (rec->indexed_nfields != rec->nfields) {
		xfree(rec->field_index);
		int cap = 64;
		while (cap < 2 * rec->nfields)
			cap *= 2;
		rec->field_index = xcalloc((size_t)cap, sizeof *rec->field_index);
		rec->capfield_index = cap;
		rec->indexed_nfields = rec->nfields;
		for (int f = 0; f < rec->nfields; f++) {
			size_t i = name_hash(rec->fields[f].name) & (size_t)(cap - 1);
			while (rec->field_index[i])
				i = (i + 1) & (size_t)(cap - 1);
			rec->field_index[i] = f + 1;
		}
	}
	size_t mask = (size_t)rec->capfield_index - 1;
	for (size_t i = name_hash(name) & mask; rec->field_index[i]; i = (i + 1) & mask) {
		Field *f = &rec->fields[rec->field_index[i] - 1];
		if (strcmp(f->name, name) == 0)
			return f; /* the first of that name: duplicates come after it in the index */
	}
	return NULL;
}

/* The hash of a record shape: its fields' names and types, in order. */
static size_t fields_hash(const Field *fields, int nfields)
{
	size_t h = mix(14695981039346656037u, &nfields, sizeof nfields);
	for (int f = 0; f < nfields; f++) {
		h = mix(h, fields[f].name, strlen(fields[f].name) + 1);
		h = mix(h, &fields[f].type, sizeof fields[f].type);
	}
	return h;
}

/* Puts the anonymous record r in anon_index's first free slot after its hash. */
static void index_anon(Record *r)
{
	size_t mask = (size_t)capanon_index - 1;
	size_t i = fields_hash(r->fields, r->nfields) & mask;
	while (anon_index[i])
		i = (i + 1) & mask;
	anon_index[i] = r;
}

/* The anonymous record type of that shape: the one made before, or a new anon_N. */
Type *anon_record(Field *fields, int nfields, Span span)
{
	if (capanon_index) {
		size_t mask = (size_t)capanon_index - 1;
		for (size_t i = fields_hash(fields, nfields) & mask; anon_index[i]; i = (i + 1) & mask) {
			Record *r = anon_index[i];
			if (r->nfields != nfields)
				continue;
			bool same = true;
			for (int f = 0; f < nfields && same; f++)
				same = strcmp(r->fields[f].name, fields[f].name) == 0 && r->fields[f].type == fields[f].type;
			if (same)
				return ty_record(r);
		}
	}
	char name[32];
	snprintf(name, sizeof name, "anon_%d", nanon);
	Record *r = record_new(name, span, true);
	r->fields = xcalloc((size_t)nfields, sizeof *r->fields);
	memcpy(r->fields, fields, sizeof *fields * (size_t)nfields);
	r->nfields = nfields;
	r->resolved = true;
	nanon++;
	if (2 * nanon > capanon_index) {
		xfree(anon_index);
		capanon_index = capanon_index ? capanon_index * 2 : 64;
		anon_index = xcalloc((size_t)capanon_index, sizeof *anon_index);
		for (int i = 0; i < nrecords; i++)
			if (records[i]->anonymous)
				index_anon(records[i]);
	} else {
		index_anon(r);
	}
	return ty_record(r);
}

bool type_is_int(const Type *t)
{
	return t->kind == TY_I32 || t->kind == TY_I64;
}

bool type_is_numeric(const Type *t)
{
	return type_is_int(t) || t->kind == TY_F64;
}

bool type_is_scalar(const Type *t)
{
	switch (t->kind) {
	case TY_BOOL: case TY_I32: case TY_I64: case TY_F64: case TY_STRING:
	case TY_BYTES: case TY_TIMESTAMP: case TY_DURATION:
		return true;
	default:
		return false;
	}
}

Type *type_strip(Type *t)
{
	return t->kind == TY_NULLABLE ? t->elem : t;
}

const char *type_str(Type *t)
{
	if (t->display)
		return t->display;
	switch (t->kind) {
	case TY_ERROR: return "<error>";
	case TY_NULL: return "null";
	case TY_BOOL: return "bool";
	case TY_I32: return "i32";
	case TY_I64: return "i64";
	case TY_F64: return "f64";
	case TY_STRING: return "string";
	case TY_BYTES: return "bytes";
	case TY_TIMESTAMP: return "timestamp";
	case TY_DURATION: return "duration";
	case TY_RECORD:
		if (t->rec->windowed) {
			t->display = xasprintf("%swindowed<%s>", t->rec->session ? "session_" : "",
			                       type_str(t->rec->fields[0].type));
		} else if (t->rec->anonymous) {
			size_t cap = 64, len = 0;
			char *s = xmalloc(cap);
			len += (size_t)snprintf(s, cap, "{");
			for (int i = 0; i < t->rec->nfields; i++) {
				const char *fs = type_str(t->rec->fields[i].type);
				size_t need = len + strlen(t->rec->fields[i].name) + strlen(fs) + 8;
				if (need > cap)
					s = xrealloc(s, cap = need * 2);
				len += (size_t)snprintf(s + len, cap - len, "%s%s: %s", i ? ", " : " ",
				                        t->rec->fields[i].name, fs);
			}
			if (len + 4 > cap)
				s = xrealloc(s, cap = len + 4);
			snprintf(s + len, cap - len, " }");
			t->display = s;
		} else {
			t->display = t->rec->name;
		}
		break;
	case TY_ARRAY: t->display = xasprintf("[%s]", type_str(t->elem)); break;
	case TY_NULLABLE: t->display = xasprintf("%s?", type_str(t->elem)); break;
	case TY_PAIR: t->display = xasprintf("(%s, %s)", type_str(t->key), type_str(t->val)); break;
	}
	return t->display;
}

const char *type_mangle(Type *t)
{
	if (t->mangled)
		return t->mangled;
	switch (t->kind) {
	case TY_ERROR: case TY_NULL: return "error";
	case TY_BOOL: return "bool";
	case TY_I32: return "i32";
	case TY_I64: return "i64";
	case TY_F64: return "f64";
	case TY_STRING: return "str";
	case TY_BYTES: return "bytes";
	case TY_TIMESTAMP: return "timestamp";
	case TY_DURATION: return "duration";
	case TY_RECORD: t->mangled = t->rec->anonymous ? t->rec->name : (char *)c_safe_type_name(t->rec->name); break;
	case TY_ARRAY: t->mangled = xasprintf("arr_%s", type_mangle(t->elem)); break;
	case TY_NULLABLE: t->mangled = xasprintf("opt_%s", type_mangle(t->elem)); break;
	case TY_PAIR: t->mangled = xasprintf("pair_%s_%s", type_mangle(t->key), type_mangle(t->val)); break;
	}
	return t->mangled;
}

/*
 * The runtime's name for a scalar type, or NULL: the suffix of its arrays
 * and nullables (stoat_arr_i64, stoat_opt_str) and of the store layouts'
 * stoat_val_* / stoat_key_* functions.
 */
const char *type_runtime_scalar(const Type *t)
{
	switch (t->kind) {
	case TY_BOOL: return "bool";
	case TY_I32: return "i32";
	case TY_I64: case TY_TIMESTAMP: case TY_DURATION: return "i64";
	case TY_F64: return "f64";
	case TY_STRING: case TY_BYTES: return "str";
	default: return NULL;
	}
}

const char *type_c(Type *t)
{
	if (t->c_name)
		return t->c_name;
	switch (t->kind) {
	case TY_ERROR: case TY_NULL: return "int";
	case TY_BOOL: return "bool";
	case TY_I32: return "int32_t";
	case TY_I64: case TY_TIMESTAMP: case TY_DURATION: return "int64_t";
	case TY_F64: return "double";
	case TY_STRING: case TY_BYTES: return "stoat_str";
	case TY_RECORD: t->c_name = t->rec->anonymous ? t->rec->name : (char *)c_safe_type_name(t->rec->name); break;
	case TY_ARRAY: {
		const char *s = type_runtime_scalar(t->elem);
		t->c_name = s ? xasprintf("stoat_arr_%s", s) : xasprintf("arr_%s", type_mangle(t->elem));
		break;
	}
	case TY_NULLABLE: {
		const char *s = type_runtime_scalar(t->elem);
		t->c_name = s ? xasprintf("stoat_opt_%s", s) : xasprintf("opt_%s", type_mangle(t->elem));
		break;
	}
	case TY_PAIR: t->c_name = xasprintf("%s", type_mangle(t)); break;
	}
	return t->c_name;
}

/* Names that would clash with C, the headers it includes, or generated code. */
static bool c_unsafe(const char *name)
{
	static const char *words[] = {
		"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
		"else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
		"register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
		"switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true",
		"false", "main", "errno", "assert", "offsetof", "alignas", "alignof", "noreturn",
		"static_assert", "thread_local", "complex", "imaginary", "stdin", "stdout", "stderr",
		"memcmp", "memset", "memcpy",
	};
	static const char *prefixes[] = {
		"stoat_", "STOAT_", "anon_", "arr_", "opt_", "pair_", "pipeline_", "segment_",
		"json_read_", "json_write_", "decode_", "encode_", "index_", "get_", "app_",
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(name, words[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	if (name[0] == '_')
		return true; /* reserved: _Bool, __func__, ... */
	size_t len = strlen(name);
	if (len >= 2 && strcmp(name + len - 2, "_t") == 0)
		return true; /* size_t, int64_t, ... (POSIX reserves *_t) */
	/* Macro-like: SIZE_MAX, INT32_MAX, INT64_C, and a few without '_'. */
	static const char *macros[] = { "NULL", "EOF", "BUFSIZ", "NAN", "INFINITY", "HUGE_VAL" };
	bool has_lower = false;
	for (const char *p = name; *p; p++)
		has_lower |= *p >= 'a' && *p <= 'z';
	if (!has_lower && strchr(name, '_'))
		return true;
	for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++)
		if (strcmp(name, macros[i]) == 0)
			return true;
	return false;
}

const char *c_safe_name(const char *name)
{
	return c_unsafe(name) ? xasprintf("%s_", name) : name;
}

/*
 * Type names share the scope of generated locals too (cx, m, msgs, n, i,
 * key_bytes, and t0, k1, v2, i3 ...), which a typedef must not hide.
 */
static const char *c_safe_type_name(const char *name)
{
	static const char *locals[] = { "cx", "m", "msgs", "n", "i", "j", "b", "v", "out", "first", "name",
	                                "seen", "vec", "item", "bytes", "what", "zero", "a", "r", "key_bytes",
	                                "value_bytes", "raw_key", "raw_value", "str", "key", "old_v", "new_v" };
	for (size_t i = 0; i < sizeof locals / sizeof locals[0]; i++)
		if (strcmp(name, locals[i]) == 0)
			return xasprintf("%s_", name);
	/*
	 * Helper names append a type's name to a prefix (store_key_<T>,
	 * store_key_get_<T>), and after_<store> and flush_<store> are functions.
	 */
	static const char *prefixes[] = { "put_", "read_", "store_", "change_", "after_", "flush_" };
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return xasprintf("%s_", name);
	if (strchr("tkvi", name[0]) && name[1]) {
		const char *p = name + 1;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p)
			return xasprintf("%s_", name);
	}
	return c_safe_name(name);
}
