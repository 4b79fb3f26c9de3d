/*
 * main.c - the stoatc command line.
 *
 *   stoatc build app.stoat -o app [file.c ...]   emit C, compile, link
 *   stoatc emit  app.stoat -o dir/|file.c         emit C only
 *   stoatc check app.stoat                        diagnostics only
 *
 * Exit status: 0 success, 1 errors in the .stoat file, 2 bad command line,
 * 3 a file could not be read or written, 4 the C compiler failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ast.h"
#include "build.h"
#include "codegen.h"
#include "diag.h"
#include "sema.h"
#include "types.h"

enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2, EXIT_IO = 3, EXIT_CC = 4 };

extern const char stoat_prelude[];

static const char usage_text[] =
	"usage: stoatc <command> [options] FILE.stoat\n"
	"\n"
	"commands:\n"
	"  build FILE.stoat -o BINARY [EXTERN.c ...]   compile to a native binary\n"
	"  emit  FILE.stoat [-o DIR/ | -o FILE.c]      write the generated C (stdout without -o)\n"
	"  check FILE.stoat                            report diagnostics only\n"
	"\n"
	"options:\n"
	"  -o PATH                output binary, directory or .c file\n"
	"  -I DIR                 search DIR for extern headers (the .stoat file's directory is searched)\n"
	"  --cflags FLAGS         extra C compiler flags for build (also $STOAT_CFLAGS)\n"
	"  --line-directives, -g  emit #line directives pointing at the .stoat source\n"
	"  --keep-c               build: keep the generated C next to the binary (BINARY.c)\n"
	"  -v, --verbose          print the C compiler command\n"
	"  --max-errors N         stop after N errors (default 50; 0 for no limit)\n"
	"  -h, --help             this text\n"
	"  --version              print the version\n"
	"\n"
	"environment: CC (default cc), STOAT_CFLAGS, STOAT_RUNTIME_DIR, STOAT_INCLUDE_DIR\n"
	"exit status: 0 ok, 1 errors in the program, 2 usage, 3 file I/O, 4 C compiler failed\n";

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "stoatc: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(run 'stoatc --help' for usage)\n");
	exit(EXIT_USAGE);
}

/* Parses and checks the file; returns NULL after reporting errors. */
static Program *front_end(const char *path)
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
	sema_check(prog);
	(void)syntax_errors;
	if (diag.errors) {
		fprintf(stderr, "%d error%s", diag.errors, diag.errors == 1 ? "" : "s");
		if (diag.warnings)
			fprintf(stderr, ", %d warning%s", diag.warnings, diag.warnings == 1 ? "" : "s");
		fprintf(stderr, " generated.\n");
		return NULL;
	}
	return prog;
}

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "stoatc: error: cannot write %s: %s\n", path, strerror(errno));
		return false;
	}
	size_t len = strlen(text);
	bool ok = fwrite(text, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	if (!ok)
		fprintf(stderr, "stoatc: error: cannot write %s: %s\n", path, strerror(errno));
	return ok;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *base_name_no_ext(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	return dot && dot != b ? xstrndup(b, (size_t)(dot - b)) : xstrdup(b);
}

static char *dir_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
}

/*
 * Checks that every header named by an extern declaration exists next to
 * the .stoat file or in an -I directory, so a typo is reported at the
 * declaration rather than by the C compiler in generated code.
 */
static bool check_extern_headers(Program *prog, const char *source_dir, const char **includes, int nincludes)
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
		bool found = e->str[0] == '/' && access(e->str, R_OK) == 0;
		char *path = xasprintf("%s/%s", source_dir, e->str);
		found |= access(path, R_OK) == 0;
		for (int k = 0; k < nincludes && !found; k++) {
			path = xasprintf("%s/%s", includes[k], e->str);
			found = access(path, R_OK) == 0;
		}
		if (!found)
			error_hint(e->span, "headers are looked up next to the .stoat file and in -I directories",
			           "cannot find header \"%s\" for extern fn '%s'", e->str, e->name);
	}
	if (diag.errors > before) {
		fprintf(stderr, "%d error%s generated.\n", diag.errors, diag.errors == 1 ? "" : "s");
		return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

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
	if (strcmp(cmd, "build") != 0 && strcmp(cmd, "emit") != 0 && strcmp(cmd, "check") != 0)
		usage_error("unknown command '%s'", cmd);

	const char *input = NULL, *output = NULL, *cflags = NULL;
	const char **extras = xcalloc((size_t)argc, sizeof *extras);
	const char **includes = xcalloc((size_t)argc, sizeof *includes);
	int nextras = 0, nincludes = 0;
	bool line_directives = false, keep_c = false, verbose = false;
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
		} else if (strcmp(cmd, "build") == 0 &&
		           (ends_with(a, ".c") || ends_with(a, ".o") || ends_with(a, ".a") || ends_with(a, ".so"))) {
			extras[nextras++] = a;
		} else {
			usage_error("unexpected argument '%s' (the program must end in .stoat)", a);
		}
	}
	if (!input)
		usage_error("%s: no .stoat file given", cmd);

	Program *prog = front_end(input);
	if (!prog)
		return EXIT_ERRORS;
	if (!check_extern_headers(prog, dir_name(input), includes, nincludes))
		return EXIT_ERRORS;
	if (strcmp(cmd, "check") == 0)
		return EXIT_OK;

	char *base = base_name_no_ext(input);
	if (strcmp(cmd, "emit") == 0) {
		char *path = NULL;
		if (output)
			path = (is_dir(output) || ends_with(output, "/")) ? xasprintf("%s/%s.c", output, base)
			                                                 : xstrdup(output);
		CodegenOptions co = { .line_directives = line_directives,
		                      .output_name = path ? path : xasprintf("%s.c", base) };
		char *c = codegen(prog, &co);
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
	char *c_path;
	char *tmpdir = NULL;
	if (keep_c) {
		c_path = xasprintf("%s.c", output);
	} else {
		const char *t = getenv("TMPDIR");
		char *templ = xasprintf("%s/stoatc-XXXXXX", t && *t ? t : "/tmp");
		tmpdir = mkdtemp(templ);
		if (!tmpdir) {
			fprintf(stderr, "stoatc: error: cannot create a temporary directory: %s\n", strerror(errno));
			return EXIT_IO;
		}
		c_path = xasprintf("%s/%s.c", tmpdir, base);
	}
	CodegenOptions co = { .line_directives = line_directives, .output_name = c_path };
	char *c = codegen(prog, &co);
	if (!write_file(c_path, c))
		return EXIT_IO;
	BuildOptions bo = {
		.c_file = c_path, .output = output, .source_dir = dir_name(input),
		.extra_inputs = extras, .nextra_inputs = nextras,
		.include_dirs = includes, .ninclude_dirs = nincludes,
		.cflags = cflags, .verbose = verbose,
	};
	int rc = build_binary(&bo);
	if (tmpdir) {
		unlink(c_path);
		rmdir(tmpdir);
	}
	if (rc != 0) {
		fprintf(stderr, "stoatc: error: the C compiler failed (exit %d)%s\n", rc,
		        keep_c ? "" : "; rerun with --keep-c to inspect the generated C");
		return EXIT_CC;
	}
	return EXIT_OK;
}
