/*
 * build.c - runs the C compiler on emitted code and links the runtime.
 *
 * The command is built as an argv array and run with fork/exec: no shell,
 * so paths with spaces or quotes need no escaping.
 */
#include "build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"

/* An argument vector for execvp, built one argument at a time. */
typedef struct Argv {
	char **v;
	int n, cap;
} Argv;

/* Appends a copy of s to the argument vector (kept NULL-terminated). */
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

/* True if path is an existing regular file. */
static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory holding the running stoatc, resolved (NULL if unknown). */
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

/* True if a and b name the same existing directory. */
static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;
	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * Finds the runtime library, headers and sources (for PGO builds):
 * $STOAT_RUNTIME_DIR, $STOAT_INCLUDE_DIR and $STOAT_RUNTIME_SRC_DIR first;
 * then, for the stoatc of a build tree, that tree's library and the
 * source tree's headers and sources; otherwise (an installed stoatc) the
 * lib/, include/ and share/stoat/runtime-src/ directories of its own
 * prefix, found from the executable's directory, so that an installed
 * stoatc never uses a build tree that happens to still exist.  includes
 * and srcdirs are colon-separated lists.
 */
static void find_runtime(char **lib, char **includes, char **srcdirs)
{
	const char *env_lib = getenv("STOAT_RUNTIME_DIR");
	const char *env_inc = getenv("STOAT_INCLUDE_DIR");
	const char *env_src = getenv("STOAT_RUNTIME_SRC_DIR");
	char *dir = self_dir();
	bool in_build_tree = dir ? same_dir(dir, STOAT_BUILD_BIN_DIR) : true;
	if (env_lib && *env_lib)
		*lib = xasprintf("%s/libstoat-runtime.a", env_lib);
	else if (in_build_tree)
		*lib = xasprintf("%s/libstoat-runtime.a", STOAT_BUILD_LIB_DIR);
	else
		*lib = xasprintf("%s/%s/libstoat-runtime.a", dir, STOAT_INSTALL_LIB_REL);
	if (env_inc && *env_inc)
		*includes = xstrdup(env_inc);
	else if (in_build_tree)
		*includes = xstrdup(STOAT_BUILD_INCLUDE_DIRS);
	else
		*includes = xasprintf("%s/%s", dir, STOAT_INSTALL_INC_REL);
	if (env_src && *env_src)
		*srcdirs = xstrdup(env_src);
	else if (in_build_tree)
		*srcdirs = xstrdup(STOAT_BUILD_RUNTIME_SRC_DIRS);
	else
		*srcdirs = xasprintf("%s/%s", dir, STOAT_INSTALL_RUNTIME_SRC_REL);
	/* <prefix>/bin/../lib/x.a reads better as <prefix>/lib/x.a in -v output. */
	char buf[PATH_MAX];
	if (!in_build_tree && !(env_lib && *env_lib) && realpath(*lib, buf))
		*lib = xstrdup(buf);
	if (!in_build_tree && !(env_inc && *env_inc) && realpath(*includes, buf))
		*includes = xstrdup(buf);
	if (!in_build_tree && !(env_src && *env_src) && realpath(*srcdirs, buf))
		*srcdirs = xstrdup(buf);
}

/* Orders file names for qsort. */
static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "dir/json.c" -> "json": what gcc names a C input's profile after. */
static char *c_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	return xstrndup(b, n > 2 && strcmp(b + n - 2, ".c") == 0 ? n - 2 : n);
}

/*
 * Reports two C inputs of a PGO build with the same file name (an extern
 * risk/json.c beside the runtime's json.c): gcc would write both profiles
 * to one file.  args[first..] are the command's arguments.
 */
