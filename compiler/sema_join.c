/*
 * sema_join.c - joins (docs/language.md, "Joins"): the other side of a
 * join resolved and checked against this one (key types, what may be
 * joined, the joiner's shape), making an IR_JOIN (ir.h: JoinSpec).  Only
 * stream-table, stream-global-table, stream-stream, table-table and
 * foreign-key joins are checked in full; the other shapes the grammar
 * takes are refused with a "not yet" error.
 */
#include "sema_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Joins                                                              */
/* ------------------------------------------------------------------ */

/*
 * Checks a joiner of any join kind: (a, b) => ... or (k, a, b) => ...
 * (Kafka Streams' ValueJoiner and ValueJoinerWithKey), shape the hint for a
 * wrong one; returns the result type, or NULL.  A joiner cannot give null
 * or a pair: its result is the joined record's (or row's: what) value.
 */
static Type *check_joiner_shape(Sema *sema, Node *fn, const char *opname, Type *k, Type *a, Type *b,
                                const char *shape, const char *what)
{
	static const int counts[] = { 2, 3 };
	Type *two[] = { a, b }, *three[] = { k, a, b };
	Type *const *types[] = { two, three };
	Type *r = check_lambda_typed(sema, fn, 2, counts, types, NULL, opname, shape);
	if (r && (r->kind == TY_NULL || r->kind == TY_PAIR)) {
		error_hint(fn->a->span, xasprintf("the joiner gives the joined %s's value, as map_values does", what),
		           "%s's joiner cannot produce %s", opname, type_str(r));
		return NULL;
	}
	return r;
}

/* A stream-table join's joiner: v the stream's value, t the table's (T? for left_join). */
static Type *check_joiner(Sema *sema, Node *fn, const char *opname, Type *k, Type *v, Type *t)
{
	char shape[160];
	snprintf(shape, sizeof shape, "write the joiner as (v, t) => ... or (k, v, t) => ..., t the table's value%s",
	         t->kind == TY_NULLABLE ? " (null when the key has none)" : "");
	return check_joiner_shape(sema, fn, opname, k, v, t, shape, "record");
}

/*
 * A table-table join's joiner: a the left table's value and b the right's
 * (b: R? in left_join, both nullable in outer_join).
 */
static Type *check_table_joiner(Sema *sema, Node *fn, const char *opname, Type *k, Type *a, Type *b)
{
	char shape[200];
	snprintf(shape, sizeof shape,
	         "write the joiner as (a, b) => ... or (k, a, b) => ..., a the left table's value, b the right's%s",
	         a->kind == TY_NULLABLE ? " (either null when its table has none)"
	         : b->kind == TY_NULLABLE ? " (null when the right table has none)" : "");
	return check_joiner_shape(sema, fn, opname, k, a, b, shape, "row");
}

/* A stream-stream join's joiner: v the left stream's value, w the right's. */
static Type *check_stream_joiner(Sema *sema, Node *fn, const char *opname, Type *k, Type *v, Type *w)
{
	return check_joiner_shape(sema, fn, opname, k, v, w,
	                          "write the joiner as (v, w) => ... or (k, v, w) => ..., v this stream's value and w "
	                          "the other's",
	                          "record");
}

/*
 * Refuses (true, after reporting at `at`) a table that comes from a
 * foreign-key join's result without a store in between (through
 * map_values and filters): its changes carry no old value, which a
 * table's group_by and a left or outer table-table join need.
 */
bool fk_result_needs_store(const IrNode *t, Span at, const char *opname)
{
	while (t && !t->has_store && (t->kind == IR_MAP_VALUES || t->kind == IR_FILTER || t->kind == IR_FILTER_NOT))
		t = t->parents[0];
	if (!t || t->kind != IR_JOIN || !t->join || t->join->kind != JOIN_FOREIGN_KEY)
		return false;
	error_hint(at, "give it a store first: t |> to_stream() |> to_table()",
	           "%s cannot follow a foreign-key join's result directly: its changes carry no old values", opname);
	return true;
}

/*
 * An anonymous record type of the given fields (all at span): the values
 * of a foreign-key join's internal topics.
 */
static Type *fk_record(Span span, int n, const char *const *names, Type *const *types)
{
	Field *fields = xcalloc((size_t)n, sizeof *fields);
	for (int i = 0; i < n; i++)
		fields[i] = (Field){ .name = xstrdup(names[i]), .type = types[i], .span = span };
	return anon_record(fields, n, span);
}

