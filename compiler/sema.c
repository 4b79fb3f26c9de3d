/*
 * sema.c - semantic analysis and construction of the topology graph.
 *
 * Order of work: declare record types (so they may refer to each other in
 * any order), resolve their fields, declare extern functions (prelude
 * first), read the app header, then check the items of the file in order:
 * a stream must be defined before it is used, which also makes the graph
 * acyclic by construction.
 */
#include "sema.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Everything one run of the checker knows besides the AST it annotates: it
 * is created by sema_check and passed to every function that needs it, so
 * the checker has no state of its own between runs.
 */
typedef struct Sema {
	Program *prog;
	Topology *topo;
	Symbol *globals;          /* streams, types, functions */
	Symbol *locals;           /* lambda parameters and loop variables */
	/* Path expressions (x, x.f.g) known to be non-null at this point (same_path). */
	Node **facts;
	int nfacts, capfacts;
	/* The stream being defined (stream NAME = ...), to name repartition topics and stores. */
	const char *binding_name;
	int repartitions;         /* repartition topics so far, for automatic names */
} Sema;

/* How an operator is written (ops.def's form column). */
typedef enum OpForm { FORM_STEP, FORM_KEYWORD, FORM_BLOCK, FORM_CALL } OpForm;

/* What an operator may follow (ops.def's on column): one bit per kind of records. */
enum { ON_STREAM = 1, ON_TABLE = 2, ON_GROUPED = 4, ON_GROUPED_TABLE = 8, ON_COGROUPED = 16 };

typedef enum Operator {
#define OPERATOR(id, name, form, kind, min_args, max_args, on, stateful) id,
#include "ops.def"
} Operator;

/* One row of ops.def's operator table. */
typedef struct OpInfo {
	Operator id;
	const char *name;
	OpForm form;
	IrKind kind;
	int min_args, max_args; /* max_args -1: no limit */
	unsigned on;            /* ON_ bits */
	bool stateful;
} OpInfo;

/* ------------------------------------------------------------------ */
/* Symbols and suggestions                                             */
/* ------------------------------------------------------------------ */

static Symbol *sym_new(SymKind kind, const char *name, Span span)
{
	Symbol *s = xcalloc(1, sizeof *s);
	s->kind = kind;
	s->name = xstrdup(name);
	s->span = span;
	return s;
}

static Symbol *lookup_in(Symbol *scope, const char *name)
{
	for (Symbol *s = scope; s; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static Symbol *lookup_global(Sema *sema, const char *name, SymKind kind)
{
	for (Symbol *s = sema->globals; s; s = s->next)
		if (s->kind == kind && strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static void add_global(Sema *sema, Symbol *s)
{
	s->next = sema->globals;
	sema->globals = s;
}

/* Levenshtein distance, for "did you mean" hints. */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	int d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int m = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < m)
				m = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < m)
				m = d[i - 1][j - 1] + cost;
			d[i][j] = m;
		}
	return d[la][lb];
}

/* Tracks the closest candidate name to `wanted`. */
typedef struct Suggest {
	const char *wanted;
	const char *best;
	int dist;
} Suggest;

static void suggest_consider(Suggest *s, const char *candidate)
{
	int d = edit_distance(s->wanted, candidate);
	int limit = strlen(s->wanted) <= 3 ? 1 : 2;
	if (d <= limit && (!s->best || d < s->dist)) {
		s->best = candidate;
		s->dist = d;
	}
}

static char *did_you_mean(Suggest *s)
{
	return s->best ? xasprintf("did you mean '%s'?", s->best) : NULL;
}

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
/* Types                                                               */
/* ------------------------------------------------------------------ */

static Type *resolve_type(Sema *sema, Node *te)
{
	switch (te->kind) {
	case N_TY_ARRAY:
		return (te->type = ty_array(resolve_type(sema, te->a)));
	case N_TY_NULLABLE: {
		Type *inner = resolve_type(sema, te->a);
		if (inner->kind == TY_NULLABLE)
			warning_at(te->span, "'%s?' is the same as '%s'", type_str(inner), type_str(inner));
		return (te->type = ty_nullable(inner));
	}
	case N_TY_NAME: {
		static const struct { const char *name; Type **type; } scalars[] = {
			{ "bool", &ty_bool }, { "i32", &ty_i32 }, { "i64", &ty_i64 },
			{ "f64", &ty_f64 }, { "string", &ty_string }, { "bytes", &ty_bytes },
			{ "timestamp", &ty_timestamp }, { "duration", &ty_duration },
		};
		for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
			if (strcmp(te->name, scalars[i].name) == 0)
				return (te->type = *scalars[i].type);
		Symbol *s = lookup_global(sema, te->name, SYM_TYPE);
		if (s) {
			s->used = true;
			return (te->type = s->type);
		}
		Suggest sg = { te->name, NULL, 0 };
		for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
			suggest_consider(&sg, scalars[i].name);
		for (Symbol *g = sema->globals; g; g = g->next)
			if (g->kind == SYM_TYPE)
				suggest_consider(&sg, g->name);
		if (!sg.best && (strcmp(te->name, "int") == 0 || strcmp(te->name, "long") == 0))
			sg.best = "i64";
		if (!sg.best && (strcmp(te->name, "double") == 0 || strcmp(te->name, "float") == 0))
			sg.best = "f64";
		error_hint(te->span, did_you_mean(&sg), "unknown type '%s'", te->name);
		return (te->type = ty_error);
	}
	default:
		error_at(te->span, "expected a type");
		return ty_error;
	}
}

