/*
 * http.c - the operations endpoint's server (see http.h): libmicrohttpd
 * with one internal thread that serves every connection (non-blocking,
 * so a slow client holds up no other), at most HTTP_MAX_CONNECTIONS at a
 * time, each dropped after HTTP_IDLE_SECONDS without progress and
 * refused beyond HTTP_MEMORY_PER_CONNECTION of request (headers too
 * large get 431).  Request bodies are not read: no page takes one.
 *
 * The snapshot is double-buffered: the stream thread fills `scratch`
 * and swaps it with `shown` under the lock, which the server holds while
 * it renders a page.  The stream thread only ever tries the lock, so a
 * scrape never delays a record.
 */
#include "http.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

enum {
	HTTP_MAX_CONNECTIONS = 16,
	HTTP_IDLE_SECONDS = 10,
	HTTP_MEMORY_PER_CONNECTION = 32 * 1024,
	HTTP_MAX_BODY = 4096,
};

struct stoat_http {
	struct MHD_Daemon *daemon;
	const stoat_http_info *info;
	pthread_mutex_t lock;           /* guards shown (the server renders from it) */
	stoat_http_stats bufs[2];
	stoat_http_stats *shown;        /* NULL until the first publish */
	stoat_http_stats *scratch;      /* the stream thread's */
	atomic_uint generation;         /* bumped by each pause or resume */
	atomic_bool *paused_wanted;     /* per source */
	int port;
};

/* Parses the `http` setting (see http.h). */
bool stoat_http_parse_listen(const char *value, char *address, size_t address_len, int *port)
{
	if (strcmp(value, "off") == 0) {
		*port = -1;
		return true;
	}
	const char *colon = strrchr(value, ':');
	const char *port_text = colon ? colon + 1 : value;
	char *end;
	errno = 0;
	long p = strtol(port_text, &end, 10);
	if (errno || end == port_text || *end || p < 0 || p > 65535 || *port_text == '-' || *port_text == '+')
		return false;
	const char *addr = "127.0.0.1";
	size_t addr_len = strlen(addr);
	if (colon) {
		addr = value;
		addr_len = (size_t)(colon - value);
		if (addr_len >= 2 && addr[0] == '[' && addr[addr_len - 1] == ']') {
			addr++;
			addr_len -= 2;
		}
	}
	if (addr_len == 0 || addr_len >= address_len)
		return false;
	memcpy(address, addr, addr_len);
	address[addr_len] = '\0';
	unsigned char buf[sizeof(struct in6_addr)];
	if (inet_pton(AF_INET, address, buf) != 1 && inet_pton(AF_INET6, address, buf) != 1)
		return false;
	*port = (int)p;
	return true;
}

/* libmicrohttpd's own complaints, in the app's log. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	const stoat_http *h = cls;
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	size_t n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	fprintf(stderr, "%s: warning: http: %s\n", h->info->app->app_id, msg);
}

/* Sends a page; MHD_NO drops the connection. */
static enum MHD_Result send_page(struct MHD_Connection *c, const stoat_http_response *page)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(page->body.len, page->body.data, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, page->content_type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (page->allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, page->allow);
	enum MHD_Result ret = MHD_queue_response(c, page->status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Carries out what a page asked of the stream thread. */
static void apply_control(stoat_http *h, const stoat_http_response *page)
{
	if (page->control == STOAT_HTTP_CONTROL_NONE)
		return;
	bool pause = page->control == STOAT_HTTP_CONTROL_PAUSE;
	for (size_t i = 0; i < h->info->app->source_count; i++)
		if (page->control_source == SIZE_MAX || page->control_source == i)
			atomic_store(&h->paused_wanted[i], pause);
	atomic_fetch_add(&h->generation, 1);
}

/*
 * libmicrohttpd's request handler: called once with the headers (*state
 * NULL), then for each piece of a body, then once more to answer.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size,
				  void **state)
{
	(void)version;
	(void)upload_data;
	stoat_http *h = cls;
	static int seen;
	if (*state == NULL) {
		*state = &seen;
		const char *length = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (length && strtoull(length, NULL, 10) > HTTP_MAX_BODY) {
			stoat_http_response page = { .status = 413, .content_type = "application/json" };
			stoat_buf_init(&page.body);
			stoat_buf_lit(&page.body, "{\"status\": \"request body too large\"}\n");
			enum MHD_Result ret = send_page(c, &page);
			stoat_buf_free(&page.body);
			return ret;
		}
		return MHD_YES;
	}
	if (*upload_data_size > 0) {
		*upload_data_size = 0; /* no page reads a body */
		return MHD_YES;
	}
	stoat_http_response page = { 0 };
	stoat_buf_init(&page.body);
	const char *source = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "source");
	const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	pthread_mutex_lock(&h->lock);
	stoat_http_route(h->info, h->shown, stoat_now_ms(), method, url, source, format, accept, &page);
	pthread_mutex_unlock(&h->lock);
	apply_control(h, &page);
	enum MHD_Result ret = send_page(c, &page);
	stoat_buf_free(&page.body);
	return ret;
}

