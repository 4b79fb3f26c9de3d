/*
 * sema_window.c - event time and windows: a source's timestamp extractor,
 * a sink's output timestamp, and window(...) on a grouped stream.
 *
 * The first two are lambdas over the record's key and value that must
 * give a timestamp; the null and negative checks that Kafka Streams'
 * FailOnInvalidTimestamp makes happen at run time (codegen_ops.c).
 * window(...) takes words and durations (the grammar's window_arg), in
 * Kafka Streams' vocabulary: a kind first (tumbling D, hopping D every D,
 * sliding D, session gap D), then grace D (required: Kafka Streams 3.0+
 * has no default), retention D and emit final|changes, each at most once.
 */
#include <assert.h>
#include <string.h>

#include "sema_int.h"

static const char missing_grace_hint[] =
	"Kafka Streams 3.0+ has no default grace: write grace 0s to accept no late records";

/* "1m", "10s", "250ms": a duration in milliseconds as it would be written, for messages. */
static const char *duration_str(int64_t ms)
{
	if (ms != 0 && ms % 86400000 == 0)
		return xasprintf("%lldd", (long long)(ms / 86400000));
	if (ms != 0 && ms % 3600000 == 0)
		return xasprintf("%lldh", (long long)(ms / 3600000));
	if (ms != 0 && ms % 60000 == 0)
		return xasprintf("%lldm", (long long)(ms / 60000));
	if (ms != 0 && ms % 1000 == 0)
		return xasprintf("%llds", (long long)(ms / 1000));
	return xasprintf("%lldms", (long long)ms);
}

/* Whether a window(...) argument names the kind of window. */
static bool is_kind_word(const char *name)
{
	return strcmp(name, "tumbling") == 0 || strcmp(name, "hopping") == 0 || strcmp(name, "sliding") == 0 ||
	       strcmp(name, "session") == 0;
}

/* The window's kind from its kind argument (tumbling D, ...); false after reporting a malformed one. */
static bool window_kind(Node *arg, WindowSpec *w)
{
	const char *word = arg->c ? arg->c->name : NULL;
	if (strcmp(arg->name, "tumbling") == 0 && arg->a && !word) {
		w->kind = WIN_TUMBLING;
		w->size = w->advance = arg->a->ival;
	} else if (strcmp(arg->name, "hopping") == 0 && arg->a && word && arg->b && strcmp(word, "every") == 0) {
		w->kind = WIN_HOPPING;
		w->size = arg->a->ival;
		w->advance = arg->b->ival;
	} else if (strcmp(arg->name, "sliding") == 0 && arg->a && !word) {
		w->kind = WIN_SLIDING;
		w->size = arg->a->ival;
	} else if (strcmp(arg->name, "session") == 0 && arg->a && word && !arg->b && strcmp(word, "gap") == 0) {
		w->kind = WIN_SESSION;
		w->gap = arg->a->ival;
	} else {
		static const struct { const char *kind, *message, *hint; } shapes[] = {
			{ "tumbling", "a tumbling window takes one duration, its size", "write tumbling 1m" },
			{ "hopping", "a hopping window takes its size, then 'every' and its advance", "write hopping 5m every 1m" },
			{ "sliding", "a sliding window takes one duration, the maximum time difference", "write sliding 30s" },
			{ "session", "a session window takes 'gap' and the inactivity gap", "write session gap 5m" },
		};
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
			if (strcmp(arg->name, shapes[i].kind) == 0)
				error_hint(arg->span, shapes[i].hint, "%s", shapes[i].message);
		return false;
	}
	return true;
}

/*
 * Checks the durations of a window whose arguments were all understood:
 * a size (or gap) above 0, an advance in (0, size], a retention of at
 * least size + grace (gap + grace for sessions, twice the time
 * difference + grace for sliding windows), as Kafka Streams'
 * TimeWindows, SlidingWindows and SessionWindows refuse.
 */
static void check_window_durations(Node *kind_arg, Node *grace_arg, Node *retention_arg, WindowSpec *w)
{
	const char *what = w->kind == WIN_SESSION ? "gap" : w->kind == WIN_SLIDING ? "time difference" : "size";
	int64_t span = w->kind == WIN_SESSION ? w->gap : w->size;
	/* Bounded so that window arithmetic (window_time_reach) cannot overflow, here or at run time. */
	Node *given[] = { kind_arg->a, w->kind == WIN_HOPPING ? kind_arg->b : NULL, grace_arg->a,
	                  retention_arg ? retention_arg->a : NULL };
	bool too_long = false;
	for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
		if (given[i] && given[i]->ival > MAX_WINDOW_DURATION) {
			error_hint(given[i]->span, "write 36500d or less",
			           "a window duration must be at most 100 years (36500d), got %s",
			           duration_str(given[i]->ival));
			too_long = true;
		}
	if (too_long)
		return;
	if (span <= 0)
		error_hint(kind_arg->a->span, "a window spans some time: write 1ms or more",
		           "the window %s must be above 0", what);
	if (w->kind == WIN_HOPPING) {
		if (w->advance <= 0)
			error_hint(kind_arg->b->span, "a hopping window advances by 1ms or more",
			           "the advance must be above 0");
		else if (w->advance > w->size)
			error_hint(kind_arg->b->span, "windows that advance by more than their size would miss records",
			           "the advance (%s) must not exceed the size (%s)", duration_str(w->advance),
			           duration_str(w->size));
	}
	/* A sliding window's store also keeps the windows a record's left window is built from, up to twice
	 * the time difference back (Kafka Streams' SlidingWindowStoreMaterializer). */
	bool twice = w->kind == WIN_SLIDING;
	int64_t least = (twice ? 2 * span : span) + w->grace;
	if (!retention_arg)
		w->retention = least;
	else if (w->retention < least)
		error_hint(retention_arg->a->span,
		           xasprintf("%s: write retention %s or more",
		                     twice ? "a sliding window's store keeps the windows later ones are built from"
		                           : "a window must be kept until it closes",
		                     duration_str(least)),
		           "the retention (%s) is below %sthe window %s plus grace (%s)", duration_str(w->retention),
		           twice ? "twice " : "", what, duration_str(least));
}

