#!/usr/bin/env python3
"""The expected output of each Nexmark query in bench/nexmark/queries, worked
out here from the generated input alone (never from stoat's output), and
compared with what the stoat program wrote.

The expected records follow the query's reference SQL (nexmark/nexmark,
nexmark-flink queries/qN.sql) and the emission rules of the stoat topology,
which each qN.stoat's header states:
  - a stateless query (a stream) keeps the input's order on one partition:
    compared record by record, key, timestamp and value;
  - a table (aggregation, join into a table) emits changes: compared by the
    final value of each key (a null value deletes the key);
  - a windowed aggregation with emit final emits each closed window once:
    compared as a multiset of records.
Floats are compared with a relative tolerance of 1e-9.

With --kafka the output was read back from a Kafka topic by `kbtool dump`
(bench/kafka/kbtool.c: key and value as JSON strings of the record's bytes),
written by any peer (stoat, Kafka Streams, Flink) over topics of several
partitions:
  - the key and value bytes are parsed as JSON (a key that is not JSON is
    taken as text, a number as its decimal string: Flink's raw keys);
  - the output topic may have any name;
  - a stream has no order across partitions: compared record by record per
    key (each key's records in order), as a key lives in one partition;
  - windows that close within 5 s of event time before the input's
    last bid are left out on both sides: each partition (each task) has a
    stream time of its own, so which of those the end of the input closes
    depends on how the partitions interleave (and Flink closes every window
    at the end of a bounded input).
With --no-timestamps the records' timestamps are not compared (Flink's sink
writes none of its own for an updating result).

With --flink the expected output is the Flink SQL peer's (bench/flink) where
the reference SQL's meaning differs from the stoat topology's (FLINK below,
each worked out from the SQL): regular joins join whatever arrives on either
side, at any time (q4, q9: the auction may come after the bid; q20 a multiset,
as the order of a key's rows depends on how the two sources interleave); q7's
BETWEEN holds a bid at the window's end; q11's endtime is Flink's session end,
the last bid + 10 s;
q19's rows are one per (auction, rank), keyed "auction/rank".

With --ties a bid made in the same millisecond as its auction may have been
taken before the auction and joined nothing (q4, q9, q20): a Kafka Streams
task takes its partitions' heads by timestamp alone, a tie in no set order
(PartitionGroup's priority queue), where the reference, stoat's replay
driver and its Kafka driver (the auctions' source is declared first) take
the auction first.  q20: each such bid's record may be missing; q9: an
auction's winner may be the best of its other bids or any such bid that
beats them; q4: each category's average any of those combinations gives
(enumerated for up to 12 such auctions in a category; past that only
bounded: per number of auctions, the least and largest sum, a necessary
condition that a tied bid's wide price range makes loose).

usage: reference.py [--kafka] [--no-timestamps] [--flink] [--ties] QUERY EVENTS OUTPUT
       reference.py side FILE      (writes q13's side input)
"""
import datetime
import json
import os
import pickle
import re
import sys
from collections import Counter, defaultdict


