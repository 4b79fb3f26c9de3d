/*
 * log.h - the runtime's log: every line a driver, the record path or
 * librdkafka writes goes through here, to standard error, one write per
 * line (safe from any thread).
 *
 * Until a driver configures it, lines are a command-line tool's
 * ("<app>: warning: ..."), as `replay`, `load` and `dump` print them.
 * `run` configures the service format: a UTC timestamp, the app and its
 * instance, the level, the message,
 *
 *     2026-12-04T14:02:11.532Z orders[orders-1]: warning: source topic t does not exist (yet); waiting for it
 *
 * or one JSON object per line (log_format json) with ts, level, app,
 * instance, event and message, plus the event's fields where it has some.
 * Warnings and errors are rate-limited per call site (its format string):
 * at most STOAT_LOG_BURST in STOAT_LOG_WINDOW_MS, then one line saying how
 * many were held back.  Layering: util.h only.
 */
#ifndef STOAT_RUNTIME_LOG_H
#define STOAT_RUNTIME_LOG_H

#include "util.h"

#include <stdarg.h>
#include <stdbool.h>

typedef enum stoat_log_level {
	STOAT_LOG_DEBUG = 0,
	STOAT_LOG_INFO,
	STOAT_LOG_WARNING,
	STOAT_LOG_ERROR,
} stoat_log_level;

typedef enum stoat_log_format {
	STOAT_LOG_PLAIN = 0, /* "<app>: level: message": a command-line tool's */
	STOAT_LOG_TEXT,      /* timestamp, app[instance], level, message */
	STOAT_LOG_JSON,      /* one JSON object per line */
} stoat_log_format;

/* At most this many warnings or errors of one call site per window. */
#define STOAT_LOG_BURST 10
#define STOAT_LOG_WINDOW_MS 10000

typedef struct stoat_log_config {
	const char *app;
	const char *instance;       /* NULL: none (PLAIN ignores it) */
	stoat_log_level level;      /* lines below it are dropped */
	stoat_log_format format;
	/* Called on every line's message before it is written (blotting out
	 * secrets from librdkafka's lines); may be NULL. */
	void (*redact)(void *arg, char *message);
	void *redact_arg;
	int64_t limit_window_ms;    /* the rate limit's window (0: STOAT_LOG_WINDOW_MS) */
} stoat_log_config;

/* Sets the log up (the strings are copied); again to change it. */
void stoat_log_configure(const stoat_log_config *config);

/* The configured level: callers skip work for lines that would be dropped. */
stoat_log_level stoat_log_min_level(void);

/*
 * Writes one line.  event names what happened for the JSON format
 * ("assigned", "restored", "report"; NULL: "log"); fields, when not NULL,
 * is a JSON object's members ("\"lag\": 3, \"records\": 9") added to
 * the JSON line and ignored by the text formats.
 */
void stoat_log(stoat_log_level level, const char *event, const char *fields, const char *fmt, ...)
	STOAT_PRINTF(4, 5);
void stoat_logv(stoat_log_level level, const char *event, const char *fields, const char *fmt, va_list ap);

/*
 * Like stoat_logv for messages that carry their level in front, as the
 * Kafka driver writes them: "error: ...", "warning: ...", else info.
 */
void stoat_log_leveled(const char *event, const char *fmt, va_list ap);

/* "debug", "info", "warning" (or "warn"), "error"; false for others. */
bool stoat_log_parse_level(const char *s, stoat_log_level *out);
const char *stoat_log_level_name(stoat_log_level level);

/* "text", "json"; false for others. */
bool stoat_log_parse_format(const char *s, stoat_log_format *out);

#endif /* STOAT_RUNTIME_LOG_H */
