/*
 * codegen_int.h - what the code generator's files share (private to them).
 *
 * codegen.c        types, the file's header comment, the application
 *                  table, codegen(): the plan's pipelines (plan.h) in its
 *                  order, each rendered by the file of its kind
 * codegen_expr.c   expressions and conditions
 * codegen_ops.c    stateless operators, sinks, pipelines and merge segments
 * codegen_table.c  stores, aggregations and the operators on tables
 * codegen_join.c   joins: a stream's lookup in a table's store
 * codegen_join_table.c table-table joins: each side's change against the other
 * codegen_join_stream.c  windowed stream-stream joins: two window stores
 * codegen_join_fk.c  foreign-key joins: subscriptions, responses, the hash check
 * codegen_serde.c  helpers: JSON readers and writers, decoders, encoders,
 *                  indexing; the helper registry and its output
 * codegen_store.c  the store key and value codecs, from one layout table
 * codegen_window.c windowed aggregations and the pipelines after window stores
 * codegen_session.c session windows: merging sessions, emit final's bound
 *
 * The public entry point stays codegen.h.
 */
#ifndef STOAT_CODEGEN_INT_H
#define STOAT_CODEGEN_INT_H

#include <stdbool.h>

#include "codegen.h"
#include "printer.h"

/* Helpers discovered while emitting pipelines, generated afterwards. */
typedef enum HelperKind {
	H_JSON_READ, H_JSON_WRITE, H_DECODE, H_ENCODE, H_INDEX, H_GET,
	H_STORE_KEY,       /* store_key_T: appends the order-preserving key */
	H_STORE_KEY_GET,   /* store_key_get_T: reads one back from a cursor */
	H_STORE_KEY_READ,  /* store_key_read_T: a whole key, or an error */
	H_STORE_VALUE_PUT, /* store_value_put_T: appends the compact value */
	H_STORE_VALUE_GET, /* store_value_get_T: reads one back from a cursor */
	H_STORE_VALUE_READ, /* store_value_read_T: a whole value, or an error */
	H_CHANGE_READ,     /* change_read_T: a grouped table's repartitioned change */
	H_STORE_KEY_JSON,  /* store_key_json_T: a whole key as JSON (reading a store offline) */
	H_STORE_VALUE_JSON, /* store_value_json_T: a whole value as JSON (the same) */
	H_AVRO_READ,       /* avro_read_T: a value of T's Avro schema from a reader (codegen_avro.c) */
	H_AVRO_WRITE,      /* avro_write_T: the same, appended to a buffer */
	H_COUNT
} HelperKind;

typedef struct Helper {
	HelperKind kind;
	Type *type;
	Format format;
} Helper;

/*
 * A C variable (or a part of one, such as x.v of x) that emitted code may
 * refer to.  Whoever writes its name into the output calls use(), which
 * sets used on it and on what it is part of, so a declaration can be
 * followed by (void)x; exactly when nothing referred to it (as re2c's
 * Label.used) without reading the output back.
 */
typedef struct CVar {
	const char *c;      /* the C text: always a variable or member path */
	struct CVar *whole; /* the variable this is a part of, or NULL */
	bool used;
} CVar;

/* What a lambda parameter, let or comprehension variable stands for. */
typedef struct Binding {
	Symbol *sym;
	CVar *var;
} Binding;

/* Emitted functions, kept apart until the file is assembled (see codegen()). */
typedef struct Chunk {
	Printer text;
	bool has_line; /* holds #line directives into the .stoat file */
} Chunk;

