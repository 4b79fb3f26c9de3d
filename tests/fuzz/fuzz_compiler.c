/*
 * fuzz_compiler.c - libFuzzer target for the stoatc front end, planner and
 * code generator.  Any input must give diagnostics or C, never a crash, a
 * sanitizer report or a hang.  Built with clang -fsanitize=fuzzer by
 * tests/fuzz/smoke; seeded with the golden tests.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ast.h"
#include "codegen.h"
#include "diag.h"
#include "plan.h"
#include "sema.h"
#include "types.h"

extern const char stoat_prelude[];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	diag.suppress = true;
	diag.errors = diag.warnings = 0;
	char *text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	types_init();
	Program *prog = xcalloc(1, sizeof *prog);
	prog->prelude = parse_file(source_from_string("<stdlib>/std.stoat", stoat_prelude));
	prog->prelude->is_prelude = true;
	SourceFile *src = source_from_string("fuzz.stoat", text);
	src->len = size; /* may hold NUL bytes */
	prog->file = parse_file(src);
	Plan *plan = sema_check(prog) && diag.errors == 0 ? plan_build(prog) : NULL;
	/* As stoatc does: a plan with errors (windows code generation cannot
	 * render yet) is for `stoatc plan` only, never rendered. */
	if (plan && diag.errors == 0) {
		CodegenOptions opts = { .line_directives = true, .output_name = "fuzz.c" };
		codegen(plan, &opts);
	}
	xfree_all();
	return 0;
}
