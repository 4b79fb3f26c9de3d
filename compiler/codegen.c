/*
 * codegen.c - emits the C for one application.
 *
 * Pipelines are generated first, into their own buffer, because emitting
 * them discovers which helpers (JSON readers and writers, decoders,
 * encoders, bounds-checked indexing) are needed; the helpers are then
 * generated and everything is assembled in a fixed order.  Every name in
 * the output derives from source names and IR node ids, so the same input
 * gives the same bytes.
 *
 * Expressions are emitted as C expressions; anything that can fail (a call,
 * checked arithmetic, indexing) is hoisted into a temporary followed by an
 * error check, so a failed record never computes further.  Under and, or,
 * if and ?? the hoisted statements of the lazy operand go inside an if, to
 * keep short-circuit evaluation.
 */
#include "codegen.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printer.h"

/* Helpers discovered while emitting pipelines, generated afterwards. */
typedef enum HelperKind {
	H_JSON_READ, H_JSON_WRITE, H_DECODE, H_ENCODE, H_INDEX, H_GET,
	H_STORE_KEY,       /* store_key_T: appends the order-preserving key */
	H_STORE_KEY_GET,   /* store_key_get_T: reads one back from a cursor */
	H_STORE_KEY_READ,  /* store_key_read_T: a whole key, or an error */
	H_STORE_VALUE_PUT, /* store_value_put_T: appends the compact value */
	H_STORE_VALUE_GET, /* store_value_get_T: reads one back from a cursor */
	H_STORE_VALUE_READ, /* store_value_read_T: a whole value, or an error */
	H_CHANGE_READ      /* change_read_T: a grouped table's repartitioned change */
} HelperKind;

typedef struct Helper {
	HelperKind kind;
	Type *type;
	Format format;
} Helper;

typedef struct Gen {
	Program *prog;
	Topology *topo;
	const CodegenOptions *opts;
	Printer *out;
	int tmp;
	bool in_segment;     /* in a merge segment: fail is return false */
	int loop_depth;      /* inside a flat_map loop */
	bool tail;           /* nothing follows the current node in its loop */
	bool uses_fail;      /* the current function jumps to fail */
	IrNode *source;      /* the source of the current pipeline */
	const char *raw_key; /* the variable holding the source's decoded key */
	const char *raw_value;
	Helper *helpers;
	int nhelpers;
	Type **types;        /* composite types in definition order */
	int ntypes;
	Type **deferred;     /* array elements still to define */
	int ndeferred;
	IrNode *from;        /* the node whose children are being emitted (cogroup inputs) */
	const char *sub;     /* in a change source's pipeline: the value to subtract (V?) */
	const char *add;     /* ... and the value to add (V?) */
} Gen;

/* ------------------------------------------------------------------ */
/* Small utilities                                                     */
/* ------------------------------------------------------------------ */

static const char *fail_stmt(Gen *g)
{
	g->uses_fail = !g->in_segment || g->uses_fail;
	return g->in_segment ? "return false" : "goto fail";
}

static const char *skip_stmt(Gen *g)
{
	return (g->loop_depth > 0 || !g->in_segment) ? "continue" : "return true";
}

static char *new_tmp(Gen *g)
{
	return xasprintf("t%d", g->tmp++);
}

/* A C string literal for s (octal escapes for anything unusual). */
static char *c_string(const char *s, size_t len)
{
	char *out = xmalloc(len * 4 + 3);
	size_t n = 0;
	out[n++] = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c == '\n') {
			out[n++] = '\\';
			out[n++] = 'n';
		} else if (c == '\t') {
			out[n++] = '\\';
			out[n++] = 't';
		} else if (c < 0x20 || c >= 0x7f || c == '?') {
			/* '?' escaped too, so no trigraph can form. */
			n += (size_t)sprintf(out + n, "\\%03o", c);
		} else {
			out[n++] = (char)c;
		}
	}
	out[n++] = '"';
	out[n] = '\0';
	return out;
}

/* The C member name of a record field (see c_safe_name). */
static const char *c_field(const char *name)
{
	return c_safe_name(name);
}

static const char *stoat_format_enum(Format f)
{
	static const char *names[] = {
		"STOAT_FMT_BYTES", "STOAT_FMT_TEXT", "STOAT_FMT_JSON",
		"STOAT_FMT_I32", "STOAT_FMT_I64", "STOAT_FMT_F64",
	};
	return names[f];
}

static const char *policy_enum(Policy p)
{
	static const char *names[] = { "STOAT_POLICY_DEFAULT", "STOAT_POLICY_FAIL", "STOAT_POLICY_SKIP",
		                       "STOAT_POLICY_DLQ" };
	return names[p];
}

/* Shortest decimal that reads back as d, always with a '.' or exponent. */
static char *c_double(double d)
{
	char buf[64];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
	return xstrdup(buf);
}

/* True for characters that can continue a C identifier. */
static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * Whether generated C text uses the identifier name: a whole-word match
 * outside string and character literals and comments (a message such as
 * "null key" must not count as using `key`).
 */
static bool text_uses(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = text; *p;) {
		if (*p == '"' || *p == '\'') {
			char q = *p++;
			while (*p && *p != q)
				p += p[0] == '\\' && p[1] ? 2 : 1;
			if (*p)
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			p = e ? e + 2 : p + strlen(p);
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
		} else if (ident_char(*p)) {
			const char *w = p;
			while (ident_char(*p))
				p++;
			if ((size_t)(p - w) == n && memcmp(w, name, n) == 0)
				return true;
		} else {
			p++;
		}
	}
	return false;
}

static const char *helper_prefix[] = { "json_read", "json_write", "decode", "encode", "index", "get",
	                               "store_key", "store_key_get", "store_key_read", "store_value_put",
	                               "store_value_get", "store_value_read", "change_read" };

static char *helper_name(HelperKind kind, Type *t, Format f)
{
	if (kind == H_DECODE || kind == H_ENCODE)
		return xasprintf("%s_%s_%s", helper_prefix[kind], format_name(f), type_mangle(t));
	return xasprintf("%s_%s", helper_prefix[kind], type_mangle(t));
}

