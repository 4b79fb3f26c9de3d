/*
 * graph.c - the topology as Graphviz DOT.
 *
 * What is drawn, in this order (so the text is stable):
 *
 *   topics      every topic the application reads or writes, in the order
 *               sources, sinks, dead-letter topics, changelogs first name
 *               them: boxes; internal topics (repartition, changelog)
 *               dashed, dead-letter topics red;
 *   clusters    one per sub-topology ("sub-topology N", as Kafka Streams
 *               numbers them), holding its operators (IR nodes, by id)
 *               and the state stores they write (cylinders);
 *   edges       topic -> source, operator -> child, sink -> topic,
 *               operator -> store -> changelog, source -> dead-letter topic.
 *
 * An operator is labelled with its text in the .stoat file (whitespace
 * collapsed, long text cut at MAX_LABEL bytes) and the stream or table it
 * is bound to; its tooltip is file:line:col.  The grouping step between a
 * group_by and its aggregation (IR_GROUP) is not drawn (ops.def's drawn
 * column): its parent points at its children, as in Kafka Streams' own
 * description.
 */
#include "graph.h"

#include <string.h>

#include "printer.h"

enum { MAX_LABEL = 40 };

/* A DOT double-quoted string's contents: quotes and backslashes escaped. */
static void pr_escaped(Printer *p, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			pr(p, "\\%c", *s);
		else if ((unsigned char)*s >= ' ' && *s != 0x7f)
			pr(p, "%c", *s);
	}
}

