#!/usr/bin/env python3
"""Input generation and output checks for the Kafka integration tests.

gen N PARTITIONS TOPIC FILE [BAD_EVERY]
genrange START END PARTITIONS TOPIC FILE   as gen, ids START..END-1 only
    N replay-format records for TOPIC {"id": i, "n": i * 7 % 1000} keyed "k<i>",
    spread over PARTITIONS partitions; with BAD_EVERY, every BAD_EVERY-th
    record (id % BAD_EVERY == BAD_EVERY - 1) is malformed instead.
exactly N OUTPUT [BAD_EVERY]    every good id exactly once, values right
at_least N OUTPUT [BAD_EVERY]   every good id at least once, values right
dlq N DLQ_OUTPUT BAD_EVERY SOURCE_TOPIC
    the dead-letter topic holds exactly the bad records, with headers
genwords N PARTITIONS TOPIC FILE
    N replay-format lines of 3-12 words for TOPIC, no key, spread over
    PARTITIONS partitions: lower-case words drawn with a skew (a few are
    frequent, most rare) from 300 made-up ones, seeded (the same file
    every time).
wordcount INPUT OUTPUT [increasing|at_least|combined]
    the word count app's output (wordcount.stoat.in) against the words of
    INPUT (genwords' file), counted here: every word's last published count
    is its count in INPUT; "increasing" (exactly once, the record cache
    on): a word's published counts only go up; "at_least": a last count
    may be over (counted twice after a crash, reported), never under;
    "combined": increasing, with fewer updates than occurrences (the
    words were pre-aggregated before the repartition).
genwin START END PARTITIONS KEYS STEP T0 TOPIC FILE
    records START..END-1 for TOPIC {"id": i} keyed "u<i % KEYS>", key u<j>
    in partition j % PARTITIONS, event time (the record timestamp) T0 +
    i * STEP ms, except that a seeded few (8%) come up to 1.5 s earlier and
    fewer (1%) 6 s earlier (out of order; some of them late for their
    window); the same record i every time, whatever the range.
windows SIZE GRACE MODE OUTPUT INPUT...
    a tumbling windowed count per key (windows.stoat.in, SIZE and GRACE in
    ms) over INPUT (genwin's files, loaded in that order), simulated here
    as Kafka Streams defines it: stream time per partition (the task) is
    the largest timestamp seen, raised before each record; a record counts
    in its window only if end + GRACE > stream time.  MODE "final": OUTPUT
    holds every closed window (end + GRACE <= its partition's final stream
    time) exactly once, with its count and its largest record timestamp,
    and no open window; "exact": every window's published counts are
    exactly 1, 2, ..., its count (emit changes, the record cache off);
    "increasing": they only go up and the last is its count.
gentable KEYS N PARTITIONS T0 TABLE_TOPIC STREAM_TOPIC TABLE_FILE STREAM_FILE
    a table of keys c0..c<KEYS-1> for TABLE_TOPIC (key c<j> in partition
    j % PARTITIONS, timestamps T0 + j): c<j> has value "t<j>", or with j % 5
    == 1 first "old<j>" then "t<j>", or with j % 10 == 3 "t<j>" then a
    tombstone, or with j % 10 == 7 no record at all; then N stream records
    i for STREAM_TOPIC keyed c<i * 7 % (KEYS + KEYS / 10)> (so a few keys
    beyond the table's), value "s<i>", timestamp T0 + 100000 + i: every one
    later than every table record.
tablejoin TABLE_FILE STREAM_FILE OUTPUT
    a left join's output ("s<i>+<partner>", partner the table's last value
    of the key or "null"): every stream record exactly once, with its key,
    its timestamp and the partner worked out from TABLE_FILE, nothing else.
genstreams N KEYS PARTITIONS T0 LEFT RIGHT LEFT_FILE RIGHT_FILE
    N records per side, "l<i>" for LEFT and "r<i>" for RIGHT, keyed
    u<i % KEYS> (partition by key number % PARTITIONS on both sides), at
    T0 + i * 40000 // N ms (40 s in all) plus a seeded jitter in
    [-300, 300] ms, the right side's shifted by 700 ms.
streamjoin WINDOW LEFT_FILE RIGHT_FILE OUTPUT
    an inner stream-stream join's output ("l<i>+r<j>"): exactly once each
    pair of a left and a right record with the same key and timestamps at
    most WINDOW ms apart, timestamped with the larger, nothing else.
same A B    two dumps hold the same records (ignoring offsets and order)
totals N GROUPS OUTPUT [exact|increasing|final]
    the totals app's output (totals.stoat.in) over ids 0..N-1: the last
    update of every group g<i> is {count, sum} of the ids with id % GROUPS
    == i; "exact": each group's counts are exactly 1, 2, ..., count (cache
    off, exactly once); "increasing": they only go up (cache on, exactly
    once); "final" checks only the last update (at least once).
"""
import collections
import json
import sys


