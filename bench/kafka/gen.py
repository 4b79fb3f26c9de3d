#!/usr/bin/env python3
"""Input for the Kafka benchmark: bench/micro/gen.py's records, spread over partitions.

usage: gen.py N PARTITIONS TOPIC OUT.jsonl [SEED]

Runs bench/micro/gen.py's generator (the same ~1 KiB JSON `Event` values,
keys and timestamps, byte for byte) and rewrites each line's envelope from
{"topic":"events", ...} to {"topic":TOPIC,"partition":i % PARTITIONS, ...},
so that the app's `load` command spreads the records round-robin over the
partitions.  Prints to stdout the number of records bench/kafka/filter_map.stoat
keeps (`amount >= 100.0`), read from each generated line: the expected
output count of the filter+map peers.
"""
import importlib.util
import os
import re
import sys

AMOUNT = re.compile(r'"amount":([-0-9.eE+]+)')


class Rewriter:
    """Stands in for sys.stdout while gen.main() runs."""

    def __init__(self, out, topic, partitions):
        self.out = out
        self.partitions = partitions
        self.old = '{"topic":"events",'
        self.topic = '{"topic":"%s","partition":' % topic
        self.i = 0
        self.kept = 0

    def write(self, s):
        if s == "\n":
            self.out.write(s)
            return
        assert s.startswith(self.old), s[:40]
        m = AMOUNT.search(s)
        if float(m.group(1)) >= 100.0:
            self.kept += 1
        self.out.write("%s%d,%s" % (self.topic, self.i % self.partitions, s[len(self.old):]))
        self.i += 1


def main():
    n, partitions, topic, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    seed = sys.argv[5] if len(sys.argv) > 5 else "1"
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("micro_gen", os.path.join(here, "..", "micro", "gen.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(path, "w", encoding="utf-8", buffering=1 << 20) as f:
        w = Rewriter(f, topic, partitions)
        sys.argv = ["gen.py", str(n), seed]
        saved, sys.stdout = sys.stdout, w
        try:
            gen.main()
        finally:
            sys.stdout = saved
    assert w.i == n
    print(w.kept)


if __name__ == "__main__":
    main()
