/*
 * codegen_window.c - windowed aggregations: the update of a window store
 * per record, and the pipelines after a window store.
 *
 * A time window (tumbling, hopping) is [start, start + size) with starts
 * at multiples of the advance, none negative (Kafka Streams'
 * TimeWindows.windowsFor).  A record updates each window containing its
 * time unless the window has closed: end + grace <= stream time, the
 * task's stream time having moved to the record's time first
 * (KStreamWindowAggregate: it updates only when end > stream time -
 * grace).  A window's store value is its largest record timestamp (8
 * bytes big-endian) then the aggregate in the compact value layout; the
 * change of a window goes on with that timestamp (cx->timestamp), keyed
 * windowed<K> { key, start, end }.
 */
#include "codegen_int.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Reads a window store value (the C stoat_str `stored`) into ts (its
 * largest timestamp) and into the aggregate `into` (of n's value type).
 */
void emit_window_value_read(Gen *g, Printer *p, IrNode *n, const char *stored, const char *ts,
                                   const char *into, const char *fail)
{
	char *read_fn = need(g, H_STORE_VALUE_READ, n->val, FMT_JSON);
	pr(p, "if (!stoat_decode_be64(cx, (stoat_str){ .ptr = %s.ptr, .len = %s.len < 8 ? %s.len : 8 }, &%s) ||\n",
	   stored, stored, stored, ts);
	pr(p, "    !%s(cx, (stoat_str){ .ptr = %s.ptr + 8, .len = %s.len - 8 }, &%s))\n", read_fn, stored, stored, into);
	pr_nested(p, "%s;\n", fail);
}

/*
 * The start of every windowed aggregation's code for a record (time,
 * sliding and session windows alike): the null guard (its result, for
 * emit_dropped_else), a block, and in it sk<id> (the record key in the
 * store key layout), ts<id> (its event time) and stime<id> (the
 * aggregation's stream time, advanced to ts<id> before any window is
 * touched: Kafka Streams' observedStreamTime, which a record dropped for
 * a null does not move).  *kv is the key without its nullable wrapper,
 * *vv the value without it, except where the aggregation folds null
 * values in (n->folds_null_values: the guard checks the key only).
 */
bool open_window_record(Gen *g, IrNode *n, IrNode *in, CVar *k, CVar *v, CVar **kv, CVar **vv)
{
	Type *kt = in->key, *vt = in->val;
	Type *inner = n->key->rec->fields[0].type;
	/* A value the aggregation folds in even when null stays V? (the adder's v). */
	bool values_guarded = !n->folds_null_values;
	bool guarded = open_present_guard(g, kt, k, values_guarded ? vt : NULL, v);
	*kv = kt->kind == TY_NULLABLE ? cvar_part(k, ".v") : k;
	*vv = values_guarded && vt->kind == TY_NULLABLE ? cvar_part(v, ".v") : v;
	int id = n->id;
	pr(g->out, "{\n");
	pr_indent(g->out);
	char *key_fn = need(g, H_STORE_KEY, inner, FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", key_fn, use(*kv));
	pr(g->out, "stoat_str sk%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->key_buf));\n", id);
	pr(g->out, "int64_t ts%d = cx->timestamp;\n", id);
	/* Far beyond any real time (about 292 million years), but no window sum may overflow. */
	long long latest = (long long)(INT64_MAX - window_time_reach(n->window));
	emit_record_error_if(g, xasprintf("ts%d > %lldLL", id, latest),
	                     xasprintf("\"event time %%lld is too large for the windows of table %s (at most %lld)\", "
	                               "(long long)ts%d",
	                               g->topo->stores[n->store].name, latest, id));
	pr(g->out, "int64_t *stime%d = stoat_window_stream_time(cx, %d);\n", id, n->store);
	pr(g->out, "if (STOAT_UNLIKELY(!stime%d))\n", id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "(void)stoat_observe_time(stime%d, ts%d);\n", id, id);
	return guarded;
}

/*
 * The end of a time or session window aggregation's code for a record,
 * after its updates: with emit final, the windows its stream time closed
 * (close_<store>), then the block and the null guard open_window_record
 * opened.
 */
void close_window_record(Gen *g, IrNode *n, bool guarded)
{
	int id = n->id;
	const Pipeline *close = plan_window_close(g->plan, n->store);
	if (close) {
		pr(g->out, "bool closed%d = %s(cx);\n", id, close->cname);
		pr(g->out, "cx->timestamp = ts%d;\n", id);
		pr(g->out, "if (!closed%d)\n", id);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
	}
	pr_dedent(g->out);
	pr(g->out, "}\n");
	if (guarded)
		emit_dropped_else(g, xasprintf("%s for table %s", n->folds_null_values ? "null key" : "null key or value",
		                               g->topo->stores[n->store].name));
}

/*
 * count / reduce / aggregate over time windows (n->window) of a grouped
 * stream: for each window holding the record's time, in start order (as
 * Kafka Streams), drop it if closed, else read the window's aggregate,
 * fold the record in, write it back with the window's largest timestamp,
 * and pass the change on (after_<store>, now or from the record cache's
 * flush).  Records with a null key or value are ignored, as in Kafka
 * Streams.
 */
void emit_window_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v)
{
	const WindowSpec *w = n->window;
	assert(w->kind == WIN_TUMBLING || w->kind == WIN_HOPPING);
	Store *st = &g->topo->stores[n->store];
	CVar *kv, *vv;
	bool guarded = open_window_record(g, n, in, k, v, &kv, &vv);
	int id = n->id;
	/* The first window holding ts: the smallest start above ts - size that is a multiple of the advance. */
	pr(g->out, "int64_t from%d = ts%d - %lld;\n", id, id, (long long)(w->size - w->advance));
	pr(g->out, "for (int64_t start%d = from%d > 0 ? from%d - from%d %% %lld : 0; start%d <= ts%d; start%d += %lld) {\n",
	   id, id, id, id, (long long)w->advance, id, id, id, (long long)w->advance);
	pr_indent(g->out);
	pr(g->out, "int64_t end%d = start%d + %lld;\n", id, id, (long long)w->size);
	pr(g->out, "if (end%d + %lld <= *stime%d) {\n", id, (long long)w->grace, id);
	pr_nested(g->out, "stoat_record_late(cx, \"late: window closed (table %s)\");\n", st->name);
	pr_nested(g->out, "continue;\n");
	pr(g->out, "}\n");
	const char *ot = type_c(ty_nullable(n->val));
	pr(g->out, "stoat_str stored%d;\n", id);
	pr(g->out, "%s old%d = { .has = false };\n", ot, id);
	pr(g->out, "int64_t last%d = ts%d;\n", id, id);
	pr(g->out, "old%d.has = stoat_window_get(cx, %d, sk%d, start%d, end%d, &stored%d);\n", id, n->store, id, id, id,
	   id);
	emit_error_check(g);
	pr(g->out, "if (old%d.has) {\n", id);
	pr_indent(g->out);
	pr(g->out, "int64_t stored_ts%d;\n", id);
	emit_window_value_read(g, g->out, n, xasprintf("stored%d", id), xasprintf("stored_ts%d", id),
	                       xasprintf("old%d.v", id), fail_stmt(g));
	pr(g->out, "if (stored_ts%d > last%d)\n", id, id);
	pr_nested(g->out, "last%d = stored_ts%d;\n", id, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	char *old = xasprintf("old%d", id), *nv = xasprintf("v%d", id);
	emit_stream_fold(g, n, adder, kv, vv, old, nv);
	char *put_fn = need(g, H_STORE_VALUE_PUT, n->val, FMT_JSON);
	pr(g->out, "cx->value_buf.len = 0;\nstoat_buf_put_be64(&cx->value_buf, last%d);\n%s(&cx->value_buf, &%s);\n", id,
	   put_fn, nv);
	/* The window's change carries its largest timestamp, in the store's cache and downstream. */
	pr(g->out, "cx->timestamp = last%d;\n", id);
	char *op = xasprintf("stoat_window_put(cx, %d, sk%d, start%d, end%d, stoat_buf_str(&cx->value_buf))", n->store,
	                     id, id, id);
	const Pipeline *after = plan_store_after(g->plan, n->store);
	if (!after) {
		pr(g->out, "(void)%s; /* nothing downstream */\n", op);
		emit_error_check(g);
	} else {
		pr(g->out, "bool now%d = %s;\n", id, op);
		emit_error_check(g);
		pr(g->out, "if (now%d && !%s(cx, (%s){ .%s = %s, .%s = start%d, .%s = end%d }, %s, ((%s){ .has = true, .v = %s })))\n",
		   id, after->cname, type_c(n->key), c_field("key"), use(kv), c_field("start"), id, c_field("end"), id, old,
		   ot, nv);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
	}
	pr(g->out, "cx->timestamp = ts%d;\n", id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	close_window_record(g, n, guarded);
}

/* The metadata key of a window store's "emitted up to" (00 starts the store's own keys). */
static const char emitted_key[] = "\\0emitted-up-to";
enum { EMITTED_KEY_LEN = 14 };

/*
 * close_<store>: emit final.  Every window whose end + grace <= stream
 * time (a sliding window's, inclusive: end + grace < stream time; a
 * session: end < stream time - grace - gap, emit_session_close_bound)
 * and which was not emitted before goes once through the store's
 * downstream operators, in end, key, start order (a scan of the store,
 * stoat_window_fetch_ended: nothing is kept per window in memory), with
 * its largest timestamp.  "Emitted up to" (the last scan's bound) is
 * kept in the store under a metadata key, so a restart or a move to
 * another instance never emits a window twice; expiry runs only at the
 * commit, after the scans, so no closed window is lost when stream time
 * jumps (as Kafka Streams' onWindowClose loses them).  Called by the
 * pipeline after each record's update; returns false when the record
 * failed.
 */
void emit_window_close(Gen *g, const Pipeline *pp, Printer *p)
{
	assert(pp->kind == PIPE_WINDOW_CLOSE);
	Store *st = &g->topo->stores[pp->store];
	IrNode *n = st->node;
	const WindowSpec *w = n->window;
	Type *inner = n->key->rec->fields[0].type;
	const char *vt = type_c(ty_nullable(n->val));
	Printer body;
	pr_init(&body);
	body.indent = 2;
	/* Not a segment: a failure jumps to fail (which closes the scan), a skip goes to the next window. */
	reset_function(g, &body, false);
	CVar *key = cvar("key"), *old_v = cvar("old_v"), *new_v = cvar("new_v");
	emit_change_children(g, n, key, old_v, new_v);
	char *key_read = need(g, H_STORE_KEY_READ, inner, FMT_JSON);

	pr(p, "/*\n * Window store %s (%s:%d), emit final: the windows that closed\n", st->name, n->span.file->path,
	   n->span.line);
	pr(p, " * since the last scan, once each, through what follows.  Returns false\n");
	pr(p, " * when the record failed.\n */\n");
	pr(p, "static bool %s(stoat_ctx *cx)\n{\n", pp->cname);
	pr_indent(p);
	pr(p, "const stoat_str emitted_key = { .ptr = \"%s\", .len = %d };\n", emitted_key, EMITTED_KEY_LEN);
	pr(p, "int64_t after = -1; /* no window emitted yet (every end is above 0) */\n");
	pr(p, "stoat_str emitted;\n");
	pr(p, "if (stoat_store_get(cx, %d, emitted_key, &emitted) && !stoat_decode_be64(cx, emitted, &after))\n",
	   n->store);
	pr_nested(p, "return false;\n");
	pr(p, "if (STOAT_UNLIKELY(cx->error))\n");
	pr_nested(p, "return false;\n");
	pr(p, "const int64_t *stime = stoat_window_stream_time(cx, %d);\n", n->store);
	pr(p, "if (STOAT_UNLIKELY(!stime))\n");
	pr_nested(p, "return false;\n");
	if (w->kind == WIN_SESSION) {
		emit_session_close_bound(p, w);
	} else if (w->kind == WIN_SLIDING) {
		/* A sliding window's end is inclusive: it closes once end < stream time - grace. */
		pr(p, "int64_t upto = *stime - %lld - 1;\n", (long long)w->grace);
		pr(p, "if (upto <= after)\n");
		pr_nested(p, "return true;\n");
	} else {
		assert(w->kind == WIN_TUMBLING || w->kind == WIN_HOPPING);
		pr(p, "int64_t upto = *stime - %lld;\n", (long long)w->grace);
		pr(p, "/* Windows end at the size plus a multiple of the advance: scan only once the next such end has closed. */\n");
		pr(p, "int64_t next = after < %lld ? %lld : after + %lld - (after - %lld) %% %lld;\n", (long long)w->size,
		   (long long)w->size, (long long)w->advance, (long long)w->size, (long long)w->advance);
		pr(p, "if (next > upto)\n");
		pr_nested(p, "return true;\n");
	}
	pr(p, "stoat_window_iter *it = stoat_window_fetch_ended(cx, %d, after, upto);\n", n->store);
	pr(p, "if (STOAT_UNLIKELY(cx->error))\n");
	pr_nested(p, "goto fail;\n");
	pr(p, "stoat_str inner, value;\n%s key;\n", type_c(n->key));
	pr(p, "while (stoat_window_next(it, &inner, &key.%s, &key.%s, &value)) {\n", c_field("start"), c_field("end"));
	pr_indent(p);
	pr(p, "%s old_v = { .has = false }, new_v = { .has = true };\n", vt);
	pr(p, "int64_t ts;\n");
	pr(p, "if (!%s(cx, inner, &key.%s))\n", key_read, c_field("key"));
	pr_nested(p, "goto fail;\n");
	emit_window_value_read(g, p, n, "value", "ts", "new_v.v", "goto fail");
	pr(p, "cx->timestamp = ts;\n");
	CVar *params[] = { old_v };
	emit_unused_params(p, params, 1);
	if (body.buf)
		pr_raw(p, body.buf, body.len);
	pr_dedent(p);
	pr(p, "}\n");
	pr(p, "if (STOAT_UNLIKELY(cx->error))\n");
	pr_nested(p, "goto fail;\n");
	pr(p, "stoat_window_iter_close(it);\n");
	pr(p, "cx->value_buf.len = 0;\nstoat_buf_put_be64(&cx->value_buf, upto);\n");
	pr(p, "(void)stoat_store_put(cx, %d, emitted_key, stoat_buf_str(&cx->value_buf));\n", n->store);
	pr(p, "return !cx->error;\n");
	pr_dedent(p);
	pr(p, "fail:\n");
	pr_indent(p);
	pr(p, "stoat_window_iter_close(it);\n");
	pr(p, "return false;\n");
	pr_dedent(p);
	pr(p, "}\n\n");
	pr_free(&body);
}