/* Registers a helper (and the helpers it calls); returns its name. */
static char *need(Gen *g, HelperKind kind, Type *t, Format f)
{
	for (int i = 0; i < g->nhelpers; i++)
		if (g->helpers[i].kind == kind && g->helpers[i].type == t &&
		    ((kind != H_DECODE && kind != H_ENCODE) || g->helpers[i].format == f))
			return helper_name(kind, t, f);
	g->helpers = xrealloc(g->helpers, sizeof *g->helpers * (size_t)(g->nhelpers + 1));
	g->helpers[g->nhelpers++] = (Helper){ kind, t, f };
	/* Dependencies. */
	Type *s = type_strip(t);
	if (kind == H_DECODE && f == FMT_JSON)
		need(g, H_JSON_READ, t, f); /* a nullable reader also takes JSON null */
	if (kind == H_ENCODE && f == FMT_JSON)
		need(g, H_JSON_WRITE, s, f);
	if (kind == H_CHANGE_READ && !type_is_scalar(t))
		need(g, H_STORE_VALUE_GET, t, f);
	if ((kind == H_STORE_KEY_READ || kind == H_STORE_VALUE_READ) && !type_is_scalar(t))
		need(g, kind == H_STORE_KEY_READ ? H_STORE_KEY_GET : H_STORE_VALUE_GET, t, f);
	if (kind == H_STORE_KEY || kind == H_STORE_KEY_GET || kind == H_STORE_VALUE_PUT || kind == H_STORE_VALUE_GET) {
		/* Composite encoders and decoders inline scalars (store_key_value, ...). */
		if ((t->kind == TY_NULLABLE || t->kind == TY_ARRAY) && !type_is_scalar(t->elem))
			need(g, kind, t->elem, f);
		if (t->kind == TY_RECORD)
			for (int i = 0; i < t->rec->nfields; i++)
				if (!type_is_scalar(t->rec->fields[i].type))
					need(g, kind, t->rec->fields[i].type, f);
	}
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

/* ------------------------------------------------------------------ */
/* Types                                                               */
/* ------------------------------------------------------------------ */

static bool has_generated_struct(Type *t)
{
	if (t->kind == TY_RECORD || t->kind == TY_PAIR)
		return true;
	if (t->kind == TY_ARRAY || t->kind == TY_NULLABLE)
		return strncmp(type_c(t), "stoat_", 6) != 0;
	return false;
}

static int type_state(Gen *g, Type *t)
{
	for (int i = 0; i < g->ntypes; i++)
		if (g->types[i] == t)
			return 1;
	return 0;
}

/* Adds t after everything it holds by value (post-order). */
static void add_type(Gen *g, Type *t)
{
	if (!t || t->kind == TY_ERROR || t->kind == TY_NULL)
		return;
	if (type_state(g, t))
		return;
	if (t->kind == TY_RECORD) {
		if (t->rec->visiting)
			return;
		t->rec->visiting = 1;
		for (int i = 0; i < t->rec->nfields; i++)
			add_type(g, t->rec->fields[i].type);
		t->rec->visiting = 0;
	} else if (t->kind == TY_ARRAY) {
		/*
		 * An array holds a pointer, so its element can be defined after
		 * it, once whatever record is being defined is complete: that
		 * is what lets type T { kids: [T?] } define opt_T after T.
		 */
		g->deferred = xrealloc(g->deferred, sizeof *g->deferred * (size_t)(g->ndeferred + 1));
		g->deferred[g->ndeferred++] = t->elem;
	} else if (t->kind == TY_NULLABLE) {
		add_type(g, t->elem);
	} else if (t->kind == TY_PAIR) {
		add_type(g, t->key);
		add_type(g, t->val);
	}
	if (type_state(g, t))
		return;
	if (!has_generated_struct(t))
		return;
	g->types = xrealloc(g->types, sizeof *g->types * (size_t)(g->ntypes + 1));
	g->types[g->ntypes++] = t;
}

/* Adds t and everything it needs, including deferred array elements. */
static void add_type_root(Gen *g, Type *t)
{
	add_type(g, t);
	while (g->ndeferred > 0)
		add_type(g, g->deferred[--g->ndeferred]);
}

static void collect_types_in(Gen *g, Node *n)
{
	for (; n; n = n->next) {
		if (n->type)
			add_type_root(g, n->type);
		collect_types_in(g, n->a);
		collect_types_in(g, n->b);
		collect_types_in(g, n->c);
		collect_types_in(g, n->list);
	}
}

static void emit_types(Gen *g, Printer *p)
{
	int nrec;
	Record **recs = all_records(&nrec);
	for (int i = 0; i < nrec; i++)
		if (!recs[i]->anonymous)
			add_type_root(g, ty_record(recs[i]));
	for (int i = 0; i < g->topo->nnodes; i++) {
		add_type_root(g, g->topo->nodes[i]->key);
		add_type_root(g, g->topo->nodes[i]->val);
		/* A table's changes carry old and new values, each V?. */
		if (g->topo->nodes[i]->table)
			add_type_root(g, ty_nullable(g->topo->nodes[i]->val));
	}
	collect_types_in(g, g->prog->file->items);
	if (g->ntypes == 0)
		return;
	pr(p, "/* ---- Types ---------------------------------------------------------- */\n\n");
	for (int i = 0; i < g->ntypes; i++)
		pr(p, "typedef struct %s %s;\n", type_c(g->types[i]), type_c(g->types[i]));
	for (int i = 0; i < g->ntypes; i++) {
		Type *t = g->types[i];
		pr(p, "\n");
		switch (t->kind) {
		case TY_RECORD:
			if (t->rec->anonymous)
				pr(p, "/* %s */\n", type_str(t));
			else
				pr(p, "/* type %s (%s:%d) */\n", t->rec->name, t->rec->span.file->path, t->rec->span.line);
			pr(p, "struct %s {\n", type_c(t));
			for (int f = 0; f < t->rec->nfields; f++)
				pr(p, "\t%s %s;\n", type_c(t->rec->fields[f].type), c_field(t->rec->fields[f].name));
			if (t->rec->nfields == 0)
				pr(p, "\tchar unused_;\n");
			pr(p, "};\n");
			break;
		case TY_NULLABLE:
			pr(p, "struct %s {\n\tbool has;\n\t%s v;\n};\n", type_c(t), type_c(t->elem));
			break;
		case TY_ARRAY:
			pr(p, "struct %s {\n\t%s *items;\n\tsize_t len;\n};\n", type_c(t), type_c(t->elem));
			break;
		case TY_PAIR:
			pr(p, "struct %s {\n\t%s k;\n\t%s v;\n};\n", type_c(t), type_c(t->key), type_c(t->val));
			break;
		default:
			break;
		}
	}
	pr(p, "\n");
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

static char *emit_expr(Gen *g, Node *e);
static char *strip_parens(const char *c);

/* Converts a C expression of type from into one of type to. */
static char *coerce(char *expr, Type *from, Type *to)
{
	if (from == to || to->kind == TY_ERROR)
		return expr;
	if (to->kind == TY_NULLABLE) {
		if (from->kind == TY_NULL)
			return xasprintf("((%s){ .has = false })", type_c(to));
		if (from->kind == TY_NULLABLE)
			return expr;
		return xasprintf("((%s){ .has = true, .v = %s })", type_c(to), coerce(expr, from, to->elem));
	}
	if (from->kind == TY_I32 && to->kind == TY_I64)
		return xasprintf("(int64_t)%s", expr);
	return expr;
}

static char *emit_as(Gen *g, Node *e, Type *to)
{
	if (e->kind == N_NULL)
		return coerce(NULL, ty_null, to);
	return coerce(emit_expr(g, e), e->type, to);
}

/* Declares a temporary holding expr; with check, stops the record on error. */
static char *hoist(Gen *g, Type *t, const char *expr, bool check)
{
	char *name = new_tmp(g);
	pr(g->out, "%s %s = %s;\n", type_c(t), name, expr);
	if (check)
		pr(g->out, "if (STOAT_UNLIKELY(cx->error))\n\t%s;\n", fail_stmt(g));
	return name;
}

/* Is expr a plain variable or member path (safe to evaluate twice)? */
static bool simple_expr(const char *expr)
{
	for (const char *p = expr; *p; p++)
		if (!(*p == '_' || *p == '.' || *p == '[' || *p == ']' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/*
 * Emits e into a fresh buffer, for operands that are evaluated only
 * sometimes.  *stmts receives the statements it needed ("" if none).
 */
static char *emit_lazy(Gen *g, Node *e, Type *to, char **stmts)
{
	Printer sub;
	pr_init(&sub);
	sub.indent = g->out->indent + 1;
	Printer *saved = g->out;
	g->out = &sub;
	char *val = to ? emit_as(g, e, to) : emit_expr(g, e);
	g->out = saved;
	*stmts = sub.buf ? sub.buf : xstrdup("");
	return val;
}

static const char *int_suffix(Type *t)
{
	return t->kind == TY_I32 ? "i32" : "i64";
}

static char *emit_binary(Gen *g, Node *e)
{
	int op = e->op;
	if (op == OP_AND || op == OP_OR) {
		char *a = emit_expr(g, e->a);
		char *stmts;
		char *b = emit_lazy(g, e->b, NULL, &stmts);
		if (!*stmts)
			return xasprintf("(%s %s %s)", a, op == OP_AND ? "&&" : "||", b);
		char *t = new_tmp(g);
		pr(g->out, "bool %s = %s;\n", t, a);
		pr(g->out, "if (%s%s) {\n", op == OP_AND ? "" : "!", t);
		pr_raw(g->out, stmts, strlen(stmts));
		g->out->indent++;
		pr(g->out, "%s = %s;\n", t, b);
		g->out->indent--;
		pr(g->out, "}\n");
		return t;
	}
	Type *ta = e->a->type, *tb = e->b->type;
	static const char *cop[] = { "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=" };
	if (op >= OP_EQ && op <= OP_GE) {
		/* Comparisons with null. */
		if (ta->kind == TY_NULL || tb->kind == TY_NULL) {
			Node *other = ta->kind == TY_NULL ? e->b : e->a;
			if (other->type->kind == TY_NULL)
				return xstrdup(op == OP_EQ ? "true" : "false");
			if (other->type->kind != TY_NULLABLE)
				return xstrdup(op == OP_EQ ? "false" : "true");
			char *x = emit_expr(g, other);
			return xasprintf(op == OP_EQ ? "(!%s.has)" : "%s.has", x);
		}
		char *a = emit_expr(g, e->a);
		char *b = emit_expr(g, e->b);
		/* T? == T: equal when present and equal. */
		bool na = ta->kind == TY_NULLABLE, nb = tb->kind == TY_NULLABLE;
		if (na || nb) {
			if (na && !simple_expr(a))
				a = hoist(g, ta, a, false);
			if (nb && !simple_expr(b))
				b = hoist(g, tb, b, false);
			char *pa = na ? xasprintf("%s.v", a) : a;
			char *pb = nb ? xasprintf("%s.v", b) : b;
			Type *sa = type_strip(ta);
			char *eq = (sa->kind == TY_STRING || sa->kind == TY_BYTES)
			               ? xasprintf("stoat_str_eq(%s, %s)", pa, pb)
			               : xasprintf("(%s == %s)", pa, pb);
			char *present = na && nb ? xasprintf("(%s.has == %s.has && (!%s.has || %s))", a, b, a, eq)
			                         : xasprintf("(%s.has && %s)", na ? a : b, eq);
			return op == OP_EQ ? present : xasprintf("(!%s)", present);
		}
		if (ta->kind == TY_STRING || ta->kind == TY_BYTES) {
			if (op == OP_EQ)
				return xasprintf("stoat_str_eq(%s, %s)", a, b);
			if (op == OP_NE)
				return xasprintf("(!stoat_str_eq(%s, %s))", a, b);
			return xasprintf("(stoat_str_cmp(%s, %s) %s 0)", a, b, cop[op]);
		}
		return xasprintf("(%s %s %s)", a, cop[op], b);
	}
	char *a = emit_expr(g, e->a);
	char *b = emit_expr(g, e->b);
	Type *rt = e->type;
	if (rt->kind == TY_STRING)
		return xasprintf("stoat_str_concat(cx, %s, %s)", a, b);
	if (rt->kind == TY_F64) {
		if (op == OP_DIV)
			return hoist(g, ty_f64, xasprintf("stoat_div_f64(cx, %s, %s)", a, b), true);
		return xasprintf("(%s %s %s)", a, cop[op], b);
	}
	/* Integers, timestamps and durations: checked. */
	static const char *fn[] = { "add", "sub", "mul", "div", "mod" };
	Type *ct = rt->kind == TY_I32 ? ty_i32 : ty_i64;
	if (ta->kind == TY_I32 && ct->kind == TY_I64)
		a = xasprintf("(int64_t)%s", a);
	if (tb->kind == TY_I32 && ct->kind == TY_I64)
		b = xasprintf("(int64_t)%s", b);
	return hoist(g, rt, xasprintf("stoat_%s_%s(cx, %s, %s)", fn[op], int_suffix(ct), a, b), true);
}

static char *emit_record(Gen *g, Node *e)
{
	Type *t = e->type;
	Record *rec = t->rec;
	Node *spread = e->list && e->list->kind == N_SPREAD ? e->list : NULL;
	char *base = NULL;
	Record *base_rec = NULL;
	if (spread) {
		base = emit_expr(g, spread->a);
		if (!simple_expr(base))
			base = hoist(g, spread->a->type, base, false);
		base_rec = spread->a->type->rec;
	}
	size_t cap = 256, len = 0;
	char *s = xmalloc(cap);
	len += (size_t)snprintf(s, cap, "((%s){", type_c(t));
	bool first = true;
	for (int i = 0; i < rec->nfields; i++) {
		Field *f = &rec->fields[i];
		char *val = NULL;
		for (Node *fi = e->list; fi; fi = fi->next)
			if (fi->kind == N_FIELD_INIT && strcmp(fi->name, f->name) == 0)
				val = emit_as(g, fi->a, f->type);
		if (!val && base) {
			Field *bf = record_field(base_rec, f->name);
			if (bf)
				val = coerce(xasprintf("%s.%s", base, c_field(bf->name)), bf->type, f->type);
		}
		if (!val)
			continue; /* a nullable field left out: zero is null */
		size_t need = len + strlen(val) + strlen(f->name) + 16;
		if (need > cap)
			s = xrealloc(s, cap = need * 2);
		len += (size_t)snprintf(s + len, cap - len, "%s .%s = %s", first ? "" : ",", c_field(f->name), val);
		first = false;
	}
	if (len + 4 > cap)
		s = xrealloc(s, cap = len + 4);
	snprintf(s + len, cap - len, first ? " 0 })" : " })");
	return s;
}

static char *emit_comprehension(Gen *g, Node *e)
{
	Type *elem = e->a->type;
	char *src = emit_expr(g, e->b);
	if (!simple_expr(src))
		src = hoist(g, e->b->type, src, false);
	char *vec = new_tmp(g);
	char *idx = new_tmp(g);
	pr(g->out, "stoat_vec %s = { NULL, 0, 0 };\n", vec);
	pr(g->out, "for (size_t %s = 0; %s < %s.len; %s++) {\n", idx, idx, src, idx);
	g->out->indent++;
	e->sym->cexpr = xasprintf("%s.items[%s]", src, idx);
	if (e->c) {
		char *c = emit_expr(g, e->c);
		pr(g->out, "if (!%s)\n\tcontinue;\n", c);
	}
	char *x = emit_as(g, e->a, elem);
	pr(g->out, "*(%s *)stoat_vec_push(&cx->arena, &%s, sizeof(%s)) = %s;\n", type_c(elem), vec, type_c(elem), x);
	g->out->indent--;
	pr(g->out, "}\n");
	return xasprintf("((%s){ %s.data, %s.len })", type_c(e->type), vec, vec);
}

static char *emit_expr(Gen *g, Node *e)
{
	switch (e->kind) {
	case N_INT:
		if (e->type->kind == TY_F64)
			return c_double((double)e->ival);
		if (e->type->kind == TY_I32)
			return xasprintf("%lld", (long long)e->ival);
		return xasprintf("INT64_C(%lld)", (long long)e->ival);
	case N_FLOAT:
		return c_double(e->fval);
	case N_STR:
		return xasprintf("((stoat_str){ %s, %zu })", c_string(e->str, e->len), e->len);
	case N_BOOL:
		return xstrdup(e->ival ? "true" : "false");
	case N_DURATION:
		return xasprintf("INT64_C(%lld)", (long long)e->ival);
	case N_NULL:
		return xstrdup("0");
	case N_IDENT:
		assert(e->sym && e->sym->cexpr);
		return e->narrowed ? xasprintf("%s.v", e->sym->cexpr) : xstrdup(e->sym->cexpr);
	case N_FIELD: {
		char *base = emit_expr(g, e->a);
		return xasprintf("%s.%s%s", base, c_field(e->name), e->narrowed ? ".v" : "");
	}
	case N_INDEX: {
		char *a = emit_expr(g, e->a);
		char *i = emit_as(g, e->b, ty_i64);
		char *fn = need(g, H_INDEX, e->a->type, FMT_JSON);
		return hoist(g, e->type, xasprintf("%s(cx, %s, %s)", fn, a, i), true);
	}
	case N_CALL: {
		if (e->op == BUILTIN_LEN)
			return xasprintf("(int64_t)%s.len", emit_expr(g, e->list));
		if (e->op == BUILTIN_GET) {
			char *a = emit_expr(g, e->list);
			char *i = emit_as(g, e->list->next, ty_i64);
			return xasprintf("%s(%s, %s)", need(g, H_GET, e->list->type, FMT_JSON), a, i);
		}
		Node *d = e->decl;
		size_t cap = 128, len = 0;
		char *s = xmalloc(cap);
		len += (size_t)snprintf(s, cap, "%s(cx", d->cname);
		Node *p = d->list;
		for (Node *a = e->list; a; a = a->next, p = p->next) {
			char *v = emit_as(g, a, p->type);
			if (len + strlen(v) + 4 > cap)
				s = xrealloc(s, cap = (len + strlen(v) + 4) * 2);
			len += (size_t)snprintf(s + len, cap - len, ", %s", v);
		}
		if (len + 2 > cap)
			s = xrealloc(s, cap = len + 2);
		snprintf(s + len, cap - len, ")");
		return hoist(g, d->type, s, true);
	}
	case N_UNARY:
		if (e->op == OP_NOT)
			return xasprintf("(!%s)", emit_expr(g, e->a));
		if (e->a->kind == N_INT) {
			if (e->type->kind == TY_F64)
				return c_double(-(double)e->a->ival);
			if (e->type->kind == TY_I32)
				return xasprintf("(%lld)", -(long long)e->a->ival);
			return xasprintf("(-INT64_C(%lld))", (long long)e->a->ival);
		}
		if (e->type->kind == TY_F64)
			return xasprintf("(-%s)", emit_expr(g, e->a));
		return hoist(g, e->type,
		             xasprintf("stoat_neg_%s(cx, %s)", int_suffix(e->type), emit_expr(g, e->a)), true);
	case N_BINARY:
		return emit_binary(g, e);
	case N_COALESCE: {
		char *a = emit_expr(g, e->a);
		if (!simple_expr(a))
			a = hoist(g, e->a->type, a, false);
		char *stmts;
		char *b = emit_lazy(g, e->b, e->type, &stmts);
		char *present = e->type->kind == TY_NULLABLE ? a : xasprintf("%s.v", a);
		if (!*stmts)
			return xasprintf("(%s.has ? %s : %s)", a, present, b);
		char *t = new_tmp(g);
		pr(g->out, "%s %s = %s;\n", type_c(e->type), t, present);
		pr(g->out, "if (!%s.has) {\n", a);
		pr_raw(g->out, stmts, strlen(stmts));
		pr(g->out, "\t%s = %s;\n}\n", t, b);
		return t;
	}
	case N_IF: {
		char *c = emit_expr(g, e->a);
		char *s1, *s2;
		char *x = emit_lazy(g, e->b, e->type, &s1);
		char *y = emit_lazy(g, e->c, e->type, &s2);
		if (!*s1 && !*s2)
			return xasprintf("(%s ? %s : %s)", c, x, y);
		char *t = new_tmp(g);
		pr(g->out, "%s %s;\n", type_c(e->type), t);
		pr(g->out, "if (%s) {\n", strip_parens(c));
		pr_raw(g->out, s1, strlen(s1));
		pr(g->out, "\t%s = %s;\n} else {\n", t, x);
		pr_raw(g->out, s2, strlen(s2));
		pr(g->out, "\t%s = %s;\n}\n", t, y);
		return t;
	}
	case N_TUPLE:
		return xasprintf("((%s){ %s, %s })", type_c(e->type), emit_as(g, e->list, e->type->key),
		                 emit_as(g, e->list->next, e->type->val));
	case N_RECORD:
		return emit_record(g, e);
	case N_ARRAY: {
		int n = node_list_len(e->list);
		if (n == 0)
			return xasprintf("((%s){ NULL, 0 })", type_c(e->type));
		Type *elem = e->type->elem;
		char **vals = xcalloc((size_t)n, sizeof *vals);
		int i = 0;
		for (Node *x = e->list; x; x = x->next)
			vals[i++] = emit_as(g, x, elem);
		char *t = new_tmp(g);
		pr(g->out, "%s *%s = stoat_arena_alloc(&cx->arena, %d * sizeof(%s));\n", type_c(elem), t, n,
		   type_c(elem));
		for (i = 0; i < n; i++)
			pr(g->out, "%s[%d] = %s;\n", t, i, vals[i]);
		return xasprintf("((%s){ %s, %d })", type_c(e->type), t, n);
	}
	case N_COMPREHENSION:
		return emit_comprehension(g, e);
	case N_LET: {
		/* Evaluated once, where it is written; the body refers to the temporary. */
		char *init = emit_expr(g, e->a);
		e->sym->cexpr = simple_expr(init) ? init : hoist(g, e->a->type, init, false);
		if (!e->sym->used)
			pr(g->out, "(void)%s; /* unused, but evaluated: it may fail */\n", e->sym->cexpr);
		return emit_expr(g, e->b);
	}
	default:
		assert(!"unexpected expression in codegen");
		return xstrdup("0");
	}
}

/* ------------------------------------------------------------------ */
/* Pipelines                                                           */
/* ------------------------------------------------------------------ */

static void emit_node(Gen *g, IrNode *n, const char *k, const char *v);

/* Binds a lambda's parameters to the C variables of key and value. */
static void bind_lambda(Node *lam, const char *k, const char *v)
{
	for (Node *p = lam->list; p; p = p->next)
		if (p->sym)
			p->sym->cexpr = xstrdup(p->slot == SLOT_KEY ? k : v);
}

static void op_comment(Gen *g, IrNode *n, const char *what)
{
	if (g->opts->line_directives)
		pr(g->out, "#line %d %s\n", n->span.line, c_string(n->span.file->path, strlen(n->span.file->path)));
	pr(g->out, "/* %s:%d: %s */\n", n->span.file->path, n->span.line, what);
}

/*
 * Emits the children of n.  With several children, each but the last runs
 * in its own block and may not 'continue' out of the record.
 */
static void emit_children(Gen *g, IrNode *n, const char *k, const char *v)
{
	bool tail = g->tail;
	for (int i = 0; i < n->nchildren; i++) {
		bool last = i == n->nchildren - 1;
		g->tail = tail && last;
		if (n->nchildren > 1) {
			pr(g->out, "{\n");
			g->out->indent++;
		}
		g->from = n;
		emit_node(g, n->children[i], k, v);
		if (n->nchildren > 1) {
			g->out->indent--;
			pr(g->out, "}\n");
		}
	}
	g->tail = tail;
}

/* c without one pair of enclosing parentheses, for if (...). */
static char *strip_parens(const char *c)
{
	size_t n = strlen(c);
	if (n < 2 || c[0] != '(' || c[n - 1] != ')')
		return xstrdup(c);
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		depth += c[i] == '(' ? 1 : c[i] == ')' ? -1 : 0;
		if (depth == 0 && i < n - 1)
			return xstrdup(c);
	}
	return xstrndup(c + 1, n - 2);
}

/* !c, without a double negation when c is already "(!x)". */
static char *negate(const char *c)
{
	size_t n = strlen(c);
	if (c[0] == '!' && simple_expr(c + 1))
		return xstrdup(c + 1);
	if (n > 3 && c[0] == '(' && c[1] == '!' && c[n - 1] == ')') {
		int depth = 0;
		bool whole = true;
		for (size_t i = 0; i < n; i++) {
			depth += c[i] == '(' ? 1 : c[i] == ')' ? -1 : 0;
			if (depth == 0 && i < n - 1)
				whole = false;
		}
		if (whole)
			return xstrndup(c + 2, n - 3);
	}
	if (simple_expr(c) || strcmp(strip_parens(c), c) != 0)
		return xasprintf("!%s", c);
	return xasprintf("!(%s)", c);
}

/* Emits a guarded continuation: children run only when cond holds. */
static void emit_guarded(Gen *g, IrNode *n, const char *cond, const char *k, const char *v)
{
	if (n->nchildren == 0)
		return;
	if (g->tail) {
		pr(g->out, "if (%s)\n\t%s;\n", negate(cond), skip_stmt(g));
		emit_children(g, n, k, v);
		return;
	}
	pr(g->out, "if (%s) {\n", strip_parens(cond));
	g->out->indent++;
	emit_children(g, n, k, v);
	g->out->indent--;
	pr(g->out, "}\n");
}

/* Declares a variable and emits what follows; marks it (void) if unused. */
static void emit_with_var(Gen *g, IrNode *n, const char *decl_type, const char *name, const char *init,
                          const char *k, const char *v)
{
	pr(g->out, "%s %s = %s;\n", decl_type, name, init);
	Printer sub;
	pr_init(&sub);
	sub.indent = g->out->indent;
	Printer *saved = g->out;
	g->out = &sub;
	emit_children(g, n, k, v);
	g->out = saved;
	if (!sub.buf || !text_uses(sub.buf, name))
		pr(g->out, "(void)%s;\n", name);
	if (sub.buf)
		pr_raw(g->out, sub.buf, sub.len);
	pr_free(&sub);
}

/*
 * Sets <role>_bytes for a sink: the input's own bytes when the variable is
 * still the source's decoded key or value in the same format (no encoding,
 * unknown JSON fields kept), else the generated encoder's output.  In a
 * merge segment the source is known only at run time, so the check is too.
 */
static void emit_sink_bytes(Gen *g, const char *role, const char *var, const char *raw_var, Type *t, Format f,
                            Type *src_type, Format src_format)
{
	char *enc = NULL;
	bool is_raw = raw_var && strcmp(var, raw_var) == 0;
	if (is_raw && !g->in_segment && f == src_format && t == src_type) {
		pr(g->out, "%s_bytes = m->%s; /* unchanged: the input's bytes */\n", role, role);
		return;
	}
	enc = need(g, H_ENCODE, t, f);
	if (is_raw && g->in_segment) {
		pr(g->out, "if (raw_%s && cx->source->%s_format == %s)\n", role, role, stoat_format_enum(f));
		pr(g->out, "\t%s_bytes = cx->msg->%s; /* unchanged: the input's bytes */\n", role, role);
		pr(g->out, "else if (!%s(cx, &cx->%s_buf, &%s, &%s_bytes))\n\t%s;\n", enc, role, var, role, fail_stmt(g));
		return;
	}
	pr(g->out, "if (!%s(cx, &cx->%s_buf, &%s, &%s_bytes))\n\t%s;\n", enc, role, var, role, fail_stmt(g));
}

static void emit_sink(Gen *g, IrNode *n, const char *k, const char *v)
{
	if (n->topic) {
		char *lit = c_string(n->topic, strlen(n->topic));
		char what[512];
		snprintf(what, sizeof what, "%s %s", n->internal ? "repartition through" : "to", lit);
		op_comment(g, n, what);
	} else {
		op_comment(g, n, "to (topic chosen per record)");
	}
	pr(g->out, "{\n");
	g->out->indent++;
	char *topic = xstrdup("((stoat_str){ NULL, 0 })");
	if (n->lambda) {
		bind_lambda(n->lambda, k, v);
		topic = emit_as(g, n->lambda->a, ty_string);
	}
	pr(g->out, "stoat_str key_bytes, value_bytes;\n");
	emit_sink_bytes(g, "key", k, g->raw_key, n->key, n->key_format, g->source ? g->source->key : NULL,
	                g->source ? g->source->key_format : FMT_BYTES);
	emit_sink_bytes(g, "value", v, g->raw_value, n->val, n->value_format, g->source ? g->source->val : NULL,
	                g->source ? g->source->value_format : FMT_BYTES);
	pr(g->out, "stoat_emit(cx, %d, %s, key_bytes, value_bytes);\n", n->index, topic);
	pr(g->out, "if (STOAT_UNLIKELY(cx->error))\n\t%s;\n", fail_stmt(g));
	g->out->indent--;
	pr(g->out, "}\n");
}

/*
 * Passes a store update on: when stoat_store_put (or delete) says the
 * update goes downstream now, calls the store's after_ function directly;
 * otherwise the record cache holds it and flush_<store> passes it on later.
 * `op` is the put or delete call; old_v and new_v the key's old and new
 * values (C expressions of type V?).
 */
static void emit_store_write(Gen *g, IrNode *n, const char *op, const char *key, const char *old_v,
                             const char *new_v)
{
	Store *st = &g->topo->stores[n->store];
	if (n->nchildren == 0) {
		pr(g->out, "(void)%s; /* nothing downstream */\n", op);
		pr(g->out, "if (STOAT_UNLIKELY(cx->error))\n\t%s;\n", fail_stmt(g));
		return;
	}
	pr(g->out, "bool now%d = %s;\n", n->id, op);
	pr(g->out, "if (STOAT_UNLIKELY(cx->error))\n\t%s;\n", fail_stmt(g));
	pr(g->out, "if (now%d && !after_%s(cx, %s, %s, %s))\n\t%s;\n", n->id, st->cname, key, old_v, new_v,
	   fail_stmt(g));
}

/*
 * Reads the current value of a store key: declares sk<id> (the key's
 * bytes, copied to the arena so that later encodings cannot move them)
 * and old<id> (the value, of type V?, has false when the key is absent).
 */
static void emit_store_read(Gen *g, IrNode *n, const char *key)
{
	Type *kt = n->key;
	char *key_fn = need(g, H_STORE_KEY, kt, FMT_JSON);
	char *read_fn = need(g, H_STORE_VALUE_READ, n->val, FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", key_fn, key);
	pr(g->out, "stoat_str sk%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->key_buf));\n", n->id);
	pr(g->out, "stoat_str stored%d;\n", n->id);
	pr(g->out, "%s old%d = { .has = false };\n", type_c(ty_nullable(n->val)), n->id);
	pr(g->out, "old%d.has = stoat_store_get(cx, %d, sk%d, &stored%d);\n", n->id, n->store, n->id, n->id);
	pr(g->out, "if (STOAT_UNLIKELY(cx->error))\n\t%s;\n", fail_stmt(g));
	pr(g->out, "if (old%d.has && !%s(cx, stored%d, &old%d.v))\n\t%s;\n", n->id, read_fn, n->id, n->id,
	   fail_stmt(g));
}

/* Writes new_v (of the store's value type) under sk<id>, and passes the change on. */
static void emit_store_put(Gen *g, IrNode *n, const char *key, const char *new_v)
{
	char *put_fn = need(g, H_STORE_VALUE_PUT, n->val, FMT_JSON);
	pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s);\n", put_fn, new_v);
	char *op = xasprintf("stoat_store_put(cx, %d, sk%d, stoat_buf_str(&cx->value_buf))", n->store, n->id);
	char *nv = xasprintf("((%s){ .has = true, .v = %s })", type_c(ty_nullable(n->val)), new_v);
	emit_store_write(g, n, op, key, xasprintf("old%d", n->id), nv);
}

/* Deletes the key sk<id> if it has a value, and passes the deletion on. */
static void emit_store_delete(Gen *g, IrNode *n, const char *key)
{
	pr(g->out, "if (old%d.has) {\n", n->id);
	g->out->indent++;
	char *op = xasprintf("stoat_store_delete(cx, %d, sk%d)", n->store, n->id);
	emit_store_write(g, n, op, key, xasprintf("old%d", n->id),
	                 xasprintf("((%s){ .has = false })", type_c(ty_nullable(n->val))));
	g->out->indent--;
	pr(g->out, "}\n");
}

/* The index of `in` among the cogroup node's inputs. */
static int cogroup_input(IrNode *cg, IrNode *in)
{
	for (int i = 0; i < cg->nparents; i++)
		if (cg->parents[i] == in)
			return i;
	assert(!"not an input of the cogroup");
	return 0;
}

/*
 * Binds the parameters of an aggregation's adder or subtractor: (v, acc)
 * or (k, v, acc) for aggregate, (acc, v) or (k, acc, v) for reduce.
 */
static void bind_folder(Node *fn, bool is_reduce, const char *k, const char *v, const char *acc)
{
	int np = node_list_len(fn->list);
	for (Node *p = fn->list; p; p = p->next) {
		if (!p->sym)
			continue;
		int slot = np == 3 ? p->slot : p->slot + 1; /* 0 key, then the two others */
		const char *x = slot == 0 ? k : (slot == 1) == is_reduce ? acc : v;
		p->sym->cexpr = xstrdup(x);
	}
}

/*
 * count / reduce / aggregate of a grouped stream: read the key's current
 * value from the store, fold the record in, write it back, and pass the
 * change (old and new value) on to the store's downstream.  `in` is the
 * grouped stream the record comes from (one of several after cogroup) and
 * `adder` its function.  Records with a null key or value are ignored, as
 * in Kafka Streams.  Store keys use the order-preserving key layout,
 * values the compact value layout (runtime.h).
 */
static void emit_stream_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, const char *k, const char *v)
{
	Type *kt = in->key, *vt = in->val;
	const char *kv = k, *vv = v;
	char *guard = NULL;
	if (kt->kind == TY_NULLABLE && vt->kind == TY_NULLABLE)
		guard = xasprintf("%s.has && %s.has", k, v);
	else if (kt->kind == TY_NULLABLE)
		guard = xasprintf("%s.has", k);
	else if (vt->kind == TY_NULLABLE)
		guard = xasprintf("%s.has", v);
	if (guard) {
		pr(g->out, "if (%s) {\n", guard);
		g->out->indent++;
	}
	if (kt->kind == TY_NULLABLE)
		kv = xasprintf("%s.v", k);
	if (vt->kind == TY_NULLABLE)
		vv = xasprintf("%s.v", v);
	pr(g->out, "{\n");
	g->out->indent++;
	emit_store_read(g, n, kv);
	char *old = xasprintf("old%d", n->id), *nv = xasprintf("v%d", n->id);
	const char *acc = xasprintf("%s.v", old);
	pr(g->out, "%s %s;\n", type_c(n->val), nv);
	switch (n->agg_kind) {
	case AGG_COUNT: {
		char *t = hoist(g, ty_i64, xasprintf("stoat_add_i64(cx, %s.has ? %s : 0, 1)", old, acc), true);
		pr(g->out, "%s = %s;\n", nv, t);
		break;
	}
	case AGG_REDUCE: {
		/* The first value of a key is its aggregate as it is. */
		pr(g->out, "if (!%s.has) {\n", old);
		pr(g->out, "\t%s = %s;\n", nv, vv);
		pr(g->out, "} else {\n");
		g->out->indent++;
		bind_folder(adder, true, kv, vv, acc);
		char *x = emit_as(g, adder->a, n->val);
		pr(g->out, "%s = %s;\n", nv, x);
		g->out->indent--;
		pr(g->out, "}\n");
		break;
	}
	case AGG_AGGREGATE: {
		/* A new key starts from the initial value (evaluated only then). */
		char *cur = xasprintf("acc%d", n->id);
		pr(g->out, "%s %s;\n", type_c(n->val), cur);
		pr(g->out, "if (%s.has) {\n\t%s = %s;\n} else {\n", old, cur, acc);
		g->out->indent++;
		char *init = emit_as(g, n->init, n->val);
		pr(g->out, "%s = %s;\n", cur, init);
		g->out->indent--;
		pr(g->out, "}\n");
		bind_folder(adder, false, kv, vv, cur);
		char *x = emit_as(g, adder->a, n->val);
		pr(g->out, "%s = %s;\n", nv, x);
		break;
	}
	}
	emit_store_put(g, n, kv, nv);
	g->out->indent--;
	pr(g->out, "}\n");
	if (guard) {
		g->out->indent--;
		pr(g->out, "} else {\n");
		pr(g->out, "\tstoat_record_dropped(cx, \"null key or value for table %s\");\n",
		   g->topo->stores[n->store].name);
		pr(g->out, "}\n");
	}
}

/*
 * count / reduce / aggregate of a grouped table, in the pipeline of the
 * internal topic its changes are repartitioned through (g->sub and g->add
 * hold the change's values to subtract and to add, each V?).  As in Kafka
 * Streams: the subtractor takes the old value out of the key's aggregate
 * (when there is one), then the adder puts the new value in (starting
 * from the initial value, or for reduce the value itself, when the key
 * has none); a change that leaves the key without an aggregate is dropped.
 * count() adds and subtracts 1.
 */
static void emit_table_aggregate(Gen *g, IrNode *n, const char *k)
{
	const char *sub = g->sub, *add = g->add;
	pr(g->out, "{\n");
	g->out->indent++;
	emit_store_read(g, n, k);
	char *acc = xasprintf("acc%d", n->id), *has = xasprintf("has%d", n->id);
	pr(g->out, "%s %s = old%d.v;\n", type_c(n->val), acc, n->id);
	pr(g->out, "bool %s = old%d.has;\n", has, n->id);
	char *subv = xasprintf("%s.v", sub), *addv = xasprintf("%s.v", add);
	/* Out with the old value. */
	pr(g->out, "if (%s && %s.has) {\n", has, sub);
	g->out->indent++;
	if (n->agg_kind == AGG_COUNT) {
		char *t = hoist(g, ty_i64, xasprintf("stoat_sub_i64(cx, %s, 1)", acc), true);
		pr(g->out, "%s = %s;\n", acc, t);
	} else {
		bind_folder(n->subtractor, n->agg_kind == AGG_REDUCE, k, subv, acc);
		char *x = emit_as(g, n->subtractor->a, n->val);
		pr(g->out, "%s = %s;\n", acc, x);
	}
	g->out->indent--;
	pr(g->out, "}\n");
	/* In with the new one. */
	pr(g->out, "if (%s.has) {\n", add);
	g->out->indent++;
	switch (n->agg_kind) {
	case AGG_COUNT: {
		char *t = hoist(g, ty_i64, xasprintf("stoat_add_i64(cx, %s ? %s : 0, 1)", has, acc), true);
		pr(g->out, "%s = %s;\n", acc, t);
		break;
	}
	case AGG_REDUCE: {
		pr(g->out, "if (!%s) {\n\t%s = %s;\n} else {\n", has, acc, addv);
		g->out->indent++;
		bind_folder(n->lambda, true, k, addv, acc);
		char *x = emit_as(g, n->lambda->a, n->val);
		pr(g->out, "%s = %s;\n", acc, x);
		g->out->indent--;
		pr(g->out, "}\n");
		break;
	}
	case AGG_AGGREGATE: {
		pr(g->out, "if (!%s) {\n", has);
		g->out->indent++;
		char *init = emit_as(g, n->init, n->val);
		pr(g->out, "%s = %s;\n", acc, init);
		g->out->indent--;
		pr(g->out, "}\n");
		bind_folder(n->lambda, false, k, addv, acc);
		char *x = emit_as(g, n->lambda->a, n->val);
		pr(g->out, "%s = %s;\n", acc, x);
		break;
	}
	}
	pr(g->out, "%s = true;\n", has);
	g->out->indent--;
	pr(g->out, "}\n");
	pr(g->out, "if (%s) {\n", has);
	g->out->indent++;
	emit_store_put(g, n, k, acc);
	g->out->indent--;
	pr(g->out, "}\n");
	g->out->indent--;
	pr(g->out, "}\n");
}

/* An aggregation node: its comment, then the stream or table flavour. */
static void emit_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, const char *k, const char *v)
{
	static const char *names[] = { "count", "reduce", "aggregate" };
	Store *st = &g->topo->stores[n->store];
	char what[300];
	if (in->group_table)
		snprintf(what, sizeof what, "%s (store %s): the old value out of its group, the new one in",
		         names[n->agg_kind], st->name);
	else if (n->parents[0]->kind == IR_COGROUP)
		snprintf(what, sizeof what, "cogroup and %s (store %s), input %d of %d", names[n->agg_kind], st->name,
		         cogroup_input(n->parents[0], in) + 1, n->parents[0]->nparents);
	else
		snprintf(what, sizeof what, "%s (store %s)", names[n->agg_kind], st->name);
	op_comment(g, n, what);
	if (in->group_table)
		emit_table_aggregate(g, n, k);
	else
		emit_stream_aggregate(g, n, in, adder, k, v);
}

/*
 * to_table(): the stream's latest value per key, kept in the store; a
 * null value deletes its key, a record with a null key is dropped.
 */
static void emit_to_table(Gen *g, IrNode *n, const char *k, const char *v)
{
	Store *st = &g->topo->stores[n->store];
	IrNode *in = n->parents[0];
	char *what = xasprintf("to_table (store %s): the latest value per key%s", st->name,
	                       in->val->kind == TY_NULLABLE ? "; a null value deletes its key" : "");
	op_comment(g, n, what);
	const char *kv = k;
	bool guard = in->key->kind == TY_NULLABLE;
	if (guard) {
		pr(g->out, "if (%s.has) {\n", k);
		g->out->indent++;
		kv = xasprintf("%s.v", k);
	}
	pr(g->out, "{\n");
	g->out->indent++;
	emit_store_read(g, n, kv);
	if (in->val->kind == TY_NULLABLE) {
		pr(g->out, "if (!%s.has) {\n", v);
		g->out->indent++;
		emit_store_delete(g, n, kv);
		g->out->indent--;
		pr(g->out, "} else {\n");
		g->out->indent++;
		emit_store_put(g, n, kv, xasprintf("%s.v", v));
		g->out->indent--;
		pr(g->out, "}\n");
	} else {
		emit_store_put(g, n, kv, v);
	}
	g->out->indent--;
	pr(g->out, "}\n");
	if (guard) {
		g->out->indent--;
		pr(g->out, "} else {\n");
		pr(g->out, "\tstoat_record_dropped(cx, \"null key for table %s\");\n", st->name);
		pr(g->out, "}\n");
	}
}

/*
 * Writes one record of a grouped table's change to the internal topic of
 * sink: the key in the sink's key format (so it is partitioned like any
 * key), the value a flags byte (STOAT_CHANGE_OLD: subtract it,
 * STOAT_CHANGE_NEW: add it) and the value in the store value layout.
 */
static void emit_change_record(Gen *g, IrNode *sink, const char *k, const char *v, const char *flag)
{
	pr(g->out, "{\n");
	g->out->indent++;
	pr(g->out, "stoat_str key_bytes;\n");
	pr(g->out, "if (!%s(cx, &cx->key_buf, &%s, &key_bytes))\n\t%s;\n",
	   need(g, H_ENCODE, sink->key, sink->key_format), k, fail_stmt(g));
	pr(g->out, "cx->value_buf.len = 0;\nstoat_change_put_flags(&cx->value_buf, %s);\n", flag);
	pr(g->out, "%s(&cx->value_buf, &%s);\n", need(g, H_STORE_VALUE_PUT, sink->val, FMT_JSON), v);
	pr(g->out, "stoat_emit(cx, %d, ((stoat_str){ NULL, 0 }), key_bytes, stoat_buf_str(&cx->value_buf));\n",
	   sink->index);
	pr(g->out, "if (STOAT_UNLIKELY(cx->error))\n\t%s;\n", fail_stmt(g));
	g->out->indent--;
	pr(g->out, "}\n");
}

/*
 * group_by((k, v) => (key, value)) on a table: the old value, re-keyed,
 * goes out to be subtracted from its group, then the new value, re-keyed,
 * to be added to its own (two records, as Kafka Streams sends them); a
 * pair with a null key or value is dropped.
 */
static void emit_regroup(Gen *g, IrNode *n, const char *k, const char *old_v, const char *new_v)
{
	op_comment(g, n, "group_by (table): the old value leaves its group, the new value joins its group");
	IrNode *sink = n->children[0];
	Node *body = n->lambda->a;
	Type *pt = body->type;
	const char *vars[2] = { old_v, new_v };
	const char *flags[2] = { "STOAT_CHANGE_OLD", "STOAT_CHANGE_NEW" };
	for (int i = 0; i < 2; i++) {
		pr(g->out, "if (%s.has) {\n", vars[i]);
		g->out->indent++;
		bind_lambda(n->lambda, k, xasprintf("%s.v", vars[i]));
		char *kk = xasprintf("k%d_%s", n->id, i ? "new" : "old"), *vv = xasprintf("v%d_%s", n->id, i ? "new" : "old");
		if (body->kind == N_TUPLE) {
			char *ke = emit_as(g, body->list, pt->key);
			char *ve = emit_as(g, body->list->next, pt->val);
			pr(g->out, "%s %s = %s;\n", type_c(pt->key), kk, ke);
			pr(g->out, "%s %s = %s;\n", type_c(pt->val), vv, ve);
		} else {
			char *t = hoist(g, pt, emit_expr(g, body), false);
			pr(g->out, "%s %s = %s.k;\n", type_c(pt->key), kk, t);
			pr(g->out, "%s %s = %s.v;\n", type_c(pt->val), vv, t);
		}
		char *guard = NULL;
		if (pt->key->kind == TY_NULLABLE && pt->val->kind == TY_NULLABLE)
			guard = xasprintf("%s.has && %s.has", kk, vv);
		else if (pt->key->kind == TY_NULLABLE)
			guard = xasprintf("%s.has", kk);
		else if (pt->val->kind == TY_NULLABLE)
			guard = xasprintf("%s.has", vv);
		if (guard) {
			pr(g->out, "if (%s) {\n", guard);
			g->out->indent++;
		}
		emit_change_record(g, sink, pt->key->kind == TY_NULLABLE ? xasprintf("%s.v", kk) : kk,
		                   pt->val->kind == TY_NULLABLE ? xasprintf("%s.v", vv) : vv, flags[i]);
		if (guard) {
			g->out->indent--;
			pr(g->out, "} else {\n");
			pr(g->out, "\tstoat_record_dropped(cx, \"null group key or value\");\n");
			pr(g->out, "}\n");
		}
		g->out->indent--;
		pr(g->out, "}\n");
	}
}

static void emit_change_children(Gen *g, IrNode *n, const char *k, const char *old_v, const char *new_v);

/*
 * filter / filter_not on a table: each of the change's values is kept if
 * it passes, so a key whose new value fails while its old value passed is
 * deleted downstream (a change with no new value), and a change where
 * neither passes goes no further (as Kafka Streams with old values sent).
 */
static void emit_table_filter(Gen *g, IrNode *n, const char *k, const char *old_v, const char *new_v)
{
	op_comment(g, n, n->kind == IR_FILTER ? "filter (table): a key whose new value fails is deleted downstream"
	                                      : "filter_not (table): a key whose new value holds is deleted downstream");
	const char *ot = type_c(ty_nullable(n->val));
	char *o = xasprintf("old%d", n->id), *nw = xasprintf("new%d", n->id);
	pr(g->out, "%s %s = { .has = false }, %s = { .has = false };\n", ot, o, nw);
	const char *ins[2] = { old_v, new_v }, *outs[2] = { o, nw };
	for (int i = 0; i < 2; i++) {
		pr(g->out, "if (%s.has) {\n", ins[i]);
		g->out->indent++;
		bind_lambda(n->lambda, k, xasprintf("%s.v", ins[i]));
		char *c = emit_expr(g, n->lambda->a);
		pr(g->out, "if (%s)\n\t%s = %s;\n", strip_parens(n->kind == IR_FILTER ? c : negate(c)), outs[i], ins[i]);
		g->out->indent--;
		pr(g->out, "}\n");
	}
	pr(g->out, "if (%s.has || %s.has) {\n", o, nw);
	g->out->indent++;
	emit_change_children(g, n, k, o, nw);
	g->out->indent--;
	pr(g->out, "}\n");
}

/*
 * Does what follows table node n look at the old values of its changes?
 * A filter does (to tell whether a key it drops had passed before), and a
 * table's group_by (to take the old value out of its group); to_stream
 * does not; map_values does if what follows it does.
 */
static bool needs_old(IrNode *n)
{
	for (int i = 0; i < n->nchildren; i++) {
		IrNode *c = n->children[i];
		if (c->kind == IR_FILTER || c->kind == IR_FILTER_NOT || c->kind == IR_REGROUP)
			return true;
		if (c->kind == IR_MAP_VALUES && needs_old(c))
			return true;
	}
	return false;
}

/*
 * map_values on a table: the new value mapped, and the old one too when
 * something downstream looks at it (Kafka Streams computes old values
 * only when they are asked for, too).
 */
static void emit_table_map_values(Gen *g, IrNode *n, const char *k, const char *old_v, const char *new_v)
{
	bool old = needs_old(n);
	op_comment(g, n, old ? "map_values (table): the old and the new value" : "map_values (table): the new value");
	const char *ot = type_c(ty_nullable(n->val));
	char *o = xasprintf("old%d", n->id), *nw = xasprintf("new%d", n->id);
	if (old)
		pr(g->out, "%s %s = { .has = false }, %s = { .has = false };\n", ot, o, nw);
	else
		pr(g->out, "%s %s = { .has = false };\n", ot, nw);
	const char *ins[2] = { old_v, new_v }, *outs[2] = { o, nw };
	if (!old)
		o = xasprintf("((%s){ .has = false })", ot);
	for (int i = old ? 0 : 1; i < 2; i++) {
		pr(g->out, "if (%s.has) {\n", ins[i]);
		g->out->indent++;
		bind_lambda(n->lambda, k, xasprintf("%s.v", ins[i]));
		char *x = emit_as(g, n->lambda->a, n->val);
		pr(g->out, "%s.v = %s;\n%s.has = true;\n", outs[i], x, outs[i]);
		g->out->indent--;
		pr(g->out, "}\n");
	}
	emit_change_children(g, n, k, o, nw);
}

/*
 * Emits what a table node's change (key k, old and new values old_v and
 * new_v, C expressions of type V?) does in the downstream node n.
 */
static void emit_change_node(Gen *g, IrNode *n, const char *k, const char *old_v, const char *new_v)
{
	switch (n->kind) {
	case IR_TO_STREAM:
		/* The stream of the table's changes: each new value (null: the key was deleted). */
		op_comment(g, n, "to_stream");
		emit_children(g, n, k, n->parents[0]->may_delete ? new_v : xasprintf("%s.v", new_v));
		break;
	case IR_FILTER:
	case IR_FILTER_NOT:
		emit_table_filter(g, n, k, old_v, new_v);
		break;
	case IR_MAP_VALUES:
		emit_table_map_values(g, n, k, old_v, new_v);
		break;
	case IR_REGROUP:
		emit_regroup(g, n, k, old_v, new_v);
		break;
	default:
		assert(!"unexpected node downstream of a table");
	}
}

/* Like emit_children, for the nodes downstream of a table. */
static void emit_change_children(Gen *g, IrNode *n, const char *k, const char *old_v, const char *new_v)
{
	bool tail = g->tail;
	for (int i = 0; i < n->nchildren; i++) {
		g->tail = tail && i == n->nchildren - 1;
		if (n->nchildren > 1) {
			pr(g->out, "{\n");
			g->out->indent++;
		}
		emit_change_node(g, n->children[i], k, old_v, new_v);
		if (n->nchildren > 1) {
			g->out->indent--;
			pr(g->out, "}\n");
		}
	}
	g->tail = tail;
}

static void emit_node(Gen *g, IrNode *n, const char *k, const char *v)
{
	char *nk = xasprintf("k%d", n->id);
	char *nv = xasprintf("v%d", n->id);
	switch (n->kind) {
	case IR_FILTER:
	case IR_FILTER_NOT: {
		op_comment(g, n, ir_kind_name(n->kind));
		bind_lambda(n->lambda, k, v);
		char *c = emit_expr(g, n->lambda->a);
		emit_guarded(g, n, n->kind == IR_FILTER ? c : negate(c), k, v);
		break;
	}
	case IR_MAP_VALUES:
		op_comment(g, n, "map_values");
		bind_lambda(n->lambda, k, v);
		emit_with_var(g, n, type_c(n->val), nv, emit_as(g, n->lambda->a, n->val), k, nv);
		break;
	case IR_SELECT_KEY:
		op_comment(g, n, "select_key");
		bind_lambda(n->lambda, k, v);
		emit_with_var(g, n, type_c(n->key), nk, emit_as(g, n->lambda->a, n->key), nk, v);
		break;
	case IR_MAP: {
		op_comment(g, n, "map");
		bind_lambda(n->lambda, k, v);
		Node *body = n->lambda->a;
		if (body->kind == N_TUPLE) {
			char *kk = emit_as(g, body->list, n->key);
			char *vv = emit_as(g, body->list->next, n->val);
			pr(g->out, "%s %s = %s;\n", type_c(n->key), nk, kk);
			emit_with_var(g, n, type_c(n->val), nv, vv, nk, nv);
		} else {
			char *p = emit_expr(g, body);
			char *t = hoist(g, body->type, p, false);
			pr(g->out, "%s %s = %s.k;\n", type_c(n->key), nk, t);
			emit_with_var(g, n, type_c(n->val), nv, xasprintf("%s.v", t), nk, nv);
		}
		break;
	}
	case IR_FLAT_MAP:
	case IR_FLAT_MAP_VALUES: {
		op_comment(g, n, ir_kind_name(n->kind));
		bind_lambda(n->lambda, k, v);
		char *arr = emit_expr(g, n->lambda->a);
		if (!simple_expr(arr))
			arr = hoist(g, n->lambda->a->type, arr, false);
		char *i = xasprintf("i%d", n->id);
		pr(g->out, "for (size_t %s = 0; %s < %s.len; %s++) {\n", i, i, arr, i);
		g->out->indent++;
		bool tail = g->tail;
		g->loop_depth++;
		g->tail = true;
		if (n->kind == IR_FLAT_MAP) {
			pr(g->out, "%s %s = %s.items[%s].k;\n", type_c(n->key), nk, arr, i);
			emit_with_var(g, n, type_c(n->val), nv, xasprintf("%s.items[%s].v", arr, i), nk, nv);
		} else {
			emit_with_var(g, n, type_c(n->val), nv, xasprintf("%s.items[%s]", arr, i), k, nv);
		}
		g->loop_depth--;
		g->tail = tail;
		g->out->indent--;
		pr(g->out, "}\n");
		break;
	}
	case IR_PEEK: {
		op_comment(g, n, "peek");
		bind_lambda(n->lambda, k, v);
		char *x = emit_expr(g, n->lambda->a);
		pr(g->out, "(void)%s;\n", x);
		emit_children(g, n, k, v);
		break;
	}
	case IR_MERGE: {
		op_comment(g, n, "merge");
		/* Tell the segment whether key and value are still the input's. */
		const char *rk = g->raw_key && strcmp(k, g->raw_key) == 0 ? (g->in_segment ? "raw_key" : "true") : "false";
		const char *rv = g->raw_value && strcmp(v, g->raw_value) == 0 ? (g->in_segment ? "raw_value" : "true") : "false";
		pr(g->out, "if (!segment_%d(cx, %s, %s, %s, %s))\n\t%s;\n", n->id, k, v, rk, rv, fail_stmt(g));
		break;
	}
	case IR_SPLIT: {
		op_comment(g, n, "split");
		int opened = 0;
		for (int i = 0; i < n->nchildren; i++) {
			IrNode *br = n->children[i];
			if (!br->lambda) {
				pr(g->out, "/* branch %s (default) */\n", br->name);
				emit_children(g, br, k, v);
				break;
			}
			bind_lambda(br->lambda, k, v);
			/*
			 * After "} else {" a condition's statements run only when
			 * the earlier branches did not match; plain conditions
			 * chain as "} else if".
			 */
			char *c = emit_expr(g, br->lambda->a);
			pr(g->out, "if (%s) {\n", strip_parens(c));
			g->out->indent++;
			pr(g->out, "/* branch %s (%s:%d) */\n", br->name, br->span.file->path, br->span.line);
			emit_children(g, br, k, v);
			g->out->indent--;
			if (i == n->nchildren - 1) {
				pr(g->out, "}\n");
				break;
			}
			IrNode *next = n->children[i + 1];
			char *probe = NULL;
			if (next->lambda) {
				/* Peek whether the next condition is a plain expression. */
				int saved_tmp = g->tmp;
				bind_lambda(next->lambda, k, v);
				emit_lazy(g, next->lambda->a, NULL, &probe);
				g->tmp = saved_tmp;
			}
			if (next->lambda && probe && !*probe) {
				pr(g->out, "} else ");
			} else {
				pr(g->out, "} else {\n");
				g->out->indent++;
				opened++;
			}
		}
		while (opened--) {
			g->out->indent--;
			pr(g->out, "}\n");
		}
		break;
	}
	case IR_SINK:
		emit_sink(g, n, k, v);
		break;
	case IR_SOURCE:
	case IR_BRANCH:
	case IR_GROUP:
	case IR_TO_STREAM:
		emit_children(g, n, k, v);
		break;
	case IR_AGGREGATE:
		emit_aggregate(g, n, n->parents[0], n->lambda, k, v);
		break;
	case IR_COGROUP: {
		/* This input's adder folds the record into the shared aggregate. */
		IrNode *in = n->parents[cogroup_input(n, g->from)];
		emit_aggregate(g, n->children[0], in, n->adders[cogroup_input(n, in)], k, v);
		break;
	}
	case IR_TO_TABLE:
		emit_to_table(g, n, k, v);
		break;
	case IR_REGROUP:
		assert(!"a table's group_by is emitted from its changes");
		break;
	}
}

/*
 * table NAME: K -> V from "topic": records with a null key are dropped; a
 * null value deletes its key (if it has a value), any other is the key's
 * new value.  The change goes on through after_<table>.
 */
static void emit_table_source(Gen *g, IrNode *src, const char *k, const char *v)
{
	pr(g->out, "/* A table drops records with a null key, as Kafka Streams does. */\n");
	pr(g->out, "if (!m->key.ptr) {\n\tstoat_record_dropped(cx, \"null key for table %s\");\n\tcontinue;\n}\n",
	   g->topo->stores[src->store].name);
	char *dk = need(g, H_DECODE, src->key, src->key_format);
	pr(g->out, "%s %s;\n", type_c(src->key), k);
	pr(g->out, "if (!%s(cx, m->key, \"key\", &%s))\n\t%s;\n", dk, k, fail_stmt(g));
	Store *st = &g->topo->stores[src->store];
	op_comment(g, src, xasprintf("table %s: the latest value per key; a null value deletes its key", st->name));
	emit_store_read(g, src, k);
	pr(g->out, "if (!m->value.ptr) {\n");
	g->out->indent++;
	emit_store_delete(g, src, k);
	g->out->indent--;
	pr(g->out, "} else {\n");
	g->out->indent++;
	char *dv = need(g, H_DECODE, src->val, src->value_format);
	pr(g->out, "%s %s;\n", type_c(src->val), v);
	pr(g->out, "if (!%s(cx, m->value, \"value\", &%s))\n\t%s;\n", dv, v, fail_stmt(g));
	emit_store_put(g, src, k, v);
	g->out->indent--;
	pr(g->out, "}\n");
}

/*
 * The internal topic of a table's group_by: each record is a change of a
 * group (a value to subtract, one to add) for the grouped table's
 * aggregation that follows.
 */
static void emit_change_source(Gen *g, IrNode *src, const char *k)
{
	char *dk = need(g, H_DECODE, src->key, src->key_format);
	pr(g->out, "%s %s;\n", type_c(src->key), k);
	pr(g->out, "if (!%s(cx, m->key, \"key\", &%s))\n\t%s;\n", dk, k, fail_stmt(g));
	char *sub = xasprintf("sub%d", src->id), *add = xasprintf("add%d", src->id);
	const char *ot = type_c(ty_nullable(src->val));
	pr(g->out, "%s %s, %s;\n", ot, sub, add);
	pr(g->out, "if (!%s(cx, m->value, &%s, &%s))\n\t%s;\n", need(g, H_CHANGE_READ, src->val, FMT_JSON), sub, add,
	   fail_stmt(g));
	g->sub = sub;
	g->add = add;
	emit_children(g, src, k, add);
	g->sub = g->add = NULL;
}

/* The function a source's records enter by: decode, then the operators. */
static void emit_pipeline(Gen *g, IrNode *src, Printer *p)
{
	Printer body;
	pr_init(&body);
	body.indent = 2;
	g->out = &body;
	g->in_segment = false;
	g->loop_depth = 0;
	g->tail = true;
	g->uses_fail = false;
	g->tmp = 0;
	g->source = src;
	char *k = xasprintf("k%d", src->id), *v = xasprintf("v%d", src->id);
	g->raw_key = k;
	g->raw_value = v;
	if (src->table) {
		emit_table_source(g, src, k, v);
	} else if (src->change) {
		emit_change_source(g, src, k);
	} else {
		char *dk = need(g, H_DECODE, src->key, src->key_format);
		char *dv = need(g, H_DECODE, src->val, src->value_format);
		pr(g->out, "%s %s;\n", type_c(src->key), k);
		pr(g->out, "if (!%s(cx, m->key, \"key\", &%s))\n\t%s;\n", dk, k, fail_stmt(g));
		pr(g->out, "%s %s;\n", type_c(src->val), v);
		pr(g->out, "if (!%s(cx, m->value, \"value\", &%s))\n\t%s;\n", dv, v, fail_stmt(g));
		Printer rest;
		pr_init(&rest);
		rest.indent = 2;
		g->out = &rest;
		emit_children(g, src, k, v);
		g->out = &body;
		if (!rest.buf || !text_uses(rest.buf, k))
			pr(&body, "(void)%s;\n", k);
		if (!rest.buf || !text_uses(rest.buf, v))
			pr(&body, "(void)%s;\n", v);
		if (rest.buf)
			pr_raw(&body, rest.buf, rest.len);
	}

	pr(p, "/*\n * %s %s: %s -> %s from %s (%s, %s)\n * %s:%d\n */\n", src->table ? "table" : "stream", src->name,
	   type_str(src->key),
	   type_str(src->val), c_string(src->topic, strlen(src->topic)), format_name(src->key_format),
	   format_name(src->value_format), src->span.file->path, src->span.line);
	pr(p, "static void pipeline_%s(stoat_ctx *cx, const stoat_msg *msgs, size_t n)\n{\n", src->name);
	pr(p, "\tfor (size_t i = 0; i < n; i++) {\n");
	pr(p, "\t\tconst stoat_msg *m = &msgs[i];\n");
	pr(p, "\t\tstoat_record_begin(cx, m);\n");
	pr_raw(p, body.buf, body.len);
	if (g->uses_fail) {
		pr(p, "\t\tcontinue;\n");
		pr(p, "\tfail:\n");
		pr(p, "\t\tif (!stoat_record_failed(cx))\n\t\t\treturn;\n");
	}
	pr(p, "\t}\n}\n\n");
	if (g->opts->line_directives)
		pr(p, "#line RESET\n"); /* fixed up once the file is assembled */
}

/* A merge's continuation, called directly by each merged pipeline. */
static void emit_segment(Gen *g, IrNode *m, Printer *p)
{
	Printer body;
	pr_init(&body);
	body.indent = 1;
	g->out = &body;
	g->in_segment = true;
	g->loop_depth = 0;
	g->tail = true;
	g->tmp = 0;
	char *k = xasprintf("k%d", m->id), *v = xasprintf("v%d", m->id);
	g->raw_key = k;
	g->raw_value = v;
	g->source = NULL;
	emit_children(g, m, k, v);
	pr(p, "/* merge (%s:%d) */\n", m->span.file->path, m->span.line);
	pr(p, "static bool segment_%d(stoat_ctx *cx, %s %s, %s %s, bool raw_key, bool raw_value)\n{\n", m->id,
	   type_c(m->key), k, type_c(m->val), v);
	const char *params[] = { k, v, "raw_key", "raw_value" };
	for (int i = 0; i < 4; i++)
		if (!body.buf || !text_uses(body.buf, params[i]))
			pr(p, "\t(void)%s;\n", params[i]);
	if (body.buf)
		pr_raw(p, body.buf, body.len);
	pr(p, "\treturn true;\n}\n\n");
}

/*
 * after_<store>: the store's downstream operators, run for each change of
 * a key (its old and new values, has false for none).  The pipeline that
 * wrote the store calls it directly when the store passes the update on at
 * once; flush_<store> calls it for the updates the record cache held back.
 * Returns false when the record failed (cx->error set), like a segment.
 */
static void emit_store_after(Gen *g, int si, Printer *p)
{
	Store *st = &g->topo->stores[si];
	IrNode *n = st->node;
	Printer body;
	pr_init(&body);
	body.indent = 1;
	g->out = &body;
	g->in_segment = true;
	g->loop_depth = 0;
	g->tail = true;
	g->tmp = 0;
	g->raw_key = g->raw_value = NULL;
	g->source = NULL;
	emit_change_children(g, n, "key", "old_v", "new_v");
	const char *vt = type_c(ty_nullable(n->val));
	pr(p, "/*\n * Store %s (%s:%d): what follows each change of a key.\n", st->name, n->span.file->path,
	   n->span.line);
	pr(p, " * Called by the pipeline when the store passes the update on at once,\n");
	pr(p, " * else by flush_%s.  Returns false when the record failed.\n */\n", st->cname);
	pr(p, "static bool after_%s(stoat_ctx *cx, %s key, %s old_v, %s new_v)\n{\n", st->cname, type_c(n->key), vt,
	   vt);
	const char *params[] = { "key", "old_v", "new_v" };
	for (int i = 0; i < 3; i++)
		if (!body.buf || !text_uses(body.buf, params[i]))
			pr(p, "\t(void)%s;\n", params[i]);
	if (body.buf)
		pr_raw(p, body.buf, body.len);
	pr(p, "\treturn true;\n}\n\n");
	pr_free(&body);
}

/*
 * flush_<store>: the updates the store's record cache held back, each
 * decoded (key, old and new value) and passed to after_<store> as the
 * pipeline would have; a failure goes to the error policy like a
 * pipeline's, but the update is not counted as an input record.
 */
static void emit_store_flush(Gen *g, int si, Printer *p)
{
	Store *st = &g->topo->stores[si];
	IrNode *n = st->node;
	const char *kt = type_c(n->key), *vt = type_c(ty_nullable(n->val));
	char *key_read = need(g, H_STORE_KEY_READ, n->key, FMT_JSON);
	char *val_read = need(g, H_STORE_VALUE_READ, n->val, FMT_JSON);
	pr(p, "/* Store %s: the updates its record cache held back, passed on to after_%s. */\n", st->name,
	   st->cname);
	pr(p, "static void flush_%s(stoat_ctx *cx, const stoat_store_update *u, size_t n)\n{\n", st->cname);
	pr(p, "\tfor (size_t i = 0; i < n; i++) {\n");
	p->indent = 2;
	pr(p, "cx->msg = &u[i].record;\ncx->error = false;\n");
	pr(p, "%s key;\n", kt);
	pr(p, "%s old_v = { .has = false }, new_v = { .has = false };\n", vt);
	pr(p, "if (!%s(cx, u[i].record.key, &key))\n\tgoto fail;\n", key_read);
	pr(p, "if (u[i].old_value.ptr) {\n\told_v.has = true;\n");
	pr(p, "\tif (!%s(cx, u[i].old_value, &old_v.v))\n\t\tgoto fail;\n}\n", val_read);
	pr(p, "if (u[i].record.value.ptr) {\n\tnew_v.has = true;\n");
	pr(p, "\tif (!%s(cx, u[i].record.value, &new_v.v))\n\t\tgoto fail;\n}\n", val_read);
	pr(p, "if (!after_%s(cx, key, old_v, new_v))\n\tgoto fail;\n", st->cname);
	pr(p, "continue;\n");
	p->indent = 1;
	pr(p, "fail:\n");
	p->indent = 2;
	pr(p, "if (!stoat_record_failed(cx))\n\treturn;\n");
	p->indent = 0;
	pr(p, "\t}\n}\n\n");
}

/* The C names of the stores: see Store.cname. */
static void name_stores(Topology *t)
{
	for (int i = 0; i < t->nstores; i++) {
		char *s = xstrdup(t->stores[i].name);
		for (char *c = s; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
				*c = '_';
		/* "store-2" must not take the name of a table called store_2. */
		for (int j = 0; j < t->nstores; j++)
			if (j != i && strcmp(s, t->stores[i].name) != 0 && strcmp(s, t->stores[j].name) == 0) {
				s = xasprintf("%s_%d", s, i);
				break;
			}
		t->stores[i].cname = s;
	}
}

/*
 * Marks in stores[] the stores that n and what follows it in the same
 * pipeline (through merges and store downstreams, up to sinks) write.
 */
static void collect_stores(IrNode *n, bool *seen, bool *stores)
{
	if (seen[n->id])
		return;
	seen[n->id] = true;
	if (n->has_store)
		stores[n->store] = true;
	for (int i = 0; i < n->nchildren; i++)
		collect_stores(n->children[i], seen, stores);
}

/* ------------------------------------------------------------------ */
/* Helpers: JSON readers/writers, decoders, encoders, indexing         */
/* ------------------------------------------------------------------ */

static void emit_json_read(Printer *p, Type *t)
{
	const char *name = helper_name(H_JSON_READ, t, FMT_JSON);
	const char *ct = type_c(t);
	pr(p, "static bool %s(stoat_json *j, %s *out)\n{\n", name, ct);
	switch (t->kind) {
	case TY_BOOL: pr(p, "\treturn stoat_json_bool(j, out);\n"); break;
	case TY_I32: pr(p, "\treturn stoat_json_i32(j, out);\n"); break;
	case TY_I64: case TY_TIMESTAMP: case TY_DURATION: pr(p, "\treturn stoat_json_i64(j, out);\n"); break;
	case TY_F64: pr(p, "\treturn stoat_json_f64(j, out);\n"); break;
	case TY_STRING: case TY_BYTES: pr(p, "\treturn stoat_json_string(j, out);\n"); break;
	case TY_NULLABLE:
		pr(p, "\tif (stoat_json_null(j)) {\n\t\tmemset(out, 0, sizeof *out); /* null */\n\t\treturn true;\n\t}\n");
		pr(p, "\tout->has = true;\n\treturn %s(j, &out->v);\n", helper_name(H_JSON_READ, t->elem, FMT_JSON));
		break;
	case TY_ARRAY:
		pr(p, "\tstoat_vec vec = { NULL, 0, 0 };\n\tbool first = true;\n");
		pr(p, "\tif (!stoat_json_array_begin(j))\n\t\treturn false;\n");
		pr(p, "\twhile (stoat_json_array_next(j, &first)) {\n");
		pr(p, "\t\t%s *item = stoat_vec_push(&j->cx->arena, &vec, sizeof *item);\n", type_c(t->elem));
		pr(p, "\t\tif (!%s(j, item))\n\t\t\treturn false;\n\t}\n", helper_name(H_JSON_READ, t->elem, FMT_JSON));
		pr(p, "\tif (j->cx->error)\n\t\treturn false;\n");
		pr(p, "\tout->items = vec.data;\n\tout->len = vec.len;\n\treturn true;\n");
		break;
	case TY_RECORD: {
		Record *r = t->rec;
		int nf = r->nfields;
		pr(p, "\tbool first = true;\n\tstoat_str name;\n");
		if (nf)
			pr(p, "\tbool seen[%d] = { false };\n", nf);
		pr(p, "\tmemset(out, 0, sizeof *out);\n");
		pr(p, "\tif (!stoat_json_object_begin(j))\n\t\treturn false;\n");
		pr(p, "\twhile (stoat_json_object_next(j, &first, &name)) {\n");
		if (nf) {
			/* Switch on the name's length, then compare. */
			pr(p, "\t\tswitch (name.len) {\n");
			size_t *lens = xcalloc((size_t)nf, sizeof *lens);
			for (int i = 0; i < nf; i++)
				lens[i] = strlen(r->fields[i].name);
			for (int i = 0; i < nf; i++) {
				bool dup = false;
				for (int j = 0; j < i; j++)
					dup |= lens[j] == lens[i];
				if (dup)
					continue;
				pr(p, "\t\tcase %zu:\n", lens[i]);
				for (int f = i; f < nf; f++) {
					if (lens[f] != lens[i])
						continue;
					pr(p, "\t\t\tif (memcmp(name.ptr, \"%s\", %zu) == 0) {\n", r->fields[f].name, lens[f]);
					pr(p, "\t\t\t\tif (!%s(j, &out->%s))\n\t\t\t\t\treturn false;\n",
					   helper_name(H_JSON_READ, r->fields[f].type, FMT_JSON), c_field(r->fields[f].name));
					pr(p, "\t\t\t\tseen[%d] = true;\n\t\t\t\tcontinue;\n\t\t\t}\n", f);
				}
				pr(p, "\t\t\tbreak;\n");
			}
			pr(p, "\t\t}\n");
		}
		pr(p, "\t\tif (!stoat_json_skip(j))\n\t\t\treturn false;\n\t}\n");
		pr(p, "\tif (j->cx->error)\n\t\treturn false;\n");
		for (int f = 0; f < nf; f++)
			if (r->fields[f].type->kind != TY_NULLABLE)
				pr(p, "\tif (!seen[%d])\n\t\treturn stoat_json_missing(j, \"%s\", \"%s\");\n", f,
				   r->anonymous ? "record" : r->name, r->fields[f].name);
		for (int f = 0; f < nf; f++)
			if (r->fields[f].type->kind == TY_NULLABLE) {
				pr(p, "\t(void)seen;\n");
				break;
			}
		pr(p, "\treturn true;\n");
		break;
	}
	default:
		pr(p, "\t(void)j;\n\t(void)out;\n\treturn false;\n");
	}
	pr(p, "}\n\n");
}

/* Statements writing the value at C lvalue `x` of type t as JSON into b. */
static void json_write_value(Printer *p, Type *t, const char *x, const char *what)
{
	switch (t->kind) {
	case TY_BOOL:
		pr(p, "if (%s)\n\tstoat_buf_lit(b, \"true\");\nelse\n\tstoat_buf_lit(b, \"false\");\n", x);
		break;
	case TY_I32:
	case TY_I64:
	case TY_TIMESTAMP:
	case TY_DURATION:
		pr(p, "stoat_buf_put_i64(b, %s);\n", x);
		break;
	case TY_F64:
		pr(p, "if (!stoat_buf_put_f64(b, %s)) {\n", x);
		pr(p, "\tstoat_error(cx, \"%s is not a finite number, which JSON cannot hold\");\n\treturn false;\n}\n",
		   what);
		break;
	case TY_STRING:
	case TY_BYTES:
		pr(p, "stoat_buf_put_json_str(b, %s);\n", x);
		break;
	default:
		pr(p, "if (!%s(cx, b, &%s))\n\treturn false;\n", helper_name(H_JSON_WRITE, t, FMT_JSON), x);
	}
}

static void emit_json_write(Printer *p, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_buf *b, const %s *v)\n{\n", helper_name(H_JSON_WRITE, t, FMT_JSON),
	   type_c(t));
	p->indent = 1;
	pr(p, "(void)cx; /* used only by writers that can fail */\n");
	switch (t->kind) {
	case TY_NULLABLE:
		pr(p, "if (!v->has) {\n\tstoat_buf_lit(b, \"null\");\n\treturn true;\n}\n");
		json_write_value(p, t->elem, "v->v", "a value");
		break;
	case TY_ARRAY:
		pr(p, "stoat_buf_putc(b, '[');\n");
		pr(p, "for (size_t i = 0; i < v->len; i++) {\n");
		pr(p, "\tif (i)\n\t\tstoat_buf_putc(b, ',');\n");
		p->indent++;
		json_write_value(p, t->elem, "v->items[i]", "an array element");
		p->indent--;
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
	p->indent = 0;
	pr(p, "}\n\n");
}

static void emit_decode(Printer *p, Type *t, Format f)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_str bytes, const char *what, %s *out)\n{\n",
	   helper_name(H_DECODE, t, f), type_c(t));
	const char *dst = "out", *lhs = "*out";
	if (t->kind == TY_NULLABLE) {
		if (f == FMT_TEXT || f == FMT_BYTES)
			pr(p, "\t(void)what;\n");
		pr(p, "\tif (!bytes.ptr) {\n\t\tmemset(out, 0, sizeof *out); /* null */\n\t\treturn true;\n\t}\n\tout->has = true;\n");
		dst = "&out->v";
		lhs = "out->v";
	} else {
		pr(p, "\tif (!bytes.ptr) {\n\t\tstoat_error(cx, \"the %%s is null, but its type %s is not nullable\", what);\n"
		      "\t\treturn false;\n\t}\n", type_str(t));
	}
	switch (f) {
	case FMT_TEXT:
	case FMT_BYTES:
		pr(p, "\t(void)cx;\n\t%s = bytes;\n\treturn true;\n", lhs);
		break;
	case FMT_I32:
	case FMT_I64:
	case FMT_F64: {
		const char *fn = f == FMT_I32 ? "stoat_decode_be32" : f == FMT_I64 ? "stoat_decode_be64" : "stoat_decode_be_f64";
		pr(p, "\tif (%s(cx, bytes, %s))\n\t\treturn true;\n", fn, dst);
		pr(p, "\tstoat_error_context(cx, what);\n\treturn false;\n");
		break;
	}
	case FMT_JSON:
		/* For T?, the JSON text null is null too, like an absent value. */
		pr(p, "\tstoat_json j;\n\tstoat_json_init(&j, cx, bytes);\n");
		pr(p, "\tif (%s(&j, out) && stoat_json_end(&j))\n\t\treturn true;\n", helper_name(H_JSON_READ, t, FMT_JSON));
		pr(p, "\tstoat_error_context(cx, what);\n\treturn false;\n");
		break;
	}
	pr(p, "}\n\n");
}

static void emit_encode(Printer *p, Type *t, Format f)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_buf *b, const %s *v, stoat_str *out)\n{\n",
	   helper_name(H_ENCODE, t, f), type_c(t));
	Type *s = type_strip(t);
	const char *src = "v";
	if (t->kind == TY_NULLABLE) {
		pr(p, "\tif (!v->has) {\n\t\t*out = (stoat_str){ NULL, 0 };\n\t\treturn true;\n\t}\n");
		src = "(&v->v)";
	}
	switch (f) {
	case FMT_TEXT:
	case FMT_BYTES:
		pr(p, "\t(void)cx;\n\t(void)b;\n\t*out = *%s;\n\treturn true;\n", src);
		break;
	case FMT_I32:
		pr(p, "\t(void)cx;\n\tb->len = 0;\n\tstoat_buf_put_be32(b, *%s);\n\t*out = stoat_buf_str(b);\n\treturn true;\n", src);
		break;
	case FMT_I64:
		pr(p, "\t(void)cx;\n\tb->len = 0;\n\tstoat_buf_put_be64(b, *%s);\n\t*out = stoat_buf_str(b);\n\treturn true;\n", src);
		break;
	case FMT_F64:
		pr(p, "\t(void)cx;\n\tb->len = 0;\n\tstoat_buf_put_be_f64(b, *%s);\n\t*out = stoat_buf_str(b);\n\treturn true;\n", src);
		break;
	case FMT_JSON:
		pr(p, "\tb->len = 0;\n\tif (!%s(cx, b, %s))\n\t\treturn false;\n", helper_name(H_JSON_WRITE, s, FMT_JSON), src);
		pr(p, "\t*out = stoat_buf_str(b);\n\treturn true;\n");
		break;
	}
	pr(p, "}\n\n");
}