/* The file name without its directories, for the header comment. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Start of 1-based line `line` of f, or NULL past the end. */
static const char *line_start(const SourceFile *f, int line)
{
	const char *p = f->text;
	for (int l = 1; l < line; l++) {
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
	return p;
}

/*
 * The source text of span with every run of blanks and newlines as one
 * space (none just inside brackets), cut to MAX_LABEL bytes (at a UTF-8 character boundary) with
 * "..." after it.
 */
static char *span_text(Span span)
{
	if (!span.file || span.line <= 0)
		return xstrdup("");
	const char *start = line_start(span.file, span.line);
	const char *end = line_start(span.file, span.end_line);
	if (!start || !end)
		return xstrdup("");
	start += span.col - 1;
	end += span.end_col; /* end_col is inclusive */
	if (end > span.file->text + span.file->len)
		end = span.file->text + span.file->len;
	char *out = xmalloc((size_t)(end - start) + 4);
	size_t n = 0;
	bool blank = false, cut = false;
	for (const char *p = start; p < end; p++) {
		bool is_blank = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
		if (is_blank) {
			/* no blank after an opening bracket or before a closing one */
			blank = n > 0 && out[n - 1] != '(' && out[n - 1] != '[';
			continue;
		}
		if (*p == ')' || *p == ']')
			blank = false;
		size_t need = blank ? 2 : 1;
		if (n + need > MAX_LABEL && ((unsigned char)*p & 0xc0) != 0x80) {
			cut = true;
			break;
		}
		if (blank)
			out[n++] = ' ';
		blank = false;
		out[n++] = *p;
	}
	if (cut)
		memcpy(out + n, "...", 3), n += 3;
	out[n] = '\0';
	return out;
}

/* Prints the quoted DOT id of a topic node: "topic:NAME". */
static void pr_topic_id(Printer *p, const char *topic)
{
	pr(p, "\"topic:");
	pr_escaped(p, topic);
	pr(p, "\"");
}

/* Prints the quoted DOT id of a store node: "store:NAME". */
static void pr_store_id(Printer *p, const Store *s)
{
	pr(p, "\"store:");
	pr_escaped(p, s->name);
	pr(p, "\"");
}

/* The topics already drawn, so each appears once. */
typedef struct TopicSet {
	const char **names;
	int n;
} TopicSet;

/*
 * Draws the node of topic (once): internal topics dashed, dead-letter
 * topics red, the others blue.
 */
static void pr_topic(Printer *p, TopicSet *seen, const char *topic, bool internal, bool dlq)
{
	for (int i = 0; i < seen->n; i++)
		if (strcmp(seen->names[i], topic) == 0)
			return;
	seen->names = xrealloc(seen->names, sizeof *seen->names * (size_t)(seen->n + 1));
	seen->names[seen->n++] = topic;
	pr_topic_id(p, topic);
	pr(p, " [label=\"");
	pr_escaped(p, topic);
	if (internal)
		pr(p, "\", style=\"rounded,dashed\"];\n");
	else if (dlq)
		pr(p, "\", style=\"rounded,filled\", fillcolor=\"#f8cecc\"];\n");
	else
		pr(p, "\", style=\"rounded,filled\", fillcolor=\"#dae8fc\"];\n");
}

/* The dead-letter topic of a source, or NULL: its own policy, else the app's. */
static const char *dlq_of(const Topology *t, const IrNode *n)
{
	if (n->kind != IR_SOURCE)
		return NULL;
	if (n->policy == POLICY_DLQ)
		return n->dlq_topic;
	if (n->policy == POLICY_DEFAULT && t->on_error == POLICY_DLQ)
		return t->dlq_topic;
	return NULL;
}

/* Prints the label of an operator node (without quotes). */
static void pr_label(Printer *p, const IrNode *n)
{
	const char *bound = n->table || n->has_store ? "table" : "stream";
	if (n->kind == IR_SOURCE && n->internal) {
		pr(p, "source");
		return;
	}
	if (n->kind == IR_SOURCE) {
		pr(p, "%s ", bound);
		pr_escaped(p, n->name);
		pr(p, "\\n");
		pr_escaped(p, type_str(n->key));
		pr(p, " -> ");
		pr_escaped(p, type_str(n->val));
		return;
	}
	if (n->kind == IR_SINK && n->internal) {
		pr(p, "sink");
		return;
	}
	if (n->kind == IR_SPLIT) {
		pr(p, "split");
		return;
	}
	if (n->kind == IR_BRANCH) {
		pr(p, "%s ", n->lambda ? "branch" : "default");
		pr_escaped(p, n->name ? n->name : "?");
		if (n->lambda) {
			pr(p, "\\n");
			pr_escaped(p, span_text(n->lambda->span));
		}
		return;
	}
	if (n->kind == IR_AGGREGATE && n->window) { /* the window(...) is drawn through: name it here */
		pr_escaped(p, span_text(n->window->span));
		pr(p, "\\n");
	}
	pr_escaped(p, span_text(n->span));
	if (n->name) {
		pr(p, "\\n%s ", bound);
		pr_escaped(p, n->name);
	}
}

/* Prints one operator node, and the store it writes. */
static void pr_node(Printer *p, const Topology *t, const IrNode *n)
{
	pr(p, "n%d [label=\"", n->id);
	pr_label(p, n);
	pr(p, "\", tooltip=\"");
	pr_escaped(p, n->span.file ? base_name(n->span.file->path) : "?");
	pr(p, ":%d:%d\"", n->span.line, n->span.col);
	if (n->internal)
		pr(p, ", style=\"rounded,dashed\"");
	else if (n->kind == IR_SOURCE || n->kind == IR_SINK)
		pr(p, ", style=\"rounded,filled\", fillcolor=\"#eeeeee\"");
	pr(p, "];\n");
	if (n->has_store) {
		const Store *s = &t->stores[n->store];
		pr_store_id(p, s);
		pr(p, " [label=\"");
		pr_escaped(p, s->name);
		pr(p, "\\n%s store\", shape=cylinder, style=\"filled\", fillcolor=\"#fff2cc\"];\n",
		   s->in_memory ? "in-memory" : "RocksDB");
	}
}

/* Prints the edges from n to its children, looking through nodes not drawn (IR_GROUP). */
static void pr_child_edges(Printer *p, const IrNode *from, const IrNode *n)
{
	for (int i = 0; i < n->nchildren; i++) {
		const IrNode *c = n->children[i];
		if (!ir_kind_drawn(c->kind))
			pr_child_edges(p, from, c);
		else
			pr(p, "n%d -> n%d;\n", from->id, c->id);
	}
}

/* The DOT text of the topology: topics, clusters, edges (see the top). */
char *graph_dot(const Program *prog, const char *path)
{
	const Topology *t = &prog->topo;
	const char *app = t->app_id ? t->app_id : "app";
	Printer p;
	pr_init(&p);
	pr(&p, "// The topology of application \"");
	pr_escaped(&p, app);
	pr(&p, "\" (");
	pr_escaped(&p, base_name(path));
	pr(&p, "), from stoatc graph.\n");
	pr(&p, "digraph \"");
	pr_escaped(&p, app);
	pr(&p, "\" {\n");
	p.indent++;
	pr(&p, "graph [rankdir=LR, fontname=\"Helvetica\", fontsize=12, labelloc=t, label=\"");
	pr_escaped(&p, app);
	pr(&p, "\"];\n");
	pr(&p, "node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n");
	pr(&p, "edge [fontname=\"Helvetica\", fontsize=9];\n");

	pr(&p, "\n// topics\n");
	TopicSet seen = { 0 };
	for (int i = 0; i < t->nsources; i++)
		pr_topic(&p, &seen, t->sources[i]->topic, t->sources[i]->internal, false);
	for (int i = 0; i < t->nsinks; i++)
		if (t->sinks[i]->topic)
			pr_topic(&p, &seen, t->sinks[i]->topic, t->sinks[i]->internal, false);
	for (int i = 0; i < t->nsources; i++)
		if (dlq_of(t, t->sources[i]))
			pr_topic(&p, &seen, dlq_of(t, t->sources[i]), false, true);
	for (int i = 0; i < t->nstores; i++)
		if (t->stores[i].changelog) /* a global table has none */
			pr_topic(&p, &seen, t->stores[i].changelog, true, false);

	for (int st = -1; st < t->nsubtopologies; st++) {
		bool any = false;
		for (int i = 0; i < t->nnodes; i++)
			any |= t->nodes[i]->subtopology == st && ir_kind_drawn(t->nodes[i]->kind);
		if (!any)
			continue;
		if (st >= 0) {
			pr(&p, "\nsubgraph cluster_%d {\n", st);
			p.indent++;
			pr(&p, "label=\"sub-topology %d\";\nstyle=rounded;\ncolor=\"#999999\";\n", st);
		} else {
			pr(&p, "\n// operators outside any sub-topology\n");
		}
		for (int i = 0; i < t->nnodes; i++)
			if (t->nodes[i]->subtopology == st && ir_kind_drawn(t->nodes[i]->kind))
				pr_node(&p, t, t->nodes[i]);
		if (st >= 0) {
			p.indent--;
			pr(&p, "}\n");
		}
	}

	pr(&p, "\n// records, state and errors\n");
	for (int i = 0; i < t->nnodes; i++) {
		const IrNode *n = t->nodes[i];
		if (!ir_kind_drawn(n->kind))
			continue;
		if (n->kind == IR_SOURCE) {
			pr_topic_id(&p, n->topic);
			pr(&p, " -> n%d%s;\n", n->id, n->internal ? " [style=dashed]" : "");
		}
		pr_child_edges(&p, n, n);
		if (n->kind == IR_SINK && n->topic) {
			pr(&p, "n%d -> ", n->id);
			pr_topic_id(&p, n->topic);
			pr(&p, "%s;\n", n->internal ? " [style=dashed]" : "");
		}
		if (n->has_store) {
			const Store *s = &t->stores[n->store];
			pr(&p, "n%d -> ", n->id);
			pr_store_id(&p, s);
			pr(&p, " [style=dashed, arrowhead=none];\n");
			if (s->changelog) {
				pr_store_id(&p, s);
				pr(&p, " -> ");
				pr_topic_id(&p, s->changelog);
				pr(&p, " [style=dashed, label=\"changelog\"];\n");
			}
		}
		if (n->kind == IR_JOIN && n->join->table && n->join->table->has_store) {
			/* The join looks the table's store up. */
			pr_store_id(&p, &t->stores[n->join->table->store]);
			pr(&p, " -> n%d [style=dashed, label=\"lookup\"];\n", n->id);
		}
		if (dlq_of(t, n)) {
			pr(&p, "n%d -> ", n->id);
			pr_topic_id(&p, dlq_of(t, n));
			pr(&p, " [style=dotted, color=\"#b85450\", label=\"errors\"];\n");
		}
	}
	p.indent--;
	pr(&p, "}\n");
	return p.buf;
}
