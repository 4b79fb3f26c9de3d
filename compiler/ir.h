/*
 * ir.h - the topology graph: operators, sources, sinks and stores.
 *
 * Semantic analysis builds the logical graph while it type-checks stream
 * expressions: operators as written, with marks where the records must be
 * repartitioned (IR_REPARTITION, needs_repartition) and where a node keeps
 * a table (has_store).  The plan (plan.h) then makes it physical: it
 * inserts the internal sink and source of every repartition topic, numbers
 * the nodes, fills Topology.stores and the sub-topologies.  Code
 * generation renders the planned graph; a node with several children fans
 * out (a stream used twice).
 */
#ifndef STOAT_IR_H
#define STOAT_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "types.h"

/* The kinds of node, in ops.def's order (which also documents them). */
typedef enum IrKind {
#define IR_KIND(kind, name, drawn) kind,
#include "ops.def"
} IrKind;

/* Wire formats, as in the runtime's stoat_format. */
typedef enum Format { FMT_BYTES, FMT_TEXT, FMT_JSON, FMT_I32, FMT_I64, FMT_F64, FMT_AVRO_RAW, FMT_AVRO } Format;

typedef enum Policy { POLICY_DEFAULT, POLICY_FAIL, POLICY_SKIP, POLICY_DLQ } Policy;

/* The app header's processing guarantee. */
typedef enum Guarantee { GUARANTEE_AT_LEAST_ONCE, GUARANTEE_EXACTLY_ONCE } Guarantee;

/* What an IR_AGGREGATE folds with. */
typedef enum AggKind { AGG_COUNT, AGG_REDUCE, AGG_AGGREGATE } AggKind;

/* window(...)'s kind (sema_window.c). */
typedef enum WindowKind { WIN_TUMBLING, WIN_HOPPING, WIN_SLIDING, WIN_SESSION } WindowKind;

/*
 * A window(...) as checked: durations in milliseconds.  Time windows
 * (tumbling, hopping) are [start, start + size) with starts at multiples
 * of advance (tumbling: advance = size); sliding windows span size (the
 * maximum time difference, [t - size, t]); sessions close after gap of
 * inactivity.  retention is the language's (at least size + grace, or
 * gap + grace): the plan turns it into the store's.
 */
typedef struct WindowSpec {
	WindowKind kind;
	int64_t size, advance, gap, grace, retention;
	bool emit_final;  /* emit final: one result per window once it closes; else every change */
	Span span;        /* the window(...) step */
} WindowSpec;

/* The longest duration a window(...) takes (100 years, in ms): sema refuses more. */
#define MAX_WINDOW_DURATION ((int64_t)36500 * 86400000)

/*
 * The most a windowed aggregation's arithmetic adds to a record's event
 * time (window ends, grace, the next windows a sliding or session record
 * looks at): a record whose time is above INT64_MAX minus this fails
 * (codegen), so no sum overflows.  Durations are at most
 * MAX_WINDOW_DURATION, so this cannot overflow either.
 */
int64_t window_time_reach(const WindowSpec *w);

/*
 * What an IR_JOIN joins (docs/language.md, "Joins"): only
 * JOIN_STREAM_TABLE and JOIN_TABLE_TABLE are checked and generated today;
 * the others name the shapes the language reserves for them.
 */
typedef enum JoinKind {
	JOIN_STREAM_TABLE,  /* stream |> join(table, (v, t) => ...): a lookup in the table's store */
	JOIN_STREAM_STREAM, /* stream |> join(other, within D, grace D, ...): window stores (not yet) */
	JOIN_STREAM_GLOBAL, /* stream |> join(global, on (k, v) => key, ...): a lookup in the global
	                       table's store by the selected key; no repartition, no co-partitioning */
	JOIN_TABLE_TABLE,   /* table |> join(table, (a, b) => ...): changes of either side, the other
	                       looked up in the join's own store of both sides */
	JOIN_FOREIGN_KEY,   /* table |> join(table, on v => fk, ...): KIP-213, four nodes (JoinSpec.fk) */
} JoinKind;

/* Inner, left or outer (which side keeps its unmatched records). */
typedef enum JoinType { JOIN_INNER, JOIN_LEFT, JOIN_OUTER } JoinType;

/* The operator that writes a join of this type: "join", "left_join" or "outer_join". */
const char *join_op_name(JoinType type);

/*
 * An IR_JOIN as checked.  table: for a stream-table join, the node that
 * keeps the table (has_store), whose store the stream's records look up;
 * it is not a parent (its updates produce no output) but the plan puts
 * it in the stream's sub-topology and co-partition group.  A table-table
 * join has no table: its two parents are the left and the right side.
 */
