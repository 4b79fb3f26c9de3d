/*
 * sema_expr.c - expressions: literals, names, fields, calls and overloads,
 * operators, records, arrays, comprehensions, let, lambdas; and narrowing,
 * the facts that make a T? expression a T where it was checked for null.
 */
#include "sema_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Narrowing facts                                                    */
/* ------------------------------------------------------------------ */

/*
 * A narrowing fact is a path expression known to be non-null: a variable
 * (a lambda parameter, a loop or let variable) followed by zero or more
 * field accesses.  Facts are the nodes themselves, compared by structure,
 * so the x.f of one expression matches the x.f of another.
 */

/* Whether e, already checked, is a path expression: a variable, then fields. */
static bool is_path(const Node *e)
{
	if (e->kind == N_IDENT)
		return e->sym && e->sym->kind == SYM_VAR;
	return e->kind == N_FIELD && is_path(e->a);
}

/* Whether the paths a and b name the same variable and the same fields. */
static bool same_path(const Node *a, const Node *b)
{
	assert(is_path(a) && is_path(b));
	if (a->kind != b->kind)
		return false;
	if (a->kind == N_IDENT)
		return a->sym == b->sym;
	return strcmp(a->name, b->name) == 0 && same_path(a->a, b->a);
}

/* Whether the value of the path expression e is known to be non-null here. */
static bool is_fact(Sema *sema, const Node *e)
{
	if (!is_path(e))
		return false;
	for (int i = 0; i < sema->nfacts; i++)
		if (same_path(sema->facts[i], e))
			return true;
	return false;
}

/* Records that the path expression e is non-null until nfacts is reset. */
static void push_fact(Sema *sema, Node *e)
{
	assert(is_path(e));
	if (sema->nfacts == sema->capfacts) {
		sema->capfacts = sema->capfacts ? sema->capfacts * 2 : 16;
		sema->facts = xrealloc(sema->facts, sizeof *sema->facts * (size_t)sema->capfacts);
	}
	sema->facts[sema->nfacts++] = e;
}

/*
 * Adds the facts that hold when cond evaluates to `when`: x != null (true),
 * x == null (false), conjunctions when true, disjunctions when false.
 * Operands must have been checked already.
 */
static void add_facts(Sema *sema, Node *cond, bool when)
{
	if (cond->kind == N_BINARY && (cond->op == OP_NE || cond->op == OP_EQ)) {
		bool nonnull_when = cond->op == OP_NE;
		if (when != nonnull_when)
			return;
		Node *other = cond->b->kind == N_NULL ? cond->a : cond->a->kind == N_NULL ? cond->b : NULL;
		if (other && is_path(other))
			push_fact(sema, other);
	} else if (cond->kind == N_BINARY && cond->op == OP_AND && when) {
		add_facts(sema, cond->a, true);
		add_facts(sema, cond->b, true);
	} else if (cond->kind == N_BINARY && cond->op == OP_OR && !when) {
		add_facts(sema, cond->a, false);
		add_facts(sema, cond->b, false);
	} else if (cond->kind == N_UNARY && cond->op == OP_NOT) {
		add_facts(sema, cond->a, !when);
	}
}

/* ------------------------------------------------------------------ */
/* Expressions                                                        */
/* ------------------------------------------------------------------ */

/* Whether e is an integer literal, possibly negated: its type follows what it meets. */
static bool is_int_literal(Node *e)
{
	return e->kind == N_INT || (e->kind == N_UNARY && e->op == OP_NEG && e->a->kind == N_INT);
}

/* True if a value of type from can be used where to is expected. */
bool assignable(Type *from, Type *to)
{
	if (from == to || from->kind == TY_ERROR || to->kind == TY_ERROR)
		return true;
	if (to->kind == TY_NULLABLE)
		return from->kind == TY_NULL || assignable(from, to->elem);
	if (from->kind == TY_I32 && to->kind == TY_I64)
		return true;
	return false;
}

/* Checks e against the expected type `want`, reporting a mismatch. */
Type *check_as(Sema *sema, Node *e, Type *want, const char *what)
{
	Type *t = check_expr(sema, e, want);
	if (!assignable(t, want)) {
		const char *hint = NULL;
		if (t->kind == TY_NULLABLE && assignable(t->elem, want))
			hint = "it may be null here; give a default with '?? value' or check it with 'if x != null'";
		else if (type_is_numeric(t) && type_is_numeric(want))
			hint = want->kind == TY_F64 ? "convert with to_f64(...)" : "convert with to_i64(...)";
		else if (want->kind == TY_STRING && type_is_scalar(t))
			hint = "convert with to_string(...)";
		error_hint(e->span, hint, "%s must be %s, found %s", what, type_str(want), type_str(t));
		return want;
	}
	return t;
}

/* An integer literal's type: f64 or i32 where the context wants one (and it fits), else i64;
 * 2^63 (the lexer's INT64_MIN) is an i64 only negated, -9223372036854775808. */
