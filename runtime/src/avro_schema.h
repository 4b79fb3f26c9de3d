/*
 * avro_schema.h - Avro schemas at run time, as a registry hands them over
 * (JSON text): their Parsing Canonical Form and its CRC-64-AVRO
 * fingerprint (the specification's "Schema Fingerprints"), so that a
 * writer's schema can be told equal to the compiled one whatever its
 * formatting, docs or defaults.
 *
 * Layering: above util.h, below the drivers; jansson reads the text.
 */
#ifndef STOAT_RUNTIME_AVRO_SCHEMA_H
#define STOAT_RUNTIME_AVRO_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

/*
 * The Parsing Canonical Form of a schema's JSON text (malloc'd), or NULL
 * with a message in err when it is no JSON or no schema this can read:
 * primitives as bare names, named types by full name (defined at their
 * first use, referenced after), only the attributes type, name, fields,
 * symbols, items, values and size, in that order, no blanks.
 */
char *stoat_avro_canonical_form(const char *schema_json, char *err, size_t errlen);

/* CRC-64-AVRO (Rabin) of n bytes: the fingerprint of a canonical form. */
uint64_t stoat_avro_fingerprint(const void *bytes, size_t n);

#endif
