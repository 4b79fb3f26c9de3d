/*
 * ir.c - building the topology graph.
 */
#include "ir.h"

#include <assert.h>
#include <string.h>

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
	if (child->depth < parent->depth + 1)
		child->depth = parent->depth + 1;
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
	static const char *names[] = { "bytes", "text", "json", "i32", "i64", "f64", "avro_raw", "avro" };
	return names[f];
}

/* Text for strings, i32/i64/f64 for those numbers, bytes for bytes, JSON for everything else. */
Format format_default(Type *t)
{
	switch (type_strip(t)->kind) {
	case TY_STRING: return FMT_TEXT;
	case TY_BYTES: return FMT_BYTES;
	case TY_I32: return FMT_I32;
	case TY_I64: case TY_TIMESTAMP: case TY_DURATION: return FMT_I64;
	case TY_F64: return FMT_F64;
	default: return FMT_JSON;
	}
}

/* Kafka's rule for topic names; sema checks the user's, the plan the internal ones. */
bool topic_name_valid(const char *topic, size_t len)
{
	bool ok = len > 0 && len <= KAFKA_TOPIC_NAME_MAX && !(len == 1 && topic[0] == '.') && !(len == 2 && memcmp(topic, "..", 2) == 0);
	for (size_t i = 0; ok && i < len; i++) {
		char c = topic[i];
		ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		     c == '_' || c == '-';
	}
	return ok;
}

/* See ir.h: a generous bound (twice every duration, plus one), not an exact one. */
int64_t window_time_reach(const WindowSpec *w)
{
	return 2 * (w->size + w->advance + w->gap + w->grace + w->retention) + 1;
}

/* The operator that writes a join of this type (plan text, generated comments). */
const char *join_op_name(JoinType type)
{
	return type == JOIN_LEFT ? "left_join" : type == JOIN_OUTER ? "outer_join" : "join";
}
