/*
 * codegen_serde.c - the helpers: JSON readers and writers, decoders and
 * encoders per format, bounds-checked indexing.
 *
 * Emitting a pipeline registers what it calls (need()); once every
 * pipeline is emitted, emit_helpers() writes the registered helpers, in a
 * fixed order of kinds and then of registration, so the same program gives
 * the same bytes.  The store codecs are in codegen_store.c.
 */
#include "codegen_int.h"

#include <stdio.h>
#include <string.h>

static const char *helper_prefix[H_COUNT] = {
	"json_read", "json_write", "decode", "encode", "index", "get", "store_key", "store_key_get",
	"store_key_read", "store_value_put", "store_value_get", "store_value_read", "change_read",
	"store_key_json", "store_value_json", "avro_read", "avro_write",
};

/* The C name of a helper: its kind, the format for serdes, the type. */
char *helper_name(HelperKind kind, Type *t, Format f)
{
	if (kind == H_DECODE || kind == H_ENCODE)
		return xasprintf("%s_%s_%s", helper_prefix[kind], format_name(f), type_mangle(t));
	return xasprintf("%s_%s", helper_prefix[kind], type_mangle(t));
}

/* Registers a helper (and the helpers it calls); returns its name. */
char *need(Gen *g, HelperKind kind, Type *t, Format f)
{
	for (int i = 0; i < g->nhelpers; i++)
		if (g->helpers[i].kind == kind && g->helpers[i].type == t &&
		    ((kind != H_DECODE && kind != H_ENCODE) || g->helpers[i].format == f))
			return helper_name(kind, t, f);
	/* A windowed key in a binary format calls its inner key's encoder, defined first. */
	if (kind == H_ENCODE && f != FMT_JSON && type_strip(t)->kind == TY_RECORD && type_strip(t)->rec->windowed)
		need(g, H_ENCODE, type_strip(t)->rec->fields[0].type, f);
	g->helpers = xrealloc(g->helpers, sizeof *g->helpers * (size_t)(g->nhelpers + 1));
	g->helpers[g->nhelpers++] = (Helper){ kind, t, f };
	/* Dependencies. */
	if (kind == H_DECODE && f == FMT_JSON)
		need(g, H_JSON_READ, t, f); /* a nullable reader also takes JSON null */
	if (kind == H_ENCODE && f == FMT_JSON)
		need(g, H_JSON_WRITE, type_strip(t), f);
	if ((kind == H_DECODE || kind == H_ENCODE) && (f == FMT_AVRO_RAW || f == FMT_AVRO)) {
		Type *s = type_strip(t);
		if (s->kind == TY_RECORD && s->rec->windowed)
			s = s->rec->fields[0].type; /* the inner key's bytes, then the window's (emit_encode) */
		if (kind == H_DECODE)
			need(g, H_AVRO_READ, type_strip(t), f);
		else if (s == type_strip(t))
			need(g, H_AVRO_WRITE, s, f);
	}
	if (kind == H_AVRO_READ || kind == H_AVRO_WRITE)
		avro_helper_needs(g, kind, t);
	if (store_helper(kind))
		store_helper_needs(g, kind, t);
	if (kind == H_JSON_READ || kind == H_JSON_WRITE) {
		/* Writers inline scalars; readers call a reader per type. */
		bool all = kind == H_JSON_READ;
		if ((t->kind == TY_NULLABLE || t->kind == TY_ARRAY) && (all || !type_is_scalar(t->elem)))
			need(g, kind, t->elem, f);
		if (t->kind == TY_RECORD)
			for (int i = 0; i < t->rec->nfields; i++)
				if (all || !type_is_scalar(t->rec->fields[i].type))
					need(g, kind, t->rec->fields[i].type, f);
	}
	return helper_name(kind, t, f);
}

/*
 * The body of a record's JSON reader: fields in any order, found by a
 * switch on the name's length and then a comparison; unknown fields are
 * skipped; a missing field that is not nullable is an error.
 */
