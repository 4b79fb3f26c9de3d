/*
 * codegen_join_stream.c - windowed stream-stream joins (inner), as Kafka
 * Streams' KStreamKStreamJoin with KStreamJoinWindow in front of it.  Each
 * side is an IR_JOIN inlined in its side's pipeline (ir.h: JoinSpec): a
 * record with a non-null key and value at t
 *
 *   1. looks its key up in the other side's window store over
 *      [max(0, t - b), max(0, t + a)] (b, a: before, after for the left
 *      side, after, before for the right), limited to what that store
 *      still holds, times above its own stream time minus the retention
 *      before + after + grace (exact, as Kafka Streams' getActualFrom);
 *   2. for each match, in the store's order (time, then arrival), passes
 *      joiner(k, left, right) on through the join's merge, timestamped
 *      max(t, t');
 *   3. then goes into its own side's store (advancing that store's stream
 *      time first): unless t <= stream time - retention, as Kafka Streams'
 *      expired-segment skip (counted as late).
 *
 * A record is stored as window [start = n, end = t], n the number of
 * records of its key at t already there: Kafka Streams' retainDuplicates
 * sequence number, so equal keys and times are all kept, in arrival order.
 * Matches are collected in cx's arena (stoat_session cells) and the
 * iterator is closed before anything downstream runs.  No allocation per
 * record beyond the arena; no function pointers.
 */
#include "codegen_int.h"

#include <assert.h>

/* Binds the joiner's (v, w) or (k, v, w) to k, the left value l and the right value r. */
static void bind_stream_joiner(Gen *g, Node *fn, CVar *k, CVar *l, CVar *r)
{
	int np = node_list_len(fn->list);
	for (Node *p = fn->list; p; p = p->next) {
		if (!p->sym)
			continue;
		int slot = np == 3 ? p->slot : p->slot + 1; /* 0 key, 1 left value, 2 right value */
		bind(g, p->sym, slot == 0 ? k : slot == 1 ? l : r);
	}
}

