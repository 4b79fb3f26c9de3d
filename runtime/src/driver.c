/*
 * driver.c - what every driver shares on the record path: which error
 * policy and dead-letter topic apply to a failed record, the dead letter
 * itself (headers here, the write through the driver's operations), and
 * the run's summary: the one sum of the task counters both drivers
 * print.
 */
#include "driver.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/*
 * stoat_msg_load_headers' conversion (runtime.h).  The records a driver
 * hands to a pipeline are its own, writable array (k->batch), read-only
 * to the pipeline only: converting them in place is the driver's right.
 */
void stoat_msg_load_headers_slow(stoat_ctx *cx, const stoat_msg *m)
{
	stoat_msg *own = (stoat_msg *)m;
	if (cx->driver && cx->driver->ops && cx->driver->ops->load_headers) {
		cx->driver->ops->load_headers(cx->driver, cx, own);
		return;
	}
	own->lazy_headers = NULL; /* nobody to convert them: none */
}

/* A context for app under d: see driver.h. */
void stoat_ctx_init(stoat_ctx *cx, const stoat_app *app, stoat_driver *d)
{
	memset(cx, 0, sizeof *cx);
	stoat_arena_init(&cx->arena);
	stoat_buf_init(&cx->key_buf);
	stoat_buf_init(&cx->value_buf);
	cx->app = app;
	cx->driver = d;
}

/* Frees a context's arena and buffers. */
void stoat_ctx_free(stoat_ctx *cx)
{
	stoat_preagg_free(cx);
	stoat_arena_free(&cx->arena);
	stoat_buf_free(&cx->key_buf);
	stoat_buf_free(&cx->value_buf);
}

/*
 * The policy for a failed record: the command line's --on-error, else the
 * source's own, else the application's, else fail.
 */
stoat_policy stoat_effective_policy(const stoat_ctx *cx)
{
	if (cx->driver && cx->driver->policy_override != STOAT_POLICY_DEFAULT)
		return cx->driver->policy_override;
	if (cx->source && cx->source->on_error != STOAT_POLICY_DEFAULT)
		return cx->source->on_error;
	if (cx->app && cx->app->on_error != STOAT_POLICY_DEFAULT)
		return cx->app->on_error;
	return STOAT_POLICY_FAIL;
}

/* The dead-letter topic of the policy that applies to cx's source. */
const char *stoat_effective_dlq_topic(const stoat_ctx *cx)
{
	if (cx->driver && cx->driver->policy_override == STOAT_POLICY_DLQ)
		return cx->driver->dlq_override;
	if (cx->source && cx->source->on_error == STOAT_POLICY_DLQ)
		return cx->source->dlq_topic;
	if (cx->app && cx->app->on_error == STOAT_POLICY_DLQ)
		return cx->app->dlq_topic;
	return NULL;
}

/* Formats v in decimal into the arena. */
static stoat_str arena_decimal(stoat_ctx *cx, int64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof tmp, "%" PRId64, v);
	return stoat_arena_strdup(&cx->arena, (stoat_str){ tmp, (size_t)n });
}

/*
 * Builds the five error headers and hands the failed record to the
 * driver (see driver.h); without a driver the record goes nowhere.
 */
void stoat_dead_letter(stoat_ctx *cx)
{
	const char *topic = stoat_effective_dlq_topic(cx);
	assert(topic && cx->msg);
	const stoat_msg *m = cx->msg;
	const char *src = cx->source ? cx->source->topic : "";
	stoat_header extra[5] = {
		{ STOAT_STR_LIT("stoat.error"),
		  stoat_arena_strdup(&cx->arena, (stoat_str){ cx->error_message, strlen(cx->error_message) }) },
		{ STOAT_STR_LIT("stoat.source.topic"), (stoat_str){ src, strlen(src) } },
		{ STOAT_STR_LIT("stoat.source.partition"), arena_decimal(cx, m->partition) },
		{ STOAT_STR_LIT("stoat.source.offset"), arena_decimal(cx, m->offset) },
		{ STOAT_STR_LIT("stoat.source.timestamp"), arena_decimal(cx, m->timestamp) },
	};
	if (cx->driver && cx->driver->ops)
		cx->driver->ops->dead_letter(cx->driver, cx, topic, extra, 5);
}

/* Adds every counter of c to t except records_in. */
static void add_counters(stoat_counters *t, const stoat_counters *c)
{
	t->records_out += c->records_out;
	t->records_failed += c->records_failed;
	t->records_skipped += c->records_skipped;
	t->records_dead_lettered += c->records_dead_lettered;
	t->records_dropped += c->records_dropped;
	t->records_late += c->records_late;
}

/* The run's counters (see driver.h for what "records in" counts). */
stoat_counters stoat_counters_sum(const stoat_app *app, const stoat_ctx *tasks, size_t n, const stoat_ctx *flush_cx)
{
	assert(n == app->source_count);
	stoat_counters t = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (!app->sources[i].internal)
			t.records_in += tasks[i].counters.records_in;
		add_counters(&t, &tasks[i].counters);
	}
	if (flush_cx)
		add_counters(&t, &flush_cx->counters);
	return t;
}

/* The summary line(s) printed with --stats and when the app stops. */
void stoat_print_summary(FILE *f, const stoat_driver *d, const stoat_counters *total)
{
	const char *app_id = d->app->app_id;
	fprintf(f,
		"%s: records in %" PRIu64 ", out %" PRIu64 ", failed %" PRIu64 ", skipped %" PRIu64
		", dead-lettered %" PRIu64 "\n",
		app_id, total->records_in, total->records_out, total->records_failed, total->records_skipped,
		total->records_dead_lettered);
	if (total->records_dropped)
		fprintf(f, "%s: %" PRIu64 " record%s dropped by design (a null key or value where one is needed)\n", app_id,
			total->records_dropped, total->records_dropped == 1 ? "" : "s");
	if (total->records_late)
		fprintf(f, "%s: %" PRIu64 " late record%s dropped (window closed: end + grace had passed stream time)\n",
			app_id, total->records_late, total->records_late == 1 ? "" : "s");
	if (d->skip_warnings_hidden)
		fprintf(f, "%s: %" PRIu64 " of %" PRIu64 " skipped-record warnings were not shown\n", app_id,
			d->skip_warnings_hidden, d->skip_warnings_hidden + d->skip_warnings_printed);
}
