/*
 * build.h - turning emitted C into a binary with the system C compiler.
 */
#ifndef STOAT_BUILD_H
#define STOAT_BUILD_H

#include <stdbool.h>

typedef struct BuildOptions {
	const char *c_file;      /* the emitted C */
	const char *output;      /* the binary */
	const char *source_dir;  /* directory of the .stoat file: extern headers */
	const char **extra_inputs; /* user C sources, objects, archives */
	int nextra_inputs;
	const char **include_dirs; /* -I from the command line */
	int ninclude_dirs;
	const char *cflags;      /* extra flags (--cflags and $STOAT_CFLAGS) */
	bool verbose;            /* print the cc command */
} BuildOptions;

/* Runs cc; returns its exit status (0 on success), -1 if it could not run. */
int build_binary(const BuildOptions *opts);

#endif