def n_of(i):
    return i * 7 % 1000


def bad(i, every):
    return every and i % every == every - 1


def gen(n, partitions, topic, path, every=0, start=0):
    with open(path, "w") as f:
        for i in range(start, n):
            rec = {"topic": topic, "partition": i % partitions, "timestamp": 1700000000000 + i,
                   "key": "k%d" % i}
            if bad(i, every):
                rec["value"] = '{"id": %d, "n": "oops"}' % i
            else:
                rec["value"] = {"id": i, "n": n_of(i)}
            f.write(json.dumps(rec) + "\n")


def totals(n, groups, path, mode="final"):
    want = {}
    for i in range(n):
        g = "g%d" % (i % groups)
        c, s = want.get(g, (0, 0))
        want[g] = (c + 1, s + n_of(i))
    seen = collections.defaultdict(list)
    last = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            v = r["value"]
            seen[r["key"]].append(v["count"])
            last[r["key"]] = (v["count"], v["sum"])
    if set(last) != set(want):
        sys.exit("groups differ: missing %s, unexpected %s" % (sorted(set(want) - set(last))[:5],
                                                              sorted(set(last) - set(want))[:5]))
    for g, w in sorted(want.items()):
        if last[g] != w:
            sys.exit("group %s: final (count, sum) %r, want %r" % (g, last[g], w))
        counts = seen[g]
        if mode == "exact" and counts != list(range(1, w[0] + 1)):
            bad = [i for i, c in enumerate(counts) if c != i + 1][:3]
            sys.exit("group %s: counts not 1..%d once each (%d updates; first wrong at %s)"
                     % (g, w[0], len(counts), bad))
        if mode == "increasing" and any(b <= a for a, b in zip(counts, counts[1:])):
            sys.exit("group %s: counts go back: %s" % (g, [(a, b) for a, b in zip(counts, counts[1:])
                                                        if b <= a][:3]))
    print("ok: %d groups, final totals right (%s), %d updates" % (len(want), mode,
                                                                 sum(len(c) for c in seen.values())))


def genwords(n, partitions, topic, path):
    import random
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(300)})
    weights = [1.0 / (r + 1) for r in range(len(vocab))]
    with open(path, "w") as f:
        for i in range(n):
            words = rng.choices(vocab, weights, k=rng.randint(3, 12))
            rec = {"topic": topic, "partition": i % partitions, "timestamp": 1700000000000 + i,
                   "key": None, "value": " ".join(words)}
            f.write(json.dumps(rec) + "\n")


