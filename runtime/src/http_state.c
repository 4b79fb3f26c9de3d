/*
 * http_state.c - the operations endpoint's view of the state (see
 * http.h): GET /state (the tasks, the open store partitions with their
 * sizes, the restores under way, the record cache, RocksDB's memory) and
 * the same figures as /metrics families.  The figures are the stream
 * thread's, read every STOAT_HTTP_STATE_MS (RocksDB's estimates:
 * rocksdb.estimate-num-keys, estimate-live-data-size plus memtables).
 */
#include "http_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A task's id as Kafka Streams writes it: <sub-topology>_<partition>. */
static void task_id(char *out, size_t n, int subtopology, int32_t partition)
{
	snprintf(out, n, "%d_%" PRId32, subtopology, partition);
}

/* The tasks of the assigned partitions, each once, in first-seen order:
 * "tasks": [{"id", "subtopology", "partition", "topics"}]. */
static void tasks_json(const stoat_app *app, const stoat_http_stats *s, stoat_buf *b)
{
	stoat_buf_lit(b, "\"tasks\": [");
	size_t shown = 0;
	for (size_t i = 0; i < s->partition_count; i++) {
		const stoat_http_partition *p = &s->partitions[i];
		int t = app->sources[p->source].subtopology;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = s->partitions[j].partition == p->partition &&
			       app->sources[s->partitions[j].source].subtopology == t;
		if (seen)
			continue;
		char id[32];
		task_id(id, sizeof id, t, p->partition);
		http_put_str(b, shown++ ? ",\n  {\"id\": " : "\n  {\"id\": ");
		http_put_json(b, id);
		http_put_fmt(b, ", \"subtopology\": %d, \"partition\": %" PRId32 ", \"topics\": [", t, p->partition);
		bool first = true;
		for (size_t j = i; j < s->partition_count; j++) {
			const stoat_http_partition *q = &s->partitions[j];
			if (q->partition != p->partition || app->sources[q->source].subtopology != t)
				continue;
			if (!first)
				stoat_buf_lit(b, ", ");
			first = false;
			http_put_json(b, app->sources[q->source].topic);
		}
		stoat_buf_lit(b, "]}");
	}
	http_put_str(b, shown ? "\n]" : "]");
}

/* "stores": every open store partition with its task and figures. */
static void stores_json(const stoat_app *app, const stoat_http_stats *s, stoat_buf *b)
{
	stoat_buf_lit(b, "\"stores\": [");
	for (size_t i = 0; s->has_state && i < s->store_count; i++) {
		const stoat_store_usage *u = &s->stores[i];
		const stoat_store_desc *d = &app->stores[u->store];
		char id[32];
		if (d->global)
			snprintf(id, sizeof id, "global");
		else
			task_id(id, sizeof id, d->subtopology, u->partition);
		http_put_str(b, i ? ",\n  {\"store\": " : "\n  {\"store\": ");
		http_put_json(b, d->name);
		http_put_fmt(b, ", \"partition\": %" PRId32 ", \"task\": ", u->partition);
		http_put_json(b, id);
		stoat_buf_lit(b, ", \"kind\": ");
		http_put_json(b, d->kind == STOAT_STORE_WINDOW ? "window" : "key_value");
		http_put_bool(b, "in_memory", u->in_memory);
		http_put_fmt(b, ", \"keys\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"checkpoint\": ", u->keys, u->bytes);
		http_put_offset(b, u->checkpoint);
		http_put_fmt(b, ", \"restored\": %" PRIu64 "}", u->restored);
	}
	http_put_str(b, s->has_state && s->store_count ? "\n]" : "]");
}

/* Records a restore has left to read (0 once at its end). */
static int64_t restore_remaining(const stoat_http_restore *r)
{
	return r->end > r->position ? r->end - r->position : 0;
}

/* "restoring": the store partitions being restored now, with progress. */
static void restores_json(const stoat_http_info *info, const stoat_http_stats *s, stoat_buf *b)
{
	const stoat_app *app = info->app;
	stoat_buf_lit(b, "\"restoring\": [");
	for (size_t i = 0; s->has_state && i < s->restore_count; i++) {
		const stoat_http_restore *r = &s->restores[i];
		http_put_str(b, i ? ",\n  {\"store\": " : "\n  {\"store\": ");
		http_put_json(b, app->stores[r->store].name);
		http_put_fmt(b, ", \"partition\": %" PRId32 ", \"changelog\": \"%s-%s-changelog\"", r->partition, app->app_id,
			     app->stores[r->store].name);
		http_put_fmt(b,
			     ", \"from\": %" PRId64 ", \"end\": %" PRId64 ", \"position\": %" PRId64
			     ", \"restored\": %" PRIu64 ", \"remaining\": %" PRId64 "}",
			     r->from, r->end, r->position, r->restored, restore_remaining(r));
	}
	http_put_str(b, s->has_state && s->restore_count ? "\n]" : "]");
}

