/*
 * codegen_table.c - stores, aggregations and the operators on tables.
 *
 * A store update is read, computed and written in the pipeline that
 * causes it; what follows the store runs in after_<store> for each change
 * of a key (its old and new values), called at once or, when the record
 * cache holds the update back, from flush_<store>.  Store keys use the
 * order-preserving key layout, values the compact value layout
 * (codegen_store.c, runtime.h).
 */
#include "codegen_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Passes a store update on: when stoat_store_put (or delete) says the
 * update goes downstream now, calls the store's after_ function directly;
 * otherwise the record cache holds it and flush_<store> passes it on later.
 * `op` is the put or delete call; old_v and new_v the key's old and new
 * values (C expressions of type V?).
 */
static void emit_store_write(Gen *g, IrNode *n, const char *op, CVar *key, const char *old_v, const char *new_v)
{
	const Pipeline *after = plan_store_after(g->plan, n->store);
	if (!after) {
		pr(g->out, "(void)%s; /* nothing downstream */\n", op);
		emit_error_check(g);
		return;
	}
	pr(g->out, "bool now%d = %s;\n", n->id, op);
	emit_error_check(g);
	pr(g->out, "if (now%d && !%s(cx, %s, %s, %s))\n", n->id, after->cname, use(key), old_v, new_v);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
}

/*
 * Reads the current value of a store key: declares sk<id> (the key's
 * bytes, copied to the arena so that later encodings cannot move them)
 * and old<id> (the value, of type V?, has false when the key is absent).
 */
