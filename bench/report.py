#!/usr/bin/env python3
"""Writes bench/run's markdown report (and the chart's data) from its raw results.

Each line of --results is one run: space-separated key=value pairs
(scenario, peer, guarantee, rep, status, wall, busy, user, sys, maxrss, in,
first_ms, out, digest, ok).  Figures are medians over the runs of a
(scenario, peer, guarantee).  CPU is per million input records (and, for
word count, per million words); records/s is input records over the time
until the peer's last input record (`busy`).
"""
import argparse
import statistics

PEER_LABEL = {
    "limit": "limit (C, librdkafka)",
    "stoat": "stoat",
    "stoat-low": "stoat, --memory low",
    "stoat-q200k": "stoat, the 200,000-record queue of before",
    "stoat-http": "stoat, endpoint on, scraped every second",
    "ks": "Kafka Streams",
}
SCENARIO_TITLE = {
    "passthrough": "Passthrough (~1 KiB values)",
    "filter_map": "Stateless JSON filter + map (~1 KiB values)",
    "wordcount": "Word count",
    "windowed_tumbling": "Windowed count: tumbling 1 min, grace 10 s, emit changes",
    "windowed_hopping": "Windowed count: hopping 5 min every 1 min, grace 10 s, emit changes",
    "windowed_final": "Windowed count: tumbling 1 min, grace 10 s, emit final",
    "join_stream_table": "Stream-table left join (orders with a customers table)",
    "join_stream_stream": "Stream-stream inner join within 10 s (impressions with clicks)",
}
SHORT = {"at_least_once": "alo", "exactly_once": "eos"}


