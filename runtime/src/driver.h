/*
 * driver.h - what the record path (emit.c, errors.c, driver.c) and the
 * state stores (state.c) know of a driver: an interface, a struct of
 * operations each driver fills in, and the state every driver shares.
 * The drivers themselves (replay.c; kafka_*.c) sit on top and implement
 * it; nothing below them calls into a driver except through these
 * operations, so neither emit.c, errors.c nor state.c knows which
 * driver runs.  Layers, bottom up (each includes only those below):
 *
 *   util.h                         allocation, encodings, numbers, names
 *   driver.h                       this interface and the record path
 *   store.h, rocks.h               in-memory maps, RocksDB
 *   state.h                        the state stores
 *   replay.h, kafka.h, kafka_impl.h  the drivers; main.c on top
 */
#ifndef STOAT_RUNTIME_DRIVER_H
#define STOAT_RUNTIME_DRIVER_H

#include "util.h"

#include <stdio.h>

typedef struct stoat_state stoat_state;
typedef struct stoat_store_part stoat_store_part;

/*
 * A driver's operations.  Called once per record (emit), per failed
 * record under the dlq policy (dead_letter) and per store write
 * (changelog_write), so each is one indirect call and nothing more.
 */
typedef struct stoat_driver_ops {
	const char *name; /* "replay", "kafka": for messages */
	/*
	 * Sends a record stoat_emit() has checked: to sink `sink`, or to the
	 * per-record topic when topic.ptr is set.  False after recording a
	 * per-record error on cx (the record is then not counted as out).
	 */
	bool (*emit)(stoat_driver *d, stoat_ctx *cx, int sink, stoat_str topic, stoat_str key, stoat_str value);
	/*
	 * Writes cx's failed input record, unchanged, to dlq_topic with the
	 * input's headers followed by extra (stoat_dead_letter's).
	 */
	void (*dead_letter)(stoat_driver *d, stoat_ctx *cx, const char *dlq_topic, const stoat_header *extra,
			    size_t extra_count);
	/*
	 * Writes a store update (value.ptr NULL: a delete) to the store
	 * partition's changelog.  NULL: the driver keeps no changelogs.
	 * False after recording an error on cx.
	 */
	bool (*changelog_write)(stoat_driver *d, stoat_ctx *cx, stoat_store_part *p, stoat_str key, stoat_str value);
	/*
	 * Converts the headers of record m, which the driver handed over with
	 * m->lazy_headers set (its own record), into m->headers (in cx's
	 * arena) and m->header_count, and clears lazy_headers.  NULL: the
	 * driver always converts them up front.
	 */
	void (*load_headers)(stoat_driver *d, stoat_ctx *cx, stoat_msg *m);
	/*
	 * True: the driver opens (and restores) every store partition when
	 * its input partition is assigned, so a record meeting an unopened
	 * one is an internal error.  False: partitions open on first use.
	 */
	bool opens_parts_on_assignment;
} stoat_driver_ops;


/*
 * State every driver shares; the driver's own struct embeds it as its
 * first member named `driver` (STOAT_CONTAINER_OF gets back to it).
 */
struct stoat_driver {
	const stoat_driver_ops *ops; /* NULL: no driver (unit tests calling pipelines directly) */
	const stoat_app *app;
	stoat_policy policy_override; /* --on-error; DEFAULT when not given */
	const char *dlq_override;     /* --on-error dlq:TOPIC */
	uint64_t skip_warnings_printed;
	uint64_t skip_warnings_hidden; /* rate-limited away, for the summary */
	bool drop_reported;            /* the first dropped record was reported */
	bool late_reported;            /* the first late record was reported */
	stoat_state *state;            /* the app's stores; NULL when it has none */
};

/* Skip warnings: every one of the first N, then one in every M. */
enum { STOAT_SKIP_WARN_FIRST = 100, STOAT_SKIP_WARN_EVERY = 1000 };

/* ------------------------------------------------------------------ */
/* Task contexts (driver.c)                                            */
/* ------------------------------------------------------------------ */

/* Clears cx and gives it an empty arena and key/value buffers, for app
 * under driver d (NULL: none).  Every context a driver runs records in
 * starts here. */
void stoat_ctx_init(stoat_ctx *cx, const stoat_app *app, stoat_driver *d);

/* Frees what stoat_ctx_init gave cx. */
void stoat_ctx_free(stoat_ctx *cx);

/* ------------------------------------------------------------------ */
/* Pre-aggregation buffers (preagg.c)                                  */
/* ------------------------------------------------------------------ */

/*
 * Writes every partial aggregate cx's pre-aggregation buffers hold to
 * their repartition sinks (through the driver's emit, with cx as the
 * record context) and empties them.  Drivers call it before every
 * commit, so what a commit covers includes the partials of the records
 * it covers.  False after a failed write (cx->error and its message set,
 * cx->abandoned when the driver gave up on the batch); the buffers are
 * then emptied all the same.
 */
bool stoat_preagg_flush(stoat_ctx *cx);

/* Empties cx's buffers without writing them: the input they combine is
 * processed again (an aborted transaction, a rewind). */
void stoat_preagg_discard(stoat_ctx *cx);

/* True when cx's buffers hold a partial that stoat_preagg_flush would write. */
bool stoat_preagg_pending(const stoat_ctx *cx);

/* Frees cx's buffers (stoat_ctx_free). */
void stoat_preagg_free(stoat_ctx *cx);

/* ------------------------------------------------------------------ */
/* Policies and dead letters (driver.c)                                */
/* ------------------------------------------------------------------ */

/* The policy that applies to a failed record of cx's source. */
stoat_policy stoat_effective_policy(const stoat_ctx *cx);

/* The dead-letter topic of that policy (NULL unless it is dlq). */
const char *stoat_effective_dlq_topic(const stoat_ctx *cx);

/*
 * Dead-letters the failed record of cx to its policy's topic: the input's
 * key and value bytes unchanged, its headers, and five more: stoat.error,
 * stoat.source.topic, .partition, .offset and .timestamp.  Called by
 * stoat_record_failed under the dlq policy.
 */
void stoat_dead_letter(stoat_ctx *cx);

/* ------------------------------------------------------------------ */
/* The summary (driver.c)                                              */
/* ------------------------------------------------------------------ */

/*
 * The counters of a run of app: tasks[0..n) (one per source of app, in
 * source order) plus flush_cx (the state's flush context; NULL when
 * there is no state).  "records in" counts the records read from the
 * application's input topics only: records read back from its own
 * repartition topics (internal sources) and the store updates a flush
 * hands on are not input.  Everything else is summed over all of them.
 * Both drivers print this.
 */
stoat_counters stoat_counters_sum(const stoat_app *app, const stoat_ctx *tasks, size_t n, const stoat_ctx *flush_cx);

/* Prints `<app_id>: records in N, out N, failed N, skipped N,
 * dead-lettered N` (and dropped records, hidden warnings) to f. */
void stoat_print_summary(FILE *f, const stoat_driver *d, const stoat_counters *total);

#endif /* STOAT_RUNTIME_DRIVER_H */
