/*
 * codegen_join_table.c - table-table joins (join, left_join, outer_join of
 * two tables on their key), as Kafka Streams' KTableKTableInnerJoin,
 * KTableKTableLeftJoin / RightJoin and KTableKTableOuterJoin.
 *
 * The join keeps both sides in a store of its own: the key in the store
 * key layout after one byte saying the side (1 left, 2 right), the value
 * the side's latest value with its timestamp (8 bytes big-endian, then the
 * compact value layout).  A change of one side, in the pipeline that
 * passes the side's change on, is written there quietly (never passed on
 * by the store), the other side is looked up, and the joined change (new
 * value, and the old one when something downstream looks at it) goes to
 * after_<store> at once, with the larger of the two sides' timestamps.
 * Inlined: no allocation per record beyond the arena.
 */
#include "codegen_int.h"

#include <assert.h>

/* The side bytes in front of the join store's keys. */
enum { SIDE_LEFT = 1, SIDE_RIGHT = 2 };

/*
 * Binds the joiner's parameters, (a, b) or (k, a, b), to the key k, the
 * left value a and the right value b.
 */
static void bind_table_joiner(Gen *g, Node *fn, CVar *k, CVar *a, CVar *b)
{
	int np = node_list_len(fn->list);
	for (Node *p = fn->list; p; p = p->next) {
		if (!p->sym)
			continue;
		int slot = np == 3 ? p->slot : p->slot + 1; /* 0 key, 1 left value, 2 right value */
		bind(g, p->sym, slot == 0 ? k : slot == 1 ? a : b);
	}
}

/*
 * Sets out (a V? C variable of the join's result type) to the joiner's
 * value of this side's x and the other side's o (both X? C variables),
 * given as the joiner's parameters take them: a side the joiner sees as
 * nullable whole, the other by its value (present, as the caller's
 * condition guarantees).
 */
static void emit_joined(Gen *g, IrNode *n, bool this_left, CVar *k, CVar *x, CVar *o, const char *out)
{
	const JoinSpec *j = n->join;
	bool a_null = j->type == JOIN_OUTER, b_null = j->type != JOIN_INNER;
	CVar *l = this_left ? x : o, *r = this_left ? o : x;
	CVar *a = a_null ? l : cvar_part(l, ".v"), *b = b_null ? r : cvar_part(r, ".v");
	bind_table_joiner(g, j->joiner, k, a, b);
	char *e = emit_as(g, j->joiner->a, n->val);
	pr(g->out, "%s.v = %s;\n%s.has = true;\n", out, e, out);
}

/*
 * The change (key k, old_v and new_v of the side's type, nullable) of side
 * `from` of table-table join n.  With x the side's value and o the other
 * side's (Kafka Streams 4.4, docs/language.md "Table-table joins"):
 *
 *   inner               emits when o is present: new = x.new ? j(x.new, o) : null
 *   left, left change   emits when o, x.new or x.old is present: new = x.new ? j(x.new, o?) : null
 *   left, right change  emits when the left value l is present: new = j(l, x.new?)
 *   outer               emits when o, x.new or x.old is present: new = (o or x.new) ? j(x.new?, o?) : null
 *
 * and the old value likewise from x.old; the timestamp is the larger of
 * the change's and o's when o is present, else the change's.
 */
