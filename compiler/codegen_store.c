/*
 * codegen_store.c - the store key and value codecs.
 *
 * A state store holds each key in the order-preserving key layout (keys
 * sort like their values) and each value in the compact value layout (see
 * runtime.h).  Both layouts compose the runtime's primitives per type the
 * same way - nullables after a presence byte, record fields in order,
 * arrays element by element - and differ only in the few choices the
 * Codec table below records.  Every helper, writer or reader, of either
 * layout is rendered from that one description:
 *
 *   store_key_T / store_value_put_T        append a T
 *   store_key_get_T / store_value_get_T    read one back from a cursor
 *   store_key_read_T / store_value_read_T  read exactly one from bytes
 *   change_read_T                          a grouped table's change record
 *   store_key_json_T / store_value_json_T  a whole one as JSON (reading a store offline)
 *
 * and the application table's description of each store for reading it
 * offline (emit_store_desc_dump).
 */
#include "codegen_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* The choices that tell the key layout from the value layout. */
typedef struct Codec {
	HelperKind put, get, read; /* its helpers */
	HelperKind json;           /* a whole key or value as JSON, for reading a store offline */
	const char *prefix;        /* runtime primitives: stoat_<prefix>_put_<scalar>, ..._get_... */
	bool counted_arrays;       /* an array: its count, then the elements (else 01 before each, 00 after) */
	bool empty_record_byte;    /* a record without fields is one byte (stoat_<prefix>_put_empty) */
	bool strings_in_arena;     /* a string read back is copied into the arena (unescaped) */
	const char *malformed;     /* what bytes that are not one T are called */
} Codec;

static const Codec key_codec = {
	H_STORE_KEY, H_STORE_KEY_GET, H_STORE_KEY_READ, H_STORE_KEY_JSON, "key", false, false, true, "malformed store key",
};
static const Codec value_codec = {
	H_STORE_VALUE_PUT, H_STORE_VALUE_GET, H_STORE_VALUE_READ, H_STORE_VALUE_JSON, "val", true, true, false,
	"malformed stored value",
};

/* The codec a store helper kind belongs to, or NULL. */
static const Codec *codec_of(HelperKind kind)
{
	if (kind == H_STORE_KEY || kind == H_STORE_KEY_GET || kind == H_STORE_KEY_READ || kind == H_STORE_KEY_JSON)
		return &key_codec;
	if (kind == H_STORE_VALUE_PUT || kind == H_STORE_VALUE_GET || kind == H_STORE_VALUE_READ || kind == H_CHANGE_READ ||
	    kind == H_STORE_VALUE_JSON)
		return &value_codec;
	return NULL;
}

/* Whether kind is one of this file's helpers. */
bool store_helper(HelperKind kind)
{
	return codec_of(kind) != NULL;
}

/* Whether reading a t back in codec c needs the context (for the arena). */
static bool get_uses_cx(const Codec *c, Type *t)
{
	return !type_is_scalar(t) || (c->strings_in_arena && (t->kind == TY_STRING || t->kind == TY_BYTES));
}

/* The call appending the t at lvalue x (inline for scalars). */
static char *put_call(const Codec *c, Type *t, const char *x)
{
	const char *s = type_runtime_scalar(t);
	if (s)
		return xasprintf("stoat_%s_put_%s(b, %s)", c->prefix, s, x);
	return xasprintf("%s(b, &%s)", helper_name(c->put, t, FMT_JSON), x);
}

/* The call reading a t from reader (a stoat_val_reader *) into *dst; true on success. */
static char *get_call(const Codec *c, Type *t, const char *reader, const char *dst)
{
	const char *s = type_runtime_scalar(t);
	if (!s)
		return xasprintf("%s(cx, %s, %s)", helper_name(c->get, t, FMT_JSON), reader, dst);
	if (c->strings_in_arena && (t->kind == TY_STRING || t->kind == TY_BYTES))
		return xasprintf("stoat_%s_get_%s(%s, &cx->arena, %s)", c->prefix, s, reader, dst);
	return xasprintf("stoat_%s_get_%s(%s, %s)", c->prefix, s, reader, dst);
}

/* Statements appending the t at x. */
static void put_value(Printer *p, const Codec *c, Type *t, const char *x)
{
	pr(p, "%s;\n", put_call(c, t, x));
}