def wordcount(input_path, path, mode="increasing"):
    want = collections.Counter()
    with open(input_path) as f:
        for line in f:
            want.update(json.loads(line)["value"].split())
    seen = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            seen[r["key"]].append(r["value"])
    if set(seen) != set(want):
        sys.exit("words differ: missing %s, unexpected %s" % (sorted(set(want) - set(seen))[:5],
                                                             sorted(set(seen) - set(want))[:5]))
    over = 0
    for w, c in sorted(want.items()):
        counts = seen[w]
        if counts[-1] < c or (counts[-1] > c and mode != "at_least"):
            sys.exit("word %r: last count %d, want %d (%d updates)" % (w, counts[-1], c, len(counts)))
        over += counts[-1] - c
        if mode in ("increasing", "combined") and any(b <= a for a, b in zip(counts, counts[1:])):
            sys.exit("word %r: counts go back: %s" % (w, [(a, b) for a, b in zip(counts, counts[1:])
                                                        if b <= a][:3]))
    updates = sum(len(c) for c in seen.values())
    if mode == "combined" and updates >= sum(want.values()):
        sys.exit("%d updates for %d occurrences: nothing was combined" % (updates, sum(want.values())))
    print("ok: %d words, %d occurrences, final counts right (%s), %d updates, %d counted twice"
          % (len(want), sum(want.values()), mode, sum(len(c) for c in seen.values()), over))


def outputs(path):
    out = collections.Counter()
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            v = r["value"]
            if v["doubled"] != 2 * n_of(v["id"]):
                sys.exit("wrong value for id %d: %r" % (v["id"], v))
            if r["key"] != "k%d" % v["id"]:
                sys.exit("wrong key for id %d: %r" % (v["id"], r["key"]))
            out[v["id"]] += 1
    return out


def check(n, path, every, exact):
    out = outputs(path)
    want = [i for i in range(n) if not bad(i, every)]
    missing = [i for i in want if out[i] == 0]
    extra = [i for i in out if i >= n or bad(i, every)]
    dups = [i for i in want if out[i] > 1]
    if missing:
        sys.exit("%d ids missing, e.g. %s" % (len(missing), missing[:10]))
    if extra:
        sys.exit("%d unexpected ids, e.g. %s" % (len(extra), extra[:10]))
    if exact and dups:
        sys.exit("%d ids duplicated, e.g. %s" % (len(dups), dups[:10]))
    print("ok: %d ids, %d outputs, %d duplicates" % (len(want), sum(out.values()), len(dups)))


def check_dlq(n, path, every, source):
    seen = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            h = r.get("headers", {})
            i = int(r["key"][1:])
            if not bad(i, every):
                sys.exit("good record %d dead-lettered" % i)
            if r["value"] != '{"id": %d, "n": "oops"}' % i:
                sys.exit("dead-lettered value changed: %r" % r["value"])
            want = {"stoat.source.topic": source, "stoat.source.partition": None,
                    "stoat.source.offset": None, "stoat.source.timestamp": str(1700000000000 + i)}
            for k, v in want.items():
                if k not in h or (v is not None and h[k] != v):
                    sys.exit("record %d: header %s is %r" % (i, k, h.get(k)))
            if "stoat.error" not in h or "n" not in h["stoat.error"]:
                sys.exit("record %d: no useful stoat.error header: %r" % (i, h.get("stoat.error")))
            if r["timestamp"] != 1700000000000 + i:
                sys.exit("record %d: timestamp changed" % i)
            seen[i] = seen.get(i, 0) + 1
    want = [i for i in range(n) if bad(i, every)]
    missing = [i for i in want if i not in seen]
    if missing:
        sys.exit("%d bad records not dead-lettered, e.g. %s" % (len(missing), missing[:10]))
    print("ok: %d dead-lettered records with their headers" % len(seen))


def same(a, b):
    def load(p):
        c = collections.Counter()
        with open(p) as f:
            for line in f:
                r = json.loads(line)
                r.pop("offset", None)
                c[json.dumps(r, sort_keys=True)] += 1
        return c
    ca, cb = load(a), load(b)
    if ca != cb:
        only_a = list((ca - cb).elements())[:5]
        only_b = list((cb - ca).elements())[:5]
        sys.exit("outputs differ:\n only in %s: %s\n only in %s: %s" % (a, only_a, b, only_b))
    print("ok: %d records, same as the replay driver's" % sum(ca.values()))