static void emit_store_read(Gen *g, IrNode *n, CVar *key)
{
	char *key_fn = need(g, H_STORE_KEY, n->key, FMT_JSON);
	char *read_fn = need(g, H_STORE_VALUE_READ, n->val, FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", key_fn, use(key));
	pr(g->out, "stoat_str sk%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->key_buf));\n", n->id);
	pr(g->out, "stoat_str stored%d;\n", n->id);
	pr(g->out, "%s old%d = { .has = false };\n", type_c(ty_nullable(n->val)), n->id);
	pr(g->out, "old%d.has = stoat_store_get(cx, %d, sk%d, &stored%d);\n", n->id, n->store, n->id, n->id);
	emit_error_check(g);
	pr(g->out, "if (old%d.has && !%s(cx, stored%d, &old%d.v))\n", n->id, read_fn, n->id, n->id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
}

/* Writes new_v (of the store's value type) under sk<id>, and passes the change on. */
static void emit_store_put(Gen *g, IrNode *n, CVar *key, const char *new_v)
{
	char *put_fn = need(g, H_STORE_VALUE_PUT, n->val, FMT_JSON);
	pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s);\n", put_fn, new_v);
	char *op = xasprintf("stoat_store_put(cx, %d, sk%d, stoat_buf_str(&cx->value_buf))", n->store, n->id);
	char *nv = xasprintf("((%s){ .has = true, .v = %s })", type_c(ty_nullable(n->val)), new_v);
	emit_store_write(g, n, op, key, xasprintf("old%d", n->id), nv);
}

/* Deletes the key sk<id> if it has a value, and passes the deletion on. */
static void emit_store_delete(Gen *g, IrNode *n, CVar *key)
{
	pr(g->out, "if (old%d.has) {\n", n->id);
	pr_indent(g->out);
	char *op = xasprintf("stoat_store_delete(cx, %d, sk%d)", n->store, n->id);
	emit_store_write(g, n, op, key, xasprintf("old%d", n->id),
	                 xasprintf("((%s){ .has = false })", type_c(ty_nullable(n->val))));
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/* The index of `in` among the cogroup node's inputs. */
int cogroup_input(IrNode *cg, IrNode *in)
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
void bind_folder(Gen *g, Node *fn, bool is_reduce, CVar *k, CVar *v, CVar *acc)
{
	int np = node_list_len(fn->list);
	for (Node *p = fn->list; p; p = p->next) {
		if (!p->sym)
			continue;
		int slot = np == 3 ? p->slot : p->slot + 1; /* 0 key, then the two others */
		bind(g, p->sym, slot == 0 ? k : (slot == 1) == is_reduce ? acc : v);
	}
}

/*
 * The condition under which a key-value pair of types kt and vt has
 * neither a null key nor a null value ("" when neither can be null); a
 * NULL vt checks the key only.
 */
static char *present_guard(Type *kt, CVar *k, Type *vt, CVar *v)
{
	bool nk = kt->kind == TY_NULLABLE, nv = vt && vt->kind == TY_NULLABLE;
	if (nk && nv)
		return xasprintf("%s.has && %s.has", use(k), use(v));
	if (nk)
		return xasprintf("%s.has", use(k));
	if (nv)
		return xasprintf("%s.has", use(v));
	return xstrdup("");
}

/*
 * Opens `if (<pair present>) {` around what follows when the key or the
 * value (of types kt, vt; a NULL vt: the key only) can be null; returns
 * whether it did, so that the caller closes it with emit_dropped_else.
 */
bool open_present_guard(Gen *g, Type *kt, CVar *k, Type *vt, CVar *v)
{
	char *guard = present_guard(kt, k, vt, v);
	if (!*guard)
		return false;
	pr(g->out, "if (%s) {\n", guard);
	pr_indent(g->out);
	return true;
}

/* Closes the if of open_present_guard: the pair is dropped as Kafka Streams drops it. */
void emit_dropped_else(Gen *g, const char *why)
{
	pr_dedent(g->out);
	pr(g->out, "} else {\n");
	pr_nested(g->out, "stoat_record_dropped(cx, \"%s\");\n", why);
	pr(g->out, "}\n");
}

/*
 * nv (declared) = vv when old (a V? C variable) holds nothing, else fn
 * (a folder of acc, old's value, and vv) applied: reduce's adder, and the
 * merge of a partial aggregate into the key's.
 */
static void emit_first_or_fold(Gen *g, Node *fn, Type *val, CVar *kv, CVar *vv, const char *old, CVar *acc,
			       const char *nv)
{
	pr(g->out, "if (!%s.has) {\n", old);
	pr_nested(g->out, "%s = %s;\n", nv, use(vv));
	pr(g->out, "} else {\n");
	pr_indent(g->out);
	bind_folder(g, fn, true, kv, vv, acc);
	char *x = emit_as(g, fn->a, val);
	pr(g->out, "%s = %s;\n", nv, x);
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * Folds a grouped stream's record (key kv, value vv) into an aggregate:
 * declares nv (of n's value type) from old (a V? C variable: the current
 * aggregate, has false for none) with count's increment, reduce's adder
 * (the first value as it is) or aggregate's (from the initial value).
 */
void emit_stream_fold(Gen *g, IrNode *n, Node *adder, CVar *kv, CVar *vv, const char *old, const char *nv)
{
	CVar *acc = cvar(xasprintf("%s.v", old));
	pr(g->out, "%s %s;\n", type_c(n->val), nv);
	switch (n->agg_kind) {
	case AGG_COUNT: {
		char *t = hoist(g, ty_i64, xasprintf("stoat_add_i64(cx, %s.has ? %s : 0, 1)", old, acc->c), true);
		pr(g->out, "%s = %s;\n", nv, t);
		break;
	}
	case AGG_REDUCE:
		/* The first value of a key is its aggregate as it is. */
		emit_first_or_fold(g, adder, n->val, kv, vv, old, acc, nv);
		break;
	case AGG_AGGREGATE: {
		/* A new key starts from the initial value (evaluated only then). */
		char *cur = xasprintf("acc%d", n->id);
		pr(g->out, "%s %s;\n", type_c(n->val), cur);
		pr(g->out, "if (%s.has) {\n", old);
		pr_nested(g->out, "%s = %s;\n", cur, acc->c);
		pr(g->out, "} else {\n");
		pr_indent(g->out);
		char *init = emit_as(g, n->init, n->val);
		pr(g->out, "%s = %s;\n", cur, init);
		pr_dedent(g->out);
		pr(g->out, "}\n");
		bind_folder(g, adder, false, kv, vv, cvar(cur));
		char *x = emit_as(g, adder->a, n->val);
		pr(g->out, "%s = %s;\n", nv, x);
		break;
	}
	}
}

/*
 * A pre-aggregating repartition sink n (IrNode.preagg: the aggregation it
 * combines for): instead of writing the record, fold it into its key's
 * partial in the task's buffer (runtime stoat_preagg_*), as the
 * aggregation would into its store: count adds 1, reduce and aggregate
 * apply their adder to the partial (decoded from the topic's value
 * format) or start from the value or the initial value.  A null key or
 * value is dropped here, where the aggregation would drop it.
 */
void emit_preagg_sink(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	IrNode *agg = n->preagg;
	static const char *names[] = { "count", "reduce", "aggregate" };
	Store *st = &g->topo->stores[agg->store];
	char *lit = c_string(n->topic, strlen(n->topic));
	op_comment(g, n, xasprintf("pre-aggregate for %s (store %s), written to %s at each commit", names[agg->agg_kind],
	                           st->name, lit));
	bool guarded = open_present_guard(g, n->key, k, n->val, v);
	CVar *kv = n->key->kind == TY_NULLABLE ? cvar_part(k, ".v") : k;
	CVar *vv = n->val->kind == TY_NULLABLE ? cvar_part(v, ".v") : v;
	pr(g->out, "{\n");
	pr_indent(g->out);
	char *enc_key = need(g, H_ENCODE, type_strip(n->key), n->key_format);
	pr(g->out, "stoat_str key_bytes;\n");
	pr(g->out, "if (!%s(cx, &cx->key_buf, &%s, &key_bytes))\n", enc_key, use(kv));
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	if (agg->agg_kind == AGG_COUNT) {
		pr(g->out, "stoat_preagg_count(cx, %d, key_bytes);\n", n->preagg_step);
	} else {
		char *dec = need(g, H_DECODE, agg->val, n->value_format);
		char *enc = need(g, H_ENCODE, agg->val, n->value_format);
		char *old = xasprintf("part%d", n->id), *nv = xasprintf("p%d", n->id);
		pr(g->out, "stoat_str %s_bytes;\n", old);
		pr(g->out, "%s %s = { .has = false };\n", type_c(ty_nullable(agg->val)), old);
		pr(g->out, "%s.has = stoat_preagg_get(cx, %d, key_bytes, &%s_bytes);\n", old, n->preagg_step, old);
		pr(g->out, "if (%s.has && !%s(cx, %s_bytes, \"partial aggregate\", &%s.v))\n", old, dec, old, old);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
		emit_stream_fold(g, agg, agg->lambda, kv, vv, old, nv);
		pr(g->out, "stoat_str value_bytes;\n");
		pr(g->out, "if (!%s(cx, &cx->value_buf, &%s, &value_bytes))\n", enc, nv);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
		pr(g->out, "stoat_preagg_put(cx, %d, key_bytes, value_bytes);\n", n->preagg_step);
	}
	emit_error_check(g);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	if (guarded)
		emit_dropped_else(g, xasprintf("null key or value for table %s", st->name));
}

/*
 * Merges a partial aggregate (vv, of n's value type) read from a
 * pre-aggregated repartition topic into the key's aggregate: declares nv
 * from old (V?) with the partial count added, the reducer or the
 * aggregate's combiner applied (the partial as it is for a new key: it
 * was folded from the first value or the initial value already).
 */
static void emit_stream_merge(Gen *g, IrNode *n, CVar *kv, CVar *vv, const char *old, const char *nv)
{
	CVar *acc = cvar(xasprintf("%s.v", old));
	pr(g->out, "%s %s;\n", type_c(n->val), nv);
	if (n->agg_kind == AGG_COUNT) {
		char *t = hoist(g, ty_i64, xasprintf("stoat_add_i64(cx, %s.has ? %s : 0, %s)", old, acc->c, use(vv)), true);
		pr(g->out, "%s = %s;\n", nv, t);
		return;
	}
	emit_first_or_fold(g, n->agg_kind == AGG_REDUCE ? n->lambda : n->combiner, n->val, kv, vv, old, acc, nv);
}

/*
 * count / reduce / aggregate of a grouped stream: read the key's current
 * value from the store, fold the record in, write it back, and pass the
 * change (old and new value) on to the store's downstream.  `in` is the
 * grouped stream the record comes from (one of several after cogroup) and
 * `adder` its function.  Records with a null key or value are ignored, as
 * in Kafka Streams.
 */
static void emit_stream_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v)
{
	Type *kt = in->key, *vt = in->val;
	bool guarded = open_present_guard(g, kt, k, vt, v);
	CVar *kv = kt->kind == TY_NULLABLE ? cvar_part(k, ".v") : k;
	CVar *vv = vt->kind == TY_NULLABLE ? cvar_part(v, ".v") : v;
	pr(g->out, "{\n");
	pr_indent(g->out);
	emit_store_read(g, n, kv);
	char *old = xasprintf("old%d", n->id), *nv = xasprintf("v%d", n->id);
	if (n->preagg)
		emit_stream_merge(g, n, kv, vv, old, nv);
	else
		emit_stream_fold(g, n, adder, kv, vv, old, nv);
	emit_store_put(g, n, kv, nv);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	if (guarded)
		emit_dropped_else(g, xasprintf("null key or value for table %s", g->topo->stores[n->store].name));
}

/*
 * count / reduce / aggregate of a grouped table, in the pipeline of the
 * internal topic its changes are repartitioned through (g->sub and g->add
 * hold the change's values to subtract and to add, each V?).  As in Kafka
 * Streams: the subtractor takes the old value out of the key's aggregate
 * (when there is one), then the adder puts the new value in (starting
 * from the initial value, or for reduce the value itself, when the key
 * has none), and the result is written, and passed on, once; a change
 * that leaves the key without an aggregate is dropped.  count() adds and
 * subtracts 1.
 */
static void emit_table_aggregate(Gen *g, IrNode *n, CVar *k)
{
	CVar *sub = g->sub, *add = g->add;
	pr(g->out, "{\n");
	pr_indent(g->out);
	emit_store_read(g, n, k);
	char *acc = xasprintf("acc%d", n->id), *has = xasprintf("has%d", n->id);
	CVar *accv = cvar(acc);
	pr(g->out, "%s %s = old%d.v;\n", type_c(n->val), acc, n->id);
	pr(g->out, "bool %s = old%d.has;\n", has, n->id);
	CVar *subv = cvar_part(sub, ".v"), *addv = cvar_part(add, ".v");
	/* Out with the old value. */
	pr(g->out, "if (%s && %s.has) {\n", has, use(sub));
	pr_indent(g->out);
	if (n->agg_kind == AGG_COUNT) {
		char *t = hoist(g, ty_i64, xasprintf("stoat_sub_i64(cx, %s, 1)", acc), true);
		pr(g->out, "%s = %s;\n", acc, t);
	} else {
		bind_folder(g, n->subtractor, n->agg_kind == AGG_REDUCE, k, subv, accv);
		char *x = emit_as(g, n->subtractor->a, n->val);
		pr(g->out, "%s = %s;\n", acc, x);
	}
	pr_dedent(g->out);
	pr(g->out, "}\n");
	/* In with the new one. */
	pr(g->out, "if (%s.has) {\n", use(add));
	pr_indent(g->out);
	switch (n->agg_kind) {
	case AGG_COUNT: {
		char *t = hoist(g, ty_i64, xasprintf("stoat_add_i64(cx, %s ? %s : 0, 1)", has, acc), true);
		pr(g->out, "%s = %s;\n", acc, t);
		break;
	}
	case AGG_REDUCE: {
		pr(g->out, "if (!%s) {\n", has);
		pr_nested(g->out, "%s = %s;\n", acc, use(addv));
		pr(g->out, "} else {\n");
		pr_indent(g->out);
		bind_folder(g, n->lambda, true, k, addv, accv);
		char *x = emit_as(g, n->lambda->a, n->val);
		pr(g->out, "%s = %s;\n", acc, x);
		pr_dedent(g->out);
		pr(g->out, "}\n");
		break;
	}
	case AGG_AGGREGATE: {
		pr(g->out, "if (!%s) {\n", has);
		pr_indent(g->out);
		char *init = emit_as(g, n->init, n->val);
		pr(g->out, "%s = %s;\n", acc, init);
		pr_dedent(g->out);
		pr(g->out, "}\n");
		bind_folder(g, n->lambda, false, k, addv, accv);
		char *x = emit_as(g, n->lambda->a, n->val);
		pr(g->out, "%s = %s;\n", acc, x);
		break;
	}
	}
	pr(g->out, "%s = true;\n", has);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "if (%s) {\n", has);
	pr_indent(g->out);
	emit_store_put(g, n, k, acc);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/* An aggregation node: its comment, then the stream or table flavour. */
void emit_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v)
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
	else if (n->preagg)
		snprintf(what, sizeof what, "%s (store %s): a partial aggregate merged in", names[n->agg_kind], st->name);
	else
		snprintf(what, sizeof what, "%s (store %s)", names[n->agg_kind], st->name);
	op_comment(g, n, what);
	if (n->window && n->window->kind == WIN_SESSION)
		emit_session_aggregate(g, n, in, adder, k, v);
	else if (n->window && n->window->kind == WIN_SLIDING)
		emit_sliding_aggregate(g, n, in, adder, k, v);
	else if (n->window)
		emit_window_aggregate(g, n, in, adder, k, v);
	else if (in->group_table)
		emit_table_aggregate(g, n, k);
	else
		emit_stream_aggregate(g, n, in, adder, k, v);
}

