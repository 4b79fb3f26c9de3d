/*
 * build.h - turning emitted C into a binary with the system C compiler,
 * profile-guided optimisation, and running other programs (the training
 * run, Graphviz).
 */
#ifndef STOAT_BUILD_H
#define STOAT_BUILD_H

#include <stdbool.h>

/* Profile-guided optimisation (gcc's -fprofile-generate / -fprofile-use). */
typedef enum PgoMode { PGO_NONE, PGO_GENERATE, PGO_USE } PgoMode;

typedef struct BuildOptions {
	const char *c_file;      /* the emitted C */
	const char *output;      /* the binary */
	const char *source_dir;  /* directory of the .stoat file: extern headers */
	const char *types_dir;   /* directory of the types header (<base>.types.h) */
	const char **extra_inputs; /* user C sources, objects, archives */
	int nextra_inputs;
	const char **include_dirs; /* -I from the command line */
	int ninclude_dirs;
	const char *cflags;      /* extra flags (--cflags and $STOAT_CFLAGS) */
	bool verbose;            /* print the cc command */
	PgoMode pgo;             /* instrument, or optimise with a profile */
	const char *pgo_dir;     /* absolute: where profiles are written / read */
	const char *pgo_name;    /* profile file names start with this (-dumpbase) */
} BuildOptions;

/*
 * Runs cc; returns its exit status (0 on success), -1 if it died of a
 * signal, -2 if it was not run (the reason has been reported).
 */
int build_binary(const BuildOptions *opts);

/*
 * Runs argv[0] (searched in PATH) with argv, standard output to stdout_path
 * (NULL: inherited); returns its exit status, 127 if it could not be
 * started, -1 if it died of a signal.
 */
int run_program(char *const argv[], const char *stdout_path, bool verbose);

/* True if the C compiler stoatc runs ($CC, else cc) says it is clang. */
bool cc_is_clang(void);

/*
 * True if dir holds a profile that a build with pgo_name can use: gcc
 * names it <pgo_name>.gcda or <pgo_name>-<input>.gcda.
 */
bool pgo_profile_exists(const char *dir, const char *pgo_name);

#endif
