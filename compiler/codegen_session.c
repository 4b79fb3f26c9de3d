/*
 * codegen_session.c - session windows: the update of a session store per
 * record, and emit final's bound for sessions.
 *
 * A session is [start, end], both inclusive: the times of its first and
 * last record.  As Kafka Streams' KStreamSessionWindowAggregate, a record
 * at t joins every session of its key within the inactivity gap (end >=
 * t - gap and start <= t + gap) into one, merging their aggregates (the
 * merger; count merges by sum, reduce by the reducer), and is folded in;
 * it is dropped as late when the merged session ends before stream time -
 * grace - gap.  Merged sessions are retracted first (deleted, with a
 * tombstone timestamped with their end, in end order), unless the merged
 * session is [t, t] itself; then the merged session is written and passed
 * on with its end as timestamp.  A session store value is that timestamp
 * (8 bytes big-endian, so the value layout and the flush function are the
 * time windows') then the aggregate.
 *
 * Only sessions ending at or after stream time - retention are found (a
 * store expires windows only at commits, so the cut is applied here: what
 * a record merges with never depends on when the last commit was).  The
 * default retention is gap + grace, so a session ending exactly at the
 * close time stream time - grace - gap is still found and merged: Kafka
 * Streams' session store hides it already (its cut is exclusive), a
 * deliberate difference (docs/language.md, "Windows").
 */
#include "codegen_int.h"

#include <assert.h>
#include <stdio.h>

/*
 * Merges the decoded aggregate `prev` (of n's value type) of a session
 * into `merged` (n's value type, nullable: no session merged yet): count
 * by sum, reduce by the reducer (merged, prev), aggregate by the merger
 * (k, merged or the initial value, prev), as Kafka Streams' count, reduce
 * and aggregate over SessionWindows do.
 */
static void emit_session_merge(Gen *g, IrNode *n, Node *adder, CVar *kv, const char *merged, const char *prev)
{
	int id = n->id;
	switch (n->agg_kind) {
	case AGG_COUNT: {
		char *t = hoist(g, ty_i64, xasprintf("stoat_add_i64(cx, %s.has ? %s.v : 0, %s)", merged, merged, prev), true);
		pr(g->out, "%s.v = %s;\n", merged, t);
		break;
	}
	case AGG_REDUCE:
		pr(g->out, "if (!%s.has) {\n", merged);
		pr_nested(g->out, "%s.v = %s;\n", merged, prev);
		pr(g->out, "} else {\n");
		pr_indent(g->out);
		bind_folder(g, adder, true, kv, cvar(xstrdup(prev)), cvar(xasprintf("%s.v", merged)));
		pr(g->out, "%s.v = %s;\n", merged, emit_as(g, adder->a, n->val));
		pr_dedent(g->out);
		pr(g->out, "}\n");
		break;
	case AGG_AGGREGATE: {
		/* The first merge starts from the initial value (evaluated only then). */
		char *cur = xasprintf("mcur%d", id);
		pr(g->out, "%s %s;\n", type_c(n->val), cur);
		pr(g->out, "if (%s.has) {\n", merged);
		pr_nested(g->out, "%s = %s.v;\n", cur, merged);
		pr(g->out, "} else {\n");
		pr_indent(g->out);
		pr(g->out, "%s = %s;\n", cur, emit_as(g, n->init, n->val));
		pr_dedent(g->out);
		pr(g->out, "}\n");
		Node *fn = n->merger;
		int np = node_list_len(fn->list);
		CVar *args[] = { kv, cvar(cur), cvar(xstrdup(prev)) };
		for (Node *p = fn->list; p; p = p->next)
			if (p->sym)
				bind(g, p->sym, args[np == 3 ? p->slot : p->slot + 1]);
		pr(g->out, "%s.v = %s;\n", merged, emit_as(g, fn->a, n->val));
		pr(g->out, "(void)%s;\n", cur);
		break;
	}
	}
	pr(g->out, "%s.has = true;\n", merged);
}