static void json_read_record(Printer *p, Record *r)
{
	int nf = r->nfields;
	pr(p, "bool first = true;\nstoat_str name;\n");
	if (nf)
		pr(p, "bool seen[%d] = { false };\n", nf);
	pr(p, "memset(out, 0, sizeof *out);\n");
	pr(p, "if (!stoat_json_object_begin(j))\n");
	pr_nested(p, "return false;\n");
	pr(p, "while (stoat_json_object_next(j, &first, &name)) {\n");
	pr_indent(p);
	if (nf) {
		pr(p, "switch (name.len) {\n");
		size_t *lens = xcalloc((size_t)nf, sizeof *lens);
		for (int i = 0; i < nf; i++)
			lens[i] = strlen(r->fields[i].name);
		for (int i = 0; i < nf; i++) {
			bool dup = false;
			for (int j = 0; j < i; j++)
				dup |= lens[j] == lens[i];
			if (dup)
				continue;
			pr(p, "case %zu:\n", lens[i]);
			pr_indent(p);
			for (int f = i; f < nf; f++) {
				if (lens[f] != lens[i])
					continue;
				pr(p, "if (memcmp(name.ptr, \"%s\", %zu) == 0) {\n", r->fields[f].name, lens[f]);
				pr_indent(p);
				pr(p, "if (!%s(j, &out->%s))\n", helper_name(H_JSON_READ, r->fields[f].type, FMT_JSON),
				   c_field(r->fields[f].name));
				pr_nested(p, "return false;\n");
				pr(p, "seen[%d] = true;\ncontinue;\n", f);
				pr_dedent(p);
				pr(p, "}\n");
			}
			pr(p, "break;\n");
			pr_dedent(p);
		}
		pr(p, "}\n");
		xfree(lens);
	}
	pr(p, "if (!stoat_json_skip(j))\n");
	pr_nested(p, "return false;\n");
	pr_dedent(p);
	pr(p, "}\n");
	pr(p, "if (j->cx->error)\n");
	pr_nested(p, "return false;\n");
	for (int f = 0; f < nf; f++)
		if (r->fields[f].type->kind != TY_NULLABLE) {
			pr(p, "if (!seen[%d])\n", f);
			pr_nested(p, "return stoat_json_missing(j, \"%s\", \"%s\");\n", r->anonymous ? "record" : r->name,
			          r->fields[f].name);
		}
	for (int f = 0; f < nf; f++)
		if (r->fields[f].type->kind == TY_NULLABLE) {
			pr(p, "(void)seen;\n");
			break;
		}
	pr(p, "return true;\n");
}

/* A JSON reader for t: scalars by the runtime's parser, composites field by field. */
static void emit_json_read(Printer *p, Type *t)
{
	pr(p, "static bool %s(stoat_json *j, %s *out)\n{\n", helper_name(H_JSON_READ, t, FMT_JSON), type_c(t));
	pr_indent(p);
	switch (t->kind) {
	case TY_BOOL: pr(p, "return stoat_json_bool(j, out);\n"); break;
	case TY_I32: pr(p, "return stoat_json_i32(j, out);\n"); break;
	case TY_I64: case TY_TIMESTAMP: case TY_DURATION: pr(p, "return stoat_json_i64(j, out);\n"); break;
	case TY_F64: pr(p, "return stoat_json_f64(j, out);\n"); break;
	case TY_STRING: case TY_BYTES: pr(p, "return stoat_json_string(j, out);\n"); break;
	case TY_NULLABLE:
		pr(p, "if (stoat_json_null(j)) {\n");
		pr_nested(p, "memset(out, 0, sizeof *out); /* null */\n");
		pr_nested(p, "return true;\n");
		pr(p, "}\n");
		pr(p, "out->has = true;\nreturn %s(j, &out->v);\n", helper_name(H_JSON_READ, t->elem, FMT_JSON));
		break;
	case TY_ARRAY:
		pr(p, "stoat_vec vec = { NULL, 0, 0 };\nbool first = true;\n");
		pr(p, "if (!stoat_json_array_begin(j))\n");
		pr_nested(p, "return false;\n");
		pr(p, "while (stoat_json_array_next(j, &first)) {\n");
		pr_indent(p);
		pr(p, "%s *item = stoat_vec_push(&j->cx->arena, &vec, sizeof *item);\n", type_c(t->elem));
		pr(p, "if (!%s(j, item))\n", helper_name(H_JSON_READ, t->elem, FMT_JSON));
		pr_nested(p, "return false;\n");
		pr_dedent(p);
		pr(p, "}\n");
		pr(p, "if (j->cx->error)\n");
		pr_nested(p, "return false;\n");
		pr(p, "out->items = vec.data;\nout->len = vec.len;\nreturn true;\n");
		break;
	case TY_RECORD:
		json_read_record(p, t->rec);
		break;
	default:
		pr(p, "(void)j;\n(void)out;\nreturn false;\n");
	}
	pr_dedent(p);
	pr(p, "}\n\n");
}

