/*
 * plan.c - the physical plan (see plan.h): repartition topics, stores,
 * sub-topologies, pipelines and their C names, and `stoatc plan`'s text.
 *
 * Every name derives from source names, creation order and node ids, and
 * every list is in node, source or store order, so the same program gives
 * the same plan (and the same generated C).  The graph is renumbered after
 * the repartition nodes are inserted, in the order the program is written
 * (a repartition's sink and source where the repartition is), so node ids,
 * and the generated names made of them (segment_<id>, k<id>), follow the
 * text of the program.
 */
#include "plan.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printer.h"

/* ------------------------------------------------------------------ */
/* Repartitions                                                        */
/* ------------------------------------------------------------------ */

/* Replaces `from` among p's children by `to`, in the same position. */
static void replace_child(IrNode *p, IrNode *from, IrNode *to)
{
	for (int i = 0; i < p->nchildren; i++)
		if (p->children[i] == from) {
			p->children[i] = to;
			return;
		}
	assert(!"not a child");
}

/* Makes n's only parent `parent`. */
static void set_parent(IrNode *n, IrNode *parent)
{
	n->parents = xrealloc(n->parents, sizeof *n->parents);
	n->parents[0] = parent;
	n->nparents = 1;
}

/*
 * The sink that writes parent's records to the internal topic, in place of
 * parent's child `at`; its records keep their types and take the formats
 * a topic of those types defaults to.
 */
static IrNode *internal_sink(Topology *t, IrNode *parent, IrNode *at, char *topic)
{
	IrNode *sink = ir_new(t, IR_SINK, at->span);
	sink->key = parent->key;
	sink->val = parent->val;
	sink->topic = topic;
	sink->internal = true;
	sink->key_format = format_default(parent->key);
	sink->value_format = format_default(parent->val);
	replace_child(parent, at, sink);
	set_parent(sink, parent);
	return sink;
}

/* Makes src the internal source reading back what sink writes. */
static void make_internal_source(IrNode *src, IrNode *sink)
{
	src->kind = IR_SOURCE;
	src->key = sink->key;
	src->val = sink->val;
	src->topic = sink->topic;
	src->internal = true;
	src->key_format = sink->key_format;
	src->value_format = sink->value_format;
	src->policy = POLICY_DEFAULT;
	src->peer = sink;
	sink->peer = src;
}

/*
 * Reports an internal topic whose name, <app-id>-<name>-<suffix>, is past
 * Kafka's 249 characters, at what derives it (the store's operator, the
 * repartition): Kafka would refuse to create it when the application
 * starts, so it is a compile-time error.  The name is not printed whole
 * (it is long by definition); the hint says what it is made of and what
 * to shorten.
 */
static void report_long_topic(const Topology *t, Span at, const char *what, const char *name, const char *suffix,
                              size_t len, const char *fix)
{
	char *hint = xasprintf("it is named <application id>-%s-%s and the application id has %zu characters: "
	                       "shorten it, %s",
	                       name, suffix, strlen(t->app_id), fix);
	error_hint(at, hint, "the %s of '%s' would be %zu characters long; Kafka allows %d", what, name, len,
	           KAFKA_TOPIC_NAME_MAX);
	xfree(hint);
}

/*
 * Names the topic of the count-th repartition (1-based, in node order) at
 * node n: <app-id>-<name>-repartition, the name given to repartition(),
 * else the stream or table being defined, else repartition-<count>.
 * Reports a name Kafka would refuse, or one already taken by a topic the
 * application reads (a source, or an earlier repartition).
 */
static char *repartition_topic(Topology *t, IrNode *n, int count, char **taken, int ntaken)
{
	char auto_name[32];
	const char *name = n->repartition_name ? n->repartition_name : n->binding;
	/* The sides of a stream-stream join: <name>-left-repartition and -right-, as Kafka Streams names them. */
	if (name && n->kind == IR_JOIN && n->join->kind == JOIN_STREAM_STREAM)
		name = xasprintf("%s-%s", name, n->join->side == 0 ? "left" : "right");
	if (!name) {
		snprintf(auto_name, sizeof auto_name, "repartition-%d", count);
		name = auto_name;
	}
	Span at = n->repartition_name ? n->repartition_name_span : n->span;
	const char *suffix = "repartition";
	/* A foreign-key join's two topics, named as Kafka Streams names them for a named join. */
	if (n->kind == IR_JOIN && n->join->kind == JOIN_FOREIGN_KEY) {
		if (!n->binding)
			name = xasprintf("fk-join-%d", n->span.line);
		suffix = n->join->side == FK_RECV ? "subscription-registration-topic" : "subscription-response-topic";
	}
	char *topic = xasprintf("%s-%s-%s", t->app_id ? t->app_id : "app", name, suffix);
	size_t len = strlen(topic);
	if (len > KAFKA_TOPIC_NAME_MAX)
		report_long_topic(t, at, "repartition topic", name, suffix, len,
		                  n->repartition_name ? "or the name given to repartition()"
		                                      : "or name the topic: repartition(\"name\")");
	else if (!topic_name_valid(topic, len))
		error_hint(at, "Kafka topic names are 1 to 249 of a-z A-Z 0-9 . _ - (and not . or ..)",
		           "invalid topic name");
	for (int i = 0; i < ntaken; i++)
		if (strcmp(taken[i], topic) == 0) {
			error_hint(at, "give it another name: repartition(\"name\")",
			           "the repartition topic \"%s\" is already used", topic);
			break;
		}
	return topic;
}

/*
 * Puts the nodes in creation order as if each repartition's sink and
 * source had been made where the repartition was written (sink, source,
 * then the node that needed it), renumbers them, and rebuilds the source
 * and sink lists in that order.  nplanned is the node count sema made.
 */
static void renumber(Topology *t, int nplanned)
{
	IrNode **order = xcalloc((size_t)t->nnodes, sizeof *order);
	int n = 0;
	for (int i = 0; i < nplanned; i++) {
		IrNode *node = t->nodes[i];
		if (node->kind == IR_SOURCE && node->internal) {
			order[n++] = node->peer; /* was an IR_REPARTITION: its sink comes first */
		} else if (node->needs_repartition) {
			order[n++] = node->parents[0]->peer;
			order[n++] = node->parents[0];
		}
		order[n++] = node;
	}
	assert(n == t->nnodes);
	xfree(t->nodes);
	t->nodes = order;
	t->nsources = t->nsinks = 0;
	for (int i = 0; i < n; i++) {
		IrNode *node = t->nodes[i];
		node->id = i;
		if (node->kind == IR_SOURCE) {
			node->index = t->nsources;
			t->sources = xrealloc(t->sources, sizeof *t->sources * (size_t)(t->nsources + 1));
			t->sources[t->nsources++] = node;
		} else if (node->kind == IR_SINK) {
			node->index = t->nsinks;
			t->sinks = xrealloc(t->sinks, sizeof *t->sinks * (size_t)(t->nsinks + 1));
			t->sinks[t->nsinks++] = node;
		}
	}
}

