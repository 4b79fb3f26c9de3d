/*
 * sema_int.h - what the three files of semantic analysis share (private to
 * them; the rest of the compiler includes sema.h).
 *
 *   sema.c         symbols and suggestions, record types, extern functions,
 *                  formats, topic names, store placements and error
 *                  policies, the app header,
 *                  the order of work (sema_check)
 *   sema_expr.c    expressions: names, fields, calls and overloads, records,
 *                  arrays, narrowing facts, lambdas
 *   sema_stream.c  the operator table (ops.def), pipeline steps, sources,
 *                  sinks, splits, and the topology they build
 *   sema_aggregate.c  grouping, count / reduce / aggregate, cogroup, to_table
 *   sema_join.c    joins
 *   sema_window.c  event time, window(...), output timestamps
 */
#ifndef STOAT_SEMA_INT_H
#define STOAT_SEMA_INT_H

#include "sema.h"

/*
 * Everything one run of the checker knows besides the AST it annotates: it
 * is created by sema_check and passed to every function that needs it, so
 * the checker has no state of its own between runs.
 */
typedef struct Sema {
	Program *prog;
	Topology *topo;
	Symbol *globals;          /* streams, types, functions */
	/* globals by name and kind (open addressing), so a lookup does not walk them all */
	Symbol **global_index;
	int nglobal_index, capglobal_index;
	Symbol *locals;           /* lambda parameters and loop variables */
	/* Path expressions (x, x.f.g) known to be non-null at this point (same_path). */
	Node **facts;
	int nfacts, capfacts;
	/* The stream being defined (stream NAME = ...): the plan names repartition topics and stores after it. */
	const char *binding_name;
} Sema;

/* How an operator is written (ops.def's form column). */
typedef enum OpForm { FORM_STEP, FORM_KEYWORD, FORM_BLOCK, FORM_CALL } OpForm;

/* What an operator may follow (ops.def's on column): one bit per kind of records. */
enum { ON_STREAM = 1, ON_TABLE = 2, ON_GROUPED = 4, ON_GROUPED_TABLE = 8, ON_COGROUPED = 16 };

typedef enum Operator {
#define OPERATOR(id, name, form, kind, min_args, max_args, on, stateful) id,
#include "ops.def"
} Operator;

/* One row of ops.def's operator table. */
typedef struct OpInfo {
	Operator id;
	const char *name;
	OpForm form;
	IrKind kind;
	int min_args, max_args; /* max_args -1: no limit */
	unsigned on;            /* ON_ bits */
	bool stateful;
} OpInfo;

/* Tracks the closest candidate name to `wanted`, for "did you mean" hints. */
typedef struct Suggest {
	const char *wanted;
	const char *best;
	int dist;
} Suggest;

/* A set of names (open addressing), for "given twice" checks over many fields in linear time. */
typedef struct NameSet {
	const char **slots;
	int n, cap;
} NameSet;

/* sema.c: name sets */
bool nameset_add(NameSet *set, const char *name);
void nameset_free(NameSet *set);

/* sema.c: symbols and suggestions */
Symbol *sym_new(SymKind kind, const char *name, Span span);
Symbol *lookup_in(Symbol *scope, const char *name);
Symbol *lookup_global(Sema *sema, const char *name, SymKind kind);
void suggest_consider(Suggest *s, const char *candidate);
char *did_you_mean(Suggest *s);

/* sema.c: types, formats, topics, placements, policies, stream names */
Type *resolve_type(Sema *sema, Node *te);
bool parse_format(Node *f, Format *out);
void check_format(Node *where, Format f, Type *t, const char *what);
void check_topic_name(const char *topic, size_t len, Span span);
Policy parse_policy(Node *p);
void check_placement(Node *place, IrNode *n, const char *name);
bool define_stream(Sema *sema, const char *name, Span span, IrNode *ir, bool is_source);

/* sema_expr.c */
Type *check_expr(Sema *sema, Node *e, Type *hint);
Type *check_as(Sema *sema, Node *e, Type *want, const char *what);
bool assignable(Type *from, Type *to);
Type *check_lambda(Sema *sema, Node *lam, Type *key, Type *val, Type *hint, const char *opname);
Type *check_lambda_typed(Sema *sema, Node *lam, int n_allowed, const int *counts, Type *const *const *types,
                         Type *hint, const char *opname, const char *shape);

/* sema_stream.c: the items of a file that make the topology */
void check_source(Sema *sema, Node *it);

/* sema_stream.c: what the operators' checks share */
const OpInfo *operator_info(Operator id);           /* ops.def's row of id */
unsigned input_of(const IrNode *n);                 /* the ON_ bit of n's records */
const char *node_what(const IrNode *n);             /* "a stream", "a grouped table", ... for messages */
bool check_arity(const OpInfo *op, Node *step, int nargs);
void report_wrong_input(const OpInfo *op, const IrNode *parent, Span at);
IrNode *follow(Sema *sema, IrNode *parent, IrKind kind, Span span); /* a node carrying on from parent */
void need_repartition(Sema *sema, IrNode *n);       /* n's records must meet their key's partition first */
void add_store(Sema *sema, IrNode *n);              /* n keeps a table in a state store */
IrNode *check_stream(Sema *sema, Node *e);          /* an expression denoting a stream: its last node */

/* sema_aggregate.c */
IrNode *check_grouping(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs);
IrNode *check_cogroup(Sema *sema, Node *e);

/* sema_join.c */
IrNode *check_join(Sema *sema, IrNode *parent, Node *step, const OpInfo *op, int nargs);
/* A table straight from a foreign-key join's result, which op cannot follow (reported)? */
bool fk_result_needs_store(const IrNode *t, Span at, const char *opname);

/* sema_window.c */
void check_timestamp_extractor(Sema *sema, Node *it, IrNode *src);
void check_output_timestamp(Sema *sema, Node *to, IrNode *parent, IrNode *sink);
IrNode *check_window(Sema *sema, IrNode *parent, Node *step);
void check_stream_def(Sema *sema, Node *it);
void check_statement(Sema *sema, Node *it);
void check_split(Sema *sema, Node *it);

#endif
