/*
 * global.h - global tables under the Kafka driver (global.c): every
 * partition of each global table's topic read by one consumer outside the
 * group into the table's one store, on every instance, as Kafka Streams'
 * GlobalStreamThread does.  No changelog: the source topic is restored
 * from.  The offsets applied are checkpointed in the state directory
 * (global.checkpoint) after each state commit, so a restart reads on from
 * there and a fresh instance (or an in-memory store) from the beginning.
 *
 * Driver's use:
 *	stoat_global_open()       after the state is open
 *	stoat_global_bootstrap()  up to the end offsets read now, before any
 *	                          stream task processes a record
 *	stoat_global_poll()       between batches: what arrived since
 *	stoat_global_committed()  after each stoat_state_commit
 *	stoat_global_aborted()    after each stoat_state_abort (reads again
 *	                          from the last checkpoint)
 *	stoat_global_close()
 */
#ifndef STOAT_RUNTIME_GLOBAL_H
#define STOAT_RUNTIME_GLOBAL_H

#include "state.h"

#include <librdkafka/rdkafka.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

typedef struct stoat_global stoat_global;

/*
 * Prepares the global tables of app (NULL with *err empty when it has
 * none): conf is a consumer configuration (bootstrap servers, a group id
 * never joined) it takes over; tasks[i] is the context the records of
 * source i run in; state_dir holds the checkpoint (NULL: none kept).
 * NULL and err on failure.
 */
stoat_global *stoat_global_open(const stoat_app *app, stoat_state *st, stoat_ctx *tasks, rd_kafka_conf_t *conf,
				const char *state_dir, char *err, size_t errlen);

/*
 * Reads every partition of every global topic from its checkpoint (or the
 * beginning) up to the end offsets read now, applies the records through
 * the tables' pipelines and commits the state.  False (and err) on
 * failure, or when *stop is set first.
 */
bool stoat_global_bootstrap(stoat_global *g, volatile sig_atomic_t *stop, char *err, size_t errlen);

/* Applies the global records that arrived (no waiting); how many, or -1 and err on failure. */
ssize_t stoat_global_poll(stoat_global *g, char *err, size_t errlen);

/* The state committed what was applied: writes the checkpoint. */
void stoat_global_committed(stoat_global *g);

/* The state dropped what was applied since the last commit: seeks back to it. */
void stoat_global_aborted(stoat_global *g);

/* Records applied so far (bootstrap included). */
uint64_t stoat_global_applied(const stoat_global *g);

void stoat_global_close(stoat_global *g);

#endif
