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
 * Matches are collected in cx's arena (stoat_join_entry cells) and the
 * iterator is closed before anything downstream runs.  No allocation per
 * record beyond the arena; no function pointers.
 *
 * Left and outer joins (KStreamKStreamJoinProcessor with an outer store):
 * a side that keeps its unmatched records ("outer": the left of a left
 * join, both of an outer join) also
 *
 *   0. advances the join's stream time (stoat_join_tracker, shared by both
 *      sides, every record, null keys and values included), and on an
 *      outer side passes a null-key record on at once as joiner(null, v,
 *      null) (KIP-962);
 *   1'. when the record is at stream time, first emits the unmatched
 *      records whose window and grace have passed (the scan below);
 *   2'. deletes, for each match, the other side's unmatched records of
 *      that key and time (they have a partner now);
 *   3'. with no match, on an outer side: emits joiner(k, v, null) at once
 *      when t + a is already below the join's stream time, else keeps the
 *      record in the shared store.
 *
 * The scan (Kafka Streams' emitNonJoinedOuterRecords, no wall-clock
 * throttle): if the smallest time put since the last scan + a + grace is
 * below stream time (a: the triggering side's), walk the shared store in
 * its order (time, right before left, key, arrival) until both sides have
 * shown an entry still open (t + its side's a + grace >= stream time),
 * emitting and deleting the closed ones with their own time; the smallest
 * time becomes the last entry's visited.
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

/*
 * val (of type want stripped) as a value of type want: itself, or a
 * declared name = { .has = true, .v = val } when want is nullable; with
 * val NULL, name = { .has = false } (want is then nullable).
 */
static CVar *as_joiner_arg(Gen *g, Type *want, CVar *val, const char *name)
{
	if (want->kind != TY_NULLABLE)
		return val;
	if (val)
		pr(g->out, "%s %s = { .has = true, .v = %s };\n", type_c(want), name, use(val));
	else
		pr(g->out, "%s %s = { .has = false };\n", type_c(want), name);
	return cvar(name);
}

/*
 * One result of n: the joiner over key k (of n's key type), left value l
 * and right value r (the joiner's types), passed on as v<id>_<tag> with
 * what follows n (the join's merge) at cx->timestamp.
 */
static void emit_result(Gen *g, IrNode *n, CVar *k, CVar *l, CVar *r, const char *tag)
{
	const JoinSpec *j = n->join;
	bind_stream_joiner(g, j->joiner, k, l, r);
	bool tail = g->tail;
	g->loop_depth++;
	g->tail = true;
	emit_with_var(g, n, type_c(n->val), xasprintf("v%d_%s", n->id, tag), emit_as(g, j->joiner->a, n->val), k, NULL,
	              false);
	g->loop_depth--;
	g->tail = tail;
}

/* The joiner's types of the left and right values (V or V?, W or W?). */
static void joiner_types(IrNode *n, Type **lt, Type **rt)
{
	const JoinSpec *j = n->join;
	IrNode *left = j->side == 0 ? n : j->peer, *right = j->side == 0 ? j->peer : n;
	*lt = type_strip(left->parents[0]->val);
	*rt = type_strip(right->parents[0]->val);
	if (j->type != JOIN_INNER)
		*rt = ty_nullable(*rt);
	if (j->type == JOIN_OUTER)
		*lt = ty_nullable(*lt);
}

/*
 * The unmatched records whose time has come, emitted with null for the
 * other side before this record's own results (the file's comment):
 * jt<id> the join's tracker, ts<id> the record's time.
 */
static void emit_pending_scan(Gen *g, IrNode *n)
{
	const JoinSpec *j = n->join;
	int id = n->id;
	long long ahead = (long long)(j->side == 0 ? j->after : j->before), grace = (long long)j->grace;
	IrNode *left = j->side == 0 ? n : j->peer, *right = j->side == 0 ? j->peer : n;
	Type *lt, *rt;
	joiner_types(n, &lt, &rt);
	Type *kt = type_strip(n->key);
	pr(g->out, "/* The unmatched records whose window and grace have passed, in the shared store's order. */\n");
	/* Kafka Streams' pre-check, with Java's wrap-around when nothing was put since the last scan. */
	pr(g->out, "if (ts%d == jt%d[0] && (jt%d[1] == INT64_MAX ? %s : jt%d[1] + %lld < jt%d[0])) {\n", id, id, id,
	   ahead + grace > 0 ? "true" : "false", id, ahead + grace, id);
	pr_indent(g->out);
	pr(g->out, "jt%d[1] = INT64_MAX;\n", id);
	pr(g->out, "stoat_join_entry *pend%d = NULL, **ptail%d = &pend%d;\n", id, id, id);
	pr(g->out, "bool lopen%d = false, ropen%d = false;\n", id, id);
	/*
	 * Bounded by time: an entry ending after bound is open for either side,
	 * so the closed ones (to emit) all end at or before it; past it only
	 * the sides' openness and the last time visited matter.
	 */
	long long minlb = (long long)(j->after < j->before ? j->after : j->before) + (long long)j->grace;
	pr(g->out, "int64_t bound%d = jt%d[0] < INT64_MIN + 1 + %lldLL ? INT64_MIN : jt%d[0] - 1 - %lldLL;\n", id, id,
	   minlb, id, minlb);
	pr(g->out, "stoat_window_iter *pit%d = stoat_window_fetch_ended(cx, %d, INT64_MIN, bound%d);\n", id,
	   j->outer_store, id);
	pr(g->out, "stoat_join_entry e%d;\n", id);
	pr(g->out, "while (stoat_window_next(pit%d, &e%d.key, &e%d.start, &e%d.end, &e%d.value)) {\n", id, id, id, id, id);
	pr_indent(g->out);
	pr(g->out, "jt%d[1] = e%d.end;\n", id, id);
	pr(g->out, "bool is_left = e%d.key.len > 0 && e%d.key.ptr[0] == 1;\n", id, id);
	pr(g->out, "if (e%d.end + (is_left ? %lld : %lld) >= jt%d[0]) {\n", id, (long long)(j->after + j->grace),
	   (long long)(j->before + j->grace), id);
	pr_nested(g->out, "*(is_left ? &lopen%d : &ropen%d) = true;\n", id, id);
	pr_nested(g->out, "if (lopen%d && ropen%d)\n", id, id);
	pr_nested(g->out, "\tbreak;\n");
	pr_nested(g->out, "continue;\n");
	pr(g->out, "}\n");
	pr(g->out, "stoat_join_entry *f = stoat_arena_alloc(&cx->arena, sizeof *f);\n");
	pr(g->out, "*f = e%d;\nf->next = NULL;\n*ptail%d = f;\nptail%d = &f->next;\n", id, id, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "stoat_window_iter_close(pit%d);\n", id);
	emit_error_check(g);
	/*
	 * Past the bound every entry is open: Kafka Streams visits them until
	 * both sides have shown one, its smallest time becoming the last one's
	 * (a left join's walks to the store's end: that time keeps the next
	 * pre-checks failing until the newest entry closes, which batches the
	 * scans; stopping earlier makes every record scan).
	 */
	pr(g->out, "if (!(lopen%d && ropen%d)) {\n", id, id);
	pr_indent(g->out);
	pr(g->out, "pit%d = stoat_window_fetch_ended(cx, %d, bound%d, INT64_MAX);\n", id, j->outer_store, id);
	pr(g->out, "while (!(lopen%d && ropen%d) && stoat_window_next(pit%d, &e%d.key, &e%d.start, &e%d.end, &e%d.value)) {\n",
	   id, id, id, id, id, id, id);
	pr_indent(g->out);
	pr(g->out, "jt%d[1] = e%d.end;\n", id, id);
	pr(g->out, "*(e%d.key.len > 0 && e%d.key.ptr[0] == 1 ? &lopen%d : &ropen%d) = true;\n", id, id, id, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "stoat_window_iter_close(pit%d);\n", id);
	emit_error_check(g);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "for (stoat_join_entry *f = pend%d; f; f = f->next) {\n", id);
	pr_indent(g->out);
	pr(g->out, "bool is_left = f->key.len > 0 && f->key.ptr[0] == 1;\n");
	char *key_read = need(g, H_STORE_KEY_READ, kt, FMT_JSON);
	pr(g->out, "%s pk%d;\n", type_c(kt), id);
	pr(g->out, "if (f->key.len < 1 || !%s(cx, (stoat_str){ .ptr = f->key.ptr + 1, .len = f->key.len - 1 }, &pk%d))\n",
	   key_read, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "cx->timestamp = f->end;\n");
	CVar *pk = as_joiner_arg(g, n->key, cvar(xasprintf("pk%d", id)), xasprintf("pkn%d", id));
	bool outers[2] = { true, j->type == JOIN_OUTER }; /* left entries; right entries only in an outer join */
	for (int s = 0; s < 2; s++) {
		if (!outers[s])
			continue;
		IrNode *side = s == 0 ? left : right;
		Type *vt = type_strip(side->parents[0]->val);
		char *read_fn = need(g, H_STORE_VALUE_READ, vt, FMT_JSON);
		pr(g->out, "%s (%sis_left) {\n", s == 0 ? "if" : "} else if", s == 0 ? "" : "!");
		pr_indent(g->out);
		pr(g->out, "%s pv%d_%d;\n", type_c(vt), id, s);
		pr(g->out, "if (!%s(cx, f->value, &pv%d_%d))\n", read_fn, id, s);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
		CVar *pv = cvar(xasprintf("pv%d_%d", id, s));
		CVar *l = s == 0 ? as_joiner_arg(g, lt, pv, xasprintf("pl%d_%d", id, s))
		                 : as_joiner_arg(g, lt, NULL, xasprintf("pl%d_%d", id, s));
		CVar *r = s == 0 ? as_joiner_arg(g, rt, NULL, xasprintf("pr%d_%d", id, s))
		                 : as_joiner_arg(g, rt, pv, xasprintf("pr%d_%d", id, s));
		emit_result(g, n, pk, l, r, s == 0 ? "pl" : "pr");
		pr_dedent(g->out);
	}
	pr(g->out, "}\n");
	/* Its return says whether a change goes on now: nothing goes on from this store. */
	pr(g->out, "(void)stoat_window_delete(cx, %d, f->key, f->start, f->end);\n", j->outer_store);
	emit_error_check(g);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "cx->timestamp = ts%d;\n", id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * Deletes the other side's unmatched records of key sk<id> at time
 * f->end from the shared store (they have a partner now), once per time.
 */
static void emit_delete_pending(Gen *g, IrNode *n)
{
	const JoinSpec *j = n->join;
	int id = n->id;
	pr(g->out, "if (f->end != gone%d) {\n", id);
	pr_indent(g->out);
	pr(g->out, "gone%d = f->end;\n", id);
	pr(g->out, "stoat_window_iter *git%d = stoat_window_fetch_key(cx, %d, ok%d_other, f->end, f->end);\n", id,
	   j->outer_store, id);
	pr(g->out, "stoat_join_entry ge%d, *gl%d = NULL;\n", id, id);
	pr(g->out, "while (stoat_window_next(git%d, &ge%d.key, &ge%d.start, &ge%d.end, &ge%d.value)) {\n", id, id, id, id,
	   id);
	pr_indent(g->out);
	pr(g->out, "stoat_join_entry *d = stoat_arena_alloc(&cx->arena, sizeof *d);\n");
	pr(g->out, "*d = ge%d;\nd->next = gl%d;\ngl%d = d;\n", id, id, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "stoat_window_iter_close(git%d);\n", id);
	emit_error_check(g);
	pr(g->out, "for (stoat_join_entry *d = gl%d; d; d = d->next)\n", id);
	pr_nested(g->out, "(void)stoat_window_delete(cx, %d, d->key, d->start, d->end);\n", j->outer_store);
	emit_error_check(g);
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/* One side of a stream-stream join (the file's comment gives the rules). */
void emit_stream_join(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	const JoinSpec *j = n->join;
	assert(j->kind == JOIN_STREAM_STREAM);
	IrNode *in = n->parents[0], *peer = j->peer, *peer_in = peer->parents[0];
	const Store *own = &g->topo->stores[j->store], *other = &g->topo->stores[peer->join->store];
	int id = n->id;
	bool shared = j->outer_store >= 0;
	bool outer = j->type == JOIN_OUTER || (j->type == JOIN_LEFT && j->side == 0);
	bool other_outer = j->type == JOIN_OUTER || (j->type == JOIN_LEFT && j->side == 1);
	long long back = (long long)(j->side == 0 ? j->before : j->after);
	long long ahead = (long long)(j->side == 0 ? j->after : j->before);
	long long retention = (long long)(j->before + j->after + j->grace);
	const char *kind = j->type == JOIN_OUTER ? "outer_join" : j->type == JOIN_LEFT ? "left_join" : "join";
	op_comment(g, n,
	           xasprintf("%s, %s side: the other side's records (store %s) within [t - %lld, t + %lld], then this "
	                     "one into store %s",
	                     kind, j->side == 0 ? "left" : "right", other->name, back, ahead, own->name));
	Type *kt = in->key, *vt = in->val;
	Type *lt, *rt;
	joiner_types(n, &lt, &rt);
	Type *this_t = j->side == 0 ? lt : rt, *other_t = j->side == 0 ? rt : lt;
	bool nk = kt->kind == TY_NULLABLE, nv = vt->kind == TY_NULLABLE;
	CVar *kv = nk ? cvar_part(k, ".v") : k;
	CVar *vv = nv ? cvar_part(v, ".v") : v;
	pr(g->out, "{\n");
	pr_indent(g->out);
	pr(g->out, "int64_t ts%d = cx->timestamp;\n", id);
	emit_record_error_if(g, xasprintf("ts%d > INT64_MAX / 2", id),
	                     xasprintf("\"event time %%lld is too large for the join window (store %s)\", (long long)ts%d",
	                               own->name, id));
	if (shared) {
		/* 0. The join's stream time, before anything is dropped. */
		pr(g->out, "int64_t *jt%d = stoat_join_tracker(cx, %d);\n", id, j->outer_store);
		pr(g->out, "if (STOAT_UNLIKELY(!jt%d))\n", id);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
		pr(g->out, "(void)stoat_observe_time(&jt%d[0], ts%d);\n", id, id);
	}
	bool guard = nk || nv;
	if (outer && nk) {
		/* KIP-962: a null key on a side that keeps its unmatched records comes out at once. */
		pr(g->out, "if (!%s.has%s%s) {\n", use(k), nv ? " && " : "", nv ? xasprintf("%s.has", use(v)) : "");
		pr_indent(g->out);
		CVar *mine = as_joiner_arg(g, this_t, vv, xasprintf("nk%d_this", id));
		CVar *none = as_joiner_arg(g, other_t, NULL, xasprintf("nk%d_other", id));
		emit_result(g, n, k, j->side == 0 ? mine : none, j->side == 0 ? none : mine, "nk");
		pr_dedent(g->out);
		pr(g->out, "} else ");
	}
	if (guard) {
		if (nk && nv)
			pr(g->out, "if (%s.has && %s.has) {\n", use(k), use(v));
		else
			pr(g->out, "if (%s.has) {\n", nk ? use(k) : use(v));
		pr_indent(g->out);
	} else if (outer && nk) {
		pr(g->out, "{\n");
		pr_indent(g->out);
	}
	char *key_fn = need(g, H_STORE_KEY, type_strip(kt), FMT_JSON);
	char *put_fn = need(g, H_STORE_VALUE_PUT, type_strip(vt), FMT_JSON);
	char *read_fn = need(g, H_STORE_VALUE_READ, type_strip(peer_in->val), FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", key_fn, use(kv));
	pr(g->out, "stoat_str sk%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->key_buf));\n", id);
	pr(g->out, "int64_t *own%d = stoat_window_stream_time(cx, %d), *other%d = stoat_window_stream_time(cx, %d);\n", id,
	   j->store, id, peer->join->store);
	pr(g->out, "if (STOAT_UNLIKELY(!own%d || !other%d))\n", id, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	/* The key, as the result's key type (K? when a null key may come out). */
	CVar *rk = as_joiner_arg(g, n->key, kv, xasprintf("rk%d", id));
	if (shared) {
		emit_pending_scan(g, n);
		/* The shared store's keys of this record's key: [side][key] (0 right, 1 left). */
		if (outer) {
			pr(g->out, "char *okb%d = stoat_arena_alloc(&cx->arena, sk%d.len + 1);\n", id, id);
			pr(g->out, "okb%d[0] = %d;\nmemcpy(okb%d + 1, sk%d.ptr, sk%d.len);\n", id, j->side == 0 ? 1 : 0, id, id,
			   id);
			pr(g->out, "stoat_str ok%d_this = { .ptr = okb%d, .len = sk%d.len + 1 };\n", id, id, id);
		}
		if (other_outer) {
			pr(g->out, "char *okc%d = stoat_arena_alloc(&cx->arena, sk%d.len + 1);\n", id, id);
			pr(g->out, "okc%d[0] = %d;\nmemcpy(okc%d + 1, sk%d.ptr, sk%d.len);\n", id, j->side == 0 ? 0 : 1, id, id,
			   id);
			pr(g->out, "stoat_str ok%d_other = { .ptr = okc%d, .len = sk%d.len + 1 };\n", id, id, id);
		}
	}
	/* 1. The other side's records of this key in the window, still held. */
	pr(g->out, "int64_t from%d = ts%d - %lld > 0 ? ts%d - %lld : 0;\n", id, id, back, id, back);
	pr(g->out, "int64_t to%d = ts%d + %lld;\n", id, id, ahead);
	pr(g->out, "if (*other%d - %lld + 1 > from%d)\n", id, retention, id);
	pr_nested(g->out, "from%d = *other%d - %lld + 1;\n", id, id, retention);
	pr(g->out, "stoat_join_entry *found%d = NULL, **tail%d = &found%d;\n", id, id, id);
	pr(g->out, "if (from%d <= to%d) {\n", id, id);
	pr_indent(g->out);
	pr(g->out, "stoat_window_iter *it%d = stoat_window_fetch_key(cx, %d, sk%d, from%d, to%d);\n", id,
	   peer->join->store, id, id, id);
	emit_collect_entries(g, "it", id, "tail");
	pr_dedent(g->out);
	pr(g->out, "}\n");
	/* 2. A result per match, timestamped with the larger time. */
	if (shared && other_outer)
		pr(g->out, "int64_t gone%d = -1;\n", id);
	pr(g->out, "for (stoat_join_entry *f = found%d; f; f = f->next) {\n", id);
	pr_indent(g->out);
	if (shared && other_outer)
		emit_delete_pending(g, n);
	Type *pt = type_strip(peer_in->val);
	pr(g->out, "%s w%d;\n", type_c(pt), id);
	pr(g->out, "if (!%s(cx, f->value, &w%d))\n", read_fn, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "cx->timestamp = f->end > ts%d ? f->end : ts%d;\n", id, id);
	CVar *mine = as_joiner_arg(g, this_t, vv, xasprintf("jm%d", id));
	CVar *theirs = as_joiner_arg(g, other_t, cvar(xasprintf("w%d", id)), xasprintf("jo%d", id));
	emit_result(g, n, rk, j->side == 0 ? mine : theirs, j->side == 0 ? theirs : mine, "j");
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "cx->timestamp = ts%d;\n", id);
	if (outer) {
		/* 3'. No partner: out with null at once if the window has passed, else kept until it has. */
		pr(g->out, "if (!found%d) {\n", id);
		pr_indent(g->out);
		pr(g->out, "if (to%d < jt%d[0]) {\n", id, id);
		pr_indent(g->out);
		CVar *m2 = as_joiner_arg(g, this_t, vv, xasprintf("um%d", id));
		CVar *none = as_joiner_arg(g, other_t, NULL, xasprintf("uo%d", id));
		emit_result(g, n, rk, j->side == 0 ? m2 : none, j->side == 0 ? none : m2, "u");
		pr_dedent(g->out);
		pr(g->out, "} else {\n");
		pr_indent(g->out);
		pr(g->out, "int64_t on%d = stoat_window_next_arrival(cx, %d, ok%d_this, ts%d);\n", id, j->outer_store, id, id);
		emit_error_check(g);
		pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s);\n", put_fn, use(vv));
		pr(g->out, "if (!stoat_window_put_quiet(cx, %d, ok%d_this, on%d, ts%d, stoat_buf_str(&cx->value_buf)))\n",
		   j->outer_store, id, id, id);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
		pr(g->out, "if (ts%d < jt%d[1])\n", id, id);
		pr_nested(g->out, "jt%d[1] = ts%d;\n", id, id);
		pr_dedent(g->out);
		pr(g->out, "}\n");
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
	/* 3. This record into its own side's store, unless already past its retention. */
	pr(g->out, "(void)stoat_observe_time(own%d, ts%d);\n", id, id);
	pr(g->out, "if (ts%d <= *own%d - %lld) {\n", id, id, retention);
	pr_nested(g->out,
	          "stoat_record_late(cx, \"late: too old to be kept in the join's window store %s (its lookup was done)\");\n",
	          own->name);
	pr(g->out, "} else {\n");
	pr_indent(g->out);
	pr(g->out, "int64_t n%d = stoat_window_next_arrival(cx, %d, sk%d, ts%d);\n", id, j->store, id, id);
	emit_error_check(g);
	pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s);\n", put_fn, use(vv));
	pr(g->out, "if (!stoat_window_put_quiet(cx, %d, sk%d, n%d, ts%d, stoat_buf_str(&cx->value_buf)))\n", j->store, id,
	   id, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr_dedent(g->out);
	pr(g->out, "}\n");
	if (guard)
		emit_dropped_else(g, xasprintf("null key or value for the join of streams (store %s)", own->name));
	else if (outer && nk) {
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
	pr_dedent(g->out);
	pr(g->out, "}\n");
}
