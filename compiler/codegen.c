/*
 * codegen.c - emits the C for one application: the types, the file's
 * header comment and application table, codegen() itself, and the small
 * utilities the other codegen_*.c files share (codegen_int.h).
 *
 * Codegen renders a plan (plan.h), which has taken the physical
 * decisions: which functions there are (the pipelines), in which order,
 * under which names, and which stores each source restores.  The
 * pipelines are generated first, each function into its own buffer,
 * because emitting them discovers which helpers (JSON readers and writers,
 * decoders, encoders, store codecs, bounds-checked indexing) are needed;
 * the helpers are then generated and everything is assembled in a fixed
 * order.  Every name in the output derives from the plan's names, source
 * names and IR node ids, so the same input gives the same bytes.
 */
#include "codegen_int.h"
#include "graph.h"
#include "schema_avro.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Small utilities                                                     */
/* ------------------------------------------------------------------ */

/* How the current function gives up on a record that failed. */
const char *fail_stmt(Gen *g)
{
	g->uses_fail = !g->in_segment || g->uses_fail;
	return g->in_segment ? "return false" : "goto fail";
}

/* How the current function goes on to the next record, this one done. */
const char *skip_stmt(Gen *g)
{
	return (g->loop_depth > 0 || !g->in_segment) ? "continue" : "return true";
}

/* A fresh temporary's name (numbered per function). */
char *new_tmp(Gen *g)
{
	return xasprintf("t%d", g->tmp++);
}

/* Stops the record when what was just called failed. */
void emit_error_check(Gen *g)
{
	pr(g->out, "if (STOAT_UNLIKELY(cx->error))\n");
	pr_nested(g->out, "%s;\n", fail_stmt(g));
}

/* A C string literal for s (octal escapes for anything unusual). */
char *c_string(const char *s, size_t len)
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
const char *c_field(const char *name)
{
	return c_safe_name(name);
}

/* The runtime's enumerator for a format. */
const char *stoat_format_enum(Format f)
{
	static const char *names[] = {
		"STOAT_FMT_BYTES", "STOAT_FMT_TEXT", "STOAT_FMT_JSON",
		"STOAT_FMT_I32", "STOAT_FMT_I64", "STOAT_FMT_F64", "STOAT_FMT_AVRO_RAW", "STOAT_FMT_AVRO",
	};
	return names[f];
}

/* The runtime's enumerator for an error policy. */
static const char *policy_enum(Policy p)
{
	static const char *names[] = { "STOAT_POLICY_DEFAULT", "STOAT_POLICY_FAIL", "STOAT_POLICY_SKIP",
		                       "STOAT_POLICY_DLQ" };
	return names[p];
}

/* Shortest decimal that reads back as d, always with a '.' or exponent. */
char *c_double(double d)
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

/* A C variable (or expression) nothing has referred to yet. */
CVar *cvar(const char *c)
{
	CVar *v = xcalloc(1, sizeof *v);
	v->c = c;
	return v;
}

/* The part of whole written whole<suffix> (e.g. x.v); using it uses whole. */
CVar *cvar_part(CVar *whole, const char *suffix)
{
	CVar *v = cvar(xasprintf("%s%s", whole->c, suffix));
	v->whole = whole;
	return v;
}

/* v's C text, for output that refers to it: marks v (and its whole) used. */
const char *use(CVar *v)
{
	for (CVar *x = v; x; x = x->whole)
		x->used = true;
	return v->c;
}

/*
 * The slot of g->binding_index for sym: where its binding's index + 1 is,
 * or the empty slot it would take.  A function binds a name per lambda
 * parameter of every operator it inlines (thousands in a long pipeline),
 * so bindings are found by hashing the symbol, not by a scan.  The hash
 * only finds; nothing emitted depends on it.
 */
static size_t binding_slot(const Gen *g, const Symbol *sym)
{
	size_t mask = (size_t)g->capbinding_index - 1;
	size_t i = ((uintptr_t)sym >> 4) * 2654435761u & mask;
	while (g->binding_index[i] && g->bindings[g->binding_index[i] - 1].sym != sym)
		i = (i + 1) & mask;
	return i;
}