typedef struct Gen {
	Program *prog;
	Topology *topo;
	const Plan *plan;    /* the pipelines and their C names (NULL for the types header) */
	const CodegenOptions *opts;
	Printer *out;
	int tmp;
	bool in_segment;     /* in a merge segment: fail is return false */
	int loop_depth;      /* inside a flat_map loop */
	bool tail;           /* nothing follows the current node in its loop */
	bool not_latest;     /* emitting a versioned table's out-of-order update (codegen_table.c) */
	bool uses_fail;      /* the current function jumps to fail */
	bool wrote_line;     /* the current function has a #line into the .stoat file */
	IrNode *source;      /* the source of the current pipeline */
	CVar *raw_key;       /* the variable holding the source's decoded key */
	CVar *raw_value;
	CVar *raw_key_flag;  /* in a segment: its raw_key parameter */
	CVar *raw_value_flag;
	Helper *helpers;
	int nhelpers;
	Binding *bindings;
	int nbindings;
	int *binding_index;  /* bindings by symbol (binding_slot): index + 1, 0 for none */
	int capbinding_index;
	Type **types;        /* composite types in definition order */
	int ntypes;
	unsigned types_mark;  /* Type.added_mark of the types in types: this run's own number */
	Type **deferred;     /* array elements still to define */
	int ndeferred;
	IrNode *from;        /* the node whose children are being emitted (cogroup inputs) */
	CVar *sub;           /* in a change source's pipeline: the value to subtract (V?) */
	CVar *add;           /* ... and the value to add (V?) */
} Gen;

/* codegen.c: small shared utilities */
const char *fail_stmt(Gen *g);
/* Fails the record when the C condition failed holds: stoat_error(cx, <error_args>), then the failure path. */
void emit_record_error_if(Gen *g, const char *failed, const char *error_args);
void emit_source_time_check(Gen *g);
bool open_window_record(Gen *g, IrNode *n, IrNode *in, CVar *k, CVar *v, CVar **kv, CVar **vv);
void close_window_record(Gen *g, IrNode *n, bool guarded);
const char *skip_stmt(Gen *g);
char *new_tmp(Gen *g);
char *c_string(const char *s, size_t len);
char *c_double(double d);
const char *c_field(const char *name);
const char *stoat_format_enum(Format f);
void emit_error_check(Gen *g);
void op_comment(Gen *g, IrNode *n, const char *what);
CVar *cvar(const char *c);
CVar *cvar_part(CVar *whole, const char *suffix);
const char *use(CVar *v);
void bind(Gen *g, Symbol *sym, CVar *var);
CVar *bound(Gen *g, Symbol *sym);
Printer *begin_sub(Gen *g, Printer *sub, int extra_indent);
void end_sub(Gen *g, Printer *saved);

/* codegen_expr.c */
char *emit_expr(Gen *g, Node *e);
char *emit_as(Gen *g, Node *e, Type *to);
char *emit_cond(Gen *g, Node *e, bool negated);
char *emit_lazy(Gen *g, Node *e, Type *to, char **stmts);
char *emit_lazy_cond(Gen *g, Node *e, char **stmts);
char *hoist(Gen *g, Type *t, const char *expr, bool check);
char *coerce(char *expr, Type *from, Type *to);
char *emit_name(Gen *g, Node *e);

/* codegen_ops.c */
void bind_lambda(Gen *g, Node *lam, CVar *k, CVar *v);
void emit_children(Gen *g, IrNode *n, CVar *k, CVar *v);
void emit_node(Gen *g, IrNode *n, CVar *k, CVar *v);
void emit_pipeline(Gen *g, const Pipeline *pp, Printer *p);
void emit_segment(Gen *g, const Pipeline *pp, Printer *p);
/* Declares `decl_type name = init;` and emits n's children with it as the value (as_key: the key). */
void emit_with_var(Gen *g, IrNode *n, const char *decl_type, const char *name, const char *init, CVar *k, CVar *v,
                   bool as_key);
/* Closes a function's loop over its batch (with the fail: label when with_fail). */
void emit_batch_loop_end(Printer *p, bool with_fail);
/* (void)x; for each of a function's parameters that nothing used. */
void emit_unused_params(Printer *p, CVar **params, int n);
void reset_function(Gen *g, Printer *body, bool in_segment);