def load(path):
    """A JSON-lines file's records, parsed as one JSON array (a call per line
    costs a third more).  The generated events, read once per check and the
    same for every check of a run, are cached beside the file as a pickle,
    valid while the file's size and modification time are the ones it was
    made from."""
    st = os.stat(path)
    cache = path + ".pickle"
    stamp = (st.st_size, st.st_mtime_ns)
    if path.endswith("events.jsonl") and os.path.exists(cache):
        with open(cache, "rb") as f:
            saved, recs = pickle.load(f)
        if saved == stamp:
            return recs
    with open(path) as f:
        text = f.read()
    lines = [line for line in text.split("\n") if line.strip()]
    recs = json.loads("[" + ",".join(lines) + "]") if lines else []
    if len(recs) != len(lines):
        fail("%s: a line holds %s" % (path, "more than one JSON value" if len(recs) > len(lines) else "no value"))
    if path.endswith("events.jsonl"):
        tmp = "%s.%d" % (cache, os.getpid())
        with open(tmp, "wb") as f:
            pickle.dump((stamp, recs), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
    return recs


# Set by main(): --kafka, --no-timestamps, --flink, --ties.
TIES = False
KAFKA = False
TIMESTAMPS = True
FLINK = False
# --kafka: windows closing this close to the input's end are not compared.
MARGIN_MS = 5000
# The grace of q7's and q11's windows (0, as q5's: bench/nexmark/queries),
# which the Flink forms also leave out at the end.
Q7_GRACE_MS = 0
Q11_GRACE_MS = 0


def parse_key(text):
    """A dumped key: JSON text ("14", or a JSON object), else the text itself."""
    if text is None:
        return None
    try:
        k = json.loads(text)
    except ValueError:
        return text
    return str(k) if isinstance(k, int) and not isinstance(k, bool) else k


def from_kafka(recs):
    """kbtool dump's records with their key and value bytes parsed."""
    out = []
    for r in recs:
        try:
            value = None if r["value"] is None else json.loads(r["value"])
        except ValueError:
            fail("record %s/%d@%d: the value is not JSON: %r"
                 % (r["topic"], r["partition"], r["offset"], r["value"][:80]))
        out.append({**r, "key": parse_key(r["key"]), "value": value})
    return out


def last_bid_time(recs):
    return max((b["dateTime"] for _, _, b in bids_of(recs)), default=0)


def compared(close_ms, recs):
    """Whether a window closing at close_ms (event time) is compared: always
    in replay; with --kafka, unless it closes within MARGIN_MS of the end."""
    return not KAFKA or close_ms <= last_bid_time.cached - MARGIN_MS


def events(recs, kind):
    return [r for r in recs if r["topic"] == "nexmark-" + kind]


def approx(a, b):
    """Equal, floats within a relative 1e-9, through lists and objects; the
    types equal too (1 is not 1.0, nor true).  Values equal with the same
    repr (or, their objects' keys in another order, the same sorted JSON
    text) are: both tell 1 from 1.0 and true.  Checked first, as C code,
    before the walk."""
    if a == b and (repr(a) == repr(b) or CANON(a) == CANON(b)):
        return True
    return approx_walk(a, b)


CANON = json.JSONEncoder(sort_keys=True).encode


def approx_walk(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(approx_walk(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(approx_walk(x, y) for x, y in zip(a, b))
    return type(a) == type(b) and a == b


def fail(msg):
    sys.exit("FAIL: " + msg)


def nonempty(want):
    """An input that expects nothing checks nothing: refused."""
    if not want:
        fail("the input gives this query no expected output (too few events, or windows that never close)")


def by_key(records):
    """records ((key, ...) tuples) grouped by key, each key's in their order
    (a stable sort): a Kafka topic's order holds only per partition."""
    return sorted(records, key=lambda r: json.dumps(r[0], sort_keys=True))


def final_values(records, norm=lambda v: v):
    """The table a change stream of (key, value) ends in: each key's last
    value (normalised by norm), a null value deleting the key."""
    got = {}
    for k, v in records:
        if v is None:
            got.pop(k, None)
        else:
            got[k] = norm(v)
    return got


def compare_sequence(want, got):
    """want, got: lists of (key, timestamp, value), in order (with --kafka:
    in order per key)."""
    nonempty(want)
    if not TIMESTAMPS:
        want = [(k, 0, v) for k, _, v in want]
        got = [(k, 0, v) for k, _, v in got]
    if KAFKA:
        want, got = by_key(want), by_key(got)
    if len(want) != len(got):
        fail("%d records, expected %d" % (len(got), len(want)))
    for i, (w, g) in enumerate(zip(want, got)):
        if not approx(list(w), list(g)):
            fail("record %d is %r, expected %r" % (i, g, w))
    print("ok: %d records in order" % len(want))


def compare_multiset(want, got):
    """want, got: lists of (key, value) with no floats."""
    nonempty(want)
    canon = lambda kv: json.dumps(kv, sort_keys=True)
    w, g = Counter(map(canon, want)), Counter(map(canon, got))
    if w != g:
        extra, missing = list((g - w).elements()), list((w - g).elements())
        fail("%d records, expected %d; unexpected %s; missing %s"
             % (len(got), len(want), extra[:3], missing[:3]))
    print("ok: %d records (as a multiset)" % len(want))


def compare_final(want, got_records, norm=lambda v: v):
    """want: key -> final value; got_records: the change stream (key, value)."""
    nonempty(want)
    got = final_values(got_records, norm)
    if got.keys() != want.keys():
        extra, missing = sorted(got.keys() - want.keys()), sorted(want.keys() - got.keys())
        fail("%d keys, expected %d; unexpected %s; missing %s"
             % (len(got), len(want), extra[:3], missing[:3]))
    for k in want:
        if not approx(want[k], got[k]):
            fail("key %r is %r, expected %r" % (k, got[k], want[k]))
    print("ok: %d keys' final values (from %d changes)" % (len(want), len(got_records)))


def bids_of(recs):
    return [(r["key"], r["timestamp"], r["value"]) for r in events(recs, "bid")]


# --- the stateless queries: one output record per selected bid, in order ---

def q0(recs):
    return bids_of(recs)


def q1(recs):
    return [(k, t, {"auction": b["auction"], "bidder": b["bidder"], "price": 0.908 * b["price"],
                    "dateTime": b["dateTime"], "extra": b["extra"]}) for k, t, b in bids_of(recs)]


def q2(recs):
    return [(k, t, {"auction": b["auction"], "price": b["price"]})
            for k, t, b in bids_of(recs) if b["auction"] % 123 == 0]


def q14(recs):
    out = []
    for k, t, b in bids_of(recs):
        price = 0.908 * b["price"]
        if not 1000000 < price < 50000000:
            continue
        hour = b["dateTime"] // 3600000 % 24     # HOUR() in UTC
        kind = ("dayTime" if 8 <= hour <= 18 else
                "nightTime" if hour <= 6 or hour >= 20 else "otherTime")
        out.append((k, t, {"auction": b["auction"], "bidder": b["bidder"], "price": price,
                           "bidTimeType": kind, "dateTime": b["dateTime"], "extra": b["extra"],
                           "c_counts": b["extra"].count("c")}))
    return out


def q21(recs):
    known = {"apple": "0", "google": "1", "facebook": "2", "baidu": "3"}
    out = []
    for k, t, b in bids_of(recs):
        m = re.search(r"(&|^)channel_id=([^&]*)", b["url"])
        extracted = m.group(2) if m else None
        c = b["channel"].lower()
        if extracted is None and c not in known:
            continue
        out.append((k, t, {"auction": b["auction"], "bidder": b["bidder"], "price": b["price"],
                           "channel": b["channel"], "channel_id": known.get(c, extracted)}))
    return out


def q22(recs):
    out = []
    for k, t, b in bids_of(recs):
        parts = b["url"].split("/")
        part = lambda i: parts[i] if i < len(parts) else None
        out.append((k, t, {"auction": b["auction"], "bidder": b["bidder"], "price": b["price"],
                           "channel": b["channel"], "dir1": part(3), "dir2": part(4),
                           "dir3": part(5)}))
    return out


def in_order(recs):
    """The order the replay driver takes the records: the smallest timestamp
    first across topics, ties in file order (each topic's own records are
    in file order already, as the generator's times never fall)."""
    return sorted(recs, key=lambda r: r["timestamp"])


def q20_row(v, a):
    """q20's output value: bid v with its auction a's fields."""
    return {"auction": v["auction"], "bidder": v["bidder"], "price": v["price"],
            "channel": v["channel"], "url": v["url"], "bid_dateTime": v["dateTime"],
            "bid_extra": v["extra"], "itemName": a["itemName"], "description": a["description"],
            "initialBid": a["initialBid"], "reserve": a["reserve"],
            "auction_dateTime": a["dateTime"], "expires": a["expires"], "seller": a["seller"],
            "category": a["category"], "auction_extra": a["extra"]}


def q20(recs):
    auctions, out = {}, []
    for r in in_order(recs):
        v = r["value"]
        if r["topic"] == "nexmark-auction":
            if v["category"] == 10:
                auctions[v["id"]] = v
        elif r["topic"] == "nexmark-bid" and v["auction"] in auctions:
            out.append((r["key"], r["timestamp"], q20_row(v, auctions[v["auction"]])))
    return out


def side_value(k):
    """q13's side input: every key 0..9999 but the multiples of 7."""
    return None if k % 7 == 0 else "side-%d" % (k * 31 % 1009)


def write_side(path):
    with open(path, "w") as f:
        for k in range(10000):
            if side_value(k) is not None:
                f.write(json.dumps({"topic": "nexmark-side", "timestamp": 0, "key": str(k),
                                    "value": side_value(k)}) + "\n")


def q13(recs):
    return [(k, t, {"auction": b["auction"], "bidder": b["bidder"], "price": b["price"],
                    "dateTime": b["dateTime"], "value": side_value(b["auction"] % 10000)})
            for k, t, b in bids_of(recs) if side_value(b["auction"] % 10000) is not None]


def q10(recs):
    out = []
    for k, t, b in bids_of(recs):
        at = datetime.datetime.fromtimestamp(b["dateTime"] / 1000, datetime.timezone.utc)
        out.append((k, t, {"auction": b["auction"], "bidder": b["bidder"], "price": b["price"],
                           "dateTime": b["dateTime"], "extra": b["extra"],
                           "dt": at.strftime("%Y-%m-%d"), "hm": at.strftime("%H:%M")}))
    return out


STATELESS = {"q10": q10, "q0": q0, "q1": q1, "q2": q2, "q14": q14, "q21": q21, "q22": q22, "q20": q20, "q13": q13}


def q3(recs):
    persons = {p["value"]["id"]: p["value"] for p in events(recs, "person")
               if p["value"]["state"] in ("OR", "ID", "CA")}
    want = {}
    for r in events(recs, "auction"):
        a = r["value"]
        if a["category"] == 10 and a["seller"] in persons:
            p = persons[a["seller"]]
            want[r["key"]] = {"name": p["name"], "city": p["city"], "state": p["state"], "id": a["id"]}
    return want, lambda v: v


def main():
    global KAFKA, TIMESTAMPS, FLINK, TIES
    args = sys.argv[1:]
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--kafka":
            KAFKA = True
        elif opt == "--no-timestamps":
            TIMESTAMPS = False
        elif opt == "--ties":
            TIES = True
        elif opt == "--flink":
            FLINK = True
            for q, (kind, f) in FLINK_FORMS.items():
                for table in (STATELESS, FINAL, MULTISET, KEPT):
                    table.pop(q, None)
                kind[q] = f
            KEPT.update(FLINK_KEPT)
        else:
            sys.exit("reference.py: unknown option " + opt)
    if len(args) == 2 and args[0] == "side":
        write_side(args[1])
        return
    if len(args) != 3:
        sys.exit(__doc__.strip().splitlines()[-2].strip())
    query, recs, out = args[0], load(args[1]), load(args[2])
    last_bid_time.cached = last_bid_time(recs)
    if KAFKA:
        out = from_kafka(out)
    else:
        topics = {r["topic"] for r in out}
        if topics - {"nexmark-" + query}:
            fail("output to topics %s" % sorted(topics))
    if TIES and query in TIE_CHECKS:
        TIE_CHECKS[query](recs, out)
    elif query in STATELESS:
        compare_sequence(STATELESS[query](recs), [(r["key"], r["timestamp"], r["value"]) for r in out])
    elif query in FINAL:
        want, norm, *kept = FINAL[query](recs)
        got = [(r["key"], r["value"]) for r in out]
        if kept:
            got = [(k, v) for k, v in got if kept[0](k, v)]
        compare_final(want, got, norm)
    elif query in MULTISET:
        got = [(r["key"], r["value"]) for r in out]
        if query in KEPT:
            got = [(k, v) for k, v in got if KEPT[query](k, v, recs)]
        compare_multiset(MULTISET[query](recs), got)
    else:
        fail("unknown query " + query)


def q5(recs):
    bids = [b for _, _, b in bids_of(recs)]
    stream_time = max(b["dateTime"] for b in bids)
    counts = defaultdict(Counter)                # window start -> auction -> bids
    for b in bids:
        t = b["dateTime"]
        # every hopping window [s, s + 10 s), s a multiple of 2 s, holding t
        for s in range(t - t % 2000 - 8000, t + 1, 2000):
            if s >= 0 and s <= t < s + 10000:
                counts[s][b["auction"]] += 1
    want = {}
    for s, per_auction in counts.items():
        if s + 10000 > stream_time:              # not closed: not emitted
            continue
        if not compared(s + 10000, recs):
            continue
        maxn = max(per_auction.values())
        want[str(s)] = {"starttime": s, "endtime": s + 10000, "maxn": maxn,
                        "auctions": sorted(a for a, n in per_auction.items() if n == maxn)}
    norm = lambda v: {**v, "auctions": sorted(int(a) for a in v["auctions"].split(","))}
    return want, norm, lambda k, v: v is None or compared(v["endtime"], recs)


def q8(recs):
    window = lambda t: t - t % 10000
    registered = {(p["id"], window(p["dateTime"])): p for p in (r["value"] for r in events(recs, "person"))}
    opened = {(a["seller"], window(a["dateTime"])) for a in (r["value"] for r in events(recs, "auction"))}
    want = {}
    for (pid, w), p in registered.items():
        if (pid, w) in opened:
            want["%d/%d" % (pid, w)] = {"id": pid, "name": p["name"], "stime": w}
    return want, lambda v: v


def q17(recs):
    groups = defaultdict(list)
    for _, _, b in bids_of(recs):
        day = datetime.datetime.fromtimestamp(b["dateTime"] / 1000, datetime.timezone.utc).strftime("%Y-%m-%d")
        groups[(b["auction"], day)].append(b["price"])
    want = {}
    for (auction, day), prices in groups.items():
        want["%d/%s" % (auction, day)] = {
            "auction": auction, "day": day, "total_bids": len(prices),
            "rank1_bids": sum(p < 10000 for p in prices),
            "rank2_bids": sum(10000 <= p < 1000000 for p in prices),
            "rank3_bids": sum(p >= 1000000 for p in prices),
            "min_price": min(prices), "max_price": max(prices),
            "avg_price": sum(prices) // len(prices), "sum_price": sum(prices)}
    return want, lambda v: v


def q18(recs):
    want = {}
    for _, _, b in bids_of(recs):
        key = "%d/%d" % (b["bidder"], b["auction"])
        if key not in want or b["dateTime"] >= want[key]["dateTime"]:
            want[key] = b
    return want, lambda v: v


def q19(recs):
    per_auction = defaultdict(list)
    for k, _, b in bids_of(recs):
        per_auction[k].append(b)
    want = {}
    for k, bids in per_auction.items():
        top = sorted(bids, key=lambda b: -b["price"])[:10]      # stable: earlier first among equals
        want[k] = {"bids": [{**b, "rank_number": i + 1} for i, b in enumerate(top)]}
    return want, lambda v: v


def q4(recs):
    auctions, final = {}, {}
    for r in in_order(recs):
        v = r["value"]
        if r["topic"] == "nexmark-auction":
            auctions[v["id"]] = v
        elif r["topic"] == "nexmark-bid" and v["auction"] in auctions:
            a = auctions[v["auction"]]
            if a["dateTime"] <= v["dateTime"] <= a["expires"]:
                final[a["id"]] = (a["category"], max(final.get(a["id"], (0, v["price"]))[1], v["price"]))
    per_category = defaultdict(list)
    for category, price in final.values():
        per_category[category].append(price)
    want = {str(c): {"id": c, "final": sum(ps) // len(ps)} for c, ps in per_category.items()}
    return want, lambda v: v


def q9(recs):
    auctions, want = {}, {}
    for r in in_order(recs):
        v = r["value"]
        if r["topic"] == "nexmark-auction":
            auctions[v["id"]] = v
        elif r["topic"] == "nexmark-bid" and v["auction"] in auctions:
            a = auctions[v["auction"]]
            if not a["dateTime"] <= v["dateTime"] <= a["expires"]:
                continue
            old = want.get(r["key"])
            if old is None or (v["price"], -v["dateTime"]) > (old["price"], -old["bid_dateTime"]):
                want[r["key"]] = {**a, "auction": v["auction"], "bidder": v["bidder"], "price": v["price"],
                                  "bid_dateTime": v["dateTime"], "bid_extra": v["extra"]}
    return want, lambda v: v


def day_of(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%d")


def q15(recs):
    ranks = [lambda p: True, lambda p: p < 10000, lambda p: 10000 <= p < 1000000, lambda p: p >= 1000000]
    names = ["total", "rank1", "rank2", "rank3"]
    per_day = defaultdict(list)
    for _, _, b in bids_of(recs):
        per_day[day_of(b["dateTime"])].append(b)
    want = {}
    for day, bids in per_day.items():
        row = {"day": day}
        for name, rank in zip(names, ranks):
            chosen = [b for b in bids if rank(b["price"])]
            row[name + "_bids"] = len(chosen)
            row[name + "_bidders"] = len({b["bidder"] for b in chosen})
            row[name + "_auctions"] = len({b["auction"] for b in chosen})
        want[day] = row
    return want, lambda v: v


def q16(recs):
    ranks = [lambda p: True, lambda p: p < 10000, lambda p: 10000 <= p < 1000000, lambda p: p >= 1000000]
    names = ["total", "rank1", "rank2", "rank3"]
    groups = defaultdict(list)
    for _, _, b in bids_of(recs):
        groups[(b["channel"], day_of(b["dateTime"]))].append(b)
    want = {}
    for (channel, day), bids in groups.items():
        minute = lambda b: datetime.datetime.fromtimestamp(
            b["dateTime"] / 1000, datetime.timezone.utc).strftime("%H:%M")
        row = {"channel": channel, "day": day, "minute": max(minute(b) for b in bids)}
        for name, rank in zip(names, ranks):
            chosen = [b for b in bids if rank(b["price"])]
            row[name + "_bids"] = len(chosen)
            row[name + "_bidders"] = len({b["bidder"] for b in chosen})
            row[name + "_auctions"] = len({b["auction"] for b in chosen})
        want["%s/%s" % (channel, day)] = row
    return want, lambda v: v


FINAL = {"q16": q16, "q15": q15, "q9": q9, "q3": q3, "q5": q5, "q8": q8, "q17": q17, "q18": q18, "q19": q19, "q4": q4}


def q7(recs):
    """Each closed 10 s window's highest price and the bids that have it,
    keyed by the window's start (a window closes when stream time reaches
    its end: grace 0)."""
    bids = [b for _, _, b in bids_of(recs)]
    stream_time = max(b["dateTime"] for b in bids)
    windows = defaultdict(list)
    for b in bids:
        windows[b["dateTime"] - b["dateTime"] % 10000].append(b)
    want = {}
    for s, in_window in windows.items():
        if s + 10000 > stream_time or not compared(s + 10000, recs):
            continue
        top = max(b["price"] for b in in_window)
        want[str(s)] = {"starttime": s, "price": top,
                        "bids": sorted([b["auction"], b["bidder"], b["dateTime"], b["extra"]]
                                       for b in in_window if b["price"] == top)}
    norm = lambda v: {**v, "bids": sorted([int(a), int(b), int(d), e]
                                          for a, b, d, e in (x.split(",") for x in v["bids"].split("|")))}
    return want, norm, lambda k, v: v is None or compared(v["starttime"] + 10000, recs)


def q11(recs):
    """Each closed session's bid count per bidder, from nexmark-bid-bidder
    (the same bids keyed by bidder; nexmark-bid where that is absent)."""
    bids = [r["value"] for r in events(recs, "bid-bidder")] or [b for _, _, b in bids_of(recs)]
    stream_time = max(b["dateTime"] for b in bids)
    times = defaultdict(list)
    for b in bids:
        times[b["bidder"]].append(b["dateTime"])
    out = []
    for bidder, ts in times.items():
        ts.sort()
        sessions = [[ts[0], ts[0], 1]]
        for t in ts[1:]:
            if t - sessions[-1][1] <= 10000:     # within the gap, both ends inclusive
                sessions[-1][1], sessions[-1][2] = t, sessions[-1][2] + 1
            else:
                sessions.append([t, t, 1])
        out += [(str(bidder), {"bidder": bidder, "bid_count": n, "starttime": a, "endtime": e})
                for a, e, n in sessions    # closed: emitted
                if e + 10000 + Q11_GRACE_MS < stream_time and compared(e + 10000 + Q11_GRACE_MS, recs)]
    return out


def q7_kept(k, v, recs):
    d = v["dateTime"]
    return compared(d - d % 10000 + 10000 + Q7_GRACE_MS, recs)


def q11_kept(k, v, recs):
    return compared(v["endtime"] + 10000 + Q11_GRACE_MS, recs)


def q23(recs):
    persons = {r["value"]["id"]: r["value"] for r in events(recs, "person")}
    sold = defaultdict(list)
    for r in events(recs, "auction"):
        sold[r["value"]["seller"]].append(r["value"])
    out = []
    for _, _, b in bids_of(recs):
        p = persons.get(b["bidder"])
        if p is None:
            continue
        out += [(str(b["bidder"]), {
            "bidder": b["bidder"], "price": b["price"], "channel": b["channel"], "url": b["url"],
            "bid_extra": b["extra"], "person_id": p["id"], "name": p["name"],
            "emailAddress": p["emailAddress"], "creditCard": p["creditCard"], "city": p["city"],
            "state": p["state"], "person_extra": p["extra"], "itemName": a["itemName"],
            "description": a["description"], "initialBid": a["initialBid"], "reserve": a["reserve"],
            "auction_dateTime": a["dateTime"], "expires": a["expires"], "seller": a["seller"],
            "category": a["category"], "auction_extra": a["extra"]}) for a in sold[b["bidder"]]]
    return out


MULTISET = {"q11": q11, "q23": q23}
FINAL["q7"] = q7
# With --kafka, which of a windowed query's output records are compared.
KEPT = {"q11": q11_kept}

# --- the Flink SQL peer's results, where the SQL's meaning differs from stoat's ---

def q4_flink(recs):
    """q4 with the SQL's regular join: a bid joins its auction wherever the
    auction is in the input (the stoat topology's stream-table join only
    with an auction that came before the bid)."""
    auctions = {r["value"]["id"]: r["value"] for r in events(recs, "auction")}
    final = {}
    for _, _, b in bids_of(recs):
        a = auctions.get(b["auction"])
        if a is not None and a["dateTime"] <= b["dateTime"] <= a["expires"]:
            final[a["id"]] = (a["category"], max(final.get(a["id"], (0, b["price"]))[1], b["price"]))
    per_category = defaultdict(list)
    for category, price in final.values():
        per_category[category].append(price)
    # AVG of a BIGINT is a BIGINT: the sum divided by the count, truncated.
    return {str(c): {"id": c, "final": sum(ps) // len(ps)} for c, ps in per_category.items()}, lambda v: v


def q9_flink(recs):
    """q9 with the regular join (q4_flink): of each auction's bids while it
    was open, the highest price, then the earliest dateTime (the first bid of
    a full tie, as Flink's top-1 keeps the row it has on an equal sort key)."""
    auctions = {r["value"]["id"]: r["value"] for r in events(recs, "auction")}
    want = {}
    for k, _, b in bids_of(recs):
        a = auctions.get(b["auction"])
        if a is None or not a["dateTime"] <= b["dateTime"] <= a["expires"]:
            continue
        old = want.get(k)
        if old is None or (b["price"], -b["dateTime"]) > (old["price"], -old["bid_dateTime"]):
            want[k] = {**a, "auction": b["auction"], "bidder": b["bidder"], "price": b["price"],
                       "bid_dateTime": b["dateTime"], "bid_extra": b["extra"]}
    return want, lambda v: v


def q20_flink(recs):
    """q20 with the regular join: every bid with its category-10 auction,
    wherever the auction is in the input; a multiset (key, value)."""
    auctions = {r["value"]["id"]: r["value"] for r in events(recs, "auction") if r["value"]["category"] == 10}
    out = []
    for k, _, v in bids_of(recs):
        a = auctions.get(v["auction"])
        if a is None:
            continue
        out.append((k, q20_row(v, a)))
    return out


def q7_flink(recs):
    """q7 as the SQL says: each 10 s window's highest price, and every bid of
    that price with window_end - 10 s <= dateTime <= window_end (BETWEEN: the
    next window's first millisecond too). The end of the bounded input closes
    every window; those that close near it are left out (--kafka, KEPT)."""
    bids = [b for _, _, b in bids_of(recs)]
    top = {}
    for b in bids:
        s = b["dateTime"] - b["dateTime"] % 10000
        top[s] = max(top.get(s, b["price"]), b["price"])
    out = []
    for s, price in top.items():
        if not compared(s + 10000 + Q7_GRACE_MS, recs):
            continue
        out += [(str(b["auction"]), {"auction": b["auction"], "price": b["price"], "bidder": b["bidder"],
                                     "dateTime": b["dateTime"], "extra": b["extra"]})
                for b in bids if s <= b["dateTime"] <= s + 10000 and b["price"] == price]
    return out


def q7_flink_kept(k, v, recs):
    """A bid at a window's end belongs to the window before; either
    window's bids are kept if the earlier one is compared."""
    d = v["dateTime"]
    return compared(d - d % 10000 + Q7_GRACE_MS, recs) if d % 10000 == 0 else q7_kept(k, v, recs)


def q11_flink(recs):
    """q11 with Flink's session windows: each bid opens [t, t + 10 s), and
    windows that overlap or touch merge (TimeWindow.intersects compares both
    ends inclusively), so a bid joins a session up to 10 s after its last
    bid, as in Kafka Streams; starttime the first bid's time, endtime the
    last one's + 10 s. Every session is closed at the end of the input."""
    times = defaultdict(list)
    for _, _, b in bids_of(recs):
        times[b["bidder"]].append(b["dateTime"])
    out = []
    for bidder, ts in times.items():
        ts.sort()
        sessions = [[ts[0], ts[0], 1]]
        for t in ts[1:]:
            if t - sessions[-1][1] <= 10000:
                sessions[-1][1], sessions[-1][2] = t, sessions[-1][2] + 1
            else:
                sessions.append([t, t, 1])
        out += [(str(bidder), {"bidder": bidder, "bid_count": n, "starttime": a, "endtime": e + 10000})
                for a, e, n in sessions]
    return [(k, v) for k, v in out if q11_kept(k, v, recs)]


def q19_flink(recs):
    """q19's rows: one per (auction, rank) of the top 10, keyed "auction/rank"
    (stoat's top 10 of each auction as one array): the same ranking, ties in
    arrival order (Flink's top-N keeps the rows of an equal price in order)."""
    want = {}
    for k, v in q19(recs)[0].items():
        for b in v["bids"]:
            want["%s/%d" % (k, b["rank_number"])] = b
    return want, lambda v: v


# query -> (the table it is compared by, its Flink form)
FLINK_FORMS = {"q4": (FINAL, q4_flink), "q9": (FINAL, q9_flink), "q19": (FINAL, q19_flink),
               "q20": (MULTISET, q20_flink), "q7": (MULTISET, q7_flink), "q11": (MULTISET, q11_flink)}
FLINK_KEPT = {"q7": q7_flink_kept, "q11": q11_kept}

# --- --ties: a bid in its auction's millisecond may have missed it ---

def tied(recs):
    """Each bid with its auction (as in_order finds it, or None) and whether
    the two share a millisecond (the bid may then have come first)."""
    auctions, out = {}, []
    for r in in_order(recs):
        v = r["value"]
        if r["topic"] == "nexmark-auction":
            auctions[v["id"]] = v
        elif r["topic"] == "nexmark-bid":
            a = auctions.get(v["auction"])
            out.append((r, a, a is not None and a["dateTime"] == r["timestamp"]))
    return out


def q20_ties_check(recs, out):
    """q20 with ties: each key's records in order, a tied bid's optional."""
    optional = {(r["key"], r["value"]["dateTime"], r["value"]["bidder"], r["value"]["price"])
                for r, a, tie in tied(recs) if tie}
    want = q20(recs)
    got = [(r["key"], r["timestamp"], r["value"]) for r in out]
    nonempty(want)
    want, got = by_key(want), by_key(got)
    i = skipped = 0
    for w in want:
        ident = (w[0], w[2]["bid_dateTime"], w[2]["bidder"], w[2]["price"])
        if i < len(got) and approx(list(w), list(got[i])):
            i += 1
        elif ident in optional:
            skipped += 1
        else:
            fail("record %r missing (next: %r)" % (w, got[i] if i < len(got) else None))
    if i != len(got):
        fail("unexpected record %r" % (got[i],))
    print("ok: %d records in order per key (%d tied bids not joined)" % (i, skipped))


def winner_options(recs, better, value):
    """auction id -> the values its result may have (None: no result): the
    best of its untied bids, or a tied bid better than that."""
    best, ties = {}, defaultdict(list)
    for r, a, tie in tied(recs):
        v = r["value"]
        if a is None or not a["dateTime"] <= v["dateTime"] <= a["expires"]:
            continue
        if tie:
            ties[a["id"]].append((v, a))
        elif a["id"] not in best or better(v, best[a["id"]][0]):
            best[a["id"]] = (v, a)
    options = {}
    for aid in set(best) | set(ties):
        b = best.get(aid)
        opts = [value(*b) if b else None]
        opts += [value(v, a) for v, a in ties[aid] if b is None or better(v, b[0])]
        options[aid] = opts
    return options


def q9_better(v, w):
    return (v["price"], -v["dateTime"]) > (w["price"], -w["dateTime"])


def q9_ties_check(recs, out):
    options = winner_options(recs, q9_better, lambda v, a: {
        **a, "auction": v["auction"], "bidder": v["bidder"], "price": v["price"],
        "bid_dateTime": v["dateTime"], "bid_extra": v["extra"]})
    nonempty(options)
    got = final_values((r["key"], r["value"]) for r in out)
    for aid, opts in options.items():
        g = got.pop(str(aid), None)
        if not any(approx(o, g) if o is not None else g is None for o in opts):
            fail("auction %d is %r, expected one of %r" % (aid, g, opts))
    if got:
        fail("unexpected keys %s" % sorted(got)[:3])
    print("ok: %d auctions' winners (%d with a tied bid)"
          % (len(options), sum(len(o) > 1 for o in options.values())))


def q4_ties_check(recs, out):
    options = winner_options(recs, lambda v, w: v["price"] > w["price"], lambda v, a: (a["category"], v["price"]))
    fixed, open_ = defaultdict(list), defaultdict(list)
    for aid, opts in options.items():
        (fixed if len(opts) == 1 else open_)[next(o for o in opts if o)[0]].append(opts)
    nonempty(options)
    got = final_values((r["key"], r["value"]) for r in out)
    bounded = 0
    for c in set(fixed) | set(open_):
        prices = [o[0][1] for o in fixed[c] if o[0]]
        g = got.pop(str(c), None)
        if g is not None and g.get("id") != c:
            fail("category %d is %r" % (c, g))
        final = None if g is None else g.get("final")
        if len(open_[c]) <= 12:
            # Every combination of the open auctions' options.
            possible = set()
            combos = [[]]
            for opts in open_[c]:
                combos = [x + [o] for x in combos for o in opts]
            for combo in combos:
                ps = prices + [o[1] for o in combo if o]
                if ps:
                    possible.add(sum(ps) // len(ps))
            if final not in possible and not (final is None and not possible):
                fail("category %d is %r, expected a final in %s" % (c, g, sorted(possible)))
            continue
        # Too many to enumerate: per count of auctions with a final, the least and the
        # largest sum the options give; the final must be the average of a sum in
        # that range (a necessary condition, not quite a sufficient one).
        bounded += 1
        ranges = {len(prices): (sum(prices), sum(prices))}
        for opts in open_[c]:
            nxt = {}
            for n, (lo, hi) in ranges.items():
                for o in opts:
                    m, d = (n + 1, o[1]) if o else (n, 0)
                    a, b = nxt.get(m, (lo + d, hi + d))
                    nxt[m] = (min(a, lo + d), max(b, hi + d))
            ranges = nxt
        if final is None:
            if 0 not in ranges:
                fail("category %d has no final, expected one" % c)
            continue
        if not any(n and max(lo, final * n) <= min(hi, (final + 1) * n - 1) for n, (lo, hi) in ranges.items()):
            fail("category %d is %r, outside every average its options give" % (c, g))
    if got:
        fail("unexpected keys %s" % sorted(got)[:3])
    print("ok: %d categories (%d auctions with a tied bid; %d categories checked by bounds)"
          % (len(set(fixed) | set(open_)), sum(len(v) for v in open_.values()), bounded))


TIE_CHECKS = {"q20": q20_ties_check, "q9": q9_ties_check, "q4": q4_ties_check}

if __name__ == "__main__":
    main()
