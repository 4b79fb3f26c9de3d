/*
 * main.c - the stoatc command line.
 *
 *   stoatc build app.stoat -o app [file.c ...]   emit C, compile, link
 *   stoatc emit  app.stoat -o dir/|file.c         emit C only
 *   stoatc emit --header app.stoat -o dir/|file.h the C types, for extern sources
 *   stoatc check app.stoat                        diagnostics only
 *   stoatc graph app.stoat [-o x.dot|x.svg|x.png] the topology as a picture
 *   stoatc plan  app.stoat                        the physical plan as text
 *
 * build and emit can also write a make rule naming the files the program
 * reads (-M, -MD, -MF, -MT, -MQ, -MP, as gcc's), and build can optimise with a
 * profile (--pgo-generate, --pgo-use, --pgo-train).
 *
 * Exit status: 0 success, 1 errors in the .stoat file, 2 bad command line,
 * 3 a file could not be read or written, 4 the C compiler (or Graphviz)
 * failed, 5 the --pgo-train run failed.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ast.h"
#include "build.h"
#include "codegen.h"
#include "diag.h"
#include "graph.h"
#include "plan.h"
#include "sema.h"
#include "types.h"

enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2, EXIT_IO = 3, EXIT_CC = 4, EXIT_TRAIN = 5 };

extern const char stoat_prelude[];

static const char usage_text[] =
	"usage: stoatc <command> [options] FILE.stoat\n"
	"\n"
	"commands:\n"
	"  build FILE.stoat -o BINARY [EXTERN.c ...]   compile to a native binary\n"
	"  emit  FILE.stoat [-o DIR/ | -o FILE.c]      write the generated C (stdout without -o)\n"
	"  emit --header FILE.stoat [-o DIR/ | -o FILE.h]  write the types header for extern C\n"
	"                                              sources (DIR/FILE.types.h; stdout without -o)\n"
	"  check FILE.stoat                            report diagnostics only\n"
	"  graph FILE.stoat [-o FILE.dot|.svg|.png|.pdf]  the topology as Graphviz DOT (stdout\n"
	"                                              without -o; other formats run Graphviz dot)\n"
	"  plan  FILE.stoat                            the physical plan: sub-topologies, topics,\n"
	"                                              stores and the pipeline functions, as text\n"
	"\n"
	"options:\n"
	"  -o PATH                output binary, directory, .c file or picture\n"
	"  -I DIR                 search DIR for extern headers (the .stoat file's directory is searched)\n"
	"  --cflags FLAGS         extra C compiler flags for build (also $STOAT_CFLAGS)\n"
	"  --line-directives, -g  emit #line directives pointing at the .stoat source\n"
	"  --keep-c               build: keep the generated C next to the binary (BINARY.c, and\n"
	"                         the types header FILE.types.h beside it)\n"
	"  --header               emit: the types header (record structs) instead of the C\n"
	"  -v, --verbose          print the commands stoatc runs\n"
	"  --max-errors N         stop after N errors (default 50; 0 for no limit)\n"
	"  -h, --help             this text\n"
	"  --version              print the version\n"
	"\n"
	"dependencies (emit, build): a make rule naming every file the program reads\n"
	"  -M                     write the rule instead of the C or the binary (stdout without -MF)\n"
	"  -MD                    write the rule as well, to -MF FILE or OUTPUT.d\n"
	"  -MF FILE               the rule's file (implies -MD without -M)\n"
	"  -MT TARGET             the rule's target (default: the output; repeatable)\n"
	"  -MQ TARGET             the same, with characters special to make escaped\n"
	"  -MP                    add an empty rule for each file but the .stoat\n"
	"\n"
	"profile-guided optimisation (build, gcc 11 or later):\n"
	"  --pgo-generate[=DIR]   build instrumented: each run adds to the profile in DIR\n"
	"                         (default BINARY.pgo)\n"
	"  --pgo-use[=DIR]        optimise with the profile in DIR (default BINARY.pgo)\n"
	"  --pgo-train INPUT      build instrumented, run 'replay INPUT' (repeatable: all the\n"
	"                         inputs in one run), then build BINARY with that profile\n"
	"\n"
	"environment: CC (default cc), STOAT_CFLAGS, STOAT_RUNTIME_DIR, STOAT_INCLUDE_DIR,\n"
	"STOAT_RUNTIME_SRC_DIR (the runtime's sources, for PGO builds)\n"
	"exit status: 0 ok, 1 errors in the program, 2 usage, 3 file I/O, 4 C compiler (or dot)\n"
	"failed, 5 the --pgo-train run failed\n";

/* Reports a command-line mistake and exits with status 2. */
static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "stoatc: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(run 'stoatc --help' for usage)\n");
	exit(EXIT_USAGE);
}

