/*
 * ir.c - building the topology graph.
 */
#include "ir.h"

#include <assert.h>

IrNode *ir_new(Topology *t, IrKind kind, Span span)
{
	IrNode *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->span = span;
	n->id = t->nnodes;
	n->subtopology = -1;
	t->nodes = xrealloc(t->nodes, sizeof *t->nodes * (size_t)(t->nnodes + 1));
	t->nodes[t->nnodes++] = n;
	if (kind == IR_SOURCE) {
		n->index = t->nsources;
		t->sources = xrealloc(t->sources, sizeof *t->sources * (size_t)(t->nsources + 1));
		t->sources[t->nsources++] = n;
	} else if (kind == IR_SINK) {
		n->index = t->nsinks;
		t->sinks = xrealloc(t->sinks, sizeof *t->sinks * (size_t)(t->nsinks + 1));
		t->sinks[t->nsinks++] = n;
	}
	return n;
}

void ir_link(IrNode *parent, IrNode *child)
{
	parent->children = xrealloc(parent->children, sizeof *parent->children * (size_t)(parent->nchildren + 1));
	parent->children[parent->nchildren++] = child;
	child->parents = xrealloc(child->parents, sizeof *child->parents * (size_t)(child->nparents + 1));
	child->parents[child->nparents++] = parent;
}

/* Marks every node reachable from n (down and, through merges, up). */
static void flood(IrNode *n, int st)
{
	if (n->subtopology == st)
		return;
	n->subtopology = st;
	for (int i = 0; i < n->nchildren; i++)
		flood(n->children[i], st);
	for (int i = 0; i < n->nparents; i++)
		flood(n->parents[i], st);
}

void ir_assign_subtopologies(Topology *t)
{
	t->nsubtopologies = 0;
	for (int i = 0; i < t->nsources; i++)
		if (t->sources[i]->subtopology < 0)
			flood(t->sources[i], t->nsubtopologies++);
}

const char *ir_kind_name(IrKind kind)
{
	static const char *const names[] = {
#define IR_KIND(kind, name, drawn) [kind] = name,
#include "ops.def"
	};
	assert((size_t)kind < sizeof names / sizeof names[0]);
	return names[kind];
}

bool ir_kind_drawn(IrKind kind)
{
	static const bool drawn[] = {
#define IR_KIND(kind, name, is_drawn) [kind] = is_drawn,
#include "ops.def"
	};
	assert((size_t)kind < sizeof drawn / sizeof drawn[0]);
	return drawn[kind];
}

const char *format_name(Format f)
{
	static const char *names[] = { "bytes", "text", "json", "i32", "i64", "f64" };
	return names[f];
}
