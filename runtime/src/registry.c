/*
 * registry.c - the Schema Registry client (registry.h).
 */
#include "registry.h"

#include "util.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct cached_id {
	char *subject;
	char *schema;
	int32_t id;
} cached_id;

typedef struct cached_schema {
	int32_t id;
	char *schema;
} cached_schema;

struct stoat_registry {
	char **urls;
	int nurls;
	int current;            /* the URL that answered last: tried first */
	CURL *curl;
	struct curl_slist *headers;
	stoat_registry_config cfg;
	int retries;
	int64_t timeout_ms, backoff_ms;
	cached_id *ids;
	size_t nids, capids;
	cached_schema *schemas;
	size_t nschemas, capschemas;
	uint64_t requests;
	bool unanswered; /* the last request had no answer (network, 5xx) */
	/* The last answer. */
	char *body;
	size_t body_len, body_cap;
};

/* Whether curl_global_init ran (it is not thread-safe: the first client calls it). */
static bool curl_ready;

/* A formatted copy, or stoat_out_of_memory. */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *out = stoat_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return out;
}

static char *dup_or_null(const char *s)
{
	return s ? stoat_xstrdup(s) : NULL;
}

stoat_registry *stoat_registry_new(const stoat_registry_config *cfg, char *err, size_t errlen)
{
	if (!cfg->urls || !*cfg->urls) {
		snprintf(err, errlen, "no Schema Registry URL");
		return NULL;
	}
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			snprintf(err, errlen, "cannot initialise libcurl");
			return NULL;
		}
		curl_ready = true;
	}
	stoat_registry *r = stoat_xcalloc(1, sizeof *r);
	/* The URLs, without trailing slashes: paths are appended. */
	char *list = stoat_xstrdup(cfg->urls), *save = NULL;
	for (char *u = strtok_r(list, ",", &save); u; u = strtok_r(NULL, ",", &save)) {
		while (*u == ' ')
			u++;
		size_t n = strlen(u);
		while (n > 0 && (u[n - 1] == '/' || u[n - 1] == ' '))
			n--;
		if (n == 0)
			continue;
		if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0) {
			snprintf(err, errlen, "Schema Registry URL %.*s: not http:// or https://", (int)n, u);
			free(list);
			stoat_registry_free(r);
			return NULL;
		}
		r->urls = stoat_xrealloc(r->urls, (size_t)(r->nurls + 1), sizeof *r->urls);
		r->urls[r->nurls++] = stoat_xstrndup(u, n);
	}
	free(list);
	if (r->nurls == 0) {
		snprintf(err, errlen, "no Schema Registry URL");
		stoat_registry_free(r);
		return NULL;
	}
	r->cfg = *cfg;
	r->cfg.urls = NULL;
	r->cfg.basic_auth = dup_or_null(cfg->basic_auth);
	r->cfg.bearer_token = dup_or_null(cfg->bearer_token);
	r->cfg.ca_file = dup_or_null(cfg->ca_file);
	r->cfg.cert_file = dup_or_null(cfg->cert_file);
	r->cfg.key_file = dup_or_null(cfg->key_file);
	r->retries = cfg->retries < 0 ? 0 : cfg->retries == 0 ? 3 : cfg->retries;
	r->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 10000;
	r->backoff_ms = cfg->backoff_ms > 0 ? cfg->backoff_ms : 200;
	r->curl = curl_easy_init();
	if (!r->curl) {
		snprintf(err, errlen, "cannot create a libcurl handle");
		stoat_registry_free(r);
		return NULL;
	}
	r->headers = curl_slist_append(r->headers, "Content-Type: application/vnd.schemaregistry.v1+json");
	r->headers = curl_slist_append(r->headers, "Accept: application/vnd.schemaregistry.v1+json, "
						   "application/vnd.schemaregistry+json, application/json");
	if (r->cfg.bearer_token) {
		char *h = format("Authorization: Bearer %s", r->cfg.bearer_token);
		r->headers = curl_slist_append(r->headers, h);
		free(h);
	}
	return r;
}