/*
 * to_table(): the stream's latest value per key, kept in the store; a
 * null value deletes its key, a record with a null key is dropped.
 */
void emit_to_table(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	Store *st = &g->topo->stores[n->store];
	IrNode *in = n->parents[0];
	char *what = xasprintf("to_table (store %s): the latest value per key%s", st->name,
	                       in->val->kind == TY_NULLABLE ? "; a null value deletes its key" : "");
	op_comment(g, n, what);
	CVar *kv = k;
	bool guard = in->key->kind == TY_NULLABLE;
	if (guard) {
		pr(g->out, "if (%s.has) {\n", use(k));
		pr_indent(g->out);
		kv = cvar_part(k, ".v");
	}
	pr(g->out, "{\n");
	pr_indent(g->out);
	emit_store_read(g, n, kv);
	if (in->val->kind == TY_NULLABLE) {
		pr(g->out, "if (!%s.has) {\n", use(v));
		pr_indent(g->out);
		emit_store_delete(g, n, kv);
		pr_dedent(g->out);
		pr(g->out, "} else {\n");
		pr_indent(g->out);
		emit_store_put(g, n, kv, xasprintf("%s.v", use(v)));
		pr_dedent(g->out);
		pr(g->out, "}\n");
	} else {
		emit_store_put(g, n, kv, use(v));
	}
	pr_dedent(g->out);
	pr(g->out, "}\n");
	if (guard)
		emit_dropped_else(g, xasprintf("null key for table %s", st->name));
}