def genwin(start, end, partitions, keys, step, t0, topic, path):
    import random
    with open(path, "w") as f:
        for i in range(start, end):
            rng = random.Random(i * 7919 + 13)
            r = rng.random()
            ts = t0 + i * step
            if r < 0.01:
                ts -= 6000
            elif r < 0.09:
                ts -= rng.randint(0, 1500)
            j = i % keys
            rec = {"topic": topic, "partition": j % partitions, "timestamp": max(ts, 0), "key": "u%d" % j,
                   "value": {"id": i}}
            f.write(json.dumps(rec) + "\n")


def simulate_windows(size, grace, inputs):
    """Per window (key, start): [count, largest timestamp]; per partition
    its final stream time; the number of records dropped as late."""
    stream_time = {}
    wins = {}
    part_of = {}
    late = 0
    for path in inputs:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                p, ts = r["partition"], r["timestamp"]
                st = max(stream_time.get(p, -1), ts)
                stream_time[p] = st
                start = ts - ts % size
                if start + size + grace <= st:
                    late += 1
                    continue
                w = wins.setdefault((r["key"], start), [0, -1])
                w[0] += 1
                w[1] = max(w[1], ts)
                part_of[(r["key"], start)] = p
    return wins, part_of, stream_time, late


def windows(size, grace, mode, out_path, inputs):
    wins, part_of, stream_time, late = simulate_windows(size, grace, inputs)
    seen = collections.defaultdict(list)
    with open(out_path) as f:
        for line in f:
            r = json.loads(line)
            k = r["key"]
            if k["end"] != k["start"] + size:
                sys.exit("window %r: not %d ms long" % (k, size))
            seen[(k["key"], k["start"])].append((r["value"], r["timestamp"]))
    closed = {w for w in wins if w[1] + size + grace <= stream_time[part_of[w]]}
    if mode == "final":
        want = closed
    else:
        want = set(wins)
    missing = sorted(want - set(seen))
    extra = sorted(set(seen) - want)
    if missing:
        sys.exit("%d of %d windows missing (%s), e.g. %s" % (len(missing), len(want), mode, missing[:5]))
    if extra:
        what = "windows still open (or never counted)" if mode == "final" else "windows never counted"
        sys.exit("%d %s in the output, e.g. %s" % (len(extra), what, [(w, seen[w]) for w in extra[:5]]))
    for w in sorted(want):
        count, ts = wins[w]
        got = seen[w]
        counts = [c for c, _ in got]
        if mode == "final":
            if len(got) != 1:
                sys.exit("window %r: %d final results %s, want one" % (w, len(got), got[:5]))
            if got[0] != (count, ts):
                sys.exit("window %r: final (count, timestamp) %r, want %r" % (w, got[0], (count, ts)))
        elif mode == "exact" and counts != list(range(1, count + 1)):
            sys.exit("window %r: counts %s, want 1..%d once each" % (w, counts[:12], count))
        elif counts[-1] != count or any(b <= a for a, b in zip(counts, counts[1:])):
            sys.exit("window %r: counts %s, want increasing up to %d" % (w, counts[:12], count))
    print("ok: %d windows (%d closed, %d open), %d outputs, %d late records dropped, right (%s)"
          % (len(wins), len(closed), len(wins) - len(closed), sum(len(v) for v in seen.values()), late, mode))