/* Makes sym (a lambda parameter, let or loop variable) stand for var. */
void bind(Gen *g, Symbol *sym, CVar *var)
{
	if (g->capbinding_index) {
		int at = g->binding_index[binding_slot(g, sym)];
		if (at) {
			g->bindings[at - 1].var = var;
			return;
		}
	}
	g->bindings = xrealloc(g->bindings, sizeof *g->bindings * (size_t)(g->nbindings + 1));
	g->bindings[g->nbindings++] = (Binding){ sym, var };
	if (2 * g->nbindings > g->capbinding_index) {
		xfree(g->binding_index);
		g->capbinding_index = g->capbinding_index ? g->capbinding_index * 2 : 64;
		g->binding_index = xcalloc((size_t)g->capbinding_index, sizeof *g->binding_index);
		for (int b = 0; b < g->nbindings; b++)
			g->binding_index[binding_slot(g, g->bindings[b].sym)] = b + 1;
	} else {
		g->binding_index[binding_slot(g, sym)] = g->nbindings;
	}
}

/* What sym stands for; sema guarantees it was bound before any use. */
CVar *bound(Gen *g, Symbol *sym)
{
	int at = g->capbinding_index ? g->binding_index[binding_slot(g, sym)] : 0;
	if (at)
		return g->bindings[at - 1].var;
	assert(!"an unbound variable in codegen");
	return cvar("0");
}

/*
 * Sends what follows to sub (extra_indent levels deeper than the current
 * output) until end_sub; returns the printer to restore.
 */
Printer *begin_sub(Gen *g, Printer *sub, int extra_indent)
{
	pr_init(sub);
	sub->indent = g->out->indent + extra_indent;
	Printer *saved = g->out;
	g->out = sub;
	return saved;
}

/* Ends begin_sub: output goes to saved again (sub keeps its text). */
void end_sub(Gen *g, Printer *saved)
{
	g->out = saved;
}

/*
 * The comment naming an operator and its source line; with line
 * directives, then a #line saying the code that follows is that line.
 */
void op_comment(Gen *g, IrNode *n, const char *what)
{
	pr(g->out, "/* %s:%d: %s */\n", n->span.file->path, n->span.line, what);
	if (g->opts->line_directives) {
		pr(g->out, "#line %d %s\n", n->span.line, c_string(n->span.file->path, strlen(n->span.file->path)));
		g->wrote_line = true;
	}
}

/* ------------------------------------------------------------------ */
/* Types                                                               */
/* ------------------------------------------------------------------ */

/* Whether t's C type is a struct this file defines (not a runtime one). */
static bool has_generated_struct(Type *t)
{
	if (t->kind == TY_RECORD || t->kind == TY_PAIR)
		return true;
	if (t->kind == TY_ARRAY || t->kind == TY_NULLABLE)
		return strncmp(type_c(t), "stoat_", 6) != 0;
	return false;
}

/* Whether t is already among the types to define. */
static bool type_added(Gen *g, Type *t)
{
	return t->added_mark == g->types_mark;
}

/* Adds t after everything it holds by value (post-order). */
static void add_type(Gen *g, Type *t)
{
	if (!t || t->kind == TY_ERROR || t->kind == TY_NULL)
		return;
	if (type_added(g, t))
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
	if (type_added(g, t))
		return;
	if (!has_generated_struct(t))
		return;
	g->types = xrealloc(g->types, sizeof *g->types * (size_t)(g->ntypes + 1));
	g->types[g->ntypes++] = t;
	t->added_mark = g->types_mark;
}

/* Adds t and everything it needs, including deferred array elements. */
static void add_type_root(Gen *g, Type *t)
{
	add_type(g, t);
	while (g->ndeferred > 0)
		add_type(g, g->deferred[--g->ndeferred]);
}

static void collect_types_in(Gen *g, Node *list);

/*
 * Adds the types of expression n and of every expression under it.  A
 * pipeline (a |> f |> g, nested to the left one N_PIPE per step, and as
 * long as the user likes) is walked in a loop, in the order the recursion
 * would take: the N_PIPE nodes outermost first, the stream it starts from,
 * then the steps first to last.  Expressions are recursed into: the
 * parser bounds their depth (MAX_EXPR_DEPTH).
 */