static Type *check_int_literal(Node *e, Type *hint)
{
	if (e->int_literal_overflow) {
		error_hint(e->span, "the smallest is -9223372036854775808, written with its minus",
		           "integer literal is too large (the largest is 9223372036854775807)");
		return ty_i64;
	}
	Type *h = hint ? type_strip(hint) : NULL;
	if (h && h->kind == TY_F64)
		return ty_f64;
	if (h && h->kind == TY_I32 && e->ival >= INT32_MIN && e->ival <= INT32_MAX)
		return ty_i32;
	return ty_i64;
}

/* The result type of two operands of an if/else or an array literal. */
static Type *unify(Type *a, Type *b)
{
	if (a == b)
		return a;
	if (a->kind == TY_ERROR || b->kind == TY_ERROR)
		return ty_error;
	if (a->kind == TY_NULL)
		return ty_nullable(b);
	if (b->kind == TY_NULL)
		return ty_nullable(a);
	if (type_is_int(a) && type_is_int(b))
		return ty_i64;
	if (a->kind == TY_NULLABLE && assignable(b, a))
		return a;
	if (b->kind == TY_NULLABLE && assignable(a, b))
		return b;
	if (a->kind == TY_NULLABLE || b->kind == TY_NULLABLE) {
		Type *inner = unify(type_strip(a), type_strip(b));
		return inner ? ty_nullable(inner) : NULL;
	}
	return NULL;
}

/*
 * A name used as a value: a local (narrowed if a fact says it is non-null
 * here), or a reported mistake.
 */
static Type *check_ident(Sema *sema, Node *e)
{
	Symbol *s = lookup_in(sema->locals, e->name);
	if (s) {
		s->used = true;
		e->sym = s;
		Type *t = s->type;
		if (t->kind == TY_NULLABLE && is_fact(sema, e)) {
			e->narrowed = true;
			t = t->elem;
		}
		return t;
	}
	Symbol *g = lookup_global(sema, e->name, SYM_STREAM);
	if (g) {
		error_hint(e->span, "streams flow through operators (|>); inside a lambda, use its parameters",
		           "stream '%s' used as a value", e->name);
		return ty_error;
	}
	if (lookup_global(sema, e->name, SYM_FN)) {
		error_hint(e->span, "call it: name(arguments)", "function '%s' used as a value", e->name);
		return ty_error;
	}
	Suggest sg = { e->name, NULL, 0 };
	for (Symbol *l = sema->locals; l; l = l->next)
		suggest_consider(&sg, l->name);
	error_hint(e->span, did_you_mean(&sg), "unknown name '%s'", e->name);
	return ty_error;
}

/* x.f: the field's type, narrowed if a fact says x.f is non-null here. */
static Type *check_field(Sema *sema, Node *e)
{
	Type *base = check_expr(sema, e->a, NULL);
	if (base->kind == TY_ERROR)
		return ty_error;
	if (base->kind == TY_NULLABLE && base->elem->kind == TY_RECORD) {
		error_hint(e->a->span,
		           "check it here (if x != null then x.f else ...) or give a default with ??; "
		           "a filter in an earlier operator does not change the type",
		           "field access on a value that may be null (%s)", type_str(base));
		base = base->elem;
	}
	if (base->kind != TY_RECORD && e->a->kind == N_IDENT && e->a->sym && e->a->sym->kind == SYM_VAR &&
	    e->a->sym->decl && e->a->sym->decl->slot == SLOT_KEY && (strcmp(e->name, "start") == 0 || strcmp(e->name, "end") == 0)) {
		error_hint(e->name_span, "window bounds are on the key of a windowed aggregation's table: "
		           "group_by_key() |> window(tumbling 1m, grace 0s) |> count()",
		           "window bound '%s' on a key that is not windowed (%s)", e->name, type_str(base));
		return ty_error;
	}
	if (base->kind != TY_RECORD) {
		error_at(e->name_span, "%s has no fields (looking for '%s')", type_str(base), e->name);
		return ty_error;
	}
	Field *f = record_field(base->rec, e->name);
	if (!f) {
		Suggest sg = { e->name, NULL, 0 };
		for (int i = 0; i < base->rec->nfields; i++)
			suggest_consider(&sg, base->rec->fields[i].name);
		char *hint = did_you_mean(&sg);
		if (!hint) {
			size_t cap = 64, len = 0;
			hint = xmalloc(cap);
			len += (size_t)snprintf(hint, cap, "%s has fields:", type_str(base));
			for (int i = 0; i < base->rec->nfields; i++) {
				size_t need = len + strlen(base->rec->fields[i].name) + 4;
				if (need > cap)
					hint = xrealloc(hint, cap = need * 2);
				len += (size_t)snprintf(hint + len, cap - len, "%s %s", i ? "," : "",
				                        base->rec->fields[i].name);
			}
			if (base->rec->nfields == 0)
				snprintf(hint + len, cap - len, " none");
		}
		error_hint(e->name_span, hint, "%s has no field '%s'", type_str(base), e->name);
		return ty_error;
	}
	Type *t = f->type;
	if (t->kind == TY_NULLABLE && is_fact(sema, e)) {
		e->narrowed = true;
		t = t->elem;
	}
	return t;
}