/*
 * The nodes of the stateful operator that node n leads, or 0 when n leads
 * none: a node with a store of its own, both sides of a stream-stream join
 * (led by side 0), the four nodes of a foreign-key join (led by the
 * receiver, which holds the store), a stream-table join with a buffer.
 */
static int operator_nodes(IrNode *n, IrNode **group)
{
	JoinSpec *j = n->kind == IR_JOIN ? n->join : NULL;
	if (j && j->kind == JOIN_STREAM_STREAM) {
		if (j->side != 0)
			return 0;
		group[0] = n;
		group[1] = j->peer;
		return 2;
	}
	if (j && j->kind == JOIN_FOREIGN_KEY) {
		if (j->side != FK_RECV)
			return 0;
		for (int i = 0; i < 4; i++)
			group[i] = j->fk[i];
		return 4;
	}
	if (n->has_store || (j && j->kind == JOIN_STREAM_TABLE && j->has_grace)) {
		group[0] = n;
		return 1;
	}
	return 0;
}

/* A stateful operator's leading node and its place in node order. */
typedef struct Lead {
	IrNode *node;
	int index;
} Lead;

/* By binding, then node order. */
static int compare_leads(const void *a, const void *b)
{
	const Lead *x = a, *y = b;
	int c = strcmp(x->node->binding, y->node->binding);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/*
 * Stores are named after the stream or table being defined, so two
 * stateful operators in one definition (table abc = a |> join(b, ...) |>
 * join(c, ...)) would share their stores' names and changelogs.  Every
 * such operator but the last is renamed <name>-<k>, k counting them from
 * 1 in node order (Kafka Streams numbers its unnamed stores too); the last
 * is the table itself and keeps its name.  '-' cannot appear in a name of
 * the program, so the new names are free.  The operators are sorted by
 * binding, so that a program of thousands of tables costs n log n.
 */
static void distinct_store_bindings(Topology *t)
{
	Lead *leads = xcalloc((size_t)(t->nnodes ? t->nnodes : 1), sizeof *leads);
	IrNode *group[4];
	int m = 0;
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i]->binding && operator_nodes(t->nodes[i], group))
			leads[m++] = (Lead){ t->nodes[i], i };
	qsort(leads, (size_t)m, sizeof *leads, compare_leads);
	for (int i = 0, j; i < m; i = j) {
		const char *name = leads[i].node->binding;
		for (j = i + 1; j < m && strcmp(leads[j].node->binding, name) == 0; j++)
			;
		for (int k = i; k < j - 1; k++) {
			char *renamed = xasprintf("%s-%d", name, k - i + 1);
			for (int g = operator_nodes(leads[k].node, group) - 1; g >= 0; g--)
				group[g]->binding = renamed;
		}
	}
	xfree(leads);
}

/*
 * Inserts an internal sink and source for every repartition: an
 * IR_REPARTITION node becomes the source (so what sema linked after it
 * stays linked) with a sink before it; a node marked needs_repartition
 * gets both between it and its parent.  The topic of a table's group_by
 * carries changes (a flags byte and the value), as bytes.
 */
static void plan_repartitions(Topology *t)
{
	int nplanned = t->nnodes, count = 0;
	char **taken = xcalloc((size_t)(t->nsources + nplanned), sizeof *taken);
	int ntaken = 0;
	for (int i = 0; i < t->nsources; i++)
		taken[ntaken++] = t->sources[i]->topic;
	for (int i = 0; i < nplanned; i++) {
		IrNode *n = t->nodes[i];
		if (n->kind != IR_REPARTITION && !n->needs_repartition)
			continue;
		assert(n->nparents == 1);
		char *topic = repartition_topic(t, n, ++count, taken, ntaken);
		taken[ntaken++] = topic;
		IrNode *parent = n->parents[0];
		IrNode *sink = internal_sink(t, parent, n, topic);
		if (n->kind == IR_REPARTITION) {
			n->parents = NULL;
			n->nparents = 0;
			make_internal_source(n, sink);
			continue;
		}
		IrNode *src = ir_new(t, IR_SOURCE, n->span);
		make_internal_source(src, sink);
		src->children = xmalloc(sizeof *src->children);
		src->children[0] = n;
		src->nchildren = 1;
		set_parent(n, src);
		if (n->group_table) {
			src->change = sink->change = true;
			src->value_format = sink->value_format = FMT_BYTES;
		}
	}
	xfree(taken);
	renumber(t, nplanned);
	for (int i = 0; i < t->nsources; i++)
		if (t->sources[i]->internal)
			t->sources[i]->name = xasprintf("repartition_%d", t->sources[i]->index);
	/*
	 * Writing into a repartition topic by hand mixes foreign records into
	 * it.  As for user topics (sema), a sink is warned about when the
	 * source reading its topic comes before it.
	 */
	for (int i = 0; i < t->nsinks; i++) {
		IrNode *s = t->sinks[i];
		for (int j = 0; !s->internal && s->topic && j < t->nsources; j++) {
			IrNode *src = t->sources[j];
			if (src->internal && src->id < s->id && strcmp(src->topic, s->topic) == 0) {
				warning_at(s->topic_span, "topic \"%s\" is also read by stream '%s': records will loop",
				           s->topic, src->name);
				break;
			}
		}
	}
}

/*
 * Pre-aggregation (Flink's local-global aggregation): a repartition whose
 * records go, through their group and nothing else, to a non-windowed
 * aggregation whose partial aggregates combine (count; reduce(f,
 * combinable); aggregate with merge:) is written combined.  The sink's
 * task folds each record into its key's partial, kept in memory and
 * written at every commit; the topic carries partials (the aggregation's
 * value type, in that type's default format) and the aggregation merges
 * them.  Off with the app setting pre_aggregate = false.
 *
 * Not yet (docs/language.md says so): windowed aggregations (a partial per
 * key and window, with the window's close and grace in the writing task),
 * a grouped table's (partials of the adds and the subtracts, kept apart so
 * that a group's value never passes through a state it would not have
 * had), and cogroup (a partial per input stream).
 */
