/*
 * registry.h - a client of a Confluent-compatible Schema Registry
 * (Confluent's, Apicurio's /apis/ccompat/v7, Karapace, Redpanda's), over
 * HTTP with libcurl, answers read with jansson.
 *
 * What the Avro formats need of it: the id of a schema under a subject
 * (registered, or only looked up when auto-registration is off) for the
 * writers, and the schema of an id for the readers.  Both are cached for
 * the life of the process (ids never change meaning in a registry), so a
 * registry that goes away after the warm-up stops nothing whose schemas
 * are known; a request that fails for the network or a 5xx answer is
 * retried with backoff, and reported with the registry's own message
 * when it fails for good.  Only the status and the JSON error_code of an
 * answer count (registries differ in their texts and content types).
 *
 * Not thread-safe: one client per thread that uses it.  Layering: below
 * the drivers, above util.h; nothing here knows Kafka.
 */
#ifndef STOAT_RUNTIME_REGISTRY_H
#define STOAT_RUNTIME_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct stoat_registry_config {
	const char *urls;         /* base URLs, comma-separated, tried in turn (http://host:8081, ...) */
	const char *basic_auth;   /* "user:password" for HTTP basic authentication, or NULL */
	const char *bearer_token; /* an OAuth bearer token, or NULL */
	const char *ca_file;      /* TLS: the CA bundle to verify the server with, or NULL (the system's) */
	const char *cert_file;    /* TLS client certificate (PEM), or NULL */
	const char *key_file;     /* its key, or NULL */
	bool insecure;            /* TLS: do not verify the server (tests only) */
	int64_t timeout_ms;       /* per request (0: 10000) */
	int retries;              /* more tries after a failed one (negative: 0; 0 means the default 3) */
	int64_t backoff_ms;       /* before the first retry, doubling (0: 200) */
	bool no_auto_register;    /* writers only look their schema up */
} stoat_registry_config;

typedef struct stoat_registry stoat_registry;

/* A client; NULL with a message in err when the configuration is unusable. */
stoat_registry *stoat_registry_new(const stoat_registry_config *cfg, char *err, size_t errlen);
void stoat_registry_free(stoat_registry *r);

/*
 * The id of schema (its JSON text; schema_type "AVRO" or "PROTOBUF")
 * under subject: registered there (the registry answers the existing id
 * when it is registered already), or with auto-registration off looked up.
 * False with a message naming the subject when the registry refuses it
 * (incompatible: 409; invalid: 422), does not have it, or cannot be reached.
 */
bool stoat_registry_id_for(stoat_registry *r, const char *subject, const char *schema, const char *schema_type,
			   int32_t *id, char *err, size_t errlen);

/*
 * The schema text of id, valid for the life of the client; false with a
 * message when the registry has no such id or cannot be reached.
 */
bool stoat_registry_schema(stoat_registry *r, int32_t id, const char **schema, char *err, size_t errlen);

/*
 * Whether the last request that went out had no answer (the network, a
 * 5xx after every retry), so that a failure may pass with time, unlike a
 * registry's refusal.
 */
bool stoat_registry_unanswered(const stoat_registry *r);

/* HTTP requests made so far (tests check that the cache answered). */
uint64_t stoat_registry_requests(const stoat_registry *r);

#endif
