/*
 * http_impl.h - what the endpoint's page files share (private to
 * http_pages.c, http_expo.c and http_state.c; everything else sees
 * http.h): text helpers, the exposition's helpers, and the pages each
 * file renders for http_pages.c's router.
 */
#ifndef STOAT_RUNTIME_HTTP_IMPL_H
#define STOAT_RUNTIME_HTTP_IMPL_H

#include "http.h"

/* ------------------------------------------------------------------ */
/* Text (http_pages.c)                                                 */
/* ------------------------------------------------------------------ */

/* A C string onto a buffer (stoat_buf_lit takes literals only). */
void http_put_str(stoat_buf *b, const char *s);

/* printf onto a buffer. */
void http_put_fmt(stoat_buf *b, const char *fmt, ...) STOAT_PRINTF(2, 3);

/* A C string as a JSON string; NULL as null. */
void http_put_json(stoat_buf *b, const char *s);

/* An offset, or null when it is negative (not known). */
void http_put_offset(stoat_buf *b, int64_t v);

/* A JSON member ", name: true|false". */
void http_put_bool(stoat_buf *b, const char *name, bool v);

/* Seconds since the start. */
double http_uptime_seconds(const stoat_http_info *info, int64_t now_ms);

/* Whether the stream thread has published recently enough to be alive. */
bool http_stream_thread_alive(const stoat_http_stats *s, int64_t now_ms);

/* "starting", "restoring", "running", "stopping". */
const char *http_phase_name(stoat_http_phase p);

/* Sum of the assigned partitions' lags; *unknown counts those without one. */
int64_t http_total_lag(const stoat_http_stats *s, size_t *unknown);

/* ------------------------------------------------------------------ */
/* The exposition (http_expo.c)                                        */
/* ------------------------------------------------------------------ */

/* One exposition in progress. */
typedef struct http_expo {
	stoat_buf *b;
	bool openmetrics;
} http_expo;

/* A family's HELP and TYPE lines (name: the sample name, _total and all). */
void http_family(http_expo *e, const char *name, const char *type, const char *help);

/* Samples; labels are name, value pairs ending in NULL (or NULL: none). */
void http_sample_u64(http_expo *e, const char *name, const char *const *labels, uint64_t v);
void http_sample_f64(http_expo *e, const char *name, const char *const *labels, double v);
void http_sample_histogram(http_expo *e, const char *name, const char *const *labels, const stoat_histogram *h);

/* A family of one unlabelled sample: its TYPE line and the sample. */
void http_gauge(http_expo *e, const char *name, const char *help, uint64_t v);
void http_counter(http_expo *e, const char *name, const char *help, uint64_t v);

/* GET /metrics: every family of the snapshot s (NULL: before the first). */
void http_metrics_page(const stoat_http_info *info, const stoat_http_stats *s, int64_t now_ms, bool openmetrics,
		       stoat_buf *b);

/* librdkafka's statistics as /metrics families (http_librdkafka.c). */
void http_librdkafka_metrics(http_expo *e, const stoat_http_stats *s);

/* ------------------------------------------------------------------ */
/* State (http_state.c)                                                */
/* ------------------------------------------------------------------ */

/* The stores' families of /metrics (nothing when the app has none). */
void http_state_metrics(http_expo *e, const stoat_http_info *info, const stoat_http_stats *s);

/* GET /state. */
void http_state_page(const stoat_http_info *info, const stoat_http_stats *s, stoat_buf *b);

#endif /* STOAT_RUNTIME_HTTP_IMPL_H */