/* Picks the overload of a function whose parameters accept the arguments. */
static Type *check_call(Sema *sema, Node *e)
{
	Symbol *fn = lookup_global(sema, e->name, SYM_FN);
	int nargs = node_list_len(e->list);
	/* get(xs, i): the element at i, or null when i is out of range. */
	if (strcmp(e->name, "get") == 0 && nargs == 2) {
		Type *at = check_expr(sema, e->list, NULL);
		if (at->kind == TY_ARRAY) {
			check_as(sema, e->list->next, ty_i64, "the index of get");
			e->op = BUILTIN_GET;
			return ty_nullable(at->elem);
		}
		if (at->kind != TY_ERROR && !fn)
			error_at(e->list->span, "get needs an array, found %s", type_str(at));
		if (!fn)
			return ty_error;
	}
	if (!fn) {
		if (lookup_global(sema, e->name, SYM_STREAM) || lookup_in(sema->locals, e->name)) {
			error_at(e->name_span, "'%s' is not a function", e->name);
		} else {
			Suggest sg = { e->name, NULL, 0 };
			for (Symbol *g = sema->globals; g; g = g->next)
				if (g->kind == SYM_FN)
					suggest_consider(&sg, g->name);
			char *hint = did_you_mean(&sg);
			error_hint(e->name_span, hint ? hint : "declare C functions with: extern fn name(x: T) -> T from \"file.h\";",
			           "unknown function '%s'", e->name);
		}
		for (Node *a = e->list; a; a = a->next)
			check_expr(sema, a, NULL);
		return ty_error;
	}
	fn->used = true;
	/* len() of any array is built in: the length is in the array. */
	if (strcmp(e->name, "len") == 0 && nargs == 1) {
		Type *t = check_expr(sema, e->list, NULL);
		if (t->kind == TY_ARRAY) {
			e->op = BUILTIN_LEN;
			return ty_i64;
		}
	}
	/*
	 * Check arguments once.  With a single candidate of this arity its
	 * parameter types guide literals (null, [], anonymous records); with
	 * several, arguments take their natural types so the exact overload wins.
	 */
	Node *hint_decl = NULL;
	int candidates = 0;
	for (Symbol *o = fn; o; o = o->overload)
		if (node_list_len(o->decl->list) == nargs) {
			if (!hint_decl)
				hint_decl = o->decl;
			candidates++;
		}
	if (candidates > 1)
		hint_decl = NULL;
	Type *argt[16];
	int i = 0;
	Node *hp = hint_decl ? hint_decl->list : NULL;
	for (Node *a = e->list; a; a = a->next, i++) {
		Type *t = check_expr(sema, a, hp ? hp->type : NULL);
		if (i < 16)
			argt[i] = t;
		if (hp)
			hp = hp->next;
	}
	if (nargs > 16) {
		error_at(e->span, "too many arguments");
		return ty_error;
	}
	for (int k = 0; k < nargs; k++)
		if (argt[k]->kind == TY_ERROR)
			return ty_error;
	/* Pass 0: exact types; pass 1: with widening and literal conversion. */
	for (int pass = 0; pass < 2; pass++)
	for (Symbol *o = fn; o; o = o->overload) {
		Node *d = o->decl;
		if (node_list_len(d->list) != nargs)
			continue;
		bool ok = true;
		int k = 0;
		for (Node *p = d->list; p && ok; p = p->next, k++) {
			Type *at = argt[k];
			Node *arg = e->list;
			for (int j = 0; j < k; j++)
				arg = arg->next;
			if (pass == 0) {
				ok = at == p->type || (p->type->kind == TY_NULLABLE && (at == p->type->elem || at->kind == TY_NULL));
				continue;
			}
			if (is_int_literal(arg) && type_is_numeric(type_strip(p->type)))
				continue;
			ok = assignable(at, p->type);
		}
		if (!ok)
			continue;
		/* Re-type literal arguments for the chosen overload. */
		k = 0;
		Node *arg = e->list;
		for (Node *p = d->list; p; p = p->next, arg = arg->next, k++)
			if (is_int_literal(arg))
				check_expr(sema, arg, p->type);
		e->decl = d;
		return d->type;
	}
	/* No overload fits: describe what exists. */
	size_t cap = 256, len = 0;
	char *hint = xmalloc(cap);
	hint[0] = '\0';
	for (Symbol *o = fn; o; o = o->overload) {
		char sig[512];
		size_t sl = 0;
		sl += (size_t)snprintf(sig, sizeof sig, "%s%s(", o == fn ? "" : "; ", o->name);
		for (Node *p = o->decl->list; p && sl < sizeof sig; p = p->next)
			sl += (size_t)snprintf(sig + sl, sizeof sig - sl, "%s%s: %s", p == o->decl->list ? "" : ", ",
			                       p->name, type_str(p->type));
		if (sl < sizeof sig)
			snprintf(sig + sl, sizeof sig - sl, ") -> %s", type_str(o->decl->type));
		if (len + strlen(sig) + 16 > cap)
			hint = xrealloc(hint, cap = (len + strlen(sig) + 16) * 2);
		len += (size_t)snprintf(hint + len, cap - len, "%s", sig);
	}
	char args[512];
	size_t al = 0;
	args[0] = '\0';
	for (int k = 0; k < nargs && al < sizeof args; k++)
		al += (size_t)snprintf(args + al, sizeof args - al, "%s%s", k ? ", " : "", type_str(argt[k]));
	error_hint(e->span, hint, "no version of '%s' takes (%s)", e->name, args);
	return ty_error;
}