/*
 * Passes a session's change to the store's downstream (after_<store>)
 * when the store op `op` (a stoat_window_put or _delete) says it goes on
 * now; else (the record cache holds it, or nothing follows) just runs op.
 */
static void emit_session_change(Gen *g, IrNode *n, CVar *kv, const char *op, const char *start, const char *end,
                                const char *old, const char *nv)
{
	const Pipeline *after = plan_store_after(g->plan, n->store);
	if (!after) {
		pr(g->out, "(void)%s; /* nothing downstream */\n", op);
		emit_error_check(g);
		return;
	}
	char *now = new_tmp(g);
	pr(g->out, "bool %s = %s;\n", now, op);
	emit_error_check(g);
	pr(g->out, "if (%s && !%s(cx, (%s){ .%s = %s, .%s = %s, .%s = %s }, %s, %s))\n", now, after->cname,
	   type_c(n->key), c_field("key"), use(kv), c_field("start"), start, c_field("end"), end, old, nv);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
}

/*
 * count / reduce / aggregate over session windows (n->window) of a
 * grouped stream: find the key's sessions within the gap of the record's
 * time, merge them and the record (the file's comment gives the rules),
 * retract the merged sessions, write and pass on the new one; then, with
 * emit final, the sessions this record's stream time closed.  Records
 * with a null key or value are ignored, as for time windows.
 */
