/*
 * emit.c - stoat_emit(), the one call generated code makes to send a
 * record.  Checks that do not depend on the driver are done here; then the
 * driver's emit operation (driver.h) takes the record.
 */
#include "driver.h"

#include <assert.h>

/*
 * Sends one record to sink `sink` (topic.ptr non-NULL overrides the sink's
 * topic).  Problems with the record (a bad per-record topic) become
 * per-record errors: generated code checks cx->error after the call, as
 * after any other fallible operation.
 */
void stoat_emit(stoat_ctx *cx, int sink, stoat_str topic, stoat_str key, stoat_str value)
{
	assert(cx->msg != NULL);
	const stoat_app *app = cx->app;
	if (STOAT_UNLIKELY(app == NULL || sink < 0 || (size_t)sink >= app->sink_count)) {
		stoat_error(cx, "internal error: emit to sink %d, which does not exist", sink);
		return;
	}
	if (topic.ptr == NULL) {
		if (STOAT_UNLIKELY(app->sinks[sink].topic == NULL)) {
			stoat_error(cx, "internal error: sink %d needs a topic for each record", sink);
			return;
		}
	} else if (STOAT_UNLIKELY(!stoat_topic_name_valid(topic))) {
		/* Quote the name with anything unprintable escaped. */
		char shown[420];
		size_t n = 0;
		for (size_t i = 0; i < topic.len && n + 8 < sizeof shown; i++) {
			unsigned char c = (unsigned char)topic.ptr[i];
			if (c == '"' || c == '\\')
				n += (size_t)snprintf(shown + n, sizeof shown - n, "\\%c", c);
			else if (c < 0x20 || c >= 0x7f)
				n += (size_t)snprintf(shown + n, sizeof shown - n, "\\x%02x", c);
			else
				shown[n++] = (char)c;
			if (i == 99 && topic.len > 100) {
				n += (size_t)snprintf(shown + n, sizeof shown - n, "...");
				break;
			}
		}
		shown[n] = '\0';
		stoat_error(cx, "invalid topic name \"%s\" (Kafka allows 1-249 of a-z A-Z 0-9 . _ -, not . or ..)",
			    shown);
		return;
	}
	if (STOAT_UNLIKELY(cx->driver == NULL || cx->driver->ops == NULL)) {
		stoat_error(cx, "internal error: no driver to emit to");
		return;
	}
	if (!cx->driver->ops->emit(cx->driver, cx, sink, topic, key, value))
		return;
	/* Records written to repartition topics are counted again when read back, not here. */
	if (topic.ptr || !app->sinks[sink].internal)
		cx->counters.records_out++;
}
