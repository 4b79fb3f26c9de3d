/*
 * codegen_expr.c - expressions and conditions.
 *
 * Expressions are emitted as C expressions; anything that can fail (a call,
 * checked arithmetic, indexing) is hoisted into a temporary followed by an
 * error check, so a failed record never computes further.  Under and, or,
 * if and ?? the hoisted statements of the lazy operand go inside an if, to
 * keep short-circuit evaluation.
 *
 * Each expression is first built as a CExpr that knows its outermost form
 * (an operand as it is, an operator that needs parentheses to be one, or a
 * negation), so a condition can be written without its outer parentheses
 * and negated without a double negation, with no rewriting of C text;
 * it also knows whether it is a plain variable or member path (safe to
 * evaluate twice), so nothing inspects emitted text to decide a hoist.
 */
#include "codegen_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The outermost form of an emitted expression. */
typedef enum Form {
	F_OPERAND,  /* usable as an operand as it is: a name, a call, (...) */
	F_COMPOUND, /* an operator expression: parenthesised to be an operand */
	F_NOT       /* !operand */
} Form;

typedef struct CExpr {
	Form form;
	bool name;              /* F_OPERAND: a variable or member path, safe to evaluate twice */
	char *text;             /* F_OPERAND, F_COMPOUND */
	struct CExpr *operand;  /* F_NOT */
} CExpr;

static CExpr *emit_form(Gen *g, Node *e);

/* An expression of the given form. */
static CExpr *cexpr(Form form, char *text)
{
	CExpr *x = xcalloc(1, sizeof *x);
	x->form = form;
	x->text = text;
	return x;
}

/* A variable or member path (a temporary, a bound name, a field of one). */
static CExpr *name_expr(char *text)
{
	CExpr *x = cexpr(F_OPERAND, text);
	x->name = true;
	return x;
}

/* The negation of operand x. */
static CExpr *cexpr_not(CExpr *x)
{
	CExpr *n = cexpr(F_NOT, NULL);
	n->operand = x;
	return n;
}

/* x as an operand of any C operator. */
static char *render_expr(CExpr *x)
{
	switch (x->form) {
	case F_OPERAND:
		return x->text;
	case F_COMPOUND:
		return xasprintf("(%s)", x->text);
	case F_NOT:
		return xasprintf("(!%s)", render_expr(x->operand));
	}
	return x->text;
}

/* x (or its negation) as the condition of an if: no outer parentheses. */
static char *render_cond(CExpr *x, bool negated)
{
	switch (x->form) {
	case F_OPERAND:
		return negated ? xasprintf("!%s", x->text) : x->text;
	case F_COMPOUND:
		return negated ? xasprintf("!(%s)", x->text) : x->text;
	case F_NOT:
		return negated ? render_cond(x->operand, false) : xasprintf("!%s", render_expr(x->operand));
	}
	return x->text;
}

/* The C expression for e, to be used as an operand. */
char *emit_expr(Gen *g, Node *e)
{
	return render_expr(emit_form(g, e));
}

/*
 * The C expression for e as a variable or member path, safe to evaluate
 * more than once: e itself when it is one, else a temporary holding it.
 */
char *emit_name(Gen *g, Node *e)
{
	CExpr *x = emit_form(g, e);
	return x->name ? x->text : hoist(g, e->type, render_expr(x), false);
}

/*
 * The C condition for e (or for !e with negated), for if (...): a logical
 * not in the source is followed into its operand rather than doubled.
 */
char *emit_cond(Gen *g, Node *e, bool negated)
{
	if (e->kind == N_UNARY && e->op == OP_NOT)
		return emit_cond(g, e->a, !negated);
	return render_cond(emit_form(g, e), negated);
}

/* Converts a C expression of type from into one of type to. */
char *coerce(char *expr, Type *from, Type *to)
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

/* e converted to the type `to` (a wider integer, a nullable). */
char *emit_as(Gen *g, Node *e, Type *to)
{
	if (e->kind == N_NULL)
		return coerce(NULL, ty_null, to);
	return coerce(emit_expr(g, e), e->type, to);
}

/* Declares a temporary holding expr; with check, stops the record on error. */
char *hoist(Gen *g, Type *t, const char *expr, bool check)
{
	char *name = new_tmp(g);
	pr(g->out, "%s %s = %s;\n", type_c(t), name, expr);
	if (check)
		emit_error_check(g);
	return name;
}

/*
 * Emits e into a fresh buffer one level deeper, for operands that are
 * evaluated only sometimes.  *stmts receives the statements it needed
 * ("" if none).
 */