static void collect_types_of(Gen *g, Node *n)
{
	if (!n)
		return;
	if (n->kind == N_PIPE) {
		int nsteps = 0;
		Node *start = n;
		for (; start->kind == N_PIPE; start = start->a) {
			if (start->type)
				add_type_root(g, start->type);
			nsteps++;
		}
		Node **pipes = xcalloc((size_t)nsteps, sizeof *pipes);
		int i = nsteps;
		for (Node *p = n; p->kind == N_PIPE; p = p->a)
			pipes[--i] = p;
		collect_types_of(g, start);
		for (i = 0; i < nsteps; i++) {
			collect_types_in(g, pipes[i]->b);
			collect_types_in(g, pipes[i]->c);
			collect_types_in(g, pipes[i]->list);
		}
		xfree(pipes);
		return;
	}
	if (n->type)
		add_type_root(g, n->type);
	collect_types_in(g, n->a);
	collect_types_in(g, n->b);
	collect_types_in(g, n->c);
	collect_types_in(g, n->list);
}

/* Adds the types of every expression of a list (and under them). */
static void collect_types_in(Gen *g, Node *list)
{
	for (; list; list = list->next)
		collect_types_of(g, list);
}

/* Every type the program's C needs defined, in an order C accepts. */
static void collect_types(Gen *g)
{
	/* A number no earlier run of codegen used: types it marked are not this run's. */
	static unsigned runs;
	g->types_mark = ++runs;
	assert(g->types_mark != 0);
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
}

/* The Types section: a typedef per struct, then the structs. */
static void emit_types(Gen *g, Printer *p)
{
	if (g->ntypes == 0)
		return;
	pr(p, "/* ---- Types ---------------------------------------------------------- */\n\n");
	for (int i = 0; i < g->ntypes; i++)
		pr(p, "typedef struct %s %s;\n", type_c(g->types[i]), type_c(g->types[i]));
	for (int i = 0; i < g->ntypes; i++) {
		Type *t = g->types[i];
		pr(p, "\n");
		if (t->kind == TY_RECORD && t->rec->anonymous)
			pr(p, "/* %s */\n", type_str(t));
		else if (t->kind == TY_RECORD)
			pr(p, "/* type %s (%s:%d) */\n", t->rec->name, t->rec->span.file->path, t->rec->span.line);
		pr(p, "struct %s {\n", type_c(t));
		pr_indent(p);
		switch (t->kind) {
		case TY_RECORD:
			for (int f = 0; f < t->rec->nfields; f++)
				pr(p, "%s %s;\n", type_c(t->rec->fields[f].type), c_field(t->rec->fields[f].name));
			if (t->rec->nfields == 0)
				pr(p, "char unused_;\n");
			break;
		case TY_NULLABLE:
			pr(p, "bool has;\n%s v;\n", type_c(t->elem));
			break;
		case TY_ARRAY:
			pr(p, "%s *items;\nsize_t len;\n", type_c(t->elem));
			break;
		case TY_PAIR:
			pr(p, "%s k;\n%s v;\n", type_c(t->key), type_c(t->val));
			break;
		default:
			assert(!"a type without a generated struct");
		}
		pr_dedent(p);
		pr(p, "};\n");
	}
	pr(p, "\n");
}

/* ------------------------------------------------------------------ */
/* The file                                                            */
/* ------------------------------------------------------------------ */

/* A new function buffer at the end of chunks. */
static Printer *new_chunk(Chunk **chunks, int *nchunks)
{
	*chunks = xrealloc(*chunks, sizeof **chunks * (size_t)(*nchunks + 1));
	Chunk *c = &(*chunks)[(*nchunks)++];
	pr_init(&c->text);
	c->has_line = false;
	return &c->text;
}

/*
 * The generated functions, one chunk each: the plan's pipelines in its
 * order (segments, source pipelines, each store's after_ and flush_), with
 * a section comment's chunk before the first of each group.
 */
