/*
 * ast.h - the syntax tree of a .stoat file, as the parser builds it.
 *
 * One Node type for everything (as in chibicc): a kind, a span, and a few
 * general-purpose children whose meaning depends on the kind (documented at
 * each NodeKind).  Semantic analysis fills in the fields under "sema".
 */
#ifndef STOAT_AST_H
#define STOAT_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

typedef struct Type Type;
typedef struct Symbol Symbol;
typedef struct IrNode IrNode;

typedef enum NodeKind {
	/* Top-level items (linked through next in a File). */
	N_APP,          /* name; list: N_SETTING */
	N_SETTING,      /* name = a (N_IDENT, N_INT, N_DURATION, N_STR) */
	N_TYPE_DECL,    /* name; list: N_FIELD_DECL */
	N_FIELD_DECL,   /* name: a (type expression) */
	N_TYPE_IMPORT,  /* type name = a (N_IDENT: the schema kind, avro) b (N_STR: the file); */
	N_SOURCE,       /* stream name: a (key type or NULL) -> b (value type)
	                   from str; fmt_key/fmt_value; policy (ival 1: table, 2: global table
	                   name [in place]: ...) */
	N_STREAM_DEF,   /* stream name = a (ival 1: table name [in place] = a) */
	N_EXTERN,       /* extern fn name(list: N_PARAM) -> a [from str] [as cname] */
	N_PARAM,        /* name: a (type expression) */
	N_STMT,         /* a; */
	N_SPLIT,        /* a |> split { list: N_BRANCH } */
	N_BRANCH,       /* branch name = a (a lambda), or default name (a NULL) */

	/* Type expressions. */
	N_TY_NAME,      /* name */
	N_TY_ARRAY,     /* [a] */
	N_TY_NULLABLE,  /* a? */

	/* Expressions. */
	N_INT,          /* ival */
	N_FLOAT,        /* fval */
	N_STR,          /* str, len (escapes decoded) */
	N_BOOL,         /* ival 0/1 */
	N_NULL,
	N_DURATION,     /* ival milliseconds */
	N_IDENT,        /* name */
	N_UNDERSCORE,   /* _ (only as a lambda parameter) */
	N_FIELD,        /* a.name */
	N_INDEX,        /* a[b] */
	N_CALL,         /* name(list) */
	N_UNARY,        /* op a: '-' or T_NOT */
	N_BINARY,       /* a op b */
	N_COALESCE,     /* a ?? b */
	N_IF,           /* if a then b else c */
	N_TUPLE,        /* (list), two or more elements */
	N_RECORD,       /* [name] { list: N_FIELD_INIT | N_SPREAD } */
	N_FIELD_INIT,   /* name: a */
	N_SPREAD,       /* ...a */
	N_ARRAY,        /* [list] */
	N_COMPREHENSION,/* [a for name in b if c] */
	N_LET,          /* let name = a in b */
	N_LAMBDA,       /* (list: N_IDENT/N_UNDERSCORE) => a */
	N_PIPE,         /* a |> b (b is N_OP or N_TO) */
	N_OP,           /* name(list), a pipeline step */
	N_TO,           /* to a (N_STR topic or lambda) [format ...] */
	N_FORMAT,       /* a format name (name) */
	N_WINDOW_ARG,   /* window(...)'s argument: name [a] [c b] or name c [a]: a word
	                   (name), durations a, b (N_DURATION), a second word c
	                   (N_IDENT): tumbling 1m, hopping 5m every 1m, session gap 5m,
	                   grace 10s, emit final; a join's within 5m, grace 1m */
	N_ON_ARG,       /* on a: a join's key selector (a lambda), for global tables
	                   and foreign-key joins (not yet checked beyond saying so) */
	N_NAMED_ARG,    /* name: a, a step's named argument (aggregate's merge: (a, b) => ...) */
} NodeKind;

/* Binary operators (stored in Node.op). */
typedef enum BinOp {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_AND, OP_OR, OP_NEG, OP_NOT,
} BinOp;

/* Built-in functions an N_CALL may turn out to be (stored in Node.op by sema). */
typedef enum Builtin {
	BUILTIN_NONE, /* an extern function (Node.decl) */
	BUILTIN_LEN,  /* len(xs) of an array: its length */
	BUILTIN_GET,  /* get(xs, i) of an array: the element, or null out of range */
} Builtin;

/* Node.slot of the parameters of a lambda of the record: v => ... or (k, v) => ... */
enum { SLOT_KEY, SLOT_VALUE };

typedef struct Node Node;
struct Node {
	NodeKind kind;
	Span span;
	Node *next;       /* next in a list */

	Node *a, *b, *c;  /* children (see NodeKind) */
	Node *list;       /* first of a list of children */
	char *name;       /* identifiers, field, type, operator names */
	Span name_span;   /* where name was written */
	char *str;        /* string literal contents (may hold NULs) */
	size_t len;
	char *cname;      /* N_EXTERN: C function name */
	int64_t ival;
	double fval;
	int op;           /* N_UNARY, N_BINARY: BinOp; N_CALL: Builtin */
	Node *fmt_key, *fmt_value; /* N_SOURCE, N_TO: N_FORMAT or NULL */
	Node *policy;     /* N_SOURCE: on error <policy> (N_IDENT or N_STR) */
	Node *timestamp;  /* N_SOURCE: timestamp <lambda>, the event-time extractor;
	                     N_TO: the output timestamp; or NULL */
	Node *place;      /* table N_SOURCE and N_STREAM_DEF: in <place> (N_IDENT) or NULL */
	Node *versioned;  /* table N_SOURCE: versioned(history = D) (N_WINDOW_ARG, grammar/stoat.y) or NULL */
	bool int_literal_overflow; /* N_INT: 9223372036854775808 (ival INT64_MIN) not negated: too large */
	int depth;        /* expression nesting: 1 + the deepest child's (see MAX_EXPR_DEPTH) */
	Node *tail;       /* the head of a list: its last item, or a node before it (node_append) */

	/* sema */
	Type *type;
	Symbol *sym;      /* N_IDENT: what the name refers to */
	bool narrowed;    /* a T? expression known to be non-null here */
	Node *decl;       /* N_CALL: the N_EXTERN chosen; N_RECORD: type decl */
	IrNode *ir;       /* stream-valued expressions: the node they produce */
	int slot;         /* lambda parameter / loop variable index (SLOT_KEY, SLOT_VALUE for a record's) */
};

typedef struct File {
	SourceFile *source;
	Node *items; /* in source order */
	bool is_prelude;
} File;

/*
 * How deeply expressions may nest (a + b + ... is a chain nested one level
 * per operator).  Every phase after the parser walks expressions
 * recursively (sema_expr.c, codegen_expr.c) and the C compiler nests the
 * emitted C as deeply, so the parser rejects anything deeper, with a
 * caret, and stays far inside an 8 MB stack even under AddressSanitizer
 * (tests/scale measures it).  A pipeline's steps (a |> f |> g) do not
 * nest: sema reads them in a loop.
 */
enum { MAX_EXPR_DEPTH = 1000 };

Node *node_new(NodeKind kind, Span span);
/* Appends item to the list whose head is *head (keeps source order), in constant time. */
void node_append(Node **head, Node *item);
int node_list_len(const Node *list);

/*
 * Parses a whole file.  Syntax errors are reported through diag; the result
 * holds every item that parsed (error recovery resumes at the next ';').
 */
File *parse_file(SourceFile *src);

#endif