/* GET /state (see the file comment). */
void http_state_page(const stoat_http_info *info, const stoat_http_stats *s, stoat_buf *b)
{
	stoat_buf_lit(b, "{\"state\": ");
	http_put_json(b, s ? http_phase_name(s->phase) : "starting");
	if (!s) {
		stoat_buf_lit(b, ", \"tasks\": [], \"stores\": [], \"restoring\": [], \"record_cache\": null, "
				 "\"rocksdb\": null}\n");
		return;
	}
	stoat_buf_lit(b, ",\n");
	tasks_json(info->app, s, b);
	stoat_buf_lit(b, ",\n");
	stores_json(info->app, s, b);
	stoat_buf_lit(b, ",\n");
	restores_json(info, s, b);
	if (!s->has_state) {
		stoat_buf_lit(b, ",\n\"record_cache\": null, \"rocksdb\": null}\n");
		return;
	}
	const stoat_state_usage *u = &s->state;
	http_put_fmt(b,
		     ",\n\"record_cache\": {\"max_bytes\": %zu, \"bytes\": %zu, \"entries\": %zu, \"hits\": %" PRIu64
		     ", \"misses\": %" PRIu64 ", \"size_flushes\": %" PRIu64 "}",
		     u->cache_max_bytes, u->cache_bytes, u->cache_entries, u->cache_hits, u->cache_misses,
		     u->cache_size_flushes);
	http_put_fmt(b,
		     ",\n\"rocksdb\": {\"budget_bytes\": %zu, \"memtable_bytes\": %" PRIu64
		     ", \"table_readers_bytes\": %" PRIu64 ", \"block_cache_bytes\": %" PRIu64
		     ", \"block_cache_pinned_bytes\": %" PRIu64 "}}\n",
		     u->rocksdb.budget, u->rocksdb.memtables, u->rocksdb.table_readers, u->rocksdb.block_cache,
		     u->rocksdb.block_cache_pinned);
}

/* A gauge family with a sample per open store partition: its keys or its bytes. */
static void store_family(http_expo *e, const stoat_app *app, const stoat_http_stats *s, const char *name,
			 const char *help, bool bytes)
{
	http_family(e, name, "gauge", help);
	for (size_t i = 0; i < s->store_count; i++) {
		const stoat_store_usage *u = &s->stores[i];
		char part[16];
		snprintf(part, sizeof part, "%" PRId32, u->partition);
		const char *labels[] = { "store", app->stores[u->store].name, "partition", part, NULL };
		http_sample_u64(e, name, labels, bytes ? u->bytes : u->keys);
	}
}

/* The stores' families of /metrics (see http_impl.h). */
void http_state_metrics(http_expo *e, const stoat_http_info *info, const stoat_http_stats *s)
{
	if (!s || !s->has_state)
		return;
	const stoat_app *app = info->app;
	store_family(e, app, s, "stoat_store_keys", "Keys of a store partition (RocksDB's estimate, or the in-memory count).",
		     false);
	store_family(e, app, s, "stoat_store_bytes",
		     "Bytes of a store partition (RocksDB's live data estimate and memtables, or the in-memory keys and "
		     "values).",
		     true);
	http_family(e, "stoat_restore_remaining_records", "gauge",
		    "Changelog records a restore under way has left to read (absent when none is).");
	for (size_t i = 0; i < s->restore_count; i++) {
		const stoat_http_restore *r = &s->restores[i];
		char part[16];
		snprintf(part, sizeof part, "%" PRId32, r->partition);
		const char *labels[] = { "store", app->stores[r->store].name, "partition", part, NULL };
		http_sample_u64(e, "stoat_restore_remaining_records", labels, (uint64_t)restore_remaining(r));
	}
	const stoat_state_usage *u = &s->state;
	http_gauge(e, "stoat_record_cache_max_bytes", "The record cache's budget (cache_max_bytes).", u->cache_max_bytes);
	http_gauge(e, "stoat_record_cache_bytes", "Bytes the record cache holds.", u->cache_bytes);
	http_gauge(e, "stoat_record_cache_entries", "Keys the record cache holds.", u->cache_entries);
	http_counter(e, "stoat_record_cache_hits_total", "Store reads and writes that found their key in the record cache.",
		u->cache_hits);
	http_counter(e, "stoat_record_cache_misses_total", "Store reads and writes that did not.", u->cache_misses);
	http_counter(e, "stoat_record_cache_size_flushes_total",
		"Flushes of the record cache because it was over its budget (the others come with commits).",
		u->cache_size_flushes);
	http_gauge(e, "stoat_rocksdb_budget_bytes", "RocksDB's memory budget (state_memory).", u->rocksdb.budget);
	http_gauge(e, "stoat_rocksdb_memtable_bytes", "RocksDB's memtables (rocksdb.cur-size-all-mem-tables).",
	      u->rocksdb.memtables);
	http_gauge(e, "stoat_rocksdb_table_readers_bytes",
	      "RocksDB's indexes and filters held for reading (rocksdb.estimate-table-readers-mem).",
	      u->rocksdb.table_readers);
	http_gauge(e, "stoat_rocksdb_block_cache_bytes", "RocksDB's block cache usage.", u->rocksdb.block_cache);
	http_gauge(e, "stoat_rocksdb_block_cache_pinned_bytes", "Pinned block cache entries.", u->rocksdb.block_cache_pinned);
}