static void emit_index(Printer *p, Type *arr)
{
	const char *et = type_c(arr->elem);
	pr(p, "static %s %s(stoat_ctx *cx, %s a, int64_t i)\n{\n", et, helper_name(H_INDEX, arr, FMT_JSON), type_c(arr));
	pr(p, "\tif (i < 0 || (uint64_t)i >= a.len) {\n");
	pr(p, "\t\tstoat_error(cx, \"index %%lld is out of range for an array of length %%zu\", (long long)i, a.len);\n");
	pr(p, "\t\t%s zero;\n\t\tmemset(&zero, 0, sizeof zero);\n\t\treturn zero;\n\t}\n", et);
	pr(p, "\treturn a.items[i];\n}\n\n");
}

static void emit_get(Printer *p, Type *arr)
{
	Type *rt = ty_nullable(arr->elem);
	pr(p, "static %s %s(%s a, int64_t i)\n{\n", type_c(rt), helper_name(H_GET, arr, FMT_JSON), type_c(arr));
	pr(p, "\tif (i < 0 || (uint64_t)i >= a.len)\n\t\treturn (%s){ .has = false };\n", type_c(rt));
	if (arr->elem->kind == TY_NULLABLE)
		pr(p, "\treturn a.items[i];\n}\n\n");
	else
		pr(p, "\treturn (%s){ .has = true, .v = a.items[i] };\n}\n\n", type_c(rt));
}

