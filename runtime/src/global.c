/*
 * global.c - global tables under the Kafka driver (global.h): one
 * consumer, outside the consumer group, assigned every partition of every
 * global table's topic, whose records run through the table's pipeline
 * (decoded and written to the table's one store; partition 0 of the store
 * holds them all, state.c), with no changelog.
 *
 * Offsets: `applied` is the offset after the last record run, per
 * partition; `committed` what the last state commit holds, written to
 * <state dir>/global.checkpoint ("topic partition offset" lines, written
 * to a temporary file and renamed).  A crash between the state commit and
 * the rename leaves an older checkpoint: the restart applies those
 * records again, which leaves a table (latest value per key) as it was.
 * In-memory stores keep no checkpoint: they are read from the beginning.
 */
#include "global.h"
#include "log.h"

#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One partition of a global table's topic. */
typedef struct global_part {
	size_t source;
	const char *topic; /* the source's */
	int32_t partition;
	int64_t applied;   /* offset after the last record applied (0: none) */
	int64_t committed; /* as of the last state commit */
	int64_t end;       /* bootstrap: the end offset read at start-up */
	bool done;         /* bootstrap: reached end */
} global_part;

struct stoat_global {
	const stoat_app *app;
	stoat_state *st;
	stoat_ctx *tasks;
	rd_kafka_t *rk;
	global_part *parts;
	size_t part_count;
	char *checkpoint_path; /* NULL: none kept */
	uint64_t applied_records;
};

/* The part for (topic, partition), or NULL. */
static global_part *part_of(stoat_global *g, const char *topic, int32_t partition)
{
	for (size_t i = 0; i < g->part_count; i++)
		if (g->parts[i].partition == partition && strcmp(g->parts[i].topic, topic) == 0)
			return &g->parts[i];
	return NULL;
}

/* Reads the checkpoint file into the parts' committed offsets (a missing file: none). */
static void read_checkpoint(stoat_global *g)
{
	if (!g->checkpoint_path)
		return;
	FILE *f = fopen(g->checkpoint_path, "r");
	if (!f)
		return;
	char topic[512];
	int32_t partition;
	int64_t offset;
	while (fscanf(f, "%511s %" SCNd32 " %" SCNd64, topic, &partition, &offset) == 3) {
		global_part *p = part_of(g, topic, partition);
		if (p && offset >= 0)
			p->applied = p->committed = offset;
	}
	fclose(f);
}

/* Writes the committed offsets to the checkpoint file (best effort: a stale one is only slower). */
static void write_checkpoint(stoat_global *g)
{
	if (!g->checkpoint_path)
		return;
	size_t n = strlen(g->checkpoint_path) + sizeof ".tmp";
	char *tmp = stoat_xcalloc(1, n);
	snprintf(tmp, n, "%s.tmp", g->checkpoint_path);
	FILE *f = fopen(tmp, "w");
	if (f) {
		for (size_t i = 0; i < g->part_count; i++)
			fprintf(f, "%s %" PRId32 " %" PRId64 "\n", g->parts[i].topic, g->parts[i].partition,
				g->parts[i].committed);
		if (fclose(f) == 0)
			rename(tmp, g->checkpoint_path);
	}
	free(tmp);
}

/* Assigns every part from its committed offset (or the beginning). */
static bool assign_parts(stoat_global *g, char *err, size_t errlen)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)g->part_count);
	for (size_t i = 0; i < g->part_count; i++) {
		global_part *p = &g->parts[i];
		p->applied = p->committed;
		rd_kafka_topic_partition_list_add(l, p->topic, p->partition)->offset =
			p->committed > 0 ? p->committed : RD_KAFKA_OFFSET_BEGINNING;
	}
	rd_kafka_resp_err_t e = rd_kafka_assign(g->rk, l);
	rd_kafka_topic_partition_list_destroy(l);
	if (e) {
		snprintf(err, errlen, "cannot read the global tables' topics: %s", rd_kafka_err2str(e));
		return false;
	}
	return true;
}