char *emit_lazy(Gen *g, Node *e, Type *to, char **stmts)
{
	Printer sub;
	Printer *saved = begin_sub(g, &sub, 1);
	char *val = to ? emit_as(g, e, to) : emit_expr(g, e);
	end_sub(g, saved);
	*stmts = sub.buf ? sub.buf : xstrdup("");
	return val;
}

/* Like emit_lazy, for a condition (see emit_cond). */
char *emit_lazy_cond(Gen *g, Node *e, char **stmts)
{
	Printer sub;
	Printer *saved = begin_sub(g, &sub, 1);
	char *cond = emit_cond(g, e, false);
	end_sub(g, saved);
	*stmts = sub.buf ? sub.buf : xstrdup("");
	return cond;
}

/* The suffix of the runtime's checked integer functions for t. */
static const char *int_suffix(Type *t)
{
	return t->kind == TY_I32 ? "i32" : "i64";
}

/* and / or: b is evaluated only when a does not decide. */
static CExpr *emit_logical(Gen *g, Node *e)
{
	bool is_and = e->op == OP_AND;
	char *a = emit_expr(g, e->a);
	char *stmts;
	char *b = emit_lazy(g, e->b, NULL, &stmts);
	if (!*stmts)
		return cexpr(F_COMPOUND, xasprintf("%s %s %s", a, is_and ? "&&" : "||", b));
	char *t = new_tmp(g);
	pr(g->out, "bool %s = %s;\n", t, a);
	pr(g->out, "if (%s%s) {\n", is_and ? "" : "!", t);
	pr_raw(g->out, stmts, strlen(stmts));
	pr_nested(g->out, "%s = %s;\n", t, b);
	pr(g->out, "}\n");
	return name_expr(t);
}

/* ==, !=, <, ... including comparisons with null and of nullables. */
static CExpr *emit_comparison(Gen *g, Node *e)
{
	static const char *cop[] = { "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=" };
	int op = e->op;
	Type *ta = e->a->type, *tb = e->b->type;
	if (ta->kind == TY_NULL || tb->kind == TY_NULL) {
		Node *other = ta->kind == TY_NULL ? e->b : e->a;
		if (other->type->kind == TY_NULL)
			return cexpr(F_OPERAND, xstrdup(op == OP_EQ ? "true" : "false"));
		if (other->type->kind != TY_NULLABLE)
			return cexpr(F_OPERAND, xstrdup(op == OP_EQ ? "false" : "true"));
		CExpr *has = cexpr(F_OPERAND, xasprintf("%s.has", emit_expr(g, other)));
		return op == OP_EQ ? cexpr_not(has) : has;
	}
	/* T? == T: equal when present and equal (a nullable operand is read twice). */
	bool na = ta->kind == TY_NULLABLE, nb = tb->kind == TY_NULLABLE;
	char *a = na ? emit_name(g, e->a) : emit_expr(g, e->a);
	char *b = nb ? emit_name(g, e->b) : emit_expr(g, e->b);
	if (na || nb) {
		char *pa = na ? xasprintf("%s.v", a) : a;
		char *pb = nb ? xasprintf("%s.v", b) : b;
		Type *sa = type_strip(ta);
		char *eq = (sa->kind == TY_STRING || sa->kind == TY_BYTES) ? xasprintf("stoat_str_eq(%s, %s)", pa, pb)
		                                                            : xasprintf("(%s == %s)", pa, pb);
		CExpr *present = na && nb ? cexpr(F_COMPOUND, xasprintf("%s.has == %s.has && (!%s.has || %s)", a, b, a, eq))
		                          : cexpr(F_COMPOUND, xasprintf("%s.has && %s", na ? a : b, eq));
		return op == OP_EQ ? present : cexpr_not(present);
	}
	if (ta->kind == TY_STRING || ta->kind == TY_BYTES) {
		CExpr *eq = cexpr(F_OPERAND, xasprintf("stoat_str_eq(%s, %s)", a, b));
		if (op == OP_EQ)
			return eq;
		if (op == OP_NE)
			return cexpr_not(eq);
		return cexpr(F_COMPOUND, xasprintf("stoat_str_cmp(%s, %s) %s 0", a, b, cop[op]));
	}
	return cexpr(F_COMPOUND, xasprintf("%s %s %s", a, cop[op], b));
}