/*
 * a op b: and/or (whose right side sees the facts of the left), comparisons
 * (with null, numbers, strings, bytes, time), arithmetic on numbers and
 * time, string concatenation.
 */
static Type *check_binary(Sema *sema, Node *e, Type *hint)
{
	int op = e->op;
	if (op == OP_AND || op == OP_OR) {
		check_as(sema, e->a, ty_bool, op == OP_AND ? "operand of 'and'" : "operand of 'or'");
		int saved = sema->nfacts;
		add_facts(sema, e->a, op == OP_AND);
		check_as(sema, e->b, ty_bool, op == OP_AND ? "operand of 'and'" : "operand of 'or'");
		sema->nfacts = saved;
		return ty_bool;
	}
	bool comparison = op >= OP_EQ && op <= OP_GE;
	Type *ta = check_expr(sema, e->a, comparison ? NULL : hint);
	Type *tb = check_expr(sema, e->b, ta);
	if (is_int_literal(e->a) && tb != ta && type_is_numeric(type_strip(tb)))
		ta = check_expr(sema, e->a, tb);
	if (ta->kind == TY_ERROR || tb->kind == TY_ERROR)
		return comparison ? ty_bool : ty_error;
	static const char *spell[] = { "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=" };

	if (comparison) {
		bool eq = op == OP_EQ || op == OP_NE;
		if (eq && (ta->kind == TY_NULL || tb->kind == TY_NULL)) {
			Type *other = ta->kind == TY_NULL ? tb : ta;
			if (other->kind == TY_NULL)
				return ty_bool;
			if (other->kind != TY_NULLABLE) {
				Node *on = ta->kind == TY_NULL ? e->b : e->a;
				bool narrowed = on->narrowed;
				diag_at(DIAG_WARNING, on->span, narrowed ? "it was already checked for null" : NULL,
				        "%s is never null here; comparing it with null is always %s",
				        type_str(other), op == OP_EQ ? "false" : "true");
			}
			return ty_bool;
		}
		Type *sa = eq ? type_strip(ta) : ta, *sb = eq ? type_strip(tb) : tb;
		bool ok = (type_is_numeric(sa) && type_is_numeric(sb) && (sa->kind == TY_F64) == (sb->kind == TY_F64)) ||
		          (sa == sb && (sa->kind == TY_STRING || sa->kind == TY_BYTES || sa->kind == TY_TIMESTAMP ||
		                        sa->kind == TY_DURATION || (eq && sa->kind == TY_BOOL)));
		if (!ok) {
			const char *h = NULL;
			if ((ta->kind == TY_NULLABLE || tb->kind == TY_NULLABLE) && !eq)
				h = "give a default first: (x ?? 0) < y";
			else if (type_is_numeric(sa) && type_is_numeric(sb))
				h = "convert with to_f64(...)";
			error_hint(e->span, h, "cannot compare %s %s %s", type_str(ta), spell[op], type_str(tb));
		}
		return ty_bool;
	}

	/* Arithmetic. */
	if (ta->kind == TY_NULLABLE || tb->kind == TY_NULLABLE) {
		error_hint(ta->kind == TY_NULLABLE ? e->a->span : e->b->span,
		           "give a default with '?? value' first",
		           "operand of '%s' may be null (%s)", spell[op],
		           type_str(ta->kind == TY_NULLABLE ? ta : tb));
		return ty_error;
	}
	if (type_is_numeric(ta) && type_is_numeric(tb)) {
		if ((ta->kind == TY_F64) != (tb->kind == TY_F64)) {
			error_hint(e->span, "convert the integer with to_f64(...)",
			           "cannot mix %s and %s in '%s'", type_str(ta), type_str(tb), spell[op]);
			return ty_error;
		}
		if (op == OP_MOD && ta->kind == TY_F64) {
			error_at(e->span, "'%%' needs integers, found f64");
			return ty_error;
		}
		return ta == tb ? ta : ty_i64;
	}
	if (op == OP_ADD && ta->kind == TY_STRING && tb->kind == TY_STRING)
		return ty_string;
	if (op == OP_ADD && ta->kind == TY_STRING && type_is_scalar(tb))
		error_hint(e->b->span, "convert with to_string(...)", "cannot add %s to a string", type_str(tb));
	else if (op == OP_ADD && tb->kind == TY_STRING && type_is_scalar(ta))
		error_hint(e->a->span, "convert with to_string(...)", "cannot add %s to a string", type_str(ta));
	else {
		/* Time arithmetic. */
		TypeKind a = ta->kind, b = tb->kind;
		if ((op == OP_ADD || op == OP_SUB) && a == TY_TIMESTAMP && b == TY_DURATION)
			return ty_timestamp;
		if (op == OP_ADD && a == TY_DURATION && b == TY_TIMESTAMP)
			return ty_timestamp;
		if (op == OP_SUB && a == TY_TIMESTAMP && b == TY_TIMESTAMP)
			return ty_duration;
		if ((op == OP_ADD || op == OP_SUB) && a == TY_DURATION && b == TY_DURATION)
			return ty_duration;
		if ((op == OP_MUL || op == OP_DIV) && a == TY_DURATION && type_is_int(tb))
			return ty_duration;
		if (op == OP_MUL && type_is_int(ta) && b == TY_DURATION)
			return ty_duration;
		error_at(e->span, "cannot apply '%s' to %s and %s", spell[op], type_str(ta), type_str(tb));
	}
	return ty_error;
}

