/*
 * codegen_join_fk.c - foreign-key table-table joins (KIP-213), as Kafka
 * Streams 4.4's foreignkeyjoin processors (docs/language.md "Foreign-key
 * joins", ir.h: JoinSpec.fk).  Four operators, each inlined where its
 * records arrive:
 *
 *   FK_SEND     (left table's change) the subscription instructions of
 *               UnbindChangeProcessor, keyed by the old and new foreign
 *               key, with the hash of the new left value, to the
 *               subscription-registration topic;
 *   FK_RECV     (that topic, in the right table's task) stores or drops
 *               the subscription and answers it with the right value, as
 *               SubscriptionReceive- and SubscriptionJoinProcessor do;
 *   FK_FOREIGN  (right table's change) keeps the join's copy of the right
 *               value and answers every subscriber of its key
 *               (ForeignTableJoinProcessor);
 *   FK_RESOLVE  (the subscription-response topic, in the left task) drops
 *               a response whose hash is not the left value's current one,
 *               else joins and passes the result table's change on
 *               (ResponseJoinProcessor).
 *
 * The join's store (FK_RECV's) holds, under [1][foreign key], the right
 * value with its timestamp (8 bytes big-endian, then the compact value)
 * and, under [2][foreign key], the list of subscriptions of that key
 * (runtime: stoat_fk_subscribe).  No allocation per record beyond the
 * arena.
 */
#include "codegen_int.h"

#include <assert.h>

/* The prefix bytes of the join store's keys. */
enum { FK_PREFIX_RIGHT = 1, FK_PREFIX_SUBS = 2 };

/* The instructions (Kafka Streams' SubscriptionWrapper.Instruction). */
enum { DELETE_KEY_NO_PROPAGATE, DELETE_KEY_AND_PROPAGATE, PROPAGATE_NULL_IF_NO_FK_VAL, PROPAGATE_ONLY_IF_FK_VAL };

/* The C member of field `name` of record value x (a C expression). */
static char *member(const char *x, const char *name)
{
	return xasprintf("%s.%s", x, c_field(name));
}

/*
 * Emits n's children with key k and value v, in a block of their own
 * (an operator here may pass several records on), never as the tail of
 * the record's loop.
 */
static void emit_fk_children(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	bool tail = g->tail;
	g->tail = false;
	pr(g->out, "{\n");
	pr_indent(g->out);
	emit_children(g, n, k, v);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	g->tail = tail;
}

/*
 * Appends [prefix][store key of kv] to cx->key_buf (cleared first) and
 * declares `stoat_str name` as an arena copy of it.
 */
static void emit_prefixed_key(Gen *g, Type *t, const char *kv, int prefix, const char *name)
{
	pr(g->out, "cx->key_buf.len = 0;\n");
	if (prefix)
		pr(g->out, "stoat_buf_putc(&cx->key_buf, %d);\n", prefix);
	pr(g->out, "%s(&cx->key_buf, &%s);\n", need(g, H_STORE_KEY, t, FMT_JSON), kv);
	pr(g->out, "stoat_str %s = stoat_arena_strdup(&cx->arena, stoat_buf_str(&cx->key_buf));\n", name);
}

/*
 * Sets fk (an RK? C variable) to the extractor's key for left value x
 * (an LV? C variable) of key k, when x is present.
 */
