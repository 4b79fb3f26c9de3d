package stoat.bench.flink;

import java.util.List;

/**
 * One Nexmark query as the Flink peer runs it: the source tables it reads, its sink's kind and
 * columns, and the SELECT written into the sink.
 *
 * @param inputs  the source tables read: "person", "auction", "bid" (topics PREFIX-person, ...),
 *                "side" (q13's side input, PREFIX-side)
 * @param upsert  an updating result: an upsert-kafka sink keyed by k (the final value per key,
 *                tombstones for deletes); else an append-only kafka sink
 * @param stamped the SELECT's last column is the record timestamp (the sink's `ts` metadata
 *                column): the stateless queries give their records the bid's dateTime, as stoat does
 * @param columns the sink's columns, the record key `k STRING` first (written as the key, not in
 *                the JSON value)
 * @param select  the query; its columns are the sink's in order (k, value fields[, ts])
 */
record Query(List<String> inputs, boolean upsert, boolean stamped, String columns, String select) {
}