static bool pgo_names_unique(const Argv *a, int first)
{
	for (int i = first; i < a->n; i++) {
		size_t n = strlen(a->v[i]);
		if (a->v[i][0] == '-' || n < 3 || strcmp(a->v[i] + n - 2, ".c") != 0)
			continue;
		char *si = c_stem(a->v[i]);
		for (int j = first; j < i; j++) {
			size_t m = strlen(a->v[j]);
			if (a->v[j][0] == '-' || m < 3 || strcmp(a->v[j] + m - 2, ".c") != 0)
				continue;
			if (strcmp(si, c_stem(a->v[j])) == 0) {
				error_plain("a PGO build names profiles after C files, and %s and %s are both %s.c: "
				            "rename one", a->v[j], a->v[i], si);
				return false;
			}
		}
	}
	return true;
}

/*
 * Adds the runtime's C sources (every *.c in the directories of srcdirs,
 * each directory's sorted by name) to a; returns how many it added.
 */
static int add_runtime_sources(Argv *a, const char *srcdirs)
{
	int added = 0;
	char *dirs = xstrdup(srcdirs);
	for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		DIR *dh = opendir(d);
		if (!dh)
			continue;
		char **names = NULL;
		int n = 0;
		struct dirent *e;
		while ((e = readdir(dh)) != NULL) {
			size_t len = strlen(e->d_name);
			if (len > 2 && strcmp(e->d_name + len - 2, ".c") == 0) {
				names = xrealloc(names, sizeof *names * (size_t)(n + 1));
				names[n++] = xasprintf("%s/%s", d, e->d_name);
			}
		}
		closedir(dh);
		qsort(names, (size_t)n, sizeof *names, cmp_names);
		for (int i = 0; i < n; i++)
			arg(a, names[i]);
		added += n;
	}
	return added;
}

/* Adds gcc's profile-guided optimisation flags for o->pgo. */
static void pgo_args(Argv *a, const BuildOptions *o)
{
	if (o->pgo == PGO_NONE)
		return;
	/*
	 * -dumpdir and -dumpbase (gcc 11+) name the profile files
	 * <dir>/<name>-<input>.gcda whatever the binary and the generated C
	 * are called, so the instrumented build and the optimised one (maybe
	 * from another directory) agree on them.
	 */
	char *dumpdir = xasprintf("%s/", o->pgo_dir);
	arg(a, "-dumpdir");
	arg(a, dumpdir);
	arg(a, "-dumpbase");
	arg(a, o->pgo_name);
	if (o->pgo == PGO_GENERATE) {
		arg(a, "-fprofile-generate");
		/* Counters stay right if the driver ever runs pipelines on several threads. */
		arg(a, "-fprofile-update=prefer-atomic");
	} else {
		arg(a, "-fprofile-use");
		/* A profile from an older version of the program: a warning, and the
		 * functions that changed are optimised without it. */
		arg(a, "-Wno-error=coverage-mismatch");
	}
}