/* Appends the order-preserving store key of the value at `x` (type t). */
static void store_key_value(Printer *p, Type *t, const char *x)
{
	switch (t->kind) {
	case TY_BOOL: pr(p, "stoat_key_put_bool(b, %s);\n", x); break;
	case TY_I32: pr(p, "stoat_key_put_i32(b, %s);\n", x); break;
	case TY_I64: case TY_TIMESTAMP: case TY_DURATION: pr(p, "stoat_key_put_i64(b, %s);\n", x); break;
	case TY_F64: pr(p, "stoat_key_put_f64(b, %s);\n", x); break;
	case TY_STRING: case TY_BYTES: pr(p, "stoat_key_put_str(b, %s);\n", x); break;
	default: pr(p, "%s(b, &%s);\n", helper_name(H_STORE_KEY, t, FMT_JSON), x);
	}
}

/*
 * A store key encoder: the runtime's order-preserving primitives composed
 * per type (record fields in order; array elements each after 01, then
 * 00; nullables after a presence byte), so keys sort like their values.
 */
static void emit_store_key(Printer *p, Type *t)
{
	pr(p, "static void %s(stoat_buf *b, const %s *v)\n{\n", helper_name(H_STORE_KEY, t, FMT_JSON), type_c(t));
	p->indent = 1;
	switch (t->kind) {
	case TY_NULLABLE:
		pr(p, "stoat_key_put_presence(b, v->has);\nif (v->has) {\n");
		p->indent++;
		store_key_value(p, t->elem, "v->v");
		p->indent--;
		pr(p, "}\n");
		break;
	case TY_ARRAY:
		pr(p, "for (size_t i = 0; i < v->len; i++) {\n\tstoat_buf_putc(b, 1);\n");
		p->indent++;
		store_key_value(p, t->elem, "v->items[i]");
		p->indent--;
		pr(p, "}\nstoat_buf_putc(b, 0);\n");
		break;
	case TY_RECORD:
		for (int f = 0; f < t->rec->nfields; f++) {
			char *x = xasprintf("v->%s", c_field(t->rec->fields[f].name));
			store_key_value(p, t->rec->fields[f].type, x);
		}
		if (t->rec->nfields == 0)
			pr(p, "(void)b;\n(void)v;\n");
		break;
	default:
		store_key_value(p, t, "*v");
	}
	p->indent = 0;
	pr(p, "}\n\n");
}