void stoat_registry_free(stoat_registry *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nurls; i++)
		free(r->urls[i]);
	free(r->urls);
	if (r->curl)
		curl_easy_cleanup(r->curl);
	curl_slist_free_all(r->headers);
	free((char *)r->cfg.basic_auth);
	free((char *)r->cfg.bearer_token);
	free((char *)r->cfg.ca_file);
	free((char *)r->cfg.cert_file);
	free((char *)r->cfg.key_file);
	for (size_t i = 0; i < r->nids; i++) {
		free(r->ids[i].subject);
		free(r->ids[i].schema);
	}
	free(r->ids);
	for (size_t i = 0; i < r->nschemas; i++)
		free(r->schemas[i].schema);
	free(r->schemas);
	free(r->body);
	free(r);
}

bool stoat_registry_unanswered(const stoat_registry *r)
{
	return r->unanswered;
}

uint64_t stoat_registry_requests(const stoat_registry *r)
{
	return r->requests;
}

/* libcurl's write callback: the answer's body into r->body. */
static size_t take_body(char *data, size_t size, size_t n, void *opaque)
{
	stoat_registry *r = opaque;
	size_t len = size * n;
	if (r->body_len + len + 1 > r->body_cap) {
		r->body_cap = (r->body_len + len + 1) * 2;
		r->body = stoat_xrealloc(r->body, r->body_cap, 1);
	}
	memcpy(r->body + r->body_len, data, len);
	r->body_len += len;
	r->body[r->body_len] = '\0';
	return len;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/*
 * The error_code and message of an error answer (Confluent's
 * {"error_code": 40403, "message": "..."}), into code and msg.
 */
static void error_of(const stoat_registry *r, long *code, char *msg, size_t msglen)
{
	*code = 0;
	snprintf(msg, msglen, "%.200s", r->body ? r->body : "");
	json_t *j = r->body ? json_loads(r->body, 0, NULL) : NULL;
	if (!j)
		return;
	json_t *c = json_object_get(j, "error_code");
	if (json_is_integer(c))
		*code = (long)json_integer_value(c);
	json_t *m = json_object_get(j, "message");
	if (json_is_string(m))
		snprintf(msg, msglen, "%.300s", json_string_value(m));
	json_decref(j);
}

/*
 * One request (body NULL: GET, else POST) of path under a base URL, with
 * retries over the URLs: the HTTP status, or 0 when no registry answered
 * (err says why).  The answer is in r->body.
 */
static long request(stoat_registry *r, const char *path, const char *body, char *err, size_t errlen)
{
	int64_t backoff = r->backoff_ms;
	char why[CURL_ERROR_SIZE + 64] = "";
	for (int attempt = 0; attempt <= r->retries; attempt++) {
		if (attempt > 0) {
			sleep_ms(backoff);
			backoff *= 2;
			r->current = (r->current + 1) % r->nurls;
		}
		const char *base = r->urls[r->current];
		char *url = format("%s%s", base, path);
		CURL *c = r->curl;
		curl_easy_reset(c);
		char curl_err[CURL_ERROR_SIZE] = "";
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, r->headers);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, take_body);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)r->timeout_ms);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)r->timeout_ms);
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
		if (body) {
			curl_easy_setopt(c, CURLOPT_POST, 1L);
			curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
			curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
		}
		if (r->cfg.basic_auth) {
			curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
			curl_easy_setopt(c, CURLOPT_USERPWD, r->cfg.basic_auth);
		}
		if (r->cfg.ca_file)
			curl_easy_setopt(c, CURLOPT_CAINFO, r->cfg.ca_file);
		if (r->cfg.cert_file)
			curl_easy_setopt(c, CURLOPT_SSLCERT, r->cfg.cert_file);
		if (r->cfg.key_file)
			curl_easy_setopt(c, CURLOPT_SSLKEY, r->cfg.key_file);
		if (r->cfg.insecure) {
			curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
			curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
		}
		r->body_len = 0;
		if (r->body)
			r->body[0] = '\0';
		r->requests++;
		CURLcode rc = curl_easy_perform(c);
		long status = 0;
		if (rc == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (rc != CURLE_OK)
			snprintf(why, sizeof why, "%s: %s", url, curl_err[0] ? curl_err : curl_easy_strerror(rc));
		else if (status >= 500 || status == 408 || status == 429)
			snprintf(why, sizeof why, "%s: HTTP %ld %.200s", url, status, r->body ? r->body : "");
		free(url);
		if (rc == CURLE_OK && !(status >= 500 || status == 408 || status == 429)) {
			r->unanswered = false;
			return status;
		}
	}
	r->unanswered = true;
	snprintf(err, errlen, "the Schema Registry did not answer (%d tries): %s", r->retries + 1, why);
	return 0;
}

