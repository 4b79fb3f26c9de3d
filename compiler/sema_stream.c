/*
 * sema_stream.c - streams: the operator table (ops.def), pipeline steps,
 * sources, sinks and splits, checked in file order while they build the
 * topology graph (ir.h).
 *
 * A step's row of ops.def says whether it exists and which records it may
 * follow (a stream, a table, a grouped stream or table, a cogroup); the
 * operator's own check types its function and makes its node.  The graph
 * is the logical one: where records must be repartitioned (repartition(),
 * a grouping or to_table after a key change) and which nodes keep a table
 * are marks on the nodes; the plan (plan.c) names the topics and stores and
 * inserts the internal sinks and sources.
 */
#include "sema_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The operator table                                                 */
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
	{ NULL, NULL }, /* the end (and a member when ops.def plans none) */
};

/* The row of operator id. */
const OpInfo *operator_info(Operator id)
{
	assert(id >= 0 && (size_t)id < sizeof operators / sizeof operators[0]);
	return &operators[id];
}

/* The operator called name, or NULL. */
static const OpInfo *find_operator(const char *name)
{
	for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
		if (strcmp(operators[i].name, name) == 0)
			return &operators[i];
	return NULL;
}

/* What n's records are, as one of the ON_ bits of ops.def's "on" column. */
unsigned input_of(const IrNode *n)
{
	if (n->cogrouped)
		return ON_COGROUPED;
	if (n->grouped)
		return n->group_table ? ON_GROUPED_TABLE : ON_GROUPED;
	return n->table ? ON_TABLE : ON_STREAM;
}

/* "stream", "table", "grouped stream", ...: what a node's records are, for messages. */
const char *node_what(const IrNode *n)
{
	if (n->cogrouped)
		return "cogroup";
	if (n->grouped)
		return n->group_table ? "grouped table" : "grouped stream";
	return n->table ? "table" : "stream";
}

/*
 * Reports an argument count other than the one an operator with a fixed
 * count takes ("to_stream takes no arguments"); returns whether it fits.
 */
bool check_arity(const OpInfo *op, Node *step, int nargs)
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

/*
 * Reports operator op applied to (or, for cogroup, given) parent's records,
 * which its row of ops.def does not allow; the hint says what would fit.
 */