/* Parses, checks and plans the file; returns NULL after reporting errors. */
static Plan *front_end(const char *path)
{
	SourceFile *src = source_read(path);
	if (!src) {
		fprintf(stderr, "stoatc: error: cannot read %s: %s\n", path, strerror(errno));
		exit(EXIT_IO);
	}
	types_init();
	Program *prog = xcalloc(1, sizeof *prog);
	prog->prelude = parse_file(source_from_string("<stdlib>/std.stoat", stoat_prelude));
	prog->prelude->is_prelude = true;
	if (diag.errors) {
		fprintf(stderr, "stoatc: internal error: the standard library prelude does not parse\n");
		exit(EXIT_ERRORS);
	}
	prog->file = parse_file(src);
	int syntax_errors = diag.errors;
	Plan *plan = sema_check(prog) && diag.errors == 0 ? plan_build(prog) : NULL;
	(void)syntax_errors;
	if (diag.errors) {
		fprintf(stderr, "%d error%s", diag.errors, diag.errors == 1 ? "" : "s");
		if (diag.warnings)
			fprintf(stderr, ", %d warning%s", diag.warnings, diag.warnings == 1 ? "" : "s");
		fprintf(stderr, " generated.\n");
		return NULL;
	}
	assert(plan);
	return plan;
}

/*
 * Writes text to path through a temporary file renamed into place, so a
 * reader (make, a second stoatc) never sees half a file and an interrupted
 * run leaves the old one.
 */
static bool write_file(const char *path, const char *text)
{
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		fprintf(stderr, "stoatc: error: cannot write %s: %s\n", path, strerror(errno));
		return false;
	}
	size_t len = strlen(text);
	bool ok = fwrite(text, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		fprintf(stderr, "stoatc: error: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
	return ok;
}

/* True if path is an existing directory. */
static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "dir/app.stoat" -> "app". */
static char *base_name_no_ext(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	return dot && dot != b ? xstrndup(b, (size_t)(dot - b)) : xstrdup(b);
}

/* "dir/app.stoat" -> "dir", "app.stoat" -> ".", "/app.stoat" -> "/". */
static char *dir_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
}