/*
 * window(...) after a grouped stream: the records, to be aggregated per
 * key and window by the count, reduce or aggregate that follows (which
 * makes a table keyed windowed<K>: check_aggregation).
 */
IrNode *check_window(Sema *sema, IrNode *parent, Node *step)
{
	if (parent->window) {
		error_hint(step->name_span, "aggregate it: count(), reduce(...) or aggregate(...)",
		           "the records are windowed already");
		return NULL;
	}
	WindowSpec *w = xcalloc(1, sizeof *w);
	w->span = step->span;
	Node *kind_arg = NULL, *grace_arg = NULL, *retention_arg = NULL, *emit_arg = NULL;
	bool ok = true, reported_kind = false;
	for (Node *arg = step->list; arg; arg = arg->next) {
		if (arg->kind != N_WINDOW_ARG) {
			error_hint(arg->span, "write window(tumbling 1m, grace 10s)",
			           "window(...) takes a kind of window and options, not expressions");
			ok = false;
			reported_kind = true;
			continue;
		}
		const char *word = arg->c ? arg->c->name : NULL;
		Node **seen = NULL;
		if (is_kind_word(arg->name)) {
			if (kind_arg) {
				error_hint(arg->span, "a window has one kind", "the kind of window is given twice");
				ok = false;
				continue;
			}
			if (arg != step->list) {
				error_hint(arg->span, "write it first: window(tumbling 1m, grace 10s)",
				           "the kind of window comes first");
				ok = false;
			}
			ok = window_kind(arg, w) && ok;
			kind_arg = arg;
			continue;
		}
		if (strcmp(arg->name, "grace") == 0 && arg->a && !word) {
			seen = &grace_arg;
			w->grace = arg->a->ival;
		} else if (strcmp(arg->name, "retention") == 0 && arg->a && !word) {
			seen = &retention_arg;
			w->retention = arg->a->ival;
		} else if (strcmp(arg->name, "emit") == 0 && !arg->a && word &&
		           (strcmp(word, "final") == 0 || strcmp(word, "changes") == 0)) {
			seen = &emit_arg;
			w->emit_final = strcmp(word, "final") == 0;
		} else if (arg == step->list) {
			error_hint(arg->span, "write tumbling 1m, hopping 5m every 1m, sliding 30s or session gap 5m",
			           "window(...) starts with the kind of window, not '%s'", arg->name);
			ok = false;
			reported_kind = true;
			continue;
		} else {
			error_hint(arg->span, "the options are grace D, retention D and emit final or emit changes",
			           "unknown window option '%s%s%s'", arg->name, word ? " " : "", word ? word : "");
			ok = false;
			continue;
		}
		if (*seen) {
			error_hint(arg->span, "write each option once", "'%s' given twice", arg->name);
			ok = false;
			continue;
		}
		*seen = arg;
	}
	if (!kind_arg && !reported_kind) {
		error_hint(step->span, "write window(tumbling 1m, grace 10s)", "window(...) needs a kind of window");
		ok = false;
	}
	if (kind_arg && !grace_arg) {
		error_hint(step->span, missing_grace_hint, "a window needs a grace period");
		ok = false;
	}
	if (ok)
		check_window_durations(kind_arg, grace_arg, retention_arg, w);
	IrNode *n = ir_new(sema->topo, IR_WINDOW, step->span);
	n->key = parent->key;
	n->val = parent->val;
	n->key_changed = parent->key_changed;
	n->grouped = true;
	n->window = w;
	ir_link(parent, n);
	return n;
}

/*
 * timestamp (k, v) => ...: a stream source's event time, typed timestamp or
 * timestamp? (null, like a negative time, fails the record at run time).
 */
void check_timestamp_extractor(Sema *sema, Node *it, IrNode *src)
{
	if (it->ival) {
		error_hint(it->timestamp->span, "read the table as a stream, or drop the extractor",
		           "a table source cannot name a timestamp extractor yet");
		return;
	}
	Type *t = check_lambda(sema, it->timestamp, src->key, src->val, ty_timestamp, "timestamp");
	if (!t)
		return;
	if (t != ty_timestamp && t != ty_nullable(ty_timestamp)) {
		error_hint(it->timestamp->a->span, "convert it: from_millis(v.ms)",
		           "a timestamp extractor must return timestamp, found %s", type_str(t));
		return;
	}
	src->timestamp = it->timestamp;
}

/*
 * to "t" timestamp (k, v) => ...: the timestamp of the sink's records,
 * a timestamp (not timestamp?: an output needs one).
 */
void check_output_timestamp(Sema *sema, Node *to, IrNode *parent, IrNode *sink)
{
	Type *t = check_lambda(sema, to->timestamp, parent->key, parent->val, ty_timestamp, "timestamp");
	if (!t)
		return;
	if (t != ty_timestamp) {
		error_hint(to->timestamp->a->span, t->kind == TY_NULLABLE ? "give a default: (t ?? from_millis(0))" : NULL,
		           "an output timestamp must be timestamp, found %s", type_str(t));
		return;
	}
	sink->timestamp = to->timestamp;
}