void report_wrong_input(const OpInfo *op, const IrNode *parent, Span at)
{
	const char *what = node_what(parent);
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
	case OPER_WINDOW:
		error_hint(at, in == ON_GROUPED_TABLE ? "window a stream's records: a table's changes are not windowed"
		                                      : "group the records first: group_by_key() |> window(tumbling 1m, grace 0s)",
		           "window needs a grouped stream, and this is a %s", what);
		break;
	case OPER_JOIN:
	case OPER_LEFT_JOIN:
	case OPER_OUTER_JOIN:
		error_hint(at,
		           in == ON_GROUPED ? "join the stream before grouping it: s |> join(t, (v, x) => ...) |> group_by_key()"
		           : in == ON_GROUPED_TABLE ? "join the table before grouping it, or aggregate it first"
		                                    : "aggregate it first, then join the table",
		           "%s needs a stream or a table, and this is a %s", op->name, what);
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
 * yet (a join) says so, Kafka Streams' windowedBy how stoat writes it; otherwise the closest operator's name, or
 * the list.
 */
static void report_unknown_operator(Node *step)
{
	const char *name = step->name;
	if (strcmp(name, "windowed_by") == 0) { /* Kafka Streams' windowedBy */
		error_hint(step->name_span, "write group_by_key() |> window(tumbling 1m, grace 0s) |> count()",
		           "stoat writes windowedBy as window(...)");
		return;
	}
	for (size_t i = 0; planned_operators[i].name; i++)
		if (strcmp(planned_operators[i].name, name) == 0) {
			error_hint(step->name_span, NULL, "'%s' is not available yet: this version of stoat has no %s", name,
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
	if (!hint) {
		/* Every operator that can follow |>, in the table's order. */
		size_t len = sizeof "operators:";
		for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
			len += strlen(operators[i].name) + 2;
		hint = xmalloc(len);
		strcpy(hint, "operators:");
		const char *sep = " ";
		for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
			if (operators[i].form != FORM_CALL) {
				strcat(strcat(hint, sep), operators[i].name);
				sep = ", ";
			}
	}
	error_hint(step->name_span, hint, "unknown operator '%s'", name);
}

/* ------------------------------------------------------------------ */
/* Sinks and operators of the record                                  */
/* ------------------------------------------------------------------ */

/* to "topic" or to (k, v) => topic: a sink, with its formats. */
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
		sink->topic_span = target->span;
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
	sink->key_format = format_default(parent->key);
	sink->value_format = format_default(parent->val);
	if (to->fmt_key && parse_format(to->fmt_key, &sink->key_format))
		check_format(to->fmt_key, sink->key_format, parent->key, "key");
	if (to->fmt_value && parse_format(to->fmt_value, &sink->value_format))
		check_format(to->fmt_value, sink->value_format, parent->val, "value");
	if (to->timestamp)
		check_output_timestamp(sema, to, parent, sink);
	return sink;
}

/* A node carrying on from parent with the same records. */
IrNode *follow(Sema *sema, IrNode *parent, IrKind kind, Span span)
{
	IrNode *n = ir_new(sema->topo, kind, span);
	n->key = parent->key;
	n->val = parent->val;
	n->key_changed = parent->key_changed;
	ir_link(parent, n);
	return n;
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

/* ------------------------------------------------------------------ */
/* Repartitions and stores, marked for the plan                       */
/* ------------------------------------------------------------------ */

/*
 * repartition([name]): the records go through an internal topic,
 * partitioned by their (new) key; what follows is a new sub-topology
 * reading it back.  Sema records the operator and its name; the plan
 * names the topic and splits the graph there (plan.c:plan_repartitions).
 */
static IrNode *check_repartition(Sema *sema, IrNode *parent, Node *step)
{
	int nargs = node_list_len(step->list);
	if (nargs > 1 || (nargs == 1 && step->list->kind != N_STR)) {
		error_hint(step->span, "write repartition() or repartition(\"name\")",
		           "repartition takes an optional topic name");
		return NULL;
	}
	IrNode *n = ir_new(sema->topo, IR_REPARTITION, step->span);
	ir_link(parent, n);
	n->key = parent->key;
	n->val = parent->val;
	n->binding = sema->binding_name;
	if (nargs == 1) {
		n->repartition_name = xstrndup(step->list->str, step->list->len);
		n->repartition_name_span = step->list->span;
		step->list->type = ty_string;
	}
	return n;
}

/*
 * Marks n as reading its records by their key's partition, as Kafka
 * Streams does after a key change: the plan inserts the repartition topic
 * between n and its parent, so n's key is the partition's again.
 */
void need_repartition(Sema *sema, IrNode *n)
{
	n->needs_repartition = true;
	n->binding = sema->binding_name;
	n->key_changed = false;
}

/*
 * Marks node n (an aggregation, or a table that keeps its values) as
 * keeping a table, which the plan gives a state store named after the
 * table being bound (table name = ...) (plan.c:plan_stores).
 */
void add_store(Sema *sema, IrNode *n)
{
	n->has_store = true;
	n->binding = sema->binding_name;
}

/* ------------------------------------------------------------------ */
/* Pipelines                                                          */
/* ------------------------------------------------------------------ */

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
	bool join = op->id == OPER_JOIN || op->id == OPER_LEFT_JOIN || op->id == OPER_OUTER_JOIN;
	if (op->id != OPER_WINDOW && !join)
		for (Node *arg = step->list; arg; arg = arg->next)
			if (arg->kind == N_WINDOW_ARG || arg->kind == N_ON_ARG) {
				error_at(arg->span, "expected an expression as an argument of %s", op->name);
				return NULL;
			}
	for (Node *arg = step->list; arg; arg = arg->next)
		if (arg->kind == N_NAMED_ARG && op->id != OPER_AGGREGATE) {
			error_hint(arg->name_span, "only aggregate takes a named argument (merge: (a, b) => ...)",
			           "%s takes no named argument '%s'", op->name, arg->name);
			return NULL;
		}
	IrNode *n;
	switch (op->id) {
	case OPER_WINDOW:
		n = check_window(sema, parent, step);
		break;
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
	case OPER_JOIN:
	case OPER_LEFT_JOIN:
	case OPER_OUTER_JOIN:
		n = check_join(sema, parent, step, op, nargs);
		break;
	default:
		n = check_record_op(sema, parent, step, op, nargs);
		break;
	}
	/* A table-table join keeps both sides in a store of its own; a stream-table join keeps none. */
	assert(!n || n->has_store == op->stateful || (n->kind == IR_JOIN && n->join->kind == JOIN_TABLE_TABLE));
	return n;
}

/* Checks an expression that must denote a stream; returns its last node. */
IrNode *check_stream(Sema *sema, Node *e)
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
		/*
		 * a |> f |> g nests to the left, one N_PIPE per step: the steps
		 * are checked in a loop from the first, so a pipeline of any
		 * length takes no stack (the parser does not count them as
		 * nesting either).
		 */
		int nsteps = 0;
		Node *start = e;
		for (; start->kind == N_PIPE; start = start->a)
			nsteps++;
		Node **pipes = xcalloc((size_t)nsteps, sizeof *pipes);
		int i = nsteps;
		for (Node *p = e; p->kind == N_PIPE; p = p->a)
			pipes[--i] = p;
		IrNode *n = check_stream(sema, start);
		if (n && n->global) {
			/* Kafka Streams' GlobalKTable has no operators: it is only joined. */
			error_hint(start->span, "join a stream with it: s |> join(g, on (k, v) => key, (v, x) => ...)",
			           "global table '%s' can only be joined from a stream", n->name);
			n = NULL;
		}
		for (i = 0; n && i < nsteps; i++) {
			if (n->kind == IR_SINK) {
				error_hint(pipes[i]->b->span, "'to' ends a pipeline", "nothing can follow 'to'");
				n = NULL;
				break;
			}
			n = check_step(sema, n, pipes[i]->b);
			if (n && n->depth > MAX_PIPELINE_DEPTH) {
				error_hint(pipes[i]->b->span,
				           "split the work into several applications, connected through a topic",
				           "pipeline is longer than %d operators from its source", MAX_PIPELINE_DEPTH);
				n = NULL; /* what follows is not checked: it would only repeat this */
			}
			if (n)
				pipes[i]->ir = n;
		}
		xfree(pipes);
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

/* ------------------------------------------------------------------ */
/* Items: sources, tables, stream definitions, statements, splits     */
/* ------------------------------------------------------------------ */

/*
 * table name versioned(history = D): ...: a versioned table (KIP-889),
 * which keeps every version of a key for D of its observed stream time so
 * that a stream-table join looks it up as of the stream record's time.
 * D is a duration (0s allowed, as Kafka Streams' non-negative history).
 */
static void check_versioning(Node *v, IrNode *src, const char *name)
{
	if (!v)
		return;
	if (strcmp(v->c->name, "versioned") != 0) {
		error_hint(v->c->span, "write table NAME versioned(history = 1h): K -> V from \"topic\";",
		           "unknown table option '%s'", v->c->name);
		return;
	}
	if (strcmp(v->name, "history") != 0) {
		error_hint(v->name_span, "write versioned(history = 1h): how long older versions are kept",
		           "a versioned table takes 'history', not '%s'", v->name);
		return;
	}
	if (v->a->kind != N_DURATION) {
		error_hint(v->a->span, "write a duration literal such as 1h or 10m",
		           "the history of versioned table '%s' must be a duration", name);
		return;
	}
	src->versioned = true;
	src->history_ms = v->a->ival;
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
	check_placement(it->place, src, it->name);
	check_versioning(it->versioned, src, it->name);
}

/*
 * stream NAME: K -> V from "topic" ... (or table ...): a source node, its
 * formats and error policy.
 */
void check_source(Sema *sema, Node *it)
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
	src->key_format = format_default(key);
	src->value_format = format_default(val);
	if (it->fmt_key && parse_format(it->fmt_key, &src->key_format))
		check_format(it->fmt_key, src->key_format, key, "key");
	if (it->fmt_value && parse_format(it->fmt_value, &src->value_format))
		check_format(it->fmt_value, src->value_format, val, "value");
	src->policy = it->policy ? parse_policy(it->policy) : POLICY_DEFAULT;
	if (src->policy == POLICY_DLQ)
		src->dlq_topic = xstrndup(it->policy->str, it->policy->len);
	if (it->timestamp)
		check_timestamp_extractor(sema, it, src);
	if (it->ival)
		check_table_source(sema, it, src);
	if (it->ival == 2) {
		src->global = true; /* no co-partitioning, no changelog: sema_join.c, plan.c */
		if (src->versioned) {
			/* Kafka Streams' InternalStreamsBuilder: "GlobalTables cannot be versioned." */
			error_hint(it->versioned->span, "drop versioned(...): a global table holds each key's latest value",
			           "global table '%s' cannot be versioned", it->name);
			src->versioned = false;
		}
	}
	define_stream(sema, it->name, it->name_span, src, true);
}

/* pipeline |> split { branch name = predicate; ... default name; }: one named stream per branch. */
void check_split(Sema *sema, Node *it)
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

/*
 * stream NAME = pipeline; / table NAME [in place] = pipeline;: binds the
 * pipeline's last node to the name, if it is what the declaration says (a
 * table or a stream; nothing grouped, nothing after 'to').
 */
void check_stream_def(Sema *sema, Node *it)
{
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
		check_placement(it->place, n, it->name);
	if (n && n->kind == IR_SINK) {
		error_hint(it->a->span, "'to' ends a pipeline; bind the stream before it",
		           "stream '%s' is bound to a sink", it->name);
		n = NULL;
	}
	/* `stream b = a;` aliases: one node, which keeps its first name (define_stream). */
	define_stream(sema, it->name, it->name_span, n, false);
}

/* pipeline;: a pipeline checked for its effect, which it should end in. */
void check_statement(Sema *sema, Node *it)
{
	IrNode *n = check_stream(sema, it->a);
	if (n && !ends_in_effect(it->a))
		warning_at(it->span, "the result of this pipeline is not used; end it with '|> to \"topic\"'");
}
