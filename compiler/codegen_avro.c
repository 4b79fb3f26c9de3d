/*
 * codegen_avro.c - Avro binary serdes, generated per schema (format
 * avro_raw; stoat/avro.h has the pieces they compose).
 *
 * A record's schema gives two helpers, avro_read_<T> and avro_write_<T>;
 * everything else (unions, arrays, maps, enums, logical types) is inlined
 * into the helper of the record that holds it, or into the decoder or
 * encoder of a top-level value.  The schema, not the stoat type, decides
 * the bytes: an f64 field of an imported schema may be a float, a string
 * an enum, a timestamp a date (schema_avro.h).  Strings and bytes are
 * slices of the message; arrays grow in the context's arena, never with
 * malloc.
 */
#include "codegen_int.h"
#include "schema_avro.h"

#include <stdio.h>
#include <string.h>

/*
 * Registers the helpers that reading (kind H_AVRO_READ) or writing
 * (H_AVRO_WRITE) a value of schema s (stoat type t) inside another needs:
 * a record's own helper; for a union, an array or a map, those of what it
 * holds.  The schema is walked, not the type: an imported map is an array
 * of entry records to stoat, but no record on the wire.
 */
static void avro_needs(Gen *g, HelperKind kind, const AvroSchema *s, Type *t)
{
	switch (s->kind) {
	case AV_RECORD:
		need(g, kind, t, FMT_AVRO_RAW);
		break;
	case AV_UNION:
		avro_needs(g, kind, s->branches[1 - s->null_branch], t->elem);
		break;
	case AV_ARRAY:
		avro_needs(g, kind, s->items, t->elem);
		break;
	case AV_MAP:
		/* The entries' record {key, value}: its value's helpers. */
		avro_needs(g, kind, s->items, t->elem->rec->fields[1].type);
		break;
	default:
		break;
	}
}

/* What the helper of kind for t itself needs: a record's fields', anything else's parts'. */
void avro_helper_needs(Gen *g, HelperKind kind, Type *t)
{
	const AvroSchema *s = avro_schema_of(t);
	if (s->kind != AV_RECORD) {
		avro_needs(g, kind, s, t);
		return;
	}
	for (int i = 0; i < s->nfields; i++)
		avro_needs(g, kind, s->fields[i].type, t->rec->fields[i].type);
}

/* The C code failing a read at where. */
static char *fail_read(const char *where)
{
	return xasprintf("return stoat_avro_malformed(cx, r, \"%s\");\n", where);
}

/*
 * Statements reading a value of schema s (stoat type t) from the reader r
 * into the C lvalue dst; depth makes the names of nested loops' variables
 * unique.
 */
