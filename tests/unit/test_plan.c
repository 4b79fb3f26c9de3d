/*
 * Unit tests for the compiler's plan stage (compiler/plan.h): each parses
 * and checks a small program from a string and asserts the topology it
 * plans to: sub-topologies, repartition and changelog topics, stores and
 * their C names, node numbering, and the pipelines with their functions,
 * entries, steps and the stores they write.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "plan.h"
#include "sema.h"
#include "types.h"

extern const char stoat_prelude[];

/* Parses, checks and plans text (diagnostics counted, not printed); NULL on errors. */
static Plan *plan_of(const char *text)
{
	diag.suppress = true;
	diag.errors = diag.warnings = 0;
	types_init();
	Program *prog = xcalloc(1, sizeof *prog);
	prog->prelude = parse_file(source_from_string("<stdlib>/std.stoat", stoat_prelude));
	prog->prelude->is_prelude = true;
	ck_assert_int_eq(diag.errors, 0);
	prog->file = parse_file(source_from_string("test.stoat", text));
	if (!sema_check(prog) || diag.errors)
		return NULL;
	return plan_build(prog);
}

/* The pipeline whose C function is cname; fails the test if there is none. */
static const Pipeline *pipeline_named(const Plan *pl, const char *cname)
{
	for (int i = 0; i < pl->npipelines; i++)
		if (strcmp(pl->pipelines[i].cname, cname) == 0)
			return &pl->pipelines[i];
	ck_abort_msg("no pipeline %s", cname);
	return NULL;
}

/* The source reading topic; fails the test if there is none. */
static const IrNode *source_of(const Plan *pl, const char *topic)
{
	for (int i = 0; i < pl->topo->nsources; i++)
		if (strcmp(pl->topo->sources[i]->topic, topic) == 0)
			return pl->topo->sources[i];
	ck_abort_msg("no source of %s", topic);
	return NULL;
}

/* Stateless operators: one sub-topology, one pipeline holding every operator, nothing internal. */
START_TEST(test_stateless_is_one_pipeline)
{
	Plan *pl = plan_of("app a {}\n"
	                   "stream s: string -> string from \"in\";\n"
	                   "s |> filter(v => v != \"\") |> map_values(v => upper(v)) |> to \"out\";\n");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(pl->nsubtopologies, 1);
	ck_assert_int_eq(pl->ntopics, 0);
	ck_assert_int_eq(pl->topo->nstores, 0);
	ck_assert_int_eq(pl->npipelines, 1);
	const Pipeline *pp = &pl->pipelines[0];
	ck_assert_int_eq(pp->kind, PIPE_SOURCE);
	ck_assert_str_eq(pp->cname, "pipeline_s");
	ck_assert_int_eq(pp->nstores, 0);
	ck_assert_int_eq(pp->nsteps, 4);
	ck_assert_int_eq(pp->steps[0].node->kind, IR_SOURCE);
	ck_assert_int_eq(pp->steps[1].node->kind, IR_FILTER);
	ck_assert_int_eq(pp->steps[2].node->kind, IR_MAP_VALUES);
	ck_assert_int_eq(pp->steps[3].node->kind, IR_SINK);
	ck_assert_int_eq(pp->steps[3].depth, 3);
	ck_assert_int_eq(pp->steps[3].calls, -1);
	xfree_all();
}
END_TEST

/*
 * group_by re-keys: the grouping reads from <app>-<table>-repartition in
 * a second sub-topology; the count keeps the store and calls after_.
 */