/* dir/name, or just name when dir is "." (so make sees one spelling). */
static char *join_path(const char *dir, const char *name)
{
	if (strcmp(dir, ".") == 0)
		return xstrdup(name);
	size_t n = strlen(dir);
	return xasprintf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

/*
 * Where the C compiler will find an extern's header: an absolute name as
 * it is, else next to the .stoat file, else in the -I directories in
 * order (the order of the -I flags build passes); NULL if nowhere.
 */
static char *find_header(const char *name, const char *source_dir, const char **includes, int nincludes)
{
	if (name[0] == '/')
		return access(name, R_OK) == 0 ? xstrdup(name) : NULL;
	char *path = join_path(source_dir, name);
	if (access(path, R_OK) == 0)
		return path;
	for (int k = 0; k < nincludes; k++) {
		path = join_path(includes[k], name);
		if (access(path, R_OK) == 0)
			return path;
	}
	return NULL;
}

/*
 * Checks that every header named by an extern declaration exists next to
 * the .stoat file or in an -I directory, so a typo is reported at the
 * declaration rather than by the C compiler in generated code.  Appends
 * each header found, once, to headers (for the dependency rule).
 */
static bool check_extern_headers(Program *prog, const char *source_dir, const char **includes, int nincludes,
                                 const char **headers, int *nheaders)
{
	int before = diag.errors;
	for (int i = 0; i < prog->nuser_externs; i++) {
		Node *e = prog->user_externs[i];
		if (!e->str)
			continue;
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= prog->user_externs[j]->str && strcmp(prog->user_externs[j]->str, e->str) == 0;
		if (seen)
			continue;
		char *path = find_header(e->str, source_dir, includes, nincludes);
		if (path)
			headers[(*nheaders)++] = path;
		else
			error_hint(e->span, "headers are looked up next to the .stoat file and in -I directories",
			           "cannot find header \"%s\" for extern fn '%s'", e->str, e->name);
	}
	if (diag.errors > before) {
		fprintf(stderr, "%d error%s generated.\n", diag.errors, diag.errors == 1 ? "" : "s");
		return false;
	}
	return true;
}

/* True if s ends with suffix. */
static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Appends path to a make rule, escaped as gcc escapes it ($, #, blanks). */
static void make_escape(char **out, const char *path)
{
	size_t n = strlen(*out);
	char *buf = xmalloc(n + 3 * strlen(path) + 1);
	memcpy(buf, *out, n);
	for (const char *p = path; *p; p++) {
		if (*p == '$')
			buf[n++] = '$';
		else if (*p == '#' || *p == ' ' || *p == '\t')
			buf[n++] = '\\';
		buf[n++] = *p;
	}
	buf[n] = '\0';
	xfree(*out);
	*out = buf;
}

/* What -M and friends asked for. */
typedef struct DepOptions {
	bool only;            /* -M: the rule instead of the output */
	bool also;            /* -MD (or -MF without -M): the rule besides the output */
	bool phony;           /* -MP */
	const char *file;     /* -MF, or NULL */
	const char **targets; /* -MT (as written) and -MQ (escaped for make) */
	bool *quote;          /* per target: from -MQ */
	int ntargets;
} DepOptions;

/*
 * The make rule "TARGETS: DEPS", one prerequisite per line, and with
 * phony an empty rule for each prerequisite but the first (the .stoat
 * file), so that make does not stop when a header is deleted.  A target
 * is escaped for make if quote[i] says so (-MQ and the default target),
 * else written as it is (-MT, as gcc does).
 */
static char *dep_rule(const char **targets, const bool *quote, int ntargets, const char **deps, int ndeps,
                      bool phony)
{
	char *rule = xstrdup("");
	for (int i = 0; i < ntargets; i++) {
		if (i)
			rule = xasprintf("%s ", rule);
		if (quote[i])
			make_escape(&rule, targets[i]);
		else
			rule = xasprintf("%s%s", rule, targets[i]);
	}
	rule = xasprintf("%s:", rule);
	for (int i = 0; i < ndeps; i++) {
		rule = xasprintf("%s%s", rule, i ? " \\\n " : " ");
		make_escape(&rule, deps[i]);
	}
	rule = xasprintf("%s\n", rule);
	for (int i = 1; phony && i < ndeps; i++) {
		rule = xasprintf("%s\n", rule);
		make_escape(&rule, deps[i]);
		rule = xasprintf("%s:\n", rule);
	}
	return rule;
}

/* Writes the dependency rule to its file (or stdout); false on I/O errors. */
static bool write_deps(const DepOptions *dep, const char *default_target, const char *default_file,
                       const char **deps, int ndeps)
{
	const char **targets = dep->targets;
	const bool *quote = dep->quote;
	int ntargets = dep->ntargets;
	static const bool quoted = true;
	if (ntargets == 0) {
		targets = &default_target;
		quote = &quoted;
		ntargets = 1;
	}
	char *rule = dep_rule(targets, quote, ntargets, deps, ndeps, dep->phony);
	const char *file = dep->file ? dep->file : dep->only ? NULL : default_file;
	if (!file) {
		fputs(rule, stdout);
		return fflush(stdout) == 0;
	}
	return write_file(file, rule);
}

/* Path with its extension (if any) replaced by ext: "out/app.c" -> "out/app.d". */
static char *replace_ext(const char *path, const char *ext)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	if (dot && (!slash || dot > slash + 1))
		return xasprintf("%.*s%s", (int)(dot - path), path, ext);
	return xasprintf("%s%s", path, ext);
}

/* An absolute spelling of path, which must exist. */
static char *absolute(const char *path)
{
	char buf[PATH_MAX];
	return realpath(path, buf) ? xstrdup(buf) : NULL;
}

/* Creates dir if it is missing (its parent must exist). */
static bool make_dir(const char *dir)
{
	if (is_dir(dir) || mkdir(dir, 0777) == 0)
		return true;
	fprintf(stderr, "stoatc: error: cannot create %s: %s\n", dir, strerror(errno));
	return false;
}

/* Removes the files whose names start with prefix and end with suffix from dir. */
static void remove_files(const char *dir, const char *prefix, const char *suffix)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && ends_with(e->d_name, suffix)) {
			char *p = join_path(dir, e->d_name);
			unlink(p);
		}
	}
	closedir(d);
}