static void read_value(Printer *p, const AvroSchema *s, Type *t, const char *dst, const char *where, int depth)
{
	switch (s->kind) {
	case AV_BOOLEAN:
		pr(p, "if (!stoat_avro_get_bool(r, &%s))\n", dst);
		pr_nested(p, "%s", fail_read(where));
		break;
	case AV_INT:
		if (s->logical == AVL_DATE || s->logical == AVL_TIME_MILLIS) {
			pr(p, "{\n");
			pr_indent(p);
			pr(p, "int32_t n;\nif (!stoat_avro_get_int(r, &n))\n");
			pr_nested(p, "%s", fail_read(where));
			pr(p, "%s = %s;\n", dst, s->logical == AVL_DATE ? "stoat_avro_days_to_millis(n)" : "n");
			pr_dedent(p);
			pr(p, "}\n");
		} else {
			pr(p, "if (!stoat_avro_get_int(r, &%s))\n", dst);
			pr_nested(p, "%s", fail_read(where));
		}
		break;
	case AV_LONG:
		if (s->logical == AVL_TIMESTAMP_MICROS || s->logical == AVL_LOCAL_TIMESTAMP_MICROS ||
		    s->logical == AVL_TIME_MICROS) {
			pr(p, "{\n");
			pr_indent(p);
			pr(p, "int64_t us;\nif (!stoat_avro_get_long(r, &us))\n");
			pr_nested(p, "%s", fail_read(where));
			pr(p, "%s = stoat_avro_micros_to_millis(us);\n", dst);
			pr_dedent(p);
			pr(p, "}\n");
		} else {
			pr(p, "if (!stoat_avro_get_long(r, &%s))\n", dst);
			pr_nested(p, "%s", fail_read(where));
		}
		break;
	case AV_FLOAT:
	case AV_DOUBLE:
		pr(p, "if (!stoat_avro_get_%s(r, &%s))\n", s->kind == AV_FLOAT ? "float" : "double", dst);
		pr_nested(p, "%s", fail_read(where));
		break;
	case AV_STRING:
	case AV_BYTES:
		pr(p, "if (!stoat_avro_get_str(r, &%s))\n", dst);
		pr_nested(p, "%s", fail_read(where));
		break;
	case AV_FIXED:
		pr(p, "if (!stoat_avro_get_fixed(r, %d, &%s))\n", s->size, dst);
		pr_nested(p, "%s", fail_read(where));
		break;
	case AV_ENUM:
		pr(p, "{\n");
		pr_indent(p);
		pr(p, "static const stoat_str symbols[%d] = {", s->nsymbols);
		for (int i = 0; i < s->nsymbols; i++)
			pr(p, "%s STOAT_STR_LIT(\"%s\")", i ? "," : "", s->symbols[i]);
		pr(p, " };\nint i;\nif (!stoat_avro_get_index(r, %d, &i))\n", s->nsymbols);
		pr_nested(p, "%s", fail_read(where));
		pr(p, "%s = symbols[i];\n", dst);
		pr_dedent(p);
		pr(p, "}\n");
		break;
	case AV_UNION: {
		/* ["null", T] or [T, "null"]: a T? (schema_avro.c takes no other). */
		const AvroSchema *inner = s->branches[1 - s->null_branch];
		pr(p, "{\n");
		pr_indent(p);
		pr(p, "int branch;\nif (!stoat_avro_get_index(r, 2, &branch))\n");
		pr_nested(p, "%s", fail_read(where));
		pr(p, "if (branch == %d) {\n", s->null_branch);
		pr_nested(p, "memset(&%s, 0, sizeof %s); /* null */\n", dst, dst);
		pr(p, "} else {\n");
		pr_indent(p);
		pr(p, "%s.has = true;\n", dst);
		read_value(p, inner, t->elem, xasprintf("%s.v", dst), where, depth);
		pr_dedent(p);
		pr(p, "}\n");
		pr_dedent(p);
		pr(p, "}\n");
		break;
	}
	case AV_ARRAY:
	case AV_MAP: {
		bool map = s->kind == AV_MAP;
		Type *elem = t->elem;
		char *vec = xasprintf("vec%d", depth), *n = xasprintf("n%d", depth), *i = xasprintf("i%d", depth);
		pr(p, "{\n");
		pr_indent(p);
		pr(p, "stoat_vec %s = { NULL, 0, 0 };\nsize_t %s;\n", vec, n);
		/* At most an item per byte left: a hostile count allocates nothing. */
		pr(p, "for (;;) {\n");
		pr_indent(p);
		pr(p, "if (!stoat_avro_get_block(r, (size_t)(r->end - r->p), &%s))\n", n);
		pr_nested(p, "%s", fail_read(where));
		pr(p, "if (%s == 0)\n", n);
		pr_nested(p, "break;\n");
		pr(p, "for (size_t %s = 0; %s < %s; %s++) {\n", i, i, n, i);
		pr_indent(p);
		pr(p, "%s *item = stoat_vec_push(&cx->arena, &%s, sizeof *item);\n", type_c(elem), vec);
		char *iwhere = xasprintf("%s[]", where);
		if (map) {
			pr(p, "if (!stoat_avro_get_str(r, &item->%s))\n", c_field("key"));
			pr_nested(p, "%s", fail_read(xasprintf("a key of %s", where)));
			read_value(p, s->items, elem->rec->fields[1].type, xasprintf("item->%s", c_field("value")),
				   xasprintf("a value of %s", where), depth + 1);
		} else {
			read_value(p, s->items, elem, "(*item)", iwhere, depth + 1);
		}
		pr_dedent(p);
		pr(p, "}\n");
		pr_dedent(p);
		pr(p, "}\n");
		pr(p, "%s.items = %s.data;\n%s.len = %s.len;\n", dst, vec, dst, vec);
		pr_dedent(p);
		pr(p, "}\n");
		break;
	}
	case AV_RECORD:
		pr(p, "if (!%s(cx, r, &%s))\n", helper_name(H_AVRO_READ, t, FMT_AVRO_RAW), dst);
		pr_nested(p, "return false;\n");
		break;
	case AV_NULL:
		/* Never a field's type (schema_avro.c refuses it). */
		pr(p, "(void)%s;\n", dst);
		break;
	}
}

