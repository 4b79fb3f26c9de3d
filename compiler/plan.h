/*
 * plan.h - the physical plan: from sema's logical topology to what runs.
 *
 * Sema checks and types the program and builds a logical graph (ir.h):
 * operators as written, nodes marked where the records must be
 * repartitioned and where a table is kept.  The plan takes every physical
 * decision from there:
 *
 *   repartitions    each IR_REPARTITION and needs_repartition becomes an
 *                   internal sink and source pair around a topic named
 *                   <app-id>-<name>-repartition (the nodes are inserted
 *                   into the graph, which is renumbered in creation order);
 *   stores          one per node that keeps a table: name, changelog topic,
 *                   C name, placement (Topology.stores, which nodes index);
 *   sub-topologies  sources connected through merges, cogroups and joins;
 *   co-partitioning the source topics a join needs partitioned alike (a
 *                   group per join), which the Kafka driver checks;
 *   pre-aggregation a repartition feeding a combinable aggregation only
 *                   (count, reduce(f, combinable), aggregate with merge:)
 *                   carries partials combined per key and commit;
 *   pipelines       the C functions records run through, one per pipeline
 *                   breaker: a source, a merge (its segment), a store with
 *                   downstream operators (after_ and flush_), a window
 *                   store emitting final results (close_); join buffers
 *                   will be a further kind;
 *   C names         of those functions, and of the stores.
 *
 * Code generation renders a plan; `stoatc plan` prints it (plan_text).
 */
#ifndef STOAT_PLAN_H
#define STOAT_PLAN_H

#include <stdbool.h>

#include "sema.h"

typedef enum PipelineKind {
	PIPE_SOURCE,      /* pipeline_<source>: a source's records, decoded, through its operators */
	PIPE_SEGMENT,     /* segment_<id>: what follows a merge, called by every merged pipeline */
	PIPE_STORE_AFTER, /* after_<store>: what follows each change of a table's key */
	PIPE_STORE_FLUSH, /* flush_<store>: the changes the record cache held back, into after_ */
	PIPE_WINDOW_CLOSE,/* close_<store>: emit final's windows that closed, through what follows */
} PipelineKind;

/* One operator fused into a pipeline's function. */
typedef struct PlanStep {
	IrNode *node;
	int depth;   /* in the operator tree below the entry (the entry is 0) */
	int calls;   /* the pipeline this step calls (a merge's segment, a store's after_), or -1 */
} PlanStep;

typedef struct Pipeline {
	PipelineKind kind;
	IrNode *entry;    /* the source, the merge, or (after, flush) the store's node */
	int store;        /* PIPE_STORE_AFTER, PIPE_STORE_FLUSH, PIPE_WINDOW_CLOSE: the store; else -1 */
	char *cname;      /* the C function */
	int subtopology;
	PlanStep *steps;  /* what its function does, in order, starting with the entry */
	int nsteps;
	int *stores;      /* the stores a record entering here may write or look up (a
	                     join's table), through the functions it calls too (for a
	                     source, what the runtime restores with its partitions),
	                     in store order */
	int nstores;
	int *reads;       /* those of stores it only looks up, in store order */
	int nreads;
} Pipeline;

typedef enum TopicKind {
	TOPIC_REPARTITION, /* records re-keyed, read back by their key's partition */
	TOPIC_CHANGES,     /* a table's group_by: changes (old value out, new in) */
	TOPIC_CHANGELOG,   /* a store's changelog, written and restored by the runtime */
} TopicKind;

/* A topic the application owns, named by the plan. */
typedef struct InternalTopic {
	TopicKind kind;
	char *name;
	IrNode *sink, *source; /* repartition and changes topics */
	int store;             /* TOPIC_CHANGELOG: the store; else -1 */
} InternalTopic;

typedef struct SubTopology {
	IrNode **sources;  /* in source order */
	int nsources;
	IrNode **sinks;    /* in sink order */
	int nsinks;
	int *stores;       /* the stores its operators keep, in store order */
	int nstores;
	int *pipelines;    /* its source pipelines, then segments, then after_/flush_/close_ */
	int npipelines;
} SubTopology;

/*
 * Source topics whose partitions must match (Kafka Streams'
 * copartitionGroups): a join's two sides, each traced back to the
 * sources feeding it in its sub-topology (a repartitioned side: the
 * internal source, whose topic the driver creates to match the others).
 */
typedef struct CopartitionGroup {
	IrNode *join;      /* the IR_JOIN that needs it */
	IrNode **sources;  /* in source order, each once */
	int nsources;
} CopartitionGroup;

typedef struct Plan {
	Program *prog;
	Topology *topo;           /* the planned graph: internal nodes inserted, stores filled */
	InternalTopic *topics;    /* repartition topics in node order, then changelogs in store order */
	int ntopics;
	SubTopology *subtopologies;
	int nsubtopologies;
	Pipeline *pipelines;      /* in the order their functions appear in the C file:
	                             segments, source pipelines, then each store's after_ and flush_ */
	int npipelines;
	int *entry_pipeline;      /* by node id: the source or segment pipeline it starts, or -1 */
	int *after_pipeline;      /* by store: its after_ pipeline, or -1 (nothing downstream) */
	int *flush_pipeline;      /* by store: its flush_ pipeline, or -1 */
	int *close_pipeline;      /* by store: its close_ pipeline (a window store emitting
	                             final results, with something downstream), or -1 */
	CopartitionGroup *copartitions; /* one per join, in node order */
	int ncopartitions;
	IrNode **preaggs;         /* the internal sinks that pre-aggregate (IrNode.preagg), in
	                             sink order: the runtime's steps */
	int npreaggs;
} Plan;

/*
 * Plans a program sema accepted: changes prog->topo in place (see the top)
 * and returns the plan, or NULL after reporting errors (an internal topic
 * name Kafka would refuse, or one already used).  A plan returned with
 * errors reported (windows code generation cannot render yet) is for
 * `stoatc plan` to print only: callers check diag.errors before codegen.
 */
Plan *plan_build(Program *prog);

/* The pipeline a source or merge node starts, or NULL. */
const Pipeline *plan_entry(const Plan *plan, const IrNode *n);

/* The after_ pipeline of store `store`, or NULL when nothing follows the table. */
const Pipeline *plan_store_after(const Plan *plan, int store);

/* The flush_ pipeline of store `store`, or NULL when nothing follows the table. */
const Pipeline *plan_store_flush(const Plan *plan, int store);

/* The close_ pipeline of window store `store`, or NULL (emit changes, or nothing follows). */
const Pipeline *plan_window_close(const Plan *plan, int store);

/* "tumbling 10 ms, grace 5 ms": a window for plan_text and generated comments. */
const char *window_text(const WindowSpec *w);

/* The plan as text (stoatc plan): deterministic; path is the .stoat file. */
char *plan_text(const Plan *plan, const char *path);

#endif