typedef struct JoinSpec {
	JoinKind kind;
	JoinType type;
	IrNode *table;
	Node *joiner;   /* (v, t) => ... or (k, v, t) => ... */
	Node *selector; /* JOIN_STREAM_GLOBAL: on (k, v) => key, the global table's key to look up */
	Span other_span; /* the other side as written */
	/*
	 * JOIN_STREAM_STREAM: a join is two IR_JOIN nodes, one per side (side
	 * 0 left, 1 right), each a child of its side's stream, both parents of
	 * one IR_MERGE that carries the results on.  Each side writes its own
	 * window store (store, set by the plan) and reads its peer's; a record
	 * of the left side at t joins right records in [t - before, t + after]
	 * (both inclusive), and each store keeps before + after + grace.
	 */
	int side;
	IrNode *peer;
	int64_t before, after, grace;
	int store;
	/*
	 * JOIN_STREAM_TABLE with grace D (KIP-923, a versioned table): grace
	 * is D and store the join's buffer (set by the plan), a window store
	 * of the records held back: window [arrival, ts] of key bytes.
	 */
	bool has_grace;
	/*
	 * left_join / outer_join: the window store both sides share of the
	 * records still waiting for a partner (Kafka Streams' outer store):
	 * windows [n, t] of key [side][key] (side 0 right, 1 left), so that a
	 * scan by end comes in Kafka Streams' order (time, right before left,
	 * key, arrival).  -1 for an inner join.
	 */
	int outer_store;
	/*
	 * JOIN_FOREIGN_KEY (KIP-213): four IR_JOIN nodes, fk[] in FkRole
	 * order, each with its own copy of the spec (side = its role):
	 * FK_SEND a child of the left table (its changes become subscription
	 * instructions keyed by the foreign key), FK_RECV reading them back
	 * from the subscription-registration topic (needs_repartition) in the
	 * right table's task, FK_FOREIGN a child of the right table (its
	 * changes answer every subscriber), both feeding one IR_MERGE whose
	 * child FK_RESOLVE reads the responses back from the
	 * subscription-response topic (needs_repartition) in the left
	 * table's task, checks the left value's hash and makes the result
	 * table.  store (FK_RECV's, set by the plan) holds the right table's
	 * values and the subscriptions; table (FK_RESOLVE) is the left table,
	 * whose store the resolver reads.  extractor: v => fk or (k, v) => fk.
	 */
	struct IrNode *fk[4];
	Node *extractor;
} JoinSpec;

/* The roles of a foreign-key join's nodes (JoinSpec.side, index of JoinSpec.fk). */
enum FkRole { FK_SEND, FK_RECV, FK_FOREIGN, FK_RESOLVE };

struct IrNode {
	IrKind kind;
	int id;             /* creation order (renumbered by the plan): stable names in generated code */
	int depth;          /* operators on the longest path from a source (ir_link; see MAX_PIPELINE_DEPTH) */
	Span span;          /* the operator in the source */
	Node *lambda;       /* the operator's function, if any */
	Type *key, *val;    /* types of the records this node outputs */
	IrNode **parents;
	int nparents;
	IrNode **children;
	int nchildren;
	char *name;         /* the stream name bound to this node, if any */
	int subtopology;    /* set by the plan */

	/* IR_SOURCE and IR_SINK */
	char *topic;        /* NULL for a per-record sink topic (lambda) */
	Span topic_span;    /* IR_SINK with a topic: where the program names it */
	Format key_format, value_format;
	bool internal;      /* a repartition topic's sink or source (made by the plan) */
	bool table;         /* this node's records are a table's changes (key, old, new) */
	bool global;        /* IR_SOURCE: a global table (every partition in one store on every
	                       instance, no changelog; only joined from streams) */
	bool may_delete;    /* table: a change may delete its key (a null new value) */
	bool grouped;       /* a grouped stream or table (IR_GROUP) */
	bool group_table;   /* IR_GROUP: of a table's changes (aggregations need a subtractor) */
	bool cogrouped;     /* IR_COGROUP: only aggregate(init) may follow */
	bool change;        /* internal sink/source whose values are changes (old out, new in) */
	bool has_store;     /* the node keeps a table in a state store, topo->stores[store] */
	bool in_memory;     /* has_store: placed in memory (table name in memory = ...) */
	bool key_changed;   /* the key changed since the sub-topology's source */
	bool needs_repartition; /* the records must meet their key's partition first: the plan
	                           inserts a repartition topic between this node and its parent */
	const char *binding; /* has_store, repartitions: the stream or table being defined where
	                        the node was written (names its store and topic), or NULL */
	char *repartition_name; /* IR_REPARTITION: repartition("name"), or NULL */
	Span repartition_name_span;
	WindowSpec *window; /* IR_WINDOW and the IR_AGGREGATE after it: its windows */
	AggKind agg_kind;   /* IR_AGGREGATE */
	bool folds_null_values; /* IR_AGGREGATE: a record with a null value is folded in, not dropped
	                           (count and aggregate over time or session windows, whose Kafka
	                           Streams processors skip only null keys) */
	Node *init;         /* IR_AGGREGATE: aggregate's initial value */
	Node *subtractor;   /* IR_AGGREGATE of a grouped table: takes the old value out */
	Node *merger;       /* IR_AGGREGATE over session windows: (a, b) or (k, a, b), the
	                       aggregate of two sessions a record merges (Kafka Streams' Merger) */
	Node **adders;      /* IR_COGROUP: the adder of each parent, in parent order */
	/*
	 * IR_AGGREGATE of a grouped stream: whether its partial aggregates
	 * combine (count always; reduce(f, combinable); aggregate with a
	 * merge: combiner, `combiner`, (a, b) or (k, a, b)), so that the plan
	 * may pre-aggregate before its repartition.
	 */
	bool combinable;
	Node *combiner;
	/*
	 * Set by the plan on a repartition's internal sink and source, and on
	 * the aggregation itself, when the sink's task pre-aggregates for
	 * that aggregation (count, reduce or aggregate): the topic carries
	 * partial aggregates (of the aggregation's value type), which the
	 * aggregation merges.  preagg_step: its index among the plan's steps.
	 */
	IrNode *preagg;
	int preagg_step;
	int store;          /* has_store: index into Topology.stores (set by the plan) */
	/*
	 * A versioned table from a topic (table t versioned(history = D)):
	 * versioned is set, history_ms its history, and versions_store (set by
	 * the plan) its window store of every key's versions (runtime
	 * versioned.c), besides the key-value store of its latest values.
	 */
	bool versioned;
	int64_t history_ms;
	int versions_store;
	IrNode *peer;       /* internal: the source of a sink, the sink of a source */
	Policy policy;      /* IR_SOURCE */
	char *dlq_topic;    /* IR_SOURCE with POLICY_DLQ */
	Node *timestamp;    /* IR_SOURCE: the event-time extractor; IR_SINK: the
	                       output timestamp (lambdas over k, v); or NULL */
	int index;          /* position among sources / sinks */
	JoinSpec *join;     /* IR_JOIN */
	IrNode **lookups;   /* has_store: the IR_JOIN nodes that look this table up */
	int nlookups;
};

