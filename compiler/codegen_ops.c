/*
 * codegen_ops.c - stateless operators, sinks, pipelines and merge segments.
 *
 * A pipeline is one function per source: it decodes each record, then
 * runs the operators that follow in order, inlined; each operator's key
 * and value are C variables (CVar) that record whether anything referred
 * to them.  A merge continues in a segment function that each merged
 * pipeline calls.  Stateful operators are in codegen_table.c.
 */
#include "codegen_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Binds a lambda's parameters to the C variables of key and value. */
void bind_lambda(Gen *g, Node *lam, CVar *k, CVar *v)
{
	for (Node *p = lam->list; p; p = p->next)
		if (p->sym)
			bind(g, p->sym, p->slot == SLOT_KEY ? k : v);
}

/*
 * Emits the children of n.  With several children, each but the last runs
 * in its own block and may not 'continue' out of the record.
 */
void emit_children(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	bool tail = g->tail;
	for (int i = 0; i < n->nchildren; i++) {
		bool last = i == n->nchildren - 1;
		g->tail = tail && last;
		if (n->nchildren > 1) {
			pr(g->out, "{\n");
			pr_indent(g->out);
		}
		g->from = n;
		emit_node(g, n->children[i], k, v);
		if (n->nchildren > 1) {
			pr_dedent(g->out);
			pr(g->out, "}\n");
		}
	}
	g->tail = tail;
}

/*
 * filter / filter_not: the children run only when the predicate (negated
 * for filter_not) holds.  As the last thing in its loop, the record is
 * skipped when it does not hold; otherwise the children go inside an if.
 * The predicate is evaluated even without children (it may fail).
 */