/* Statements writing the C value src (schema s, type t) to the buffer b. */
static void write_value(Printer *p, const AvroSchema *s, Type *t, const char *src, const char *where, int depth)
{
	switch (s->kind) {
	case AV_BOOLEAN:
		pr(p, "stoat_avro_put_bool(b, %s);\n", src);
		break;
	case AV_INT:
		if (s->logical == AVL_DATE) {
			pr(p, "{\n");
			pr_indent(p);
			pr(p, "int32_t days;\nif (!stoat_avro_millis_to_days(%s, &days)) {\n", src);
			pr_nested(p, "stoat_error(cx, \"%s: %%\" PRId64 \" ms is beyond an Avro date\", %s);\n", where, src);
			pr_nested(p, "return false;\n");
			pr(p, "}\nstoat_avro_put_int(b, days);\n");
			pr_dedent(p);
			pr(p, "}\n");
		} else if (s->logical == AVL_TIME_MILLIS || t->kind != TY_I32) {
			/* A duration (time-millis) or an i64 into an int: checked. */
			pr(p, "if (%s < INT32_MIN || %s > INT32_MAX) {\n", src, src);
			pr_nested(p, "stoat_error(cx, \"%s: %%\" PRId64 \" is beyond an Avro int\", (int64_t)%s);\n", where, src);
			pr_nested(p, "return false;\n");
			pr(p, "}\nstoat_avro_put_int(b, (int32_t)%s);\n", src);
		} else {
			pr(p, "stoat_avro_put_int(b, %s);\n", src);
		}
		break;
	case AV_LONG:
		if (s->logical == AVL_TIMESTAMP_MICROS || s->logical == AVL_LOCAL_TIMESTAMP_MICROS ||
		    s->logical == AVL_TIME_MICROS) {
			pr(p, "{\n");
			pr_indent(p);
			pr(p, "int64_t us;\nif (!stoat_avro_millis_to_micros(%s, &us)) {\n", src);
			pr_nested(p, "stoat_error(cx, \"%s: %%\" PRId64 \" ms is beyond a long of microseconds\", %s);\n", where,
				  src);
			pr_nested(p, "return false;\n");
			pr(p, "}\nstoat_avro_put_long(b, us);\n");
			pr_dedent(p);
			pr(p, "}\n");
		} else {
			pr(p, "stoat_avro_put_long(b, %s);\n", src);
		}
		break;
	case AV_FLOAT:
	case AV_DOUBLE:
		pr(p, "stoat_avro_put_%s(b, %s);\n", s->kind == AV_FLOAT ? "float" : "double", src);
		break;
	case AV_STRING:
	case AV_BYTES:
		pr(p, "stoat_avro_put_str(b, %s);\n", src);
		break;
	case AV_FIXED:
		pr(p, "if (%s.len != %d) {\n", src, s->size);
		pr_nested(p, "stoat_error(cx, \"%s: %%zu bytes, but the fixed type %s holds %d\", %s.len);\n", where,
			  s->fullname, s->size, src);
		pr_nested(p, "return false;\n");
		pr(p, "}\nstoat_avro_put_fixed(b, %s);\n", src);
		break;
	case AV_ENUM:
		/* The symbol's index; a string that is none of them is the record's error. */
		pr(p, "{\n");
		pr_indent(p);
		pr(p, "int32_t index;\n");
		for (int i = 0; i < s->nsymbols; i++) {
			pr(p, "%sif (stoat_str_eq(%s, STOAT_STR_LIT(\"%s\")))\n", i ? "else " : "", src, s->symbols[i]);
			pr_nested(p, "index = %d;\n", i);
		}
		pr(p, "else {\n");
		pr_nested(p, "stoat_error(cx, \"%s: \\\"%%.*s\\\" is not a symbol of the enum %s\", (int)%s.len, %s.ptr);\n",
			  where, s->fullname, src, src);
		pr_nested(p, "return false;\n");
		pr(p, "}\nstoat_avro_put_int(b, index);\n");
		pr_dedent(p);
		pr(p, "}\n");
		break;
	case AV_UNION: {
		const AvroSchema *inner = s->branches[1 - s->null_branch];
		pr(p, "if (!%s.has) {\n", src);
		pr_nested(p, "stoat_avro_put_long(b, %d);\n", s->null_branch);
		pr(p, "} else {\n");
		pr_indent(p);
		pr(p, "stoat_avro_put_long(b, %d);\n", 1 - s->null_branch);
		write_value(p, inner, t->elem, xasprintf("%s.v", src), where, depth);
		pr_dedent(p);
		pr(p, "}\n");
		break;
	}
	case AV_ARRAY:
	case AV_MAP: {
		char *i = xasprintf("i%d", depth);
		pr(p, "stoat_avro_put_block(b, %s.len);\n", src);
		pr(p, "for (size_t %s = 0; %s < %s.len; %s++) {\n", i, i, src, i);
		pr_indent(p);
		char *item = xasprintf("%s.items[%s]", src, i), *iwhere = xasprintf("%s[]", where);
		if (s->kind == AV_MAP) {
			pr(p, "stoat_avro_put_str(b, %s.%s);\n", item, c_field("key"));
			write_value(p, s->items, t->elem->rec->fields[1].type, xasprintf("%s.%s", item, c_field("value")),
				    xasprintf("a value of %s", where), depth + 1);
		} else {
			write_value(p, s->items, t->elem, item, iwhere, depth + 1);
		}
		pr_dedent(p);
		pr(p, "}\nstoat_avro_put_end(b);\n");
		break;
	}
	case AV_RECORD:
		pr(p, "if (!%s(cx, b, &%s))\n", helper_name(H_AVRO_WRITE, t, FMT_AVRO_RAW), src);
		pr_nested(p, "return false;\n");
		break;
	case AV_NULL:
		pr(p, "(void)%s;\n", src);
		break;
	}
}