/* A fresh directory under $TMPDIR (absolute), or NULL after reporting. */
static char *temp_dir(void)
{
	const char *t = getenv("TMPDIR");
	char *templ = xasprintf("%s/stoatc-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(templ)) {
		fprintf(stderr, "stoatc: error: cannot create a temporary directory: %s\n", strerror(errno));
		return NULL;
	}
	char *abs = absolute(templ);
	return abs ? abs : templ;
}

/* Copies the file at from to to (for --keep-c with PGO). */
static bool copy_file(const char *from, const char *to)
{
	SourceFile *f = source_read(from);
	if (!f) {
		fprintf(stderr, "stoatc: error: cannot read %s: %s\n", from, strerror(errno));
		return false;
	}
	return write_file(to, f->text);
}

/*
 * stoatc graph: the topology as DOT on stdout or in FILE.dot/.gv, or
 * rendered by Graphviz's dot into FILE.svg/.png/.pdf.
 */
static int graph_command(Program *prog, const char *input, const char *output, bool verbose)
{
	char *dot = graph_dot(prog, input);
	if (!output) {
		fputs(dot, stdout);
		return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
	}
	if (ends_with(output, ".dot") || ends_with(output, ".gv"))
		return write_file(output, dot) ? EXIT_OK : EXIT_IO;
	static const char *formats[] = { "svg", "png", "pdf" };
	const char *fmt = NULL;
	for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
		char *ext = xasprintf(".%s", formats[i]);
		if (ends_with(output, ext))
			fmt = formats[i];
	}
	if (!fmt)
		usage_error("graph: cannot tell the format of '%s' (use .dot, .gv, .svg, .png or .pdf)", output);
	char *tmpdir = temp_dir();
	if (!tmpdir)
		return EXIT_IO;
	char *dot_path = xasprintf("%s/graph.dot", tmpdir);
	int rc = EXIT_IO;
	if (write_file(dot_path, dot)) {
		char *t = xasprintf("-T%s", fmt);
		char *argv[] = { "dot", t, "-o", (char *)output, dot_path, NULL };
		int st = run_program(argv, NULL, verbose);
		if (st == 0) {
			rc = EXIT_OK;
		} else if (st == 127) {
			fprintf(stderr, "stoatc: error: cannot run 'dot' to render %s: install Graphviz, or write DOT "
			                "with -o FILE.dot\n", output);
			rc = EXIT_CC;
		} else {
			fprintf(stderr, "stoatc: error: dot failed (exit %d) rendering %s\n", st, output);
			rc = EXIT_CC;
		}
	}
	unlink(dot_path);
	rmdir(tmpdir);
	return rc;
}

/* Reports a failed C compiler run (unless build_binary did); returns the exit status. */
static int cc_failed(int rc, bool keep_c)
{
	if (rc == -2)
		return EXIT_CC;
	fprintf(stderr, "stoatc: error: the C compiler failed (exit %d)%s\n", rc,
	        keep_c ? "" : "; rerun with --keep-c to inspect the generated C");
	return EXIT_CC;
}

/*
 * --pgo-train: builds an instrumented binary in work (a temporary
 * directory, which also receives the profile), runs its replay driver over
 * the inputs, and builds bo->output with the profile.
 */
static int pgo_train(BuildOptions *bo, const char *work, const char **inputs, int ninputs, bool keep_c)
{
	const char *final_output = bo->output;
	char *instrumented = xasprintf("%s/%s-instrumented", work, bo->pgo_name);
	bo->output = instrumented;
	bo->pgo = PGO_GENERATE;
	int rc = build_binary(bo);
	if (rc != 0)
		return cc_failed(rc, keep_c);
	char **argv = xcalloc((size_t)ninputs + 5, sizeof *argv);
	int n = 0;
	argv[n++] = instrumented;
	argv[n++] = "replay";
	for (int i = 0; i < ninputs; i++)
		argv[n++] = (char *)inputs[i];
	argv[n++] = "-o";
	argv[n++] = "/dev/null";
	rc = run_program(argv, NULL, bo->verbose);
	if (rc != 0) {
		fprintf(stderr, "stoatc: error: the training run (%s replay ...) failed (%s %d)\n", bo->pgo_name,
		        rc < 0 ? "killed" : "exit", rc);
		return EXIT_TRAIN;
	}
	if (!pgo_profile_exists(work, bo->pgo_name)) {
		fprintf(stderr, "stoatc: error: the training run wrote no profile in %s\n", work);
		return EXIT_TRAIN;
	}
	bo->output = final_output;
	bo->pgo = PGO_USE;
	rc = build_binary(bo);
	return rc == 0 ? EXIT_OK : cc_failed(rc, keep_c);
}