static void plan_preaggs(Plan *pl)
{
	Topology *t = pl->topo;
	if (!t->pre_aggregate)
		return;
	for (int i = 0; i < t->nsinks; i++) {
		IrNode *sink = t->sinks[i];
		if (!sink->internal || sink->change)
			continue;
		IrNode *src = sink->peer;
		if (src->nchildren != 1 || src->children[0]->kind != IR_GROUP)
			continue;
		IrNode *grp = src->children[0];
		if (grp->group_table || grp->nchildren != 1 || grp->children[0]->kind != IR_AGGREGATE)
			continue;
		IrNode *agg = grp->children[0];
		if (!agg->combinable || agg->window || agg->nparents != 1)
			continue;
		sink->preagg = src->preagg = agg->preagg = agg;
		sink->preagg_step = src->preagg_step = agg->preagg_step = pl->npreaggs;
		pl->preaggs = xrealloc(pl->preaggs, (size_t)(pl->npreaggs + 1) * sizeof *pl->preaggs);
		pl->preaggs[pl->npreaggs++] = sink;
		/* The topic carries partials: the group and the aggregation read them. */
		sink->value_format = src->value_format = format_default(agg->val);
		src->val = grp->val = agg->val;
	}
}

/* ------------------------------------------------------------------ */
/* Stores and sub-topologies                                           */
/* ------------------------------------------------------------------ */

/*
 * The C name of each store: its name with every character C does not
 * allow in an identifier as '_'; "store-2" must not take the name of a
 * table called store_2, so a changed name that another store has gets
 * _<index>.
 */