/* Compiles and links the program: cc with the runtime, as o says. */
int build_binary(const BuildOptions *o)
{
	char *lib, *includes, *srcdirs;
	find_runtime(&lib, &includes, &srcdirs);
	/* A PGO build compiles the runtime's sources instead (see below). */
	if (o->pgo == PGO_NONE && !is_file(lib)) {
		error_plain("cannot find the stoat runtime library (looked for %s); set STOAT_RUNTIME_DIR", lib);
		return -2;
	}
	const char *cc = getenv("CC");
	Argv a = { 0 };
	arg(&a, cc && *cc ? cc : "cc");
	arg(&a, "-std=c11");
	arg(&a, "-O2");
	arg(&a, "-Wall");
	arg(&a, "-Wextra");
	/*
	 * clang stops at 256 nested brackets (parentheses and braces), far
	 * below what the compiler's own limits let through: an expression
	 * MAX_EXPR_DEPTH (ast.h, 1000) deep, or a pipeline of MAX_PIPELINE_DEPTH
	 * (ir.h, 1000) steps whose blocks nest.  gcc has no such limit.
	 */
	if (cc_is_clang())
		arg(&a, "-fbracket-depth=30000");
	char *inc = xstrdup(includes);
	for (char *save, *d = strtok_r(inc, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *flag = xasprintf("-I%s", d);
		arg(&a, flag);
	}
	if (o->source_dir) {
		char *flag = xasprintf("-I%s", o->source_dir);
		arg(&a, flag);
	}
	/* Extern sources include the types header by its plain name. */
	if (o->types_dir) {
		char *flag = xasprintf("-I%s", o->types_dir);
		arg(&a, flag);
	}
	for (int i = 0; i < o->ninclude_dirs; i++) {
		char *flag = xasprintf("-I%s", o->include_dirs[i]);
		arg(&a, flag);
	}
	pgo_args(&a, o);
	args_split(&a, getenv("STOAT_CFLAGS"));
	args_split(&a, o->cflags);
	int first_input = a.n;
	arg(&a, o->c_file);
	for (int i = 0; i < o->nextra_inputs; i++)
		arg(&a, o->extra_inputs[i]);
	/*
	 * With PGO the runtime is compiled from its sources with the program,
	 * so that the profile covers it too: most of a record's instructions
	 * are the runtime's (JSON scanning, number formatting, the store),
	 * which the prebuilt archive would leave as they are.
	 */
	if (o->pgo != PGO_NONE) {
		arg(&a, "-D_GNU_SOURCE");
		args_split(&a, STOAT_RUNTIME_CFLAGS);
		if (add_runtime_sources(&a, srcdirs) == 0) {
			error_plain("cannot find the stoat runtime's sources for a PGO build (looked in %s); set "
			            "STOAT_RUNTIME_SRC_DIR", srcdirs);
			return -2;
		}
		if (!pgo_names_unique(&a, first_input))
			return -2;
	}
	arg(&a, "-o");
	arg(&a, o->output);
	/* Only the libraries the program uses end up needed at run time. */
	arg(&a, "-Wl,--as-needed");
	if (o->pgo == PGO_NONE)
		arg(&a, lib);
	/* librdkafka, RocksDB, libyaml, libmicrohttpd and libm, as found by pkg-config when stoat was built. */
	const char *libs = getenv("STOAT_RUNTIME_LIBS");
	args_split(&a, libs && *libs ? libs : STOAT_RUNTIME_LIBS);

	int rc = run_program(a.v, NULL, o->verbose);
	if (rc == 127)
		error_plain("cannot run the C compiler '%s'", a.v[0]);
	return rc;
}

/* Prints argv on one line, as a shell would take it (for -v). */
static void print_command(char *const argv[], const char *stdout_path)
{
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
	if (stdout_path)
		fprintf(stderr, " >%s", stdout_path);
	fputc('\n', stderr);
}

/* Runs a program and waits for it (see build.h). */
int run_program(char *const argv[], const char *stdout_path, bool verbose)
{
	if (verbose)
		print_command(argv, stdout_path);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		error_plain("cannot start '%s': %s", argv[0], strerror(errno));
		return 127;
	}
	if (pid == 0) {
		if (stdout_path) {
			int fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
			if (fd < 0 || dup2(fd, 1) < 0) {
				fprintf(stderr, "stoatc: error: cannot write %s: %s\n", stdout_path, strerror(errno));
				_exit(127);
			}
			close(fd);
		}
		execvp(argv[0], argv);
		/* 127 tells the parent the program is not there; it reports that. */
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

/* Runs "$CC --version" and looks for "clang" in what it prints. */
bool cc_is_clang(void)
{
	const char *cc = getenv("CC");
	char *argv[] = { (char *)(cc && *cc ? cc : "cc"), "--version", NULL };
	int fds[2];
	if (pipe(fds) != 0)
		return false;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	while (len < sizeof buf - 1 && ((n = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	buf[len] = '\0';
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return strstr(buf, "clang") != NULL;
}

/* Looks in dir for <pgo_name>.gcda or <pgo_name>-*.gcda. */
bool pgo_profile_exists(const char *dir, const char *pgo_name)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	size_t n = strlen(pgo_name);
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		found = len >= n + 5 && strncmp(e->d_name, pgo_name, n) == 0 &&
		        (e->d_name[n] == '.' || e->d_name[n] == '-') && strcmp(e->d_name + len - 5, ".gcda") == 0;
	}
	closedir(d);
	return found;
}
