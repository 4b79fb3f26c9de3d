/*
 * sema_aggregate.c - grouping and aggregation: group_by_key, group_by and
 * a table's group_by (the regroup), count / reduce / aggregate with their
 * adders, subtractors and session mergers, cogroup, and to_table.  Each
 * makes its node of the topology (ir.h) and marks the repartitions and
 * stores the plan names (need_repartition, add_store: sema_stream.c).
 */
#include "sema_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Aggregations                                                       */
/* ------------------------------------------------------------------ */

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

/*
 * Checks a session aggregate's merger (fn): (a, b) or (k, a, b), the
 * aggregates of two sessions a record joins and the key (Kafka Streams'
 * Merger: aggKey, aggOne, aggTwo); it must give the accumulator type.
 */
static void check_merger(Sema *sema, Node *fn, Type *key, Type *acc)
{
	static const int counts[] = { 2, 3 };
	Type *two[] = { acc, acc }, *three[] = { key, acc, acc };
	Type *const *types[] = { two, three };
	const char *shape = "write the merger as (a, b) => merged or (k, a, b) => merged";
	Type *t = check_lambda_typed(sema, fn, 2, counts, types, acc, "aggregate", shape);
	if (!t || assignable(t, acc))
		return;
	error_hint(fn->a->span, "the merger combines two sessions' aggregates into one of the same type",
	           "accumulator type mismatch: the initial value is %s, the merger gives %s", type_str(acc),
	           type_str(t));
}

/*
 * Checks an aggregate's combiner (merge: fn): (a, b) or (k, a, b), two
 * partial aggregates of one key, each folded from the initial value, into
 * one; it must give the accumulator type.
 */
static void check_combiner(Sema *sema, Node *fn, Type *key, Type *acc)
{
	static const int counts[] = { 2, 3 };
	Type *two[] = { acc, acc }, *three[] = { key, acc, acc };
	Type *const *types[] = { two, three };
	const char *shape = "write the combiner as merge: (a, b) => combined or merge: (k, a, b) => combined";
	Type *t = check_lambda_typed(sema, fn, 2, counts, types, acc, "aggregate", shape);
	if (!t || assignable(t, acc))
		return;
	error_hint(fn->a->span, "the combiner combines two partial aggregates into one of the same type",
	           "accumulator type mismatch: the initial value is %s, the combiner gives %s", type_str(acc),
	           type_str(t));
}

/*
 * Takes the declaration that an aggregation's partial aggregates combine
 * out of its arguments (so the arity checks see the rest):
 * reduce(f, combinable), the word, and aggregate(init, f, merge: g), the
 * named argument.  Reports misuse; *word and *merge are what was found.
 */