static void name_stores(Topology *t)
{
	for (int i = 0; i < t->nstores; i++) {
		char *s = xstrdup(t->stores[i].name);
		for (char *c = s; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
				*c = '_';
		for (int j = 0; j < t->nstores; j++)
			if (j != i && strcmp(s, t->stores[i].name) != 0 && strcmp(s, t->stores[j].name) == 0) {
				s = xasprintf("%s_%d", s, i);
				break;
			}
		t->stores[i].cname = s;
	}
}

/*
 * The window store of an aggregation over w.  The runtime keeps a window
 * while its end is at least stream time - retention_ms; the language's
 * retention R (at least size + grace; for sliding windows twice the time
 * difference + grace) counts from a time window's start (and a sliding
 * window's: Kafka Streams' window stores are keyed by start, and its
 * fetches see windows starting after stream time - R), so the end-based
 * cut is R - size; a session's R counts from its
 * end.  Time windows have one end per advance, so segments of the advance
 * hold one end each and emit final's scan needs no index; sliding windows
 * and sessions end anywhere: larger segments, and a time index when
 * emitting final results.
 */
static void plan_window_store(Store *st, const WindowSpec *w)
{
	st->window = true;
	st->window_retention_ms = w->retention;
	switch (w->kind) {
	case WIN_TUMBLING:
	case WIN_HOPPING:
		st->retention_ms = w->retention - w->size;
		st->segment_ms = w->advance;
		st->time_index = false;
		return;
	case WIN_SLIDING:
	case WIN_SESSION:
		st->retention_ms = w->kind == WIN_SLIDING ? w->retention - w->size : w->retention;
		st->segment_ms = w->retention / 2 > 60000 ? w->retention / 2 : 60000;
		st->time_index = w->emit_final;
		return;
	}
	assert(!"unknown window kind");
}

/*
 * The window store of one side of a stream-stream join (Kafka Streams'
 * StreamJoinedStoreFactory): every record of the side with a non-null key
 * and value, kept while its time is above the side's stream time minus
 * before + after + grace (the retention; the generated code applies the
 * exact cut, the runtime drops whole segments after it).  Named
 * <table>-this-join-store / -other-join-store after Kafka Streams'
 * StreamJoined.withStoreName, the table being the stream defined by the
 * join, or join-<line> without one.  It has no downstream of its own: the
 * side's results go on through the join's merge.
 */
static void plan_join_store(Topology *t, IrNode *n)
{
	JoinSpec *j = n->join;
	const char *base = n->binding ? n->binding : xasprintf("join-%d", n->span.line);
	char *name = xasprintf("%s-%s-join-store", base, j->side == 0 ? "this" : "other");
	int64_t r = j->before + j->after + j->grace;
	j->store = t->nstores;
	t->stores = xrealloc(t->stores, sizeof *t->stores * (size_t)(t->nstores + 1));
	t->stores[t->nstores++] = (Store){
		.name = name,
		.node = n,
		.changelog = xasprintf("%s-%s-changelog", t->app_id ? t->app_id : "app", name),
		.uncached = true,
		.window = true,
		.retention_ms = r,
		.segment_ms = r / 2 > 60000 ? r / 2 : 60000,
		.window_retention_ms = r,
	};
	/*
	 * The shared store of unmatched records (left and outer joins), made
	 * with the left side's: its records leave only when emitted or joined,
	 * never by retention (a day-long segment, scanned by end through the
	 * time index).
	 */
	if (j->type == JOIN_INNER || j->side != 0)
		return;
	char *shared = xasprintf("%s-%s-shared-join-store", base, j->type == JOIN_LEFT ? "left" : "outer");
	j->outer_store = j->peer->join->outer_store = t->nstores;
	t->stores = xrealloc(t->stores, sizeof *t->stores * (size_t)(t->nstores + 1));
	t->stores[t->nstores++] = (Store){
		.name = shared,
		.node = n,
		.changelog = xasprintf("%s-%s-changelog", t->app_id ? t->app_id : "app", shared),
		.uncached = true,
		.window = true,
		.retention_ms = INT64_MAX / 4,
		.segment_ms = 86400000,
		.window_retention_ms = INT64_MAX / 4,
		.time_index = true,
	};
}

/*
 * The right task's store of a foreign-key join (Kafka Streams'
 * <name>-subscription-store): the subscriptions of each foreign key, and
 * the join's copy of the right table with timestamps (codegen_join_fk.c).
 * Written by the receiver and by the right table's answers, passed on by
 * neither (no downstream of its own).
 */
static void plan_fk_store(Topology *t, IrNode *n)
{
	const char *base = n->binding ? n->binding : xasprintf("fk-join-%d", n->span.line);
	char *name = xasprintf("%s-subscription-store", base);
	int store = t->nstores;
	for (int i = 0; i < 4; i++)
		n->join->fk[i]->join->store = store;
	t->stores = xrealloc(t->stores, sizeof *t->stores * (size_t)(t->nstores + 1));
	t->stores[t->nstores++] = (Store){
		.name = name,
		.node = n,
		.changelog = xasprintf("%s-%s-changelog", t->app_id ? t->app_id : "app", name),
		.uncached = true,
	};
}

/*
 * The buffer of a stream-table join with grace (KIP-923, Kafka Streams'
 * <join>-Buffer, a changelogged RocksDBTimeOrderedKeyValueBuffer): the
 * stream records held back, windows [arrival number, ts] of their key
 * bytes, so that a scan by end (the time index) comes in Kafka Streams'
 * order (timestamp, key bytes, arrival).  Named <stream>-buffer after the
 * stream the join defines, or join-<line>-buffer; its records leave only
 * when released, never by retention.  No downstream of its own.
 */
static void plan_buffer_store(Topology *t, IrNode *n)
{
	const char *base = n->binding ? n->binding : xasprintf("join-%d", n->span.line);
	char *name = xasprintf("%s-buffer", base);
	n->join->store = t->nstores;
	t->stores = xrealloc(t->stores, sizeof *t->stores * (size_t)(t->nstores + 1));
	t->stores[t->nstores++] = (Store){
		.name = name,
		.node = n,
		.changelog = xasprintf("%s-%s-changelog", t->app_id ? t->app_id : "app", name),
		.uncached = true,
		.window = true,
		.retention_ms = INT64_MAX / 4,
		.segment_ms = 86400000,
		.window_retention_ms = INT64_MAX / 4,
		.time_index = true,
	};
}

/*
 * The versions of a versioned table (runtime versioned.c): a window store
 * per key version, named <table>-versions, whose windows expire history
 * past their end (a version's valid-to) and whose changelog is never cut
 * by time (a key's latest version, valid to the end of time, stays until
 * replaced), in memory when the table is.
 */
static void plan_versions_store(Topology *t, IrNode *n, const char *table)
{
	char *name = xasprintf("%s-versions", table);
	int64_t h = n->history_ms;
	n->versions_store = t->nstores;
	t->stores = xrealloc(t->stores, sizeof *t->stores * (size_t)(t->nstores + 1));
	t->stores[t->nstores++] = (Store){
		.name = name,
		.node = n,
		.changelog = xasprintf("%s-%s-changelog", t->app_id ? t->app_id : "app", name),
		.in_memory = n->in_memory,
		.window = true,
		.retention_ms = h,
		.segment_ms = h / 2 > 60000 ? h / 2 : 60000,
		.window_retention_ms = INT64_MAX / 4,
		.versions = true,
	};
}

/*
 * A store per node that keeps a table, in node order: named after the
 * table being defined or store-<n>, with its changelog topic as the
 * runtime names it (reported if it is too long for Kafka) and the
 * placement the program chose.
 */
static void plan_stores(Topology *t)
{
	for (int i = 0; i < t->nnodes; i++) {
		IrNode *n = t->nodes[i];
		if (n->kind == IR_JOIN && n->join->kind == JOIN_STREAM_STREAM) {
			plan_join_store(t, n);
			continue;
		}
		if (n->kind == IR_JOIN && n->join->kind == JOIN_FOREIGN_KEY && n->join->side == FK_RECV) {
			plan_fk_store(t, n);
			continue;
		}
		if (n->kind == IR_JOIN && n->join->kind == JOIN_STREAM_TABLE && n->join->has_grace) {
			plan_buffer_store(t, n);
			continue;
		}
		if (!n->has_store)
			continue;
		char *name = n->binding ? xstrdup(n->binding) : xasprintf("store-%d", t->nstores + 1);
		n->store = t->nstores;
		t->stores = xrealloc(t->stores, sizeof *t->stores * (size_t)(t->nstores + 1));
		/* A global table's source topic is its changelog: it has none of its own. */
		t->stores[t->nstores++] = (Store){
			.name = name,
			.node = n,
			.changelog = n->global ? NULL : xasprintf("%s-%s-changelog", t->app_id ? t->app_id : "app", name),
			.in_memory = n->in_memory,
			.global = n->global,
		};
		if (n->window)
			plan_window_store(&t->stores[t->nstores - 1], n->window);
		if (n->versioned)
			plan_versions_store(t, n, name);
	}
	name_stores(t);
	for (int i = 0; i < t->nstores; i++) {
		size_t len = t->stores[i].changelog ? strlen(t->stores[i].changelog) : 0;
		if (len > KAFKA_TOPIC_NAME_MAX)
			report_long_topic(t, t->stores[i].node->span, "changelog topic", t->stores[i].name, "changelog", len,
			                  t->stores[i].node->binding ? "or the table's name" : "or name the table");
	}
}

/*
 * Marks every node reachable from n (down and, through merges and
 * cogroups, up; across a join to the table it looks up, and from a table
 * to the joins looking it up: one task holds both sides).  Not across a
 * join with a global table, which every task reads whole: the global
 * table is a sub-topology of its own.
 */
static void flood(IrNode *n, int st)
{
	if (n->subtopology == st)
		return;
	n->subtopology = st;
	for (int i = 0; i < n->nchildren; i++)
		flood(n->children[i], st);
	for (int i = 0; i < n->nparents; i++)
		flood(n->parents[i], st);
	if (n->join && n->join->table && n->join->kind != JOIN_STREAM_GLOBAL)
		flood(n->join->table, st);
	for (int i = 0; i < n->nlookups; i++)
		flood(n->lookups[i], st);
}

/* Groups the sources connected through merges, cogroups and joins into sub-topologies, in source order. */
static void plan_subtopologies(Topology *t)
{
	t->nsubtopologies = 0;
	for (int i = 0; i < t->nsources; i++)
		if (t->sources[i]->subtopology < 0)
			flood(t->sources[i], t->nsubtopologies++);
}

/* ------------------------------------------------------------------ */
/* Pipelines                                                           */
/* ------------------------------------------------------------------ */

/* Appends a pipeline (its steps and stores come later); returns its index. */
static int add_pipeline(Plan *pl, PipelineKind kind, IrNode *entry, int store, char *cname)
{
	pl->pipelines = xrealloc(pl->pipelines, sizeof *pl->pipelines * (size_t)(pl->npipelines + 1));
	pl->pipelines[pl->npipelines] = (Pipeline){
		.kind = kind, .entry = entry, .store = store, .cname = cname, .subtopology = entry->subtopology,
	};
	return pl->npipelines++;
}

/*
 * Adds n and what its function runs after it to pp's steps: a merge
 * (past the entry) is a call of its segment, a store with downstream
 * operators a call of its after_ function, and either ends the walk.
 */
static void walk_steps(const Plan *pl, Pipeline *pp, IrNode *n, int depth)
{
	bool entry = depth == 0;
	int calls = -1;
	if (n->kind == IR_MERGE && !entry)
		calls = pl->entry_pipeline[n->id];
	else if (n->has_store && n->nchildren > 0 && n->window && n->window->emit_final)
		calls = entry && pp->kind == PIPE_WINDOW_CLOSE ? -1 : pl->close_pipeline[n->store];
	else if (n->has_store && n->nchildren > 0 && !(entry && pp->kind == PIPE_STORE_AFTER))
		calls = pl->after_pipeline[n->store];
	pp->steps = xrealloc(pp->steps, sizeof *pp->steps * (size_t)(pp->nsteps + 1));
	pp->steps[pp->nsteps++] = (PlanStep){ .node = n, .depth = depth, .calls = calls };
	if (calls >= 0)
		return;
	for (int i = 0; i < n->nchildren; i++)
		walk_steps(pl, pp, n->children[i], depth + 1);
}

/*
 * Marks in stores[] the stores that n and what follows it (through merges
 * and store downstreams, up to sinks) write, and in reads[] those a join
 * among them looks up.
 */
static void collect_stores(IrNode *n, bool *seen, bool *stores, bool *reads)
{
	if (seen[n->id])
		return;
	seen[n->id] = true;
	if (n->has_store)
		stores[n->store] = true;
	/* A global table's store is not the task's to restore: the runtime keeps it whole. */
	if (n->join && n->join->table && n->join->kind != JOIN_STREAM_GLOBAL)
		reads[n->join->table->store] = true;
	if (n->join && n->join->table && n->join->table->versioned)
		reads[n->join->table->versions_store] = true;
	if (n->versioned)
		stores[n->versions_store] = true;
	if (n->join && n->join->kind == JOIN_STREAM_TABLE && n->join->has_grace)
		stores[n->join->store] = true;
	if (n->join && n->join->kind == JOIN_STREAM_STREAM) {
		stores[n->join->store] = true;
		reads[n->join->peer->join->store] = true;
		if (n->join->outer_store >= 0)
			stores[n->join->outer_store] = true;
	}
	if (n->join && n->join->kind == JOIN_FOREIGN_KEY && (n->join->side == FK_RECV || n->join->side == FK_FOREIGN))
		stores[n->join->store] = true;
	for (int i = 0; i < n->nchildren; i++)
		collect_stores(n->children[i], seen, stores, reads);
}

/*
 * Fills pp->stores: what a record entering pp may write or look up
 * (after_/flush_: below the store), and pp->reads: those only looked up.
 */
static void pipeline_stores(const Topology *t, Pipeline *pp)
{
	if (t->nstores == 0)
		return;
	bool *seen = xcalloc((size_t)t->nnodes, sizeof *seen);
	bool *stores = xcalloc((size_t)t->nstores, sizeof *stores);
	bool *reads = xcalloc((size_t)t->nstores, sizeof *reads);
	if (pp->kind == PIPE_STORE_AFTER || pp->kind == PIPE_STORE_FLUSH || pp->kind == PIPE_WINDOW_CLOSE) {
		seen[pp->entry->id] = true;
		for (int i = 0; i < pp->entry->nchildren; i++)
			collect_stores(pp->entry->children[i], seen, stores, reads);
	} else {
		collect_stores(pp->entry, seen, stores, reads);
	}
	pp->stores = xcalloc((size_t)t->nstores, sizeof *pp->stores);
	pp->reads = xcalloc((size_t)t->nstores, sizeof *pp->reads);
	for (int i = 0; i < t->nstores; i++) {
		if (stores[i] || reads[i])
			pp->stores[pp->nstores++] = i;
		if (reads[i] && !stores[i])
			pp->reads[pp->nreads++] = i;
	}
	xfree(seen);
	xfree(stores);
	xfree(reads);
}

/*
 * The pipeline breakers, each a C function: a segment per merge (called
 * directly by every merged pipeline, so a record is never queued), a
 * pipeline per source, and for a store with downstream operators an
 * after_ function (called when the store passes an update on at once) and
 * a flush_ function (for those its record cache held back).
 */
static void plan_pipelines(Plan *pl)
{
	Topology *t = pl->topo;
	pl->entry_pipeline = xcalloc((size_t)t->nnodes, sizeof *pl->entry_pipeline);
	for (int i = 0; i < t->nnodes; i++)
		pl->entry_pipeline[i] = -1;
	pl->after_pipeline = xcalloc((size_t)(t->nstores ? t->nstores : 1), sizeof *pl->after_pipeline);
	pl->flush_pipeline = xcalloc((size_t)(t->nstores ? t->nstores : 1), sizeof *pl->flush_pipeline);
	pl->close_pipeline = xcalloc((size_t)(t->nstores ? t->nstores : 1), sizeof *pl->close_pipeline);
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i]->kind == IR_MERGE)
			pl->entry_pipeline[i] =
				add_pipeline(pl, PIPE_SEGMENT, t->nodes[i], -1, xasprintf("segment_%d", t->nodes[i]->id));
	for (int i = 0; i < t->nsources; i++) {
		IrNode *s = t->sources[i];
		pl->entry_pipeline[s->id] = add_pipeline(pl, PIPE_SOURCE, s, -1, xasprintf("pipeline_%s", s->name));
	}
	for (int i = 0; i < t->nstores; i++) {
		Store *st = &t->stores[i];
		pl->after_pipeline[i] = pl->flush_pipeline[i] = pl->close_pipeline[i] = -1;
		if (st->node->nchildren == 0 || !st->node->has_store || st->versions)
			continue;
		if (st->window && st->node->window->emit_final) {
			/* Emit final: closed windows, found by a scan after each update; no change goes on. */
			pl->close_pipeline[i] =
				add_pipeline(pl, PIPE_WINDOW_CLOSE, st->node, i, xasprintf("close_%s", st->cname));
			continue;
		}
		pl->after_pipeline[i] =
			add_pipeline(pl, PIPE_STORE_AFTER, st->node, i, xasprintf("after_%s", st->cname));
		/* A table-table join's store holds its sides, written quietly: the join calls after_ itself. */
		if (st->node->kind != IR_JOIN)
			pl->flush_pipeline[i] =
				add_pipeline(pl, PIPE_STORE_FLUSH, st->node, i, xasprintf("flush_%s", st->cname));
	}
	for (int i = 0; i < pl->npipelines; i++) {
		walk_steps(pl, &pl->pipelines[i], pl->pipelines[i].entry, 0);
		pipeline_stores(t, &pl->pipelines[i]);
	}
}