/*
 * One side (old or new) of a table's group_by: the value re-keyed by the
 * selector, its key encoded as the internal topic's key (<side>_key<id>)
 * and its value in the store value layout (<side>_value<id>), both copied
 * to the arena, and has_<side><id> set; a pair with a null key or value
 * is dropped.
 */
static void emit_regroup_side(Gen *g, IrNode *n, CVar *k, const char *in, const char *side)
{
	IrNode *sink = n->children[0];
	Node *body = n->lambda->a;
	Type *pt = body->type;
	pr(g->out, "if (%s.has) {\n", in);
	pr_indent(g->out);
	bind_lambda(g, n->lambda, k, cvar(xasprintf("%s.v", in)));
	char *kk = xasprintf("k%d_%s", n->id, side), *vv = xasprintf("v%d_%s", n->id, side);
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
	bool guarded = open_present_guard(g, pt->key, cvar(kk), pt->val, cvar(vv));
	const char *key = pt->key->kind == TY_NULLABLE ? xasprintf("%s.v", kk) : kk;
	const char *val = pt->val->kind == TY_NULLABLE ? xasprintf("%s.v", vv) : vv;
	pr(g->out, "if (!%s(cx, &cx->key_buf, &%s, &%s_key%d))\n", need(g, H_ENCODE, sink->key, sink->key_format), key,
	   side, n->id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "%s_key%d = stoat_arena_strdup(&cx->arena, %s_key%d);\n", side, n->id, side, n->id);
	pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s);\n", need(g, H_STORE_VALUE_PUT, sink->val, FMT_JSON),
	   val);
	pr(g->out, "%s_value%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->value_buf));\n", side, n->id);
	pr(g->out, "has_%s%d = true;\n", side, n->id);
	if (guarded)
		emit_dropped_else(g, "null group key or value");
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * Writes one record of a grouped table's change to the internal topic of
 * sink, under the encoded key: a flags byte (STOAT_CHANGE_OLD: a value to
 * subtract follows, STOAT_CHANGE_NEW: a value to add follows), then those
 * values, in the store value layout (see codegen_serde.c:emit_change_read).
 */