static void emit_functions(Gen *g, Chunk **chunks, int *nchunks)
{
	static const char *const sections[PIPE_WINDOW_CLOSE + 1] = {
		[PIPE_SEGMENT] = "/* ---- Merge segments ---------------------------------------------------- */\n\n",
		[PIPE_SOURCE] = "/* ---- Pipelines --------------------------------------------------------- */\n\n",
		[PIPE_STORE_AFTER] = "/* ---- Table updates ------------------------------------------------------ */\n\n",
		[PIPE_STORE_FLUSH] = NULL, /* follows its store's after_ */
		[PIPE_WINDOW_CLOSE] = "/* ---- Closed windows ----------------------------------------------------- */\n\n",
	};
	bool started[PIPE_WINDOW_CLOSE + 1] = { false };
	for (int i = 0; i < g->plan->npipelines; i++) {
		const Pipeline *pp = &g->plan->pipelines[i];
		if (sections[pp->kind] && !started[pp->kind])
			pr(new_chunk(chunks, nchunks), "%s", sections[pp->kind]);
		started[pp->kind] = true;
		Printer *out = new_chunk(chunks, nchunks);
		switch (pp->kind) {
		case PIPE_SEGMENT: emit_segment(g, pp, out); break;
		case PIPE_SOURCE: emit_pipeline(g, pp, out); break;
		case PIPE_STORE_AFTER: emit_store_after(g, pp, out); break;
		case PIPE_STORE_FLUSH: emit_store_flush(g, pp, out); break;
		case PIPE_WINDOW_CLOSE: emit_window_close(g, pp, out); break;
		}
		/* flush_ has no operators of its own, so no #line into the .stoat file. */
		(*chunks)[*nchunks - 1].has_line = pp->kind != PIPE_STORE_FLUSH && g->wrote_line;
	}
}

/*
 * One line of the sub-topology outline in the file's header comment, then
 * the node's children; from is the parent it was reached from (a cogroup
 * is followed from its first input only).
 */
static void describe_node(Printer *p, const Plan *plan, IrNode *n, IrNode *from, int depth)
{
	/*
	 * Two columns a level, up to a limit, so that a chain of thousands of
	 * operators does not make the comment quadratic in size; deeper lines
	 * say their level instead.
	 */
	enum { OUTLINE_MAX_DEPTH = 32 };
	if (depth <= OUTLINE_MAX_DEPTH)
		pr(p, " * %*s", depth * 2, "");
	else
		pr(p, " * %*s(%d) ", OUTLINE_MAX_DEPTH * 2, "", depth);
	switch (n->kind) {
	case IR_SOURCE:
		pr(p, "%s%s <- \"%s\" (%s, %s)%s%s", n->table ? "table " : "", n->name, n->topic,
		   format_name(n->key_format), format_name(n->value_format), n->internal ? " (internal)" : "",
		   n->change ? " (changes)" : "");
		break;
	case IR_SINK:
		if (n->topic)
			pr(p, "%s%s \"%s\" (%s, %s)", n->preagg ? "pre-aggregate, " : "", n->internal ? "repartition ->" : "to",
			   n->topic, format_name(n->key_format), format_name(n->value_format));
		else
			pr(p, "to (per record) (%s, %s)", format_name(n->key_format), format_name(n->value_format));
		break;
	case IR_BRANCH:
		pr(p, "branch %s%s", n->name, n->lambda ? "" : " (default)");
		break;
	case IR_MERGE:
		pr(p, "merge -> %s", plan_entry(plan, n)->cname);
		break;
	case IR_GROUP:
		pr(p, "group%s", n->group_table ? " (table)" : "");
		break;
	case IR_WINDOW:
		pr(p, "window %s", window_text(n->window));
		break;
	case IR_JOIN:
		if (n->join->kind == JOIN_TABLE_TABLE) {
			pr(p, "%s (table-table) -> %s", join_op_name(n->join->type),
			   plan_store_after(plan, n->store) ? plan_store_after(plan, n->store)->cname : "nothing downstream");
			break;
		}
		if (n->join->kind == JOIN_FOREIGN_KEY) {
			static const char *const role[] = { "subscribe", "receive subscriptions", "answer subscribers",
				                            "resolve responses" };
			pr(p, "%s (foreign-key, %s", join_op_name(n->join->type), role[n->join->side]);
			if (n->join->side == FK_RECV || n->join->side == FK_FOREIGN)
				pr(p, ", store %s)", plan->topo->stores[n->join->store].name);
			else if (n->join->side == FK_RESOLVE)
				pr(p, ", looks up store %s)", plan->topo->stores[n->join->table->store].name);
			else
				pr(p, ")");
			break;
		}
		if (n->join->kind == JOIN_STREAM_STREAM) {
			pr(p, "join stream (%s side, store %s, looks up %s)", n->join->side == 0 ? "left" : "right",
			   plan->topo->stores[n->join->store].name, plan->topo->stores[n->join->peer->join->store].name);
			break;
		}
		pr(p, "%s %stable %s (looks up store %s)", n->join->type == JOIN_LEFT ? "left_join" : "join",
		   n->join->kind == JOIN_STREAM_GLOBAL ? "global " : "", n->join->table->name ? n->join->table->name : plan->topo->stores[n->join->table->store].name,
		   plan->topo->stores[n->join->table->store].name);
		break;
	default:
		pr(p, "%s%s", n->table && n->kind != IR_AGGREGATE && n->kind != IR_TO_TABLE ? "table " : "",
		   ir_kind_name(n->kind));
	}
	if (n->has_store)
		pr(p, " (store %s%s)", plan->topo->stores[n->store].name,
		   plan->topo->stores[n->store].in_memory ? ", in memory" : "");
	pr(p, " [line %d]\n", n->span.line);
	if (n->kind == IR_MERGE && depth > 0 && n->parents[0] != NULL)
		return;
	if (n->kind == IR_COGROUP && from != n->parents[0])
		return;
	for (int i = 0; i < n->nchildren; i++)
		describe_node(p, plan, n->children[i], n, depth + 1);
}