/*
 * T { ... }, { ... } or { ...base, ... }: a named record needs its
 * non-nullable fields; an anonymous one is typed by its fields (and a
 * spread with new or retyped fields makes a new shape).
 */
static Type *check_record(Sema *sema, Node *e, Type *hint)
{
	Record *target = NULL;
	if (e->name) {
		Symbol *s = lookup_global(sema, e->name, SYM_TYPE);
		if (!s) {
			Suggest sg = { e->name, NULL, 0 };
			for (Symbol *g = sema->globals; g; g = g->next)
				if (g->kind == SYM_TYPE)
					suggest_consider(&sg, g->name);
			error_hint(e->name_span, did_you_mean(&sg), "unknown record type '%s'", e->name);
			for (Node *fi = e->list; fi; fi = fi->next)
				check_expr(sema, fi->a, NULL);
			return ty_error;
		}
		s->used = true;
		target = s->type->rec;
	} else if (hint && type_strip(hint)->kind == TY_RECORD) {
		target = type_strip(hint)->rec;
	}

	/* Spreads first: they give the defaults that explicit fields override. */
	Type *spread_type = NULL;
	for (Node *fi = e->list; fi; fi = fi->next) {
		if (fi->kind != N_SPREAD)
			continue;
		if (fi != e->list) {
			error_hint(fi->span, "write { ...base, field: value }", "'...' must come first");
		}
		Type *t = check_expr(sema, fi->a, target ? ty_record(target) : NULL);
		if (t->kind == TY_ERROR)
			continue;
		if (t->kind != TY_RECORD) {
			error_at(fi->a->span, "'...' needs a record, found %s", type_str(t));
			continue;
		}
		if (spread_type) {
			error_at(fi->span, "only one '...' per record");
			continue;
		}
		spread_type = t;
	}

	if (!target && !spread_type) {
		/* An anonymous record whose shape is its fields. */
		int n = node_list_len(e->list);
		Field *fields = xcalloc((size_t)(n ? n : 1), sizeof *fields);
		int k = 0;
		bool bad = false;
		NameSet seen = { 0 };
		for (Node *fi = e->list; fi; fi = fi->next) {
			if (fi->kind != N_FIELD_INIT)
				continue; /* a bad spread, already reported */
			/* Each earlier duplicate is reported again, as a scan of the earlier fields did. */
			if (!nameset_add(&seen, fi->name)) {
				for (int j = 0; j < k; j++)
					if (strcmp(fields[j].name, fi->name) == 0)
						error_at(fi->name_span, "field '%s' is given twice", fi->name);
				bad = true;
			}
			Type *t = check_expr(sema, fi->a, NULL);
			if (t->kind == TY_NULL) {
				error_hint(fi->a->span, "declare a record type and construct it by name: T { ... }",
				           "cannot infer the type of field '%s' from null", fi->name);
				bad = true;
			}
			if (t->kind == TY_PAIR) {
				error_at(fi->a->span, "a field cannot hold a pair");
				bad = true;
			}
			if (t->kind == TY_ERROR)
				bad = true;
			fields[k].name = fi->name;
			fields[k].span = fi->name_span;
			fields[k].type = t;
			k++;
		}
		nameset_free(&seen);
		if (bad)
			return ty_error;
		return anon_record(fields, k, e->span);
	}

	Record *rec = target ? target : spread_type->rec;
	if (!target && spread_type) {
		/* { ...base, new: x } may add fields: the result is a new shape. */
		/*
		 * New fields, or an override with another type, make a new
		 * record shape; overrides that fit keep the base's type.
		 */
		bool extends = false;
		for (Node *fi = e->list; fi; fi = fi->next) {
			if (fi->kind != N_FIELD_INIT)
				continue;
			Field *f = record_field(rec, fi->name);
			if (!f) {
				extends = true;
			} else {
				Type *t = check_expr(sema, fi->a, f->type);
				if (t->kind != TY_ERROR && !assignable(t, f->type))
					extends = true;
			}
		}
		if (extends) {
			int n = rec->nfields + node_list_len(e->list);
			Field *fields = xcalloc((size_t)n, sizeof *fields);
			memcpy(fields, rec->fields, sizeof *fields * (size_t)rec->nfields);
			int k = rec->nfields;
			bool bad = false;
			for (Node *fi = e->list; fi; fi = fi->next) {
				if (fi->kind != N_FIELD_INIT)
					continue;
				Field *f = record_field(rec, fi->name);
				Type *t = check_expr(sema, fi->a, f ? f->type : NULL);
				if (t->kind == TY_ERROR || t->kind == TY_NULL) {
					if (t->kind == TY_NULL)
						error_at(fi->a->span, "cannot infer the type of field '%s' from null", fi->name);
					bad = true;
				}
				if (f) {
					int idx = (int)(f - rec->fields);
					fields[idx].type = assignable(t, f->type) ? f->type : t;
				} else {
					fields[k].name = fi->name;
					fields[k].span = fi->name_span;
					fields[k].type = t;
					k++;
				}
			}
			if (bad)
				return ty_error;
			return anon_record(fields, k, e->span);
		}
	}
	if (spread_type && spread_type->rec != rec) {
		error_at(e->list->a->span, "'...' of %s into a %s record", type_str(spread_type), rec->name);
		return ty_error;
	}

	/* A record of a known type: every non-nullable field must be given. */
	bool *given = xcalloc((size_t)(rec->nfields ? rec->nfields : 1), sizeof *given);
	for (Node *fi = e->list; fi; fi = fi->next) {
		if (fi->kind != N_FIELD_INIT)
			continue;
		Field *f = record_field(rec, fi->name);
		if (!f) {
			Suggest sg = { fi->name, NULL, 0 };
			for (int i = 0; i < rec->nfields; i++)
				suggest_consider(&sg, rec->fields[i].name);
			error_hint(fi->name_span, did_you_mean(&sg), "%s has no field '%s'", type_str(ty_record(rec)),
			           fi->name);
			check_expr(sema, fi->a, NULL);
			continue;
		}
		int idx = (int)(f - rec->fields);
		if (given[idx])
			error_at(fi->name_span, "field '%s' is given twice", fi->name);
		given[idx] = true;
		char what[256];
		snprintf(what, sizeof what, "field '%s'", f->name);
		check_as(sema, fi->a, f->type, what);
	}
	if (!spread_type) {
		char missing[512];
		size_t ml = 0;
		int nmissing = 0;
		for (int i = 0; i < rec->nfields; i++)
			if (!given[i] && rec->fields[i].type->kind != TY_NULLABLE) {
				if (ml < sizeof missing)
					ml += (size_t)snprintf(missing + ml, sizeof missing - ml, "%s'%s'",
					                       nmissing ? ", " : "", rec->fields[i].name);
				nmissing++;
			}
		if (nmissing)
			error_hint(e->span, "fields of a nullable type (T?) may be left out; they are null",
			           "missing %s %s in %s", nmissing == 1 ? "field" : "fields", missing, rec->name);
	}
	xfree(given);
	e->decl = NULL;
	return ty_record(rec);
}