/* Appends x to the int list *v of length *n. */
static void push_int(int **v, int *n, int x)
{
	*v = xrealloc(*v, sizeof **v * (size_t)(*n + 1));
	(*v)[(*n)++] = x;
}

/* Appends x to the node list *v of length *n. */
static void push_node(IrNode ***v, int *n, IrNode *x)
{
	*v = xrealloc(*v, sizeof **v * (size_t)(*n + 1));
	(*v)[(*n)++] = x;
}

/* What each sub-topology holds, and the internal topics. */
static void plan_summaries(Plan *pl)
{
	Topology *t = pl->topo;
	pl->nsubtopologies = t->nsubtopologies;
	pl->subtopologies = xcalloc((size_t)(t->nsubtopologies ? t->nsubtopologies : 1), sizeof *pl->subtopologies);
	for (int i = 0; i < t->nsources; i++) {
		SubTopology *st = &pl->subtopologies[t->sources[i]->subtopology];
		push_node(&st->sources, &st->nsources, t->sources[i]);
	}
	for (int i = 0; i < t->nsinks; i++) {
		SubTopology *st = &pl->subtopologies[t->sinks[i]->subtopology];
		push_node(&st->sinks, &st->nsinks, t->sinks[i]);
	}
	for (int i = 0; i < t->nstores; i++) {
		SubTopology *st = &pl->subtopologies[t->stores[i].node->subtopology];
		push_int(&st->stores, &st->nstores, i);
	}
	/* In reading order: the sources' pipelines, the segments, then each store's after_ and flush_. */
	for (int rank = 0; rank < 3; rank++)
		for (int i = 0; i < pl->npipelines; i++) {
			PipelineKind k = pl->pipelines[i].kind;
			if ((k == PIPE_SOURCE ? 0 : k == PIPE_SEGMENT ? 1 : 2) == rank) {
				SubTopology *st = &pl->subtopologies[pl->pipelines[i].subtopology];
				push_int(&st->pipelines, &st->npipelines, i);
			}
		}
	for (int i = 0; i < t->nsinks; i++)
		if (t->sinks[i]->internal) {
			pl->topics = xrealloc(pl->topics, sizeof *pl->topics * (size_t)(pl->ntopics + 1));
			pl->topics[pl->ntopics++] = (InternalTopic){
				.kind = t->sinks[i]->change ? TOPIC_CHANGES : TOPIC_REPARTITION,
				.name = t->sinks[i]->topic,
				.sink = t->sinks[i],
				.source = t->sinks[i]->peer,
				.store = -1,
			};
		}
	for (int i = 0; i < t->nstores; i++) {
		if (!t->stores[i].changelog)
			continue; /* a global table's */
		pl->topics = xrealloc(pl->topics, sizeof *pl->topics * (size_t)(pl->ntopics + 1));
		pl->topics[pl->ntopics++] = (InternalTopic){
			.kind = TOPIC_CHANGELOG, .name = t->stores[i].changelog, .store = i,
		};
	}
}