/* The file's header comment: the application's settings and sub-topologies. */
static void emit_header_comment(Gen *g, Printer *p)
{
	Topology *t = g->topo;
	pr(p, "/*\n * Generated by stoatc from %s. DO NOT EDIT.\n *\n", g->prog->file->source->path);
	pr(p, " * Application \"%s\": %s, commit interval %lld ms, on error %s%s.\n", t->app_id,
	   t->guarantee ? "exactly_once" : "at_least_once", (long long)t->commit_interval_ms,
	   t->on_error == POLICY_SKIP ? "skip" : t->on_error == POLICY_DLQ ? "dlq " : "fail",
	   t->dlq_topic ? t->dlq_topic : "");
	for (int st = 0; st < g->plan->nsubtopologies; st++) {
		pr(p, " *\n * Sub-topology %d:\n", st);
		const SubTopology *sub = &g->plan->subtopologies[st];
		for (int i = 0; i < sub->nsources; i++)
			describe_node(p, g->plan, sub->sources[i], NULL, 1);
	}
	pr(p, " */\n");
}

/* #include of each user header for extern functions, once, in declaration order. */
static bool emit_user_includes(Gen *g, Printer *p)
{
	Program *prog = g->prog;
	bool any = false;
	for (int i = 0; i < prog->nuser_externs; i++) {
		Node *e = prog->user_externs[i];
		if (!e->str)
			continue;
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup |= prog->user_externs[j]->str && strcmp(prog->user_externs[j]->str, e->str) == 0;
		if (dup)
			continue;
		if (!any)
			pr(p, "/* The types are defined above: a header may include the types header (stoatc emit --header). */\n"
			      "#define STOAT_APP_TYPES_H\n");
		pr(p, "#include %s\n", c_string(e->str, e->len));
		any = true;
	}
	if (any)
		pr(p, "\n");
	return any;
}

/* Prototypes of the plan's segments and after_ functions, which call each other. */
static void emit_prototypes(Gen *g, Printer *p)
{
	const Plan *plan = g->plan;
	bool any = false;
	for (int i = 0; i < plan->npipelines; i++) {
		const Pipeline *pp = &plan->pipelines[i];
		if (pp->kind == PIPE_SEGMENT) {
			pr(p, "static bool %s(stoat_ctx *cx, %s k, %s v, bool raw_key, bool raw_value);\n", pp->cname,
			   type_c(pp->entry->key), type_c(pp->entry->val));
			any = true;
		}
	}
	if (any)
		pr(p, "\n");
	any = false;
	/* Pipelines, and the downstreams of other stores, call these. */
	for (int i = 0; i < plan->npipelines; i++) {
		const Pipeline *pp = &plan->pipelines[i];
		if (pp->kind == PIPE_STORE_AFTER) {
			IrNode *n = pp->entry;
			pr(p, "static bool %s(stoat_ctx *cx, %s key, %s old_v, %s new_v);\n", pp->cname, type_c(n->key),
			   type_c(ty_nullable(n->val)), type_c(ty_nullable(n->val)));
			any = true;
		} else if (pp->kind == PIPE_WINDOW_CLOSE) {
			pr(p, "static bool %s(stoat_ctx *cx);\n", pp->cname);
			any = true;
		}
	}
	if (any)
		pr(p, "\n");
}

