/*
 * codegen_window.c - windowed aggregations: the per-record update of a
 * window store (every window containing the record's time, late ones
 * dropped), and the pipelines after a window store.
 */
#include "codegen_int.h"

#include <assert.h>

/*
 * close_<store>: emit final's closed windows through the store's
 * downstream operators.  The plan refuses emit final before code
 * generation (plan.c:plan_windows_supported) until it is written.
 */
void emit_window_close(Gen *g, const Pipeline *pp, Printer *p)
{
	(void)g;
	(void)p;
	(void)pp;
	assert(pp->kind == PIPE_WINDOW_CLOSE);
	assert(!"emit final is not yet generated");
}
