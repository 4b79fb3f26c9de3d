/*
 * codegen_join.c - joins.  A stream-table join is inlined in the stream's
 * pipeline: the record's key is written in the store key layout into
 * cx->key_buf (no allocation), looked up in the table's store (the task's
 * partition of it, as the table stands when the record is processed),
 * and the joiner's result goes on as the record's value, with its key and
 * timestamp.  A table's updates run through its own pipeline and produce
 * no join output (Kafka Streams' KStreamKTableJoin).
 */
#include "codegen_int.h"

#include <assert.h>

/*
 * Binds the joiner's parameters, (v, t) or (k, v, t), to the record's key
 * k, its value v and the table's value t.
 */
static void bind_joiner(Gen *g, Node *fn, CVar *k, CVar *v, CVar *t)
{
	int np = node_list_len(fn->list);
	for (Node *p = fn->list; p; p = p->next) {
		if (!p->sym)
			continue;
		int slot = np == 3 ? p->slot : p->slot + 1; /* 0 key, 1 value, 2 table value */
		bind(g, p->sym, slot == 0 ? k : slot == 1 ? v : t);
	}
}

/*
 * Looks key kv (not null) up in the table's store.  With nullable, t<id>
 * (a T? the caller declared) gets the value or none; otherwise
 * found<id> is declared and an if (found<id>) { opened, inside which
 * t<id> holds the value, for the caller to close.  The key's bytes stay in cx->key_buf,
 * the value is copied into the arena by stoat_store_get.
 */