/* Parses the command line and runs the command. */
int main(int argc, char **argv)
{
	diag.max_errors = 50;
	diag.color = isatty(2) && !getenv("NO_COLOR");
	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("stoatc %s\n", STOAT_VERSION_STRING);
		return EXIT_OK;
	}
	bool is_build = strcmp(cmd, "build") == 0, is_emit = strcmp(cmd, "emit") == 0;
	bool is_graph = strcmp(cmd, "graph") == 0, is_plan = strcmp(cmd, "plan") == 0;
	if (!is_build && !is_emit && !is_graph && !is_plan && strcmp(cmd, "check") != 0)
		usage_error("unknown command '%s'", cmd);

	const char *input = NULL, *output = NULL, *cflags = NULL;
	const char **extras = xcalloc((size_t)argc, sizeof *extras);
	const char **includes = xcalloc((size_t)argc, sizeof *includes);
	const char **train = xcalloc((size_t)argc, sizeof *train);
	DepOptions dep = { .targets = xcalloc((size_t)argc, sizeof(char *)), .quote = xcalloc((size_t)argc, sizeof(bool)) };
	int nextras = 0, nincludes = 0, ntrain = 0;
	bool line_directives = false, keep_c = false, verbose = false, dep_flag = false, header = false;
	PgoMode pgo = PGO_NONE;
	const char *pgo_dir = NULL, *pgo_flag = NULL;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-o") == 0) {
			if (++i >= argc)
				usage_error("%s needs an argument", a);
			output = argv[i];
		} else if (strcmp(a, "-I") == 0) {
			if (++i >= argc)
				usage_error("%s needs an argument", a);
			includes[nincludes++] = argv[i];
		} else if (strncmp(a, "-I", 2) == 0) {
			includes[nincludes++] = a + 2;
		} else if (strcmp(a, "-M") == 0) {
			dep.only = dep_flag = true;
		} else if (strcmp(a, "-MD") == 0) {
			dep.also = dep_flag = true;
		} else if (strcmp(a, "-MP") == 0) {
			dep.phony = dep_flag = true;
		} else if (strncmp(a, "-MF", 3) == 0 || strncmp(a, "-MT", 3) == 0 || strncmp(a, "-MQ", 3) == 0) {
			const char *v = a + 3;
			if (!*v) {
				if (++i >= argc)
					usage_error("%s needs an argument", a);
				v = argv[i];
			}
			if (a[2] == 'F') {
				dep.file = v;
			} else {
				dep.quote[dep.ntargets] = a[2] == 'Q';
				dep.targets[dep.ntargets++] = v;
			}
			dep_flag = true;
		} else if (strncmp(a, "--pgo-generate", 14) == 0 && (a[14] == '\0' || a[14] == '=')) {
			if (pgo != PGO_NONE && pgo != PGO_GENERATE)
				usage_error("%s: choose one of --pgo-generate, --pgo-use and --pgo-train", a);
			pgo = PGO_GENERATE;
			pgo_dir = a[14] ? a + 15 : NULL;
			pgo_flag = a;
		} else if (strncmp(a, "--pgo-use", 9) == 0 && (a[9] == '\0' || a[9] == '=')) {
			if (pgo != PGO_NONE && pgo != PGO_USE)
				usage_error("%s: choose one of --pgo-generate, --pgo-use and --pgo-train", a);
			pgo = PGO_USE;
			pgo_dir = a[9] ? a + 10 : NULL;
			pgo_flag = a;
		} else if (strcmp(a, "--pgo-train") == 0 || strncmp(a, "--pgo-train=", 12) == 0) {
			if (pgo != PGO_NONE && pgo_flag && strncmp(pgo_flag, "--pgo-train", 11) != 0)
				usage_error("%s: choose one of --pgo-generate, --pgo-use and --pgo-train", a);
			const char *v = a[11] ? a + 12 : NULL;
			if (!v) {
				if (++i >= argc)
					usage_error("%s needs a replay input file", a);
				v = argv[i];
			}
			train[ntrain++] = v;
			pgo = PGO_USE;
			pgo_flag = "--pgo-train";
		} else if (strcmp(a, "--cflags") == 0) {
			if (++i >= argc)
				usage_error("%s needs an argument", a);
			cflags = argv[i];
		} else if (strcmp(a, "--max-errors") == 0) {
			if (++i >= argc)
				usage_error("%s needs an argument", a);
			diag.max_errors = atoi(argv[i]);
		} else if (strcmp(a, "--line-directives") == 0 || strcmp(a, "-g") == 0) {
			line_directives = true;
		} else if (strcmp(a, "--keep-c") == 0) {
			keep_c = true;
		} else if (strcmp(a, "--header") == 0) {
			header = true;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			verbose = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		} else if (a[0] == '-' && a[1]) {
			usage_error("unknown option '%s'", a);
		} else if (ends_with(a, ".stoat")) {
			if (input)
				usage_error("one .stoat file per application (also got '%s')", a);
			input = a;
		} else if (is_build && (ends_with(a, ".c") || ends_with(a, ".o") || ends_with(a, ".a") || ends_with(a, ".so"))) {
			extras[nextras++] = a;
		} else {
			usage_error("unexpected argument '%s' (the program must end in .stoat)", a);
		}
	}
	if (!input)
		usage_error("%s: no .stoat file given", cmd);
	if (header && !is_emit)
		usage_error("%s: --header goes with emit (build writes the types header itself)", cmd);
	if (dep_flag && !is_build && !is_emit)
		usage_error("%s: -M, -MD, -MF, -MT, -MQ and -MP go with emit and build", cmd);
	if (dep_flag && !dep.only)
		dep.also = true;
	if (pgo != PGO_NONE && !is_build)
		usage_error("%s: --pgo-generate, --pgo-use and --pgo-train go with build", cmd);
	if (pgo_dir && !*pgo_dir)
		usage_error("%s: the profile directory is empty", pgo_flag);

	if (is_plan && output)
		usage_error("%s: -o goes with build, emit and graph (the plan is written to stdout)", cmd);

	Plan *plan = front_end(input);
	if (!plan)
		return EXIT_ERRORS;
	Program *prog = plan->prog;
	if (is_graph)
		return graph_command(prog, input, output, verbose);
	if (is_plan) {
		fputs(plan_text(plan, input), stdout);
		return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
	}
	char *source_dir = dir_name(input);
	const char **deps = xcalloc((size_t)(prog->nuser_externs + prog->nschema_files + nextras + 1), sizeof *deps);
	int ndeps = 0;
	deps[ndeps++] = input;
	for (int i = 0; i < prog->nschema_files; i++)
		deps[ndeps++] = prog->schema_files[i];
	if (!check_extern_headers(prog, source_dir, includes, nincludes, deps, &ndeps))
		return EXIT_ERRORS;
	if (strcmp(cmd, "check") == 0)
		return EXIT_OK;

	char *base = base_name_no_ext(input);
	/* The types header's name: extern sources #include "<base>.types.h". */
	char *header_name = xasprintf("%s.types.h", base);
	if (is_emit) {
		const char *default_name = header ? header_name : xasprintf("%s.c", base);
		char *path = NULL;
		if (output)
			path = (is_dir(output) || ends_with(output, "/")) ? join_path(output, default_name) : xstrdup(output);
		if (dep.only || dep.also) {
			char *target = path ? path : xstrdup(default_name);
			if (!write_deps(&dep, target, replace_ext(target, ".d"), deps, ndeps))
				return EXIT_IO;
			if (dep.only)
				return EXIT_OK;
		}
		CodegenOptions co = { .line_directives = line_directives, .output_name = path ? path : default_name };
		char *c = header ? codegen_types_header(prog, &co) : codegen(plan, &co);
		if (!path) {
			fputs(c, stdout);
			return EXIT_OK;
		}
		if (ends_with(output, "/") && !is_dir(output) && mkdir(output, 0777) != 0) {
			fprintf(stderr, "stoatc: error: cannot create %s: %s\n", output, strerror(errno));
			return EXIT_IO;
		}
		return write_file(path, c) ? EXIT_OK : EXIT_IO;
	}

	/* build */
	if (!output)
		output = base;
	for (int i = 0; i < nextras; i++)
		deps[ndeps++] = extras[i];
	if (dep.only || dep.also) {
		if (!write_deps(&dep, output, xasprintf("%s.d", output), deps, ndeps))
			return EXIT_IO;
		if (dep.only)
			return EXIT_OK;
	}
	if (pgo != PGO_NONE && cc_is_clang()) {
		fprintf(stderr, "stoatc: error: %s needs gcc (gcc's -fprofile-generate/-fprofile-use); the C compiler "
		                "is clang: set CC=gcc\n", pgo_flag);
		return EXIT_USAGE;
	}
	char *abs_pgo_dir = NULL;
	if (pgo != PGO_NONE && ntrain == 0) {
		const char *d = pgo_dir ? pgo_dir : xasprintf("%s.pgo", output);
		if (pgo == PGO_GENERATE && !make_dir(d))
			return EXIT_IO;
		abs_pgo_dir = absolute(d);
		if (pgo == PGO_USE && (!abs_pgo_dir || !pgo_profile_exists(abs_pgo_dir, base))) {
			fprintf(stderr, "stoatc: error: no profile for %s in %s: run a binary built with --pgo-generate=%s "
			                "first\n", base, d, d);
			return EXIT_IO;
		}
		if (!abs_pgo_dir) {
			fprintf(stderr, "stoatc: error: cannot use %s: %s\n", d, strerror(errno));
			return EXIT_IO;
		}
		/* A new instrumented build starts a new profile. */
		if (pgo == PGO_GENERATE)
			remove_files(abs_pgo_dir, base, ".gcda");
	}
	/*
	 * The generated C goes to a temporary directory, or with --keep-c next
	 * to the binary.  With PGO it goes to the profile directory (for
	 * --pgo-train, the temporary one): gcc keys the profile of a static
	 * function on the absolute name of its file, so every build that
	 * writes or reads a profile must compile the same path.  It is then
	 * <base>.stoat.c, whose name cannot clash with the runtime sources
	 * compiled with it (main.c, json.c, ...), whose profiles share DIR.
	 */
	char *c_path;
	char *tmpdir = NULL;
	if (abs_pgo_dir) {
		c_path = join_path(abs_pgo_dir, xasprintf("%s.stoat.c", base));
	} else if (keep_c && pgo == PGO_NONE) {
		c_path = xasprintf("%s.c", output);
	} else {
		tmpdir = temp_dir();
		if (!tmpdir)
			return EXIT_IO;
		c_path = xasprintf("%s/%s%s.c", tmpdir, base, pgo != PGO_NONE ? ".stoat" : "");
	}
	CodegenOptions co = { .line_directives = line_directives, .output_name = c_path };
	char *c = codegen(plan, &co);
	if (!write_file(c_path, c))
		return EXIT_IO;
	/* The types header beside the C, for extern sources (found through -I). */
	char *types_dir = dir_name(c_path);
	char *types_path = join_path(types_dir, header_name);
	if (!write_file(types_path, codegen_types_header(prog, &co)))
		return EXIT_IO;
	BuildOptions bo = {
		.c_file = c_path, .output = output, .source_dir = source_dir, .types_dir = types_dir,
		.extra_inputs = extras, .nextra_inputs = nextras,
		.include_dirs = includes, .ninclude_dirs = nincludes,
		.cflags = cflags, .verbose = verbose,
		.pgo = pgo, .pgo_dir = abs_pgo_dir ? abs_pgo_dir : tmpdir, .pgo_name = base,
	};
	int status;
	if (ntrain > 0) {
		status = pgo_train(&bo, tmpdir, train, ntrain, keep_c);
	} else {
		int rc = build_binary(&bo);
		status = rc == 0 ? EXIT_OK : cc_failed(rc, keep_c);
	}
	if (keep_c && pgo != PGO_NONE && !copy_file(c_path, xasprintf("%s.c", output)) && status == EXIT_OK)
		status = EXIT_IO;
	if (tmpdir) {
		if (ntrain > 0) {
			remove_files(tmpdir, base, ".gcda");
			remove_files(tmpdir, base, "-instrumented");
		}
		unlink(c_path);
		unlink(types_path);
		if (rmdir(tmpdir) != 0 && verbose)
			fprintf(stderr, "stoatc: warning: could not remove %s: %s\n", tmpdir, strerror(errno));
	}
	return status;
}