static void emit_change_record(Gen *g, IrNode *sink, int id, bool old, bool new)
{
	const char *side = old ? "old" : "new";
	pr(g->out, "cx->value_buf.len = 0;\n");
	pr(g->out, "stoat_change_put_flags(&cx->value_buf, %s);\n",
	   old && new ? "STOAT_CHANGE_OLD | STOAT_CHANGE_NEW" : old ? "STOAT_CHANGE_OLD" : "STOAT_CHANGE_NEW");
	if (old)
		pr(g->out, "stoat_buf_put(&cx->value_buf, old_value%d.ptr, old_value%d.len);\n", id, id);
	if (new)
		pr(g->out, "stoat_buf_put(&cx->value_buf, new_value%d.ptr, new_value%d.len);\n", id, id);
	pr(g->out, "stoat_emit(cx, %d, ((stoat_str){ NULL, 0 }), %s_key%d, stoat_buf_str(&cx->value_buf));\n",
	   sink->index, side, id);
	emit_error_check(g);
}

/*
 * group_by((k, v) => (key, value)) on a table, as Kafka Streams since 3.5
 * (KIP-904): when the old and the new value, re-keyed, fall in the same
 * group, one record carries both (the aggregation subtracts, adds and
 * publishes once); otherwise the old value goes out to be subtracted from
 * its group, then the new value to be added to its own (two records).
 * Groups are the same when their encoded keys are.
 */
static void emit_regroup(Gen *g, IrNode *n, CVar *k, CVar *old_v, CVar *new_v)
{
	op_comment(g, n, "group_by (table): the old value leaves its group, the new value joins its group");
	IrNode *sink = n->children[0];
	int id = n->id;
	pr(g->out, "stoat_str old_key%d = { NULL, 0 }, old_value%d = { NULL, 0 };\n", id, id);
	pr(g->out, "stoat_str new_key%d = { NULL, 0 }, new_value%d = { NULL, 0 };\n", id, id);
	pr(g->out, "bool has_old%d = false, has_new%d = false;\n", id, id);
	emit_regroup_side(g, n, k, use(old_v), "old");
	emit_regroup_side(g, n, k, use(new_v), "new");
	pr(g->out, "if (has_old%d && has_new%d && stoat_str_eq(old_key%d, new_key%d)) {\n", id, id, id, id);
	pr_indent(g->out);
	emit_change_record(g, sink, id, true, true);
	pr_dedent(g->out);
	pr(g->out, "} else {\n");
	pr_indent(g->out);
	pr(g->out, "if (has_old%d) {\n", id);
	pr_indent(g->out);
	emit_change_record(g, sink, id, true, false);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "if (has_new%d) {\n", id);
	pr_indent(g->out);
	emit_change_record(g, sink, id, false, true);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr_dedent(g->out);
	pr(g->out, "}\n");
}


/*
 * filter / filter_not on a table: each of the change's values is kept if
 * it passes, so a key whose new value fails while its old value passed is
 * deleted downstream (a change with no new value), and a change where
 * neither passes goes no further (as Kafka Streams with old values sent).
 */
