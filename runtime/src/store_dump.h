/*
 * store_dump.h - reading state stores offline (store_dump.c): the
 * `store list` and `store dump` commands, and the entries of a store's
 * changelog topic as `dump` prints them.  Decoding uses the functions
 * stoatc generates per store key and value type (stoat_store_desc's
 * key_json and value_json); nothing here is on the record path.  Above
 * rocks.h, replay.h (a record line's head) and util.h; main.c and
 * kafka_tools.c call it.
 */
#ifndef STOAT_RUNTIME_STORE_DUMP_H
#define STOAT_RUNTIME_STORE_DUMP_H

#include "util.h"

/* What stoat_store_entry_json made of an entry. */
typedef enum stoat_store_entry {
	STOAT_ENTRY_DECODED,   /* key and value with the store's types (or in base64: no types) */
	STOAT_ENTRY_META,      /* a window store's metadata ("\0stream-time", ...) */
	STOAT_ENTRY_INDEX,     /* a window store's time index entry: nothing written */
	STOAT_ENTRY_MALFORMED, /* bytes the store's types do not read: base64, and "error" */
} stoat_store_entry;

/*
 * Appends the fields of one entry of store d (its key and value bytes,
 * as in RocksDB and in the changelog; value.ptr NULL: a changelog
 * tombstone) to out, each after a comma:
 *
 *	,"key":K,"value":V                                  a table's entry
 *	,"key":K,"start":S,"end":E,"value_timestamp":T,"value":V   a window's
 *	,"meta":"stream-time","value":N                     window metadata
 *
 * K and V as the JSON format writes the store's key and value types; T
 * the window's largest record timestamp; a tombstone's value is null
 * (without value_timestamp).  A store without JSON functions (a join's
 * own) has "key_base64" and "value_base64" instead, a window store's
 * with start and end.  Bytes the types do not read are written that way
 * too, followed by ,"error":"<why>".  cx gives the arena (reset by the
 * caller between entries) and takes decoding errors.
 */
stoat_store_entry stoat_store_entry_json(stoat_ctx *cx, const stoat_store_desc *d, stoat_str key, stoat_str value,
					 stoat_buf *out);

/* The store whose changelog topic is topic ("<app id>-<store>-changelog"), or -1. */
int stoat_store_of_changelog(const stoat_app *app, const char *topic);

/*
 * Appends a record of store's changelog as `dump` prints it, one line:
 * {"topic":...,"partition":P,"offset":O,"timestamp":T,"store":"<name>"
 * then the entry's fields (stoat_store_entry_json)}.  Returns what the
 * entry was.
 */
stoat_store_entry stoat_format_changelog_line(stoat_buf *b, stoat_ctx *cx, const stoat_app *app, int store,
					      stoat_str topic, int32_t partition, int64_t offset, int64_t timestamp,
					      stoat_str key, stoat_str value);

/* `store list` and `store dump STORE [options]` (argv after "store"); the exit status. */
int stoat_store_command(const stoat_app *app, const char *prog, int argc, char **argv);

#endif /* STOAT_RUNTIME_STORE_DUMP_H */