/* A binary operator: logical, comparison, concatenation or arithmetic. */
static CExpr *emit_binary(Gen *g, Node *e)
{
	static const char *cop[] = { "+", "-", "*", "/", "%" };
	int op = e->op;
	if (op == OP_AND || op == OP_OR)
		return emit_logical(g, e);
	if (op >= OP_EQ && op <= OP_GE)
		return emit_comparison(g, e);
	Type *ta = e->a->type, *tb = e->b->type;
	char *a = emit_expr(g, e->a);
	char *b = emit_expr(g, e->b);
	Type *rt = e->type;
	if (rt->kind == TY_STRING)
		return cexpr(F_OPERAND, xasprintf("stoat_str_concat(cx, %s, %s)", a, b));
	if (rt->kind == TY_F64) {
		if (op == OP_DIV)
			return name_expr(hoist(g, ty_f64, xasprintf("stoat_div_f64(cx, %s, %s)", a, b), true));
		return cexpr(F_COMPOUND, xasprintf("%s %s %s", a, cop[op], b));
	}
	/* Integers, timestamps and durations: checked. */
	static const char *fn[] = { "add", "sub", "mul", "div", "mod" };
	Type *ct = rt->kind == TY_I32 ? ty_i32 : ty_i64;
	if (ta->kind == TY_I32 && ct->kind == TY_I64)
		a = xasprintf("(int64_t)%s", a);
	if (tb->kind == TY_I32 && ct->kind == TY_I64)
		b = xasprintf("(int64_t)%s", b);
	return name_expr(hoist(g, rt, xasprintf("stoat_%s_%s(cx, %s, %s)", fn[op], int_suffix(ct), a, b), true));
}

