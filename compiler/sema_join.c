/*
 * sema_join.c - joins (docs/language.md, "Joins"): the other side of a
 * join resolved and checked against this one (key types, what may be
 * joined, the joiner's shape), making an IR_JOIN (ir.h: JoinSpec).  Only
 * stream-table joins are checked in full today; the other shapes the
 * grammar takes are refused with a "not yet" error.
 */
#include "sema_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Joins                                                              */
/* ------------------------------------------------------------------ */

/*
 * Checks a stream-table join's joiner: (v, t) => ... or (k, v, t) => ...
 * (Kafka Streams' ValueJoiner and ValueJoinerWithKey), v the stream's
 * value, t the table's (T? for left_join); returns the result type, or
 * NULL.  A joiner cannot give null or a pair: its result is a record's value.
 */
static Type *check_joiner(Sema *sema, Node *fn, const char *opname, Type *k, Type *v, Type *t)
{
	static const int counts[] = { 2, 3 };
	Type *two[] = { v, t }, *three[] = { k, v, t };
	Type *const *types[] = { two, three };
	char shape[160];
	snprintf(shape, sizeof shape, "write the joiner as (v, t) => ... or (k, v, t) => ..., t the table's value%s",
	         t->kind == TY_NULLABLE ? " (null when the key has none)" : "");
	Type *r = check_lambda_typed(sema, fn, 2, counts, types, NULL, opname, shape);
	if (r && (r->kind == TY_NULL || r->kind == TY_PAIR)) {
		error_hint(fn->a->span, "the joiner gives the joined record's value, as map_values does",
		           "%s's joiner cannot produce %s", opname, type_str(r));
		return NULL;
	}
	return r;
}

/*
 * Checks a table-table join's joiner: (a, b) => ... or (k, a, b) => ...,
 * a the left table's value and b the right's (b: R? in left_join, both
 * nullable in outer_join); returns the result type, or NULL.
 */
static Type *check_table_joiner(Sema *sema, Node *fn, const char *opname, Type *k, Type *a, Type *b)
{
	static const int counts[] = { 2, 3 };
	Type *two[] = { a, b }, *three[] = { k, a, b };
	Type *const *types[] = { two, three };
	char shape[200];
	snprintf(shape, sizeof shape,
	         "write the joiner as (a, b) => ... or (k, a, b) => ..., a the left table's value, b the right's%s",
	         a->kind == TY_NULLABLE ? " (either null when its table has none)"
	         : b->kind == TY_NULLABLE ? " (null when the right table has none)" : "");
	Type *r = check_lambda_typed(sema, fn, 2, counts, types, NULL, opname, shape);
	if (r && (r->kind == TY_NULL || r->kind == TY_PAIR)) {
		error_hint(fn->a->span, "the joiner gives the joined row's value, as map_values does",
		           "%s's joiner cannot produce %s", opname, type_str(r));
		return NULL;
	}
	return r;
}

/*
 * join / left_join / outer_join of two tables on their key (Kafka
 * Streams' KTableKTableInnerJoin, LeftJoin, OuterJoin): a change of
 * either side looks the key up on the other, and the result is a table
 * whose changes follow.  Both sides are tables keyed alike (tables are
 * partitioned by their key already: nothing is repartitioned), not
 * windowed, not the same table; either may be a table without a store of
 * its own (filtered, mapped), since the join keeps both sides' latest
 * values, with their timestamps, in a store of its own.
 */