/*
 * app_stores_of_<source> for each source whose pipeline writes stores (the
 * plan's Pipeline.stores, which the runtime restores with the source's
 * partitions).
 */
static void emit_source_stores(Gen *g, Printer *p)
{
	Topology *t = g->topo;
	bool any = false;
	for (int i = 0; i < t->nsources; i++) {
		const Pipeline *pp = plan_entry(g->plan, t->sources[i]);
		if (pp->nstores) {
			pr(p, "static const int app_stores_of_%s[] = {", t->sources[i]->name);
			for (int j = 0; j < pp->nstores; j++)
				pr(p, "%s %d", j ? "," : "", pp->stores[j]);
			pr(p, " };\n");
			any = true;
		}
	}
	if (any)
		pr(p, "\n");
}

/*
 * The topology as `stoatc graph` draws it, one string literal per line:
 * the running app serves it (GET /topology?format=dot), so what an
 * operator sees is the picture of the program it was built from.
 */
static void emit_topology_dot(Gen *g, Printer *p, const char *path)
{
	char *dot = graph_dot(g->prog, path);
	pr(p, "/* The topology, as `stoatc graph` draws it (GET /topology?format=dot). */\n");
	pr(p, "static const char app_topology_dot[] =\n");
	pr_indent(p);
	for (const char *line = dot; *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
		pr(p, "%s%s\n", c_string(line, n), line[n] ? "" : ";");
		line += n;
	}
	pr_dedent(p);
	pr(p, "\n");
}

/* app_copartitions: the plan's co-partition groups, each the indices of its sources. */
static void emit_copartitions(Gen *g, Printer *p)
{
	const Plan *pl = g->plan;
	if (!pl->ncopartitions)
		return;
	for (int i = 0; i < pl->ncopartitions; i++) {
		pr(p, "static const int app_copartition_%d[] = {", i);
		for (int j = 0; j < pl->copartitions[i].nsources; j++)
			pr(p, "%s %d", j ? "," : "", pl->copartitions[i].sources[j]->index);
		pr(p, " };\n");
	}
	pr(p, "\nstatic const stoat_copartition app_copartitions[] = {\n");
	pr_indent(p);
	for (int i = 0; i < pl->ncopartitions; i++) {
		const CopartitionGroup *grp = &pl->copartitions[i];
		char *what = xasprintf("join at %s:%d", grp->join->span.file->path, grp->join->span.line);
		pr(p, "{ .what = %s, .sources = app_copartition_%d, .source_count = %d },\n", c_string(what, strlen(what)), i,
		   grp->nsources);
	}
	pr_dedent(p);
	pr(p, "};\n\n");
}