/* The scalar name in the runtime's stoat_val_* / stoat_key_* functions. */
static const char *scalar_layout_name(Type *t)
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

/* Statements reading the key-layout value of type t from r into lvalue x. */
static void store_key_get_value(Printer *p, Type *t, const char *x)
{
	const char *s = scalar_layout_name(t);
	if (t->kind == TY_STRING || t->kind == TY_BYTES)
		pr(p, "if (!stoat_key_get_str(r, &cx->arena, &%s))\n\treturn false;\n", x);
	else if (s)
		pr(p, "if (!stoat_key_get_%s(r, &%s))\n\treturn false;\n", s, x);
	else
		pr(p, "if (!%s(cx, r, &%s))\n\treturn false;\n", helper_name(H_STORE_KEY_GET, t, FMT_JSON), x);
}

/*
 * A store key decoder, the inverse of emit_store_key: flush functions get
 * the keys of updates back as bytes and need the typed key.
 */
static void emit_store_key_get(Printer *p, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_val_reader *r, %s *out)\n{\n",
	   helper_name(H_STORE_KEY_GET, t, FMT_JSON), type_c(t));
	p->indent = 1;
	switch (t->kind) {
	case TY_NULLABLE:
		pr(p, "memset(out, 0, sizeof *out);\n");
		pr(p, "if (!stoat_key_get_presence(r, &out->has))\n\treturn false;\n");
		pr(p, "if (!out->has)\n\treturn true;\n");
		store_key_get_value(p, t->elem, "out->v");
		break;
	case TY_ARRAY:
		pr(p, "stoat_vec vec = { NULL, 0, 0 };\n");
		pr(p, "for (;;) {\n\tbool more;\n\tif (!stoat_key_get_array_next(r, &more))\n\t\treturn false;\n");
		pr(p, "\tif (!more)\n\t\tbreak;\n");
		pr(p, "\t%s *item = stoat_vec_push(&cx->arena, &vec, sizeof *item);\n", type_c(t->elem));
		p->indent++;
		store_key_get_value(p, t->elem, "item[0]");
		p->indent--;
		pr(p, "}\nout->items = vec.data;\nout->len = vec.len;\n");
		break;
	case TY_RECORD: {
		bool uses_cx = false;
		for (int f = 0; f < t->rec->nfields; f++) {
			Type *ft = t->rec->fields[f].type;
			uses_cx |= !type_is_scalar(ft) || ft->kind == TY_STRING || ft->kind == TY_BYTES;
		}
		if (!uses_cx)
			pr(p, "(void)cx;\n");
		if (t->rec->nfields == 0)
			pr(p, "(void)r;\n(void)out;\n");
		for (int f = 0; f < t->rec->nfields; f++)
			store_key_get_value(p, t->rec->fields[f].type,
			                    xasprintf("out->%s", c_field(t->rec->fields[f].name)));
		break;
	}
	default:
		break;
	}
	pr(p, "return true;\n");
	p->indent = 0;
	pr(p, "}\n\n");
}

