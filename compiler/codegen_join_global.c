/*
 * codegen_join_global.c - stream-global-table joins, inlined in the
 * stream's pipeline as Kafka Streams' KStreamGlobalKTableJoin (the
 * KStreamKTableJoinProcessor with a key mapper): the key selector's
 * result is looked up in the global table's store (every partition of
 * its topic, kept whole by the runtime), and the joiner's result goes on
 * with the stream record's key and timestamp.  The global table's own
 * updates run through its source pipeline and produce no join output.
 */
#include "codegen_int.h"

#include <assert.h>

/*
 * Binds the joiner's parameters, (v, x) or (k, v, x), to the stream
 * record's key k, its value v and the global table's value x.
 */
static void bind_global_joiner(Gen *g, Node *fn, CVar *k, CVar *v, CVar *x)
{
	int np = node_list_len(fn->list);
	for (Node *p = fn->list; p; p = p->next) {
		if (!p->sym)
			continue;
		int slot = np == 3 ? p->slot : p->slot + 1; /* 0 key, 1 value, 2 table value */
		bind(g, p->sym, slot == 0 ? k : slot == 1 ? v : x);
	}
}

/*
 * join(g, on sel, joiner) / left_join(...) of a stream record with key k
 * and value v (Kafka Streams 4.4): a null value is dropped (counted);
 * the selector runs on (k, v) (k may be null); a null selected key is
 * dropped by join and passed on by left_join with a null table value,
 * without a lookup; join passes on only records whose selected key the
 * table holds.
 */
void emit_global_join(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	const JoinSpec *j = n->join;
	assert(j->kind == JOIN_STREAM_GLOBAL);
	IrNode *in = n->parents[0], *table = j->table;
	const char *store = g->topo->stores[table->store].name;
	bool left = j->type == JOIN_LEFT;
	op_comment(g, n,
	           xasprintf("%s global table %s: the table's value for the selected key%s", left ? "left_join" : "join",
	                     store, left ? ", or null" : ""));
	bool nv = in->val->kind == TY_NULLABLE;
	CVar *vv = nv ? cvar_part(v, ".v") : v;
	if (nv) {
		pr(g->out, "if (%s.has) {\n", use(v));
		pr_indent(g->out);
	}
	pr(g->out, "{\n");
	pr_indent(g->out);
	/* The selected key: K, or K? when the selector may give null. */
	Type *selt = j->selector->type;
	bool ns = selt && (selt->kind == TY_NULLABLE || selt->kind == TY_NULL);
	Type *skt = ns ? ty_nullable(table->key) : table->key;
	bind_lambda(g, j->selector, k, vv);
	char *sel = emit_as(g, j->selector->a, skt);
	pr(g->out, "%s s%d = %s;\n", type_c(skt), n->id, sel);
	CVar *sv = cvar(xasprintf("s%d", n->id));
	CVar *skv = ns ? cvar_part(sv, ".v") : sv;
	CVar *tv = cvar(xasprintf("t%d", n->id));
	if (left) {
		pr(g->out, "%s t%d = { .has = false };\n", type_c(ty_nullable(table->val)), n->id);
		if (ns) {
			pr(g->out, "if (%s.has) {\n", use(sv));
			pr_indent(g->out);
		}
		emit_lookup(g, n, table, skv, true);
		if (ns) {
			pr_dedent(g->out);
			pr(g->out, "}\n");
		}
		bind_global_joiner(g, j->joiner, k, vv, tv);
		emit_with_var(g, n, type_c(n->val), xasprintf("v%d", n->id), emit_as(g, j->joiner->a, n->val), k, NULL,
		              false);
	} else {
		if (ns) {
			pr(g->out, "if (%s.has) {\n", use(sv));
			pr_indent(g->out);
		}
		emit_lookup(g, n, table, skv, false);
		bind_global_joiner(g, j->joiner, k, vv, tv);
		emit_with_var(g, n, type_c(n->val), xasprintf("v%d", n->id), emit_as(g, j->joiner->a, n->val), k, NULL,
		              false);
		pr_dedent(g->out);
		pr(g->out, "}\n");
		if (ns)
			emit_dropped_else(g, xasprintf("null key selected for a join with global table %s", store));
	}
	if (!sv->used)
		pr(g->out, "(void)s%d;\n", n->id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	if (nv)
		emit_dropped_else(g, xasprintf("null value for a join with global table %s", store));
}