def gentable(keys, n, partitions, t0, table_topic, stream_topic, table_path, stream_path):
    with open(table_path, "w") as f:
        def put(j, value, dt):
            rec = {"topic": table_topic, "partition": j % partitions, "timestamp": t0 + j + dt, "key": "c%d" % j,
                   "value": value}
            f.write(json.dumps(rec) + "\n")
        for j in range(keys):
            if j % 10 == 7:
                continue
            if j % 5 == 1:
                put(j, "old%d" % j, 0)
            put(j, "t%d" % j, keys)
            if j % 10 == 3:
                put(j, None, 2 * keys)
    span = keys + keys // 10
    with open(stream_path, "w") as f:
        for i in range(n):
            j = i * 7 % span
            rec = {"topic": stream_topic, "partition": j % partitions, "timestamp": t0 + 100000 + i,
                   "key": "c%d" % j, "value": "s%d" % i}
            f.write(json.dumps(rec) + "\n")


def tablejoin(table_path, stream_path, out_path):
    table = {}
    with open(table_path) as f:
        for line in f:
            r = json.loads(line)
            table[r["key"]] = r["value"]
    want = {}
    with open(stream_path) as f:
        for line in f:
            r = json.loads(line)
            partner = table.get(r["key"])
            want[r["value"]] = (r["key"], "%s+%s" % (r["value"], "null" if partner is None else partner),
                                r["timestamp"])
    seen = collections.Counter()
    with open(out_path) as f:
        for line in f:
            r = json.loads(line)
            s = r["value"].split("+")[0]
            if s not in want:
                sys.exit("unexpected output %r" % r)
            if (r["key"], r["value"], r["timestamp"]) != want[s]:
                sys.exit("stream record %s: output (key, value, timestamp) %r, want %r"
                         % (s, (r["key"], r["value"], r["timestamp"]), want[s]))
            seen[s] += 1
    missing = [s for s in want if seen[s] == 0]
    dups = [s for s in want if seen[s] > 1]
    if missing:
        sys.exit("%d of %d stream records without output, e.g. %s" % (len(missing), len(want), missing[:10]))
    if dups:
        sys.exit("%d stream records with more than one output, e.g. %s" % (len(dups), [(s, seen[s]) for s in dups[:10]]))
    nulls = sum(1 for v in want.values() if v[1].endswith("+null"))
    print("ok: %d stream records joined exactly once (%d with a table value, %d null)"
          % (len(want), len(want) - nulls, nulls))


def genstreams(n, keys, partitions, t0, left, right, left_path, right_path):
    import random
    for topic, prefix, shift, path in ((left, "l", 0, left_path), (right, "r", 700, right_path)):
        rng = random.Random(prefix)
        with open(path, "w") as f:
            for i in range(n):
                j = i % keys
                rec = {"topic": topic, "partition": j % partitions,
                       "timestamp": t0 + i * 40000 // n + shift + rng.randint(-300, 300), "key": "u%d" % j,
                       "value": "%s%d" % (prefix, i)}
                f.write(json.dumps(rec) + "\n")


def streamjoin(window, left_path, right_path, out_path):
    sides = []
    for path in (left_path, right_path):
        by_key = collections.defaultdict(list)
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                by_key[r["key"]].append((r["timestamp"], r["value"]))
        sides.append(by_key)
    want = {}
    for key, ls in sides[0].items():
        for tl, vl in ls:
            for tr, vr in sides[1].get(key, ()):
                if abs(tl - tr) <= window:
                    want[(vl, vr)] = (key, max(tl, tr))
    seen = collections.Counter()
    with open(out_path) as f:
        for line in f:
            r = json.loads(line)
            pair = tuple(r["value"].split("+"))
            if pair not in want:
                sys.exit("output %r is no pair within %d ms" % (r, window))
            if (r["key"], r["timestamp"]) != want[pair]:
                sys.exit("pair %s: (key, timestamp) %r, want %r" % (pair, (r["key"], r["timestamp"]), want[pair]))
            seen[pair] += 1
    missing = [p for p in want if seen[p] == 0]
    dups = [p for p in want if seen[p] > 1]
    if missing:
        sys.exit("%d of %d pairs missing, e.g. %s" % (len(missing), len(want), sorted(missing)[:10]))
    if dups:
        sys.exit("%d pairs more than once, e.g. %s" % (len(dups), [(p, seen[p]) for p in sorted(dups)[:10]]))
    per = collections.Counter()
    for vl, _ in want:
        per[vl] += 1
    n = sum(len(v) for v in sides[0].values())
    print("ok: %d pairs exactly once (%d left records: %d without a partner, at most %d partners)"
          % (len(want), n, n - len(per), max(per.values()) if per else 0))