/*
 * Reads a whole store key of type t back (a flush function's update
 * key); bytes that are not exactly one key are a per-record error.
 */
static void emit_store_key_read(Printer *p, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_str bytes, %s *out)\n{\n",
	   helper_name(H_STORE_KEY_READ, t, FMT_JSON), type_c(t));
	pr(p, "\tstoat_val_reader r = stoat_val_reader_of(bytes);\n");
	const char *s = scalar_layout_name(t);
	if (t->kind == TY_STRING || t->kind == TY_BYTES)
		pr(p, "\tif (stoat_key_get_str(&r, &cx->arena, out) && stoat_val_end(&r))\n");
	else if (s)
		pr(p, "\tif (stoat_key_get_%s(&r, out) && stoat_val_end(&r))\n", s);
	else
		pr(p, "\tif (%s(cx, &r, out) && stoat_val_end(&r))\n", helper_name(H_STORE_KEY_GET, t, FMT_JSON));
	pr(p, "\t\treturn true;\n");
	pr(p, "\tstoat_error(cx, \"malformed store key (%%zu bytes) for the type %s\", bytes.len);\n", type_str(t));
	pr(p, "\treturn false;\n}\n\n");
}

/* Appends the compact store value of the value at `x` (type t). */
static void store_value_put_value(Printer *p, Type *t, const char *x)
{
	const char *s = scalar_layout_name(t);
	if (s)
		pr(p, "stoat_val_put_%s(b, %s);\n", s, x);
	else
		pr(p, "%s(b, &%s);\n", helper_name(H_STORE_VALUE_PUT, t, FMT_JSON), x);
}