START_TEST(test_group_by_repartitions)
{
	Plan *pl = plan_of("app wc {}\n"
	                   "stream lines: string -> string from \"lines\";\n"
	                   "table counts = lines |> group_by((_, w) => w) |> count();\n"
	                   "counts |> to_stream() |> to \"counts\";\n");
	ck_assert_ptr_nonnull(pl);
	Topology *t = pl->topo;
	ck_assert_int_eq(pl->nsubtopologies, 2);
	ck_assert_int_eq(t->nsources, 2);
	const IrNode *rp = t->sources[1];
	ck_assert(rp->internal);
	ck_assert_str_eq(rp->topic, "wc-counts-repartition");
	ck_assert_str_eq(rp->name, "repartition_1");
	ck_assert_int_eq(rp->subtopology, 1);
	ck_assert(rp->peer->internal);
	ck_assert_int_eq(rp->peer->kind, IR_SINK);
	ck_assert_int_eq(rp->peer->subtopology, 0);
	ck_assert_ptr_eq(rp->peer->peer, rp);
	ck_assert_int_eq(rp->nchildren, 1);
	ck_assert_int_eq(rp->children[0]->kind, IR_GROUP);

	ck_assert_int_eq(t->nstores, 1);
	ck_assert_str_eq(t->stores[0].name, "counts");
	ck_assert_str_eq(t->stores[0].cname, "counts");
	ck_assert_str_eq(t->stores[0].changelog, "wc-counts-changelog");
	ck_assert(!t->stores[0].in_memory);
	ck_assert_int_eq(t->stores[0].node->kind, IR_AGGREGATE);
	ck_assert_int_eq(t->stores[0].node->subtopology, 1);

	ck_assert_int_eq(pl->ntopics, 2);
	ck_assert_int_eq(pl->topics[0].kind, TOPIC_REPARTITION);
	ck_assert_str_eq(pl->topics[0].name, "wc-counts-repartition");
	ck_assert_int_eq(pl->topics[1].kind, TOPIC_CHANGELOG);
	ck_assert_str_eq(pl->topics[1].name, "wc-counts-changelog");

	/* In the order of the C file: sources, then the store's after_ and flush_. */
	ck_assert_int_eq(pl->npipelines, 4);
	ck_assert_str_eq(pl->pipelines[0].cname, "pipeline_lines");
	ck_assert_str_eq(pl->pipelines[1].cname, "pipeline_repartition_1");
	ck_assert_str_eq(pl->pipelines[2].cname, "after_counts");
	ck_assert_str_eq(pl->pipelines[3].cname, "flush_counts");
	ck_assert_int_eq(pl->pipelines[0].nstores, 0);
	ck_assert_int_eq(pl->pipelines[1].nstores, 1);
	ck_assert_int_eq(pl->pipelines[1].stores[0], 0);
	const Pipeline *rpp = &pl->pipelines[1];
	const PlanStep *last = &rpp->steps[rpp->nsteps - 1];
	ck_assert_int_eq(last->node->kind, IR_AGGREGATE);
	ck_assert_str_eq(pl->pipelines[last->calls].cname, "after_counts");
	ck_assert_ptr_eq(plan_store_after(pl, 0), &pl->pipelines[2]);
	ck_assert_ptr_eq(plan_store_flush(pl, 0), &pl->pipelines[3]);
	ck_assert_int_eq(pl->pipelines[3].nsteps, 1);
	ck_assert_str_eq(pl->pipelines[pl->pipelines[3].steps[0].calls].cname, "after_counts");
	xfree_all();
}
END_TEST

/*
 * Repartition topics are named by repartition("name"), else the stream
 * being defined, else repartition-<n> counting every repartition in order;
 * a store outside a definition is store-<n>.
 */