/*
 * What every join of two tables (same-key and foreign-key) refuses: a
 * windowed side (keyed by its windows, not one value per key) and a table
 * joined with itself.  Says why and returns false.
 */
static bool check_table_sides(const IrNode *parent, const IrNode *other, const Node *step, const Node *other_e,
                              const OpInfo *op)
{
	if (parent->window || other->window) {
		error_hint(parent->window ? step->name_span : other_e->span,
		           "join tables with one value per key: a windowed table is keyed by its windows",
		           "cannot %s a windowed table", op->name);
		return false;
	}
	if (other == parent) {
		error_hint(other_e->span, "join it with a copy: t |> to_stream() |> to_table()",
		           "a table cannot be joined with itself");
		return false;
	}
	return true;
}

/*
 * join(right, on v => fk, (a, b) => ...) / left_join of two tables on a
 * foreign key (Kafka Streams' KTable.join(KTable, Function, ValueJoiner),
 * KIP-213; docs/language.md "Foreign-key joins"): the extractor takes the
 * left table's value (or key and value) and gives a key of the right table
 * (K or K?, a null one joins nothing); the joiner takes the left value and
 * the right one (R? in left_join).  The left table must keep a store of
 * its own (the responses look its current value up); the right table may
 * be any table.  Builds the four nodes of ir.h's JoinSpec.fk: the left
 * change's subscription instructions (keyed by the foreign key, through
 * the subscription-registration topic), the right task's receiver and the
 * right table's answers, merged into the subscription-response topic, and
 * the left task's resolver that makes the result table.
 */