/*
 * Opens the consumer and finds every partition of the global topics
 * (waiting for a topic that does not exist yet, as the stream sources do,
 * is the admin step's: by then they exist).
 */
stoat_global *stoat_global_open(const stoat_app *app, stoat_state *st, stoat_ctx *tasks, rd_kafka_conf_t *conf,
				const char *state_dir, char *err, size_t errlen)
{
	err[0] = '\0';
	bool any = false, persistent = state_dir != NULL;
	for (size_t i = 0; i < app->source_count; i++)
		any = any || app->sources[i].global;
	for (size_t s = 0; s < app->store_count; s++)
		if (app->stores[s].global && app->stores[s].in_memory)
			persistent = false;
	if (!any) {
		rd_kafka_conf_destroy(conf);
		return NULL;
	}
	char errstr[512];
	rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
	if (!rk) {
		rd_kafka_conf_destroy(conf);
		snprintf(err, errlen, "cannot create the global tables' consumer: %s", errstr);
		return NULL;
	}
	stoat_global *g = stoat_xcalloc(1, sizeof *g);
	g->app = app;
	g->st = st;
	g->tasks = tasks;
	g->rk = rk;
	for (size_t i = 0; i < app->source_count; i++) {
		if (!app->sources[i].global)
			continue;
		rd_kafka_topic_t *t = rd_kafka_topic_new(rk, app->sources[i].topic, NULL);
		const struct rd_kafka_metadata *md = NULL;
		rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, t, &md, 10000);
		rd_kafka_topic_destroy(t);
		if (e || md->topic_cnt != 1 || md->topics[0].err) {
			snprintf(err, errlen, "cannot read the partitions of global table topic %s: %s", app->sources[i].topic,
				 rd_kafka_err2str(e ? e : md->topic_cnt == 1 ? md->topics[0].err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
			if (md)
				rd_kafka_metadata_destroy(md);
			stoat_global_close(g);
			return NULL;
		}
		int cnt = md->topics[0].partition_cnt;
		g->parts = stoat_xrealloc(g->parts, g->part_count + (size_t)cnt + 1, sizeof *g->parts);
		for (int p = 0; p < cnt; p++)
			g->parts[g->part_count++] = (global_part){
				.source = i, .topic = app->sources[i].topic, .partition = md->topics[0].partitions[p].id,
			};
		rd_kafka_metadata_destroy(md);
	}
	/* Every global store's one partition, opened (and so restorable) now. */
	for (size_t s = 0; s < app->store_count; s++)
		if (app->stores[s].global && !stoat_state_part(st, (int)s, 0, err, errlen)) {
			stoat_global_close(g);
			return NULL;
		}
	if (persistent) {
		size_t n = strlen(state_dir) + sizeof "/global.checkpoint";
		g->checkpoint_path = stoat_xcalloc(1, n);
		snprintf(g->checkpoint_path, n, "%s/global.checkpoint", state_dir);
		read_checkpoint(g);
	}
	return g;
}

/*
 * Runs one global record through its table's pipeline; false (and err)
 * when the record failed under the fail policy.
 */
static bool apply(stoat_global *g, global_part *p, rd_kafka_message_t *r, char *err, size_t errlen)
{
	stoat_ctx *cx = &g->tasks[p->source];
	rd_kafka_timestamp_type_t tt;
	stoat_msg m = {
		.partition = r->partition,
		.offset = r->offset,
		.timestamp = rd_kafka_message_timestamp(r, &tt),
		.key = { r->key, r->key ? r->key_len : 0 },
		.value = { r->payload, r->payload ? r->len : 0 },
	};
	cx->source = &g->app->sources[p->source];
	cx->msg = NULL;
	cx->error = false;
	cx->source->pipeline(cx, &m, 1);
	cx->msg = NULL;
	stoat_arena_reset(&cx->arena);
	if (cx->stopped) {
		snprintf(err, errlen, "a record of global table topic %s[%" PRId32 "] at offset %" PRId64 " failed",
			 p->topic, p->partition, r->offset);
		return false;
	}
	p->applied = r->offset + 1;
	g->applied_records++;
	return true;
}

/* Handles one polled message: 1 applied, 0 nothing to apply, -1 failure. */
static int handle(stoat_global *g, rd_kafka_message_t *r, char *err, size_t errlen)
{
	global_part *p = r->rkt ? part_of(g, rd_kafka_topic_name(r->rkt), r->partition) : NULL;
	if (r->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
		if (p && r->offset >= p->end)
			p->done = true;
		return 0;
	}
	if (r->err || !p)
		return 0; /* transient errors: librdkafka retries */
	if (!apply(g, p, r, err, errlen))
		return -1;
	if (p->applied >= p->end)
		p->done = true;
	return 1;
}

/* Reads up to the end offsets of now, applies, commits the state and the checkpoint. */
bool stoat_global_bootstrap(stoat_global *g, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	size_t pending = 0;
	for (size_t i = 0; i < g->part_count; i++) {
		global_part *p = &g->parts[i];
		int64_t lo = 0, hi = 0;
		rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(g->rk, p->topic, p->partition, &lo, &hi, 10000);
		if (e) {
			snprintf(err, errlen, "cannot read the end offset of %s[%" PRId32 "]: %s", p->topic, p->partition,
				 rd_kafka_err2str(e));
			return false;
		}
		if (p->committed < lo)
			p->committed = 0; /* the checkpoint is older than what the topic keeps: from the beginning */
		p->end = hi;
		p->done = p->committed >= hi;
		pending += !p->done;
	}
	if (!assign_parts(g, err, errlen))
		return false;
	while (pending > 0 && !*stop) {
		rd_kafka_message_t *r = rd_kafka_consumer_poll(g->rk, 200);
		if (!r)
			continue;
		int rc = handle(g, r, err, errlen);
		rd_kafka_message_destroy(r);
		if (rc < 0)
			return false;
		pending = 0;
		for (size_t i = 0; i < g->part_count; i++)
			pending += !g->parts[i].done;
	}
	if (*stop) {
		snprintf(err, errlen, "stopped while reading the global tables");
		return false;
	}
	stoat_state_flush(g->st);
	if (!stoat_state_commit(g->st, err, errlen))
		return false;
	stoat_global_committed(g);
	return true;
}

ssize_t stoat_global_poll(stoat_global *g, char *err, size_t errlen)
{
	ssize_t n = 0;
	for (int i = 0; i < 1000; i++) {
		rd_kafka_message_t *r = rd_kafka_consumer_poll(g->rk, 0);
		if (!r)
			break;
		int rc = handle(g, r, err, errlen);
		rd_kafka_message_destroy(r);
		if (rc < 0)
			return -1;
		n += rc;
	}
	return n;
}

void stoat_global_committed(stoat_global *g)
{
	bool moved = false;
	for (size_t i = 0; i < g->part_count; i++) {
		moved = moved || g->parts[i].committed != g->parts[i].applied;
		g->parts[i].committed = g->parts[i].applied;
	}
	if (moved || g->applied_records == 0)
		write_checkpoint(g);
}

void stoat_global_aborted(stoat_global *g)
{
	char err[512];
	if (!assign_parts(g, err, sizeof err))
		stoat_log(STOAT_LOG_WARNING, NULL, NULL, "%s", err);
}

uint64_t stoat_global_applied(const stoat_global *g)
{
	return g->applied_records;
}

void stoat_global_close(stoat_global *g)
{
	if (!g)
		return;
	if (g->rk) {
		rd_kafka_consumer_close(g->rk);
		rd_kafka_destroy(g->rk);
	}
	free(g->parts);
	free(g->checkpoint_path);
	free(g);
}