/* Statements writing the value at C lvalue `x` of type t as JSON into b. */
static void json_write_value(Printer *p, Type *t, const char *x, const char *what)
{
	switch (t->kind) {
	case TY_BOOL:
		pr(p, "if (%s)\n", x);
		pr_nested(p, "stoat_buf_lit(b, \"true\");\n");
		pr(p, "else\n");
		pr_nested(p, "stoat_buf_lit(b, \"false\");\n");
		break;
	case TY_I32:
	case TY_I64:
	case TY_TIMESTAMP:
	case TY_DURATION:
		pr(p, "stoat_buf_put_i64(b, %s);\n", x);
		break;
	case TY_F64:
		pr(p, "if (!stoat_buf_put_f64(b, %s)) {\n", x);
		pr_nested(p, "stoat_error(cx, \"%s is not a finite number, which JSON cannot hold\");\n", what);
		pr_nested(p, "return false;\n");
		pr(p, "}\n");
		break;
	case TY_STRING:
	case TY_BYTES:
		pr(p, "stoat_buf_put_json_str(b, %s);\n", x);
		break;
	default:
		pr(p, "if (!%s(cx, b, &%s))\n", helper_name(H_JSON_WRITE, t, FMT_JSON), x);
		pr_nested(p, "return false;\n");
	}
}

/* A JSON writer for t; scalars inside composites are written inline. */
static void emit_json_write(Printer *p, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_buf *b, const %s *v)\n{\n", helper_name(H_JSON_WRITE, t, FMT_JSON),
	   type_c(t));
	pr_indent(p);
	pr(p, "(void)cx; /* used only by writers that can fail */\n");
	switch (t->kind) {
	case TY_NULLABLE:
		pr(p, "if (!v->has) {\n");
		pr_nested(p, "stoat_buf_lit(b, \"null\");\n");
		pr_nested(p, "return true;\n");
		pr(p, "}\n");
		json_write_value(p, t->elem, "v->v", "a value");
		break;
	case TY_ARRAY:
		pr(p, "stoat_buf_putc(b, '[');\n");
		pr(p, "for (size_t i = 0; i < v->len; i++) {\n");
		pr_indent(p);
		pr(p, "if (i)\n");
		pr_nested(p, "stoat_buf_putc(b, ',');\n");
		json_write_value(p, t->elem, "v->items[i]", "an array element");
		pr_dedent(p);
		pr(p, "}\n");
		pr(p, "stoat_buf_putc(b, ']');\n");
		break;
	case TY_RECORD: {
		Record *r = t->rec;
		for (int f = 0; f < r->nfields; f++) {
			char *lit = xasprintf("%s\\\"%s\\\":", f == 0 ? "{" : ",", r->fields[f].name);
			pr(p, "stoat_buf_lit(b, \"%s\");\n", lit);
			char *x = xasprintf("v->%s", c_field(r->fields[f].name));
			char *what = xasprintf("field %s of %s", r->fields[f].name, r->anonymous ? "the record" : r->name);
			json_write_value(p, r->fields[f].type, x, what);
		}
		if (r->nfields == 0)
			pr(p, "(void)v;\nstoat_buf_lit(b, \"{}\");\n");
		else
			pr(p, "stoat_buf_putc(b, '}');\n");
		break;
	}
	default:
		json_write_value(p, t, "*v", "the value");
	}
	pr(p, "return true;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
}