/*
 * Checks an expression and records its type in e->type.  hint is the type
 * the context expects, if known: it types literals (null, [], integers,
 * anonymous records) but mismatches are the caller's to report.
 */
Type *check_expr(Sema *sema, Node *e, Type *hint)
{
	Type *t = ty_error;
	switch (e->kind) {
	case N_INT: t = check_int_literal(e, hint); break;
	case N_FLOAT: t = ty_f64; break;
	case N_STR: t = hint && type_strip(hint)->kind == TY_BYTES ? ty_bytes : ty_string; break;
	case N_BOOL: t = ty_bool; break;
	case N_NULL: t = ty_null; break;
	case N_DURATION: t = ty_duration; break;
	case N_IDENT: t = check_ident(sema, e); break;
	case N_UNDERSCORE:
		error_hint(e->span, "'_' only names a lambda parameter you do not use", "'_' is not a value");
		break;
	case N_FIELD: t = check_field(sema, e); break;
	case N_INDEX: {
		Type *at = check_expr(sema, e->a, NULL);
		check_as(sema, e->b, ty_i64, "an index");
		if (at->kind == TY_ARRAY)
			t = at->elem;
		else if (at->kind != TY_ERROR)
			error_at(e->a->span, "only arrays can be indexed, found %s", type_str(at));
		break;
	}
	case N_CALL: t = check_call(sema, e); break;
	case N_UNARY:
		if (e->op == OP_NOT) {
			check_as(sema, e->a, ty_bool, "operand of 'not'");
			t = ty_bool;
		} else {
			t = check_expr(sema, e->a, hint);
			if (!type_is_numeric(t) && t->kind != TY_DURATION && t->kind != TY_ERROR) {
				error_at(e->span, "cannot negate %s", type_str(t));
				t = ty_error;
			}
		}
		break;
	case N_BINARY: t = check_binary(sema, e, hint); break;
	case N_COALESCE: {
		Type *ta = check_expr(sema, e->a, hint);
		if (ta->kind == TY_ERROR) {
			check_expr(sema, e->b, NULL);
			break;
		}
		if (ta->kind != TY_NULLABLE) {
			error_hint(e->a->span, "drop the '?\? ...'", "%s is never null here, so '?\?' has no effect",
			           type_str(ta));
			check_expr(sema, e->b, ta);
			t = ta;
			break;
		}
		Type *tb = check_expr(sema, e->b, ta->elem);
		if (assignable(tb, ta->elem))
			t = ta->elem;
		else if (assignable(tb, ta))
			t = ta;
		else
			error_at(e->b->span, "default for %s must be %s, found %s", type_str(ta), type_str(ta->elem),
			         type_str(tb));
		break;
	}
	case N_IF: {
		check_as(sema, e->a, ty_bool, "condition of 'if'");
		int saved = sema->nfacts;
		add_facts(sema, e->a, true);
		Type *tb = check_expr(sema, e->b, hint);
		sema->nfacts = saved;
		add_facts(sema, e->a, false);
		Type *tc = check_expr(sema, e->c, tb->kind == TY_NULL ? hint : tb);
		sema->nfacts = saved;
		if (is_int_literal(e->b) && tc != tb && type_is_numeric(type_strip(tc)))
			tb = check_expr(sema, e->b, tc);
		/* if c then { ... } else Named { ... }: the literal is Named too. */
		if (tb->kind == TY_RECORD && tb->rec->anonymous && type_strip(tc)->kind == TY_RECORD &&
		    !type_strip(tc)->rec->anonymous && e->b->kind == N_RECORD) {
			add_facts(sema, e->a, true);
			tb = check_expr(sema, e->b, tc);
			sema->nfacts = saved;
		}
		t = unify(tb, tc);
		if (!t) {
			error_at(e->span, "the branches of 'if' have different types: %s and %s", type_str(tb),
			         type_str(tc));
			t = ty_error;
		} else if (t->kind == TY_NULL) {
			error_at(e->span, "both branches of 'if' are null");
			t = ty_error;
		}
		break;
	}
	case N_TUPLE: {
		int n = node_list_len(e->list);
		if (n != 2) {
			error_hint(e->span, "use a record for more than two values", "a tuple is a (key, value) pair");
			break;
		}
		Type *hk = hint && hint->kind == TY_PAIR ? hint->key : NULL;
		Type *hv = hint && hint->kind == TY_PAIR ? hint->val : NULL;
		Type *k = check_expr(sema, e->list, hk);
		Type *v = check_expr(sema, e->list->next, hv);
		if (k->kind == TY_NULL || v->kind == TY_NULL) {
			error_at(e->span, "cannot infer a type from null; use a typed value");
			break;
		}
		t = ty_pair(k, v);
		break;
	}
	case N_RECORD: t = check_record(sema, e, hint); break;
	case N_ARRAY: {
		Type *elem_hint = hint && type_strip(hint)->kind == TY_ARRAY ? type_strip(hint)->elem : NULL;
		Type *elem = elem_hint;
		bool first = true;
		for (Node *x = e->list; x; x = x->next) {
			Type *xt = check_expr(sema, x, elem);
			if (!first && !elem_hint && elem && elem->kind == TY_RECORD && elem->rec->anonymous &&
			    xt->kind == TY_RECORD && !xt->rec->anonymous) {
				/* [{ ... }, Named { ... }]: the earlier literals are Named too. */
				for (Node *y = e->list; y != x; y = y->next)
					check_expr(sema, y, xt);
				elem = xt;
				for (Node *y = e->list; y != x; y = y->next)
					if (!assignable(y->type, elem))
						error_at(y->span, "array elements must all be %s, found %s", type_str(elem),
						         type_str(y->type));
			}
			if (first && !elem_hint) {
				elem = xt;
			} else if (elem && !assignable(xt, elem)) {
				Type *u = unify(elem, xt);
				if (u && !elem_hint) {
					elem = u;
				} else {
					error_at(x->span, "array elements must all be %s, found %s", type_str(elem), type_str(xt));
				}
			}
			first = false;
		}
		if (!elem) {
			error_hint(e->span, "an empty array needs a known type, e.g. as a field or a function argument",
			           "cannot infer the type of []");
			break;
		}
		if (elem->kind == TY_NULL) {
			error_at(e->span, "cannot infer the element type of an array of nulls");
			break;
		}
		t = ty_array(elem);
		break;
	}
	case N_COMPREHENSION: {
		Type *at = check_expr(sema, e->b, NULL);
		Type *elem = ty_error;
		if (at->kind == TY_ARRAY)
			elem = at->elem;
		else if (at->kind != TY_ERROR)
			error_at(e->b->span, "'for ... in' needs an array, found %s", type_str(at));
		Symbol *var = sym_new(SYM_VAR, e->name, e->name_span);
		var->type = elem;
		var->next = sema->locals;
		Symbol *saved_locals = sema->locals;
		sema->locals = var;
		e->sym = var;
		int saved = sema->nfacts;
		if (e->c) {
			check_as(sema, e->c, ty_bool, "the 'if' of a comprehension");
			add_facts(sema, e->c, true);
		}
		Type *hint_elem = hint && type_strip(hint)->kind == TY_ARRAY ? type_strip(hint)->elem : NULL;
		Type *xt = check_expr(sema, e->a, hint_elem);
		sema->nfacts = saved;
		sema->locals = saved_locals;
		if (xt->kind == TY_NULL)
			error_at(e->a->span, "cannot infer the element type from null");
		else if (xt->kind != TY_ERROR)
			t = ty_array(xt);
		break;
	}
	case N_LET: {
		Type *vt = check_expr(sema, e->a, NULL);
		if (vt->kind == TY_NULL) {
			error_hint(e->a->span, "write the type it should have, e.g. if c then x else null",
			           "cannot infer the type of '%s' from null", e->name);
			vt = ty_error;
		}
		Symbol *var = sym_new(SYM_VAR, e->name, e->name_span);
		var->type = vt;
		var->next = sema->locals;
		Symbol *saved_locals = sema->locals;
		sema->locals = var;
		e->sym = var;
		t = check_expr(sema, e->b, hint);
		sema->locals = saved_locals;
		if (!var->used)
			warning_at(e->name_span, "'%s' is never used", e->name);
		break;
	}
	case N_LAMBDA:
		error_hint(e->span, "pass it to an operator such as filter(...) or map_values(...)",
		           "a lambda cannot be used as a value here");
		break;
	case N_PIPE:
		error_hint(e->span, "bind it with 'stream name = ...;' or end it with '|> to \"topic\"'",
		           "a stream cannot be used as a value");
		break;
	default:
		error_at(e->span, "expected an expression");
		break;
	}
	e->type = t;
	return t;
}