START_TEST(test_repartition_names)
{
	Plan *pl = plan_of("app n {}\n"
	                   "stream s: string -> string from \"in\";\n"
	                   "s |> select_key((_, v) => v) |> group_by_key() |> count() |> to_stream() |> to \"c\";\n"
	                   "stream by_value = s |> select_key((_, v) => v) |> repartition();\n"
	                   "s |> repartition(\"mine\") |> to \"m\";\n"
	                   "s |> repartition() |> to \"x\";\n"
	                   "by_value |> to \"v\";\n");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(pl->ntopics, 5);
	ck_assert_str_eq(pl->topics[0].name, "n-repartition-1-repartition");
	ck_assert_str_eq(pl->topics[1].name, "n-by_value-repartition");
	ck_assert_str_eq(pl->topics[2].name, "n-mine-repartition");
	ck_assert_str_eq(pl->topics[3].name, "n-repartition-4-repartition");
	ck_assert_str_eq(pl->topics[4].name, "n-store-1-changelog");
	ck_assert_str_eq(pl->topo->stores[0].name, "store-1");
	ck_assert_str_eq(pl->topo->stores[0].cname, "store_1");
	/* by_value names the topic, not the source that reads it. */
	ck_assert_str_eq(source_of(pl, "n-by_value-repartition")->name, "repartition_2");
	ck_assert_int_eq(pl->nsubtopologies, 5);
	xfree_all();
}
END_TEST

/*
 * The graph is numbered as if each repartition's sink and source had been
 * made where it was written: ids follow the node list, a sink comes just
 * before its source, and sources and sinks are listed in id order.
 */
START_TEST(test_nodes_renumbered)
{
	Plan *pl = plan_of("app r {}\n"
	                   "stream s: string -> string from \"in\";\n"
	                   "table t = s |> map((k, v) => (v, k)) |> to_table();\n"
	                   "t |> to_stream() |> to \"out\";\n");
	ck_assert_ptr_nonnull(pl);
	Topology *t = pl->topo;
	/* source, map, sink, source, to_table, to_stream, sink */
	ck_assert_int_eq(t->nnodes, 7);
	for (int i = 0; i < t->nnodes; i++)
		ck_assert_int_eq(t->nodes[i]->id, i);
	static const IrKind kinds[] = { IR_SOURCE, IR_MAP, IR_SINK, IR_SOURCE, IR_TO_TABLE, IR_TO_STREAM, IR_SINK };
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(t->nodes[i]->kind, kinds[i]);
	ck_assert_ptr_eq(t->nodes[2]->peer, t->nodes[3]);
	ck_assert_ptr_eq(t->nodes[4]->parents[0], t->nodes[3]);
	ck_assert_int_eq(t->nsources, 2);
	ck_assert_int_eq(t->sources[1]->index, 1);
	ck_assert_int_eq(t->nsinks, 2);
	ck_assert_ptr_eq(t->sinks[0], t->nodes[2]);
	ck_assert_int_eq(t->sinks[1]->index, 1);
	ck_assert_str_eq(t->sources[1]->topic, "r-t-repartition");
	xfree_all();
}
END_TEST

/* A merge is a segment: both merged pipelines call it, and share its sub-topology. */
START_TEST(test_merge_is_a_segment)
{
	Plan *pl = plan_of("app m {}\n"
	                   "stream a: string -> string from \"a\";\n"
	                   "stream b: string -> string from \"b\";\n"
	                   "a |> merge(b) |> to \"out\";\n");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(pl->nsubtopologies, 1);
	ck_assert_int_eq(pl->subtopologies[0].nsources, 2);
	ck_assert_int_eq(pl->npipelines, 3);
	const Pipeline *seg = &pl->pipelines[0];
	ck_assert_int_eq(seg->kind, PIPE_SEGMENT);
	ck_assert_int_eq(seg->entry->kind, IR_MERGE);
	ck_assert_str_eq(seg->cname, "segment_2");
	ck_assert_ptr_eq(plan_entry(pl, seg->entry), seg);
	for (int i = 1; i <= 2; i++) {
		const Pipeline *pp = &pl->pipelines[i];
		ck_assert_int_eq(pp->kind, PIPE_SOURCE);
		ck_assert_int_eq(pp->nsteps, 2);
		ck_assert_ptr_eq(&pl->pipelines[pp->steps[1].calls], seg);
	}
	/* Reading order: the sources' pipelines, then the segment. */
	ck_assert_int_eq(pl->subtopologies[0].npipelines, 3);
	ck_assert_int_eq(pl->subtopologies[0].pipelines[0], 1);
	ck_assert_int_eq(pl->subtopologies[0].pipelines[2], 0);
	xfree_all();
}
END_TEST

