/*
 * log.c - the runtime's log (see log.h): formats, levels, the per call
 * site rate limit, and one write(2) per line so that lines of the
 * stream thread, the HTTP thread and librdkafka's threads never mix.
 */
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* A call site's rate limit: its format string, its window, what it held back. */
typedef struct limit_slot {
	const char *fmt;
	int64_t window_start_ms;
	unsigned count;
	unsigned held;
} limit_slot;

#define LIMIT_SLOTS 128

static struct {
	pthread_mutex_t lock;
	char app[256];
	char instance[256];
	stoat_log_level level;
	stoat_log_format format;
	void (*redact)(void *arg, char *message);
	void *redact_arg;
	int64_t window_ms;
	limit_slot slots[LIMIT_SLOTS];
} L = { .lock = PTHREAD_MUTEX_INITIALIZER, .app = "stoat", .level = STOAT_LOG_INFO, .window_ms = STOAT_LOG_WINDOW_MS };

/* Sets the log up (see log.h). */
void stoat_log_configure(const stoat_log_config *c)
{
	pthread_mutex_lock(&L.lock);
	snprintf(L.app, sizeof L.app, "%s", c->app ? c->app : "stoat");
	snprintf(L.instance, sizeof L.instance, "%s", c->instance ? c->instance : "");
	L.level = c->level;
	L.format = c->format;
	L.redact = c->redact;
	L.redact_arg = c->redact_arg;
	L.window_ms = c->limit_window_ms > 0 ? c->limit_window_ms : STOAT_LOG_WINDOW_MS;
	memset(L.slots, 0, sizeof L.slots);
	pthread_mutex_unlock(&L.lock);
}

stoat_log_level stoat_log_min_level(void)
{
	return L.level;
}

const char *stoat_log_level_name(stoat_log_level level)
{
	static const char *const names[] = { "debug", "info", "warning", "error" };
	return names[level];
}

bool stoat_log_parse_level(const char *s, stoat_log_level *out)
{
	static const struct {
		const char *name;
		stoat_log_level level;
	} names[] = { { "debug", STOAT_LOG_DEBUG }, { "info", STOAT_LOG_INFO }, { "warning", STOAT_LOG_WARNING },
		      { "warn", STOAT_LOG_WARNING }, { "error", STOAT_LOG_ERROR } };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(s, names[i].name) == 0) {
			*out = names[i].level;
			return true;
		}
	return false;
}

bool stoat_log_parse_format(const char *s, stoat_log_format *out)
{
	if (strcasecmp(s, "text") == 0)
		*out = STOAT_LOG_TEXT;
	else if (strcasecmp(s, "json") == 0)
		*out = STOAT_LOG_JSON;
	else
		return false;
	return true;
}

/* "2026-12-04T14:02:11.532Z", the wall clock in UTC. */
static void timestamp(char *out, size_t n)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	size_t len = strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + len, n - len, ".%03ldZ", ts.tv_nsec / 1000000L);
}

/* Writes the whole buffer to standard error (a line at a time). */
static void write_all(const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* nowhere to say it */
		p += w;
		n -= (size_t)w;
	}
}