/*
 * A state store: one per aggregation or kept table, named after its table.
 * The plan makes them (plan.c:plan_stores), in node order.
 */
typedef struct Store {
	char *name;
	IrNode *node;      /* the node that writes it: its children are the store's downstream */
	char *cname;       /* C identifier the plan's function names derive from (after_<cname>) */
	char *changelog;   /* <app-id>-<name>-changelog, the topic the runtime restores it from */
	bool in_memory;    /* placed in memory (table name in memory = ...) rather than RocksDB */
	bool global;       /* a global table's: all partitions in one, no changelog (NULL) */
	/*
	 * A window store (node->window): windows are kept while their end is
	 * at least stream time - retention_ms, in segments of segment_ms by
	 * end; time_index orders them by end across keys (the runtime's
	 * stoat_store_desc fields).  window_retention_ms: the retention the
	 * program states (size + grace by default), from which the
	 * changelog's time retention follows.
	 */
	bool window;
	int64_t retention_ms, segment_ms, window_retention_ms;
	bool time_index;
	/* Read and written past the record cache: a join's own stores (the
	 * sides of a stream-stream join, its unmatched records, a grace
	 * buffer, a foreign-key join's subscriptions), which Kafka Streams
	 * builds without caching.  A window fetch would otherwise scan the
	 * whole cache at every record. */
	bool uncached;
	/* The versions of a versioned table (node->versioned): written and read by
	 * runtime versioned.c, with no downstream of its own. */
	bool versions;
} Store;

typedef struct Topology {
	/* app header */
	char *app_id;
	Span app_span;
	Guarantee guarantee;
	int64_t commit_interval_ms;
	Policy on_error;           /* FAIL, SKIP or DLQ */
	char *dlq_topic;           /* on_error == POLICY_DLQ */
	bool pre_aggregate;        /* pre_aggregate: combine before repartitions (default true) */

	IrNode **nodes;            /* all nodes, by id */
	int nnodes;
	IrNode **sources;
	int nsources;
	IrNode **sinks;
	int nsinks;
	Store *stores;             /* filled by the plan */
	int nstores;
	int nsubtopologies;        /* set by the plan */
} Topology;

/*
 * How many operators may follow each other from a source, across stream
 * definitions (a |> f |> g, or stream b = a |> f; b |> g): the plan and
 * code generation walk that path recursively (one C function holds it),
 * so sema refuses a longer one with a caret, well inside an 8 MB stack
 * under AddressSanitizer too (tests/scale).  Fan-out is not depth.
 */
enum { MAX_PIPELINE_DEPTH = 1000 };

IrNode *ir_new(Topology *t, IrKind kind, Span span);
void ir_link(IrNode *parent, IrNode *child);
/* The kind's name in generated comments ("filter", "to", ...). */
const char *ir_kind_name(IrKind kind);
/* Whether stoatc graph draws nodes of this kind (IR_GROUP it draws through). */
bool ir_kind_drawn(IrKind kind);
const char *format_name(Format f);
/* The format a topic carrying values of type t uses unless told otherwise. */
Format format_default(Type *t);
/* Kafka's longest topic name (Topic.MAX_NAME_LENGTH); the plan's internal
 * topics and so the application id that begins them must fit it too. */
enum { KAFKA_TOPIC_NAME_MAX = 249 };
/* Would Kafka accept this topic name (1-249 of [a-zA-Z0-9._-], not . or ..)? */
bool topic_name_valid(const char *topic, size_t len);

#endif