/*
 * group_by on a table: the changes go through a topic of their own (bytes
 * values); the source table keeps a store, in memory as the program says,
 * whose after_ writes to it.
 */
START_TEST(test_table_group_by)
{
	Plan *pl = plan_of("app g {}\n"
	                   "table users in memory: string -> string from \"users\";\n"
	                   "table per_region = users |> group_by((_, r) => (r, 1)) |> count();\n"
	                   "per_region |> to_stream() |> to \"out\";\n");
	ck_assert_ptr_nonnull(pl);
	Topology *t = pl->topo;
	ck_assert_int_eq(pl->nsubtopologies, 2);
	ck_assert_int_eq(t->nstores, 2);
	ck_assert_str_eq(t->stores[0].name, "users");
	ck_assert(t->stores[0].in_memory);
	ck_assert_str_eq(t->stores[1].name, "per_region");
	ck_assert(!t->stores[1].in_memory);
	ck_assert_int_eq(pl->topics[0].kind, TOPIC_CHANGES);
	ck_assert_str_eq(pl->topics[0].name, "g-per_region-repartition");
	ck_assert(pl->topics[0].source->change);
	ck_assert_int_eq(pl->topics[0].sink->value_format, FMT_BYTES);
	ck_assert_int_eq(pl->topics[0].source->value_format, FMT_BYTES);
	ck_assert_int_eq(pl->topics[0].sink->key_format, FMT_TEXT);
	const Pipeline *after = pipeline_named(pl, "after_users");
	ck_assert_int_eq(after->subtopology, 0);
	ck_assert_ptr_eq(after->steps[0].node, t->stores[0].node);
	ck_assert_int_eq(after->steps[1].node->kind, IR_REGROUP);
	ck_assert_ptr_eq(after->steps[2].node, pl->topics[0].sink);
	/* The table source writes its own store; the change source the grouped table's. */
	const Pipeline *users = pipeline_named(pl, "pipeline_users");
	ck_assert_int_eq(users->nstores, 1);
	ck_assert_int_eq(users->stores[0], 0);
	const Pipeline *changes = pipeline_named(pl, "pipeline_repartition_1");
	ck_assert_int_eq(changes->nstores, 1);
	ck_assert_int_eq(changes->stores[0], 1);
	xfree_all();
}
END_TEST

/* cogroup: both inputs in one sub-topology, each one's pipeline writing the shared store. */
START_TEST(test_cogroup_shares_a_store)
{
	Plan *pl = plan_of("app c {}\n"
	                   "stream a: string -> i64 from \"a\";\n"
	                   "stream b: string -> i64 from \"b\";\n"
	                   "table sum = cogroup(a |> group_by_key(), (v, acc) => acc + v,\n"
	                   "                    b |> group_by_key(), (v, acc) => acc - v) |> aggregate(0);\n"
	                   "sum |> to_stream() |> to \"out\";\n");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(pl->nsubtopologies, 1);
	ck_assert_int_eq(pl->topo->nstores, 1);
	ck_assert_str_eq(pl->topo->stores[0].name, "sum");
	ck_assert_int_eq(pl->ntopics, 1);
	ck_assert_int_eq(pl->topics[0].kind, TOPIC_CHANGELOG);
	for (int i = 0; i < 2; i++) {
		const Pipeline *pp = &pl->pipelines[i];
		ck_assert_int_eq(pp->kind, PIPE_SOURCE);
		ck_assert_int_eq(pp->nstores, 1);
		ck_assert_int_eq(pp->stores[0], 0);
	}
	ck_assert_int_eq(pl->npipelines, 4);
	xfree_all();
}
END_TEST