/*
 * A store value encoder: the runtime's compact primitives composed per
 * type (nullables after a presence byte, arrays after their count, record
 * fields in declaration order; a record without fields is one 0 byte).
 */
static void emit_store_value_put(Printer *p, Type *t)
{
	pr(p, "static void %s(stoat_buf *b, const %s *v)\n{\n", helper_name(H_STORE_VALUE_PUT, t, FMT_JSON), type_c(t));
	p->indent = 1;
	switch (t->kind) {
	case TY_NULLABLE:
		pr(p, "stoat_val_put_presence(b, v->has);\nif (v->has) {\n");
		p->indent++;
		store_value_put_value(p, t->elem, "v->v");
		p->indent--;
		pr(p, "}\n");
		break;
	case TY_ARRAY:
		pr(p, "stoat_val_put_count(b, v->len);\nfor (size_t i = 0; i < v->len; i++) {\n");
		p->indent++;
		store_value_put_value(p, t->elem, "v->items[i]");
		p->indent--;
		pr(p, "}\n");
		break;
	case TY_RECORD:
		for (int f = 0; f < t->rec->nfields; f++)
			store_value_put_value(p, t->rec->fields[f].type,
			                      xasprintf("v->%s", c_field(t->rec->fields[f].name)));
		if (t->rec->nfields == 0)
			pr(p, "(void)v;\nstoat_val_put_empty(b);\n");
		break;
	default:
		store_value_put_value(p, t, "*v");
	}
	p->indent = 0;
	pr(p, "}\n\n");
}

/* Statements reading the compact value of type t from r into lvalue x. */
static void store_value_get_value(Printer *p, Type *t, const char *x)
{
	const char *s = scalar_layout_name(t);
	if (s)
		pr(p, "if (!stoat_val_get_%s(r, &%s))\n\treturn false;\n", s, x);
	else
		pr(p, "if (!%s(cx, r, &%s))\n\treturn false;\n", helper_name(H_STORE_VALUE_GET, t, FMT_JSON), x);
}

/* A store value decoder, the inverse of emit_store_value_put. */
static void emit_store_value_get(Printer *p, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_val_reader *r, %s *out)\n{\n",
	   helper_name(H_STORE_VALUE_GET, t, FMT_JSON), type_c(t));
	p->indent = 1;
	switch (t->kind) {
	case TY_NULLABLE:
		if (type_is_scalar(t->elem))
			pr(p, "(void)cx;\n");
		pr(p, "memset(out, 0, sizeof *out);\n");
		pr(p, "if (!stoat_val_get_presence(r, &out->has))\n\treturn false;\n");
		pr(p, "if (!out->has)\n\treturn true;\n");
		store_value_get_value(p, t->elem, "out->v");
		break;
	case TY_ARRAY:
		pr(p, "size_t n;\nif (!stoat_val_get_count(r, &n))\n\treturn false;\n");
		pr(p, "%s *items = n ? stoat_arena_alloc(&cx->arena, n * sizeof *items) : NULL;\n", type_c(t->elem));
		pr(p, "for (size_t i = 0; i < n; i++) {\n");
		p->indent++;
		store_value_get_value(p, t->elem, "items[i]");
		p->indent--;
		pr(p, "}\nout->items = items;\nout->len = n;\n");
		break;
	case TY_RECORD: {
		bool uses_cx = false;
		for (int f = 0; f < t->rec->nfields; f++)
			uses_cx |= !type_is_scalar(t->rec->fields[f].type);
		if (!uses_cx)
			pr(p, "(void)cx;\n");
		if (t->rec->nfields == 0) {
			pr(p, "(void)out;\n");
			pr(p, "if (!stoat_val_get_empty(r))\n\treturn false;\n");
		}
		for (int f = 0; f < t->rec->nfields; f++)
			store_value_get_value(p, t->rec->fields[f].type,
			                      xasprintf("out->%s", c_field(t->rec->fields[f].name)));
		break;
	}
	default:
		break;
	}
	pr(p, "return true;\n");
	p->indent = 0;
	pr(p, "}\n\n");
}

/*
 * Reads a whole stored value of type t back; bytes that are not exactly
 * one value (cut short, or left over) are a per-record error.
 */
static void emit_store_value_read(Printer *p, Type *t)
{
	pr(p, "static bool %s(stoat_ctx *cx, stoat_str bytes, %s *out)\n{\n",
	   helper_name(H_STORE_VALUE_READ, t, FMT_JSON), type_c(t));
	pr(p, "\tstoat_val_reader r = stoat_val_reader_of(bytes);\n");
	const char *s = scalar_layout_name(t);
	if (s)
		pr(p, "\tif (stoat_val_get_%s(&r, out) && stoat_val_end(&r))\n", s);
	else
		pr(p, "\tif (%s(cx, &r, out) && stoat_val_end(&r))\n", helper_name(H_STORE_VALUE_GET, t, FMT_JSON));
	pr(p, "\t\treturn true;\n");
	pr(p, "\tstoat_error(cx, \"malformed stored value (%%zu bytes) for the type %s\", bytes.len);\n", type_str(t));
	pr(p, "\treturn false;\n}\n\n");
}

/*
 * Reads a grouped table's change back from its internal topic: the flags
 * byte, then the value to subtract and the value to add, each present
 * when its flag is set (see emit_change_record).
 */
static void emit_change_read(Printer *p, Type *t)
{
	const char *ot = type_c(ty_nullable(t));
	pr(p, "static bool %s(stoat_ctx *cx, stoat_str bytes, %s *sub, %s *add)\n{\n",
	   helper_name(H_CHANGE_READ, t, FMT_JSON), ot, ot);
	p->indent = 1;
	pr(p, "stoat_val_reader r = stoat_val_reader_of(bytes);\nunsigned flags;\n");
	pr(p, "memset(sub, 0, sizeof *sub);\nmemset(add, 0, sizeof *add);\n");
	pr(p, "if (!stoat_change_get_flags(&r, &flags))\n\tgoto bad;\n");
	const char *s = scalar_layout_name(t);
	const char *outs[2] = { "sub", "add" }, *flags[2] = { "STOAT_CHANGE_OLD", "STOAT_CHANGE_NEW" };
	for (int i = 0; i < 2; i++) {
		pr(p, "if (flags & %s) {\n\t%s->has = true;\n", flags[i], outs[i]);
		if (s)
			pr(p, "\tif (!stoat_val_get_%s(&r, &%s->v))\n\t\tgoto bad;\n}\n", s, outs[i]);
		else
			pr(p, "\tif (!%s(cx, &r, &%s->v))\n\t\tgoto bad;\n}\n", helper_name(H_STORE_VALUE_GET, t, FMT_JSON),
			   outs[i]);
	}
	pr(p, "if (stoat_val_end(&r))\n\treturn true;\n");
	p->indent = 0;
	pr(p, "bad:\n");
	pr(p, "\tstoat_error(cx, \"malformed change record (%%zu bytes) for the type %s\", bytes.len);\n", type_str(t));
	pr(p, "\treturn false;\n}\n\n");
}

