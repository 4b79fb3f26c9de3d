/*
 * sema.h - semantic analysis: names, types, nullability, operators.
 *
 * Checks the prelude (the standard library's extern declarations) and the
 * user's file together, annotates the AST (Node.type, Node.sym, ...) and
 * builds the logical topology graph (ir.h), which the plan (plan.h) makes
 * physical.  Every error is reported with its span;
 * checking goes on after an error so that independent errors all show.
 */
#ifndef STOAT_SEMA_H
#define STOAT_SEMA_H

#include "ast.h"
#include "ir.h"
#include "types.h"

typedef enum SymKind { SYM_STREAM, SYM_TYPE, SYM_FN, SYM_VAR } SymKind;

struct Symbol {
	SymKind kind;
	char *name;
	Span span;
	Node *decl;        /* SYM_FN: N_EXTERN (first overload); SYM_TYPE: N_TYPE_DECL;
	                      SYM_VAR of a lambda: its parameter (slot) */
	IrNode *ir;        /* SYM_STREAM */
	Type *type;        /* SYM_VAR, SYM_TYPE */
	bool used;
	bool is_source;    /* SYM_STREAM declared with 'from' */
	Symbol *next;      /* scope chain */
	Symbol *overload;  /* SYM_FN: next overload */
};

typedef struct Program {
	File *prelude;
	File *file;
	Topology topo;
	Node **user_externs; /* N_EXTERN declared in the user's file */
	int nuser_externs;
	const char **schema_files; /* the schema files imported (type T = avro "F";), as opened */
	int nschema_files;
} Program;

/* Returns false if any error was reported. */
bool sema_check(Program *prog);

/* The parameter types of an extern (N_EXTERN), filled in by sema. */
Type **extern_param_types(Node *ext, int *count);

#endif