/* One side of a stream-stream join (the file's comment gives the rules). */
void emit_stream_join(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	const JoinSpec *j = n->join;
	assert(j->kind == JOIN_STREAM_STREAM && j->type == JOIN_INNER);
	IrNode *in = n->parents[0], *peer = j->peer, *peer_in = peer->parents[0];
	const Store *own = &g->topo->stores[j->store], *other = &g->topo->stores[peer->join->store];
	int id = n->id;
	long long back = (long long)(j->side == 0 ? j->before : j->after);
	long long ahead = (long long)(j->side == 0 ? j->after : j->before);
	long long retention = (long long)(j->before + j->after + j->grace);
	op_comment(g, n,
	           xasprintf("join, %s side: the other side's records (store %s) within [t - %lld, t + %lld], then this "
	                     "one into store %s",
	                     j->side == 0 ? "left" : "right", other->name, back, ahead, own->name));
	Type *kt = in->key, *vt = in->val;
	bool nk = kt->kind == TY_NULLABLE, nv = vt->kind == TY_NULLABLE;
	CVar *kv = nk ? cvar_part(k, ".v") : k;
	CVar *vv = nv ? cvar_part(v, ".v") : v;
	bool guard = nk || nv;
	if (guard) {
		if (nk && nv)
			pr(g->out, "if (%s.has && %s.has) {\n", use(k), use(v));
		else
			pr(g->out, "if (%s.has) {\n", nk ? use(k) : use(v));
		pr_indent(g->out);
	}
	pr(g->out, "{\n");
	pr_indent(g->out);
	char *key_fn = need(g, H_STORE_KEY, type_strip(kt), FMT_JSON);
	char *put_fn = need(g, H_STORE_VALUE_PUT, type_strip(vt), FMT_JSON);
	char *read_fn = need(g, H_STORE_VALUE_READ, type_strip(peer_in->val), FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", key_fn, use(kv));
	pr(g->out, "stoat_str sk%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->key_buf));\n", id);
	pr(g->out, "int64_t ts%d = cx->timestamp;\n", id);
	emit_record_error_if(g, xasprintf("ts%d > INT64_MAX / 2", id),
	                     xasprintf("\"event time %%lld is too large for the join window (store %s)\", (long long)ts%d",
	                               own->name, id));
	pr(g->out, "int64_t *own%d = stoat_window_stream_time(cx, %d), *other%d = stoat_window_stream_time(cx, %d);\n", id,
	   j->store, id, peer->join->store);
	pr(g->out, "if (STOAT_UNLIKELY(!own%d || !other%d))\n", id, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	/* 1. The other side's records of this key in the window, still held. */
	pr(g->out, "int64_t from%d = ts%d - %lld > 0 ? ts%d - %lld : 0;\n", id, id, back, id, back);
	pr(g->out, "int64_t to%d = ts%d + %lld;\n", id, id, ahead);
	pr(g->out, "if (*other%d - %lld + 1 > from%d)\n", id, retention, id);
	pr_nested(g->out, "from%d = *other%d - %lld + 1;\n", id, id, retention);
	pr(g->out, "stoat_session *found%d = NULL, **tail%d = &found%d;\n", id, id, id);
	pr(g->out, "if (from%d <= to%d) {\n", id, id);
	pr_indent(g->out);
	pr(g->out, "stoat_window_iter *it%d = stoat_window_fetch_key(cx, %d, sk%d, from%d, to%d);\n", id,
	   peer->join->store, id, id, id);
	pr(g->out, "stoat_str inner%d, stored%d;\nint64_t seq%d, at%d;\n", id, id, id, id);
	pr(g->out, "while (stoat_window_next(it%d, &inner%d, &seq%d, &at%d, &stored%d)) {\n", id, id, id, id, id);
	pr_indent(g->out);
	pr(g->out, "stoat_session *f = stoat_arena_alloc(&cx->arena, sizeof *f);\n");
	pr(g->out, "*f = (stoat_session){ .start = seq%d, .end = at%d, .value = stored%d };\n", id, id, id);
	pr(g->out, "*tail%d = f;\ntail%d = &f->next;\n", id, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "stoat_window_iter_close(it%d);\n", id);
	emit_error_check(g);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	/* 2. A result per match, timestamped with the larger time. */
	pr(g->out, "for (stoat_session *f = found%d; f; f = f->next) {\n", id);
	pr_indent(g->out);
	Type *pt = type_strip(peer_in->val);
	pr(g->out, "%s w%d;\n", type_c(pt), id);
	pr(g->out, "if (!%s(cx, f->value, &w%d))\n", read_fn, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "cx->timestamp = f->end > ts%d ? f->end : ts%d;\n", id, id);
	CVar *w = cvar(xasprintf("w%d", id));
	bind_stream_joiner(g, j->joiner, kv, j->side == 0 ? vv : w, j->side == 0 ? w : vv);
	bool tail = g->tail;
	g->loop_depth++;
	g->tail = true;
	emit_with_var(g, n, type_c(n->val), xasprintf("v%d", id), emit_as(g, j->joiner->a, n->val), kv, NULL, false);
	g->loop_depth--;
	g->tail = tail;
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "cx->timestamp = ts%d;\n", id);
	/* 3. This record into its own side's store, unless already past its retention. */
	pr(g->out, "(void)stoat_observe_time(own%d, ts%d);\n", id, id);
	pr(g->out, "if (ts%d <= *own%d - %lld) {\n", id, id, retention);
	pr_nested(g->out, "stoat_record_late(cx, \"late: too old to be kept in the join's window store %s (its lookup was done)\");\n", own->name);
	pr(g->out, "} else {\n");
	pr_indent(g->out);
	pr(g->out, "int64_t n%d = 0, s%d, e%d;\nstoat_str ik%d, iv%d;\n", id, id, id, id, id);
	pr(g->out, "stoat_window_iter *dup%d = stoat_window_fetch_key(cx, %d, sk%d, ts%d, ts%d);\n", id, j->store, id, id,
	   id);
	pr(g->out, "while (stoat_window_next(dup%d, &ik%d, &s%d, &e%d, &iv%d))\n", id, id, id, id, id);
	pr_nested(g->out, "n%d = s%d + 1;\n", id, id);
	pr(g->out, "stoat_window_iter_close(dup%d);\n", id);
	emit_error_check(g);
	pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s);\n", put_fn, use(vv));
	pr(g->out, "if (!stoat_window_put_quiet(cx, %d, sk%d, n%d, ts%d, stoat_buf_str(&cx->value_buf)))\n", j->store, id,
	   id, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr_dedent(g->out);
	pr(g->out, "}\n");
	if (guard)
		emit_dropped_else(g, xasprintf("null key or value for the join of streams (store %s)", own->name));
}