static void emit_extract(Gen *g, IrNode *n, CVar *k, const char *x, const char *fk)
{
	const JoinSpec *j = n->join;
	Type *rk = type_strip(n->key);
	pr(g->out, "if (%s.has) {\n", x);
	pr_indent(g->out);
	bind_lambda(g, j->extractor, k, cvar(xasprintf("%s.v", x)));
	char *e = emit_as(g, j->extractor->a, ty_nullable(rk));
	pr(g->out, "%s = %s;\n", fk, e);
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * One subscription instruction op to foreign key fk (an RK? C variable,
 * present unless a left join sends a null one), with the hash h<id> and
 * the left key k as its primary key, to the subscription topic; only
 * when the C condition cond holds, if it is not NULL.
 */
static void emit_send(Gen *g, IrNode *n, CVar *k, const char *cond, const char *fk, int op, int seq)
{
	int id = n->id;
	bool nullable_key = n->key->kind == TY_NULLABLE;
	if (cond)
		pr(g->out, "if (%s) {\n", cond);
	else
		pr(g->out, "{\n");
	pr_indent(g->out);
	const char *sub = xasprintf("sub%d_%d", id, seq);
	pr(g->out, "%s %s = { .%s = %d, .%s = h%d, .%s = %s };\n", type_c(n->val), sub, c_field("op"), op, c_field("h"),
	   id, c_field("pk"), use(k));
	emit_fk_children(g, n, cvar(nullable_key ? fk : xasprintf("%s.v", fk)), cvar(sub));
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * FK_SEND: a change (k, old_v, new_v) of the left table, as 4.4's
 * UnbindChangeProcessor.  "The foreign key changed" compares the keys'
 * bytes (a null key differs from every other).  Inner join: a new value
 * with a null key unsubscribes the old key (DELETE_KEY_AND_PROPAGATE) and
 * is dropped; a changed key unsubscribes the old one quietly and
 * subscribes the new one (PROPAGATE_NULL_IF_NO_FK_VAL, so an absent right
 * value gives a tombstone); otherwise PROPAGATE_ONLY_IF_FK_VAL; a delete
 * unsubscribes the old key with a tombstone.  Left join: a changed key
 * unsubscribes the old one quietly, then every change (deletes and null
 * keys too) sends PROPAGATE_NULL_IF_NO_FK_VAL to the new key.
 */
static void emit_fk_send(Gen *g, IrNode *n, CVar *k, CVar *old_v, CVar *new_v)
{
	int id = n->id;
	Type *rk = type_strip(n->key);
	bool left = n->join->type == JOIN_LEFT;
	IrNode *lt = n->parents[0];
	const char *ot = type_c(ty_nullable(rk));
	op_comment(g, n, xasprintf("%s (foreign-key): the left table's change as subscription instructions",
	                           join_op_name(n->join->type)));
	pr(g->out, "{\n");
	pr_indent(g->out);
	pr(g->out, "%s ofk%d = { .has = false }, nfk%d = { .has = false };\n", ot, id, id);
	emit_extract(g, n, k, use(old_v), xasprintf("ofk%d", id));
	emit_extract(g, n, k, use(new_v), xasprintf("nfk%d", id));
	/* Whether the key changed: its bytes, a null one unlike any other. */
	pr(g->out, "bool changed%d = ofk%d.has != nfk%d.has;\n", id, id, id);
	pr(g->out, "if (ofk%d.has && nfk%d.has) {\n", id, id);
	pr_indent(g->out);
	emit_prefixed_key(g, rk, xasprintf("ofk%d.v", id), 0, xasprintf("ob%d", id));
	emit_prefixed_key(g, rk, xasprintf("nfk%d.v", id), 0, xasprintf("nb%d", id));
	pr(g->out, "changed%d = ob%d.len != nb%d.len || memcmp(ob%d.ptr, nb%d.ptr, ob%d.len) != 0;\n", id, id, id, id,
	   id, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	/* The new value's hash (null for a delete), checked when the response comes back. */
	pr(g->out, "stoat_opt_i64 h%d = { .has = false };\n", id);
	pr(g->out, "if (%s.has) {\n", use(new_v));
	pr_indent(g->out);
	pr(g->out, "cx->value_buf.len = 0;\n%s(&cx->value_buf, &%s.v);\n", need(g, H_STORE_VALUE_PUT, lt->val, FMT_JSON),
	   use(new_v));
	pr(g->out, "h%d = (stoat_opt_i64){ .has = true, .v = stoat_fk_hash(stoat_buf_str(&cx->value_buf)) };\n", id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	const char *ofk = xasprintf("ofk%d", id), *nfk = xasprintf("nfk%d", id);
	if (left) {
		pr(g->out, "if (%s.has || %s.has) {\n", use(old_v), use(new_v));
		pr_indent(g->out);
		emit_send(g, n, k, xasprintf("ofk%d.has && changed%d", id, id), ofk, DELETE_KEY_NO_PROPAGATE, 0);
		emit_send(g, n, k, NULL, nfk, PROPAGATE_NULL_IF_NO_FK_VAL, 1);
		pr_dedent(g->out);
		pr(g->out, "}\n");
	} else {
		pr(g->out, "if (%s.has && !nfk%d.has) {\n", use(new_v), id);
		pr_indent(g->out);
		pr(g->out, "stoat_record_dropped(cx, \"null foreign key in a foreign-key join of table %s\");\n",
		   g->topo->stores[lt->store].name);
		emit_send(g, n, k, xasprintf("ofk%d.has", id), ofk, DELETE_KEY_AND_PROPAGATE, 0);
		pr_dedent(g->out);
		pr(g->out, "} else if (%s.has && ofk%d.has && changed%d) {\n", use(new_v), id, id);
		pr_indent(g->out);
		emit_send(g, n, k, NULL, ofk, DELETE_KEY_NO_PROPAGATE, 1);
		emit_send(g, n, k, NULL, nfk, PROPAGATE_NULL_IF_NO_FK_VAL, 2);
		pr_dedent(g->out);
		pr(g->out, "} else if (%s.has) {\n", use(new_v));
		pr_indent(g->out);
		emit_send(g, n, k, NULL, nfk, PROPAGATE_ONLY_IF_FK_VAL, 3);
		pr_dedent(g->out);
		pr(g->out, "} else if (ofk%d.has) {\n", id);
		pr_indent(g->out);
		emit_send(g, n, k, NULL, ofk, DELETE_KEY_AND_PROPAGATE, 4);
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/* Passes a response (key pk, hash h, right value r: C expressions) on, in a block of its own. */
static void emit_response(Gen *g, IrNode *n, const char *pk, const char *h, const char *r, int seq)
{
	int id = n->id;
	pr(g->out, "{\n");
	pr_indent(g->out);
	const char *resp = xasprintf("resp%d_%d", id, seq);
	pr(g->out, "%s %s = { .%s = %s, .%s = %s };\n", type_c(n->val), resp, c_field("h"), h, c_field("v"), r);
	emit_fk_children(g, n, cvar(pk), cvar(resp));
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * FK_RECV: a subscription (key fk, value v: op, hash, primary key) in the
 * right table's task.  A null key (left joins only) is not stored and is
 * answered null if its instruction asks for an answer; otherwise the two
 * DELETE instructions remove the subscription and the others store it,
 * then the right value is looked up and the answer sent as the
 * instruction says, with the larger of the two timestamps.
 */
static void emit_fk_recv(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	int id = n->id;
	const JoinSpec *j = n->join;
	IrNode *right = j->fk[FK_FOREIGN]->parents[0];
	Type *fkt = n->parents[0]->key, *rk = type_strip(fkt);
	const char *rt = type_c(ty_nullable(right->val));
	op_comment(g, n, xasprintf("%s (foreign-key): a subscription, stored and answered with the right value (store %s)",
	                           join_op_name(j->type), g->topo->stores[j->store].name));
	const char *op = member(use(v), "op"), *h = member(use(v), "h"), *pk = member(use(v), "pk");
	pr(g->out, "{\n");
	pr_indent(g->out);
	if (fkt->kind == TY_NULLABLE) {
		pr(g->out, "if (!%s.has) {\n", use(k));
		pr_indent(g->out);
		pr(g->out, "if (%s == %d) {\n", op, PROPAGATE_NULL_IF_NO_FK_VAL);
		pr_indent(g->out);
		emit_response(g, n, pk, h, xasprintf("((%s){ .has = false })", rt), 0);
		pr_dedent(g->out);
		pr(g->out, "}\n");
		pr_dedent(g->out);
		pr(g->out, "} else {\n");
		pr_indent(g->out);
	}
	const char *fk = fkt->kind == TY_NULLABLE ? xasprintf("%s.v", use(k)) : use(k);
	emit_prefixed_key(g, rk, fk, FK_PREFIX_SUBS, xasprintf("subs%d", id));
	emit_prefixed_key(g, n->key, pk, 0, xasprintf("pk%d", id));
	pr(g->out, "if (!(%s <= %d ? stoat_fk_unsubscribe(cx, %d, subs%d, pk%d)\n", op, DELETE_KEY_AND_PROPAGATE,
	   j->store, id, id);
	pr(g->out, "      : stoat_fk_subscribe(cx, %d, subs%d, pk%d, %s.has, %s.v)))\n", j->store, id, id, h, h);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	/* The right value and its timestamp, from the join's own copy of the right table. */
	emit_prefixed_key(g, rk, fk, FK_PREFIX_RIGHT, xasprintf("rk%d", id));
	pr(g->out, "stoat_str stored%d;\n%s r%d = { .has = false };\nint64_t rts%d = 0;\n", id, rt, id, id);
	pr(g->out, "r%d.has = stoat_store_get(cx, %d, rk%d, &stored%d);\n", id, j->store, id, id);
	emit_error_check(g);
	pr(g->out, "if (r%d.has && (!stoat_decode_be64(cx, (stoat_str){ .ptr = stored%d.ptr, .len = stored%d.len < 8 ? "
	           "stored%d.len : 8 }, &rts%d) ||\n",
	   id, id, id, id, id);
	pr(g->out, "              !%s(cx, (stoat_str){ .ptr = stored%d.ptr + 8, .len = stored%d.len - 8 }, &r%d.v)))\n",
	   need(g, H_STORE_VALUE_READ, right->val, FMT_JSON), id, id, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "int64_t ts%d = cx->timestamp;\n", id);
	pr(g->out, "if (r%d.has && rts%d > cx->timestamp)\n", id, id);
	pr_nested(g->out, "cx->timestamp = rts%d;\n", id);
	pr(g->out, "if (%s == %d || %s == %d || (%s == %d && r%d.has)) {\n", op, PROPAGATE_NULL_IF_NO_FK_VAL, op,
	   PROPAGATE_ONLY_IF_FK_VAL, op, PROPAGATE_ONLY_IF_FK_VAL, id);
	pr_indent(g->out);
	pr(g->out, "if (%s != %d || r%d.has) {\n", op, PROPAGATE_ONLY_IF_FK_VAL, id);
	pr_indent(g->out);
	emit_response(g, n, pk, h, xasprintf("r%d", id), 1);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr_dedent(g->out);
	pr(g->out, "} else if (%s == %d) {\n", op, DELETE_KEY_AND_PROPAGATE);
	pr_indent(g->out);
	emit_response(g, n, pk, h, xasprintf("((%s){ .has = false })", rt), 2);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr(g->out, "cx->timestamp = ts%d;\n", id);
	if (fkt->kind == TY_NULLABLE) {
		pr_dedent(g->out);
		pr(g->out, "}\n");
	}
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * FK_FOREIGN: a change (k, new_v) of the right table: the join's copy of
 * the right value is updated, then every subscriber of k gets (its
 * hash, the new value or null), with the change's timestamp, as 4.4's
 * ForeignTableJoinProcessor (which does not look at whether the change
 * deleted anything: a delete answers every subscriber with null).
 */
static void emit_fk_foreign(Gen *g, IrNode *n, IrNode *from, CVar *k, CVar *new_v)
{
	int id = n->id;
	const JoinSpec *j = n->join;
	op_comment(g, n, xasprintf("%s (foreign-key): the right table's change, to every subscriber of its key (store %s)",
	                           join_op_name(j->type), g->topo->stores[j->store].name));
	pr(g->out, "{\n");
	pr_indent(g->out);
	emit_prefixed_key(g, from->key, use(k), FK_PREFIX_RIGHT, xasprintf("rk%d", id));
	pr(g->out, "if (%s.has) {\n", use(new_v));
	pr_indent(g->out);
	pr(g->out, "cx->value_buf.len = 0;\nstoat_buf_put_be64(&cx->value_buf, cx->timestamp);\n");
	pr(g->out, "%s(&cx->value_buf, &%s.v);\n", need(g, H_STORE_VALUE_PUT, from->val, FMT_JSON), use(new_v));
	pr(g->out, "if (!stoat_store_put_quiet(cx, %d, rk%d, stoat_buf_str(&cx->value_buf)))\n", j->store, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr_dedent(g->out);
	pr(g->out, "} else if (!stoat_store_delete_quiet(cx, %d, rk%d)) {\n", j->store, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	pr(g->out, "}\n");
	emit_prefixed_key(g, from->key, use(k), FK_PREFIX_SUBS, xasprintf("subs%d", id));
	pr(g->out, "stoat_str list%d = { NULL, 0 };\n", id);
	pr(g->out, "if (!stoat_store_get(cx, %d, subs%d, &list%d))\n", j->store, id, id);
	pr_nested(g->out, "list%d = (stoat_str){ NULL, 0 };\n", id);
	emit_error_check(g);
	pr(g->out, "stoat_str spk%d;\nbool shh%d;\nint64_t sh%d;\n", id, id, id);
	pr(g->out, "while (stoat_fk_next(&list%d, &spk%d, &shh%d, &sh%d)) {\n", id, id, id, id);
	pr_indent(g->out);
	pr(g->out, "%s pk%d;\n", type_c(n->key), id);
	pr(g->out, "if (!%s(cx, spk%d, &pk%d))\n", need(g, H_STORE_KEY_READ, n->key, FMT_JSON), id, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	g->loop_depth++;
	emit_response(g, n, xasprintf("pk%d", id), xasprintf("((stoat_opt_i64){ .has = shh%d, .v = sh%d })", id, id),
	              use(new_v), 0);
	g->loop_depth--;
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * FK_RESOLVE: a response (key k, value v: hash, right value) back in the
 * left table's task.  The left table's current value is looked up: when
 * its hash is not the response's (both null counts as equal) the left
 * value changed since, and a newer response is on its way, so this one
 * is dropped; otherwise the result table's key k changes to the joiner's
 * value (a tombstone when the right value is null in an inner join, or
 * when the left value is gone), with the response's timestamp, and no
 * old value.
 */
static void emit_fk_resolve(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	int id = n->id;
	const JoinSpec *j = n->join;
	IrNode *lt = j->table;
	bool left = j->type == JOIN_LEFT;
	op_comment(g, n, xasprintf("%s (foreign-key): the response, checked against the left value's hash (store %s)",
	                           join_op_name(j->type), g->topo->stores[lt->store].name));
	const char *h = member(use(v), "h"), *r = member(use(v), "v");
	pr(g->out, "{\n");
	pr_indent(g->out);
	pr(g->out, "cx->key_buf.len = 0;\n%s(&cx->key_buf, &%s);\n", need(g, H_STORE_KEY, lt->key, FMT_JSON), use(k));
	pr(g->out, "stoat_str stored%d;\n", id);
	pr(g->out, "bool has%d = stoat_store_get(cx, %d, stoat_buf_str(&cx->key_buf), &stored%d);\n", id, lt->store, id);
	emit_error_check(g);
	pr(g->out, "if (has%d == %s.has && (!has%d || stoat_fk_hash(stored%d) == %s.v)) {\n", id, h, id, id, h);
	pr_indent(g->out);
	const char *rt = type_c(ty_nullable(n->val));
	pr(g->out, "%s new%d = { .has = false };\n", rt, id);
	pr(g->out, "if (has%d && %s) {\n", id, left ? "true" : xasprintf("%s.has", r));
	pr_indent(g->out);
	pr(g->out, "%s l%d;\n", type_c(lt->val), id);
	pr(g->out, "if (!%s(cx, stored%d, &l%d))\n", need(g, H_STORE_VALUE_READ, lt->val, FMT_JSON), id, id);
	pr_nested(g->out, "%s;\n", fail_stmt(g));
	/* The joiner: (a, b) or (k, a, b); b is R? in a left join. */
	Node *fn = j->joiner;
	int np = node_list_len(fn->list);
	CVar *a = cvar(xasprintf("l%d", id)), *b = cvar(left ? r : xasprintf("%s.v", r));
	for (Node *p = fn->list; p; p = p->next) {
		if (!p->sym)
			continue;
		int slot = np == 3 ? p->slot : p->slot + 1;
		bind(g, p->sym, slot == 0 ? k : slot == 1 ? a : b);
	}
	char *e = emit_as(g, fn->a, n->val);
	pr(g->out, "new%d.v = %s;\nnew%d.has = true;\n", id, e, id);
	pr_dedent(g->out);
	pr(g->out, "}\n");
	bool tail = g->tail;
	g->tail = false;
	emit_change_children(g, n, k, cvar(xasprintf("((%s){ .has = false })", rt)), cvar(xasprintf("new%d", id)));
	g->tail = tail;
	pr_dedent(g->out);
	pr(g->out, "}\n");
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/*
 * See codegen_int.h.  A table read from a topic passes no change on for a
 * tombstone of a key it does not hold (docs/language.md "Tables from
 * topics"); Kafka Streams without a record cache forwards it as (null,
 * null), and its ForeignTableJoinProcessor answers every subscriber of
 * the key with null.  So the right table's source gives such a tombstone
 * to its foreign-key joins itself (and to nothing else).
 */
void emit_fk_absent_tombstone(Gen *g, IrNode *src, CVar *k)
{
	bool any = false;
	for (int i = 0; i < src->nchildren; i++)
		any |= src->children[i]->kind == IR_JOIN && src->children[i]->join->kind == JOIN_FOREIGN_KEY &&
		        src->children[i]->join->side == FK_FOREIGN;
	if (!any)
		return;
	pr(g->out, "if (!old%d.has) {\n", src->id);
	pr_indent(g->out);
	const char *none = xasprintf("((%s){ .has = false })", type_c(ty_nullable(src->val)));
	for (int i = 0; i < src->nchildren; i++) {
		IrNode *c = src->children[i];
		if (c->kind == IR_JOIN && c->join->kind == JOIN_FOREIGN_KEY && c->join->side == FK_FOREIGN)
			emit_fk_foreign(g, c, src, k, cvar(none));
	}
	pr_dedent(g->out);
	pr(g->out, "}\n");
}

/* See codegen_int.h: a table's change reaching FK_SEND (the left table) or FK_FOREIGN (the right). */
void emit_fk_join_change(Gen *g, IrNode *n, IrNode *from, CVar *k, CVar *old_v, CVar *new_v)
{
	assert(n->join->kind == JOIN_FOREIGN_KEY);
	if (n->join->side == FK_SEND)
		emit_fk_send(g, n, k, old_v, new_v);
	else
		emit_fk_foreign(g, n, from, k, new_v);
}

/* See codegen_int.h: a record of an internal topic reaching FK_RECV or FK_RESOLVE. */
void emit_fk_join_record(Gen *g, IrNode *n, CVar *k, CVar *v)
{
	assert(n->join->kind == JOIN_FOREIGN_KEY);
	if (n->join->side == FK_RECV)
		emit_fk_recv(g, n, k, v);
	else
		emit_fk_resolve(g, n, k, v);
}