/* Statements reading a t from r into lvalue x, returning false on bad bytes. */
static void get_value(Printer *p, const Codec *c, Type *t, const char *x)
{
	pr(p, "if (!%s)\n", get_call(c, t, "r", xasprintf("&%s", x)));
	pr_nested(p, "return false;\n");
}

/* The writer of a composite t: the layout, appending. */
static void define_put(Printer *p, const Codec *c, Type *t)
{
	pr(p, "static void %s(stoat_buf *b, const %s *v)\n{\n", helper_name(c->put, t, FMT_JSON), type_c(t));
	pr_indent(p);
	switch (t->kind) {
	case TY_NULLABLE:
		pr(p, "stoat_%s_put_presence(b, v->has);\nif (v->has) {\n", c->prefix);
		pr_indent(p);
		put_value(p, c, t->elem, "v->v");
		pr_dedent(p);
		pr(p, "}\n");
		break;
	case TY_ARRAY:
		if (c->counted_arrays)
			pr(p, "stoat_%s_put_count(b, v->len);\n", c->prefix);
		pr(p, "for (size_t i = 0; i < v->len; i++) {\n");
		pr_indent(p);
		if (!c->counted_arrays)
			pr(p, "stoat_buf_putc(b, 1);\n");
		put_value(p, c, t->elem, "v->items[i]");
		pr_dedent(p);
		pr(p, "}\n");
		if (!c->counted_arrays)
			pr(p, "stoat_buf_putc(b, 0);\n");
		break;
	case TY_RECORD:
		for (int f = 0; f < t->rec->nfields; f++)
			put_value(p, c, t->rec->fields[f].type, xasprintf("v->%s", c_field(t->rec->fields[f].name)));
		if (t->rec->nfields == 0 && c->empty_record_byte)
			pr(p, "(void)v;\nstoat_%s_put_empty(b);\n", c->prefix);
		else if (t->rec->nfields == 0)
			pr(p, "(void)b;\n(void)v;\n");
		break;
	default:
		put_value(p, c, t, "*v");
	}
	pr_dedent(p);
	pr(p, "}\n\n");
}

/* The reader of a composite t from a cursor: the same layout, read back. */
static void define_get(Printer *p, const Codec *c, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_val_reader *r, %s *out)\n{\n", helper_name(c->get, t, FMT_JSON),
	   type_c(t));
	pr_indent(p);
	switch (t->kind) {
	case TY_NULLABLE:
		if (!get_uses_cx(c, t->elem))
			pr(p, "(void)cx;\n");
		pr(p, "memset(out, 0, sizeof *out);\n");
		pr(p, "if (!stoat_%s_get_presence(r, &out->has))\n", c->prefix);
		pr_nested(p, "return false;\n");
		pr(p, "if (!out->has)\n");
		pr_nested(p, "return true;\n");
		get_value(p, c, t->elem, "out->v");
		break;
	case TY_ARRAY:
		if (c->counted_arrays) {
			pr(p, "size_t n;\nif (!stoat_%s_get_count(r, &n))\n", c->prefix);
			pr_nested(p, "return false;\n");
			pr(p, "%s *items = n ? stoat_arena_alloc(&cx->arena, n * sizeof *items) : NULL;\n", type_c(t->elem));
			pr(p, "for (size_t i = 0; i < n; i++) {\n");
			pr_indent(p);
			get_value(p, c, t->elem, "items[i]");
			pr_dedent(p);
			pr(p, "}\nout->items = items;\nout->len = n;\n");
		} else {
			pr(p, "stoat_vec vec = { NULL, 0, 0 };\n");
			pr(p, "for (;;) {\n");
			pr_indent(p);
			pr(p, "bool more;\nif (!stoat_%s_get_array_next(r, &more))\n", c->prefix);
			pr_nested(p, "return false;\n");
			pr(p, "if (!more)\n");
			pr_nested(p, "break;\n");
			pr(p, "%s *item = stoat_vec_push(&cx->arena, &vec, sizeof *item);\n", type_c(t->elem));
			get_value(p, c, t->elem, "item[0]");
			pr_dedent(p);
			pr(p, "}\nout->items = vec.data;\nout->len = vec.len;\n");
		}
		break;
	case TY_RECORD: {
		bool uses_cx = false;
		for (int f = 0; f < t->rec->nfields; f++)
			uses_cx |= get_uses_cx(c, t->rec->fields[f].type);
		if (!uses_cx)
			pr(p, "(void)cx;\n");
		if (t->rec->nfields == 0 && c->empty_record_byte) {
			pr(p, "(void)out;\n");
			pr(p, "if (!stoat_%s_get_empty(r))\n", c->prefix);
			pr_nested(p, "return false;\n");
		} else if (t->rec->nfields == 0) {
			pr(p, "(void)r;\n(void)out;\n");
		}
		for (int f = 0; f < t->rec->nfields; f++)
			get_value(p, c, t->rec->fields[f].type, xasprintf("out->%s", c_field(t->rec->fields[f].name)));
		break;
	}
	default:
		break;
	}
	pr(p, "return true;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
}

