#!/usr/bin/env python3
"""Deterministic generator of replay records for the filter+map micro-benchmark.

usage: gen.py N [SEED] > events.jsonl

Writes N JSON lines in the replay-driver input format (docs/replay-format.md),
topic "events", key = the user id, value = an Event of about 1 KiB: strings,
integers, floats, a nullable field, a nested object (device, with a nested
screen object) and two arrays.  `amount` is uniform in [0, 200), so the
benchmark's filter `amount >= 100.0` keeps about half of the records.
The same N and SEED always give the same bytes (Python's Mersenne Twister
with a fixed seed; no hash-order or time dependence).
"""
import json
import random
import sys

KINDS = ["view", "click", "add_to_cart", "purchase", "search", "share"]
COUNTRIES = ["DE", "FR", "GB", "US", "CA", "JP", "AU", "BR", "IN", "NL", "SE", "ES"]
DEVICES = [
    ("Android", "15", "Pixel 9 Pro", 1344, 2992),
    ("Android", "14", "Galaxy S24", 1080, 2340),
    ("iOS", "18.1", "iPhone 16", 1179, 2556),
    ("iOS", "17.6", "iPad Air", 1640, 2360),
    ("Windows", "11", "Desktop", 2560, 1440),
    ("macOS", "15.1", "MacBook Pro", 3024, 1964),
    ("Linux", "6.11", "ThinkPad X1", 1920, 1200),
]
AGENTS = [
    "Mozilla/5.0 (Linux; Android 15; Pixel 9 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.51",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
]
TAGS = ["new-customer", "returning", "promo", "winter-sale", "mobile-app", "newsletter",
        "ab-test-b", "gift", "express", "loyalty-gold", "café-partner", "bulk"]
WORDS = ("stoat ermine weasel ferret mink plush scarf winter coat hammock treats brush "
         "feeder enclosure gift wrap express delivery review rating comfy warm soft").split()
NOTES = ['customer said "great service"', "note: line one\nline two", "größe M, café au lait",
         "plain note", "tab\tseparated", ""]


def main():
    n = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rnd = random.Random(seed)
    out = sys.stdout
    t0 = 1796029454123
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    for i in range(n):
        user = "user-%05d" % rnd.randrange(100000)
        os_, ver, model, w, h = rnd.choice(DEVICES)
        words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(40, 60)))
        value = {
            "event_id": "evt-%09d" % i,
            "user_id": user,
            "session_id": "%032x" % rnd.getrandbits(128),
            "kind": rnd.choice(KINDS),
            "ts": t0 + i * 7,
            "amount": round(rnd.random() * 200.0, 2),
            "quantity": rnd.randrange(1, 10),
            "score": round(rnd.random(), 4),
            "country": rnd.choice(COUNTRIES),
            "url": "https://shop.example.com/products/%s-%s?ref=%s&page=%d"
                   % (rnd.choice(WORDS), rnd.choice(WORDS), rnd.choice(WORDS), rnd.randrange(1, 50)),
            "referrer": None if rnd.random() < 0.3 else "https://www.example.org/search?q=" + rnd.choice(WORDS),
            "user_agent": rnd.choice(AGENTS),
            "device": {"os": os_, "version": ver, "model": model,
                       "screen": {"width": w, "height": h, "dpr": rnd.choice([1.0, 2.0, 2.625, 3.0])}},
            "tags": rnd.sample(TAGS, rnd.randrange(0, 6)),
            "cart": [rnd.randrange(1000, 99999) for _ in range(rnd.randrange(0, 8))],
            "note": rnd.choice(NOTES),
            "description": words,
        }
        rec = {"topic": "events", "key": user, "timestamp": t0 + i * 7, "value": value}
        out.write(dumps(rec))
        out.write("\n")


if __name__ == "__main__":
    main()