/* Marks in in[] the sources upstream of n (through its parents, not across joins). */
static void sources_above(const IrNode *n, bool *in)
{
	if (n->kind == IR_SOURCE) {
		in[n->index] = true;
		return;
	}
	for (int i = 0; i < n->nparents; i++)
		sources_above(n->parents[i], in);
}

/*
 * A co-partition group per join (Kafka Streams' copartitionGroups): the
 * sources feeding its stream side and those feeding its table, which must
 * have as many partitions as each other, since partition p of the stream
 * looks up partition p of the table.
 */
static void plan_copartitions(Plan *pl)
{
	Topology *t = pl->topo;
	for (int i = 0; i < t->nnodes; i++) {
		IrNode *n = t->nodes[i];
		bool ss = n->kind == IR_JOIN && n->join->kind == JOIN_STREAM_STREAM;
		/* A foreign-key join: its subscriptions meet the right table, its responses the left (FK_RESOLVE's table). */
		bool fk_recv = n->kind == IR_JOIN && n->join->kind == JOIN_FOREIGN_KEY && n->join->side == FK_RECV;
		if (n->kind != IR_JOIN ||
		    (!n->join->table && n->join->kind != JOIN_TABLE_TABLE && !(ss && n->join->side == 0) && !fk_recv))
			continue;
		if (n->join->kind == JOIN_STREAM_GLOBAL)
			continue; /* a global table holds every partition: nothing to match */
		bool *in = xcalloc((size_t)t->nsources, sizeof *in);
		sources_above(n, in); /* a table-table join: both sides are its parents */
		if (ss)
			sources_above(n->join->peer, in);
		else if (fk_recv)
			sources_above(n->join->fk[FK_FOREIGN], in);
		else if (n->join->table)
			sources_above(n->join->table, in);
		CopartitionGroup grp = { .join = n };
		for (int j = 0; j < t->nsources; j++)
			if (in[j]) {
				grp.sources = xrealloc(grp.sources, sizeof *grp.sources * (size_t)(grp.nsources + 1));
				grp.sources[grp.nsources++] = t->sources[j];
			}
		xfree(in);
		pl->copartitions = xrealloc(pl->copartitions, sizeof *pl->copartitions * (size_t)(pl->ncopartitions + 1));
		pl->copartitions[pl->ncopartitions++] = grp;
	}
}

/* The phases in dependency order: stores after renumbering, pipelines after sub-topologies. */
Plan *plan_build(Program *prog)
{
	int errors_before = diag.errors;
	Plan *pl = xcalloc(1, sizeof *pl);
	pl->prog = prog;
	pl->topo = &prog->topo;
	distinct_store_bindings(pl->topo);
	plan_repartitions(pl->topo);
	plan_preaggs(pl);
	plan_stores(pl->topo); /* after a naming error too: it reports the changelogs' */
	if (diag.errors > errors_before)
		return NULL;
	plan_subtopologies(pl->topo);
	plan_pipelines(pl);
	plan_summaries(pl);
	plan_copartitions(pl);
	return pl;
}