/* codegen_table.c */
void emit_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v);
void emit_to_table(Gen *g, IrNode *n, CVar *k, CVar *v);
int cogroup_input(IrNode *cg, IrNode *in);
void emit_table_source(Gen *g, IrNode *src, CVar *k, CVar *v);
void emit_change_source(Gen *g, IrNode *src, CVar *k);
void emit_store_after(Gen *g, const Pipeline *pp, Printer *p);
void emit_store_flush(Gen *g, const Pipeline *pp, Printer *p);
void emit_stream_fold(Gen *g, IrNode *n, Node *adder, CVar *kv, CVar *vv, const char *old, const char *nv);
void emit_preagg_sink(Gen *g, IrNode *n, CVar *k, CVar *v);
bool open_present_guard(Gen *g, Type *kt, CVar *k, Type *vt, CVar *v);
void emit_dropped_else(Gen *g, const char *why);
void emit_change_children(Gen *g, IrNode *n, CVar *k, CVar *old_v, CVar *new_v);
void bind_folder(Gen *g, Node *fn, bool is_reduce, CVar *k, CVar *v, CVar *acc);
/* Does what follows table node n look at its changes' old values? */
bool table_needs_old(IrNode *n);

/* codegen_join.c */
void emit_join(Gen *g, IrNode *n, CVar *k, CVar *v);
/*
 * Looks key kv (not null) up in table's store: nullable, into the T?
 * t<n->id> the caller declared; else opens if (found<n->id>) { with t<n->id>
 * set, for the caller to close.
 */
void emit_lookup(Gen *g, IrNode *n, IrNode *table, CVar *kv, bool nullable);
/* Copies window iterator <it><id>'s entries into the arena, appended at *<tail><id>; closes it. */
void emit_collect_entries(Gen *g, const char *it, int id, const char *tail);
/* codegen_join_global.c */
void emit_global_join(Gen *g, IrNode *n, CVar *k, CVar *v);
/* codegen_join_stream.c */
void emit_stream_join(Gen *g, IrNode *n, CVar *k, CVar *v);

/* codegen_join_table.c */
void emit_table_join(Gen *g, IrNode *n, IrNode *from, CVar *k, CVar *old_v, CVar *new_v);

/* codegen_join_fk.c: a foreign-key join's operators (ir.h: JoinSpec.fk), on a table's change or a topic's record */
void emit_fk_join_change(Gen *g, IrNode *n, IrNode *from, CVar *k, CVar *old_v, CVar *new_v);
void emit_fk_join_record(Gen *g, IrNode *n, CVar *k, CVar *v);
/* After a table source's delete (key k): a tombstone of a key it did not hold, to its foreign-key joins. */
void emit_fk_absent_tombstone(Gen *g, IrNode *src, CVar *k);
/* codegen_window.c */
void emit_window_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v);
void emit_window_close(Gen *g, const Pipeline *pp, Printer *p);
void emit_window_value_read(Gen *g, Printer *p, IrNode *n, const char *stored, const char *ts, const char *into,
                            const char *fail);

/* codegen_session.c */
void emit_session_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v);
void emit_session_close_bound(Printer *p, const WindowSpec *w);

/* codegen_sliding.c */
void emit_sliding_aggregate(Gen *g, IrNode *n, IrNode *in, Node *adder, CVar *k, CVar *v);

/* codegen_serde.c */
char *helper_name(HelperKind kind, Type *t, Format f);
char *need(Gen *g, HelperKind kind, Type *t, Format f);
void emit_helpers(Gen *g, Printer *p);

/* codegen_store.c */
/* Registers the JSON functions of every store's keys and values (the application table's). */
void need_store_json(Gen *g);
/* The fields of store i's stoat_store_desc that `store list` and `store dump` read (", .what = ..."). */
void emit_store_desc_dump(Gen *g, Printer *p, int i);
bool store_helper(HelperKind kind);
void store_helper_declare(Printer *p, HelperKind kind, Type *t);
void store_helper_define(Printer *p, HelperKind kind, Type *t);
bool store_helper_declared(HelperKind kind);

/* codegen_avro.c: Avro binary serdes (format avro_raw). */
void avro_helper_needs(Gen *g, HelperKind kind, Type *t);
void avro_emit_read(Printer *p, Type *t);
void avro_emit_write(Printer *p, Type *t);
void avro_declare(Printer *p, HelperKind kind, Type *t);
void avro_decode_body(Printer *p, Type *t, const char *dst, bool framed);
void avro_encode_body(Printer *p, Type *t, const char *src, bool framed);
void store_helper_needs(Gen *g, HelperKind kind, Type *t);

#endif