static IrNode *check_table_join(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
{
	JoinType type = op->id == OPER_LEFT_JOIN ? JOIN_LEFT : op->id == OPER_OUTER_JOIN ? JOIN_OUTER : JOIN_INNER;
	for (Node *a = step->list; a; a = a->next) {
		if (a->kind == N_WINDOW_ARG) {
			error_hint(a->span, xasprintf("two tables join on their key: %s(other, (a, b) => ...)", op->name),
			           "'%s' is for windowed stream-stream joins, not for a join of two tables", a->name);
			return NULL;
		}
		if (a->kind == N_ON_ARG) {
			error_hint(a->span, xasprintf("two tables join on their key today: %s(other, (a, b) => ...)", op->name),
			           "a key selector ('on') of a table is for foreign-key joins, which are not available yet");
			return NULL;
		}
	}
	if (nargs != 2) {
		error_hint(step->span, xasprintf("write %s(other_table, (a, b) => ...)", op->name),
		           "%s takes 2 arguments, got %d", op->name, nargs);
		return NULL;
	}
	Node *other_e = step->list, *fn = other_e->next;
	IrNode *other = check_stream(sema, other_e);
	if (!other)
		return NULL;
	if (!other->table || other->grouped) {
		if (input_of(other) == ON_STREAM)
			error_hint(other_e->span,
			           "read it as a table (s |> to_table()), or join the stream with the table: "
			           "s |> join(t, (v, x) => ...)",
			           "%s of a table needs another table, and this is a stream", op->name);
		else
			error_hint(other_e->span, "aggregate it first: count(), reduce(...) or aggregate(...)",
			           "%s of a table needs another table, and this is a %s", op->name, node_what(other));
		return NULL;
	}
	if (parent->window || other->window) {
		error_hint(parent->window ? step->name_span : other_e->span,
		           "join tables with one value per key: a windowed table is keyed by its windows",
		           "cannot %s a windowed table", op->name);
		return NULL;
	}
	if (other == parent) {
		error_hint(other_e->span, "join it with a copy: t |> to_stream() |> to_table()",
		           "a table cannot be joined with itself");
		return NULL;
	}
	Type *lk = parent->key, *rk = other->key;
	if (lk != rk && lk->kind != TY_ERROR && rk->kind != TY_ERROR) {
		error_hint(step->name_span,
		           xasprintf("re-key one of them first: t |> to_stream() |> select_key((k, v) => ...) |> to_table(), "
		                     "which repartitions it"),
		           "%s needs equal key types: the left table is keyed by %s, the right table by %s", op->name,
		           type_str(lk), type_str(rk));
		note_at(other_e->span, "the right table");
		return NULL;
	}
	Type *a = type == JOIN_OUTER ? ty_nullable(parent->val) : parent->val;
	Type *b = type == JOIN_INNER ? other->val : ty_nullable(other->val);
	Type *r = check_table_joiner(sema, fn, op->name, lk, a, b);
	if (!r)
		return NULL;
	IrNode *n = ir_new(sema->topo, IR_JOIN, step->span);
	ir_link(parent, n);
	ir_link(other, n);
	n->key = lk;
	n->val = r;
	n->table = true;
	n->may_delete = true; /* a delete of either side can delete the joined row */
	add_store(sema, n);
	n->join = xcalloc(1, sizeof *n->join);
	*n->join = (JoinSpec){
		.kind = JOIN_TABLE_TABLE, .type = type, .joiner = fn, .other_span = other_e->span,
	};
	return n;
}

/*
 * join(table, joiner) / left_join(table, joiner) on a stream: each record
 * of the stream looks its key up in the table's store as it is when the
 * record is processed (Kafka Streams' KStreamKTableJoin); a table update
 * produces nothing.  The key types must be equal; the table must keep a
 * store of its own (a table from a topic, an aggregation, to_table) and
 * not be windowed; the stream is repartitioned first if its key changed.
 * The other join kinds say they are not available yet.
 */
IrNode *check_join(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
{
	if (input_of(parent) == ON_TABLE)
		return check_table_join(sema, parent, step, op, nargs);
	if (op->id == OPER_OUTER_JOIN) {
		error_hint(step->name_span,
		           "a stream joins a table with join(t, (v, x) => ...) or left_join(t, (v, x) => ...); "
		           "outer_join is for two tables today",
		           "outer_join of a stream is a windowed stream-stream join, which is not available yet");
		return NULL;
	}
	bool left = op->id == OPER_LEFT_JOIN;
	/* The shapes of the join kinds to come (docs/language.md, Joins): said, not yet checked. */
	for (Node *a = step->list; a; a = a->next) {
		if (a->kind == N_WINDOW_ARG) {
			error_hint(a->span, "a stream joins a table with join(t, (v, x) => ...): the table's current value",
			           "'%s' is for windowed stream-stream joins (and a versioned table's grace), which are not "
			           "available yet", a->name);
			return NULL;
		}
		if (a->kind == N_ON_ARG) {
			error_hint(a->span, "a stream joins a table on its own key today: join(t, (v, x) => ...)",
			           "a key selector ('on') is for global-table and foreign-key joins, which are not available yet");
			return NULL;
		}
	}
	if (nargs != 2) {
		error_hint(step->span, xasprintf("write %s(table, (v, t) => ...)", op->name), "%s takes 2 arguments, got %d",
		           op->name, nargs);
		return NULL;
	}
	Node *other_e = step->list, *fn = other_e->next;
	IrNode *other = check_stream(sema, other_e);
	if (!other)
		return NULL;
	if (!other->table || other->grouped) {
		if (input_of(other) == ON_STREAM)
			error_hint(other_e->span,
			           "read it as a table to look its records up (s |> to_table(), or table t: K -> V from ...); "
			           "windowed stream-stream joins are not available yet",
			           "%s of two streams is not available yet: this version of stoat joins a stream with a table",
			           op->name);
		else
			error_hint(other_e->span, "aggregate it first: count(), reduce(...) or aggregate(...)",
			           "%s needs a table to look records up in, and this is a %s", op->name, node_what(other));
		return NULL;
	}
	if (other->window) {
		error_hint(other_e->span, "join a table with one value per key: a windowed table is keyed by its windows",
		           "cannot %s a windowed table", op->name);
		return NULL;
	}
	if (!other->has_store || other->kind == IR_JOIN) {
		/* A table-table join's store holds both of its sides, not the joined rows. */
		error_hint(other_e->span,
		           "give it a store: t |> to_stream() |> to_table() (filtered, mapped and joined tables keep none yet)",
		           "%s needs a table with a store of its own to look records up in", op->name);
		return NULL;
	}
	Type *sk = type_strip(parent->key), *tk = other->key;
	if (sk != tk && sk->kind != TY_ERROR && tk->kind != TY_ERROR) {
		error_hint(step->name_span,
		           xasprintf("re-key the stream to %s first: select_key((k, v) => ...), which repartitions it",
		                     type_str(tk)),
		           "%s needs equal key types: the stream is keyed by %s, the table by %s", op->name, type_str(sk),
		           type_str(tk));
		note_at(other_e->span, "the table");
		return NULL;
	}
	/* Null values never join; a null key joins nothing but, in a left join, still comes out (KIP-962). */
	Type *jk = left ? parent->key : sk;
	Type *jt = left ? ty_nullable(other->val) : other->val;
	Type *r = check_joiner(sema, fn, op->name, jk, type_strip(parent->val), jt);
	if (!r)
		return NULL;
	IrNode *n = ir_new(sema->topo, IR_JOIN, step->span);
	ir_link(parent, n);
	if (parent->key_changed)
		need_repartition(sema, n);
	n->key = jk;
	n->val = r;
	n->join = xcalloc(1, sizeof *n->join);
	*n->join = (JoinSpec){
		.kind = JOIN_STREAM_TABLE, .type = left ? JOIN_LEFT : JOIN_INNER, .table = other, .joiner = fn,
		.other_span = other_e->span,
	};
	other->lookups = xrealloc(other->lookups, sizeof *other->lookups * (size_t)(other->nlookups + 1));
	other->lookups[other->nlookups++] = n;
	return n;
}