/* See plan.h. */
const Pipeline *plan_window_close(const Plan *plan, int store)
{
	return plan->close_pipeline[store] >= 0 ? &plan->pipelines[plan->close_pipeline[store]] : NULL;
}

/* See plan.h; entry_pipeline is indexed by the planned ids. */
const Pipeline *plan_entry(const Plan *plan, const IrNode *n)
{
	int i = plan->entry_pipeline[n->id];
	return i < 0 ? NULL : &plan->pipelines[i];
}

/* See plan.h. */
const Pipeline *plan_store_after(const Plan *plan, int store)
{
	int i = plan->after_pipeline[store];
	return i < 0 ? NULL : &plan->pipelines[i];
}

/* See plan.h. */
const Pipeline *plan_store_flush(const Plan *plan, int store)
{
	int i = plan->flush_pipeline[store];
	return i < 0 ? NULL : &plan->pipelines[i];
}

/* ------------------------------------------------------------------ */
/* stoatc plan                                                         */
/* ------------------------------------------------------------------ */

/* The file name without its directories, so the text does not depend on where stoatc ran. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* ", on error skip" (or fail, or dlq "topic") for a source with a policy of its own. */
static void pr_policy(Printer *p, const IrNode *src)
{
	if (src->policy == POLICY_FAIL)
		pr(p, ", on error fail");
	else if (src->policy == POLICY_SKIP)
		pr(p, ", on error skip");
	else if (src->policy == POLICY_DLQ)
		pr(p, ", on error dlq \"%s\"", src->dlq_topic);
}

/* A sub-topology's source: name, topic, formats, types and what is special about it. */
static void pr_source(Printer *p, const Topology *t, const IrNode *s)
{
	pr(p, "  %s %s <- \"%s\" (%s, %s): %s -> %s", s->table ? "table" : "source", s->name, s->topic,
	   format_name(s->key_format), format_name(s->value_format), type_str(s->key), type_str(s->val));
	if (s->internal)
		pr(p, ", internal%s", s->change ? ", changes" : "");
	if (s->has_store)
		pr(p, ", store %s", t->stores[s->store].name);
	pr_policy(p, s);
	pr(p, "\n");
}

/* A sub-topology's sink: its topic (or per record) and formats. */
static void pr_sink(Printer *p, const IrNode *s)
{
	if (s->topic)
		pr(p, "  sink -> \"%s\" (%s, %s)", s->topic, format_name(s->key_format), format_name(s->value_format));
	else
		pr(p, "  sink -> (per record) (%s, %s)", format_name(s->key_format), format_name(s->value_format));
	if (s->internal)
		pr(p, ", internal%s", s->change ? ", changes" : "");
	pr(p, "\n");
}

/* "tumbling 10 ms, grace 5 ms": a window as plan_text and generated comments show it. */
const char *window_text(const WindowSpec *w)
{
	switch (w->kind) {
	case WIN_TUMBLING:
		return xasprintf("tumbling %lld ms, grace %lld ms%s", (long long)w->size, (long long)w->grace,
		                 w->emit_final ? ", emit final" : "");
	case WIN_HOPPING:
		return xasprintf("hopping %lld ms every %lld ms, grace %lld ms%s", (long long)w->size, (long long)w->advance,
		                 (long long)w->grace, w->emit_final ? ", emit final" : "");
	case WIN_SLIDING:
		return xasprintf("sliding %lld ms, grace %lld ms%s", (long long)w->size, (long long)w->grace,
		                 w->emit_final ? ", emit final" : "");
	case WIN_SESSION:
		return xasprintf("session gap %lld ms, grace %lld ms%s", (long long)w->gap, (long long)w->grace,
		                 w->emit_final ? ", emit final" : "");
	}
	return "?";
}

/* "count", "reduce" or "aggregate". */
static const char *agg_name(const IrNode *n)
{
	return n->agg_kind == AGG_COUNT ? "count" : n->agg_kind == AGG_REDUCE ? "reduce" : "aggregate";
}

/* One step of a pipeline: the operator, the store it writes, the function it calls. */
static void pr_step(Printer *p, const Plan *pl, const Pipeline *pp, const PlanStep *step)
{
	const Topology *t = pl->topo;
	const IrNode *n = step->node;
	pr(p, "    %*s", step->depth * 2, "");
	bool store_entry = step->depth == 0 && (pp->kind == PIPE_STORE_AFTER || pp->kind == PIPE_STORE_FLUSH ||
	                                        pp->kind == PIPE_WINDOW_CLOSE);
	if (store_entry) {
		pr(p, "%s of store %s",
		   pp->kind == PIPE_STORE_AFTER   ? "changes"
		   : pp->kind == PIPE_STORE_FLUSH ? "held-back changes"
		                                  : "closed windows",
		   t->stores[n->store].name);
	} else {
		switch (n->kind) {
		case IR_SOURCE:
			pr(p, "%s %s", n->table ? "table" : "source", n->name);
			break;
		case IR_SINK:
			if (n->preagg)
				pr(p, "pre-aggregate for %s (store %s), at each commit repartition -> \"%s\"",
				   agg_name(n->preagg), t->stores[n->preagg->store].name, n->topic);
			else if (n->internal)
				pr(p, "%s -> \"%s\"", n->change ? "changes" : "repartition", n->topic);
			else if (n->topic)
				pr(p, "to \"%s\"", n->topic);
			else
				pr(p, "to (per record)");
			break;
		case IR_BRANCH:
			pr(p, "branch %s%s", n->name, n->lambda ? "" : " (default)");
			break;
		case IR_GROUP:
			pr(p, "group%s", n->group_table ? " (table)" : "");
			break;
		case IR_WINDOW:
			pr(p, "window %s", window_text(n->window));
			break;
		case IR_AGGREGATE:
			pr(p, "%s%s", agg_name(n), n->preagg ? " of partials" : "");
			break;
		case IR_JOIN:
			if (n->join->kind == JOIN_TABLE_TABLE) {
				pr(p, "%s (table-table)", join_op_name(n->join->type));
				break;
			}
			if (n->join->kind == JOIN_FOREIGN_KEY) {
				static const char *const what[] = {
					"subscriptions of the left table's changes, by foreign key",
					"subscriptions received, answered with the right value",
					"right table's changes, answering every subscriber",
					"responses checked against the left value's hash",
				};
				pr(p, "%s (foreign-key), %s", join_op_name(n->join->type), what[n->join->side]);
				if (n->join->side == FK_RECV || n->join->side == FK_FOREIGN)
					pr(p, " (store %s)", t->stores[n->join->store].name);
				else if (n->join->side == FK_RESOLVE)
					pr(p, " (looks up store %s)", t->stores[n->join->table->store].name);
				break;
			}
			if (n->join->kind == JOIN_STREAM_STREAM) {
				pr(p, "join stream, %s side, before %lld ms, after %lld ms, grace %lld ms (store %s, looks up %s)",
				   n->join->side == 0 ? "left" : "right", (long long)n->join->before, (long long)n->join->after,
				   (long long)n->join->grace, t->stores[n->join->store].name,
				   t->stores[n->join->peer->join->store].name);
				break;
			}
			pr(p, "%s %stable %s (store %s)", n->join->type == JOIN_LEFT ? "left_join" : "join",
			   n->join->kind == JOIN_STREAM_GLOBAL ? "global " : "", n->join->table->name ? n->join->table->name : t->stores[n->join->table->store].name,
			   t->stores[n->join->table->store].name);
			break;
		default:
			pr(p, "%s%s", n->table && n->kind != IR_TO_TABLE ? "table " : "", ir_kind_name(n->kind));
		}
		if (n->has_store)
			pr(p, ", store %s", t->stores[n->store].name);
	}
	if (step->calls >= 0)
		pr(p, " -> %s", pl->pipelines[step->calls].cname);
	pr(p, " [line %d]\n", n->span.line);
}

