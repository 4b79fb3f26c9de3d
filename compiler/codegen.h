/*
 * codegen.h - rendering the plan of a checked program (plan.h) as C.
 *
 * One C file per application: record structs, JSON readers and writers per
 * type, one function per pipeline of the plan (a source's, with its
 * operators inlined in order, each marked with its source line; a merge's
 * segment; a store's after_ and flush_), and the constant stoat_app table
 * with main().
 */
#ifndef STOAT_CODEGEN_H
#define STOAT_CODEGEN_H

#include <stdbool.h>

#include "plan.h"

typedef struct CodegenOptions {
	bool line_directives;    /* #line back to the .stoat file */
	const char *output_name; /* the .c file's name, for #line resets */
} CodegenOptions;

/* Renders the plan of a checked program; returns the whole C file as a malloc'd string. */
char *codegen(const Plan *plan, const CodegenOptions *opts);

/*
 * Returns the types header as a malloc'd string: the C types of the
 * program (record structs, nullables, arrays), for the C sources of its
 * extern functions (stoatc emit --header; stoatc build writes it beside
 * the generated C as <base>.types.h).
 */
char *codegen_types_header(Program *prog, const CodegenOptions *opts);

#endif