/* Gives a stats buffer its per-source and per-sink arrays. */
static void stats_init(stoat_http_stats *s, const stoat_app *app)
{
	memset(s, 0, sizeof *s);
	s->sources = stoat_xcalloc(app->source_count + 1, sizeof *s->sources);
	s->sinks = stoat_xcalloc(app->sink_count + 1, sizeof *s->sinks);
}

/* Frees what stats_init and stoat_http_stats_reserve gave s. */
static void stats_free(stoat_http_stats *s)
{
	free(s->sources);
	free(s->sinks);
	free(s->partitions);
	free(s->stores);
	free(s->restores);
}

/* Starts the server (see http.h). */
stoat_http *stoat_http_start(const stoat_http_info *info, const char *address, int port, char *err, size_t errlen)
{
	struct sockaddr_storage sa;
	memset(&sa, 0, sizeof sa);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&sa;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&sa;
	if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		flags |= MHD_USE_IPv6;
	} else {
		snprintf(err, errlen, "'%s' is not an IP address", address);
		return NULL;
	}
	stoat_http *h = stoat_xcalloc(1, sizeof *h);
	h->info = info;
	pthread_mutex_init(&h->lock, NULL);
	stats_init(&h->bufs[0], info->app);
	stats_init(&h->bufs[1], info->app);
	h->scratch = &h->bufs[0];
	h->paused_wanted = stoat_xcalloc(info->app->source_count + 1, sizeof *h->paused_wanted);
	for (size_t i = 0; i < info->app->source_count; i++)
		atomic_init(&h->paused_wanted[i], false);
	atomic_init(&h->generation, 0);
	/* MHD reports a bind failure through the logger and errno. */
	errno = 0;
	h->daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER,
				     mhd_log, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IDLE_SECONDS,
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_PER_CONNECTION,
				     MHD_OPTION_END);
	if (!h->daemon) {
		int e = errno;
		snprintf(err, errlen, "cannot listen on %s:%d%s%s", address, port, e ? ": " : "", e ? strerror(e) : "");
		stoat_http_stop(h);
		return NULL;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
	h->port = di && di->port ? di->port : port;
	return h;
}

int stoat_http_port(const stoat_http *h)
{
	return h->port;
}

stoat_http_stats *stoat_http_scratch(stoat_http *h)
{
	return h->scratch;
}

/* Swaps the buffers unless a page is being rendered (see http.h). */
void stoat_http_publish(stoat_http *h)
{
	if (pthread_mutex_trylock(&h->lock) != 0)
		return;
	stoat_http_stats *old = h->shown ? h->shown : &h->bufs[h->scratch == &h->bufs[0] ? 1 : 0];
	h->shown = h->scratch;
	h->scratch = old;
	pthread_mutex_unlock(&h->lock);
}

unsigned stoat_http_control_generation(const stoat_http *h)
{
	return atomic_load(&((stoat_http *)h)->generation);
}

bool stoat_http_paused_wanted(const stoat_http *h, size_t source)
{
	assert(source < h->info->app->source_count);
	return atomic_load(&h->paused_wanted[source]);
}

/* Stops the server (its thread ends with it) and frees everything. */
void stoat_http_stop(stoat_http *h)
{
	if (!h)
		return;
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	stats_free(&h->bufs[0]);
	stats_free(&h->bufs[1]);
	free(h->paused_wanted);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
