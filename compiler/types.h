/*
 * types.h - the types of stoat values and their C representations.
 *
 * Types are interned: two types are equal exactly when their pointers are.
 * Record types keep their fields in declaration order, which is the order
 * of struct members, JSON encoding and diagnostics.
 */
#ifndef STOAT_TYPES_H
#define STOAT_TYPES_H

#include "ast.h"

typedef enum TypeKind {
	TY_ERROR,     /* after an error: compatible with everything, reported once */
	TY_NULL,      /* the type of the literal null */
	TY_BOOL,
	TY_I32,
	TY_I64,
	TY_F64,
	TY_STRING,
	TY_BYTES,
	TY_TIMESTAMP, /* milliseconds since the epoch, UTC */
	TY_DURATION,  /* milliseconds */
	TY_RECORD,
	TY_ARRAY,     /* [elem] */
	TY_NULLABLE,  /* elem? */
	TY_PAIR,      /* (key, val): results of map and flat_map */
} TypeKind;

typedef struct Field {
	char *name;
	Type *type;
	Span span;
} Field;

typedef struct Record {
	char *name;      /* user's name, or anon_N */
	Field *fields;
	int nfields;
	Span span;
	bool anonymous;
	bool resolved;   /* field types known */
	bool windowed;   /* windowed<K> (ty_windowed): fields key, start, end */
	bool session;    /* windowed: of sessions (ty_session_windowed), whose binary form differs */
	const struct AvroSchema *avro; /* imported from an Avro schema (schema_avro.h), else NULL */
	int visiting;    /* cycle detection */
	int id;          /* index in all_records() */
	/* record_field's index: field i + 1 by name hash (open addressing), built on first use */
	int *field_index;
	int capfield_index, indexed_nfields;
} Record;

struct Type {
	TypeKind kind;
	Type *elem;       /* TY_ARRAY, TY_NULLABLE */
	Type *key, *val;  /* TY_PAIR */
	Record *rec;      /* TY_RECORD */
	char *c_name;     /* cached type_c() */
	char *mangled;    /* cached type_mangle() */
	char *display;    /* cached type_str() */
	unsigned added_mark; /* codegen: equal to its run's types_mark once among the types to define */
};

extern Type *ty_error, *ty_null, *ty_bool, *ty_i32, *ty_i64, *ty_f64, *ty_string,
	*ty_bytes, *ty_timestamp, *ty_duration;

void types_init(void);
Type *ty_array(Type *elem);
Type *ty_nullable(Type *elem); /* T?? is T? */
Type *ty_pair(Type *key, Type *val);
Type *ty_record(Record *rec);
/*
 * windowed<K>: the key of a windowed aggregation's table, a built-in
 * record { key: K, start: timestamp, end: timestamp } (the window's
 * bounds, in milliseconds), one per K.
 */
Type *ty_windowed(Type *key);
/*
 * session_windowed<K>: the key of a session aggregation's table, the same
 * record (start and end both inclusive); a distinct type because its
 * binary form is Kafka Streams' SessionWindowedSerializer's (key, end,
 * start), not TimeWindowedSerializer's (key, start).
 */
Type *ty_session_windowed(Type *key);

/* Every record type made so far, in creation order (declared, then anonymous). */
Record **all_records(int *count);
Record *record_new(const char *name, Span span, bool anonymous);
Field *record_field(Record *rec, const char *name);
/* An anonymous record with exactly these fields (interned by shape). */
Type *anon_record(Field *fields, int nfields, Span span);

bool type_is_int(const Type *t);     /* i32, i64 */
bool type_is_numeric(const Type *t); /* i32, i64, f64 */
bool type_is_scalar(const Type *t);
/* The type without an outer '?'. */
Type *type_strip(Type *t);

/*
 * A stoat name as a C identifier: itself, or with a trailing '_' when it
 * would clash with a C keyword, a macro-like name, a reserved identifier
 * or a name generated code uses (type Order stays Order; a field named
 * default becomes default_, one named NULL becomes NULL_).
 */
const char *c_safe_name(const char *name);

/* "string?", "[PageView]", "(string, i64)". */
const char *type_str(Type *t);
/* A C identifier fragment naming the type: "str", "arr_PageView", "opt_i64". */
const char *type_mangle(Type *t);
/* The C type: "stoat_str", "int64_t", "PageView", "stoat_opt_i64". */
const char *type_c(Type *t);
/* The runtime's name for a scalar ("i64", "str", ...): the suffix of
 * stoat_arr_*, stoat_opt_* and the store layouts' functions; NULL otherwise. */
const char *type_runtime_scalar(const Type *t);

#endif