/* ------------------------------------------------------------------ */
/* Lambdas                                                            */
/* ------------------------------------------------------------------ */

/*
 * Binds a lambda's parameters, by position, to the given types, checks its
 * body against hint and warns about unused parameters.  The caller has
 * checked the parameter count.  Returns the body's type, or NULL if a
 * parameter is not a name.
 */
static Type *check_lambda_body(Sema *sema, Node *lam, Type *const *param_types, Type *hint)
{
	Symbol *saved = sema->locals;
	int i = 0;
	for (Node *p = lam->list; p; p = p->next, i++) {
		if (p->kind == N_UNDERSCORE)
			continue;
		if (p->kind != N_IDENT) {
			error_at(p->span, "a lambda parameter must be a name or _");
			sema->locals = saved;
			return NULL;
		}
		Symbol *sym = sym_new(SYM_VAR, p->name, p->span);
		sym->type = param_types[i];
		sym->decl = p;
		sym->next = sema->locals;
		sema->locals = sym;
		p->sym = sym;
	}
	int saved_facts = sema->nfacts;
	Type *t = check_expr(sema, lam->a, hint);
	sema->nfacts = saved_facts;
	for (Node *p = lam->list; p; p = p->next)
		if (p->sym && !p->sym->used)
			warning_at(p->span, "parameter '%s' is never used; name it _", p->name);
	sema->locals = saved;
	lam->type = t;
	return t;
}