static IrNode *check_fk_join(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs, Node *on)
{
	if (op->id == OPER_OUTER_JOIN) {
		error_hint(step->name_span, "write join or left_join (Kafka Streams has no outer foreign-key join)",
		           "outer_join has no foreign-key form");
		return NULL;
	}
	bool left = op->id == OPER_LEFT_JOIN;
	if (nargs != 3 || step->list == on || on->next == NULL || on->next->next) {
		error_hint(step->span, xasprintf("write %s(other_table, on v => v.fk, (a, b) => ...)", op->name),
		           "a foreign-key join takes the other table, the key selector and a joiner");
		return NULL;
	}
	Node *other_e = step->list, *fn = on->next;
	IrNode *other = check_stream(sema, other_e);
	if (!other)
		return NULL;
	if (!other->table || other->grouped) {
		error_hint(other_e->span, "read it as a table (s |> to_table()), or give it a table",
		           "a foreign-key join joins two tables, and this is %s",
		           input_of(other) == ON_STREAM ? "a stream" : node_what(other));
		return NULL;
	}
	if (!check_table_sides(parent, other, step, other_e, op))
		return NULL;
	if (!parent->has_store || parent->kind == IR_JOIN) {
		error_hint(step->name_span,
		           "give it a store: t |> to_stream() |> to_table() (filtered, mapped and joined tables keep none yet)",
		           "a foreign-key join needs a left table with a store of its own (the responses look its value up)");
		return NULL;
	}
	Type *lk = parent->key, *lv = parent->val, *rk = other->key, *rv = other->val;
	Type *fk = check_lambda(sema, on->a, lk, lv, rk, "a foreign-key extractor");
	if (!fk)
		return NULL;
	if (fk->kind != TY_ERROR && rk->kind != TY_ERROR && type_strip(fk) != rk && fk->kind != TY_NULL) {
		error_hint(on->a->a ? on->a->a->span : on->span,
		           xasprintf("the extractor gives the right table's key, %s (or %s? when there is none)",
		                     type_str(rk), type_str(rk)),
		           "the foreign-key extractor gives %s, but the right table is keyed by %s", type_str(fk),
		           type_str(rk));
		note_at(other_e->span, "the right table");
		return NULL;
	}
	Type *r = check_table_joiner(sema, fn, op->name, lk, lv, left ? ty_nullable(rv) : rv);
	if (!r)
		return NULL;
	/* The internal topics' values: a subscription instruction and a response. */
	Type *hash = ty_nullable(ty_i64);
	Type *sub = fk_record(step->span, 3, (const char *const[]){ "op", "h", "pk" }, (Type *const[]){ ty_i32, hash, lk });
	Type *resp = fk_record(step->span, 2, (const char *const[]){ "h", "v" }, (Type *const[]){ hash, ty_nullable(rv) });
	JoinSpec spec = {
		.kind = JOIN_FOREIGN_KEY, .type = left ? JOIN_LEFT : JOIN_INNER, .joiner = fn, .other_span = other_e->span,
		.extractor = on->a, .store = -1, .outer_store = -1,
	};
	IrNode *nodes[4];
	for (int i = 0; i < 4; i++) {
		nodes[i] = ir_new(sema->topo, IR_JOIN, step->span);
		nodes[i]->binding = sema->binding_name;
	}
	for (int i = 0; i < 4; i++) {
		nodes[i]->join = xcalloc(1, sizeof *nodes[i]->join);
		*nodes[i]->join = spec;
		nodes[i]->join->side = i;
		memcpy(nodes[i]->join->fk, nodes, sizeof nodes);
	}
	IrNode *send = nodes[FK_SEND], *recv = nodes[FK_RECV], *foreign = nodes[FK_FOREIGN], *resolve = nodes[FK_RESOLVE];
	ir_link(parent, send);
	send->key = left ? ty_nullable(rk) : rk; /* a left join subscribes a null key too (and is answered null) */
	send->val = sub;
	ir_link(send, recv);
	need_repartition(sema, recv); /* the subscription-registration topic, partitioned like the right table */
	recv->key = lk;
	recv->val = resp;
	recv->key_changed = true;
	ir_link(other, foreign);
	foreign->key = lk;
	foreign->val = resp;
	foreign->key_changed = true;
	IrNode *m = ir_new(sema->topo, IR_MERGE, step->span);
	ir_link(recv, m);
	ir_link(foreign, m);
	m->key = lk;
	m->val = resp;
	m->key_changed = true;
	ir_link(m, resolve);
	need_repartition(sema, resolve); /* the subscription-response topic, partitioned like the left table */
	resolve->key = lk;
	resolve->val = r;
	resolve->table = true;
	resolve->may_delete = true;
	resolve->join->table = parent;
	parent->lookups = xrealloc(parent->lookups, sizeof *parent->lookups * (size_t)(parent->nlookups + 1));
	parent->lookups[parent->nlookups++] = resolve;
	return resolve;
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
		if (a->kind == N_ON_ARG)
			return check_fk_join(sema, parent, step, op, nargs, a);
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
	if (other->global) {
		error_hint(other_e->span, "join a stream with it: t |> to_stream() |> join(g, on (k, v) => key, ...)",
		           "a global table is joined from a stream only, not from a table (as Kafka Streams' GlobalKTable)");
		return NULL;
	}
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
	if (!check_table_sides(parent, other, step, other_e, op))
		return NULL;
	if (fk_result_needs_store(parent, step->name_span, op->name) ||
	    fk_result_needs_store(other, other_e->span, op->name))
		return NULL;
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
 * The join window of a stream-stream join from its words (Kafka Streams'
 * JoinWindows): within D sets before and after, before D / after D one
 * each (over within), grace D is required (Kafka Streams 3.0+ has no
 * default).  Durations cannot be negative in the language, so one of
 * before/after may be 0 but neither below (Kafka Streams allows one
 * negative bound; docs/language.md).  Returns false after reporting.
 */
static bool join_window(Node *step, const char *opname, JoinSpec *j)
{
	Node *within = NULL, *before = NULL, *after = NULL, *grace = NULL;
	bool ok = true;
	for (Node *a = step->list->next; a && a->next; a = a->next) {
		if (a->kind == N_ON_ARG) {
			error_hint(a->span, "re-key one of them with select_key first",
			           "two streams join on their keys: a key selector ('on') is for global-table and foreign-key "
			           "joins");
			return false;
		}
		/* within -5m parses as the expression within - 5m. */
		if (a->kind == N_BINARY && a->op == OP_SUB && a->a->kind == N_IDENT && a->b->kind == N_DURATION &&
		    (strcmp(a->a->name, "within") == 0 || strcmp(a->a->name, "before") == 0 ||
		     strcmp(a->a->name, "after") == 0 || strcmp(a->a->name, "grace") == 0)) {
			error_hint(a->span,
			           "write a smaller window on that side, down to 0s (Kafka Streams allows one negative "
			           "bound; stoat does not)",
			           "a join window's '%s' cannot be negative", a->a->name);
			return false;
		}
		if (a->kind != N_WINDOW_ARG) {
			error_hint(a->span, xasprintf("write %s(other, within 5m, grace 1m, (v, w) => ...)", opname),
			           "the joiner comes last: %s takes the other stream, its window and a joiner", opname);
			return false;
		}
		Node **seen = NULL;
		if (a->a && !a->b && !a->c) {
			if (strcmp(a->name, "within") == 0)
				seen = &within;
			else if (strcmp(a->name, "before") == 0)
				seen = &before;
			else if (strcmp(a->name, "after") == 0)
				seen = &after;
			else if (strcmp(a->name, "grace") == 0)
				seen = &grace;
		}
		if (!seen) {
			error_hint(a->span, "a join window takes within D, before D, after D and grace D",
			           "unknown join window option '%s'", a->name);
			ok = false;
			continue;
		}
		if (*seen) {
			error_hint(a->span, "write each option once", "'%s' given twice", a->name);
			ok = false;
			continue;
		}
		if (a->a->ival > MAX_WINDOW_DURATION) {
			error_hint(a->a->span, "shorten it", "a join window duration must be at most 100 years (36500d)");
			ok = false;
			continue;
		}
		*seen = a;
	}
	if (!ok)
		return false;
	if (!within && !(before && after)) {
		error_hint(step->name_span,
		           xasprintf("write %s(other, within 5m, grace 1m, (v, w) => ...), or before D and after D",
		                     opname),
		           "a join of two streams needs a join window: %s", before ? "'after' is missing" : after ?
		           "'before' is missing" : "how far apart the two records' times may be");
		return false;
	}
	if (!grace) {
		error_hint(step->name_span, "add grace 0s to keep no late records, or grace D to wait for them",
		           "a join window needs a grace period");
		return false;
	}
	j->before = before ? before->a->ival : within->a->ival;
	j->after = after ? after->a->ival : within->a->ival;
	j->grace = grace->a->ival;
	return true;
}

/*
 * join(other, within D, grace G, joiner) of two streams (Kafka Streams'
 * KStream.join(KStream, ValueJoiner, JoinWindows)): two IR_JOIN nodes,
 * one per side, each a child of its side and a parent of one IR_MERGE
 * that carries the results on (ir.h: JoinSpec).  Keys must have equal
 * types; a side whose key changed is repartitioned first.  left_join
 * keeps the left side's unmatched records, outer_join both sides'
 * (KStream.leftJoin / outerJoin), in a third window store.
 */
static IrNode *check_stream_stream_join(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, IrNode *other)
{
	Node *other_e = step->list, *fn = other_e->next;
	while (fn && fn->next)
		fn = fn->next;
	JoinType type = op->id == OPER_OUTER_JOIN ? JOIN_OUTER : op->id == OPER_LEFT_JOIN ? JOIN_LEFT : JOIN_INNER;
	if (!fn || fn->kind != N_LAMBDA) {
		error_hint(step->span, xasprintf("write %s(other, within 5m, grace 1m, (v, w) => ...)", op->name),
		           "%s of two streams needs a joiner as its last argument", op->name);
		return NULL;
	}
	JoinSpec spec = { .kind = JOIN_STREAM_STREAM, .type = type, .joiner = fn, .other_span = other_e->span };
	if (!join_window(step, op->name, &spec))
		return NULL;
	Type *lk = type_strip(parent->key), *rk = type_strip(other->key);
	if (lk != rk && lk->kind != TY_ERROR && rk->kind != TY_ERROR) {
		error_hint(step->name_span,
		           xasprintf("re-key one of them first: select_key((k, v) => ...), which repartitions it"),
		           "%s needs equal key types: this stream is keyed by %s, the other by %s", op->name, type_str(lk),
		           type_str(rk));
		note_at(other_e->span, "the other stream");
		return NULL;
	}
	/*
	 * A side that keeps its unmatched records (the left of a left join,
	 * both of an outer join) passes on a null-key record at once (KIP-962),
	 * so the result's key is K? when that side's may be null; the other
	 * side's value is W? in the joiner (V? too in an outer join).
	 */
	Type *jk = lk;
	if ((type != JOIN_INNER && parent->key->kind == TY_NULLABLE) ||
	    (type == JOIN_OUTER && other->key->kind == TY_NULLABLE))
		jk = ty_nullable(lk);
	Type *jv = type_strip(parent->val), *jw = type_strip(other->val);
	if (type != JOIN_INNER)
		jw = ty_nullable(jw);
	if (type == JOIN_OUTER)
		jv = ty_nullable(jv);
	Type *r = check_stream_joiner(sema, fn, op->name, jk, jv, jw);
	if (!r)
		return NULL;
	IrNode *sides[2];
	IrNode *ins[2] = { parent, other };
	for (int i = 0; i < 2; i++) {
		IrNode *n = ir_new(sema->topo, IR_JOIN, step->span);
		ir_link(ins[i], n);
		if (ins[i]->key_changed)
			need_repartition(sema, n);
		n->binding = sema->binding_name; /* names the window stores */
		n->key = jk;
		n->val = r;
		n->join = xcalloc(1, sizeof *n->join);
		*n->join = spec;
		n->join->side = i;
		n->join->store = n->join->outer_store = -1;
		sides[i] = n;
	}
	sides[0]->join->peer = sides[1];
	sides[1]->join->peer = sides[0];
	IrNode *m = ir_new(sema->topo, IR_MERGE, step->span);
	ir_link(sides[0], m);
	ir_link(sides[1], m);
	m->key = jk;
	m->val = r;
	return m;
}

/*
 * join(g, on (k, v) => key, joiner) / left_join(...) of a stream with a
 * global table (Kafka Streams' KStream.join(GlobalKTable, KeyValueMapper,
 * ValueJoiner)): the selector gives the global table's key to look up
 * (its type the table's key, or that type made nullable); the joiner is
 * (v, x) or (k, v, x), x: T? for left_join.  The result keeps the
 * stream's key and timestamp.  A global table holds every partition, so
 * the stream is neither repartitioned nor co-partitioned with it.
 */
static IrNode *check_global_join(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, IrNode *g)
{
	bool left = op->id == OPER_LEFT_JOIN;
	Node *other_e = step->list, *selector = NULL, *fn = NULL;
	const char *usage = xasprintf("write %s(%s, on (k, v) => key, (v, x) => ...)", op->name, g->name);
	if (op->id == OPER_OUTER_JOIN) {
		error_hint(step->name_span, "a stream joins a global table with join or left_join (Kafka Streams has no "
		                            "outer stream-global-table join)",
		           "outer_join is for two streams or two tables, not a stream and a global table");
		return NULL;
	}
	for (Node *a = other_e->next; a; a = a->next) {
		if (a->kind == N_WINDOW_ARG) {
			error_hint(a->span, usage, "'%s' is for windowed stream-stream joins, not for a join with a global table",
			           a->name);
			return NULL;
		}
		if (a->kind == N_ON_ARG) {
			if (selector) {
				error_hint(a->span, usage, "a join with a global table takes one key selector");
				return NULL;
			}
			selector = a;
		} else if (fn) {
			error_hint(a->span, usage, "%s with global table '%s' takes the table, a key selector and a joiner",
			           op->name, g->name);
			return NULL;
		} else {
			fn = a;
		}
	}
	if (!selector) {
		error_hint(step->name_span, usage,
		           "a join with global table '%s' needs a key selector ('on'): a global table is not "
		           "partitioned like the stream, so the stream's key is not its key",
		           g->name);
		return NULL;
	}
	if (!fn) {
		error_hint(step->span, usage, "%s with global table '%s' needs a joiner as its last argument", op->name,
		           g->name);
		return NULL;
	}
	/* A null value never joins (dropped before the selector runs): the selector sees V. */
	Type *sv = type_strip(parent->val);
	Type *kt = check_lambda(sema, selector->a, parent->key, sv, g->key, "a key selector");
	if (!kt)
		return NULL;
	if (kt->kind != TY_ERROR && g->key->kind != TY_ERROR && type_strip(kt) != g->key && kt->kind != TY_NULL) {
		error_hint(selector->a->span, xasprintf("make the selector give the table's key type %s", type_str(g->key)),
		           "the key selector gives %s, but global table '%s' is keyed by %s", type_str(kt), g->name,
		           type_str(g->key));
		note_at(other_e->span, "the global table");
		return NULL;
	}
	Type *jt = left ? ty_nullable(g->val) : g->val;
	Type *r = check_joiner(sema, fn, op->name, parent->key, sv, jt);
	if (!r)
		return NULL;
	IrNode *n = ir_new(sema->topo, IR_JOIN, step->span);
	ir_link(parent, n);
	n->key = parent->key; /* the stream's, null included: the selector, not the key, is looked up */
	n->val = r;
	n->join = xcalloc(1, sizeof *n->join);
	*n->join = (JoinSpec){
		.kind = JOIN_STREAM_GLOBAL, .type = left ? JOIN_LEFT : JOIN_INNER, .table = g, .joiner = fn,
		.selector = selector->a, .other_span = other_e->span,
	};
	return n;
}

/*
 * grace D in a stream-table join (KIP-923, Joined.withGracePeriod): Kafka
 * Streams refuses it unless the table is versioned (its as-of lookups are
 * what a stream record held back for D still needs), nor a grace longer
 * than the table's history.
 */
static bool check_table_grace(Node *a, IrNode *table, const OpInfo *op)
{
	if (!table->versioned) {
		error_hint(a->span,
		           "declare the table versioned: table t versioned(history = 1h): K -> V from \"topic\"; "
		           "(its history at least the grace)",
		           "%s with a grace period needs a versioned table, and this one is not", op->name);
		return false;
	}
	if (!a->a || a->c) {
		error_hint(a->span, "write grace D, e.g. grace 1m", "a stream-table join's grace takes one duration");
		return false;
	}
	if (a->a->ival > table->history_ms) {
		/* Kafka Streams: "History retention must be at least grace period." */
		error_hint(a->span, "shorten the grace, or lengthen the table's history",
		           "the grace (%lld ms) is longer than the history of versioned table '%s' (%lld ms)",
		           (long long)a->a->ival, table->name ? table->name : "?", (long long)table->history_ms);
		return false;
	}
	return true;
}

/*
 * join(table, joiner) / left_join(table, joiner) on a stream: each record
 * of the stream looks its key up in the table's store as it is when the
 * record is processed (Kafka Streams' KStreamKTableJoin); a table update
 * produces nothing.  The key types must be equal; the table must keep a
 * store of its own (a table from a topic, an aggregation, to_table) and
 * not be windowed; the stream is repartitioned first if its key changed.
 * A stream on the other side goes to check_stream_stream_join, a global
 * table to check_global_join, a table on this side to check_table_join.
 */
IrNode *check_join(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
{
	if (input_of(parent) == ON_TABLE)
		return check_table_join(sema, parent, step, op, nargs);
	bool left = op->id == OPER_LEFT_JOIN;
	/* Two streams: a windowed stream-stream join. */
	IrNode *other = NULL;
	if (step->list && step->list->kind != N_WINDOW_ARG && step->list->kind != N_ON_ARG) {
		other = check_stream(sema, step->list);
		if (!other)
			return NULL;
		if (!other->table && !other->grouped && input_of(other) == ON_STREAM)
			return check_stream_stream_join(sema, parent, step, op, other);
		if (other->global)
			return check_global_join(sema, parent, step, op, other);
	}
	/* A stream-table join: its only option is a versioned table's grace. */
	Node *grace = NULL;
	for (Node *a = step->list; a; a = a->next) {
		if (a->kind == N_WINDOW_ARG && other && other->table && !other->grouped && strcmp(a->name, "grace") == 0) {
			if (grace) {
				error_hint(a->span, "keep one grace D", "the join's grace is given twice");
				return NULL;
			}
			if (!check_table_grace(a, other, op))
				return NULL;
			grace = a;
			continue;
		}
		if (a->kind == N_WINDOW_ARG) {
			error_hint(a->span, "a stream joins a table with join(t, (v, x) => ...): the table's value for the key "
			                    "(add grace D to wait for a versioned table's late updates)",
			           "'%s' is for joins of two streams: a stream-table join takes only a versioned table's grace",
			           a->name);
			return NULL;
		}
		if (a->kind == N_ON_ARG) {
			error_hint(a->span, "a stream joins a table on its own key: join(t, (v, x) => ...); declare the "
			                    "table 'global table' to join it on a selected key",
			           "a key selector ('on') is for global-table joins, and this is not a global table");
			return NULL;
		}
	}
	if (nargs != (grace ? 3 : 2)) {
		error_hint(step->span, xasprintf("write %s(table, (v, t) => ...)", op->name), "%s takes 2 arguments, got %d",
		           op->name, nargs);
		return NULL;
	}
	Node *other_e = step->list, *fn = grace ? grace->next : other_e->next;
	if (!other)
		return NULL;
	if (op->id == OPER_OUTER_JOIN) {
		error_hint(step->name_span, "a stream joins a table with join or left_join (Kafka Streams has no outer "
		                            "stream-table join)",
		           "outer_join is for two streams or two tables, not a stream and a table");
		return NULL;
	}
	if (!other->table || other->grouped) {
		assert(input_of(other) != ON_STREAM); /* a stream went to check_stream_stream_join above */
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
		.other_span = other_e->span, .has_grace = grace != NULL, .grace = grace ? grace->a->ival : 0,
	};
	other->lookups = xrealloc(other->lookups, sizeof *other->lookups * (size_t)(other->nlookups + 1));
	other->lookups[other->nlookups++] = n;
	return n;
}