/* The {"schema": ..., "schemaType": ...} body of a register or lookup. */
static char *schema_body(const char *schema, const char *schema_type)
{
	json_t *j = json_object();
	json_object_set_new(j, "schema", json_string(schema));
	if (schema_type && strcmp(schema_type, "AVRO") != 0)
		json_object_set_new(j, "schemaType", json_string(schema_type));
	char *text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return text;
}

/* The integer "id" of an answer; false if it has none. */
static bool id_of(const stoat_registry *r, int32_t *id)
{
	json_t *j = r->body ? json_loads(r->body, 0, NULL) : NULL;
	json_t *v = j ? json_object_get(j, "id") : NULL;
	bool ok = json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= INT32_MAX;
	if (ok)
		*id = (int32_t)json_integer_value(v);
	json_decref(j);
	return ok;
}

bool stoat_registry_id_for(stoat_registry *r, const char *subject, const char *schema, const char *schema_type,
			   int32_t *id, char *err, size_t errlen)
{
	for (size_t i = 0; i < r->nids; i++)
		if (strcmp(r->ids[i].subject, subject) == 0 && strcmp(r->ids[i].schema, schema) == 0) {
			*id = r->ids[i].id;
			return true;
		}
	char *escaped = curl_easy_escape(r->curl, subject, 0);
	char *path = format(r->cfg.no_auto_register ? "/subjects/%s" : "/subjects/%s/versions", escaped);
	curl_free(escaped);
	char *body = schema_body(schema, schema_type);
	long status = request(r, path, body, err, errlen);
	free(body);
	bool ok = false;
	if (status == 200 && id_of(r, id)) {
		ok = true;
	} else if (status != 0) {
		long code;
		char msg[400];
		error_of(r, &code, msg, sizeof msg);
		const char *what = r->cfg.no_auto_register
					   ? (code == 40401 ? "the subject does not exist (auto-registration is off)"
					      : code == 40403 ? "the schema is not registered under it (auto-registration is off)"
							      : "the lookup failed")
				   : status == 409 ? "the schema is incompatible with the subject's earlier versions"
				   : status == 422 ? "the registry finds the schema invalid"
						   : "registration failed";
		snprintf(err, errlen, "Schema Registry, subject %s: %s (HTTP %ld, error_code %ld: %s)", subject, what,
			 status, code, msg);
	}
	free(path);
	if (!ok)
		return false;
	if (r->nids == r->capids) {
		r->capids = r->capids ? r->capids * 2 : 8;
		r->ids = stoat_xrealloc(r->ids, r->capids, sizeof *r->ids);
	}
	r->ids[r->nids++] = (cached_id){ stoat_xstrdup(subject), stoat_xstrdup(schema), *id };
	return true;
}

bool stoat_registry_schema(stoat_registry *r, int32_t id, const char **schema, char *err, size_t errlen)
{
	for (size_t i = 0; i < r->nschemas; i++)
		if (r->schemas[i].id == id) {
			*schema = r->schemas[i].schema;
			return true;
		}
	char *path = format("/schemas/ids/%ld", (long)id);
	long status = request(r, path, NULL, err, errlen);
	free(path);
	if (status == 0)
		return false;
	json_t *j = status == 200 && r->body ? json_loads(r->body, 0, NULL) : NULL;
	json_t *s = j ? json_object_get(j, "schema") : NULL;
	if (!json_is_string(s)) {
		long code;
		char msg[400];
		error_of(r, &code, msg, sizeof msg);
		snprintf(err, errlen, "Schema Registry: schema id %ld: %s (HTTP %ld, error_code %ld: %s)", (long)id,
			 status == 404 ? "no such schema" : "no schema in the answer", status, code, msg);
		json_decref(j);
		return false;
	}
	if (r->nschemas == r->capschemas) {
		r->capschemas = r->capschemas ? r->capschemas * 2 : 8;
		r->schemas = stoat_xrealloc(r->schemas, r->capschemas, sizeof *r->schemas);
	}
	r->schemas[r->nschemas++] = (cached_schema){ id, stoat_xstrdup(json_string_value(s)) };
	json_decref(j);
	*schema = r->schemas[r->nschemas - 1].schema;
	return true;
}