def parse(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(dict(kv.split("=", 1) for kv in line.split()))
    return rows


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    for opt in ("results", "idle", "build", "out", "chart-data", "n-events", "n-lines", "words", "kept",
                "vocabulary", "n-keyed", "keys", "reps", "partitions", "idle-ms",
                "windowed-idle-ms", "machine", "commit", "ks-jar", "ks-build-s",
                "quick"):
        ap.add_argument("--" + opt, default="")
    a = ap.parse_args()
    runs = parse(a.results)
    n_input = {"passthrough": int(a.n_events), "filter_map": int(a.n_events), "wordcount": int(a.n_lines)}
    for s in SCENARIO_TITLE:
        if s.startswith("windowed_"):
            n_input[s] = int(a.n_keyed or 0)
    # The joins: the orders (the table is read by a run before the measured one); both streams.
    n_input["join_stream_table"] = int(a.n_keyed or 0)
    n_input["join_stream_stream"] = 2 * int(a.n_keyed or 0)
    words = int(a.words or 0)

    groups = {}
    for r in runs:
        groups.setdefault((r["scenario"], r["guarantee"], r["peer"]), []).append(r)

    def figures(scenario, guarantee, peer):
        rs = groups.get((scenario, guarantee, peer))
        if not rs:
            return None
        n = n_input[scenario]
        cpu = [float(r["user"]) + float(r["sys"]) for r in rs]
        return {
            "rate": median([n / float(r["busy"]) for r in rs if float(r["busy"]) > 0]),
            "cpu_m": median([c / n * 1e6 for c in cpu]),
            "cpu_words_m": median([c / words * 1e6 for c in cpu]) if words else None,
            "user_m": median([float(r["user"]) / n * 1e6 for r in rs]),
            "sys_m": median([float(r["sys"]) / n * 1e6 for r in rs]),
            "rss": median([float(r["maxrss"]) / 1024 for r in rs]),
            "first": median([float(r["first_ms"]) for r in rs if float(r["first_ms"]) >= 0]),
            "out": rs[-1]["out"],
        }

    scenarios = []
    for r in runs:
        if r["scenario"] not in scenarios:
            scenarios.append(r["scenario"])
    guarantees = []
    for r in runs:
        if r["guarantee"] not in guarantees:
            guarantees.append(r["guarantee"])

    out = []
    w = out.append
    title = "Benchmark: stoat, Kafka Streams and the librdkafka limit"
    w("# %s, %s%s\n" % (title, a.out.rsplit("/", 1)[-1][:10], " (quick: smoke run, figures not meaningful)"
                          if a.quick == "1" else ""))
    w("One broker (scripts/kafka, KRaft, one node, on the same machine); inputs preloaded once by "
      "bench/kafka/gen.c; every peer drains the same input topic (%s partitions) with a fresh consumer "
      "group into a fresh output topic and stops %s ms after its last input record (the windowed "
      "counts: %s ms). Commit interval "
      "100 ms, record cache 10 MiB, one stream thread, state in RocksDB. Median of %s run(s) per peer.\n"
      % (a.partitions, a.idle_ms, a.windowed_idle_ms or a.idle_ms, a.reps))
    w("Machine: %s. Repository: %s.\n" % (a.machine, a.commit))
    # Each input as its scenarios were run (a run of one scenario names only its own).
    parts = []
    if any(s in ("passthrough", "filter_map") for s in scenarios):
        parts.append("%s events (~1 KiB JSON, keyed; filter_map keeps %s)" % (a.n_events, a.kept))
    if "wordcount" in scenarios:
        parts.append("%s text lines with %s words (Zipf s=1 over %s distinct words, null keys)"
                     % (a.n_lines, words, a.vocabulary))
    if parts:
        w("Inputs: %s.\n" % "; ".join(parts))
    if any(s.startswith("windowed_") for s in scenarios):
        w("Windowed counts' input: %s keyed events (%s keys, uniform; short values), record timestamps "
          "from 1970-01-02 (not 2026: Kafka Streams' first emit-final scan walks its record cache one "
          "segment at a time from time 0, see bench/README.md) 20 ms apart with up to 5 s of "
          "out-of-order jitter (below the grace: no late "
          "records); count per key and window, windowed keys in Kafka Streams' format (key + 8-byte "
          "big-endian start), i64 counts.%s\n"
          % (a.n_keyed, a.keys, " Emit final on Kafka Streams: its once-a-second throttle "
             "(__emit.interval.ms.kstreams.windowed.aggregation__) set to 0, as stoat emits."
             if "windowed_final" in scenarios else ""))
    if any(s.startswith("join_") for s in scenarios):
        w("Joins' inputs (short text values, keys drawn uniformly from %s, record timestamps from "
          "2026-01-01 20 ms apart with up to 5 s of jitter):%s%s\n" % (
              a.keys,
              " join_stream_table: %s orders left-joined with a table of %s customer records over the "
              "same keys (about 1/e of the keys have none; timestamps a day before the orders'), every "
              "order out once as `order:customer` or `order:none`; both topics are on the broker before "
              "the run, which reads the table first by its timestamps (CPU per order)." % (a.n_keyed, a.keys)
              if "join_stream_table" in scenarios else "",
              " join_stream_stream: %s impressions and %s clicks, inner-joined by key within 10 s (about "
              "one match per record), grace 10 s, every pair out once as `impression:click`; CPU per input record of both topics."
              % (a.n_keyed, a.n_keyed) if "join_stream_stream" in scenarios else ""))
    chart = []
    for s in scenarios:
        w("## %s\n" % SCENARIO_TITLE.get(s, s))
        per = "M lines" if s == "wordcount" else "M records"
        head = "| peer | guarantee | records/s | CPU s / %s (user + sys) |" % per
        if s == "wordcount":
            head += " CPU s / M words |"
        head += " peak RSS, MiB | first output, ms | output |"
        w(head)
        w("|" + "---|---|" + "---:|" * (head.count("|") - 3))
        for g in guarantees:
            row = {"limit": None, "stoat": None, "stoat-low": None, "stoat-q200k": None, "stoat-http": None,
                   "ks": None}
            for p in ("limit", "stoat", "stoat-low", "stoat-q200k", "stoat-http", "ks"):
                f = figures(s, g, p)
                if not f:
                    continue
                row[p] = f
                line = "| %s | %s | %.0f | %.2f (%.2f + %.2f) |" % (PEER_LABEL[p], g, f["rate"], f["cpu_m"],
                                                                   f["user_m"], f["sys_m"])
                if s == "wordcount":
                    line += " %.2f |" % f["cpu_words_m"] if f["cpu_words_m"] is not None else " |"
                first = "%.0f" % f["first"] if f["first"] == f["first"] else "-"
                line += " %.0f | %s | %s |" % (f["rss"], first, f["out"])
                w(line)
            chart.append((s, g, row))
        w("")
        for g in guarantees:
            st, ks = figures(s, g, "stoat"), figures(s, g, "ks")
            # Each scenario's own limit: the passthrough, or limit --filter-map (the same filter and map by hand).
            lim = figures(s, g, "limit")
            notes = []
            if st and ks:
                cpu_r = st["cpu_m"] / ks["cpu_m"]
                rss_r = st["rss"] / ks["rss"]
                notes.append("stoat/KS CPU per record **%.3f** (1/%.1f), peak RSS **%.2f** (1/%.1f), records/s "
                             "%.1fx" % (cpu_r, 1 / cpu_r, rss_r, 1 / rss_r, st["rate"] / ks["rate"]))
                if s == "filter_map":
                    notes.append("target CPU <= 1/10 of KS: %s" % ("met" if cpu_r <= 0.1 else "NOT met"))
                if s == "wordcount":
                    notes.append("targets CPU <= 1/8 of KS: %s; peak RSS <= 1/10: %s"
                                 % ("met" if cpu_r <= 0.125 else "NOT met", "met" if rss_r <= 0.1 else "NOT met"))
                if s.startswith("windowed_"):
                    notes.append("targets CPU <= 1/6 of KS: %s; peak RSS <= 1/5: %s"
                                 % ("met" if cpu_r <= 1 / 6 else "NOT met", "met" if rss_r <= 0.2 else "NOT met"))
                if s.startswith("join_"):
                    notes.append("target CPU <= 1/5 of KS: %s" % ("met" if cpu_r <= 0.2 else "NOT met"))
            low = figures(s, g, "stoat-low")
            if low and ks:
                notes.append("with --memory low: CPU **%.3f** (1/%.1f), peak RSS **%.2f** (1/%.1f) of KS; "
                             "records/s %.1fx" % (low["cpu_m"] / ks["cpu_m"], ks["cpu_m"] / low["cpu_m"],
                                                  low["rss"] / ks["rss"], ks["rss"] / low["rss"],
                                                  low["rate"] / ks["rate"]))
            old = figures(s, g, "stoat-q200k")
            if st and old:
                # The memory preset's target: today's default within 10% of the records/s of the one before.
                r = st["rate"] / old["rate"]
                notes.append("records/s against the 200,000-record queue of before **%.2f**, peak RSS %.0f against "
                             "%.0f MiB (target: records/s within 10%%: %s)"
                             % (r, st["rss"], old["rss"], "met" if r >= 0.9 else "NOT met"))
            web = figures(s, g, "stoat-http")
            if st and web:
                # The operations endpoint's target: scraped every second, at most 2% more CPU.
                r = web["cpu_m"] / st["cpu_m"]
                notes.append("endpoint on and scraped every second: CPU **%+.1f%%** against off (target <= +2%%: "
                             "%s)" % ((r - 1) * 100, "met" if r <= 1.02 else "NOT met"))
            if st and lim and s in ("passthrough", "filter_map"):
                r = st["cpu_m"] / lim["cpu_m"]
                notes.append("stoat/limit CPU per record **%.2f**%s" % (
                    r, " (target <= 1.15: %s)" % ("met" if r <= 1.15 else "NOT met") if s == "filter_map" else ""))
            if notes:
                w("- %s: %s" % (g, "; ".join(notes)))
        w("")

    idle = parse(a.idle) if a.idle else []
    build = parse(a.build) if a.build else []
    if idle or build:
        w("## Footprint\n")
        w("| | stoat | Kafka Streams |")
        w("|---|---:|---:|")
        rss = {r["peer"]: float(r["maxrss"]) / 1024 for r in idle}
        if rss:
            w("| idle RSS (word count app, empty input), MiB | %s | %s |" % (
                "%.0f" % rss["stoat"] if "stoat" in rss else "-", "%.0f" % rss["ks"] if "ks" in rss else "-"))
        if build:
            sizes = ", ".join("%s %.1f MB" % (b["scenario"], int(b["bytes"]) / 1e6) for b in build)
            times = ", ".join("%s %.2f s" % (b["scenario"], int(b["build_ms"]) / 1000) for b in build)
            jar = ""
            if a.ks_jar:
                import os
                jar = "%.0f MB jar (+ a JVM)" % (os.path.getsize(a.ks_jar) / 1e6)
            w("| binary | %s | %s |" % (sizes, jar or "-"))
            w("| build time | %s (stoatc + cc) | %s |" % (times, "%s s (bench/ks/build: mvn package, "
                                                          "dependencies cached)" % a.ks_build_s
                                                          if a.ks_build_s else "-"))
        w("")
    w("Definitions: records/s = input records / seconds from the process's start until its last input "
      "record (its idle-exit time minus the idle wait; everything committed by then). CPU = user + sys "
      "of the process over its whole run (start-up, idle wait and shutdown included), from wait4. Peak "
      "RSS = ru_maxrss. First output = from process start (JVM start for Kafka Streams) to the first "
      "record written to the output topic. Every run's output is checked: the passthroughs' equal the "
      "input (count and digest), filter_map's hold the generator's count and agree across peers, word "
      "count's final tables agree across peers, and each windowed count's final count per (key, window "
      "start) equals the reference kbtool windows computes from the input alone (emit final: the "
      "windows closed by each partition's last stream time, one output record each); each join's output "
      "(count and digest) equals the reference kbtool stjoin / ssjoin computes from the inputs alone.\n")
    with open(a.out, "w") as f:
        f.write("\n".join(out))
    with open(a.chart_data, "w") as f:
        f.write("# case limit stoat ks (CPU s per M input records)\n")
        for s, g, row in chart:
            vals = ["%.3f" % row[p]["cpu_m"] if row[p] else "-" for p in ("limit", "stoat", "ks")]
            f.write('"%s %s" %s\n' % (s, SHORT.get(g, g), " ".join(vals)))


if __name__ == "__main__":
    main()
