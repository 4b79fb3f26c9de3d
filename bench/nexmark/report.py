#!/usr/bin/env python3
"""Writes bench/run-nexmark's markdown report (and the chart's data).

Each line of --results is one run, space-separated key=value pairs: query,
peer (stoat, ks, flink, or replay: the stoat program on the replay driver),
input (events, empty: the same query over empty topics, or file), rep,
status, wall, busy, user, sys, maxrss (KiB), out, ok.  Figures are medians
over the reps of a (query, peer).

Events are the whole generated stream (N_EVENTS: persons, auctions and
bids), as Nexmark reports them, whichever topics a query reads.  The time of
a run is until its last input record: stoat's and Kafka Streams' idle exit
less the idle wait (`busy`), Flink's job end (`wall`: a bounded source ends
the job when drained).  "Whole" figures are the process's; "steady" ones
take off the same peer's run of the same query over empty topics (start-up,
connecting, shutdown): events / (time - empty time), CPU - empty CPU.
"""
import argparse
import os
import sys

# bench/report.py's reading of the results lines and its median.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report import median, parse  # noqa: E402

PEERS = ["stoat", "ks", "flink"]
PEER_LABEL = {"stoat": "stoat", "ks": "Kafka Streams", "flink": "Flink SQL", "replay": "stoat, replay driver"}
# Published per-core figures, in-memory generator, no Kafka (events/s): the
# nexmark/nexmark README (Flink 1.13) and Feldera's benchmark README.
ANCHORS = {
    "q0": (155000, 436000), "q1": (158000, None), "q2": (175000, None), "q3": (152000, None),
    "q4": (34000, 265000), "q5": (22000, 412000), "q7": (12300, 196000), "q8": (146000, None),
    "q9": (None, 57000), "q11": (39700, None), "q14": (161000, None), "q17": (117000, None),
    "q20": (19000, 85000),
}


def run_time(r):
    """Seconds until the last input record (see the module's comment)."""
    busy = float(r["busy"])
    return busy if busy >= 0 else float(r["wall"])


def cpu(r):
    return float(r["user"]) + float(r["sys"])


def failure(r, limit):
    """What the report says in place of the figures of a run that failed (bench/run-nexmark records
    another peer's failed run and goes on; stoat's stops the benchmark)."""
    status = int(r["status"])
    if status == 124:
        return "did not finish within %s s" % limit
    if status != 0:
        return "died (exit status %d)" % status
    return "wrong output (its check failed)"


def fmt(x, digits=0):
    if x is None:
        return "n/a"
    return "{:,.{d}f}".format(x, d=digits)


def ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def main():
    ap = argparse.ArgumentParser()
    for opt in ("results", "out", "chart-data", "events", "rate", "seed", "partitions", "reps", "idle-ms",
                "machine", "commit", "quick", "retries", "limit"):
        ap.add_argument("--" + opt, default="")
    a = ap.parse_args()
    rows = parse(a.results)
    n = int(a.events)
    queries = []
    for r in rows:
        if r["query"] not in queries:
            queries.append(r["query"])
    peers = [p for p in PEERS if any(r["peer"] == p for r in rows)]

    def pick(q, p, inp):
        return [r for r in rows if r["query"] == q and r["peer"] == p and r["input"] == inp]

    # figures[(q, p)] = dict of medians
    figures = {}
    for q in queries:
        for p in peers + ["replay"]:
            runs = pick(q, p, "file" if p == "replay" else "events")
            if not runs:
                continue
            good = [r for r in runs if r["ok"] == "yes"]
            empty = [r for r in pick(q, p, "empty") if r["ok"] == "yes"]
            f = {}
            if empty:
                f["empty_t"] = median([run_time(r) for r in empty])
                f["empty_cpu"] = median([cpu(r) for r in empty])
            if not good:
                f["failed"] = failure(runs[0], fmt(float(a.limit or 0)))
                figures[(q, p)] = f
                continue
            runs = good
            t = median([run_time(r) for r in runs])
            c = median([cpu(r) for r in runs])
            f.update({"rate": n / t if t > 0 else None, "cpu": c / n * 1e6,
                      "rss": median([int(r["maxrss"]) for r in runs]) / 1024.0,
                      "ok": all(r["ok"] == "yes" for r in runs), "out": runs[0].get("out", "")})
            if empty:
                te, ce = f["empty_t"], f["empty_cpu"]
                f["rate_steady"] = n / (t - te) if t - te > 0 else None
                f["cpu_steady"] = (c - ce) / n * 1e6 if c - ce > 0 else None
            if p == "replay":
                f["per_core"] = n / c if c > 0 else None
            figures[(q, p)] = f

    out = []
    w = out.append
    w("# Nexmark: stoat, Kafka Streams and Flink SQL%s" % (" (quick run: figures not meaningful)"
                                                          if a.quick == "1" else ""))
    w("")
    w("- Machine: %s. Commit %s." % (a.machine, a.commit))
    w("- Input: %s events of bench/nexmark/nexmark-gen (seed %s, %s events/s of event time), in topics of %s "
      "partitions; events/s counts every event (persons, auctions, bids) whatever topics a query reads."
      % (fmt(n), a.seed, a.rate, a.partitions))
    w("- Every peer: at-least-once, 100 ms commit / checkpoint interval, one stream thread / parallelism 1, "
      "state in RocksDB. %s run(s) each; medians. stoat and Kafka Streams stop after %s ms idle "
      "(not counted); Flink's bounded sources end its job when drained."
      % (a.reps, a.idle_ms))
    w("- Whole: the process from its start. Steady: less the same peer's run of the same query over empty "
      "topics (its start-up and shutdown).")
    w("- Every output was checked against tests/nexmark/reference.py (worked out from the generated events "
      "alone); a stoat run that fails stops the benchmark. Another peer's run that died or whose output was "
      "wrong is shown in bold in place of its figures and fails the benchmark after this report; one still "
      "going after %s s was stopped and is shown so, in bold: that engine's cost on that query."
      % fmt(float(a.limit or 0)))
    retries = parse(a.retries) if a.retries and os.path.exists(a.retries) else []
    if retries:
        w("- Flink runs that died and ran once more (their figures are the second run's): %s."
          % "; ".join("%s %s (rep %s; first run %s)" % (r["query"], r["input"], r["rep"], r["first"])
                      for r in retries))
    w("")
    w("## Per query")
    w("")
    head = ["query"]
    for p in peers:
        head += ["%s events/s (steady)" % PEER_LABEL[p], "%s CPU s/M events (steady)" % PEER_LABEL[p],
                 "%s peak RSS MiB" % PEER_LABEL[p]]
    w("| " + " | ".join(head) + " |")
    w("|" + "---|" * len(head))
    for q in queries:
        cells = [q]
        for p in peers:
            f = figures.get((q, p))
            if not f:
                cells += ["", "", ""]
                continue
            if "failed" in f:
                cells += ["**%s**" % f["failed"], "", ""]
                continue
            cells += ["%s (%s)" % (fmt(f["rate"]), fmt(f.get("rate_steady"))),
                      "%s (%s)" % (fmt(f["cpu"], 2), fmt(f.get("cpu_steady"), 2)), fmt(f["rss"], 1)]
        w("| " + " | ".join(cells) + " |")
    w("")
    if "stoat" in peers and len(peers) > 1:
        w("## Ratios (stoat / peer; below 1 is stoat's advantage)")
        w("")
        head = ["query"]
        for p in peers[1:]:
            head += ["CPU vs %s, whole (steady)" % PEER_LABEL[p], "peak RSS vs %s" % PEER_LABEL[p]]
        w("| " + " | ".join(head) + " |")
        w("|" + "---|" * len(head))
        for q in queries:
            s = figures.get((q, "stoat"))
            cells = [q]
            for p in peers[1:]:
                o = figures.get((q, p))
                if not s or not o or "failed" in s or "failed" in o:
                    cells += ["", ""]
                    continue
                cells += ["%s (%s)" % (fmt(ratio(s["cpu"], o["cpu"]), 3),
                                       fmt(ratio(s.get("cpu_steady"), o.get("cpu_steady")), 3)),
                          fmt(ratio(s["rss"], o["rss"]), 3)]
            w("| " + " | ".join(cells) + " |")
        w("")
    w("## Start-up and shutdown (the empty-input runs)")
    w("")
    w("| query | " + " | ".join("%s s, CPU s" % PEER_LABEL[p] for p in peers) + " |")
    w("|" + "---|" * (len(peers) + 1))
    for q in queries:
        cells = [q]
        for p in peers:
            f = figures.get((q, p), {})
            cells.append("%s, %s" % (fmt(f.get("empty_t"), 1), fmt(f.get("empty_cpu"), 1)) if "empty_t" in f else "")
        w("| " + " | ".join(cells) + " |")
    w("")
    if any(p == "replay" for (_, p) in figures):
        w("## The replay driver beside published per-core figures")
        w("")
        w("stoat's program over the generated file on one core, no Kafka (the replay driver: JSON decoding, "
          "the operators, state in RocksDB, JSON encoding of the output to /dev/null). The published figures "
          "are other engines' on their own machines with an in-memory generator (nexmark/nexmark README: "
          "Flink 1.13; Feldera's benchmark README): a scale, not a measurement side by side.")
        w("")
        w("| query | stoat replay, events/s per CPU-second | Flink 1.13 (published) | Feldera (published) |")
        w("|---|---|---|---|")
        for q in queries:
            f = figures.get((q, "replay"))
            if not f:
                continue
            fl, fe = ANCHORS.get(q, (None, None))
            w("| %s | %s | %s | %s |" % (q, fmt(f.get("per_core")), fmt(fl) if fl else "", fmt(fe) if fe else ""))
        w("")
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")
    # Chart data: one row per query, steady CPU s per M events for each peer (whole if no steady figure).
    with open(a.chart_data, "w") as f:
        f.write("query " + " ".join(peers) + "\n")
        for q in queries:
            vals = []
            for p in peers:
                g = figures.get((q, p), {})
                v = g.get("cpu_steady") or g.get("cpu")
                vals.append("%.4f" % v if v else "NaN")
            f.write(q + " " + " ".join(vals) + "\n")


if __name__ == "__main__":
    main()