/* Formats and writes one line; L.lock held. */
static void emit(stoat_log_level level, const char *event, const char *fields, const char *message)
{
	stoat_buf b;
	stoat_buf_init(&b);
	const char *lvl = stoat_log_level_name(level);
	char ts[40];
	switch (L.format) {
	case STOAT_LOG_PLAIN:
		stoat_buf_put(&b, L.app, strlen(L.app));
		stoat_buf_lit(&b, ": ");
		if (level != STOAT_LOG_INFO) {
			stoat_buf_put(&b, lvl, strlen(lvl));
			stoat_buf_lit(&b, ": ");
		}
		stoat_buf_put(&b, message, strlen(message));
		break;
	case STOAT_LOG_TEXT:
		timestamp(ts, sizeof ts);
		stoat_buf_put(&b, ts, strlen(ts));
		stoat_buf_putc(&b, ' ');
		stoat_buf_put(&b, L.app, strlen(L.app));
		if (L.instance[0]) {
			stoat_buf_putc(&b, '[');
			stoat_buf_put(&b, L.instance, strlen(L.instance));
			stoat_buf_putc(&b, ']');
		}
		stoat_buf_lit(&b, ": ");
		stoat_buf_put(&b, lvl, strlen(lvl));
		stoat_buf_lit(&b, ": ");
		stoat_buf_put(&b, message, strlen(message));
		break;
	case STOAT_LOG_JSON:
		timestamp(ts, sizeof ts);
		stoat_buf_lit(&b, "{\"ts\": ");
		stoat_buf_put_json_str(&b, (stoat_str){ ts, strlen(ts) });
		stoat_buf_lit(&b, ", \"level\": ");
		stoat_buf_put_json_str(&b, (stoat_str){ lvl, strlen(lvl) });
		stoat_buf_lit(&b, ", \"app\": ");
		stoat_buf_put_json_str(&b, (stoat_str){ L.app, strlen(L.app) });
		stoat_buf_lit(&b, ", \"instance\": ");
		stoat_buf_put_json_str(&b, (stoat_str){ L.instance, strlen(L.instance) });
		stoat_buf_lit(&b, ", \"event\": ");
		event = event ? event : "log";
		stoat_buf_put_json_str(&b, (stoat_str){ event, strlen(event) });
		stoat_buf_lit(&b, ", \"message\": ");
		stoat_buf_put_json_str(&b, (stoat_str){ message, strlen(message) });
		if (fields && fields[0]) {
			stoat_buf_lit(&b, ", ");
			stoat_buf_put(&b, fields, strlen(fields));
		}
		stoat_buf_putc(&b, '}');
		break;
	}
	stoat_buf_putc(&b, '\n');
	write_all(b.data, b.len);
	stoat_buf_free(&b);
}

/*
 * Whether a line of call site fmt may be written now (see log.h); says
 * so first when lines of it were held back in the window that ended.
 * L.lock held.
 */
static bool within_limit(stoat_log_level level, const char *fmt)
{
	if (level < STOAT_LOG_WARNING || L.format == STOAT_LOG_PLAIN)
		return true;
	int64_t now = stoat_now_ms();
	size_t h = ((uintptr_t)fmt >> 3) % LIMIT_SLOTS;
	limit_slot *s = NULL;
	for (size_t i = 0; i < LIMIT_SLOTS && !s; i++) {
		limit_slot *t = &L.slots[(h + i) % LIMIT_SLOTS];
		if (t->fmt == fmt || t->fmt == NULL)
			s = t;
	}
	if (!s)
		return true; /* more call sites than slots: not limited */
	if (s->fmt == NULL || now - s->window_start_ms >= L.window_ms) {
		if (s->held > 0) {
			char msg[320];
			snprintf(msg, sizeof msg, "%u more like \"%.200s\" were not shown in %.3g s", s->held, fmt,
				 (double)L.window_ms / 1000.0);
			emit(level, "log_suppressed", NULL, msg);
		}
		s->fmt = fmt;
		s->window_start_ms = now;
		s->count = 0;
		s->held = 0;
	}
	if (++s->count <= STOAT_LOG_BURST)
		return true;
	s->held++;
	return false;
}

/* Writes one line (see log.h). */
void stoat_logv(stoat_log_level level, const char *event, const char *fields, const char *fmt, va_list ap)
{
	if (level < L.level)
		return;
	char message[2048];
	vsnprintf(message, sizeof message, fmt, ap);
	pthread_mutex_lock(&L.lock);
	if (within_limit(level, fmt)) {
		if (L.redact)
			L.redact(L.redact_arg, message);
		emit(level, event, fields, message);
	}
	pthread_mutex_unlock(&L.lock);
}

void stoat_log(stoat_log_level level, const char *event, const char *fields, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	stoat_logv(level, event, fields, fmt, ap);
	va_end(ap);
}

/* A message with its level in front (see log.h). */
void stoat_log_leveled(const char *event, const char *fmt, va_list ap)
{
	stoat_log_level level = STOAT_LOG_INFO;
	if (strncmp(fmt, "error: ", 7) == 0) {
		level = STOAT_LOG_ERROR;
		fmt += 7;
	} else if (strncmp(fmt, "warning: ", 9) == 0) {
		level = STOAT_LOG_WARNING;
		fmt += 9;
	}
	stoat_logv(level, event, NULL, fmt, ap);
}