def murmur2(data):
    """Kafka's Utils.murmur2 (seed 0x9747b28c) as an unsigned 32-bit int."""
    m, r = 0x5BD1E995, 24
    n = len(data)
    h = (0x9747B28C ^ n) & 0xFFFFFFFF
    for i in range(0, n - n % 4, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    rest = n % 4
    tail = n - rest
    if rest == 3:
        h ^= data[tail + 2] << 16
    if rest >= 2:
        h ^= data[tail + 1] << 8
    if rest >= 1:
        h ^= data[tail]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


# Kafka's UtilsTest: murmur2 of these strings, as signed Java ints.
for text, want in (("21", -973932308), ("foobar", -790332482), ("a-little-bit-long-string", -985981536),
                   ("a-little-bit-longer-string", -1486304829), ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971)):
    got = murmur2(text.encode())
    assert (got - (1 << 32) if got >= 1 << 31 else got) == want, text


def partitions(count, path):
    """Records with id % 10 == 9 named partition 3; the others none."""
    seen = 0
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            i = r["value"]["id"]
            want = 3 if i % 10 == 9 else (murmur2(r["key"].encode()) & 0x7FFFFFFF) % count
            if r["partition"] != want:
                sys.exit("record %d (key %r) is in partition %d, not %d" % (i, r["key"], r["partition"], want))
            seen += 1
    if seen != 100:
        sys.exit("%d records, not 100" % seen)
    print("ok: 100 records, each in the partition of its key (or the one it named)")


def main(argv):
    cmd = argv[1]
    if cmd == "gen":
        gen(int(argv[2]), int(argv[3]), argv[4], argv[5], int(argv[6]) if len(argv) > 6 else 0)
    elif cmd == "genrange":
        gen(int(argv[3]), int(argv[4]), argv[5], argv[6], 0, int(argv[2]))
    elif cmd == "genwords":
        genwords(int(argv[2]), int(argv[3]), argv[4], argv[5])
    elif cmd == "wordcount":
        wordcount(argv[2], argv[3], argv[4] if len(argv) > 4 else "increasing")
    elif cmd == "totals":
        totals(int(argv[2]), int(argv[3]), argv[4], argv[5] if len(argv) > 5 else "final")
    elif cmd in ("exactly", "at_least"):
        check(int(argv[2]), argv[3], int(argv[4]) if len(argv) > 4 else 0, cmd == "exactly")
    elif cmd == "dlq":
        check_dlq(int(argv[2]), argv[3], int(argv[4]), argv[5])
    elif cmd == "partitions":
        partitions(int(argv[2]), argv[3])
    elif cmd == "genwin":
        genwin(*[int(a) for a in argv[2:8]], argv[8], argv[9])
    elif cmd == "windows":
        windows(int(argv[2]), int(argv[3]), argv[4], argv[5], argv[6:])
    elif cmd == "gentable":
        gentable(*[int(a) for a in argv[2:6]], *argv[6:10])
    elif cmd == "tablejoin":
        tablejoin(argv[2], argv[3], argv[4])
    elif cmd == "genstreams":
        genstreams(*[int(a) for a in argv[2:6]], *argv[6:10])
    elif cmd == "streamjoin":
        streamjoin(int(argv[2]), argv[3], argv[4], argv[5])
    elif cmd == "same":
        same(argv[2], argv[3])
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