static void take_combinable(Node *step, bool is_count, bool is_reduce, Node **word, Node **merge)
{
	*word = *merge = NULL;
	for (Node **pp = &step->list; *pp;) {
		Node *a = *pp;
		if (a->kind == N_IDENT && strcmp(a->name, "combinable") == 0) {
			if (*word)
				error_at(a->span, "'combinable' is given twice");
			else if (is_count)
				error_hint(a->span, "write count(): partial counts always combine (by adding them)",
				           "count takes no 'combinable'");
			else if (!is_reduce)
				error_hint(a->span, "write aggregate(initial, (v, acc) => ..., merge: (a, b) => ...): "
				                    "partial aggregates combine through a function of two accumulators",
				           "aggregate needs a combiner, not 'combinable'");
			*word = a;
		} else if (a->kind == N_NAMED_ARG) {
			if (strcmp(a->name, "merge") != 0)
				error_hint(a->name_span, "the combiner is merge: (a, b) => ...",
				           "aggregate has no named argument '%s'", a->name);
			else if (*merge)
				error_at(a->name_span, "'merge' is given twice");
			else
				*merge = a;
		} else {
			pp = &a->next;
			continue;
		}
		*pp = a->next;
		a->next = NULL;
	}
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
	Node *word, *merge;
	take_combinable(step, is_count, is_reduce, &word, &merge);
	nargs = node_list_len(step->list);
	Node *declared = word ? word : merge;
	if (declared && (parent->window || table_side || parent->cogrouped)) {
		error_hint(declared->kind == N_NAMED_ARG ? declared->name_span : declared->span,
		           "only an aggregation of a grouped stream without windows is pre-aggregated before its "
		           "repartition; drop it",
		           "%s is for a grouped stream without windows, and this is %s",
		           word ? "'combinable'" : "a combiner (merge:)",
		           parent->window   ? "a windowed stream"
		           : table_side     ? "a grouped table"
		                            : "a cogroup");
		declared = word = merge = NULL;
	}
	IrNode *n = ir_new(sema->topo, IR_AGGREGATE, step->span);
	ir_link(parent, n);
	n->key = type_strip(parent->key); /* null keys never reach a table */
	if (parent->window) { /* one value per key and window */
		n->window = parent->window;
		n->key = parent->window->kind == WIN_SESSION ? ty_session_windowed(n->key) : ty_windowed(n->key);
	}
	n->table = true;
	/* A record that merges sessions retracts them: a tombstone each. */
	n->may_delete = parent->window && parent->window->kind == WIN_SESSION;
	add_store(sema, n);
	/*
	 * Kafka Streams' time-window and session processors skip only a null
	 * key, so count and aggregate there see null values (the adder's v is
	 * V?).  Its sliding-window processor and un-windowed aggregations skip
	 * a null value too, and a reducer is never given one here (docs).
	 */
	n->folds_null_values = parent->window && parent->window->kind != WIN_SLIDING && !is_reduce;
	Type *v = n->folds_null_values ? parent->val : type_strip(parent->val);
	/* Arguments: count(); reduce(add[, sub]); aggregate(init, add[, sub]); aggregate(init) after cogroup. */
	int adders = is_count ? 0 : 1;
	int want = (is_count ? 0 : is_reduce ? 1 : 2) + (table_side && !is_count ? 1 : 0);
	if (parent->cogrouped)
		want = 1;
	/* Over sessions, aggregate takes a merger; count and reduce merge by sum and by the reducer. */
	bool session = parent->window && parent->window->kind == WIN_SESSION;
	if (session && !is_count && !is_reduce)
		want = 3;
	if (is_count) {
		n->agg_kind = AGG_COUNT;
		n->val = ty_i64;
		n->combinable = !parent->window && !table_side && !parent->cogrouped;
		check_arity(op, step, nargs);
		return n;
	}
	n->combinable = word && is_reduce;
	n->agg_kind = is_reduce ? AGG_REDUCE : AGG_AGGREGATE;
	n->val = is_reduce ? v : ty_error;
	if (nargs != want) {
		Node *extra = step->list;
		for (int i = 0; extra && i < want; i++)
			extra = extra->next;
		if (parent->cogrouped)
			error_hint(step->span, "the adders are given with each grouped stream in cogroup(...)",
			           "aggregate after cogroup takes only the initial value, got %d arguments", nargs);
		else if (session && !is_reduce && nargs == 2)
			error_hint(step->name_span,
			           "write aggregate(initial, (v, acc) => ..., (a, b) => ...): when a record bridges two "
			           "sessions, the merger combines their aggregates",
			           "aggregate over session windows needs a merger");
		else if (parent->window && !session && !is_reduce && nargs == 3)
			error_hint(extra->span, "write aggregate(initial, (v, acc) => ...)",
			           "a merger is only for session windows, and this window is %s",
			           parent->window->kind == WIN_TUMBLING  ? "tumbling"
			           : parent->window->kind == WIN_HOPPING ? "hopping"
			                                                 : "sliding");
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
			           table_side ? "write aggregate(initial, (v, acc) => ..., (v, acc) => ...)"
			           : session  ? "write aggregate(initial, (v, acc) => ..., (a, b) => ...)"
			                      : "write aggregate(initial, (v, acc) => ...)",
			           "aggregate takes %d arguments (an initial value, an adder%s), got %d", want,
			           table_side ? " and a subtractor" : session ? " and a merger" : "", nargs);
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
	/* Over windows, the adder's key is the record's (Kafka Streams' Aggregator), not windowed<K>. */
	check_folder(sema, arg, is_reduce, type_strip(parent->key), v, acc, "adder");
	if (table_side) {
		n->subtractor = arg->next;
		check_folder(sema, arg->next, is_reduce, n->key, v, acc, "subtractor");
	}
	if (session && !is_reduce) {
		n->merger = arg->next;
		check_merger(sema, arg->next, type_strip(parent->key), acc);
	}
	if (merge && !is_reduce) {
		n->combiner = merge->a;
		n->combinable = true;
		check_combiner(sema, merge->a, type_strip(parent->key), acc);
	}
	return n;
}

/*
 * cogroup(g1, add1, g2, add2, ...): grouped streams with one key type,
 * each with the adder that folds its records into the shared accumulator;
 * only aggregate(initial) may follow, which checks the adders (their
 * accumulator type is the initial value's).
 */
IrNode *check_cogroup(Sema *sema, Node *e)
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
		if (!(operator_info(OPER_COGROUP)->on & input_of(g))) {
			report_wrong_input(operator_info(OPER_COGROUP), g, a->span);
			ok = false;
			continue;
		}
		if (g->window) {
			error_hint(a->span, "window after cogroup is not yet supported", "cogroup of windowed streams");
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

/* ------------------------------------------------------------------ */
/* Grouping and tables                                                */
/* ------------------------------------------------------------------ */

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
	IrNode *g = follow(sema, rg, IR_GROUP, step->span);
	g->grouped = true;
	g->group_table = true;
	need_repartition(sema, g);
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
	IrNode *n = ir_new(sema->topo, IR_TO_TABLE, step->span);
	ir_link(parent, n);
	if (parent->key_changed)
		need_repartition(sema, n);
	n->key = type_strip(parent->key);
	n->val = type_strip(parent->val);
	n->table = true;
	n->may_delete = parent->val->kind == TY_NULLABLE;
	add_store(sema, n);
	return n;
}

/*
 * group_by_key(), group_by(f), count(), reduce(...), aggregate(...),
 * to_stream(), to_table(): grouping makes a grouped stream (or, from a
 * table, a grouped table), which only an aggregation may follow; an
 * aggregation or to_table makes a table (a store, updated per record),
 * which to_stream() turns back into a stream of its changes.
 */
IrNode *check_grouping(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs)
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
			return fk_result_needs_store(parent, step->name_span, op->name) ? NULL
			                                                                  : check_regroup(sema, parent, step, nargs);
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
		IrNode *g = follow(sema, from, IR_GROUP, step->span);
		g->grouped = true;
		/* Records must meet their key's partition: repartition, as Kafka Streams does. */
		if (from->key_changed)
			need_repartition(sema, g);
		return g;
	}
	return check_aggregation(sema, parent, step, op, nargs);
}