void emit_lookup(Gen *g, IrNode *n, IrNode *table, CVar *kv, bool nullable)
{
	char *key_fn = need(g, H_STORE_KEY, table->key, FMT_JSON);
	char *read_fn = need(g, H_STORE_VALUE_READ, table->val, FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", key_fn, use(kv));
	pr(g->out, "stoat_str stored%d;\n", n->id);
	const char *into = nullable ? xasprintf("t%d.v", n->id) : xasprintf("t%d", n->id);
	const char *found = nullable ? xasprintf("t%d.has", n->id) : xasprintf("found%d", n->id);
	if (table->versioned)
		/* A versioned table: its value as of the stream record's time (KIP-914). */
		pr(g->out,
		   "%s%s = stoat_versioned_get(cx, %d, INT64_C(%lld), stoat_buf_str(&cx->key_buf), cx->timestamp, "
		   "&stored%d) > 0;\n",
		   nullable ? "" : "bool ", found, table->versions_store, (long long)table->history_ms, n->id);
	else
		pr(g->out, "%s%s = stoat_store_get(cx, %d, stoat_buf_str(&cx->key_buf), &stored%d);\n",
		   nullable ? "" : "bool ", found, table->store, n->id);
	emit_error_check(g);
	if (nullable) {
		pr(g->out, "if (%s && !%s(cx, stored%d, &%s))\n", found, read_fn, n->id, into);
		pr_nested(g->out, "%s;\n", fail_stmt(g));
		return;
	}
	/* Inner: what follows runs inside if (found<id>) {, which the caller closes. */
	pr(g->out, "if (%s) {\n", found);
	pr_indent(g->out);
	pr(g->out, "%s t%d;\n", type_c(table->val), n->id);
	pr(g->out, "if (!%s(cx, stored%d, &%s))\n", read_fn, n->id, into);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
}

/*
 * One stream record's join: looks kv up (as of cx->timestamp for a
 * versioned table), runs the joiner and what follows.  k is the record's
 * key as the joiner and downstream see it (K? in a left join over a
 * nullable key, with nk: then no lookup when it is null), kv the key
 * (not null) and vv the value (not null).
 */
static void emit_join_one(Gen *g, IrNode *n, CVar *k, CVar *kv, CVar *vv, bool nk)
{
	const JoinSpec *j = n->join;
	IrNode *table = j->table;
	bool left = j->type == JOIN_LEFT;
	pr(g->out, "{\n");
	pr_indent(g->out);
	CVar *tv = cvar(xasprintf("t%d", n->id));
	if (left) {
		pr(g->out, "%s t%d = { .has = false };\n", type_c(ty_nullable(table->val)), n->id);
		if (nk) {
			pr(g->out, "if (%s.has) {\n", use(k));
			pr_indent(g->out);
		}
		emit_lookup(g, n, table, kv, true);
		if (nk) {
			pr_dedent(g->out);
			pr(g->out, "}\n");
		}
		bind_joiner(g, j->joiner, k, vv, tv);
		emit_with_var(g, n, type_c(n->val), xasprintf("v%d", n->id), emit_as(g, j->joiner->a, n->val), k, NULL,
		              false);
	} else {
		emit_lookup(g, n, table, kv, false);
		bind_joiner(g, j->joiner, kv, vv, tv);
		emit_with_var(g, n, type_c(n->val), xasprintf("v%d", n->id), emit_as(g, j->joiner->a, n->val), kv, NULL,
		              false);
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * A stream-table join with grace D (KIP-923, Kafka Streams'
 * KStreamKTableJoinProcessor with its time-ordered buffer): a record
 * older than the buffer's time - D (the largest timestamp ever put into
 * the buffer) is joined at once; any other is put into the buffer (a
 * window [arrival, ts] of its key bytes), after which every buffered
 * record with ts <= buffer time - D is released in (ts, key bytes,
 * arrival) order and joined as of its own timestamp, with its own
 * timestamp.  Records stay buffered until a later record releases them.
 * A null key (a left join's) is joined at once with a null table value,
 * where Kafka Streams 4.4 fails on it (docs/language.md).
 */
static void emit_grace_join(Gen *g, IrNode *n, CVar *k, CVar *kv, CVar *vv, bool nk)
{
	const JoinSpec *j = n->join;
	IrNode *in = n->parents[0];
	int id = n->id;
	Type *kt = type_strip(in->key), *vt = type_strip(in->val);
	if (nk) {
		/* Only a left join gets here with a null key. */
		pr(g->out, "if (!%s.has) {\n", use(k));
		pr_indent(g->out);
		emit_join_one(g, n, k, kv, vv, true);
		pr_dedent(g->out);
		pr(g->out, "} else {\n");
		pr_indent(g->out);
	}
	char *key_fn = need(g, H_STORE_KEY, kt, FMT_JSON);
	char *put_fn = need(g, H_STORE_VALUE_PUT, vt, FMT_JSON);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", key_fn, use(kv));
	pr(g->out, "stoat_str gk%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->key_buf));\n", id);
	pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s);\n", put_fn, use(vv));
	pr(g->out, "stoat_str gv%d = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->value_buf));\n", id);
	pr(g->out, "int64_t *bt%d = stoat_window_stream_time(cx, %d);\n", id, j->store);
	emit_error_check(g);
	pr(g->out, "stoat_join_entry *rel%d = NULL, **rtail%d = &rel%d;\n", id, id, id);
	pr(g->out, "if (*bt%d >= 0 && *bt%d - INT64_C(%lld) > cx->timestamp) {\n", id, id, (long long)j->grace);
	pr_indent(g->out);
	pr(g->out, "/* Late for the buffer: joined at once. */\n");
	pr(g->out, "stoat_join_entry *f = stoat_arena_alloc(&cx->arena, sizeof *f);\n");
	pr(g->out, "*f = (stoat_join_entry){ .key = gk%d, .end = cx->timestamp, .value = gv%d };\n", id, id);
	pr(g->out, "rel%d = f;\n", id);
	pr_dedent(g->out);
	pr(g->out, "} else {\n");
	pr_indent(g->out);
	pr(g->out, "int64_t seq%d = stoat_grace_next_arrival(cx, %d);\n", id, j->store);
	emit_error_check(g);
	pr(g->out, "(void)stoat_window_put_quiet(cx, %d, gk%d, seq%d, cx->timestamp, gv%d);\n", j->store, id, id, id);
	emit_error_check(g);
	pr(g->out, "(void)stoat_observe_time(bt%d, cx->timestamp);\n", id);
	pr(g->out, "stoat_window_iter *git%d = stoat_window_fetch_ended(cx, %d, INT64_MIN, *bt%d - INT64_C(%lld));\n", id,
	   j->store, id, (long long)j->grace);
	emit_collect_entries(g, "git", id, "rtail");
	pr(g->out, "for (stoat_join_entry *f = rel%d; f; f = f->next) {\n", id);
	pr_nested(g->out, "(void)stoat_window_delete(cx, %d, f->key, f->start, f->end);\n", j->store);
	pr(g->out, "}\n");
	emit_error_check(g);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "int64_t ts%d = cx->timestamp;\n", id);
	pr(g->out, "for (stoat_join_entry *f = rel%d; f; f = f->next) {\n", id);
	pr_indent(g->out);
	char *key_read = need(g, H_STORE_KEY_READ, kt, FMT_JSON);
	char *val_read = need(g, H_STORE_VALUE_READ, vt, FMT_JSON);
	pr(g->out, "%s bk%d;\n%s bv%d;\n", type_c(kt), id, type_c(vt), id);
	pr(g->out, "if (!%s(cx, f->key, &bk%d) || !%s(cx, f->value, &bv%d))\n", key_read, id, val_read, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "cx->timestamp = f->end;\n");
	CVar *bk = cvar(xasprintf("bk%d", id)), *bv = cvar(xasprintf("bv%d", id));
	CVar *jk = bk;
	if (nk) {
		pr(g->out, "%s bkn%d = { .has = true, .v = bk%d };\n", type_c(ty_nullable(kt)), id, id);
		jk = cvar(xasprintf("bkn%d", id));
	}
	emit_join_one(g, n, jk, bk, bv, false);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "cx->timestamp = ts%d;\n", id);
	if (nk) {
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
}

/*
 * Copies every entry that window iterator <it><id> yields into the arena,
 * appended at *<tail><id> (a stoat_join_entry ** the caller declared), then
 * closes the iterator: callers join or delete the entries after the scan,
 * since a store must not change under its own iterator.
 */
void emit_collect_entries(Gen *g, const char *it, int id, const char *tail)
{
	pr(g->out, "stoat_join_entry e%d;\n", id);
	pr(g->out, "while (stoat_window_next(%s%d, &e%d.key, &e%d.start, &e%d.end, &e%d.value)) {\n", it, id, id, id, id,
	   id);
	pr_indent(g->out);
	pr(g->out, "stoat_join_entry *f = stoat_arena_alloc(&cx->arena, sizeof *f);\n");
	pr(g->out, "*f = e%d;\nf->next = NULL;\n*%s%d = f;\n%s%d = &f->next;\n", id, tail, id, tail, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "stoat_window_iter_close(%s%d);\n", it, id);
	emit_error_check(g);
}

/*
 * join(table, joiner) / left_join(table, joiner) of a stream record with
 * key k and value v, as Kafka Streams' KStreamKTableJoinProcessor: a
 * record with a null value is dropped (counted); so is one with a null
 * key in an inner join, while a left join passes it on with a null table
 * value (KIP-962) without a lookup; an inner join passes on only the
 * records whose key the table holds.
 */
void emit_join(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	const JoinSpec *j = n->join;
	if (j->kind == JOIN_STREAM_STREAM) {
		emit_stream_join(g, n, k, v);
		return;
	}
	if (j->kind == JOIN_FOREIGN_KEY) {
		emit_fk_join_record(g, n, k, v);
		return;
	}
	if (j->kind == JOIN_STREAM_GLOBAL) {
		emit_global_join(g, n, k, v);
		return;
	}
	assert(j->kind == JOIN_STREAM_TABLE);
	IrNode *in = n->parents[0], *table = j->table;
	const char *store = g->topo->stores[table->store].name;
	bool left = j->type == JOIN_LEFT;
	op_comment(g, n,
	           xasprintf("%s table %s (store %s): the table's value for the record's key%s%s", left ? "left_join" : "join",
	                     table->name ? table->name : store, store, left ? ", or null" : "",
	                     table->versioned ? ", as of the record's time" : ""));
	bool nk = in->key->kind == TY_NULLABLE, nv = in->val->kind == TY_NULLABLE;
	CVar *kv = nk ? cvar_part(k, ".v") : k;
	CVar *vv = nv ? cvar_part(v, ".v") : v;
	/* A null value never joins; a null key joins only in a left join. */
	bool guard = nv || (nk && !left);
	if (guard) {
		if (nv && nk && !left)
			pr(g->out, "if (%s.has && %s.has) {\n", use(k), use(v));
		else
			pr(g->out, "if (%s.has) {\n", nv ? use(v) : use(k));
		pr_indent(g->out);
	}
	if (j->has_grace)
		emit_grace_join(g, n, k, kv, vv, nk && left);
	else
		emit_join_one(g, n, k, kv, vv, nk);
	if (guard)
		emit_dropped_else(g, xasprintf("null %s for a join with table %s", nv && !(nk && !left) ? "value"
		                                                                   : nv ? "key or value" : "key", store));
}