/* A record literal, with fields from a spread filled in. */
static char *emit_record(Gen *g, Node *e)
{
	Type *t = e->type;
	Record *rec = t->rec;
	Node *spread = e->list && e->list->kind == N_SPREAD ? e->list : NULL;
	char *base = NULL;
	Record *base_rec = NULL;
	if (spread) {
		base = emit_name(g, spread->a);
		base_rec = spread->a->type->rec;
	}
	size_t cap = 256, len = 0;
	char *s = xmalloc(cap);
	len += (size_t)snprintf(s, cap, "((%s){", type_c(t));
	bool first = true;
	/* Which initialiser gives each field (sema allows one per field): found by name once, not per field. */
	Node **init_of = xcalloc((size_t)(rec->nfields ? rec->nfields : 1), sizeof *init_of);
	for (Node *fi = e->list; fi; fi = fi->next) {
		Field *f = fi->kind == N_FIELD_INIT ? record_field(rec, fi->name) : NULL;
		if (f)
			init_of[f - rec->fields] = fi;
	}
	for (int i = 0; i < rec->nfields; i++) {
		Field *f = &rec->fields[i];
		char *val = init_of[i] ? emit_as(g, init_of[i]->a, f->type) : NULL;
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
	xfree(init_of);
	if (len + 4 > cap)
		s = xrealloc(s, cap = len + 4);
	snprintf(s + len, cap - len, first ? " 0 })" : " })");
	return s;
}

/* [x for x in xs if c]: a loop pushing onto an arena vector. */
static char *emit_comprehension(Gen *g, Node *e)
{
	Type *elem = e->a->type;
	char *src = emit_name(g, e->b);
	char *vec = new_tmp(g);
	char *idx = new_tmp(g);
	pr(g->out, "stoat_vec %s = { NULL, 0, 0 };\n", vec);
	pr(g->out, "for (size_t %s = 0; %s < %s.len; %s++) {\n", idx, idx, src, idx);
	pr_indent(g->out);
	bind(g, e->sym, cvar(xasprintf("%s.items[%s]", src, idx)));
	if (e->c) {
		pr(g->out, "if (%s)\n", emit_cond(g, e->c, true));
		pr_nested(g->out, "continue;\n");
	}
	char *x = emit_as(g, e->a, elem);
	pr(g->out, "*(%s *)stoat_vec_push(&cx->arena, &%s, sizeof(%s)) = %s;\n", type_c(elem), vec, type_c(elem), x);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	return xasprintf("((%s){ %s.data, %s.len })", type_c(e->type), vec, vec);
}

/*
 * The standard library's functions that are a field read or a cast
 * (stdlib/std.c): the expression itself, with no call and no error check
 * (they cannot fail).  `fmt` takes the one argument as an operand; a cast
 * is a compound, parenthesised where it is an operand.
 */
static const struct {
	const char *cname, *fmt;
	Form form;
} inline_std[] = {
	{ "stoat_std_len", "(int64_t)%s.len", F_OPERAND },
	{ "stoat_std_len_bytes", "(int64_t)%s.len", F_OPERAND },
	{ "stoat_std_to_f64", "(double)%s", F_COMPOUND },
	{ "stoat_std_to_i64_i32", "(int64_t)%s", F_COMPOUND },
};

/* A call of an extern or a built-in (len, get). */
static CExpr *emit_call(Gen *g, Node *e)
{
	if (e->op == BUILTIN_LEN)
		return cexpr(F_OPERAND, xasprintf("(int64_t)%s.len", emit_expr(g, e->list)));
	if (e->op == BUILTIN_GET) {
		char *a = emit_expr(g, e->list);
		char *i = emit_as(g, e->list->next, ty_i64);
		return cexpr(F_OPERAND, xasprintf("%s(%s, %s)", need(g, H_GET, e->list->type, FMT_JSON), a, i));
	}
	Node *d = e->decl;
	for (size_t i = 0; i < sizeof inline_std / sizeof inline_std[0]; i++)
		if (d->cname && strcmp(d->cname, inline_std[i].cname) == 0 && e->list && !e->list->next)
			return cexpr(inline_std[i].form, xasprintf(inline_std[i].fmt, emit_as(g, e->list, d->list->type)));
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
	return name_expr(hoist(g, d->type, s, true));
}

/* a ?? b: b evaluated only when a is null. */
static CExpr *emit_coalesce(Gen *g, Node *e)
{
	char *a = emit_name(g, e->a);
	char *stmts;
	char *b = emit_lazy(g, e->b, e->type, &stmts);
	char *present = e->type->kind == TY_NULLABLE ? a : xasprintf("%s.v", a);
	if (!*stmts)
		return cexpr(F_COMPOUND, xasprintf("%s.has ? %s : %s", a, present, b));
	char *t = new_tmp(g);
	pr(g->out, "%s %s = %s;\n", type_c(e->type), t, present);
	pr(g->out, "if (!%s.has) {\n", a);
	pr_raw(g->out, stmts, strlen(stmts));
	pr_nested(g->out, "%s = %s;\n", t, b);
	pr(g->out, "}\n");
	return name_expr(t);
}

/* if c then x else y: each branch's statements only on its side. */
static CExpr *emit_if(Gen *g, Node *e)
{
	CExpr *c = emit_form(g, e->a);
	char *s1, *s2;
	char *x = emit_lazy(g, e->b, e->type, &s1);
	char *y = emit_lazy(g, e->c, e->type, &s2);
	if (!*s1 && !*s2)
		return cexpr(F_COMPOUND, xasprintf("%s ? %s : %s", render_expr(c), x, y));
	char *t = new_tmp(g);
	pr(g->out, "%s %s;\n", type_c(e->type), t);
	pr(g->out, "if (%s) {\n", render_cond(c, false));
	pr_raw(g->out, s1, strlen(s1));
	pr_nested(g->out, "%s = %s;\n", t, x);
	pr(g->out, "} else {\n");
	pr_raw(g->out, s2, strlen(s2));
	pr_nested(g->out, "%s = %s;\n", t, y);
	pr(g->out, "}\n");
	return name_expr(t);
}

/* -x and !x. */
static CExpr *emit_unary(Gen *g, Node *e)
{
	if (e->op == OP_NOT)
		return cexpr_not(cexpr(F_OPERAND, emit_expr(g, e->a)));
	/* Not -(-9223372036854775808): that overflows, checked below. */
	if (e->a->kind == N_INT && e->a->ival != INT64_MIN) {
		if (e->type->kind == TY_F64)
			return cexpr(F_OPERAND, c_double(-(double)e->a->ival));
		if (e->type->kind == TY_I32)
			return cexpr(F_OPERAND, xasprintf("(%lld)", -(long long)e->a->ival));
		return cexpr(F_OPERAND, xasprintf("(-INT64_C(%lld))", (long long)e->a->ival));
	}
	if (e->type->kind == TY_F64)
		return cexpr(F_OPERAND, xasprintf("(-%s)", emit_expr(g, e->a)));
	return name_expr(hoist(g, e->type, xasprintf("stoat_neg_%s(cx, %s)", int_suffix(e->type), emit_expr(g, e->a)), true));
}

/* An array literal: its elements in an arena block. */
static char *emit_array(Gen *g, Node *e)
{
	int n = node_list_len(e->list);
	if (n == 0)
		return xasprintf("((%s){ NULL, 0 })", type_c(e->type));
	Type *elem = e->type->elem;
	char **vals = xcalloc((size_t)n, sizeof *vals);
	int i = 0;
	for (Node *x = e->list; x; x = x->next)
		vals[i++] = emit_as(g, x, elem);
	char *t = new_tmp(g);
	pr(g->out, "%s *%s = stoat_arena_alloc(&cx->arena, %d * sizeof(%s));\n", type_c(elem), t, n, type_c(elem));
	for (i = 0; i < n; i++)
		pr(g->out, "%s[%d] = %s;\n", t, i, vals[i]);
	return xasprintf("((%s){ %s, %d })", type_c(e->type), t, n);
}

/* let x = a in b: evaluated once, where it is written. */
static CExpr *emit_let(Gen *g, Node *e)
{
	CVar *var = cvar(emit_name(g, e->a));
	bind(g, e->sym, var);
	if (!e->sym->used)
		pr(g->out, "(void)%s; /* unused, but evaluated: it may fail */\n", var->c);
	return emit_form(g, e->b);
}

/* The C form of expression e; statements it needs go to g->out first. */
static CExpr *emit_form(Gen *g, Node *e)
{
	switch (e->kind) {
	case N_INT:
		if (e->type->kind == TY_F64 && e->ival < 0) /* -2^63: parenthesized, as after '-' */
			return cexpr(F_OPERAND, xasprintf("(%s)", c_double((double)e->ival)));
		if (e->type->kind == TY_F64)
			return cexpr(F_OPERAND, c_double((double)e->ival));
		if (e->type->kind == TY_I32 && e->ival >= 0) /* digits only: safe to write twice */
			return name_expr(xasprintf("%lld", (long long)e->ival));
		if (e->type->kind == TY_I32)
			return cexpr(F_OPERAND, xasprintf("%lld", (long long)e->ival));
		if (e->ival == INT64_MIN) /* -9223372036854775808 in C is minus an unsigned constant */
			return cexpr(F_OPERAND, xstrdup("(-INT64_C(9223372036854775807) - 1)"));
		return cexpr(F_OPERAND, xasprintf("INT64_C(%lld)", (long long)e->ival));
	case N_FLOAT:
		return cexpr(F_OPERAND, c_double(e->fval));
	case N_STR:
		return cexpr(F_OPERAND, xasprintf("((stoat_str){ %s, %zu })", c_string(e->str, e->len), e->len));
	case N_BOOL:
		return name_expr(xstrdup(e->ival ? "true" : "false"));
	case N_DURATION:
		return cexpr(F_OPERAND, xasprintf("INT64_C(%lld)", (long long)e->ival));
	case N_NULL:
		return name_expr(xstrdup("0"));
	case N_IDENT: {
		/* What a name is bound to is a variable or member path (see CVar). */
		const char *c = use(bound(g, e->sym));
		return name_expr(e->narrowed ? xasprintf("%s.v", c) : xstrdup(c));
	}
	case N_FIELD: {
		CExpr *base = emit_form(g, e->a);
		CExpr *x = cexpr(F_OPERAND,
		                 xasprintf("%s.%s%s", render_expr(base), c_field(e->name), e->narrowed ? ".v" : ""));
		x->name = base->name;
		return x;
	}
	case N_INDEX: {
		char *a = emit_expr(g, e->a);
		char *i = emit_as(g, e->b, ty_i64);
		char *fn = need(g, H_INDEX, e->a->type, FMT_JSON);
		return name_expr(hoist(g, e->type, xasprintf("%s(cx, %s, %s)", fn, a, i), true));
	}
	case N_CALL:
		return emit_call(g, e);
	case N_UNARY:
		return emit_unary(g, e);
	case N_BINARY:
		return emit_binary(g, e);
	case N_COALESCE:
		return emit_coalesce(g, e);
	case N_IF:
		return emit_if(g, e);
	case N_TUPLE:
		return cexpr(F_OPERAND, xasprintf("((%s){ %s, %s })", type_c(e->type), emit_as(g, e->list, e->type->key),
		                                  emit_as(g, e->list->next, e->type->val)));
	case N_RECORD:
		return cexpr(F_OPERAND, emit_record(g, e));
	case N_ARRAY:
		return cexpr(F_OPERAND, emit_array(g, e));
	case N_COMPREHENSION:
		return cexpr(F_OPERAND, emit_comprehension(g, e));
	case N_LET:
		return emit_let(g, e);
	default:
		assert(!"unexpected expression in codegen");
		return cexpr(F_OPERAND, xstrdup("0"));
	}
}
