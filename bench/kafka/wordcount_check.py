#!/usr/bin/env python3
"""Checks a word-count run's output topic against the generator's true counts.

usage: wordcount_check.py DUMP.jsonl COUNTS

DUMP.jsonl is the output topic as the app's `dump` command writes it
(read_committed, replay-format lines: topic, partition, offset, key = the
word, value = its count); COUNTS is bench/kafka/wordcount_gen.py's
"WORD COUNT" file.  For every word the LAST record (highest offset in its
partition) must carry the true count.  A word's records must all be in one
partition (the sink partitions by key) and its counts must never go down
along the offsets.

Prints one line:

  records=R words=K exact=E over=O excess=X under=U missing=M extra=Z split=S
  decreasing=D ok=yes|dup|no

  exact    words whose last count is the true count
  over     words whose last count is higher (excess: the sum of the surplus),
           i.e. input records counted twice (allowed under at_least_once
           only: "dup")
  under    words whose last count is lower; missing: words with no record;
  extra    keys that are not vocabulary words; split: words in more than one
           partition; decreasing: words whose count went down
  ok       yes: every word exact and nothing else wrong; dup: the only
           deviations are over-counts; no: anything else
"""
import json
import sys


def main():
    dump_path, counts_path = sys.argv[1], sys.argv[2]
    true = {}
    with open(counts_path, encoding="ascii") as f:
        for line in f:
            w, c = line.split()
            true[w] = int(c)
    last = {}  # word -> (partition, offset, count)
    records = split = decreasing = 0
    bad_decreasing = set()
    with open(dump_path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            records += 1
            w, p, o, c = r["key"], r["partition"], r["offset"], r["value"]
            prev = last.get(w)
            if prev is None:
                last[w] = (p, o, c)
                continue
            if prev[0] != p:
                split += 1
                if o > prev[1]:
                    last[w] = (p, o, c)
                continue
            if o > prev[1]:
                if c < prev[2]:
                    bad_decreasing.add(w)
                last[w] = (p, o, c)
            elif c > prev[2]:
                bad_decreasing.add(w)
    decreasing = len(bad_decreasing)
    exact = over = under = excess = 0
    for w, c in true.items():
        got = last.get(w)
        if got is None:
            continue
        if got[2] == c:
            exact += 1
        elif got[2] > c:
            over += 1
            excess += got[2] - c
        else:
            under += 1
    missing = sum(1 for w in true if w not in last)
    extra = sum(1 for w in last if w not in true)
    if exact == len(true) and not (extra or split or decreasing):
        ok = "yes"
    elif not (under or missing or extra or split or decreasing):
        ok = "dup"
    else:
        ok = "no"
    print("records=%d words=%d exact=%d over=%d excess=%d under=%d missing=%d extra=%d split=%d decreasing=%d ok=%s"
          % (records, len(last), exact, over, excess, under, missing, extra, split, decreasing, ok))


if __name__ == "__main__":
    main()
