/*
 * build.c - runs the C compiler on emitted code and links the runtime.
 *
 * The command is built as an argv array and run with fork/exec: no shell,
 * so paths with spaces or quotes need no escaping.
 */
#include "build.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"

typedef struct Argv {
	char **v;
	int n, cap;
} Argv;

static void arg(Argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = xrealloc(a->v, sizeof *a->v * (size_t)a->cap);
	}
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

/* Splits a flag string on whitespace into separate arguments. */
static void args_split(Argv *a, const char *s)
{
	while (s && *s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		const char *e = s;
		while (*e && *e != ' ' && *e != '\t' && *e != '\n')
			e++;
		if (e > s) {
			char *w = xstrndup(s, (size_t)(e - s));
			arg(a, w);
			xfree(w);
		}
		s = e;
	}
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory holding the running stoatc (for an installed layout). */
static char *self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(buf);
}

/*
 * Finds the runtime library and headers: $STOAT_RUNTIME_DIR and
 * $STOAT_INCLUDE_DIR first, then the build tree stoatc was built in, then
 * ../lib and ../include next to the executable.
 */
static void find_runtime(char **lib, char **includes)
{
	const char *env_lib = getenv("STOAT_RUNTIME_DIR");
	const char *env_inc = getenv("STOAT_INCLUDE_DIR");
	if (env_lib && *env_lib) {
		*lib = xasprintf("%s/libstoat-runtime.a", env_lib);
		*includes = xstrdup(env_inc && *env_inc ? env_inc : STOAT_BUILD_INCLUDE_DIRS);
		return;
	}
	char *built = xasprintf("%s/libstoat-runtime.a", STOAT_BUILD_LIB_DIR);
	if (is_file(built)) {
		*lib = built;
		*includes = xstrdup(env_inc && *env_inc ? env_inc : STOAT_BUILD_INCLUDE_DIRS);
		return;
	}
	char *dir = self_dir();
	*lib = xasprintf("%s/../lib/libstoat-runtime.a", dir ? dir : ".");
	*includes = env_inc && *env_inc ? xstrdup(env_inc) : xasprintf("%s/../include", dir ? dir : ".");
}

int build_binary(const BuildOptions *o)
{
	char *lib, *includes;
	find_runtime(&lib, &includes);
	if (!is_file(lib)) {
		error_plain("cannot find the stoat runtime library (looked for %s); set STOAT_RUNTIME_DIR", lib);
		return -1;
	}
	const char *cc = getenv("CC");
	Argv a = { 0 };
	arg(&a, cc && *cc ? cc : "cc");
	arg(&a, "-std=c11");
	arg(&a, "-O2");
	arg(&a, "-Wall");
	arg(&a, "-Wextra");
	char *inc = xstrdup(includes);
	for (char *save, *d = strtok_r(inc, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *flag = xasprintf("-I%s", d);
		arg(&a, flag);
	}
	if (o->source_dir) {
		char *flag = xasprintf("-I%s", o->source_dir);
		arg(&a, flag);
	}
	for (int i = 0; i < o->ninclude_dirs; i++) {
		char *flag = xasprintf("-I%s", o->include_dirs[i]);
		arg(&a, flag);
	}
	args_split(&a, getenv("STOAT_CFLAGS"));
	args_split(&a, o->cflags);
	arg(&a, o->c_file);
	for (int i = 0; i < o->nextra_inputs; i++)
		arg(&a, o->extra_inputs[i]);
	arg(&a, "-o");
	arg(&a, o->output);
	/* Only the libraries the program uses end up needed at run time. */
	arg(&a, "-Wl,--as-needed");
	arg(&a, lib);
	/* librdkafka, RocksDB and libm, as found by pkg-config when stoat was built. */
	const char *libs = getenv("STOAT_RUNTIME_LIBS");
	args_split(&a, libs && *libs ? libs : STOAT_RUNTIME_LIBS);

	if (o->verbose) {
		for (int i = 0; i < a.n; i++)
			fprintf(stderr, "%s%s", i ? " " : "", a.v[i]);
		fputc('\n', stderr);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		error_plain("cannot start the C compiler: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execvp(a.v[0], a.v);
		fprintf(stderr, "stoatc: error: cannot run the C compiler '%s': %s\n", a.v[0], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return -1;
}