void emit_session_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v)
{
	const WindowSpec *w = n->window;
	assert(w->kind == WIN_SESSION);
	Store *st = &g->topo->stores[n->store];
	CVar *kv, *vv;
	bool guarded = open_window_record(g, n, in, k, v, &kv, &vv);
	int id = n->id;
	long long gap = (long long)w->gap;
	const char *ot = type_c(ty_nullable(n->val)), *vtc = type_c(n->val);
	pr(g->out, "int64_t close%d = *stime%d - %lld; /* sessions ending before it are closed */\n", id, id,
	   (long long)w->grace + gap);
	pr(g->out, "int64_t cut%d = *stime%d - %lld; /* ... and before this, gone from the store */\n", id, id,
	   (long long)w->retention);
	/* The key's sessions within the gap, collected before the store is written. */
	pr(g->out, "stoat_session *found%d = NULL, **tail%d = &found%d;\n", id, id, id);
	pr(g->out, "stoat_window_iter *it%d = stoat_session_fetch(cx, %d, sk%d, ts%d - %lld > cut%d ? ts%d - %lld : cut%d, INT64_MAX);\n",
	   id, n->store, id, id, gap, id, id, gap, id);
	pr(g->out, "stoat_str inner%d, stored%d;\n", id, id);
	pr(g->out, "int64_t fstart%d, fend%d;\n", id, id);
	pr(g->out, "while (stoat_window_next(it%d, &inner%d, &fstart%d, &fend%d, &stored%d)) {\n", id, id, id, id, id);
	pr_indent(g->out);
	pr(g->out, "if (fstart%d - %lld > ts%d)\n", id, gap, id);
	pr_nested(g->out, "continue; /* starts beyond the gap */\n");
	pr(g->out, "stoat_session *f = stoat_arena_alloc(&cx->arena, sizeof *f);\n");
	pr(g->out, "*f = (stoat_session){ .start = fstart%d, .end = fend%d, .value = stored%d };\n", id, id, id);
	pr(g->out, "*tail%d = f;\ntail%d = &f->next;\n", id, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "stoat_window_iter_close(it%d);\n", id);
	emit_error_check(g);
	/* Merge: the merged session's bounds and aggregate. */
	pr(g->out, "int64_t start%d = ts%d, end%d = ts%d;\n", id, id, id, id);
	pr(g->out, "%s merged%d = { .has = false };\n", ot, id);
	pr(g->out, "for (stoat_session *f = found%d; f; f = f->next) {\n", id);
	pr_indent(g->out);
	pr(g->out, "if (f->start < start%d)\n", id);
	pr_nested(g->out, "start%d = f->start;\n", id);
	pr(g->out, "if (f->end > end%d)\n", id);
	pr_nested(g->out, "end%d = f->end;\n", id);
	char *prev = xasprintf("prev%d", id), *merged = xasprintf("merged%d", id);
	pr(g->out, "int64_t prev_ts%d;\n%s %s;\n", id, vtc, prev);
	emit_window_value_read(g, g->out, n, "f->value", xasprintf("prev_ts%d", id), prev, fail_stmt(g));
	emit_session_merge(g, n, adder, kv, merged, prev);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	/* Late: the merged session has closed. */
	pr(g->out, "if (end%d < close%d) {\n", id, id);
	pr_nested(g->out, "stoat_record_late(cx, \"late: session closed (table %s)\");\n", st->name);
	pr(g->out, "} else {\n");
	pr_indent(g->out);
	/* Retract the merged sessions, in end order, each with its end as timestamp. */
	pr(g->out, "if (start%d != ts%d || end%d != ts%d) {\n", id, id, id, id);
	pr_indent(g->out);
	pr(g->out, "for (stoat_session *f = found%d; f; f = f->next) {\n", id);
	pr_indent(g->out);
	if (plan_store_after(g->plan, n->store)) { /* the retraction's old value, for what follows */
		pr(g->out, "%s gone%d = { .has = true };\nint64_t gone_ts%d;\n", ot, id, id);
		emit_window_value_read(g, g->out, n, "f->value", xasprintf("gone_ts%d", id), xasprintf("gone%d.v", id),
		                       fail_stmt(g));
	}
	pr(g->out, "cx->timestamp = f->end;\n");
	emit_session_change(g, n, kv, xasprintf("stoat_window_delete(cx, %d, sk%d, f->start, f->end)", n->store, id),
	                    "f->start", "f->end", xasprintf("gone%d", id), xasprintf("((%s){ .has = false })", ot));
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr_dedent(g->out);
	pr(g->out, "}\n");
	/* Fold the record in; write and pass on the merged session, timestamped with its end. */
	char *nv = xasprintf("v%d", id);
	emit_stream_fold(g, n, adder, kv, vv, merged, nv);
	char *put_fn = need(g, H_STORE_VALUE_PUT, n->val, FMT_JSON);
	pr(g->out, "cx->value_buf.len = 0;\nstoat_buf_put_be64(&cx->value_buf, end%d);\n%s(&cx->value_buf, &%s);\n", id,
	   put_fn, nv);
	pr(g->out, "cx->timestamp = end%d;\n", id);
	emit_session_change(g, n, kv,
	                    xasprintf("stoat_window_put(cx, %d, sk%d, start%d, end%d, stoat_buf_str(&cx->value_buf))",
	                              n->store, id, id, id),
	                    xasprintf("start%d", id), xasprintf("end%d", id), xasprintf("((%s){ .has = false })", ot),
	                    xasprintf("((%s){ .has = true, .v = %s })", ot, nv));
	pr(g->out, "cx->timestamp = ts%d;\n", id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	close_window_record(g, n, guarded);
}

/*
 * Emit final's bound in close_<store> of a session store (after: the
 * last scan's bound, -1 before the first; stime: the store's stream
 * time): a session is closed once its
 * end < stream time - grace - gap (Kafka Streams' onWindowClose for
 * sessions), so the scan takes ends up to one below that, and runs only
 * when that moved.
 */
void emit_session_close_bound(Printer *p, const WindowSpec *w)
{
	assert(w->kind == WIN_SESSION);
	pr(p, "int64_t upto = *stime - %lld - 1;\n", (long long)(w->grace + w->gap));
	pr(p, "if (upto <= after)\n");
	pr_nested(p, "return true;\n");
}
