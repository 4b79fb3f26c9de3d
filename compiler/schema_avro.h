/*
 * schema_avro.h - record types imported from Avro schema files (.avsc).
 *
 *     type User = avro "schemas/user.avsc";
 *
 * declares the stoat record type User from the schema file's top-level
 * record, and every named record inside it under its simple name.  The
 * file is checked by avro-c (the schema's validity: names, references,
 * one definition per name) and walked here with jansson for what avro-c
 * does not keep (logical types, defaults, aliases).  Each imported record
 * keeps its schema (Record.avro): the wire types the stoat type does not
 * say (int or long, float or double, an enum's symbols, a union's branch
 * order, a logical type's unit), which the Avro serdes and schema
 * resolution need.
 *
 * The type mapping (docs/formats.md):
 *   boolean -> bool; int -> i32; long -> i64; float, double -> f64;
 *   string -> string; bytes, fixed -> bytes; enum -> string (one of its
 *   symbols); record -> a record type; array -> [T];
 *   map -> [{key: string, value: T}] (its entries);
 *   ["null", T] or [T, "null"] -> T?;
 *   timestamp-millis, timestamp-micros, local-timestamp-millis,
 *   local-timestamp-micros (long) and date (int) -> timestamp;
 *   time-millis (int) and time-micros (long) -> duration; uuid -> string;
 *   an unknown logical type -> its underlying type (as the spec says).
 * What has no stoat type is an error naming the file, the path of the
 * construct inside the schema and the construct: other unions, decimal,
 * the duration logical type, a field of type null, a top level that is not
 * a record.
 */
#ifndef STOAT_SCHEMA_AVRO_H
#define STOAT_SCHEMA_AVRO_H

#include "types.h"

typedef enum AvroKind {
	AV_NULL,
	AV_BOOLEAN,
	AV_INT,
	AV_LONG,
	AV_FLOAT,
	AV_DOUBLE,
	AV_BYTES,
	AV_STRING,
	AV_RECORD,
	AV_ENUM,
	AV_ARRAY,
	AV_MAP,
	AV_UNION,
	AV_FIXED,
} AvroKind;

typedef enum AvroLogical {
	AVL_NONE,
	AVL_TIMESTAMP_MILLIS,
	AVL_TIMESTAMP_MICROS,
	AVL_LOCAL_TIMESTAMP_MILLIS,
	AVL_LOCAL_TIMESTAMP_MICROS,
	AVL_DATE,          /* days since the epoch: a timestamp at 00:00 UTC */
	AVL_TIME_MILLIS,   /* of the day: a duration */
	AVL_TIME_MICROS,
	AVL_UUID,
} AvroLogical;

typedef struct AvroSchema AvroSchema;

typedef struct AvroField {
	char *name;
	AvroSchema *type;
	char *default_json; /* the default as JSON text, or NULL when it has none */
	char **aliases;
	int naliases;
} AvroField;

struct AvroSchema {
	AvroKind kind;
	AvroLogical logical;
	char *fullname;         /* record, enum, fixed: namespace.name */
	char **aliases;         /* record, enum, fixed: full names */
	int naliases;
	AvroField *fields;      /* record */
	int nfields;
	char **symbols;         /* enum */
	int nsymbols;
	int enum_default;       /* enum: the default symbol's index, or -1 */
	int size;               /* fixed: bytes */
	AvroSchema *items;      /* array: items; map: values */
	AvroSchema **branches;  /* union */
	int nbranches;
	int null_branch;        /* a ["null", T] union: the null's index (0 or 1) */
	Type *type;             /* the stoat type it maps to */
	const char *source_text; /* an imported file's top-level record: the file's text, registered as written */
};

/* A schema file imported by `type NAME = avro "FILE";`. */
typedef struct AvroImport {
	const char *path;       /* the file as opened (relative to the .stoat file's directory) */
	char *text;             /* the file's contents: the schema registered as it was written */
	AvroSchema *root;       /* a record */
	Record **records;       /* every record it declares, the top one first */
	int nrecords;
} AvroImport;

/*
 * Reads and checks the schema file at path (written as shown in messages,
 * opened as open_path) and builds its record types, the top-level one
 * named type_name.  Errors are reported at span (the file name in the
 * .stoat file); returns NULL after an error.  A named type already imported
 * from another file with the same definition is the same stoat type; with
 * a different one, an error.
 */
AvroImport *avro_import(const char *path, const char *open_path, const char *type_name, Span span);

/*
 * The Avro schema of a stoat type, what format avro_raw writes and reads:
 * an imported record's own; for the rest, the schema stoat gives the type
 * (docs/formats.md): bool boolean, i32 int, i64 and duration long,
 * timestamp a long with logicalType timestamp-millis, f64 double, string
 * string, bytes bytes, T? ["null", T], [T] an array, a record type a record
 * of its name and fields.  The same type gives the same schema object.
 */
const AvroSchema *avro_schema_of(Type *t);

/*
 * The JSON text of schema s (xmalloc'd), what format avro registers and
 * checks writers against: an imported file's top-level record as the file
 * has it; any other schema written from the tree, compact, named types
 * defined at their first use and referenced by full name after.
 */
char *avro_schema_json(const AvroSchema *s);

#endif