/*
 * Binds a lambda's parameters to the record's key and value (one parameter:
 * the value; two: key and value) and checks its body.  Returns the body's
 * type, or NULL if the lambda is malformed.
 */
Type *check_lambda(Sema *sema, Node *lam, Type *key, Type *val, Type *hint, const char *opname)
{
	if (lam->kind != N_LAMBDA) {
		error_hint(lam->span, "write a lambda such as v => ... or (k, v) => ...",
		           "%s takes a function of the record", opname);
		return NULL;
	}
	int n = node_list_len(lam->list);
	if (n < 1 || n > 2) {
		error_hint(lam->span, "one parameter takes the value; two take (key, value)",
		           "a lambda for %s takes 1 or 2 parameters, not %d", opname, n);
		return NULL;
	}
	int slot = 0;
	for (Node *p = lam->list; p; p = p->next, slot++)
		p->slot = n == 1 ? SLOT_VALUE : slot; /* (k, v): SLOT_KEY, SLOT_VALUE */
	Type *one[] = { val }, *two[] = { key, val };
	return check_lambda_body(sema, lam, n == 1 ? one : two, hint);
}

/*
 * Checks a lambda whose parameters are given types in order (for reduce
 * and aggregate); `counts` lists the parameter counts allowed, and `types`
 * holds, per count, the parameters' types.
 */
Type *check_lambda_typed(Sema *sema, Node *lam, int n_allowed, const int *counts, Type *const *const *types,
                         Type *hint, const char *opname, const char *shape)
{
	if (lam->kind != N_LAMBDA) {
		error_hint(lam->span, shape, "%s takes a function", opname);
		return NULL;
	}
	int n = node_list_len(lam->list);
	int which = -1;
	for (int i = 0; i < n_allowed; i++)
		if (counts[i] == n)
			which = i;
	if (which < 0) {
		error_hint(lam->span, shape, "wrong number of parameters for %s's function", opname);
		return NULL;
	}
	int slot = 0;
	for (Node *p = lam->list; p; p = p->next, slot++)
		p->slot = slot;
	return check_lambda_body(sema, lam, types[which], hint);
}