/* The application table (sinks, stores, sources, settings) and main(). */
static void emit_app(Gen *g, Printer *p)
{
	Topology *t = g->topo;
	pr(p, "/* ---- The application --------------------------------------------------- */\n\n");
	if (t->nsinks) {
		pr(p, "static const stoat_sink app_sinks[] = {\n");
		pr_indent(p);
		for (int i = 0; i < t->nsinks; i++) {
			IrNode *s = t->sinks[i];
			pr(p, "{ .topic = %s, .key_format = %s, .value_format = %s%s", s->topic ? c_string(s->topic, strlen(s->topic)) : "NULL",
			   stoat_format_enum(s->key_format), stoat_format_enum(s->value_format),
			   s->internal ? ", .internal = true" : "");
			/* Format avro: the schema the sink registers (its subject's) and names in every frame. */
			for (int role = 0; role < 2; role++) {
				if ((role ? s->value_format : s->key_format) != FMT_AVRO)
					continue;
				char *json = avro_schema_json(avro_schema_of(type_strip(role ? s->val : s->key)));
				pr(p, ",\n  .%s_schema = %s", role ? "value" : "key", c_string(json, strlen(json)));
				xfree(json);
			}
			pr(p, " }, /* %d */\n", i);
		}
		pr_dedent(p);
		pr(p, "};\n\n");
	}
	if (t->nstores) {
		pr(p, "static const stoat_store_desc app_stores[] = {\n");
		pr_indent(p);
		for (int i = 0; i < t->nstores; i++) {
			Store *st = &t->stores[i];
			pr(p, "{ .name = %s", c_string(st->name, strlen(st->name)));
			if (plan_store_flush(g->plan, i))
				pr(p, ", .flush = %s", plan_store_flush(g->plan, i)->cname);
			if (st->in_memory)
				pr(p, ", .in_memory = true");
			if (st->global)
				pr(p, ", .global = true");
			if (st->uncached)
				pr(p, ", .uncached = true");
			if (st->window)
				pr(p,
				   ", .kind = STOAT_STORE_WINDOW, .retention_ms = %lld, .segment_ms = %lld%s"
				   ", .window_retention_ms = %lld",
				   (long long)st->retention_ms, (long long)st->segment_ms, st->time_index ? ", .time_index = true" : "",
				   (long long)st->window_retention_ms);
			/* Zero, the default, is left out (most apps have one sub-topology). */
			if (st->node->subtopology)
				pr(p, ", .subtopology = %d", st->node->subtopology);
			emit_store_desc_dump(g, p, i);
			pr(p, " }, /* %d */\n", i);
		}
		pr_dedent(p);
		pr(p, "};\n\n");
	}
	emit_source_stores(g, p);
	emit_copartitions(g, p);
	if (g->plan->npreaggs) {
		pr(p, "static const stoat_preagg_desc app_preaggs[] = {\n");
		pr_indent(p);
		for (int i = 0; i < g->plan->npreaggs; i++) {
			IrNode *s = g->plan->preaggs[i];
			const char *name = t->stores[s->preagg->store].name;
			pr(p, "{ .name = %s, .sink = %d }, /* %d */\n", c_string(name, strlen(name)), s->index, i);
		}
		pr_dedent(p);
		pr(p, "};\n\n");
	}
	pr(p, "static const stoat_source app_sources[] = {\n");
	pr_indent(p);
	for (int i = 0; i < t->nsources; i++) {
		IrNode *s = t->sources[i];
		pr(p, "{\n");
		pr_indent(p);
		pr(p, ".name = \"%s\",\n.topic = %s,\n", s->name, c_string(s->topic, strlen(s->topic)));
		pr(p, ".key_format = %s,\n.value_format = %s,\n", stoat_format_enum(s->key_format),
		   stoat_format_enum(s->value_format));
		if (s->internal)
			pr(p, ".internal = true, /* a repartition topic */\n");
		if (s->global)
			pr(p, ".global = true, /* a global table: every partition, on every instance */\n");
		pr(p, ".on_error = %s,\n", policy_enum(s->policy));
		if (s->subtopology)
			pr(p, ".subtopology = %d,\n", s->subtopology);
		if (s->dlq_topic)
			pr(p, ".dlq_topic = %s,\n", c_string(s->dlq_topic, strlen(s->dlq_topic)));
		const Pipeline *pp = plan_entry(g->plan, s);
		pr(p, ".pipeline = %s,\n", pp->cname);
		if (pp->nstores)
			pr(p, ".stores = app_stores_of_%s,\n.store_count = %d,\n", s->name, pp->nstores);
		pr_dedent(p);
		pr(p, "},\n");
	}
	pr_dedent(p);
	pr(p, "};\n\n");
	const char *path = g->prog->file->source->path;
	emit_topology_dot(g, p, path);
	pr(p, "static const stoat_app app = {\n");
	pr_indent(p);
	pr(p, ".app_id = %s,\n", c_string(t->app_id, strlen(t->app_id)));
	pr(p, ".source_file = %s,\n", c_string(path, strlen(path)));
	pr(p, ".guarantee = %s,\n", t->guarantee ? "STOAT_EXACTLY_ONCE" : "STOAT_AT_LEAST_ONCE");
	pr(p, ".commit_interval_ms = %lld,\n", (long long)t->commit_interval_ms);
	pr(p, ".on_error = %s,\n", policy_enum(t->on_error));
	if (t->dlq_topic)
		pr(p, ".dlq_topic = %s,\n", c_string(t->dlq_topic, strlen(t->dlq_topic)));
	pr(p, ".sources = app_sources,\n.source_count = %d,\n", t->nsources);
	if (t->nsinks)
		pr(p, ".sinks = app_sinks,\n.sink_count = %d,\n", t->nsinks);
	else
		pr(p, ".sinks = NULL,\n.sink_count = 0,\n");
	if (t->nstores)
		pr(p, ".stores = app_stores,\n.store_count = %d,\n", t->nstores);
	if (g->plan->ncopartitions)
		pr(p, ".copartitions = app_copartitions,\n.copartition_count = %d,\n", g->plan->ncopartitions);
	if (g->plan->npreaggs)
		pr(p, ".preaggs = app_preaggs,\n.preagg_count = %d,\n", g->plan->npreaggs);
	pr(p, ".topology_dot = app_topology_dot,\n");
	pr_dedent(p);
	pr(p, "};\n\n");
	pr(p, "int main(int argc, char **argv)\n{\n");
	pr_nested(p, "return stoat_main(&app, argc, argv);\n");
	pr(p, "}\n");
}