/* A pipeline: its function, the stores it may write, and its steps. */
static void pr_pipeline(Printer *p, const Plan *pl, const Pipeline *pp)
{
	pr(p, "  pipeline %s", pp->cname);
	int nwrites = 0;
	for (int i = 0, r = 0; i < pp->nstores; i++) {
		if (r < pp->nreads && pp->reads[r] == pp->stores[i]) {
			r++;
			continue;
		}
		pr(p, "%s%s", nwrites ? ", " : pp->nstores - pp->nreads == 1 ? " (writes store " : " (writes stores ",
		   pl->topo->stores[pp->stores[i]].name);
		nwrites++;
	}
	for (int i = 0; i < pp->nreads; i++)
		pr(p, "%s%s", i ? ", " : nwrites ? ", looks up store " : " (looks up store ",
		   pl->topo->stores[pp->reads[i]].name);
	pr(p, "%s\n", pp->nstores ? ")" : "");
	for (int i = 0; i < pp->nsteps; i++)
		pr_step(p, pl, pp, &pp->steps[i]);
}

/* One internal topic: what it carries and between which sub-topologies. */
static void pr_topic(Printer *p, const Plan *pl, const InternalTopic *it)
{
	switch (it->kind) {
	case TOPIC_REPARTITION:
	case TOPIC_CHANGES:
		pr(p, "  %s: %s, sub-topology %d -> %d (%s, %s)\n", it->name,
		   it->kind == TOPIC_CHANGES ? "changes of a table's group_by"
		   : it->sink->preagg        ? "repartition of partial aggregates"
		                             : "repartition",
		   it->sink->subtopology,
		   it->source->subtopology, format_name(it->sink->key_format), format_name(it->sink->value_format));
		break;
	case TOPIC_CHANGELOG: {
		const Store *st = &pl->topo->stores[it->store];
		pr(p, "  %s: changelog of store %s, sub-topology %d\n", it->name, st->name, st->node->subtopology);
		break;
	}
	}
}

/*
 * The header line (application settings), each sub-topology with its
 * sources, sinks, stores and pipelines, then the internal topics.
 */
char *plan_text(const Plan *pl, const char *path)
{
	const Topology *t = pl->topo;
	Printer p;
	pr_init(&p);
	pr(&p, "application \"%s\" (%s): %s, commit interval %lld ms, on error ", t->app_id, base_name(path),
	   t->guarantee ? "exactly_once" : "at_least_once", (long long)t->commit_interval_ms);
	if (t->on_error == POLICY_DLQ)
		pr(&p, "dlq \"%s\"", t->dlq_topic);
	else
		pr(&p, "%s", t->on_error == POLICY_SKIP ? "skip" : "fail");
	pr(&p, "%s\n", t->pre_aggregate ? "" : ", no pre-aggregation");
	for (int i = 0; i < pl->nsubtopologies; i++) {
		const SubTopology *st = &pl->subtopologies[i];
		pr(&p, "\nsub-topology %d\n", i);
		for (int j = 0; j < st->nsources; j++)
			pr_source(&p, t, st->sources[j]);
		for (int j = 0; j < st->nsinks; j++)
			pr_sink(&p, st->sinks[j]);
		for (int j = 0; j < st->nstores; j++) {
			const Store *s = &t->stores[st->stores[j]];
			if (s->global)
				pr(&p, "  store %s: global, %s, restored from its source topic", s->name,
				   s->in_memory ? "in memory" : "rocksdb");
			else
				pr(&p, "  store %s: %s%s, changelog \"%s\"", s->name, s->window ? "window, " : "",
				   s->in_memory ? "in memory" : "rocksdb", s->changelog);
			if (s->window)
				pr(&p, ", retention %lld ms past the end, segments of %lld ms%s%s",
				   (long long)s->retention_ms, (long long)s->segment_ms, s->time_index ? ", time index" : "",
				   s->node->window && s->node->window->emit_final ? ", emit final" : "");
			pr(&p, "%s\n", s->uncached ? ", uncached" : "");
		}
		for (int j = 0; j < st->npipelines; j++)
			pr_pipeline(&p, pl, &pl->pipelines[st->pipelines[j]]);
	}
	for (int i = 0; i < pl->ncopartitions; i++) {
		const CopartitionGroup *grp = &pl->copartitions[i];
		pr(&p, "%sco-partitioned (join, line %d):", i ? "" : "\n", grp->join->span.line);
		for (int j = 0; j < grp->nsources; j++)
			pr(&p, "%s%s \"%s\"%s", j ? ", " : " ", grp->sources[j]->name, grp->sources[j]->topic,
			   grp->sources[j]->internal ? " (internal)" : "");
		pr(&p, "\n");
	}
	pr(&p, "\ninternal topics%s\n", pl->ntopics ? "" : ": none");
	for (int i = 0; i < pl->ntopics; i++)
		pr_topic(&p, pl, &pl->topics[i]);
	return p.buf;
}