/* A store's C name never takes another store's name: store-2 beside a table store_2. */
START_TEST(test_store_cnames_distinct)
{
	Plan *pl = plan_of("app s {}\n"
	                   "stream a: string -> string from \"a\";\n"
	                   "table store_2 = a |> group_by_key() |> count();\n"
	                   "a |> group_by_key() |> count() |> to_stream() |> to \"out\";\n"
	                   "store_2 |> to_stream() |> to \"out2\";\n");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(pl->topo->nstores, 2);
	ck_assert_str_eq(pl->topo->stores[0].name, "store_2");
	ck_assert_str_eq(pl->topo->stores[0].cname, "store_2");
	ck_assert_str_eq(pl->topo->stores[1].name, "store-2");
	ck_assert_str_eq(pl->topo->stores[1].cname, "store_2_1");
	ck_assert_ptr_nonnull(pipeline_named(pl, "after_store_2_1"));
	ck_assert_ptr_nonnull(pipeline_named(pl, "flush_store_2"));
	xfree_all();
}
END_TEST

/* A repartition topic already used is an error of the plan, reported once. */
START_TEST(test_taken_topic_is_an_error)
{
	Plan *pl = plan_of("app d {}\n"
	                   "stream a: string -> string from \"d-x-repartition\";\n"
	                   "a |> repartition(\"x\") |> to \"out\";\n");
	ck_assert_ptr_null(pl);
	ck_assert_int_eq(diag.errors, 1);
	xfree_all();
}
END_TEST

/* A stream used twice and a split stay in one pipeline: a tree of steps. */
START_TEST(test_fan_out_steps)
{
	Plan *pl = plan_of("app f {}\n"
	                   "stream s: string -> i64 from \"in\";\n"
	                   "s |> to \"all\";\n"
	                   "s |> split { branch neg = (_, v) => v < 0; default rest; };\n"
	                   "neg |> to \"neg\";\n"
	                   "rest |> to \"rest\";\n");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(pl->npipelines, 1);
	const Pipeline *pp = &pl->pipelines[0];
	/* source; to all; split; branch neg; to neg; branch rest; to rest */
	static const IrKind kinds[] = { IR_SOURCE, IR_SINK, IR_SPLIT, IR_BRANCH, IR_SINK, IR_BRANCH, IR_SINK };
	static const int depths[] = { 0, 1, 1, 2, 3, 2, 3 };
	ck_assert_int_eq(pp->nsteps, 7);
	for (int i = 0; i < 7; i++) {
		ck_assert_int_eq(pp->steps[i].node->kind, kinds[i]);
		ck_assert_int_eq(pp->steps[i].depth, depths[i]);
	}
	xfree_all();
}
END_TEST

/* Every test in one case: each forks (Check's default), so each starts from a fresh compiler state. */
/*
 * A stream-table join: the stream and the table share a sub-topology, the
 * stream's pipeline looks the table's store up (restored with it, not
 * written), a re-keyed stream is repartitioned first, and each join is a
 * co-partition group of the sources feeding its two sides.
 */
START_TEST(test_stream_table_join)
{
	Plan *pl = plan_of("app j {}\n"
	                   "stream s: string -> string from \"s\";\n"
	                   "stream other: string -> string from \"other\";\n"
	                   "table t: string -> string from \"t\";\n"
	                   "s |> join(t, (v, x) => v + x) |> to \"a\";\n"
	                   "other |> select_key((_, v) => v) |> left_join(t, (v, x) => v) |> to \"b\";\n");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(pl->nsubtopologies, 2);
	const IrNode *s = source_of(pl, "s"), *t = source_of(pl, "t"), *other = source_of(pl, "other");
	ck_assert_int_eq(s->subtopology, t->subtopology);
	ck_assert_int_ne(other->subtopology, t->subtopology);
	const Pipeline *ps = pipeline_named(pl, "pipeline_s");
	ck_assert_int_eq(ps->nstores, 1);
	ck_assert_int_eq(ps->nreads, 1);
	ck_assert_int_eq(pipeline_named(pl, "pipeline_t")->nreads, 0);
	ck_assert_int_eq(pipeline_named(pl, "pipeline_other")->nstores, 0);
	ck_assert_int_eq(pl->ncopartitions, 2);
	ck_assert_int_eq(pl->copartitions[0].nsources, 2);
	ck_assert_ptr_eq(pl->copartitions[0].sources[0], s);
	ck_assert_ptr_eq(pl->copartitions[0].sources[1], t);
	/* The re-keyed side: the internal source of its repartition topic, with the table. */
	ck_assert_int_eq(pl->copartitions[1].nsources, 2);
	ck_assert_ptr_eq(pl->copartitions[1].sources[0], t);
	ck_assert(pl->copartitions[1].sources[1]->internal);
	ck_assert_int_eq(pl->copartitions[1].sources[1]->subtopology, t->subtopology);
	xfree_all();
}
END_TEST