/* A decoder: a record's key or value bytes in format f to a t (what: "key" or "value"). */
static void emit_decode(Printer *p, Type *t, Format f)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_str bytes, const char *what, %s *out)\n{\n",
	   helper_name(H_DECODE, t, f), type_c(t));
	pr_indent(p);
	const char *dst = "out", *lhs = "*out";
	pr(p, "%s", t->kind == TY_NULLABLE && (f == FMT_TEXT || f == FMT_BYTES) ? "(void)what;\n" : "");
	pr(p, "if (!bytes.ptr) {\n");
	if (t->kind == TY_NULLABLE) {
		pr_nested(p, "memset(out, 0, sizeof *out); /* null */\n");
		pr_nested(p, "return true;\n");
		pr(p, "}\nout->has = true;\n");
		dst = "&out->v";
		lhs = "out->v";
	} else {
		pr_nested(p, "stoat_error(cx, \"the %%s is null, but its type %s is not nullable\", what);\n", type_str(t));
		pr_nested(p, "return false;\n");
		pr(p, "}\n");
	}
	switch (f) {
	case FMT_TEXT:
	case FMT_BYTES:
		pr(p, "(void)cx;\n%s = bytes;\nreturn true;\n", lhs);
		break;
	case FMT_I32:
	case FMT_I64:
	case FMT_F64: {
		const char *fn = f == FMT_I32 ? "stoat_decode_be32" : f == FMT_I64 ? "stoat_decode_be64" : "stoat_decode_be_f64";
		pr(p, "if (%s(cx, bytes, %s))\n", fn, dst);
		pr_nested(p, "return true;\n");
		pr(p, "stoat_error_context(cx, what);\nreturn false;\n");
		break;
	}
	case FMT_AVRO_RAW:
		avro_decode_body(p, type_strip(t), dst, false);
		break;
	case FMT_AVRO:
		avro_decode_body(p, type_strip(t), dst, true);
		break;
	case FMT_JSON:
		/* For T?, the JSON text null is null too, like an absent value. */
		pr(p, "stoat_json j;\nstoat_json_init(&j, cx, bytes);\n");
		pr(p, "if (%s(&j, out) && stoat_json_end(&j))\n", helper_name(H_JSON_READ, t, FMT_JSON));
		pr_nested(p, "return true;\n");
		pr(p, "stoat_error_context(cx, what);\nreturn false;\n");
		break;
	}
	pr_dedent(p);
	pr(p, "}\n\n");
}

/*
 * An encoder: a t to key or value bytes in format f (*out; b holds them
 * when needed).  Format avro's also takes the registry id its frame
 * names, the sink's (stoat_avro_sink_id).
 */
static void emit_encode(Printer *p, Type *t, Format f)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_buf *b, const %s *v, stoat_str *out%s)\n{\n",
	   helper_name(H_ENCODE, t, f), type_c(t), f == FMT_AVRO ? ", int32_t schema_id" : "");
	pr_indent(p);
	const char *src = "v";
	if (t->kind == TY_NULLABLE) {
		pr(p, "if (!v->has) {\n");
		pr_nested(p, "*out = (stoat_str){ NULL, 0 };\n");
		pr_nested(p, "return true;\n");
		pr(p, "}\n");
		src = "(&v->v)";
	}
	static const char *be_put[] = { [FMT_I32] = "be32", [FMT_I64] = "be64", [FMT_F64] = "be_f64" };
	Type *s = type_strip(t);
	if (f != FMT_JSON && s->kind == TY_RECORD && s->rec->windowed) {
		/*
		 * Kafka Streams' TimeWindowedSerializer: the inner key's bytes, then the start (8 bytes
		 * big-endian); SessionWindowedSerializer (SessionKeySchema): the key, the end, the start.
		 */
		pr(p, "stoat_str inner;\nif (!%s(cx, b, &%s->%s, &inner))\n", helper_name(H_ENCODE, s->rec->fields[0].type, f),
		   src, c_field("key"));
		pr_nested(p, "return false;\n");
		pr(p, "if (inner.ptr != b->data) {\n");
		pr_nested(p, "b->len = 0;\n");
		pr_nested(p, "stoat_buf_put(b, inner.ptr, inner.len);\n");
		pr(p, "}\n");
		if (s->rec->session)
			pr(p, "stoat_buf_put_be64(b, %s->%s);\n", src, c_field("end"));
		pr(p, "stoat_buf_put_be64(b, %s->%s);\n*out = stoat_buf_str(b);\nreturn true;\n", src, c_field("start"));
		pr_dedent(p);
		pr(p, "}\n\n");
		return;
	}
	switch (f) {
	case FMT_TEXT:
	case FMT_BYTES:
		pr(p, "(void)cx;\n(void)b;\n*out = *%s;\nreturn true;\n", src);
		break;
	case FMT_I32:
	case FMT_I64:
	case FMT_F64:
		pr(p, "(void)cx;\nb->len = 0;\nstoat_buf_put_%s(b, *%s);\n*out = stoat_buf_str(b);\nreturn true;\n",
		   be_put[f], src);
		break;
	case FMT_AVRO_RAW:
	case FMT_AVRO:
		avro_encode_body(p, type_strip(t), src, f == FMT_AVRO);
		break;
	case FMT_JSON:
		pr(p, "b->len = 0;\nif (!%s(cx, b, %s))\n", helper_name(H_JSON_WRITE, type_strip(t), FMT_JSON), src);
		pr_nested(p, "return false;\n");
		pr(p, "*out = stoat_buf_str(b);\nreturn true;\n");
		break;
	}
	pr_dedent(p);
	pr(p, "}\n\n");
}