/*
 * avro_read_<T>: a value of t's schema from the reader: a record's fields
 * in the schema's order, or any other value (a top-level string, say).
 */
void avro_emit_read(Printer *p, Type *t)
{
	const AvroSchema *s = avro_schema_of(t);
	pr(p, "static bool %s(stoat_ctx *cx, stoat_avro_reader *r, %s *out)\n{\n", helper_name(H_AVRO_READ, t, FMT_AVRO_RAW),
	   type_c(t));
	pr_indent(p);
	if (s->kind != AV_RECORD) {
		read_value(p, s, t, "(*out)", "the value", 0);
	} else {
		if (s->nfields == 0)
			pr(p, "(void)cx;\n(void)r;\n(void)out;\n");
		for (int i = 0; i < s->nfields; i++) {
			char *dst = xasprintf("out->%s", c_field(t->rec->fields[i].name));
			char *where = xasprintf("field %s of %s", s->fields[i].name, t->rec->anonymous ? "the record" : t->rec->name);
			read_value(p, s->fields[i].type, t->rec->fields[i].type, dst, where, 0);
		}
	}
	pr(p, "return true;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
}

/* avro_write_<T>: a value of t's schema appended to b. */
void avro_emit_write(Printer *p, Type *t)
{
	const AvroSchema *s = avro_schema_of(t);
	pr(p, "static bool %s(stoat_ctx *cx, stoat_buf *b, const %s *v)\n{\n", helper_name(H_AVRO_WRITE, t, FMT_AVRO_RAW),
	   type_c(t));
	pr_indent(p);
	pr(p, "(void)cx; /* used only by writers that can fail */\n");
	if (s->kind != AV_RECORD) {
		write_value(p, s, t, "(*v)", "the value", 0);
	} else {
		if (s->nfields == 0)
			pr(p, "(void)b;\n(void)v;\n");
		for (int i = 0; i < s->nfields; i++) {
			char *src = xasprintf("v->%s", c_field(t->rec->fields[i].name));
			char *where = xasprintf("field %s of %s", s->fields[i].name, t->rec->anonymous ? "the record" : t->rec->name);
			write_value(p, s->fields[i].type, t->rec->fields[i].type, src, where, 0);
		}
	}
	pr(p, "return true;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
}

/* The forward declaration of a helper (records may hold each other through arrays). */
void avro_declare(Printer *p, HelperKind kind, Type *t)
{
	if (kind == H_AVRO_READ)
		pr(p, "static bool %s(stoat_ctx *cx, stoat_avro_reader *r, %s *out);\n", helper_name(kind, t, FMT_AVRO_RAW),
		   type_c(t));
	else
		pr(p, "static bool %s(stoat_ctx *cx, stoat_buf *b, const %s *v);\n", helper_name(kind, t, FMT_AVRO_RAW),
		   type_c(t));
}

/*
 * decode_avro_raw_<T>'s body after its null check: the bytes, all of
 * them, as one value of the schema of t (not nullable) into *dst.
 * decode_avro_<T>'s (framed) first takes the frame off, after checking
 * that the id it names is of a schema that writes what the compiled one
 * reads (stoat_avro_unframe; the writers seen are kept in a static of the
 * decoder's own, one per reader schema).
 */
void avro_decode_body(Printer *p, Type *t, const char *dst, bool framed)
{
	if (framed) {
		char *json = avro_schema_json(avro_schema_of(t));
		pr(p, "static stoat_avro_writers writers = { .reader_schema = %s };\n", c_string(json, strlen(json)));
		pr(p, "if (!stoat_avro_unframe(cx, &writers, &bytes, what))\n");
		pr_nested(p, "return false;\n");
		xfree(json);
	}
	/* Zeroed first, as the JSON readers do: no field is left unset when the read stops early. */
	pr(p, "memset(%s, 0, sizeof *%s);\nstoat_avro_reader r = stoat_avro_reader_of(bytes);\n", dst, dst);
	pr(p, "if (%s(cx, &r, %s)) {\n", helper_name(H_AVRO_READ, t, FMT_AVRO_RAW), dst);
	pr_indent(p);
	pr(p, "if (stoat_avro_end(&r))\n");
	pr_nested(p, "return true;\n");
	pr(p, "stoat_error(cx, \"not valid Avro for the compiled schema: the value ends %%zu bytes before the message does\", (size_t)(r.end - r.p));\n");
	pr_dedent(p);
	pr(p, "}\nstoat_error_context(cx, what);\nreturn false;\n");
}

/*
 * encode_avro_raw_<T>'s body after its null check: *src (of t, not
 * nullable) into b; framed (encode_avro_<T>), after the frame of its
 * schema_id parameter.
 */
void avro_encode_body(Printer *p, Type *t, const char *src, bool framed)
{
	pr(p, "b->len = 0;\n%s", framed ? "stoat_avro_put_frame(b, schema_id);\n" : "");
	pr(p, "if (!%s(cx, b, %s))\n", helper_name(H_AVRO_WRITE, t, FMT_AVRO_RAW), src);
	pr_nested(p, "return false;\n");
	pr(p, "*out = stoat_buf_str(b);\nreturn true;\n");
}
