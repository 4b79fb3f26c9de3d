/*
 * codegen_sliding.c - the update of a sliding window store per record
 * (Kafka Streams' SlidingWindows, KIP-450; KStreamSlidingWindowAggregate).
 *
 * Sliding windows of time difference D are [start, start + D], inclusive.
 * The runtime plans which windows a record at t updates or creates and
 * in which order (stoat_sliding_steps, runtime/src/sliding.c: the
 * record's left window [t - D, t], the windows holding t, the previous
 * record's right window, the record's right window [t + 1, t + 1 + D]);
 * this file renders the fold of the record into each, inlined in the
 * pipeline.  Stream time having moved to t first, with close = stream
 * time - grace:
 *
 *  - a record is dropped as late only when t + D < close (even its right
 *    window would be closed);
 *  - a window is passed on (created or updated) when end >= close (time
 *    windows need end > close: Kafka Streams' inclusivity differs);
 *  - a window with end < close is still written to the store, quietly
 *    (stoat_window_put_quiet: never passed on, never emitted, counted as
 *    a late drop), so the store holds every window's true aggregate and
 *    later windows built from it are right.  Kafka Streams skips those
 *    writes, and then builds a later left window from a window that is
 *    missing (tests/e2e/ks_sliding_late): a deliberate difference.
 *
 * Emit final: the windows with end < close are emitted (close_<store>),
 * scanned before the record's updates; the record's updates pass nothing
 * on, and any window it writes below close was written quietly, so the
 * order is Kafka Streams' (which scans after).
 */
#include "codegen_int.h"

#include <assert.h>

/*
 * count / reduce / aggregate over sliding windows (n->window) of a
 * grouped stream: the emit-final scan, the late check, then the steps
 * stoat_sliding_steps plans, each folding the record into its window's
 * aggregate (or copying one), writing the window with its largest
 * timestamp, and passing the change on (after_<store>, now or from the
 * record cache's flush) when the window is open.  Records with a null key
 * or value are ignored, as in Kafka Streams.
 */