/* a[i]: the element, or a per-record error when i is out of range. */
static void emit_index(Printer *p, Type *arr)
{
	const char *et = type_c(arr->elem);
	pr(p, "static %s %s(stoat_ctx *cx, %s a, int64_t i)\n{\n", et, helper_name(H_INDEX, arr, FMT_JSON), type_c(arr));
	pr_indent(p);
	pr(p, "if (i < 0 || (uint64_t)i >= a.len) {\n");
	pr_indent(p);
	pr(p, "stoat_error(cx, \"index %%lld is out of range for an array of length %%zu\", (long long)i, a.len);\n");
	pr(p, "%s zero;\nmemset(&zero, 0, sizeof zero);\nreturn zero;\n", et);
	pr_dedent(p);
	pr(p, "}\n");
	pr(p, "return a.items[i];\n");
	pr_dedent(p);
	pr(p, "}\n\n");
}

/* get(a, i): the element, or null when i is out of range. */
static void emit_get(Printer *p, Type *arr)
{
	Type *rt = ty_nullable(arr->elem);
	pr(p, "static %s %s(%s a, int64_t i)\n{\n", type_c(rt), helper_name(H_GET, arr, FMT_JSON), type_c(arr));
	pr_indent(p);
	pr(p, "if (i < 0 || (uint64_t)i >= a.len)\n");
	pr_nested(p, "return (%s){ .has = false };\n", type_c(rt));
	if (arr->elem->kind == TY_NULLABLE)
		pr(p, "return a.items[i];\n");
	else
		pr(p, "return (%s){ .has = true, .v = a.items[i] };\n", type_c(rt));
	pr_dedent(p);
	pr(p, "}\n\n");
}

/*
 * All registered helpers: first the prototypes of those that may call
 * each other (nested records), then every definition, kind by kind.
 */
void emit_helpers(Gen *g, Printer *p)
{
	if (g->nhelpers == 0)
		return;
	pr(p, "/* ---- Serdes ---------------------------------------------------------- */\n\n");
	bool any = false;
	for (int i = 0; i < g->nhelpers; i++) {
		Helper *h = &g->helpers[i];
		if (h->kind == H_JSON_READ) {
			pr(p, "static bool %s(stoat_json *j, %s *out);\n", helper_name(h->kind, h->type, h->format),
			   type_c(h->type));
			any = true;
		} else if (h->kind == H_JSON_WRITE) {
			pr(p, "static bool %s(stoat_ctx *cx, stoat_buf *b, const %s *v);\n",
			   helper_name(h->kind, h->type, h->format), type_c(h->type));
			any = true;
		} else if (h->kind == H_AVRO_READ || h->kind == H_AVRO_WRITE) {
			avro_declare(p, h->kind, h->type);
			any = true;
		} else if (store_helper_declared(h->kind)) {
			store_helper_declare(p, h->kind, h->type);
			any = true;
		}
	}
	if (any)
		pr(p, "\n");
	static const HelperKind order[] = { H_JSON_READ, H_JSON_WRITE, H_AVRO_READ, H_AVRO_WRITE, H_DECODE, H_ENCODE, H_INDEX, H_GET,
		                            H_STORE_KEY, H_STORE_KEY_GET, H_STORE_KEY_READ, H_STORE_VALUE_PUT,
		                            H_STORE_VALUE_GET, H_STORE_VALUE_READ, H_CHANGE_READ,
		                            H_STORE_KEY_JSON, H_STORE_VALUE_JSON };
	for (size_t o = 0; o < sizeof order / sizeof order[0]; o++)
		for (int i = 0; i < g->nhelpers; i++) {
			Helper *h = &g->helpers[i];
			if (h->kind != order[o])
				continue;
			switch (h->kind) {
			case H_JSON_READ: emit_json_read(p, h->type); break;
			case H_JSON_WRITE: emit_json_write(p, h->type); break;
			case H_DECODE: emit_decode(p, h->type, h->format); break;
			case H_ENCODE: emit_encode(p, h->type, h->format); break;
			case H_INDEX: emit_index(p, h->type); break;
			case H_GET: emit_get(p, h->type); break;
			case H_AVRO_READ: avro_emit_read(p, h->type); break;
			case H_AVRO_WRITE: avro_emit_write(p, h->type); break;
			default: store_helper_define(p, h->kind, h->type); break;
			}
		}
}
