/*
 * kafka_ids.c - the names the Kafka driver makes at start-up from the
 * application id and the command line: the transactional id, and the one
 * a changelog rebuild writes with (kafka_rebuild.c).
 *
 * A name made of parts is built whole and checked against Kafka's limit,
 * never cut to a buffer: two ids cut to a common prefix are one id, and
 * two instances with one transactional id fence each other.
 */
#include "kafka_impl.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The longest transactional.id Kafka carries.  The broker sets no limit
 * of its own (TransactionCoordinator.handleInitProducerId refuses only an
 * empty id, core/src/main/scala/kafka/coordinator/transaction/
 * TransactionCoordinator.scala); the limit is the protocol's, a STRING or
 * NULLABLE_STRING of at most Short.MAX_VALUE bytes (the writers of
 * clients/src/main/java/org/apache/kafka/common/protocol/types/Type.java
 * throw "String length ... is larger than the maximum string length").
 * librdkafka writes the length as an int16 without a check, so a longer
 * id would go out as a malformed request rather than an error.
 */
enum { KAFKA_TRANSACTIONAL_ID_MAX = 32767 };

/* What the producer that rebuilds a changelog adds to the transactional
 * id: kafka_transactional_id keeps room for it, so both ids fit. */
#define REBUILD_SUFFIX "-rebuild"

/*
 * <app id>-<suffix>, the suffix being --instance-id or a random id, in a
 * fresh allocation; NULL, with the reason in err (naming both parts and
 * their lengths, not the over-long text), if Kafka could not carry it.
 */
char *kafka_transactional_id(const char *app_id, const char *suffix, bool suffix_is_instance_id, char *err,
			     size_t errlen)
{
	assert(app_id && suffix && errlen > 0);
	size_t app_len = strlen(app_id), suffix_len = strlen(suffix);
	size_t len = app_len + 1 + suffix_len;
	if (len + strlen(REBUILD_SUFFIX) > KAFKA_TRANSACTIONAL_ID_MAX) {
		snprintf(err, errlen,
			 "the transactional id <application id>-<%s> would be %zu bytes long (the application id "
			 "\"%s\" has %zu, the %s %zu); Kafka carries at most %d, and a changelog rebuild adds "
			 "\"%s\": %s",
			 suffix_is_instance_id ? "instance id" : "random id", len, app_id, app_len,
			 suffix_is_instance_id ? "instance id" : "random id", suffix_len, KAFKA_TRANSACTIONAL_ID_MAX,
			 REBUILD_SUFFIX,
			 suffix_is_instance_id ? "give a shorter --instance-id" : "give a shorter application id");
		return NULL;
	}
	char *id = stoat_xmalloc(len + 1);
	memcpy(id, app_id, app_len);
	id[app_len] = '-';
	memcpy(id + app_len + 1, suffix, suffix_len + 1);
	return id;
}

/*
 * The transactional id of the producer that rebuilds a changelog:
 * <transactional id>-rebuild, in a fresh allocation (it fits: see
 * kafka_transactional_id).
 */
char *kafka_rebuild_transactional_id(const char *transactional_id)
{
	size_t len = strlen(transactional_id);
	assert(len + strlen(REBUILD_SUFFIX) <= KAFKA_TRANSACTIONAL_ID_MAX);
	char *id = stoat_xmalloc(len + sizeof REBUILD_SUFFIX);
	memcpy(id, transactional_id, len);
	memcpy(id + len, REBUILD_SUFFIX, sizeof REBUILD_SUFFIX);
	return id;
}
