#!/usr/bin/env python3
"""Input for the word-count benchmark: lines of text with Zipf-distributed words.

usage: wordcount_gen.py WORDS VOCAB PARTITIONS TOPIC OUT.jsonl COUNTS [SEED]

Writes replay-format records (docs/replay-format.md) to OUT.jsonl, one line of
text per record: topic TOPIC, partition i % PARTITIONS (so the app's `load`
command spreads them round-robin), a fixed timestamp (2026-01-01T00:00:00Z
plus i ms), no key (null), the value a string.  Deterministic: the same
arguments give the same bytes.

- The vocabulary: VOCAB distinct words of 2 to 10 lower-case ASCII letters,
  drawn with a fixed seed.
- The words: every vocabulary word once (so the app sees exactly VOCAB
  distinct keys) plus WORDS - VOCAB words drawn from a Zipf distribution
  (the word of rank r with weight 1 / r, as in natural language), shuffled.
- The lines: 5 to 15 words each (10 on average), the first word capitalised,
  a comma now and then, a full stop at the end.  bench/kafka/wordcount.stoat
  lower-cases and splits them (`split_words(lower(line))`, words longer than
  one letter), which gives back exactly the generated words.

COUNTS gets the true count of every word, one "WORD COUNT" line each, sorted
by word: what the app's last output record for each word must say.  Prints
"LINES WORDS DISTINCT" to stdout.
"""
import itertools
import random
import sys

TS0 = 1767225600000  # 2026-01-01T00:00:00Z: in the past, so no broker limit on future timestamps applies
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def vocabulary(rng, n):
    words, seen = [], set()
    while len(words) < n:
        w = "".join(rng.choices(LETTERS, k=rng.randint(2, 10)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def main():
    if len(sys.argv) not in (7, 8):
        sys.exit(__doc__.split("\n\n")[1])
    total, vocab, partitions = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    topic, path, counts_path = sys.argv[4], sys.argv[5], sys.argv[6]
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    if not 0 < vocab <= total or partitions < 1:
        sys.exit("wordcount_gen.py: need 0 < VOCAB <= WORDS and PARTITIONS >= 1")
    rng = random.Random(seed)
    words = vocabulary(rng, vocab)
    cum = list(itertools.accumulate(1.0 / r for r in range(1, vocab + 1)))
    seq = list(range(vocab))
    seq.extend(rng.choices(range(vocab), cum_weights=cum, k=total - vocab))
    rng.shuffle(seq)

    counts = [0] * vocab
    for i in seq:
        counts[i] += 1
    prefix = '{"topic":"%s","partition":' % topic
    lines = 0
    pos = 0
    with open(path, "w", encoding="ascii", buffering=1 << 20) as f:
        while pos < total:
            n = min(rng.randint(5, 15), total - pos)
            ws = [words[i] for i in seq[pos:pos + n]]
            pos += n
            ws[0] = ws[0].capitalize()
            for j in range(1, n - 1):
                if rng.random() < 0.08:
                    ws[j] += ","
            text = " ".join(ws) + "."
            f.write('%s%d,"timestamp":%d,"value":"%s"}\n' % (prefix, lines % partitions, TS0 + lines, text))
            lines += 1
    with open(counts_path, "w", encoding="ascii") as f:
        for w, c in sorted(zip(words, counts)):
            f.write("%s %d\n" % (w, c))
    print(lines, total, vocab)


if __name__ == "__main__":
    main()