void emit_table_join(Gen *g, IrNode *n, IrNode *from, CVar *k, CVar *old_v, CVar *new_v)
{
	const JoinSpec *j = n->join;
	if (j->kind == JOIN_FOREIGN_KEY) {
		emit_fk_join_change(g, n, from, k, old_v, new_v);
		return;
	}
	assert(j->kind == JOIN_TABLE_TABLE && n->nparents == 2 && n->parents[0] != n->parents[1]);
	bool this_left = from == n->parents[0];
	IrNode *other = n->parents[this_left ? 1 : 0];
	Store *st = &g->topo->stores[n->store];
	int id = n->id;
	op_comment(g, n,
	           xasprintf("%s (table-table, store %s): the %s table's change against the %s table's value",
	                     join_op_name(j->type), st->name, this_left ? "left" : "right", this_left ? "right" : "left"));
	pr(g->out, "{\n");
	pr_indent(g->out);
	/* This side's latest value, with its timestamp, into the join's store (never passed on by it). */
	char *key_fn = need(g, H_STORE_KEY, n->key, FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\nstoat_buf_putc(&cx->key_buf, %d);\n%s(&cx->key_buf, &%s);\n",
	   this_left ? SIDE_LEFT : SIDE_RIGHT, key_fn, use(k));
	pr(g->out, "if (%s.has) {\n", use(new_v));
	pr_indent(g->out);
	pr(g->out, "cx->value_buf.len = 0;\nstoat_buf_put_be64(&cx->value_buf, cx->timestamp);\n");
	pr(g->out, "%s(&cx->value_buf, &%s);\n", need(g, H_STORE_VALUE_PUT, from->val, FMT_JSON),
	   use(cvar_part(new_v, ".v")));
	pr(g->out, "if (!stoat_store_put_quiet(cx, %d, stoat_buf_str(&cx->key_buf), stoat_buf_str(&cx->value_buf)))\n",
	   n->store);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr_dedent(g->out);
	pr(g->out, "} else if (!stoat_store_delete_quiet(cx, %d, stoat_buf_str(&cx->key_buf))) {\n", n->store);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "}\n");
	/* The other side's value and timestamp. */
	pr(g->out, "cx->key_buf.len = 0;\nstoat_buf_putc(&cx->key_buf, %d);\n%s(&cx->key_buf, &%s);\n",
	   this_left ? SIDE_RIGHT : SIDE_LEFT, key_fn, use(k));
	pr(g->out, "stoat_str stored%d;\n", id);
	pr(g->out, "%s o%d = { .has = false };\nint64_t ots%d = 0;\n", type_c(ty_nullable(other->val)), id, id);
	pr(g->out, "o%d.has = stoat_store_get(cx, %d, stoat_buf_str(&cx->key_buf), &stored%d);\n", id, n->store, id);
	emit_error_check(g);
	pr(g->out, "if (o%d.has && (!stoat_decode_be64(cx, (stoat_str){ .ptr = stored%d.ptr, .len = stored%d.len < 8 ? "
	           "stored%d.len : 8 }, &ots%d) ||\n",
	   id, id, id, id, id);
	pr(g->out, "                !%s(cx, (stoat_str){ .ptr = stored%d.ptr + 8, .len = stored%d.len - 8 }, &o%d.v)))\n",
	   need(g, H_STORE_VALUE_READ, other->val, FMT_JSON), id, id, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	const Pipeline *after = plan_store_after(g->plan, n->store);
	if (!after) {
		pr(g->out, "/* nothing downstream */\n");
		pr_dedent(g->out);
		pr(g->out, "}\n");
		return;
	}
	CVar *o = cvar(xasprintf("o%d", id));
	const char *oh = xasprintf("o%d.has", id);
	/* When the join passes a change on, and when its new (old) value is present. */
	bool right_of_left = j->type == JOIN_LEFT && !this_left;
	const char *emits = j->type == JOIN_INNER || right_of_left
	                        ? oh
	                        : xasprintf("%s || %s.has || %s.has", oh, use(new_v), use(old_v));
	pr(g->out, "if (%s) {\n", emits);
	pr_indent(g->out);
	const char *rt = type_c(ty_nullable(n->val));
	bool olds = table_needs_old(n);
	CVar *xs[2] = { new_v, old_v };
	const char *outs[2] = { xasprintf("new%d", id), xasprintf("old%d", id) };
	if (olds)
		pr(g->out, "%s %s = { .has = false }, %s = { .has = false };\n", rt, outs[0], outs[1]);
	else
		pr(g->out, "%s %s = { .has = false };\n", rt, outs[0]);
	for (int i = 0; i < (olds ? 2 : 1); i++) {
		const char *cond = right_of_left          ? NULL
		                   : j->type == JOIN_OUTER ? xasprintf("%s || %s.has", oh, use(xs[i]))
		                                           : xasprintf("%s.has", use(xs[i]));
		if (cond) {
			pr(g->out, "if (%s) {\n", cond);
			pr_indent(g->out);
		}
		emit_joined(g, n, this_left, k, xs[i], o, outs[i]);
		if (cond) {
			pr_dedent(g->out);
			pr(g->out, "}\n");
		}
	}
	/* The joined change's timestamp: the larger of the two sides' when both are present. */
	pr(g->out, "int64_t ts%d = cx->timestamp;\n", id);
	pr(g->out, "if (%s && ots%d > cx->timestamp)\n", oh, id);
	pr_nested(g->out, "cx->timestamp = ots%d;\n", id);
	pr(g->out, "if (!%s(cx, %s, %s, %s))\n", after->cname, use(k),
	   olds ? outs[1] : xasprintf("((%s){ .has = false })", rt), outs[0]);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "cx->timestamp = ts%d;\n", id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr_dedent(g->out);
	pr(g->out, "}\n");
}