/*
 * Appends a generated function; after one with #line directives into the
 * .stoat file, a #line back to the generated file's own next line (the
 * printer counts lines, so the number is known as it is written).
 */
static void append_chunk(Gen *g, Printer *p, Chunk *c)
{
	pr_raw(p, c->text.buf ? c->text.buf : "", c->text.len);
	if (g->opts->line_directives && c->has_line) {
		const char *name = g->opts->output_name;
		/* This directive is line p->lines + 1; it names the line after it. */
		pr(p, "#line %d %s\n", p->lines + 2, c_string(name, strlen(name)));
	}
	pr_free(&c->text);
}

/*
 * The whole C file: the functions first (they register the helpers they
 * call), then the file in order: header comment, includes, types, user
 * headers, prototypes, helpers, the functions, the application table.
 */
char *codegen(const Plan *plan, const CodegenOptions *opts)
{
	Gen gen = { .prog = plan->prog, .topo = plan->topo, .plan = plan, .opts = opts };
	Gen *g = &gen;

	/* The functions first: they tell which helpers are needed. */
	Chunk *chunks = NULL;
	int nchunks = 0;
	emit_functions(g, &chunks, &nchunks);
	need_store_json(g); /* the application table names them */
	collect_types(g);

	Printer p;
	pr_init(&p);
	emit_header_comment(g, &p);
	bool avro = false;
	for (int i = 0; i < g->nhelpers && !avro; i++)
		avro = g->helpers[i].kind == H_AVRO_READ || g->helpers[i].kind == H_AVRO_WRITE;
	pr(&p, "#include <stoat/runtime.h>\n%s#include <stoat/std.h>\n\n", avro ? "#include <stoat/avro.h>\n" : "");
	emit_types(g, &p);
	emit_user_includes(g, &p);
	emit_prototypes(g, &p);
	emit_helpers(g, &p);
	for (int i = 0; i < nchunks; i++)
		append_chunk(g, &p, &chunks[i]);
	xfree(chunks);
	emit_app(g, &p);
	return p.buf;
}

/*
 * The types header: the same Types section as the C file, under the
 * include guard the C file defines before it includes user headers (so a
 * user header may include the types header too).
 */
char *codegen_types_header(Program *prog, const CodegenOptions *opts)
{
	Gen gen = { .prog = prog, .topo = &prog->topo, .opts = opts };
	Gen *g = &gen;
	collect_types(g);
	Printer p;
	pr_init(&p);
	pr(&p, "/*\n * Generated by stoatc from %s. DO NOT EDIT.\n *\n", prog->file->source->path);
	pr(&p, " * The C types of application \"%s\",\n", g->topo->app_id);
	pr(&p, " * for the C sources of its extern functions: a record type T is the\n");
	pr(&p, " * struct T, T? is opt_T (or the runtime's stoat_opt_*), [T] is arr_T\n");
	pr(&p, " * (or stoat_arr_*).\n */\n");
	pr(&p, "#ifndef STOAT_APP_TYPES_H\n#define STOAT_APP_TYPES_H\n\n");
	pr(&p, "#include <stoat/runtime.h>\n#include <stoat/std.h>\n\n");
	emit_types(g, &p);
	pr(&p, "#endif\n");
	return p.buf;
}
