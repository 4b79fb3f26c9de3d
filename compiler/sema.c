/*
 * sema.c - semantic analysis: the order of work, and what the items of a
 * file declare (symbols, record types, extern functions, formats, topics,
 * store placements, error policies, the app header).
 *
 * Order of work: declare record types (so they may refer to each other in
 * any order), resolve their fields, declare extern functions (prelude
 * first), read the app header, then check the items of the file in order:
 * a stream must be defined before it is used, which also makes the graph
 * acyclic by construction.  Expressions are checked in sema_expr.c, streams
 * and the topology they build in sema_stream.c.
 */
#include "sema_int.h"
#include "schema_avro.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Symbols and suggestions                                            */
/* ------------------------------------------------------------------ */

/* A new symbol, in no scope yet. */
Symbol *sym_new(SymKind kind, const char *name, Span span)
{
	Symbol *s = xcalloc(1, sizeof *s);
	s->kind = kind;
	s->name = xstrdup(name);
	s->span = span;
	return s;
}

/* The innermost symbol called name in the scope chain, or NULL. */
Symbol *lookup_in(Symbol *scope, const char *name)
{
	for (Symbol *s = scope; s; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

/* FNV-1a of a global's name and kind, for sema->global_index. */
static unsigned global_hash(const char *name, SymKind kind)
{
	unsigned h = 2166136261u ^ (unsigned)kind;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

/*
 * The global (stream, type or function) of that kind called name, or
 * NULL: a hash lookup, since a program may declare thousands of streams
 * and types and each use of one looks it up.
 */
Symbol *lookup_global(Sema *sema, const char *name, SymKind kind)
{
	if (sema->capglobal_index == 0)
		return NULL;
	unsigned mask = (unsigned)sema->capglobal_index - 1;
	for (unsigned i = global_hash(name, kind) & mask;; i = (i + 1) & mask) {
		Symbol *s = sema->global_index[i];
		if (!s)
			return NULL;
		if (s->kind == kind && strcmp(s->name, name) == 0)
			return s;
	}
}

/* Puts s in the index's first free slot after its hash (there is one: the index is at most half full). */
static void index_global(Sema *sema, Symbol *s)
{
	unsigned mask = (unsigned)sema->capglobal_index - 1;
	unsigned i = global_hash(s->name, s->kind) & mask;
	while (sema->global_index[i])
		i = (i + 1) & mask;
	sema->global_index[i] = s;
	sema->nglobal_index++;
}

/* FNV-1a of a name, for NameSet. */
static unsigned name_hash(const char *name)
{
	unsigned h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

/* Puts name in the set's first free slot after its hash, unless it is there: false then. */
static bool nameset_put(NameSet *set, const char *name)
{
	unsigned mask = (unsigned)set->cap - 1;
	unsigned i = name_hash(name) & mask;
	for (; set->slots[i]; i = (i + 1) & mask)
		if (strcmp(set->slots[i], name) == 0)
			return false;
	set->slots[i] = name;
	set->n++;
	return true;
}

/* (sema_int.h)  Adds name (kept, not copied); false if it was in the set already. */
bool nameset_add(NameSet *set, const char *name)
{
	if (2 * (set->n + 1) > set->cap) {
		const char **old = set->slots;
		int oldcap = set->cap;
		set->cap = oldcap ? oldcap * 2 : 32;
		set->slots = xcalloc((size_t)set->cap, sizeof *set->slots);
		set->n = 0;
		for (int i = 0; i < oldcap; i++)
			if (old[i])
				nameset_put(set, old[i]);
		xfree(old);
	}
	return nameset_put(set, name);
}

/* (sema_int.h)  Empties the set. */
void nameset_free(NameSet *set)
{
	xfree(set->slots);
	memset(set, 0, sizeof *set);
}

/* Adds s to the globals; callers have checked that the name is free. */
static void add_global(Sema *sema, Symbol *s)
{
	assert(!lookup_global(sema, s->name, s->kind));
	s->next = sema->globals;
	sema->globals = s;
	if (2 * (sema->nglobal_index + 1) > sema->capglobal_index) {
		Symbol **old = sema->global_index;
		int oldcap = sema->capglobal_index;
		sema->capglobal_index = oldcap ? oldcap * 2 : 64;
		sema->global_index = xcalloc((size_t)sema->capglobal_index, sizeof *sema->global_index);
		sema->nglobal_index = 0;
		for (int i = 0; i < oldcap; i++)
			if (old[i])
				index_global(sema, old[i]);
		xfree(old);
	}
	index_global(sema, s);
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

/*
 * Keeps candidate as the suggestion if it is close enough to the wanted
 * name and closer than the last.
 */
void suggest_consider(Suggest *s, const char *candidate)
{
	int d = edit_distance(s->wanted, candidate);
	int limit = strlen(s->wanted) <= 3 ? 1 : 2;
	if (d <= limit && (!s->best || d < s->dist)) {
		s->best = candidate;
		s->dist = d;
	}
}

/* The "did you mean" hint for the best candidate, or NULL if none was close. */
char *did_you_mean(Suggest *s)
{
	return s->best ? xasprintf("did you mean '%s'?", s->best) : NULL;
}

/* ------------------------------------------------------------------ */
/* Types                                                              */
/* ------------------------------------------------------------------ */

/* The type a type expression names (and records it in te->type); unknown names are reported. */
Type *resolve_type(Sema *sema, Node *te)
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

/* Declares type name (at span) as t, unless the name is taken; false if it is. */
static bool declare_type_name(Sema *sema, const char *name, Span span, Type *t, Node *decl)
{
	Symbol *prev = lookup_global(sema, name, SYM_TYPE);
	if (prev) {
		error_at(span, "type '%s' is already defined", name);
		note_at(prev->span, "'%s' was first defined here", name);
		return false;
	}
	if (builtin_type_name(name)) {
		error_hint(span, "pick another name", "'%s' is a built-in type", name);
		return false;
	}
	Symbol *s = sym_new(SYM_TYPE, name, span);
	s->decl = decl;
	s->type = t;
	add_global(sema, s);
	return true;
}

/*
 * type NAME = avro "FILE";: the schema file's records as types
 * (schema_avro.h), the top one as NAME, the others by their simple names
 * (a record another import declared already is that same type).  FILE is
 * relative to the .stoat file's directory.
 */
static void import_types(Sema *sema, Node *it)
{
	Node *kind = it->a, *file = it->b;
	if (strcmp(kind->name, "avro") != 0) {
		error_hint(kind->span, "write avro \"FILE.avsc\"", "unknown schema kind '%s'", kind->name);
		return;
	}
	if (strlen(file->str) != file->len || file->len == 0) {
		error_at(file->span, "the schema file name is %s", file->len ? "not a file name: it holds a NUL byte" : "empty");
		return;
	}
	const char *src = it->span.file ? it->span.file->path : "";
	const char *slash = strrchr(src, '/');
	char *open_path = file->str[0] == '/' || !slash ? xstrdup(file->str)
	                                                : xasprintf("%.*s/%s", (int)(slash - src), src, file->str);
	AvroImport *imp = avro_import(file->str, open_path, it->name, file->span);
	Program *prog = sema->prog;
	bool listed = false;
	for (int i = 0; i < prog->nschema_files && !listed; i++)
		listed = strcmp(prog->schema_files[i], open_path) == 0;
	if (!listed) {
		prog->schema_files = xrealloc(prog->schema_files, sizeof *prog->schema_files * (size_t)(prog->nschema_files + 1));
		prog->schema_files[prog->nschema_files++] = open_path;
	}
	if (!imp) {
		/* Known as a type from here on, so its uses report nothing more. */
		(void)declare_type_name(sema, it->name, it->name_span, ty_error, it);
		return;
	}
	it->type = imp->root->type;
	if (!declare_type_name(sema, it->name, it->name_span, it->type, it))
		return;
	for (int i = 0; i < imp->nrecords; i++)
		if (imp->records[i]->avro != imp->root)
			(void)declare_type_name(sema, imp->records[i]->name, file->span, ty_record(imp->records[i]), it);
}

/*
 * Declares f's record types, fields not yet resolved, so that types may
 * refer to each other in any order.
 */
static void declare_types(Sema *sema, File *f)
{
	for (Node *it = f->items; it; it = it->next) {
		if (it->kind == N_TYPE_IMPORT) {
			import_types(sema, it);
			continue;
		}
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

/* Gives the record types of f their fields, now that every type name is known. */
static void resolve_fields(Sema *sema, File *f)
{
	for (Node *it = f->items; it; it = it->next) {
		if (it->kind != N_TYPE_DECL || !it->type)
			continue;
		Record *r = it->type->rec;
		r->nfields = node_list_len(it->list);
		r->fields = xcalloc((size_t)r->nfields, sizeof *r->fields);
		int i = 0;
		NameSet seen = { 0 };
		for (Node *fd = it->list; fd; fd = fd->next) {
			if (!nameset_add(&seen, fd->name))
				error_at(fd->name_span, "field '%s' appears twice in '%s'", fd->name, r->name);
			r->fields[i].name = fd->name;
			r->fields[i].span = fd->name_span;
			r->fields[i].type = resolve_type(sema, fd->a);
			if (r->fields[i].type->kind == TY_PAIR)
				error_at(fd->a->span, "a field cannot hold a pair");
			i++;
		}
		nameset_free(&seen);
		r->resolved = true;
	}
}

/*
 * Reports every record type that contains itself by value (through a
 * field of record type, nullable or not; an array holds a pointer and is
 * fine), in the order the types were made: the records on a cycle of the
 * "holds by value" graph, i.e. in a strongly connected component of more
 * than one record or with a field of its own type.  Tarjan's algorithm,
 * with explicit stacks: O(records + fields) and no recursion, so thousands
 * of types that hold each other in a chain cost no more than as many
 * separate ones (a search from every type was quadratic, and as deep as
 * the chain).
 */
static void report_recursive_records(void)
{
	int n;
	Record **recs = all_records(&n);
	if (n == 0)
		return;
	int *order = xcalloc((size_t)n, sizeof *order); /* 1 + DFS number; 0: not reached yet */
	int *low = xcalloc((size_t)n, sizeof *low);
	int *next_field = xcalloc((size_t)n, sizeof *next_field);
	int *path = xcalloc((size_t)n, sizeof *path);   /* the DFS's own stack */
	int *comp = xcalloc((size_t)n, sizeof *comp);   /* Tarjan's stack */
	bool *on_comp = xcalloc((size_t)n, sizeof *on_comp);
	bool *cyclic = xcalloc((size_t)n, sizeof *cyclic);
	int counter = 0, npath = 0, ncomp = 0;
	for (int root = 0; root < n; root++) {
		if (order[root])
			continue;
		order[root] = low[root] = ++counter;
		comp[ncomp++] = root;
		on_comp[root] = true;
		path[npath++] = root;
		while (npath > 0) {
			int v = path[npath - 1];
			Record *r = recs[v];
			if (next_field[v] < r->nfields) {
				Type *t = type_strip(r->fields[next_field[v]++].type);
				if (t->kind != TY_RECORD)
					continue;
				int w = t->rec->id;
				assert(w >= 0 && w < n && recs[w] == t->rec);
				if (w == v) {
					cyclic[v] = true;
				} else if (!order[w]) {
					order[w] = low[w] = ++counter;
					comp[ncomp++] = w;
					on_comp[w] = true;
					path[npath++] = w;
				} else if (on_comp[w] && order[w] < low[v]) {
					low[v] = order[w];
				}
				continue;
			}
			npath--;
			if (npath > 0 && low[v] < low[path[npath - 1]])
				low[path[npath - 1]] = low[v];
			if (low[v] != order[v])
				continue;
			/* v roots a component: what is above it on Tarjan's stack. */
			int first = ncomp;
			do
				on_comp[comp[--first]] = false;
			while (comp[first] != v);
			if (ncomp - first > 1)
				for (int k = first; k < ncomp; k++)
					cyclic[comp[k]] = true;
			ncomp = first;
		}
	}
	for (int i = 0; i < n; i++)
		if (cyclic[i])
			error_hint(recs[i]->span, "wrap the field in an array ([T]) to nest records of the same type",
			           "record type '%s' contains itself", recs[i]->name);
	xfree(order);
	xfree(low);
	xfree(next_field);
	xfree(path);
	xfree(comp);
	xfree(on_comp);
	xfree(cyclic);
}

/* ------------------------------------------------------------------ */
/* Extern functions                                                   */
/* ------------------------------------------------------------------ */

/* (sema.h) */
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

/* Whether s can name a C function. */
static bool valid_c_identifier(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/*
 * Declares f's extern functions: parameter and result types, C names
 * (valid, not clashing with generated code), overloads with different
 * parameter types; the user's own are kept in prog->user_externs.
 */
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
/* Formats, topic names, error policies                               */
/* ------------------------------------------------------------------ */

/* Reads a format name (text, json, ...) into *out; reports an unknown one. */
bool parse_format(Node *f, Format *out)
{
	static const struct { const char *name; Format fmt; } formats[] = {
		{ "bytes", FMT_BYTES }, { "text", FMT_TEXT }, { "json", FMT_JSON },
		{ "i32", FMT_I32 }, { "i64", FMT_I64 }, { "f64", FMT_F64 }, { "avro_raw", FMT_AVRO_RAW },
		{ "avro", FMT_AVRO },
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
	error_hint(f->span, hint ? hint : "formats are text, json, bytes, i32, i64, f64, avro and avro_raw",
	           "unknown format '%s'", f->name);
	return false;
}

/* Checks that format f can carry values of type t. */
void check_format(Node *where, Format f, Type *t, const char *what)
{
	Type *s = type_strip(t);
	if (f == FMT_AVRO && s->kind == TY_RECORD && s->rec->windowed) {
		error_hint(where->span, "write the windowed key as json or avro_raw",
		           "format avro cannot carry a windowed key yet (%s)", type_str(t));
		return;
	}
	/* A windowed key in a binary format: its inner key's bytes, then the window's bounds. */
	if (f != FMT_JSON && s->kind == TY_RECORD && s->rec->windowed)
		s = s->rec->fields[0].type;
	bool ok;
	switch (f) {
	case FMT_JSON: ok = true; break;
	case FMT_AVRO_RAW:
	case FMT_AVRO: ok = s->kind != TY_PAIR; break; /* any type: an imported schema, or its own */
	case FMT_TEXT: case FMT_BYTES: ok = s->kind == TY_STRING || s->kind == TY_BYTES; break;
	case FMT_I32: ok = s->kind == TY_I32; break;
	case FMT_I64: ok = s->kind == TY_I64 || s->kind == TY_TIMESTAMP || s->kind == TY_DURATION; break;
	case FMT_F64: ok = s->kind == TY_F64; break;
	default: ok = false;
	}
	if (!ok && s->kind != TY_ERROR) {
		char hint[128];
		snprintf(hint, sizeof hint, "%s values are written as %s", type_str(t), format_name(format_default(t)));
		error_hint(where->span, hint, "format %s cannot carry the %s type %s", format_name(f), what,
		           type_str(t));
	}
}

/*
 * Sets where the store of the table `name` (node n) lives: `in memory` or
 * `in rocksdb` (the default).  Only a table with a store of its own has
 * one to place.
 */
void check_placement(Node *place, IrNode *n, const char *name)
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
	if (!n->has_store || !n->binding || strcmp(n->binding, name) != 0) {
		error_hint(place->span,
		           "filter and map_values on a table, and a table bound to another's name, keep no state of "
		           "their own; place the store of the table they come from",
		           "table '%s' has no store of its own to place", name);
		return;
	}
	n->in_memory = memory;
}

/* Reads an error policy (fail, skip, dlq "topic"); reports a bad one, which reads as fail. */
Policy parse_policy(Node *p)
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

/* Reports a topic name Kafka would refuse (1-249 of [a-zA-Z0-9._-], not . or ..). */
void check_topic_name(const char *topic, size_t len, Span span)
{
	if (!topic_name_valid(topic, len))
		error_hint(span, "Kafka topic names are 1 to 249 of a-z A-Z 0-9 . _ - (and not . or ..)",
		           "invalid topic name");
}

/*
 * Binds a stream or table name to the node ir (NULL after an error, so
 * later uses do not report it unknown); false if the name is taken.
 */
bool define_stream(Sema *sema, const char *name, Span span, IrNode *ir, bool is_source)
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

/* ------------------------------------------------------------------ */
/* The app header and the order of work                               */
/* ------------------------------------------------------------------ */

/*
 * Reads the app header: the application id (a name Kafka accepts for a
 * topic, since it begins the internal topics' names) and the settings
 * (guarantee, commit_interval, on_error, pre_aggregate).
 */
static void check_app(Sema *sema, Node *app)
{
	sema->topo->app_id = app->name;
	sema->topo->app_span = app->name_span;
	size_t len = strlen(app->name);
	if (!app->name[0])
		error_hint(app->name_span, "Kafka needs a non-empty application id", "the application id is empty");
	else if (strcmp(app->name, ".") == 0 || strcmp(app->name, "..") == 0)
		error_hint(app->name_span, "Kafka refuses \".\" and \"..\" as names (and \"..\" would put the state outside the state directory)",
		           "invalid application id \"%s\"", app->name);
	else if (len > KAFKA_TOPIC_NAME_MAX)
		error_hint(app->name_span,
		           "it names the consumer group and the state directory, and begins every internal topic's name, "
		           "which Kafka limits to 249 characters",
		           "the application id is %zu characters long; the most is %d", len, KAFKA_TOPIC_NAME_MAX);
	for (const char *p = app->name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-')) {
			error_hint(app->name_span, "Kafka allows letters, digits, '.', '_' and '-'",
			           "invalid application id \"%s\"", app->name);
			break;
		}
	static const char *settings[] = { "guarantee", "commit_interval", "on_error", "pre_aggregate" };
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
		} else if (strcmp(s->name, "pre_aggregate") == 0) {
			if (v->kind == N_BOOL)
				sema->topo->pre_aggregate = v->ival != 0;
			else
				error_hint(v->span, "write true or false", "pre_aggregate must be true or false");
		} else {
			Suggest sg = { s->name, NULL, 0 };
			for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
				suggest_consider(&sg, settings[i]);
			char *hint = did_you_mean(&sg);
			error_hint(s->name_span, hint ? hint : "settings are guarantee, commit_interval, on_error and pre_aggregate",
			           "unknown app setting '%s'", s->name);
		}
	}
}

/* The commit interval when the app header sets none. */
enum { DEFAULT_COMMIT_INTERVAL_MS = 100 };

/* (sema.h)  The order of work is described at the top of this file. */
bool sema_check(Program *p)
{
	Sema context = { .prog = p, .topo = &p->topo };
	Sema *sema = &context;
	sema->topo->guarantee = GUARANTEE_AT_LEAST_ONCE;
	sema->topo->commit_interval_ms = DEFAULT_COMMIT_INTERVAL_MS;
	sema->topo->on_error = POLICY_FAIL;
	sema->topo->pre_aggregate = true;

	File *files[2] = { p->prelude, p->file };
	for (int i = 0; i < 2; i++)
		if (files[i])
			declare_types(sema, files[i]);
	for (int i = 0; i < 2; i++)
		if (files[i])
			resolve_fields(sema, files[i]);
	report_recursive_records();
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
		case N_STREAM_DEF:
			check_stream_def(sema, it);
			break;
		case N_STMT:
			check_statement(sema, it);
			break;
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
	return diag.errors == 0;
}