/* Names that would be shadowed by the built-in types. */
static bool builtin_type_name(const char *name)
{
	static const char *names[] = {
		"bool", "i32", "i64", "f64", "string", "bytes", "timestamp", "duration",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Extern C names that would clash with what generated code defines. */
static bool generated_c_name(const char *name)
{
	static const char *prefixes[] = {
		"stoat_", "pipeline_", "segment_", "json_read_", "json_write_", "decode_",
		"encode_", "index_", "get_", "app_", "store_key_", "store_value_", "change_read_", "after_",
		"flush_",
	};
	if (strcmp(name, "main") == 0 || strcmp(name, "app") == 0)
		return true;
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

static void declare_types(Sema *sema, File *f)
{
	for (Node *it = f->items; it; it = it->next) {
		if (it->kind != N_TYPE_DECL)
			continue;
		Symbol *prev = lookup_global(sema, it->name, SYM_TYPE);
		if (prev) {
			error_at(it->name_span, "type '%s' is already defined", it->name);
			note_at(prev->span, "'%s' was first defined here", it->name);
			continue;
		}
		if (builtin_type_name(it->name)) {
			error_hint(it->name_span, "pick another name", "'%s' is a built-in type", it->name);
			continue;
		}
		Symbol *s = sym_new(SYM_TYPE, it->name, it->name_span);
		s->decl = it;
		Record *r = record_new(it->name, it->name_span, false);
		s->type = ty_record(r);
		it->type = s->type;
		add_global(sema, s);
	}
}

static void resolve_fields(Sema *sema, File *f)
{
	for (Node *it = f->items; it; it = it->next) {
		if (it->kind != N_TYPE_DECL || !it->type)
			continue;
		Record *r = it->type->rec;
		r->nfields = node_list_len(it->list);
		r->fields = xcalloc((size_t)r->nfields, sizeof *r->fields);
		int i = 0;
		for (Node *fd = it->list; fd; fd = fd->next) {
			for (int j = 0; j < i; j++)
				if (strcmp(r->fields[j].name, fd->name) == 0) {
					error_at(fd->name_span, "field '%s' appears twice in '%s'", fd->name, r->name);
					break;
				}
			r->fields[i].name = fd->name;
			r->fields[i].span = fd->name_span;
			r->fields[i].type = resolve_type(sema, fd->a);
			if (r->fields[i].type->kind == TY_PAIR)
				error_at(fd->a->span, "a field cannot hold a pair");
			i++;
		}
		r->resolved = true;
	}
}

/* Reports records that contain themselves by value (arrays are fine). */
static bool record_cycle(Record *r, Record *root, Span at)
{
	for (int i = 0; i < r->nfields; i++) {
		Type *t = type_strip(r->fields[i].type);
		if (t->kind != TY_RECORD)
			continue;
		if (t->rec == root) {
			error_hint(at, "wrap the field in an array ([T]) to nest records of the same type",
			           "record type '%s' contains itself", root->name);
			return true;
		}
		if (t->rec->visiting)
			continue;
		t->rec->visiting = 1;
		bool found = record_cycle(t->rec, root, at);
		t->rec->visiting = 0;
		if (found)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Extern functions                                                    */
/* ------------------------------------------------------------------ */

Type **extern_param_types(Node *ext, int *count)
{
	int n = node_list_len(ext->list);
	Type **types = xcalloc((size_t)n, sizeof *types);
	int i = 0;
	for (Node *p = ext->list; p; p = p->next)
		types[i++] = p->type ? p->type : ty_error;
	*count = n;
	return types;
}

static bool valid_c_identifier(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static void declare_externs(Sema *sema, File *f)
{
	for (Node *it = f->items; it; it = it->next) {
		if (it->kind != N_EXTERN)
			continue;
		for (Node *p = it->list; p; p = p->next) {
			p->type = resolve_type(sema, p->a);
			if (p->type->kind == TY_PAIR || p->type->kind == TY_NULL)
				error_at(p->a->span, "an extern function cannot take a %s", type_str(p->type));
		}
		it->type = resolve_type(sema, it->a);
		if (!it->cname)
			it->cname = it->name;
		if (!valid_c_identifier(it->cname))
			error_at(it->span, "'%s' is not a valid C function name", it->cname);
		else if (!f->is_prelude && generated_c_name(it->cname))
			error_hint(it->name_span, "name the C function differently with: as \"my_name\"",
			           "the C name '%s' clashes with generated code", it->cname);
		for (Node *p = it->list; p; p = p->next)
			for (Node *q = it->list; q != p; q = q->next)
				if (strcmp(p->name, q->name) == 0) {
					error_at(p->name_span, "parameter '%s' appears twice", p->name);
					break;
				}
		if (!f->is_prelude) {
			if (!it->str)
				warning_at(it->name_span,
				           "extern fn '%s' names no header; declare it with from \"file.h\"",
				           it->name);
			sema->prog->user_externs = xrealloc(sema->prog->user_externs,
			                              sizeof(Node *) * (size_t)(sema->prog->nuser_externs + 1));
			sema->prog->user_externs[sema->prog->nuser_externs++] = it;
		}
		Symbol *prev = lookup_global(sema, it->name, SYM_FN);
		if (prev) {
			/* Overloads need different parameter types. */
			for (Symbol *o = prev; o; o = o->overload) {
				int na, nb;
				Type **pa = extern_param_types(o->decl, &na);
				Type **pb = extern_param_types(it, &nb);
				bool same = na == nb;
				for (int i = 0; same && i < na; i++)
					same = pa[i] == pb[i];
				xfree(pa);
				xfree(pb);
				if (same) {
					error_at(it->name_span, "function '%s' is already declared with these parameter types",
					         it->name);
					note_at(o->span, "previous declaration");
					break;
				}
			}
			Symbol *s = sym_new(SYM_FN, it->name, it->name_span);
			s->decl = it;
			Symbol *last = prev;
			while (last->overload)
				last = last->overload;
			last->overload = s;
			continue;
		}
		Symbol *s = sym_new(SYM_FN, it->name, it->name_span);
		s->decl = it;
		add_global(sema, s);
	}
}

/* ------------------------------------------------------------------ */
/* Expressions                                                         */
/* ------------------------------------------------------------------ */

static Type *check_expr(Sema *sema, Node *e, Type *hint);
static IrNode *check_stream(Sema *sema, Node *e);

static bool is_int_literal(Node *e)
{
	return e->kind == N_INT || (e->kind == N_UNARY && e->op == OP_NEG && e->a->kind == N_INT);
}

/* True if a value of type from can be used where to is expected. */
static bool assignable(Type *from, Type *to)
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
static Type *check_as(Sema *sema, Node *e, Type *want, const char *what)
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

static Type *check_int_literal(Node *e, Type *hint)
{
	Type *h = hint ? type_strip(hint) : NULL;
	if (h && h->kind == TY_F64)
		return ty_f64;
	if (h && h->kind == TY_I32 && e->ival <= INT32_MAX)
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
		for (Node *fi = e->list; fi; fi = fi->next) {
			if (fi->kind != N_FIELD_INIT)
				continue; /* a bad spread, already reported */
			for (int j = 0; j < k; j++)
				if (strcmp(fields[j].name, fi->name) == 0) {
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

static Type *check_expr(Sema *sema, Node *e, Type *hint)
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
/* Lambdas and operators                                               */
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
static Type *check_lambda(Sema *sema, Node *lam, Type *key, Type *val, Type *hint, const char *opname)
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
		p->slot = n == 1 ? 1 : slot; /* 0: key, 1: value */
	Type *one[] = { val }, *two[] = { key, val };
	return check_lambda_body(sema, lam, n == 1 ? one : two, hint);
}

/*
 * Checks a lambda whose parameters are given types in order (for reduce
 * and aggregate); `counts` lists the parameter counts allowed, and `types`
 * holds, per count, the parameters' types.
 */
static Type *check_lambda_typed(Sema *sema, Node *lam, int n_allowed, const int *counts, Type *const *const *types, Type *hint,
                                const char *opname, const char *shape)
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

static bool parse_format(Node *f, Format *out)
{
	static const struct { const char *name; Format fmt; } formats[] = {
		{ "bytes", FMT_BYTES }, { "text", FMT_TEXT }, { "json", FMT_JSON },
		{ "i32", FMT_I32 }, { "i64", FMT_I64 }, { "f64", FMT_F64 },
	};
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (strcmp(f->name, formats[i].name) == 0) {
			*out = formats[i].fmt;
			return true;
		}
	Suggest sg = { f->name, NULL, 0 };
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		suggest_consider(&sg, formats[i].name);
	char *hint = did_you_mean(&sg);
	error_hint(f->span, hint ? hint : "formats are text, json, bytes, i32, i64 and f64",
	           "unknown format '%s'", f->name);
	return false;
}

static Format default_format(Type *t)
{
	switch (type_strip(t)->kind) {
	case TY_STRING: return FMT_TEXT;
	case TY_BYTES: return FMT_BYTES;
	case TY_I32: return FMT_I32;
	case TY_I64: case TY_TIMESTAMP: case TY_DURATION: return FMT_I64;
	case TY_F64: return FMT_F64;
	default: return FMT_JSON;
	}
}

/* Checks that format f can carry values of type t. */
static void check_format(Node *where, Format f, Type *t, const char *what)
{
	Type *s = type_strip(t);
	bool ok;
	switch (f) {
	case FMT_JSON: ok = true; break;
	case FMT_TEXT: case FMT_BYTES: ok = s->kind == TY_STRING || s->kind == TY_BYTES; break;
	case FMT_I32: ok = s->kind == TY_I32; break;
	case FMT_I64: ok = s->kind == TY_I64 || s->kind == TY_TIMESTAMP || s->kind == TY_DURATION; break;
	case FMT_F64: ok = s->kind == TY_F64; break;
	default: ok = false;
	}
	if (!ok && s->kind != TY_ERROR) {
		char hint[128];
		snprintf(hint, sizeof hint, "%s values are written as %s", type_str(t), format_name(default_format(t)));
		error_hint(where->span, hint, "format %s cannot carry the %s type %s", format_name(f), what,
		           type_str(t));
	}
}

static void check_topic_name(const char *topic, size_t len, Span span);

static Policy parse_policy(Node *p)
{
	if (strcmp(p->name, "fail") == 0 && !p->str)
		return POLICY_FAIL;
	if (strcmp(p->name, "skip") == 0 && !p->str)
		return POLICY_SKIP;
	if (strcmp(p->name, "dlq") == 0) {
		if (!p->str) {
			error_hint(p->span, "write dlq \"topic-name\"", "dlq needs the dead-letter topic");
			return POLICY_FAIL;
		}
		check_topic_name(p->str, p->len, p->span);
		return POLICY_DLQ;
	}
	error_hint(p->span, "policies are fail, skip and dlq \"topic\"", "unknown error policy '%s'", p->name);
	return POLICY_FAIL;
}

static Format default_format(Type *t);

/* ------------------------------------------------------------------ */
/* The operator table                                                  */
/* ------------------------------------------------------------------ */

/* The operators (ops.def), indexed by their Operator id. */
static const OpInfo operators[] = {
#define OPERATOR(id, name, form, kind, min_args, max_args, on, stateful) \
	[id] = { id, name, FORM_##form, kind, min_args, max_args, on, stateful },
#include "ops.def"
};

/* Operators stoat does not have yet (ops.def), and what they belong to. */
static const struct {
	const char *name;
	const char *family;
} planned_operators[] = {
#define PLANNED(name, family) { name, family },
#include "ops.def"
};

/* The operator called name, or NULL. */
static const OpInfo *find_operator(const char *name)
{
	for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
		if (strcmp(operators[i].name, name) == 0)
			return &operators[i];
	return NULL;
}

/* What n's records are, as one of the ON_ bits of ops.def's "on" column. */
static unsigned input_of(const IrNode *n)
{
	if (n->cogrouped)
		return ON_COGROUPED;
	if (n->grouped)
		return n->group_table ? ON_GROUPED_TABLE : ON_GROUPED;
	return n->table ? ON_TABLE : ON_STREAM;
}

/*
 * Reports an argument count other than the one an operator with a fixed
 * count takes ("to_stream takes no arguments"); returns whether it fits.
 */
static bool check_arity(const OpInfo *op, Node *step, int nargs)
{
	assert(op->min_args == op->max_args);
	if (nargs == op->min_args)
		return true;
	if (op->min_args == 0)
		error_at(step->span, "%s takes no arguments", op->name);
	else
		error_at(step->span, "%s takes %d argument%s, got %d", op->name, op->min_args,
		         op->min_args == 1 ? "" : "s", nargs);
	return false;
}


static void check_topic_name(const char *topic, size_t len, Span span);

static IrNode *check_sink(Sema *sema, IrNode *parent, Node *to)
{
	IrNode *sink = ir_new(sema->topo, IR_SINK, to->span);
	ir_link(parent, sink);
	sink->key = parent->key;
	sink->val = parent->val;
	Node *target = to->a;
	if (target->kind == N_STR) {
		target->type = ty_string;
		sink->topic = xstrndup(target->str, target->len);
		check_topic_name(target->str, target->len, target->span);
		for (int i = 0; i < sema->topo->nsources; i++)
			if (strcmp(sema->topo->sources[i]->topic, sink->topic) == 0)
				warning_at(target->span, "topic \"%s\" is also read by stream '%s': records will loop",
				           sink->topic, sema->topo->sources[i]->name);
	} else if (target->kind == N_LAMBDA) {
		Type *t = check_lambda(sema, target, parent->key, parent->val, ty_string, "to");
		if (t && !assignable(t, ty_string))
			error_at(target->a->span, "a topic must be a string, found %s", type_str(t));
		sink->lambda = target;
	} else {
		error_hint(target->span, "write to \"topic\" or to (k, v) => expression",
		           "'to' needs a topic name or a function choosing one");
		check_expr(sema, target, NULL);
	}
	sink->key_format = default_format(parent->key);
	sink->value_format = default_format(parent->val);
	if (to->fmt_key && parse_format(to->fmt_key, &sink->key_format))
		check_format(to->fmt_key, sink->key_format, parent->key, "key");
	if (to->fmt_value && parse_format(to->fmt_value, &sink->value_format))
		check_format(to->fmt_value, sink->value_format, parent->val, "value");
	return sink;
}

/*
 * repartition([name]): the records go through an internal topic,
 * <app-id>-<name>-repartition, partitioned by their (new) key; what follows
 * is a new sub-topology reading it back.  In the IR that is a sink in the
 * parent's pipeline and an internal source.
 */
static IrNode *check_repartition(Sema *sema, IrNode *parent, Node *step)
{
	int nargs = node_list_len(step->list);
	const char *name = NULL;
	char auto_name[64];
	Span at = step->span;
	if (nargs > 1 || (nargs == 1 && step->list->kind != N_STR)) {
		error_hint(step->span, "write repartition() or repartition(\"name\")",
		           "repartition takes an optional topic name");
		return NULL;
	}
	sema->repartitions++;
	if (nargs == 1) {
		name = xstrndup(step->list->str, step->list->len);
		at = step->list->span;
		step->list->type = ty_string;
	} else if (sema->binding_name) {
		name = sema->binding_name;
	} else {
		snprintf(auto_name, sizeof auto_name, "repartition-%d", sema->repartitions);
		name = auto_name;
	}
	char *topic = xasprintf("%s-%s-repartition", sema->topo->app_id ? sema->topo->app_id : "app", name);
	check_topic_name(topic, strlen(topic), at);
	for (int i = 0; i < sema->topo->nsources; i++)
		if (strcmp(sema->topo->sources[i]->topic, topic) == 0) {
			error_hint(at, "give it another name: repartition(\"name\")",
			           "the repartition topic \"%s\" is already used", topic);
			return NULL;
		}
	IrNode *sink = ir_new(sema->topo, IR_SINK, step->span);
	ir_link(parent, sink);
	sink->key = parent->key;
	sink->val = parent->val;
	sink->topic = topic;
	sink->internal = true;
	sink->key_format = default_format(parent->key);
	sink->value_format = default_format(parent->val);
	IrNode *src = ir_new(sema->topo, IR_SOURCE, step->span);
	src->key = parent->key;
	src->val = parent->val;
	src->topic = topic;
	src->internal = true;
	src->name = xasprintf("repartition_%d", src->index);
	src->key_format = sink->key_format;
	src->value_format = sink->value_format;
	src->policy = POLICY_DEFAULT;
	sink->peer = src;
	src->peer = sink;
	return src;
}

static IrNode *check_repartition(Sema *sema, IrNode *parent, Node *step);

/* A node carrying on from parent with the same records. */
static IrNode *follow(Sema *sema, IrNode *parent, IrKind kind, Span span)
{
	IrNode *n = ir_new(sema->topo, kind, span);
	n->key = parent->key;
	n->val = parent->val;
	n->key_changed = parent->key_changed;
	ir_link(parent, n);
	return n;
}

/*
 * Gives node n (an aggregation, or a table that keeps its values) a state
 * store, named after the table being bound (table name = ...) or store-N.
 */
static void add_store(Sema *sema, IrNode *n)
{
	const char *name = sema->binding_name;
	char auto_name[32];
	if (!name) {
		snprintf(auto_name, sizeof auto_name, "store-%d", sema->topo->nstores + 1);
		name = auto_name;
	}
	n->store = sema->topo->nstores;
	n->has_store = true;
	sema->topo->stores = xrealloc(sema->topo->stores, sizeof *sema->topo->stores * (size_t)(sema->topo->nstores + 1));
	sema->topo->stores[sema->topo->nstores++] = (Store){ .name = xstrdup(name), .node = n };
}

/* "stream", "table", "grouped stream", ...: what a node's records are, for messages. */
static const char *node_what(IrNode *n)
{
	if (n->cogrouped)
		return "cogroup";
	if (n->grouped)
		return n->group_table ? "grouped table" : "grouped stream";
	return n->table ? "table" : "stream";
}

/*
 * Reports operator op applied to (or, for cogroup, given) parent's records,
 * which its row of ops.def does not allow; the hint says what would fit.
 */
static void report_wrong_input(const OpInfo *op, const IrNode *parent, Span at)
{
	const char *what = node_what((IrNode *)parent);
	unsigned in = input_of(parent);
	switch (op->id) {
	case OPER_TO:
		error_hint(at,
		           in == ON_TABLE ? "write a table's updates with to_stream() |> to \"topic\""
		           : in == ON_COGROUPED ? "aggregate it first: cogroup(...) |> aggregate(initial)"
		                                : "aggregate it first: count(), reduce(...) or aggregate(...)",
		           "'to' needs a stream, and this is a %s", what);
		break;
	case OPER_SPLIT:
		error_hint(at, in == ON_TABLE ? "turn it into a stream first: to_stream()" : NULL,
		           "split needs a stream, and this is a %s", what);
		break;
	case OPER_COGROUP:
		error_hint(at, "group it: s |> group_by_key() or s |> group_by((k, v) => key)",
		           "cogroup needs grouped streams, and this is a %s", what);
		break;
	case OPER_TO_STREAM:
		error_hint(at, "to_stream() turns a table's updates into a stream",
		           "to_stream needs a table, and this is a %s", what);
		break;
	case OPER_TO_TABLE:
		error_hint(at, in == ON_TABLE ? "it is a table already" : "aggregate it first: count(), reduce(...) or aggregate(...)",
		           "to_table needs a stream, and this is a %s", what);
		break;
	case OPER_GROUP_BY_KEY:
	case OPER_GROUP_BY:
		error_hint(at, in == ON_TABLE ? "a table is grouped with group_by((k, v) => (key, value))" : NULL,
		           "%s needs a stream, and this is a %s", op->name, what);
		break;
	case OPER_COUNT:
	case OPER_REDUCE:
	case OPER_AGGREGATE:
		if (in == ON_COGROUPED)
			error_hint(at, "aggregate a cogroup with aggregate(initial); each grouped stream brings its adder",
			           "%s cannot follow cogroup", op->name);
		else if (in == ON_TABLE)
			error_hint(at, "group it first: group_by((k, v) => (new_key, value))",
			           "%s needs a grouped table, and this is a table", op->name);
		else
			error_hint(at, "group the records first: group_by_key() or group_by((k, v) => key)",
			           "%s needs a grouped stream, and this is a stream", op->name);
		break;
	default:
		error_hint(at,
		           in == ON_TABLE ? "turn it into a stream first: to_stream()"
		           : in == ON_COGROUPED ? "aggregate it: cogroup(...) |> aggregate(initial)"
		                                : "aggregate it first: count(), reduce(...) or aggregate(...)",
		           "%s needs a stream, and this is a %s", op->name, what);
		break;
	}
}

/*
 * Reports a pipeline step that names no operator: one stoat does not have
 * yet (a join, a window) says so; otherwise the closest operator's name, or
 * the list.
 */
static void report_unknown_operator(Node *step)
{
	const char *name = step->name;
	for (size_t i = 0; i < sizeof planned_operators / sizeof planned_operators[0]; i++)
		if (strcmp(planned_operators[i].name, name) == 0) {
			error_hint(step->name_span,
			           "windows and joins are planned; grouping, aggregations and tables "
			           "(group_by, count, reduce, aggregate, cogroup, to_table) work today",
			           "'%s' is not available yet: this version of stoat has no %s", name,
			           planned_operators[i].family);
			return;
		}
	Suggest sg = { name, NULL, 0 };
	for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
		if (operators[i].form == FORM_STEP)
			suggest_consider(&sg, operators[i].name);
	if (find_operator(name))
		sg.best = NULL; /* to, split or cogroup, written as a step: the list shows how they are written */
	char *hint = did_you_mean(&sg);
	error_hint(step->name_span,
	           hint ? hint : "operators: filter, filter_not, map, map_values, flat_map, flat_map_values, select_key, peek, merge, split, to",
	           "unknown operator '%s'", name);
}

/*
 * group_by((k, v) => (key, value)) on a table: each change of the table is
 * re-keyed, its old value to be subtracted from its group and its new value
 * added to its own, through an internal topic whose records carry changes
 * (the value layout in runtime.h); what follows is a grouped table.
 */
static IrNode *check_regroup(Sema *sema, IrNode *parent, Node *step, int nargs)
{
	if (nargs != 1) {
		error_hint(step->span, "write group_by((k, v) => (new_key, value))", "group_by takes 1 argument, got %d",
		           nargs);
		return NULL;
	}
	Type *t = check_lambda(sema, step->list, parent->key, parent->val, NULL, "group_by");
	if (!t)
		return NULL;
	if (t->kind != TY_PAIR) {
		if (t->kind != TY_ERROR)
			error_hint(step->list->a->span,
			           "return the group's key and the value to aggregate: group_by((k, v) => (v.region, k))",
			           "group_by on a table must produce a (key, value) pair, found %s", type_str(t));
		return NULL;
	}
	IrNode *rg = ir_new(sema->topo, IR_REGROUP, step->span);
	ir_link(parent, rg);
	rg->lambda = step->list;
	/* Null keys and values are dropped (as Kafka Streams does) before the topic. */
	rg->key = type_strip(t->key);
	rg->val = type_strip(t->val);
	Node fake = *step;
	fake.list = NULL;
	IrNode *src = check_repartition(sema, rg, &fake);
	if (!src)
		return NULL;
	src->change = src->peer->change = true;
	src->value_format = src->peer->value_format = FMT_BYTES;
	IrNode *g = follow(sema, src, IR_GROUP, step->span);
	g->grouped = true;
	g->group_table = true;
	return g;
}

/*
 * to_table(): a stream's latest value per key, kept in a store; a null
 * value deletes its key and records with a null key are dropped, as in
 * Kafka Streams.  After a key change the records are repartitioned first.
 */
static IrNode *check_to_table(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
{
	assert(input_of(parent) == ON_STREAM);
	if (!check_arity(op, step, nargs))
		return NULL;
	IrNode *from = parent;
	if (from->key_changed) {
		Node fake = *step;
		fake.list = NULL;
		from = check_repartition(sema, from, &fake);
		if (!from)
			return NULL;
	}
	IrNode *n = ir_new(sema->topo, IR_TO_TABLE, step->span);
	ir_link(from, n);
	n->key = type_strip(from->key);
	n->val = type_strip(from->val);
	n->table = true;
	n->may_delete = from->val->kind == TY_NULLABLE;
	add_store(sema, n);
	return n;
}

/*
 * Checks an aggregation's adder or subtractor (fn), whose parameters are
 * (v, acc) or (k, v, acc) for aggregate and count, (acc, v) or
 * (k, acc, v) for reduce; it must give the accumulator type.
 */
static void check_folder(Sema *sema, Node *fn, bool is_reduce, Type *key, Type *v, Type *acc, const char *role)
{
	static const int counts[] = { 2, 3 };
	Type *two_agg[] = { v, acc }, *three_agg[] = { key, v, acc };
	Type *two_red[] = { acc, v }, *three_red[] = { key, acc, v };
	Type *const *agg_types[] = { two_agg, three_agg };
	Type *const *red_types[] = { two_red, three_red };
	const char *op = is_reduce ? "reduce" : "aggregate";
	char shape[160];
	if (is_reduce)
		snprintf(shape, sizeof shape, "write the %s as (acc, v) => ... or (k, acc, v) => ...", role);
	else
		snprintf(shape, sizeof shape, "write the %s as (v, acc) => new_acc or (k, v, acc) => new_acc", role);
	Type *t = check_lambda_typed(sema, fn, 2, counts, is_reduce ? red_types : agg_types, acc, op, shape);
	if (!t || assignable(t, acc))
		return;
	if (is_reduce)
		error_hint(fn->a->span, "reduce combines values of one type into one of that type",
		           "reduce's %s must produce %s, found %s", role, type_str(acc), type_str(t));
	else
		error_hint(fn->a->span, xasprintf("the %s returns the new accumulator, of the initial value's type", role),
		           "accumulator type mismatch: the initial value is %s, the %s gives %s", type_str(acc), role,
		           type_str(t));
}

/* Checks aggregate's initial value; returns the accumulator type (ty_error if unusable). */
static Type *check_initial(Sema *sema, Node *init)
{
	Type *acc = check_expr(sema, init, NULL);
	if (acc->kind == TY_NULL || acc->kind == TY_PAIR || acc->kind == TY_NULLABLE) {
		error_hint(init->span, "write a typed value, e.g. a record: Stats { n: 0, sum: 0 }",
		           "cannot use %s as an accumulator", type_str(acc));
		return ty_error;
	}
	return acc;
}

/*
 * count / reduce / aggregate.  On a grouped stream they fold each record
 * into its key's value (adders only); on a grouped table each change takes
 * the old value out of its group (the subtractor) and adds the new one
 * (the adder); after cogroup, aggregate(init) folds each grouped stream's
 * records in with that stream's adder.  The result is a table with a store.
 */
static IrNode *check_aggregation(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
{
	bool is_count = op->id == OPER_COUNT, is_reduce = op->id == OPER_REDUCE;
	assert(op->on & input_of(parent));
	bool table_side = parent->group_table;
	IrNode *n = ir_new(sema->topo, IR_AGGREGATE, step->span);
	ir_link(parent, n);
	n->key = type_strip(parent->key); /* null keys never reach a table */
	n->table = true;
	add_store(sema, n);
	Type *v = type_strip(parent->val);
	/* Arguments: count(); reduce(add[, sub]); aggregate(init, add[, sub]); aggregate(init) after cogroup. */
	int adders = is_count ? 0 : 1;
	int want = (is_count ? 0 : is_reduce ? 1 : 2) + (table_side && !is_count ? 1 : 0);
	if (parent->cogrouped)
		want = 1;
	if (is_count) {
		n->agg_kind = AGG_COUNT;
		n->val = ty_i64;
		check_arity(op, step, nargs);
		return n;
	}
	n->agg_kind = is_reduce ? AGG_REDUCE : AGG_AGGREGATE;
	n->val = is_reduce ? v : ty_error;
	if (nargs != want) {
		Node *extra = step->list;
		for (int i = 0; extra && i < want; i++)
			extra = extra->next;
		if (parent->cogrouped)
			error_hint(step->span, "the adders are given with each grouped stream in cogroup(...)",
			           "aggregate after cogroup takes only the initial value, got %d arguments", nargs);
		else if (!table_side && nargs == want + 1)
			error_hint(extra->span,
			           is_reduce ? "write reduce((acc, v) => ...)" : "write aggregate(initial, (v, acc) => ...)",
			           "a subtractor is only for grouped tables, and this is a grouped stream");
		else if (table_side && nargs == want - 1)
			error_hint(step->name_span,
			           is_reduce ? "write reduce((acc, v) => add, (acc, v) => subtract): a change takes the old value out of its group and adds the new one"
			                     : "write aggregate(initial, (v, acc) => add, (v, acc) => subtract): a change takes the old value out of its group and adds the new one",
			           "%s on a grouped table needs a subtractor", op->name);
		else if (is_reduce)
			error_hint(step->span, table_side ? "write reduce((acc, v) => ..., (acc, v) => ...)" : "write reduce((acc, v) => ...)",
			           "reduce takes %d argument%s, got %d", want, want == 1 ? "" : "s", nargs);
		else
			error_hint(step->span,
			           table_side ? "write aggregate(initial, (v, acc) => ..., (v, acc) => ...)" : "write aggregate(initial, (v, acc) => ...)",
			           "aggregate takes %d arguments (an initial value, an adder%s), got %d", want,
			           table_side ? " and a subtractor" : "", nargs);
		return n;
	}
	Node *arg = step->list;
	Type *acc = v;
	if (!is_reduce) {
		n->init = arg;
		acc = check_initial(sema, arg);
		n->val = acc;
		arg = arg->next;
	}
	if (parent->cogrouped) {
		for (int i = 0; i < parent->nparents; i++)
			check_folder(sema, parent->adders[i], false, n->key, type_strip(parent->parents[i]->val), acc, "adder");
		return n;
	}
	(void)adders;
	n->lambda = arg;
	check_folder(sema, arg, is_reduce, n->key, v, acc, "adder");
	if (table_side) {
		n->subtractor = arg->next;
		check_folder(sema, arg->next, is_reduce, n->key, v, acc, "subtractor");
	}
	return n;
}

/*
 * group_by_key(), group_by(f), count(), reduce(...), aggregate(...),
 * to_stream(), to_table(): grouping makes a grouped stream (or, from a
 * table, a grouped table), which only an aggregation may follow; an
 * aggregation or to_table makes a table (a store, updated per record),
 * which to_stream() turns back into a stream of its changes.
 */
static IrNode *check_grouping(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
{
	bool is_group = op->id == OPER_GROUP_BY_KEY || op->id == OPER_GROUP_BY;
	if (op->id == OPER_TO_STREAM) {
		if (!check_arity(op, step, nargs))
			return NULL;
		IrNode *n = follow(sema, parent, IR_TO_STREAM, step->span);
		/* A deleted key is a record with a null value (a tombstone). */
		if (parent->may_delete)
			n->val = ty_nullable(parent->val);
		n->key_changed = false;
		return n;
	}
	if (op->id == OPER_TO_TABLE)
		return check_to_table(sema, parent, step, op, nargs);
	if (is_group) {
		if (parent->table && op->id == OPER_GROUP_BY)
			return check_regroup(sema, parent, step, nargs);
		IrNode *from = parent;
		if (op->id == OPER_GROUP_BY) {
			/* group_by(f) is select_key(f), then a repartition. */
			if (nargs != 1) {
				error_hint(step->span, "write group_by((k, v) => new_key)", "group_by takes 1 argument, got %d",
				           nargs);
				return NULL;
			}
			IrNode *sk = follow(sema, parent, IR_SELECT_KEY, step->span);
			sk->lambda = step->list;
			Type *t = check_lambda(sema, step->list, parent->key, parent->val, NULL, "group_by");
			if (t && (t->kind == TY_NULL || t->kind == TY_PAIR)) {
				error_at(step->list->a->span, "group_by cannot produce %s", type_str(t));
				t = ty_error;
			}
			sk->key = t ? t : ty_error;
			sk->key_changed = true;
			from = sk;
		} else if (!check_arity(op, step, nargs)) {
			return NULL;
		}
		if (from->key_changed) {
			/* Records must meet their key's partition: repartition, as Kafka Streams does. */
			Node fake = *step;
			fake.list = NULL;
			from = check_repartition(sema, from, &fake);
			if (!from)
				return NULL;
		}
		IrNode *g = follow(sema, from, IR_GROUP, step->span);
		g->grouped = true;
		return g;
	}
	return check_aggregation(sema, parent, step, op, nargs);
}

/*
 * cogroup(g1, add1, g2, add2, ...): grouped streams with one key type,
 * each with the adder that folds its records into the shared accumulator;
 * only aggregate(initial) may follow, which checks the adders (their
 * accumulator type is the initial value's).
 */
static IrNode *check_cogroup(Sema *sema, Node *e)
{
	int nargs = node_list_len(e->list);
	if (nargs == 0 || nargs % 2 != 0) {
		error_hint(e->span, "write cogroup(a |> group_by_key(), (v, acc) => ..., b |> group_by_key(), (v, acc) => ...)",
		           "cogroup takes pairs of a grouped stream and its adder");
		return NULL;
	}
	IrNode *cg = ir_new(sema->topo, IR_COGROUP, e->span);
	cg->cogrouped = true;
	cg->adders = xcalloc((size_t)nargs / 2, sizeof *cg->adders);
	bool ok = true;
	Span first_span = e->list->span;
	for (Node *a = e->list; a; a = a->next->next) {
		IrNode *g = check_stream(sema, a);
		if (!g) {
			ok = false;
			continue;
		}
		if (!(operators[OPER_COGROUP].on & input_of(g))) {
			report_wrong_input(&operators[OPER_COGROUP], g, a->span);
			ok = false;
			continue;
		}
		Type *k = type_strip(g->key);
		if (cg->key && k != cg->key && k->kind != TY_ERROR && cg->key->kind != TY_ERROR) {
			error_at(a->span, "cogroup needs one key type: this grouped stream is keyed by %s, the first by %s",
			         type_str(k), type_str(cg->key));
			note_at(first_span, "the first grouped stream");
			ok = false;
			continue;
		}
		if (!cg->key)
			cg->key = k;
		if (a->next->kind != N_LAMBDA) {
			error_hint(a->next->span, "write (v, acc) => new_acc or (k, v, acc) => new_acc",
			           "cogroup needs an adder after each grouped stream");
			ok = false;
			continue;
		}
		cg->adders[cg->nparents] = a->next;
		ir_link(g, cg);
	}
	if (!ok)
		return NULL;
	cg->val = ty_error; /* nothing flows out but through aggregate */
	e->ir = cg;
	return cg;
}

/*
 * merge(other): the records of both streams, which must have the same key
 * and value types, as one stream.
 */
static IrNode *check_merge(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
{
	if (!check_arity(op, step, nargs))
		return NULL;
	Node *arg = step->list;
	IrNode *other = check_stream(sema, arg);
	if (!other)
		return NULL;
	if (other->key != parent->key || other->val != parent->val) {
		error_hint(arg->span, "map both streams to the same key and value types first",
		           "cannot merge a stream of %s -> %s into one of %s -> %s", type_str(other->key),
		           type_str(other->val), type_str(parent->key), type_str(parent->val));
		return NULL;
	}
	if (!(op->on & input_of(other))) {
		error_at(arg->span, "merge needs two streams");
		return NULL;
	}
	IrNode *m = ir_new(sema->topo, IR_MERGE, step->span);
	ir_link(parent, m);
	ir_link(other, m);
	m->key = parent->key;
	m->val = parent->val;
	m->key_changed = parent->key_changed || other->key_changed;
	return m;
}

/*
 * The operators that take one function of the record (filter, map, peek,
 * ...): a node of the operator's kind whose types follow from the
 * function's.
 */
static IrNode *check_record_op(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
{
	if (!check_arity(op, step, nargs))
		return NULL;
	IrKind kind = op->kind;
	Node *arg = step->list;
	IrNode *n = ir_new(sema->topo, kind, step->span);
	n->lambda = arg;
	n->key = parent->key;
	n->val = parent->val;
	n->key_changed = parent->key_changed || kind == IR_MAP || kind == IR_FLAT_MAP || kind == IR_SELECT_KEY;
	/* On a table: a change whose new value is filtered out deletes its key downstream. */
	n->table = parent->table;
	n->may_delete = parent->table && (parent->may_delete || kind != IR_MAP_VALUES);
	switch (kind) {
	case IR_FILTER:
	case IR_FILTER_NOT: {
		Type *t = check_lambda(sema, arg, parent->key, parent->val, ty_bool, op->name);
		if (t && !assignable(t, ty_bool))
			error_hint(arg->a->span, t->kind == TY_NULLABLE ? "give a default: (x ?? false)" : NULL,
			           "the predicate of %s must be bool, found %s", op->name, type_str(t));
		break;
	}
	case IR_MAP_VALUES: {
		Type *t = check_lambda(sema, arg, parent->key, parent->val, NULL, op->name);
		if (t) {
			if (t->kind == TY_NULL || t->kind == TY_PAIR) {
				error_at(arg->a->span, "map_values cannot produce %s", type_str(t));
				t = ty_error;
			} else if (n->table && t->kind == TY_NULLABLE) {
				error_hint(arg->a->span, "filter the table first, or give a default with ??",
				           "map_values on a table cannot produce a value that may be null (%s)", type_str(t));
				t = ty_error;
			}
			n->val = t;
		} else {
			n->val = ty_error;
		}
		break;
	}
	case IR_SELECT_KEY: {
		Type *t = check_lambda(sema, arg, parent->key, parent->val, NULL, op->name);
		if (t && (t->kind == TY_NULL || t->kind == TY_PAIR)) {
			error_at(arg->a->span, "select_key cannot produce %s", type_str(t));
			t = ty_error;
		}
		n->key = t ? t : ty_error;
		break;
	}
	case IR_MAP: {
		Type *t = check_lambda(sema, arg, parent->key, parent->val, NULL, op->name);
		if (t && t->kind == TY_PAIR) {
			n->key = t->key;
			n->val = t->val;
		} else {
			if (t && t->kind != TY_ERROR)
				error_hint(arg->a->span, "return a pair: (k, v) => (new_key, new_value)",
				           "map must produce a (key, value) pair, found %s", type_str(t));
			n->key = n->val = ty_error;
		}
		break;
	}
	case IR_FLAT_MAP_VALUES: {
		Type *t = check_lambda(sema, arg, parent->key, parent->val, NULL, op->name);
		if (t && t->kind == TY_ARRAY && t->elem->kind != TY_PAIR) {
			n->val = t->elem;
		} else {
			if (t && t->kind != TY_ERROR)
				error_hint(arg->a->span, "return an array, e.g. v => split_words(v)",
				           "flat_map_values must produce an array of values, found %s", type_str(t));
			n->val = ty_error;
		}
		break;
	}
	case IR_FLAT_MAP: {
		Type *t = check_lambda(sema, arg, parent->key, parent->val, NULL, op->name);
		if (t && t->kind == TY_ARRAY && t->elem->kind == TY_PAIR) {
			n->key = t->elem->key;
			n->val = t->elem->val;
		} else {
			if (t && t->kind != TY_ERROR)
				error_hint(arg->a->span, "return an array of pairs, e.g. [(w, 1) for w in split_words(v)]",
				           "flat_map must produce an array of (key, value) pairs, found %s", type_str(t));
			n->key = n->val = ty_error;
		}
		break;
	}
	case IR_PEEK:
		check_lambda(sema, arg, parent->key, parent->val, NULL, op->name);
		break;
	default:
		assert(!"an operator of one function of the record");
		break;
	}
	ir_link(parent, n);
	return n;
}

/*
 * Checks one pipeline step applied to parent; returns the new node.  The
 * step's row of ops.def says whether it exists and what it may follow;
 * the operator's own check does the rest.
 */
static IrNode *check_step(Sema *sema, IrNode *parent, Node *step)
{
	const OpInfo *op;
	if (step->kind == N_TO) {
		op = &operators[OPER_TO];
	} else {
		assert(step->kind == N_OP);
		op = find_operator(step->name);
		if (!op || op->form != FORM_STEP) {
			report_unknown_operator(step);
			return NULL;
		}
	}
	if (!(op->on & input_of(parent))) {
		report_wrong_input(op, parent, step->name_span);
		return NULL;
	}
	int nargs = node_list_len(step->list);
	IrNode *n;
	switch (op->id) {
	case OPER_TO:
		n = check_sink(sema, parent, step);
		break;
	case OPER_REPARTITION:
		n = check_repartition(sema, parent, step);
		break;
	case OPER_MERGE:
		n = check_merge(sema, parent, step, op, nargs);
		break;
	case OPER_GROUP_BY_KEY:
	case OPER_GROUP_BY:
	case OPER_COUNT:
	case OPER_REDUCE:
	case OPER_AGGREGATE:
	case OPER_TO_STREAM:
	case OPER_TO_TABLE:
		n = check_grouping(sema, parent, step, op, nargs);
		break;
	default:
		n = check_record_op(sema, parent, step, op, nargs);
		break;
	}
	assert(!n || n->has_store == op->stateful);
	return n;
}

/* Checks an expression that must denote a stream; returns its last node. */
static IrNode *check_stream(Sema *sema, Node *e)
{
	if (e->kind == N_IDENT) {
		Symbol *s = lookup_global(sema, e->name, SYM_STREAM);
		if (!s) {
			Suggest sg = { e->name, NULL, 0 };
			for (Symbol *g = sema->globals; g; g = g->next)
				if (g->kind == SYM_STREAM)
					suggest_consider(&sg, g->name);
			error_hint(e->span, did_you_mean(&sg), "unknown stream '%s'", e->name);
			return NULL;
		}
		s->used = true;
		e->sym = s;
		return s->ir;
	}
	if (e->kind == N_PIPE) {
		IrNode *parent = check_stream(sema, e->a);
		if (!parent)
			return NULL;
		if (parent->kind == IR_SINK) {
			error_hint(e->b->span, "'to' ends a pipeline", "nothing can follow 'to'");
			return NULL;
		}
		IrNode *n = check_step(sema, parent, e->b);
		if (n)
			e->ir = n;
		return n;
	}
	if (e->kind == N_CALL) {
		const OpInfo *op = find_operator(e->name);
		if (op && op->form == FORM_CALL) {
			assert(op->id == OPER_COGROUP);
			return check_cogroup(sema, e);
		}
	}
	error_hint(e->span, "a pipeline starts with a stream name, as in: views |> filter(...)",
	           "expected a stream");
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Items                                                               */
/* ------------------------------------------------------------------ */

/* Reports a topic name Kafka would refuse (1-249 of [a-zA-Z0-9._-], not . or ..). */
static void check_topic_name(const char *topic, size_t len, Span span)
{
	bool ok = len > 0 && len <= 249 && strcmp(topic, ".") != 0 && strcmp(topic, "..") != 0;
	for (size_t i = 0; ok && i < len; i++) {
		char c = topic[i];
		ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		     c == '_' || c == '-';
	}
	if (!ok)
		error_hint(span, "Kafka topic names are 1 to 249 of a-z A-Z 0-9 . _ - (and not . or ..)",
		           "invalid topic name");
}

static bool define_stream(Sema *sema, const char *name, Span span, IrNode *ir, bool is_source)
{
	Symbol *prev = lookup_global(sema, name, SYM_STREAM);
	if (prev) {
		error_at(span, "stream '%s' is already defined", name);
		note_at(prev->span, "'%s' was first defined here", name);
		return false;
	}
	Symbol *s = sym_new(SYM_STREAM, name, span);
	s->ir = ir;
	s->is_source = is_source;
	add_global(sema, s);
	if (ir && !ir->name)
		ir->name = xstrdup(name);
	return true;
}

/*
 * Sets where the store of the table `name` (node n) lives: `in memory` or
 * `in rocksdb` (the default).  Only a table with a store of its own has
 * one to place.
 */
static void check_placement(Sema *sema, Node *place, IrNode *n, const char *name)
{
	if (!place)
		return;
	bool memory = strcmp(place->name, "memory") == 0;
	if (!memory && strcmp(place->name, "rocksdb") != 0) {
		error_hint(place->span, "write 'in memory' (a hash map) or 'in rocksdb' (the default)",
		           "unknown store placement '%s'", place->name);
		return;
	}
	if (!n)
		return;
	if (!n->has_store || strcmp(sema->topo->stores[n->store].name, name) != 0) {
		error_hint(place->span,
		           "filter and map_values on a table, and a table bound to another's name, keep no state of "
		           "their own; place the store of the table they come from",
		           "table '%s' has no store of its own to place", name);
		return;
	}
	sema->topo->stores[n->store].in_memory = memory;
}

/*
 * table name: K -> V from "topic": the latest value per key, in a store
 * named after the table.  A null value (a tombstone) deletes its key, so
 * V itself is never null; records with a null key are dropped.
 */
static void check_table_source(Sema *sema, Node *it, IrNode *src)
{
	if (!it->a) {
		error_hint(it->name_span, "write table NAME: KEY -> VALUE from \"topic\";",
		           "table '%s' needs a key type: a table keeps the latest value per key", it->name);
		return;
	}
	if (src->key->kind == TY_NULLABLE)
		error_hint(it->a->span, "drop the '?': records with a null key are skipped",
		           "a table's key is never null, so %s cannot be its type", type_str(src->key));
	if (src->val->kind == TY_NULLABLE)
		error_hint(it->b->span, "drop the '?': a null value (a tombstone) deletes its key",
		           "a table's values are never null, so %s cannot be its type", type_str(src->val));
	src->key = type_strip(src->key);
	src->val = type_strip(src->val);
	src->table = true;
	src->may_delete = true;
	sema->binding_name = it->name;
	add_store(sema, src);
	sema->binding_name = NULL;
	check_placement(sema, it->place, src, it->name);
}

static void check_source(Sema *sema, Node *it)
{
	Type *key = it->a ? resolve_type(sema, it->a) : ty_nullable(ty_bytes);
	Type *val = resolve_type(sema, it->b);
	IrNode *src = ir_new(sema->topo, IR_SOURCE, it->span);
	src->key = key;
	src->val = val;
	src->topic = xstrndup(it->str, it->len);
	src->name = xstrdup(it->name);
	check_topic_name(it->str, it->len, it->c->span);
	for (int i = 0; i < sema->topo->nsources - 1; i++)
		if (strcmp(sema->topo->sources[i]->topic, src->topic) == 0) {
			error_hint(it->c->span, "read a topic once and use the stream twice",
			           "topic \"%s\" is already read by stream '%s'", src->topic, sema->topo->sources[i]->name);
			break;
		}
	src->key_format = default_format(key);
	src->value_format = default_format(val);
	if (it->fmt_key && parse_format(it->fmt_key, &src->key_format))
		check_format(it->fmt_key, src->key_format, key, "key");
	if (it->fmt_value && parse_format(it->fmt_value, &src->value_format))
		check_format(it->fmt_value, src->value_format, val, "value");
	src->policy = it->policy ? parse_policy(it->policy) : POLICY_DEFAULT;
	if (src->policy == POLICY_DLQ)
		src->dlq_topic = xstrndup(it->policy->str, it->policy->len);
	if (it->ival)
		check_table_source(sema, it, src);
	define_stream(sema, it->name, it->name_span, src, true);
}

static void check_split(Sema *sema, Node *it)
{
	IrNode *parent = check_stream(sema, it->a);
	if (!parent) {
		for (Node *b = it->list; b; b = b->next)
			define_stream(sema, b->name, b->name_span, NULL, false);
		return;
	}
	if (parent->kind == IR_SINK) {
		error_at(it->name_span, "nothing can follow 'to'");
		return;
	}
	if (!(operators[OPER_SPLIT].on & input_of(parent))) {
		report_wrong_input(&operators[OPER_SPLIT], parent, it->name_span);
		for (Node *b = it->list; b; b = b->next)
			define_stream(sema, b->name, b->name_span, NULL, false);
		return;
	}
	if (!it->list) {
		error_hint(it->name_span, "add branches: branch name = (k, v) => condition;",
		           "split needs at least one branch");
		return;
	}
	IrNode *split = ir_new(sema->topo, IR_SPLIT, it->span);
	split->key = parent->key;
	split->val = parent->val;
	ir_link(parent, split);
	bool seen_default = false;
	for (Node *b = it->list; b; b = b->next) {
		if (seen_default) {
			error_hint(b->span, "move 'default' last", "a branch after 'default' is never taken");
			break;
		}
		IrNode *br = ir_new(sema->topo, IR_BRANCH, b->span);
		br->key = parent->key;
		br->val = parent->val;
		if (b->a) {
			Type *t = check_lambda(sema, b->a, parent->key, parent->val, ty_bool, "branch");
			if (t && !assignable(t, ty_bool))
				error_at(b->a->span, "a branch condition must be bool, found %s", type_str(t));
			br->lambda = b->a;
		} else {
			seen_default = true;
		}
		ir_link(split, br);
		for (Node *o = it->list; o != b; o = o->next)
			if (strcmp(o->name, b->name) == 0)
				error_at(b->name_span, "branch '%s' appears twice", b->name);
		define_stream(sema, b->name, b->name_span, br, false);
	}
}

static void check_app(Sema *sema, Node *app)
{
	sema->topo->app_id = app->name;
	sema->topo->app_span = app->name_span;
	if (!app->name[0])
		error_hint(app->name_span, "Kafka needs a non-empty application id", "the application id is empty");
	for (const char *p = app->name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-')) {
			error_hint(app->name_span, "Kafka allows letters, digits, '.', '_' and '-'",
			           "invalid application id \"%s\"", app->name);
			break;
		}
	static const char *settings[] = { "guarantee", "commit_interval", "on_error" };
	for (Node *s = app->list; s; s = s->next) {
		Node *v = s->a;
		for (Node *o = app->list; o != s; o = o->next)
			if (strcmp(o->name, s->name) == 0)
				error_at(s->name_span, "'%s' is set twice", s->name);
		if (strcmp(s->name, "guarantee") == 0) {
			if (v->kind == N_IDENT && !v->str && strcmp(v->name, "at_least_once") == 0)
				sema->topo->guarantee = GUARANTEE_AT_LEAST_ONCE;
			else if (v->kind == N_IDENT && !v->str && strcmp(v->name, "exactly_once") == 0)
				sema->topo->guarantee = GUARANTEE_EXACTLY_ONCE;
			else
				error_hint(v->span, "write at_least_once or exactly_once", "invalid guarantee");
		} else if (strcmp(s->name, "commit_interval") == 0) {
			if (v->kind == N_DURATION && v->ival > 0)
				sema->topo->commit_interval_ms = v->ival;
			else
				error_hint(v->span, "write a duration such as 100ms, 5s or 1m",
				           "commit_interval must be a positive duration");
		} else if (strcmp(s->name, "on_error") == 0) {
			if (v->kind == N_IDENT) {
				sema->topo->on_error = parse_policy(v);
				if (sema->topo->on_error == POLICY_DLQ)
					sema->topo->dlq_topic = xstrndup(v->str, v->len);
			} else {
				error_hint(v->span, "write fail, skip or dlq \"topic\"", "invalid error policy");
			}
		} else {
			Suggest sg = { s->name, NULL, 0 };
			for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
				suggest_consider(&sg, settings[i]);
			char *hint = did_you_mean(&sg);
			error_hint(s->name_span, hint ? hint : "settings are guarantee, commit_interval and on_error",
			           "unknown app setting '%s'", s->name);
		}
	}
}

/* Does the pipeline expression e end in an operator with an effect? */
static bool ends_in_effect(Node *e)
{
	if (e->kind != N_PIPE)
		return false;
	if (e->b->kind == N_TO)
		return true;
	const OpInfo *op = e->b->kind == N_OP ? find_operator(e->b->name) : NULL;
	return op && op->id == OPER_PEEK;
}

bool sema_check(Program *p)
{
	Sema context = { .prog = p, .topo = &p->topo };
	Sema *sema = &context;
	sema->topo->guarantee = GUARANTEE_AT_LEAST_ONCE;
	sema->topo->commit_interval_ms = 100;
	sema->topo->on_error = POLICY_FAIL;

	File *files[2] = { p->prelude, p->file };
	for (int i = 0; i < 2; i++)
		if (files[i])
			declare_types(sema, files[i]);
	for (int i = 0; i < 2; i++)
		if (files[i])
			resolve_fields(sema, files[i]);
	int nrec;
	Record **recs = all_records(&nrec);
	for (int i = 0; i < nrec; i++) {
		recs[i]->visiting = 1;
		record_cycle(recs[i], recs[i], recs[i]->span);
		recs[i]->visiting = 0;
	}
	for (int i = 0; i < 2; i++)
		if (files[i])
			declare_externs(sema, files[i]);

	Node *app = NULL;
	for (Node *it = p->file->items; it; it = it->next) {
		if (it->kind != N_APP)
			continue;
		if (app) {
			error_at(it->span, "a file describes one application; 'app' appears twice");
			note_at(app->span, "first 'app' here");
			continue;
		}
		app = it;
		check_app(sema, it);
	}
	if (!app && diag.errors > 0) {
		sema->topo->app_id = "app"; /* the header probably failed to parse */
	} else if (!app) {
		Span start = { p->file->source, 1, 1, 1, 1 };
		error_hint(start, "start the file with: app my_app { guarantee = at_least_once }",
		           "missing app header");
		sema->topo->app_id = "app";
	}

	for (Node *it = p->file->items; it; it = it->next) {
		switch (it->kind) {
		case N_SOURCE:
			check_source(sema, it);
			break;
		case N_STREAM_DEF: {
			sema->binding_name = it->name;
			IrNode *n = check_stream(sema, it->a);
			sema->binding_name = NULL;
			if (n && it->ival && !n->table) {
				error_hint(it->name_span, "declare it with 'stream', or end it with count(), reduce(...), aggregate(...) or to_table()",
				           "'%s' is declared a table, but this is a %s", it->name, node_what(n));
				n = NULL;
			} else if (n && !it->ival && n->table) {
				error_hint(it->name_span, "declare it with 'table'", "'%s' is a table", it->name);
				n = NULL;
			} else if (n && n->grouped) {
				error_hint(it->name_span, "aggregate it: count(), reduce(...) or aggregate(...)",
				           "a %s cannot be bound to a name", node_what(n));
				n = NULL;
			} else if (n && n->cogrouped) {
				error_hint(it->name_span, "aggregate it: cogroup(...) |> aggregate(initial)",
				           "a cogroup cannot be bound to a name");
				n = NULL;
			}
			if (it->place)
				check_placement(sema, it->place, n, it->name);
			if (n && n->kind == IR_SINK) {
				error_hint(it->a->span, "'to' ends a pipeline; bind the stream before it",
				           "stream '%s' is bound to a sink", it->name);
				n = NULL;
			}
			if (n && n->name) {
				/* `stream b = a;` aliases: keep one node, with its first name. */
			}
			define_stream(sema, it->name, it->name_span, n, false);
			break;
		}
		case N_STMT: {
			IrNode *n = check_stream(sema, it->a);
			if (n && !ends_in_effect(it->a))
				warning_at(it->span, "the result of this pipeline is not used; end it with '|> to \"topic\"'");
			break;
		}
		case N_SPLIT:
			check_split(sema, it);
			break;
		default:
			break;
		}
	}

	Span file_start = { p->file->source, 1, 1, 1, 1 };
	/* Whole-program checks only make sense when everything else is sound. */
	if (diag.errors == 0) {
		for (Symbol *s = sema->globals; s; s = s->next)
			if (s->kind == SYM_STREAM && !s->used && s->ir)
				warning_at(s->span, "%s '%s' is never used", s->ir->table ? "table" : "stream", s->name);
		if (sema->topo->nsources == 0)
			error_hint(file_start,
			           "declare one: stream name: K -> V from \"topic\" format json;",
			           "the application reads no topic");
	}
	ir_assign_subtopologies(sema->topo);
	return diag.errors == 0;
}