static void emit_guarded(Gen *g, IrNode *n, Node *pred, bool negated, CVar *k, CVar *v)
{
	char *skip_if = g->tail ? emit_cond(g, pred, !negated) : NULL;
	char *run_if = g->tail ? NULL : emit_cond(g, pred, negated);
	if (n->nchildren == 0)
		return;
	if (skip_if) {
		pr(g->out, "if (%s)\n", skip_if);
		pr_nested(g->out, "%s;\n", skip_stmt(g));
		emit_children(g, n, k, v);
		return;
	}
	pr(g->out, "if (%s) {\n", run_if);
	pr_indent(g->out);
	emit_children(g, n, k, v);
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * Declares a variable and emits what follows, with key k and the new
 * variable as the value (as_key: as the key); marks it (void), right
 * after the declaration, when nothing that follows referred to it.  What
 * follows goes straight to the output (the mark is inserted afterwards):
 * a chain of thousands of map steps is emitted in linear time.
 */
void emit_with_var(Gen *g, IrNode *n, const char *decl_type, const char *name, const char *init, CVar *k, CVar *v,
                   bool as_key)
{
	pr(g->out, "%s %s = %s;\n", decl_type, name, init);
	CVar *var = cvar(name);
	Printer *out = g->out;
	size_t after_decl = out->len;
	int indent = out->indent;
	emit_children(g, n, as_key ? var : k, as_key ? v : var);
	assert(g->out == out);
	if (!var->used) {
		char *mark = xasprintf("(void)%s;\n", name);
		pr_insert_line(out, after_decl, indent, mark);
		xfree(mark);
	}
}

/*
 * Fails the record unless the C condition failed is false: `if (failed)`
 * calls stoat_error(cx, <error_args>) (a quoted format and its arguments)
 * and goes to the record's failure path.
 */
void emit_record_error_if(Gen *g, const char *failed, const char *error_args)
{
	pr(g->out, "if (STOAT_UNLIKELY(%s)) {\n", failed);
	pr_indent(g->out);
	pr(g->out, "stoat_error(cx, %s);\n", error_args);
	pr(g->out, "%s;\n", fail_stmt(g));
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * Sets <role>_bytes for a sink: the input's own bytes when the variable is
 * still the source's decoded key or value in the same format (no encoding,
 * unknown JSON fields kept), else the generated encoder's output.  In a
 * merge segment the source is known only at run time, so the check is too.
 * Format avro is always encoded: the input's frame names the id of its
 * topic's subject, the output's must name the sink's (stoat_avro_sink_id,
 * for sink number sink and the record's topic).
 */
static void emit_sink_bytes(Gen *g, const char *role, CVar *var, CVar *raw_var, CVar *raw_flag, Type *t, Format f,
                            Type *src_type, Format src_format, int sink, const char *topic)
{
	bool is_raw = raw_var && var == raw_var && f != FMT_AVRO;
	if (is_raw && !g->in_segment && f == src_format && t == src_type) {
		pr(g->out, "%s_bytes = m->%s; /* unchanged: the input's bytes */\n", role, role);
		return;
	}
	char *enc = need(g, H_ENCODE, t, f);
	if (f == FMT_AVRO) {
		pr(g->out, "int32_t %s_id = stoat_avro_sink_id(cx, %d, %s, %s);\n", role, sink,
		   strcmp(role, "key") == 0 ? "true" : "false", topic);
		pr(g->out, "if (%s_id < 0 || !%s(cx, &cx->%s_buf, &%s, &%s_bytes, %s_id))\n", role, enc, role, use(var), role,
		   role);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
		return;
	}
	if (is_raw && g->in_segment) {
		pr(g->out, "if (%s && cx->source->%s_format == %s)\n", use(raw_flag), role, stoat_format_enum(f));
		pr_nested(g->out, "%s_bytes = cx->msg->%s; /* unchanged: the input's bytes */\n", role, role);
		pr(g->out, "else if (!%s(cx, &cx->%s_buf, &%s, &%s_bytes))\n", enc, role, use(var), role);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
		return;
	}
	pr(g->out, "if (!%s(cx, &cx->%s_buf, &%s, &%s_bytes))\n", enc, role, use(var), role);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
}

/* to "topic" (or a topic per record): encode key and value, emit. */
static void emit_sink(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	if (n->preagg) {
		emit_preagg_sink(g, n, k, v);
		return;
	}
	if (n->topic) {
		char *lit = c_string(n->topic, strlen(n->topic));
		char what[512];
		snprintf(what, sizeof what, "%s %s", n->internal ? "repartition through" : "to", lit);
		op_comment(g, n, what);
	} else {
		op_comment(g, n, "to (topic chosen per record)");
	}
	pr(g->out, "{\n");
	pr_indent(g->out);
	char *topic = xstrdup("((stoat_str){ NULL, 0 })");
	if (n->lambda) {
		bind_lambda(g, n->lambda, k, v);
		topic = emit_as(g, n->lambda->a, ty_string);
	}
	if (n->lambda && (n->key_format == FMT_AVRO || n->value_format == FMT_AVRO))
		topic = hoist(g, ty_string, topic, true); /* once: the subject's topic, then the output's */
	pr(g->out, "stoat_str key_bytes, value_bytes;\n");
	emit_sink_bytes(g, "key", k, g->raw_key, g->raw_key_flag, n->key, n->key_format,
	                g->source ? g->source->key : NULL, g->source ? g->source->key_format : FMT_BYTES, n->index, topic);
	emit_sink_bytes(g, "value", v, g->raw_value, g->raw_value_flag, n->val, n->value_format,
	                g->source ? g->source->val : NULL, g->source ? g->source->value_format : FMT_BYTES, n->index,
	                topic);
	if (n->timestamp) {
		/* The output's own timestamp; the record keeps its event time for what follows. */
		bind_lambda(g, n->timestamp, k, v);
		char *ts = hoist(g, ty_timestamp, emit_as(g, n->timestamp->a, ty_timestamp), true);
		emit_record_error_if(g, xasprintf("%s < 0", ts),
		                     xasprintf("\"invalid output timestamp %%lld: a timestamp must not be negative\", "
		                               "(long long)%s", ts));
		pr(g->out, "int64_t event_time = cx->timestamp;\n");
		pr(g->out, "cx->timestamp = %s;\n", ts);
		pr(g->out, "stoat_emit(cx, %d, %s, key_bytes, value_bytes);\n", n->index, topic);
		pr(g->out, "cx->timestamp = event_time;\n");
	} else {
		pr(g->out, "stoat_emit(cx, %d, %s, key_bytes, value_bytes);\n", n->index, topic);
	}
	emit_error_check(g);
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/* map: a new key and value, from a pair literal or a pair-valued expression. */
static void emit_map(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	char *nk = xasprintf("k%d", n->id), *nv = xasprintf("v%d", n->id);
	op_comment(g, n, "map");
	bind_lambda(g, n->lambda, k, v);
	Node *body = n->lambda->a;
	CVar *key = cvar(nk);
	if (body->kind == N_TUPLE) {
		char *kk = emit_as(g, body->list, n->key);
		char *vv = emit_as(g, body->list->next, n->val);
		pr(g->out, "%s %s = %s;\n", type_c(n->key), nk, kk);
		emit_with_var(g, n, type_c(n->val), nv, vv, key, NULL, false);
	} else {
		char *t = hoist(g, body->type, emit_expr(g, body), false);
		pr(g->out, "%s %s = %s.k;\n", type_c(n->key), nk, t);
		emit_with_var(g, n, type_c(n->val), nv, xasprintf("%s.v", t), key, NULL, false);
	}
}

/* flat_map / flat_map_values: what follows runs once per element. */
static void emit_flat_map(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	char *nk = xasprintf("k%d", n->id), *nv = xasprintf("v%d", n->id);
	op_comment(g, n, ir_kind_name(n->kind));
	bind_lambda(g, n->lambda, k, v);
	char *arr = emit_name(g, n->lambda->a);
	char *i = xasprintf("i%d", n->id);
	pr(g->out, "for (size_t %s = 0; %s < %s.len; %s++) {\n", i, i, arr, i);
	pr_indent(g->out);
	bool tail = g->tail;
	g->loop_depth++;
	g->tail = true;
	if (n->kind == IR_FLAT_MAP) {
		pr(g->out, "%s %s = %s.items[%s].k;\n", type_c(n->key), nk, arr, i);
		emit_with_var(g, n, type_c(n->val), nv, xasprintf("%s.items[%s].v", arr, i), cvar(nk), NULL, false);
	} else {
		emit_with_var(g, n, type_c(n->val), nv, xasprintf("%s.items[%s]", arr, i), k, NULL, false);
	}
	g->loop_depth--;
	g->tail = tail;
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * split: one branch per condition, in order, the first that holds wins.
 * A condition that needs no statements chains as "} else if (...)"; one
 * that does has its statements after "} else {", where they run only when
 * the earlier branches did not match.  Each condition is emitted once,
 * into its own buffer, before the form is chosen.
 */
static void emit_split(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	op_comment(g, n, "split");
	int opened = 0;
	char *cond = NULL; /* the next branch's condition, already emitted */
	for (int i = 0; i < n->nchildren; i++) {
		IrNode *br = n->children[i];
		if (!br->lambda) {
			pr(g->out, "/* branch %s (default) */\n", br->name);
			emit_children(g, br, k, v);
			break;
		}
		if (!cond) {
			bind_lambda(g, br->lambda, k, v);
			cond = emit_cond(g, br->lambda->a, false);
		}
		pr(g->out, "if (%s) {\n", cond);
		pr_indent(g->out);
		pr(g->out, "/* branch %s (%s:%d) */\n", br->name, br->span.file->path, br->span.line);
		emit_children(g, br, k, v);
		pr_dedent(g->out);
		cond = NULL;
		if (i == n->nchildren - 1) {
			pr(g->out, "}\n");
			break;
		}
		IrNode *next = n->children[i + 1];
		char *stmts = NULL;
		if (next->lambda) {
			bind_lambda(g, next->lambda, k, v);
			cond = emit_lazy_cond(g, next->lambda->a, &stmts);
		}
		if (next->lambda && !*stmts) {
			pr(g->out, "} else ");
		} else {
			pr(g->out, "} else {\n");
			if (stmts)
				pr_raw(g->out, stmts, strlen(stmts));
			pr_indent(g->out);
			opened++;
		}
	}
	while (opened--) {
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
}

/* merge: the segment continues with this pipeline's key and value. */
static void emit_merge(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	op_comment(g, n, "merge");
	/* Tell the segment whether key and value are still the input's. */
	const char *rk = k == g->raw_key ? (g->in_segment ? use(g->raw_key_flag) : "true") : "false";
	const char *rv = v == g->raw_value ? (g->in_segment ? use(g->raw_value_flag) : "true") : "false";
	pr(g->out, "if (!%s(cx, %s, %s, %s, %s))\n", plan_entry(g->plan, n)->cname, use(k), use(v), rk, rv);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
}

/* Emits node n, reached with key k and value v, and what follows it. */
void emit_node(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	switch (n->kind) {
	case IR_FILTER:
	case IR_FILTER_NOT:
		op_comment(g, n, ir_kind_name(n->kind));
		bind_lambda(g, n->lambda, k, v);
		emit_guarded(g, n, n->lambda->a, n->kind == IR_FILTER_NOT, k, v);
		break;
	case IR_MAP_VALUES:
		op_comment(g, n, "map_values");
		bind_lambda(g, n->lambda, k, v);
		emit_with_var(g, n, type_c(n->val), xasprintf("v%d", n->id), emit_as(g, n->lambda->a, n->val), k, NULL,
		              false);
		break;
	case IR_SELECT_KEY:
		op_comment(g, n, "select_key");
		bind_lambda(g, n->lambda, k, v);
		emit_with_var(g, n, type_c(n->key), xasprintf("k%d", n->id), emit_as(g, n->lambda->a, n->key), NULL, v,
		              true);
		break;
	case IR_MAP:
		emit_map(g, n, k, v);
		break;
	case IR_FLAT_MAP:
	case IR_FLAT_MAP_VALUES:
		emit_flat_map(g, n, k, v);
		break;
	case IR_PEEK: {
		op_comment(g, n, "peek");
		bind_lambda(g, n->lambda, k, v);
		char *x = emit_expr(g, n->lambda->a);
		pr(g->out, "(void)%s;\n", x);
		emit_children(g, n, k, v);
		break;
	}
	case IR_MERGE:
		emit_merge(g, n, k, v);
		break;
	case IR_SPLIT:
		emit_split(g, n, k, v);
		break;
	case IR_SINK:
		emit_sink(g, n, k, v);
		break;
	case IR_SOURCE:
	case IR_BRANCH:
	case IR_GROUP:
	case IR_WINDOW:
	case IR_TO_STREAM:
		emit_children(g, n, k, v);
		break;
	case IR_AGGREGATE:
		emit_aggregate(g, n, n->parents[0], n->lambda, k, v);
		break;
	case IR_COGROUP: {
		/* This input's adder folds the record into the shared aggregate. */
		IrNode *in = n->parents[cogroup_input(n, g->from)];
		emit_aggregate(g, n->children[0], in, n->adders[cogroup_input(n, in)], k, v);
		break;
	}
	case IR_TO_TABLE:
		emit_to_table(g, n, k, v);
		break;
	case IR_JOIN:
		emit_join(g, n, k, v);
		break;
	case IR_REGROUP:
		assert(!"a table's group_by is emitted from its changes");
		break;
	case IR_REPARTITION:
		assert(!"the plan makes repartitions a sink and a source");
		break;
	}
}

/* Starts a generated function: its body goes to body, at its indentation. */
void reset_function(Gen *g, Printer *body, bool in_segment)
{
	g->out = body;
	g->in_segment = in_segment;
	g->loop_depth = 0;
	g->tail = true;
	g->uses_fail = false;
	g->wrote_line = false;
	g->tmp = 0;
	g->source = NULL;
	g->raw_key = g->raw_value = NULL;
	g->raw_key_flag = g->raw_value_flag = NULL;
}

/* Declares a decoded key or value of the current record (fails the record). */
static void emit_decode_var(Gen *g, Type *t, Format f, const char *role, const char *name)
{
	pr(g->out, "%s %s;\n", type_c(t), name);
	pr(g->out, "if (!%s(cx, m->%s, \"%s\", &%s))\n", need(g, H_DECODE, t, f), role, role, name);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
}

/*
 * Closes a function's loop over its batch of records, and the function:
 * with_fail, the record's body ends in `continue` and a record that failed
 * goes to its policy at `fail:` (which may stop the batch).  Every
 * pipeline-like function ends this way, so the label reads the same.
 */
void emit_batch_loop_end(Printer *p, bool with_fail)
{
	if (with_fail) {
		pr(p, "continue;\n");
		pr_dedent(p);
		pr(p, "fail:\n");
		pr_indent(p);
		pr(p, "if (!stoat_record_failed(cx))\n");
		pr_nested(p, "return;\n");
	}
	pr_dedent(p);
	pr(p, "}\n");
	pr_dedent(p);
	pr(p, "}\n\n");
}

/*
 * A source's timestamp extractor: the record's event time into
 * cx->timestamp.  A null or negative time fails the record under the
 * source's policy, as Kafka Streams' default FailOnInvalidTimestamp does.
 */
static void emit_timestamp_extractor(Gen *g, IrNode *src, CVar *k, CVar *v)
{
	Node *lam = src->timestamp;
	Type *t = lam->a->type == ty_nullable(ty_timestamp) ? lam->a->type : ty_timestamp;
	pr(g->out, "/* timestamp (%s:%d) */\n", lam->span.file->path, lam->span.line);
	bind_lambda(g, lam, k, v);
	char *ts = hoist(g, t, emit_as(g, lam->a, t), true);
	if (t != ty_timestamp) {
		emit_record_error_if(g, xasprintf("!%s.has", ts), "\"invalid timestamp null: the extractor gave no event time\"");
		ts = xasprintf("%s.v", ts);
	}
	emit_record_error_if(g, xasprintf("%s < 0", ts),
	                     xasprintf("\"invalid timestamp %%lld: an event time must not be negative\", (long long)%s", ts));
	pr(g->out, "cx->timestamp = %s;\n", ts);
}

/*
 * The check of a record's Kafka timestamp on a source without an
 * extractor, as Kafka Streams' default FailOnInvalidTimestamp: a negative
 * one (-1: no timestamp) is a per-record error under the source's policy.
 */
void emit_source_time_check(Gen *g)
{
	emit_record_error_if(g, "cx->timestamp < 0",
	                     "\"invalid timestamp %lld: an event time must not be negative\", (long long)cx->timestamp");
}

/* The function a source's records enter by (pp, of the plan): decode, then the operators. */
void emit_pipeline(Gen *g, const Pipeline *pp, Printer *p)
{
	assert(pp->kind == PIPE_SOURCE);
	IrNode *src = pp->entry;
	Printer body;
	pr_init(&body);
	body.indent = 2;
	reset_function(g, &body, false);
	g->source = src;
	CVar *k = cvar(xasprintf("k%d", src->id)), *v = cvar(xasprintf("v%d", src->id));
	g->raw_key = k;
	g->raw_value = v;
	if (src->table) {
		emit_table_source(g, src, k, v);
	} else if (src->change) {
		emit_decode_var(g, src->key, src->key_format, "key", k->c);
		emit_change_source(g, src, k);
	} else {
		emit_decode_var(g, src->key, src->key_format, "key", k->c);
		emit_decode_var(g, src->val, src->value_format, "value", v->c);
		if (src->timestamp)
			emit_timestamp_extractor(g, src, k, v);
		else if (!src->internal)
			emit_source_time_check(g);
		Printer rest;
		Printer *saved = begin_sub(g, &rest, 0);
		emit_children(g, src, k, v);
		end_sub(g, saved);
		if (!k->used)
			pr(&body, "(void)%s;\n", k->c);
		if (!v->used)
			pr(&body, "(void)%s;\n", v->c);
		if (rest.buf)
			pr_raw(&body, rest.buf, rest.len);
		pr_free(&rest);
	}

	pr(p, "/*\n * %s %s: %s -> %s from %s (%s, %s)\n * %s:%d\n */\n", src->table ? "table" : "stream", src->name,
	   type_str(src->key), type_str(src->val), c_string(src->topic, strlen(src->topic)),
	   format_name(src->key_format), format_name(src->value_format), src->span.file->path, src->span.line);
	pr(p, "static void %s(stoat_ctx *cx, const stoat_msg *msgs, size_t n)\n{\n", pp->cname);
	pr_indent(p);
	pr(p, "for (size_t i = 0; i < n; i++) {\n");
	pr_indent(p);
	pr(p, "const stoat_msg *m = &msgs[i];\n");
	pr(p, "stoat_record_begin(cx, m);\n");
	pr_raw(p, body.buf, body.len);
	emit_batch_loop_end(p, g->uses_fail);
	pr_free(&body);
}

/* Writes (void)x; for each parameter nothing in the function referred to. */
void emit_unused_params(Printer *p, CVar **params, int n)
{
	for (int i = 0; i < n; i++)
		if (!params[i]->used)
			pr(p, "(void)%s;\n", params[i]->c);
}

/* A merge's continuation (pp, of the plan), called directly by each merged pipeline. */
void emit_segment(Gen *g, const Pipeline *pp, Printer *p)
{
	assert(pp->kind == PIPE_SEGMENT);
	IrNode *m = pp->entry;
	Printer body;
	pr_init(&body);
	body.indent = 1;
	reset_function(g, &body, true);
	CVar *k = cvar(xasprintf("k%d", m->id)), *v = cvar(xasprintf("v%d", m->id));
	g->raw_key = k;
	g->raw_value = v;
	g->raw_key_flag = cvar("raw_key");
	g->raw_value_flag = cvar("raw_value");
	emit_children(g, m, k, v);
	pr(p, "/* merge (%s:%d) */\n", m->span.file->path, m->span.line);
	pr(p, "static bool %s(stoat_ctx *cx, %s %s, %s %s, bool raw_key, bool raw_value)\n{\n", pp->cname,
	   type_c(m->key), k->c, type_c(m->val), v->c);
	pr_indent(p);
	CVar *params[] = { k, v, g->raw_key_flag, g->raw_value_flag };
	emit_unused_params(p, params, 4);
	if (body.buf)
		pr_raw(p, body.buf, body.len);
	pr(p, "return true;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
	pr_free(&body);
}