static void emit_helpers(Gen *g, Printer *p)
{
	if (g->nhelpers == 0)
		return;
	/* Readers and writers may call each other (nested records): declare first. */
	pr(p, "/* ---- Serdes ---------------------------------------------------------- */\n\n");
	bool any = false;
	for (int i = 0; i < g->nhelpers; i++) {
		Helper *h = &g->helpers[i];
		if (h->kind == H_JSON_READ) {
			pr(p, "static bool %s(stoat_json *j, %s *out);\n", helper_name(h->kind, h->type, h->format), type_c(h->type));
			any = true;
		} else if (h->kind == H_JSON_WRITE) {
			pr(p, "static bool %s(stoat_ctx *cx, stoat_buf *b, const %s *v);\n",
			   helper_name(h->kind, h->type, h->format), type_c(h->type));
			any = true;
		} else if (h->kind == H_STORE_KEY || h->kind == H_STORE_VALUE_PUT) {
			pr(p, "static void %s(stoat_buf *b, const %s *v);\n", helper_name(h->kind, h->type, h->format),
			   type_c(h->type));
			any = true;
		} else if (h->kind == H_STORE_KEY_GET || h->kind == H_STORE_VALUE_GET) {
			pr(p, "static bool %s(stoat_ctx *cx, stoat_val_reader *r, %s *out);\n",
			   helper_name(h->kind, h->type, h->format), type_c(h->type));
			any = true;
		}
	}
	if (any)
		pr(p, "\n");
	static const HelperKind order[] = { H_JSON_READ, H_JSON_WRITE, H_DECODE, H_ENCODE, H_INDEX, H_GET,
		                            H_STORE_KEY, H_STORE_KEY_GET, H_STORE_KEY_READ, H_STORE_VALUE_PUT,
		                            H_STORE_VALUE_GET, H_STORE_VALUE_READ, H_CHANGE_READ };
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
			case H_STORE_KEY: emit_store_key(p, h->type); break;
			case H_STORE_KEY_GET: emit_store_key_get(p, h->type); break;
			case H_STORE_KEY_READ: emit_store_key_read(p, h->type); break;
			case H_STORE_VALUE_PUT: emit_store_value_put(p, h->type); break;
			case H_STORE_VALUE_GET: emit_store_value_get(p, h->type); break;
			case H_STORE_VALUE_READ: emit_store_value_read(p, h->type); break;
			case H_CHANGE_READ: emit_change_read(p, h->type); break;
			}
		}
}

/* ------------------------------------------------------------------ */
/* The file                                                            */
/* ------------------------------------------------------------------ */

/*
 * One line of the sub-topology outline in the file's header comment, then
 * the node's children; from is the parent it was reached from (a cogroup
 * is followed from its first input only).
 */
static void describe_node(Printer *p, Topology *t, IrNode *n, IrNode *from, int depth)
{
	pr(p, " * %*s", depth * 2, "");
	switch (n->kind) {
	case IR_SOURCE:
		pr(p, "%s%s <- \"%s\" (%s, %s)%s%s", n->table ? "table " : "", n->name, n->topic,
		   format_name(n->key_format), format_name(n->value_format), n->internal ? " (internal)" : "",
		   n->change ? " (changes)" : "");
		break;
	case IR_SINK:
		if (n->topic)
			pr(p, "%s \"%s\" (%s, %s)", n->internal ? "repartition ->" : "to", n->topic,
			   format_name(n->key_format), format_name(n->value_format));
		else
			pr(p, "to (per record) (%s, %s)", format_name(n->key_format), format_name(n->value_format));
		break;
	case IR_BRANCH:
		pr(p, "branch %s%s", n->name, n->lambda ? "" : " (default)");
		break;
	case IR_MERGE:
		pr(p, "merge -> segment_%d", n->id);
		break;
	case IR_GROUP:
		pr(p, "group%s", n->group_table ? " (table)" : "");
		break;
	default:
		pr(p, "%s%s", n->table && n->kind != IR_AGGREGATE && n->kind != IR_TO_TABLE ? "table " : "",
		   ir_kind_name(n->kind));
	}
	if (n->has_store)
		pr(p, " (store %s%s)", t->stores[n->store].name, t->stores[n->store].in_memory ? ", in memory" : "");
	pr(p, " [line %d]\n", n->span.line);
	if (n->kind == IR_MERGE && depth > 0 && n->parents[0] != NULL)
		return;
	if (n->kind == IR_COGROUP && from != n->parents[0])
		return;
	for (int i = 0; i < n->nchildren; i++)
		describe_node(p, t, n->children[i], n, depth + 1);
}

/*
 * Replaces each "#line RESET" with a directive naming the generated file
 * and the line that follows, so code after a pipeline maps back to the C.
 */
static char *fix_line_resets(const char *text, const char *c_file)
{
	static const char marker[] = "#line RESET\n";
	Printer out;
	pr_init(&out);
	int line = 1;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (len == sizeof marker - 1 && memcmp(p, marker, len) == 0) {
			char *lit = c_string(c_file, strlen(c_file));
			char *d = xasprintf("#line %d %s\n", line + 1, lit);
			pr_raw(&out, d, strlen(d));
		} else {
			pr_raw(&out, p, len);
		}
		line++;
		p += len;
	}
	return out.buf;
}

char *codegen(Program *prog, const CodegenOptions *opts)
{
	Gen gen = { .prog = prog, .topo = &prog->topo, .opts = opts };
	Gen *g = &gen;
	Topology *t = g->topo;
	name_stores(t);

	/* Pipelines and segments first: they tell which helpers are needed. */
	Printer code;
	pr_init(&code);
	bool any_segment = false;
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i]->kind == IR_MERGE) {
			if (!any_segment)
				pr(&code, "/* ---- Merge segments ---------------------------------------------------- */\n\n");
			any_segment = true;
			emit_segment(g, t->nodes[i], &code);
		}
	pr(&code, "/* ---- Pipelines --------------------------------------------------------- */\n\n");
	for (int i = 0; i < t->nsources; i++)
		emit_pipeline(g, t->sources[i], &code);
	bool any_downstream = false;
	for (int i = 0; i < t->nstores; i++)
		any_downstream |= t->stores[i].node->nchildren > 0;
	if (any_downstream)
		pr(&code, "/* ---- Table updates ------------------------------------------------------ */\n\n");
	for (int i = 0; i < t->nstores; i++)
		if (t->stores[i].node->nchildren > 0) {
			emit_store_after(g, i, &code);
			emit_store_flush(g, i, &code);
		}

	Printer p;
	pr_init(&p);
	pr(&p, "/*\n * Generated by stoatc from %s. DO NOT EDIT.\n *\n", prog->file->source->path);
	pr(&p, " * Application \"%s\": %s, commit interval %lld ms, on error %s%s%s.\n", t->app_id,
	   t->guarantee ? "exactly_once" : "at_least_once", (long long)t->commit_interval_ms,
	   t->on_error == POLICY_SKIP ? "skip" : t->on_error == POLICY_DLQ ? "dlq " : "fail",
	   t->dlq_topic ? t->dlq_topic : "", "");
	for (int st = 0; st < t->nsubtopologies; st++) {
		pr(&p, " *\n * Sub-topology %d:\n", st);
		for (int i = 0; i < t->nsources; i++)
			if (t->sources[i]->subtopology == st)
				describe_node(&p, t, t->sources[i], NULL, 1);
	}
	pr(&p, " */\n");
	pr(&p, "#include <stoat/runtime.h>\n#include <stoat/std.h>\n\n");

	emit_types(g, &p);

	/* User headers for extern functions, in declaration order. */
	bool any_header = false;
	for (int i = 0; i < prog->nuser_externs; i++) {
		Node *e = prog->user_externs[i];
		if (!e->str)
			continue;
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup |= prog->user_externs[j]->str && strcmp(prog->user_externs[j]->str, e->str) == 0;
		if (dup)
			continue;
		pr(&p, "#include %s\n", c_string(e->str, e->len));
		any_header = true;
	}
	if (any_header)
		pr(&p, "\n");

	if (any_segment) {
		for (int i = 0; i < t->nnodes; i++)
			if (t->nodes[i]->kind == IR_MERGE)
				pr(&p, "static bool segment_%d(stoat_ctx *cx, %s k, %s v, bool raw_key, bool raw_value);\n", t->nodes[i]->id,
				   type_c(t->nodes[i]->key), type_c(t->nodes[i]->val));
		pr(&p, "\n");
	}
	if (any_downstream) {
		/* Pipelines, and the downstreams of other stores, call these. */
		for (int i = 0; i < t->nstores; i++) {
			IrNode *n = t->stores[i].node;
			if (n->nchildren > 0)
				pr(&p, "static bool after_%s(stoat_ctx *cx, %s key, %s old_v, %s new_v);\n", t->stores[i].cname,
				   type_c(n->key), type_c(ty_nullable(n->val)), type_c(ty_nullable(n->val)));
		}
		pr(&p, "\n");
	}
	emit_helpers(g, &p);
	pr_raw(&p, code.buf, code.len);

	pr(&p, "/* ---- The application --------------------------------------------------- */\n\n");
	if (t->nsinks) {
		pr(&p, "static const stoat_sink app_sinks[] = {\n");
		for (int i = 0; i < t->nsinks; i++) {
			IrNode *s = t->sinks[i];
			pr(&p, "\t{ .topic = %s, .key_format = %s, .value_format = %s%s }, /* %d */\n",
			   s->topic ? c_string(s->topic, strlen(s->topic)) : "NULL", stoat_format_enum(s->key_format),
			   stoat_format_enum(s->value_format), s->internal ? ", .internal = true" : "", i);
		}
		pr(&p, "};\n\n");
	}
	if (t->nstores) {
		pr(&p, "static const stoat_store_desc app_stores[] = {\n");
		for (int i = 0; i < t->nstores; i++) {
			Store *st = &t->stores[i];
			pr(&p, "\t{ .name = %s", c_string(st->name, strlen(st->name)));
			if (st->node->nchildren > 0)
				pr(&p, ", .flush = flush_%s", st->cname);
			if (st->in_memory)
				pr(&p, ", .in_memory = true");
			pr(&p, " }, /* %d */\n", i);
		}
		pr(&p, "};\n\n");
	}
	/* Per source, the stores its pipeline writes (restored with its partitions). */
	int *source_stores = xcalloc((size_t)(t->nsources ? t->nsources : 1), sizeof *source_stores);
	for (int i = 0; i < t->nsources && t->nstores; i++) {
		bool *seen = xcalloc((size_t)t->nnodes, sizeof *seen);
		bool *stores = xcalloc((size_t)t->nstores, sizeof *stores);
		collect_stores(t->sources[i], seen, stores);
		int count = 0;
		for (int j = 0; j < t->nstores; j++)
			count += stores[j];
		source_stores[i] = count;
		if (count) {
			pr(&p, "static const int app_stores_of_%s[] = {", t->sources[i]->name);
			for (int j = 0, k = 0; j < t->nstores; j++)
				if (stores[j])
					pr(&p, "%s %d", k++ ? "," : "", j);
			pr(&p, " };\n");
		}
		xfree(seen);
		xfree(stores);
	}
	for (int i = 0; i < t->nsources; i++)
		if (source_stores[i]) {
			pr(&p, "\n");
			break;
		}
	pr(&p, "static const stoat_source app_sources[] = {\n");
	for (int i = 0; i < t->nsources; i++) {
		IrNode *s = t->sources[i];
		pr(&p, "\t{\n\t\t.name = \"%s\",\n\t\t.topic = %s,\n", s->name, c_string(s->topic, strlen(s->topic)));
		pr(&p, "\t\t.key_format = %s,\n\t\t.value_format = %s,\n", stoat_format_enum(s->key_format),
		   stoat_format_enum(s->value_format));
		if (s->internal)
			pr(&p, "\t\t.internal = true, /* a repartition topic */\n");
		pr(&p, "\t\t.on_error = %s,\n", policy_enum(s->policy));
		if (s->dlq_topic)
			pr(&p, "\t\t.dlq_topic = %s,\n", c_string(s->dlq_topic, strlen(s->dlq_topic)));
		pr(&p, "\t\t.pipeline = pipeline_%s,\n", s->name);
		if (source_stores[i])
			pr(&p, "\t\t.stores = app_stores_of_%s,\n\t\t.store_count = %d,\n", s->name, source_stores[i]);
		pr(&p, "\t},\n");
	}
	pr(&p, "};\n\n");
	pr(&p, "static const stoat_app app = {\n");
	pr(&p, "\t.app_id = %s,\n", c_string(t->app_id, strlen(t->app_id)));
	pr(&p, "\t.source_file = %s,\n", c_string(prog->file->source->path, strlen(prog->file->source->path)));
	pr(&p, "\t.guarantee = %s,\n", t->guarantee ? "STOAT_EXACTLY_ONCE" : "STOAT_AT_LEAST_ONCE");
	pr(&p, "\t.commit_interval_ms = %lld,\n", (long long)t->commit_interval_ms);
	pr(&p, "\t.on_error = %s,\n", policy_enum(t->on_error));
	if (t->dlq_topic)
		pr(&p, "\t.dlq_topic = %s,\n", c_string(t->dlq_topic, strlen(t->dlq_topic)));
	pr(&p, "\t.sources = app_sources,\n\t.source_count = %d,\n", t->nsources);
	if (t->nsinks)
		pr(&p, "\t.sinks = app_sinks,\n\t.sink_count = %d,\n", t->nsinks);
	else
		pr(&p, "\t.sinks = NULL,\n\t.sink_count = 0,\n");
	if (t->nstores)
		pr(&p, "\t.stores = app_stores,\n\t.store_count = %d,\n", t->nstores);
	pr(&p, "};\n\n");
	pr(&p, "int main(int argc, char **argv)\n{\n\treturn stoat_main(&app, argc, argv);\n}\n");
	pr_free(&code);
	if (opts->line_directives)
		return fix_line_resets(p.buf, opts->output_name);
	return p.buf;
}