void emit_sliding_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v)
{
	const WindowSpec *w = n->window;
	assert(w->kind == WIN_SLIDING);
	Store *st = &g->topo->stores[n->store];
	CVar *kv, *vv;
	bool guarded = open_window_record(g, n, in, k, v, &kv, &vv);
	int id = n->id;
	long long diff = (long long)w->size;
	Printer *o = g->out;
	pr(o, "int64_t close%d = *stime%d - %lld;\n", id, id, (long long)w->grace);
	const Pipeline *close = plan_window_close(g->plan, n->store);
	if (close) {
		/* Emit final: the windows this record's stream time closed, before its updates. */
		pr(o, "bool closed%d = %s(cx);\n", id, close->cname);
		pr(o, "cx->timestamp = ts%d;\n", id);
		pr(o, "if (!closed%d)\n", id);
		pr_nested(o, "%s;\n", fail_stmt(g));
	}
	pr(o, "if (ts%d >= 0 && ts%d + %lld < close%d) {\n", id, id, diff, id);
	pr_nested(o, "stoat_record_late(cx, \"late: window closed (table %s)\");\n", st->name);
	pr(o, "} else {\n");
	pr_indent(o);
	pr(o, "stoat_sliding_step *steps%d;\nsize_t nsteps%d;\n", id, id);
	pr(o, "if (!stoat_sliding_steps(cx, %d, sk%d, ts%d, %lld, &steps%d, &nsteps%d))\n", n->store, id, id, diff, id,
	   id);
	pr_nested(o, "%s;\n", fail_stmt(g));
	pr(o, "for (size_t i%d = 0; i%d < nsteps%d; i%d++) {\n", id, id, id, id);
	pr_indent(o);
	pr(o, "const stoat_sliding_step *step%d = &steps%d[i%d];\n", id, id, id);
	pr(o, "int64_t start%d = step%d->start, end%d = start%d + %lld;\n", id, id, id, id, diff);
	const char *ot = type_c(ty_nullable(n->val));
	/* prior: what the record is folded into; old: the window's value before (none for a new window). */
	pr(o, "%s prior%d = { .has = false }, old%d = { .has = false };\n", ot, id, id);
	pr(o, "int64_t last%d = ts%d;\n", id, id);
	/* The runtime read the window's timestamp (the value's first 8 bytes): the aggregate follows. */
	char *read_fn = need(g, H_STORE_VALUE_READ, n->val, FMT_JSON);
	pr(o, "if (step%d->from) {\n", id);
	pr_indent(o);
	pr(o, "stoat_str from%d = step%d->from->value;\n", id, id);
	pr(o, "if (!%s(cx, (stoat_str){ .ptr = from%d.ptr + 8, .len = from%d.len - 8 }, &prior%d.v))\n", read_fn, id, id,
	   id);
	pr_nested(o, "%s;\n", fail_stmt(g));
	pr(o, "prior%d.has = true;\n", id);
	pr_dedent(o);
	pr(o, "}\n");
	pr(o, "if (step%d->kind == STOAT_SLIDING_UPDATE) {\n", id);
	pr_indent(o);
	pr(o, "old%d = prior%d;\n", id, id);
	pr(o, "if (step%d->from->ts > last%d)\n", id, id);
	pr_nested(o, "last%d = step%d->from->ts;\n", id, id);
	pr_dedent(o);
	pr(o, "}\n");
	pr(o, "%s v%d;\n", type_c(n->val), id);
	pr(o, "if (step%d->kind == STOAT_SLIDING_COPY) {\n", id);
	pr_indent(o);
	pr(o, "v%d = prior%d.v;\nlast%d = step%d->from->ts;\n", id, id, id, id);
	pr_dedent(o);
	pr(o, "} else {\n");
	pr_indent(o);
	char *prior = xasprintf("prior%d", id), *folded = xasprintf("folded%d", id);
	emit_stream_fold(g, n, adder, kv, vv, prior, folded);
	pr(o, "v%d = %s;\n", id, folded);
	pr_dedent(o);
	pr(o, "}\n");
	char *put_fn = need(g, H_STORE_VALUE_PUT, n->val, FMT_JSON);
	pr(o, "cx->value_buf.len = 0;\nstoat_buf_put_be64(&cx->value_buf, last%d);\n%s(&cx->value_buf, &v%d);\n", id,
	   put_fn, id);
	/* The window's change carries its largest timestamp, in the store's cache and downstream. */
	pr(o, "cx->timestamp = last%d;\n", id);
	pr(o, "if (end%d < close%d) {\n", id, id);
	pr_indent(o);
	pr(o, "/* Closed: kept for the windows built from it, never passed on. */\n");
	pr(o, "stoat_record_late(cx, \"late: window closed (table %s)\");\n", st->name);
	pr(o, "(void)stoat_window_put_quiet(cx, %d, sk%d, start%d, end%d, stoat_buf_str(&cx->value_buf));\n", n->store,
	   id, id, id);
	emit_error_check(g);
	pr_dedent(o);
	pr(o, "} else {\n");
	pr_indent(o);
	char *op = xasprintf("stoat_window_put(cx, %d, sk%d, start%d, end%d, stoat_buf_str(&cx->value_buf))", n->store,
	                     id, id, id);
	const Pipeline *after = plan_store_after(g->plan, n->store);
	if (!after) {
		pr(o, "(void)%s; /* nothing downstream */\n", op);
		emit_error_check(g);
		pr(o, "(void)old%d;\n", id);
	} else {
		pr(o, "bool now%d = %s;\n", id, op);
		emit_error_check(g);
		pr(o, "if (now%d && !%s(cx, (%s){ .%s = %s, .%s = start%d, .%s = end%d }, old%d, ((%s){ .has = true, .v = v%d })))\n",
		   id, after->cname, type_c(n->key), c_field("key"), use(kv), c_field("start"), id, c_field("end"), id, id,
		   ot, id);
		pr_nested(o, "%s;\n", fail_stmt(g));
	}
	pr_dedent(o);
	pr(o, "}\n");
	pr(o, "cx->timestamp = ts%d;\n", id);
	pr_dedent(o);
	pr(o, "}\n");
	pr_dedent(o);
	pr(o, "}\n");
	pr_dedent(o);
	pr(o, "}\n");
	if (guarded)
		emit_dropped_else(g, xasprintf("null key or value for table %s", st->name));
}