static void emit_table_filter(Gen *g, IrNode *n, CVar *k, CVar *old_v, CVar *new_v)
{
	op_comment(g, n, n->kind == IR_FILTER ? "filter (table): a key whose new value fails is deleted downstream"
	                                      : "filter_not (table): a key whose new value holds is deleted downstream");
	const char *ot = type_c(ty_nullable(n->val));
	char *o = xasprintf("old%d", n->id), *nw = xasprintf("new%d", n->id);
	pr(g->out, "%s %s = { .has = false }, %s = { .has = false };\n", ot, o, nw);
	CVar *ins[2] = { old_v, new_v };
	const char *outs[2] = { o, nw };
	for (int i = 0; i < 2; i++) {
		pr(g->out, "if (%s.has) {\n", use(ins[i]));
		pr_indent(g->out);
		bind_lambda(g, n->lambda, k, cvar_part(ins[i], ".v"));
		char *c = emit_cond(g, n->lambda->a, n->kind == IR_FILTER_NOT);
		pr(g->out, "if (%s)\n", c);
		pr_nested(g->out, "%s = %s;\n", outs[i], use(ins[i]));
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
	pr(g->out, "if (%s.has || %s.has) {\n", o, nw);
	pr_indent(g->out);
	emit_change_children(g, n, k, cvar(o), cvar(nw));
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * Does what follows table node n look at the old values of its changes?
 * A filter does (to tell whether a key it drops had passed before), and a
 * table's group_by (to take the old value out of its group); to_stream
 * does not; map_values and an inner table-table join do if what follows
 * them does; a left or outer join does.
 */
bool table_needs_old(IrNode *n)
{
	for (int i = 0; i < n->nchildren; i++) {
		IrNode *c = n->children[i];
		if (c->kind == IR_FILTER || c->kind == IR_FILTER_NOT || c->kind == IR_REGROUP)
			return true;
		if (c->kind == IR_MAP_VALUES && table_needs_old(c))
			return true;
		/* A left or outer join tells a delete from nothing by the old value (and passes old values on);
		 * a foreign-key join reads the left table's old value from its store and ignores the right's. */
		if (c->kind == IR_JOIN && c->join->kind != JOIN_FOREIGN_KEY && (c->join->type != JOIN_INNER || table_needs_old(c)))
			return true;
	}
	return false;
}

/*
 * map_values on a table: the new value mapped, and the old one too when
 * something downstream looks at it (Kafka Streams computes old values
 * only when they are asked for, too).
 */
static void emit_table_map_values(Gen *g, IrNode *n, CVar *k, CVar *old_v, CVar *new_v)
{
	bool old = table_needs_old(n);
	op_comment(g, n, old ? "map_values (table): the old and the new value" : "map_values (table): the new value");
	const char *ot = type_c(ty_nullable(n->val));
	char *o = xasprintf("old%d", n->id), *nw = xasprintf("new%d", n->id);
	if (old)
		pr(g->out, "%s %s = { .has = false }, %s = { .has = false };\n", ot, o, nw);
	else
		pr(g->out, "%s %s = { .has = false };\n", ot, nw);
	CVar *ins[2] = { old_v, new_v };
	const char *outs[2] = { o, nw };
	if (!old)
		o = xasprintf("((%s){ .has = false })", ot);
	for (int i = old ? 0 : 1; i < 2; i++) {
		pr(g->out, "if (%s.has) {\n", use(ins[i]));
		pr_indent(g->out);
		bind_lambda(g, n->lambda, k, cvar_part(ins[i], ".v"));
		char *x = emit_as(g, n->lambda->a, n->val);
		pr(g->out, "%s.v = %s;\n%s.has = true;\n", outs[i], x, outs[i]);
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
	emit_change_children(g, n, k, cvar(o), cvar(nw));
}

/*
 * Emits what a table node's change (key k, old and new values old_v and
 * new_v, of type V?) does in the downstream node n (from: the table node
 * the change comes from, which side of a join it is).
 */
static void emit_change_node(Gen *g, IrNode *n, IrNode *from, CVar *k, CVar *old_v, CVar *new_v)
{
	/*
	 * An out-of-order update of a versioned table (isLatest false): Kafka
	 * Streams' table-table joins drop it (counted), and so do a table's
	 * re-keying for aggregation and a foreign-key join's sides (silently);
	 * to_stream, filter and map_values pass it on.
	 */
	if (g->not_latest && n->kind == IR_JOIN) {
		if (n->join->kind != JOIN_FOREIGN_KEY)
			pr(g->out, "stoat_record_dropped(cx, \"out-of-order update of a versioned table for a table-table join\");\n");
		return;
	}
	if (g->not_latest && n->kind == IR_REGROUP)
		return;
	switch (n->kind) {
	case IR_JOIN:
		emit_table_join(g, n, from, k, old_v, new_v);
		break;
	case IR_TO_STREAM:
		/* The stream of the table's changes: each new value (null: the key was deleted). */
		op_comment(g, n, "to_stream");
		emit_children(g, n, k, n->parents[0]->may_delete ? new_v : cvar_part(new_v, ".v"));
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
void emit_change_children(Gen *g, IrNode *n, CVar *k, CVar *old_v, CVar *new_v)
{
	bool tail = g->tail;
	for (int i = 0; i < n->nchildren; i++) {
		g->tail = tail && i == n->nchildren - 1;
		if (n->nchildren > 1) {
			pr(g->out, "{\n");
			pr_indent(g->out);
		}
		emit_change_node(g, n->children[i], n, k, old_v, new_v);
		if (n->nchildren > 1) {
			pr_dedent(g->out);
			pr(g->out, "}\n");
		}
	}
	g->tail = tail;
}

/*
 * Records the version of key k from the record's time in a versioned
 * table's versions (value NULL, or the bytes of v in the store value
 * layout), as KTableSource does with a versioned store: a version older
 * than observed stream time - history is dropped (counted; Kafka Streams'
 * expired-record sensor), one with a later version is stored and passed
 * on as out of order (emit_not_latest), and the key's latest version goes
 * on as a table's update does.
 */
static void emit_versioned_put(Gen *g, IrNode *src, CVar *k, const char *value)
{
	char *key_fn = need(g, H_STORE_KEY, src->key, FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", key_fn, use(k));
	pr(g->out, "stoat_str vk%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->key_buf));\n", src->id);
	pr(g->out, "int ver%d = stoat_versioned_put(cx, %d, INT64_C(%lld), vk%d, cx->timestamp, %s);\n", src->id,
	   src->versions_store, (long long)src->history_ms, src->id, value);
	emit_error_check(g);
	pr(g->out, "if (ver%d == STOAT_VERSIONED_DROPPED) {\n", src->id);
	pr_nested(g->out, "stoat_record_dropped(cx, \"expired: older than the history of versioned table %s\");\n",
	          g->topo->stores[src->store].name);
	pr_nested(g->out, "continue;\n");
	pr(g->out, "}\n");
}

/*
 * An out-of-order update of a versioned table (a version older than the
 * key's latest, KTableSource's isLatest = false): passed on inline, as
 * the change (the key's latest value, new_v), to what follows the table
 * except table-table joins, group_by and foreign-key joins, which drop it
 * (emit_change_node).  Not through the store (nothing of it is cached).
 */
static void emit_not_latest(Gen *g, IrNode *src, CVar *k, const char *new_v)
{
	if (src->nchildren == 0)
		return;
	pr(g->out, "if (ver%d == STOAT_VERSIONED_OLDER) {\n", src->id);
	pr_indent(g->out);
	emit_store_read(g, src, k);
	const char *vt = type_c(ty_nullable(src->val));
	pr(g->out, "%s nl%d = %s;\n", vt, src->id, new_v);
	pr(g->out, "(void)old%d; /* unused when every child drops the update */\n(void)nl%d;\n", src->id, src->id);
	bool was = g->not_latest;
	g->not_latest = true;
	emit_change_children(g, src, k, cvar(xasprintf("old%d", src->id)), cvar(xasprintf("nl%d", src->id)));
	g->not_latest = was;
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * A versioned table's record (KIP-889): its version goes into the
 * table's versions (emit_versioned_put), then, when it is the key's
 * latest, into the store of latest values and on downstream as for any
 * table (a null value deletes its key).
 */
static void emit_versioned_source(Gen *g, IrNode *src, CVar *k, CVar *v)
{
	Store *st = &g->topo->stores[src->store];
	op_comment(g, src,
	           xasprintf("versioned table %s (history %lld ms): every version per key; the latest goes on", st->name,
	                     (long long)src->history_ms));
	pr(g->out, "if (!m->value.ptr) {\n");
	pr_indent(g->out);
	emit_versioned_put(g, src, k, "NULL");
	pr(g->out, "if (ver%d == STOAT_VERSIONED_LATEST) {\n", src->id);
	pr_indent(g->out);
	emit_store_read(g, src, k);
	emit_store_delete(g, src, k);
	emit_fk_absent_tombstone(g, src, k);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	emit_not_latest(g, src, k, xasprintf("((%s){ .has = false })", type_c(ty_nullable(src->val))));
	pr_dedent(g->out);
	pr(g->out, "} else {\n");
	pr_indent(g->out);
	char *dv = need(g, H_DECODE, src->val, src->value_format);
	char *put_fn = need(g, H_STORE_VALUE_PUT, src->val, FMT_JSON);
	pr(g->out, "%s %s;\n", type_c(src->val), v->c);
	pr(g->out, "if (!%s(cx, m->value, \"value\", &%s))\n", dv, v->c);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s);\n", put_fn, use(v));
	pr(g->out, "stoat_str vb%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->value_buf));\n", src->id);
	emit_versioned_put(g, src, k, xasprintf("&vb%d", src->id));
	pr(g->out, "if (ver%d == STOAT_VERSIONED_LATEST) {\n", src->id);
	pr_indent(g->out);
	emit_store_read(g, src, k);
	emit_store_put(g, src, k, use(v));
	pr_dedent(g->out);
	pr(g->out, "}\n");
	emit_not_latest(g, src, k, xasprintf("((%s){ .has = true, .v = %s })", type_c(ty_nullable(src->val)), use(v)));
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * table NAME: K -> V from "topic": records with a null key are dropped; a
 * null value deletes its key (if it has a value), any other is the key's
 * new value.  The change goes on through after_<table>.
 */
void emit_table_source(Gen *g, IrNode *src, CVar *k, CVar *v)
{
	Store *st = &g->topo->stores[src->store];
	pr(g->out, "/* A table drops records with a null key, as Kafka Streams does. */\n");
	pr(g->out, "if (!m->key.ptr) {\n");
	pr_nested(g->out, "stoat_record_dropped(cx, \"null key for table %s\");\n", st->name);
	pr_nested(g->out, "continue;\n");
	pr(g->out, "}\n");
	char *dk = need(g, H_DECODE, src->key, src->key_format);
	pr(g->out, "%s %s;\n", type_c(src->key), k->c);
	pr(g->out, "if (!%s(cx, m->key, \"key\", &%s))\n", dk, k->c);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	emit_source_time_check(g);
	if (src->versioned) {
		emit_versioned_source(g, src, k, v);
		return;
	}
	op_comment(g, src, xasprintf("table %s: the latest value per key; a null value deletes its key", st->name));
	emit_store_read(g, src, k);
	pr(g->out, "if (!m->value.ptr) {\n");
	pr_indent(g->out);
	emit_store_delete(g, src, k);
	emit_fk_absent_tombstone(g, src, k);
	pr_dedent(g->out);
	pr(g->out, "} else {\n");
	pr_indent(g->out);
	char *dv = need(g, H_DECODE, src->val, src->value_format);
	pr(g->out, "%s %s;\n", type_c(src->val), v->c);
	pr(g->out, "if (!%s(cx, m->value, \"value\", &%s))\n", dv, v->c);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	emit_store_put(g, src, k, use(v));
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * The internal topic of a table's group_by (its key k already decoded):
 * each record is a change of a group (a value to subtract, one to add, or
 * both) for the grouped table's aggregation that follows.
 */
void emit_change_source(Gen *g, IrNode *src, CVar *k)
{
	CVar *sub = cvar(xasprintf("sub%d", src->id)), *add = cvar(xasprintf("add%d", src->id));
	const char *ot = type_c(ty_nullable(src->val));
	pr(g->out, "%s %s, %s;\n", ot, sub->c, add->c);
	pr(g->out, "if (!%s(cx, m->value, &%s, &%s))\n", need(g, H_CHANGE_READ, src->val, FMT_JSON), sub->c, add->c);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	g->sub = sub;
	g->add = add;
	emit_children(g, src, k, add);
	g->sub = g->add = NULL;
}

/*
 * after_<store>: the store's downstream operators, run for each change of
 * a key (its old and new values, has false for none).  The pipeline that
 * wrote the store calls it directly when the store passes the update on at
 * once; flush_<store> calls it for the updates the record cache held back.
 * Returns false when the record failed (cx->error set), like a segment.
 */
void emit_store_after(Gen *g, const Pipeline *pp, Printer *p)
{
	assert(pp->kind == PIPE_STORE_AFTER);
	Store *st = &g->topo->stores[pp->store];
	IrNode *n = st->node;
	Printer body;
	pr_init(&body);
	body.indent = 1;
	reset_function(g, &body, true);
	CVar *params[] = { cvar("key"), cvar("old_v"), cvar("new_v") };
	emit_change_children(g, n, params[0], params[1], params[2]);
	const char *vt = type_c(ty_nullable(n->val));
	pr(p, "/*\n * Store %s (%s:%d): what follows each change of a key.\n", st->name, n->span.file->path,
	   n->span.line);
	if (plan_store_flush(g->plan, pp->store)) {
		pr(p, " * Called by the pipeline when the store passes the update on at once,\n");
		pr(p, " * else by %s.  Returns false when the record failed.\n */\n",
		   plan_store_flush(g->plan, pp->store)->cname);
	} else {
		/* A table-table join: its store holds its sides, and the join passes each joined change on itself. */
		pr(p, " * Called by the join for each joined change it computes.  Returns false\n");
		pr(p, " * when the record failed.\n */\n");
	}
	pr(p, "static bool %s(stoat_ctx *cx, %s key, %s old_v, %s new_v)\n{\n", pp->cname, type_c(n->key), vt, vt);
	pr_indent(p);
	emit_unused_params(p, params, 3);
	if (body.buf)
		pr_raw(p, body.buf, body.len);
	pr(p, "return true;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
	pr_free(&body);
}

/*
 * flush_<store>: the updates the store's record cache held back, each
 * decoded (key, old and new value) and passed to after_<store> as the
 * pipeline would have; a failure goes to the error policy like a
 * pipeline's, but the update is not counted as an input record.  A
 * window store's keys are first split into key and window
 * (stoat_window_key_parse; the store's metadata keys, which it rejects,
 * are skipped), and its values carry the window's largest timestamp,
 * which the update's record timestamp already is.
 */
void emit_store_flush(Gen *g, const Pipeline *pp, Printer *p)
{
	assert(pp->kind == PIPE_STORE_FLUSH);
	Store *st = &g->topo->stores[pp->store];
	IrNode *n = st->node;
	bool win = st->window;
	const char *vt = type_c(ty_nullable(n->val));
	char *key_read = need(g, H_STORE_KEY_READ, win ? n->key->rec->fields[0].type : n->key, FMT_JSON);
	char *val_read = win ? NULL : need(g, H_STORE_VALUE_READ, n->val, FMT_JSON);
	const char *after = plan_store_after(g->plan, pp->store)->cname;
	pr(p, "/* %s %s: the updates its record cache held back, passed on to %s. */\n", win ? "Window store" : "Store",
	   st->name, after);
	pr(p, "static void %s(stoat_ctx *cx, const stoat_store_update *u, size_t n)\n{\n", pp->cname);
	pr_indent(p);
	pr(p, "for (size_t i = 0; i < n; i++) {\n");
	pr_indent(p);
	if (win) {
		pr(p, "stoat_str inner;\n%s key;\n", type_c(n->key));
		pr(p, "if (!stoat_window_key_parse(u[i].record.key, &inner, &key.%s, &key.%s))\n", c_field("start"),
		   c_field("end"));
		pr_nested(p, "continue; /* the store's own metadata */\n");
	}
	pr(p, "cx->msg = &u[i].record;\ncx->timestamp = u[i].record.timestamp;\ncx->error = false;\n");
	if (!win)
		pr(p, "%s key;\n", type_c(n->key));
	pr(p, "%s old_v = { .has = false }, new_v = { .has = false };\n", vt);
	if (win)
		pr(p, "if (!%s(cx, inner, &key.%s))\n", key_read, c_field("key"));
	else
		pr(p, "if (!%s(cx, u[i].record.key, &key))\n", key_read);
	pr_nested(p, "goto fail;\n");
	static const char *sides[] = { "old_v", "new_v" }, *fields[] = { "old_value", "record.value" };
	for (int i = 0; i < 2; i++) {
		pr(p, "if (u[i].%s.ptr) {\n", fields[i]);
		pr_indent(p);
		if (win) {
			pr(p, "int64_t ts;\n%s.has = true;\n", sides[i]);
			emit_window_value_read(g, p, n, xasprintf("u[i].%s", fields[i]), "ts", xasprintf("%s.v", sides[i]),
			                       "goto fail");
		} else {
			pr(p, "%s.has = true;\n", sides[i]);
			pr(p, "if (!%s(cx, u[i].%s, &%s.v))\n", val_read, fields[i], sides[i]);
			pr_nested(p, "goto fail;\n");
		}
		pr_dedent(p);
		pr(p, "}\n");
	}
	pr(p, "if (!%s(cx, key, old_v, new_v))\n", after);
	pr_nested(p, "goto fail;\n");
	emit_batch_loop_end(p, true);
}