/*
 * A table-table join: both tables in one sub-topology, the join's own
 * store (both sides) written by both tables' after_ pipelines, its after_
 * called by the join (no flush_: its writes are quiet), one co-partition
 * group of the two sources.
 */
START_TEST(test_table_table_join)
{
	Plan *pl = plan_of("app j {}\n"
	                   "table a: string -> string from \"a\";\n"
	                   "table b: string -> string from \"b\";\n"
	                   "table ab = a |> filter(v => v != \"\") |> outer_join(b, (x, y) => (x ?? \"\") + (y ?? \"\"));\n"
	                   "ab |> to_stream() |> to \"out\";\n");
	ck_assert_ptr_nonnull(pl);
	ck_assert_int_eq(pl->nsubtopologies, 1);
	const IrNode *a = source_of(pl, "a"), *b = source_of(pl, "b");
	ck_assert_int_eq(pl->topo->nstores, 3);
	ck_assert_str_eq(pl->topo->stores[2].name, "ab");
	const IrNode *join = pl->topo->stores[2].node;
	ck_assert_int_eq(join->kind, IR_JOIN);
	ck_assert_int_eq(join->nparents, 2);
	ck_assert_ptr_nonnull(plan_store_after(pl, 2));
	ck_assert_ptr_null(plan_store_flush(pl, 2));
	ck_assert_ptr_nonnull(plan_store_flush(pl, 0));
	const Pipeline *after_a = pipeline_named(pl, "after_a"), *after_b = pipeline_named(pl, "after_b");
	ck_assert_int_eq(after_a->nstores, 1);
	ck_assert_int_eq(after_a->stores[0], 2);
	ck_assert_int_eq(after_b->nstores, 1);
	ck_assert_int_eq(after_b->stores[0], 2);
	ck_assert_int_eq(pl->ncopartitions, 1);
	ck_assert_int_eq(pl->copartitions[0].nsources, 2);
	ck_assert_ptr_eq(pl->copartitions[0].sources[0], a);
	ck_assert_ptr_eq(pl->copartitions[0].sources[1], b);
	xfree_all();
}
END_TEST

static Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("plan");
	tcase_add_test(tc, test_stateless_is_one_pipeline);
	tcase_add_test(tc, test_group_by_repartitions);
	tcase_add_test(tc, test_repartition_names);
	tcase_add_test(tc, test_nodes_renumbered);
	tcase_add_test(tc, test_merge_is_a_segment);
	tcase_add_test(tc, test_table_group_by);
	tcase_add_test(tc, test_cogroup_shares_a_store);
	tcase_add_test(tc, test_store_cnames_distinct);
	tcase_add_test(tc, test_taken_topic_is_an_error);
	tcase_add_test(tc, test_fan_out_steps);
	tcase_add_test(tc, test_stream_table_join);
	tcase_add_test(tc, test_table_table_join);
	suite_add_tcase(s, tc);
	return s;
}

/* Runs the suite; the exit status says whether every test passed. */
int main(void)
{
	SRunner *sr = srunner_create(plan_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