/*
 * Reads exactly one t from bytes (a flush function's update key, or a
 * stored value); bytes that are not one value (cut short, or left over)
 * are a per-record error.
 */
static void define_read(Printer *p, const Codec *c, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_str bytes, %s *out)\n{\n", helper_name(c->read, t, FMT_JSON),
	   type_c(t));
	pr_indent(p);
	pr(p, "stoat_val_reader r = stoat_val_reader_of(bytes);\n");
	pr(p, "if (%s && stoat_val_end(&r))\n", get_call(c, t, "&r", "out"));
	pr_nested(p, "return true;\n");
	pr(p, "stoat_error(cx, \"%s (%%zu bytes) for the type %s\", bytes.len);\n", c->malformed, type_str(t));
	pr(p, "return false;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
}

/*
 * Reads a grouped table's change back from its internal topic: the flags
 * byte, then the value to subtract and the value to add, each present
 * when its flag is set (see codegen_table.c:emit_change_record).
 */
static void define_change_read(Printer *p, Type *t)
{
	const Codec *c = &value_codec;
	const char *ot = type_c(ty_nullable(t));
	pr(p, "static bool %s(stoat_ctx *cx, stoat_str bytes, %s *sub, %s *add)\n{\n",
	   helper_name(H_CHANGE_READ, t, FMT_JSON), ot, ot);
	pr_indent(p);
	pr(p, "stoat_val_reader r = stoat_val_reader_of(bytes);\nunsigned flags;\n");
	pr(p, "memset(sub, 0, sizeof *sub);\nmemset(add, 0, sizeof *add);\n");
	pr(p, "if (!stoat_change_get_flags(&r, &flags))\n");
	pr_nested(p, "goto bad;\n");
	const char *outs[2] = { "sub", "add" }, *flags[2] = { "STOAT_CHANGE_OLD", "STOAT_CHANGE_NEW" };
	for (int i = 0; i < 2; i++) {
		pr(p, "if (flags & %s) {\n", flags[i]);
		pr_indent(p);
		pr(p, "%s->has = true;\n", outs[i]);
		pr(p, "if (!%s)\n", get_call(c, t, "&r", xasprintf("&%s->v", outs[i])));
		pr_nested(p, "goto bad;\n");
		pr_dedent(p);
		pr(p, "}\n");
	}
	pr(p, "if (stoat_val_end(&r))\n");
	pr_nested(p, "return true;\n");
	pr_dedent(p);
	pr(p, "bad:\n");
	pr_indent(p);
	pr(p, "stoat_error(cx, \"malformed change record (%%zu bytes) for the type %s\", bytes.len);\n", type_str(t));
	pr(p, "return false;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
}

/*
 * A whole key or value of a store as JSON (a stoat_store_json_fn of the
 * application table): read back as the pipelines read it, written as the
 * JSON format writes it.  Only `store dump` and `dump` of a changelog
 * call it, never a pipeline.
 */
static void define_json(Printer *p, const Codec *c, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_str bytes, stoat_buf *out)\n{\n", helper_name(c->json, t, FMT_JSON));
	pr_indent(p);
	pr(p, "%s v;\n", type_c(t));
	pr(p, "return %s(cx, bytes, &v) && %s(cx, out, &v);\n", helper_name(c->read, t, FMT_JSON),
	   helper_name(H_JSON_WRITE, t, FMT_JSON));
	pr_dedent(p);
	pr(p, "}\n\n");
}

/*
 * The key and value types of store i's entries, when they have one each
 * (a table's store: its key and value; a windowed aggregation's: the
 * record key inside the window, and the aggregate after the window's
 * timestamp); false for a join's own stores and a versioned table's
 * versions, which hold entries of several shapes.
 */
static bool store_entry_types(const Topology *t, int i, Type **key, Type **value)
{
	const Store *st = &t->stores[i];
	IrNode *n = st->node;
	if (!n->has_store || n->store != i || st->versions)
		return false;
	*key = st->window ? n->key->rec->fields[0].type : n->key;
	*value = n->val;
	return true;
}

/* Registers the JSON functions of every store's keys and values, which the application table names. */
void need_store_json(Gen *g)
{
	for (int i = 0; i < g->topo->nstores; i++) {
		Type *k, *v;
		if (store_entry_types(g->topo, i, &k, &v)) {
			need(g, H_STORE_KEY_JSON, k, FMT_JSON);
			need(g, H_STORE_VALUE_JSON, v, FMT_JSON);
		}
	}
}

/* What store i is, for `store list`: "table", the window, or which join's store. */
static const char *store_what(const Topology *t, int i)
{
	const Store *st = &t->stores[i];
	IrNode *n = st->node;
	if (st->versions)
		return "versions of a versioned table";
	if (n->has_store && n->store == i)
		return st->window ? window_text(n->window) : st->global ? "global table" : "table";
	if (n->kind == IR_JOIN && n->join->kind == JOIN_FOREIGN_KEY)
		return "foreign-key join subscriptions";
	if (n->kind == IR_JOIN && n->join->kind == JOIN_STREAM_TABLE)
		return "stream-table join grace buffer";
	if (n->kind == IR_JOIN && n->join->store != i)
		return "stream-stream join unmatched records";
	return "stream-stream join side";
}

/* The fields of store i's stoat_store_desc for reading it offline: what it is, its types and JSON functions. */
void emit_store_desc_dump(Gen *g, Printer *p, int i)
{
	const char *what = store_what(g->topo, i);
	pr(p, ", .what = %s", c_string(what, strlen(what)));
	Type *k, *v;
	if (!store_entry_types(g->topo, i, &k, &v))
		return;
	pr(p, ", .key_type = %s, .value_type = %s", c_string(type_str(k), strlen(type_str(k))),
	   c_string(type_str(v), strlen(type_str(v))));
	pr(p, ", .key_json = %s, .value_json = %s", helper_name(H_STORE_KEY_JSON, k, FMT_JSON),
	   helper_name(H_STORE_VALUE_JSON, v, FMT_JSON));
}

/* Registers the helpers a store helper of kind for t calls. */
void store_helper_needs(Gen *g, HelperKind kind, Type *t)
{
	const Codec *c = codec_of(kind);
	assert(c);
	if (kind == c->json) {
		need(g, c->read, t, FMT_JSON);
		need(g, H_JSON_WRITE, t, FMT_JSON);
		return;
	}
	if (kind == c->read || kind == H_CHANGE_READ) {
		if (!type_is_scalar(t))
			need(g, c->get, t, FMT_JSON);
		return;
	}
	/* Writers and readers inline scalars and call a helper per composite. */
	if ((t->kind == TY_NULLABLE || t->kind == TY_ARRAY) && !type_is_scalar(t->elem))
		need(g, kind, t->elem, FMT_JSON);
	if (t->kind == TY_RECORD)
		for (int i = 0; i < t->rec->nfields; i++)
			if (!type_is_scalar(t->rec->fields[i].type))
				need(g, kind, t->rec->fields[i].type, FMT_JSON);
}

/* The prototype of a store helper that others may call before its definition. */
void store_helper_declare(Printer *p, HelperKind kind, Type *t)
{
	const Codec *c = codec_of(kind);
	assert(c);
	if (kind == c->put)
		pr(p, "static void %s(stoat_buf *b, const %s *v);\n", helper_name(kind, t, FMT_JSON), type_c(t));
	else if (kind == c->get)
		pr(p, "static bool %s(stoat_ctx *cx, stoat_val_reader *r, %s *out);\n", helper_name(kind, t, FMT_JSON),
		   type_c(t));
}

/* Whether store helpers of kind are declared ahead (they call each other). */
bool store_helper_declared(HelperKind kind)
{
	const Codec *c = codec_of(kind);
	return c && (kind == c->put || kind == c->get);
}

/* The definition of a store helper. */
void store_helper_define(Printer *p, HelperKind kind, Type *t)
{
	const Codec *c = codec_of(kind);
	assert(c);
	if (kind == H_CHANGE_READ)
		define_change_read(p, t);
	else if (kind == c->json)
		define_json(p, c, t);
	else if (kind == c->put)
		define_put(p, c, t);
	else if (kind == c->get)
		define_get(p, c, t);
	else
		define_read(p, c, t);
}
