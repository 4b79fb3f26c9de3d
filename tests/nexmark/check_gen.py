#!/usr/bin/env python3
"""Checks nexmark-gen's events against the Nexmark model, worked out here
from the reference generator's rules (bench/nexmark/nexmark.h), not from
the generator's code.

usage: check_gen.py model FILE EVENTS PARTITIONS   (a replay file of EVENTS events, rate 10000, base 86400000)
"""
import json
import sys

BASE, DELAY_US = 86400000, 100.0  # --base-time default, 1e6 / 10000 events/s
FIRST_NAMES = "Peter,Paul,Luke,John,Saul,Vicky,Kate,Julie,Sarah,Deiter,Walter".split(",")
LAST_NAMES = "Shultz,Abrams,Spencer,White,Bartels,Walton,Smith,Jones,Noris".split(",")
CITIES = "Phoenix,Los Angeles,San Francisco,Boise,Portland,Bend,Redmond,Seattle,Kent,Cheyenne".split(",")
STATES = "AZ,CA,ID,OR,WA,WY".split(",")
HOT_CHANNELS = ["Google", "Facebook", "Baidu", "Apple"]
failures = []


def fail(msg):
    failures.append(msg)
    if len(failures) > 20:
        report()


def report():
    for f in failures[:20]:
        print("FAIL:", f)
    print("%d failures" % len(failures))
    sys.exit(1)


def murmur2(data):
    """Kafka's Utils.murmur2."""
    m, r = 0x5BD1E995, 24
    h = (0x9747B28C ^ len(data)) & 0xFFFFFFFF
    n4 = len(data) // 4
    for i in range(n4):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    rest = data[4 * n4:]
    if len(rest) == 3:
        h ^= rest[2] << 16
    if len(rest) >= 2:
        h ^= rest[1] << 8
    if len(rest) >= 1:
        h ^= rest[0]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


def last_person(i):
    return i // 50


def last_auction(i):
    epoch, off = divmod(i, 50)
    if off < 1:
        return (epoch - 1) * 3 + 2
    if off >= 4:
        return epoch * 3 + 2
    return epoch * 3 + off - 1


def in_range(name, v, lo, hi, where):
    if not lo <= v <= hi:
        fail("%s: %s %r not in [%r, %r]" % (where, name, v, lo, hi))


def check_extra(where, extra, current, average):
    want = average - current
    delta = int(want * 0.2 + 0.5)
    in_range("extra length", len(extra), want - delta, want + delta - (1 if delta else 0), where)
    for ch in extra:
        if not ("H" <= ch <= "z"):
            fail("%s: extra has %r" % (where, ch))
            break


def model(path, events, partitions):
    counts = {"person": 0, "auction": 0, "bid": 0}
    hot_seller = hot_auction = hot_bidder = hot_channel = 0
    lines = open(path).read().splitlines()
    if len(lines) != events:
        fail("%d lines, expected %d" % (len(lines), events))
    for i, line in enumerate(lines):
        rec = json.loads(line)
        where = "event %d" % i
        kind = "person" if i % 50 == 0 else "auction" if i % 50 < 4 else "bid"
        if rec["topic"] != "nexmark-" + kind:
            fail("%s: topic %s, expected nexmark-%s" % (where, rec["topic"], kind))
            continue
        counts[kind] += 1
        v, key = rec["value"], rec["key"]
        ts = BASE + int(i * DELAY_US) // 1000
        if rec["timestamp"] != ts or v["dateTime"] != ts:
            fail("%s: time %s/%s, expected %d" % (where, rec["timestamp"], v["dateTime"], ts))
        part = (murmur2(key.encode()) & 0x7FFFFFFF) % partitions  # Utils.toPositive(murmur2) % n
        if rec["partition"] != part:
            fail("%s: partition %d, expected %d" % (where, rec["partition"], part))
        people = last_person(i) + 1  # people generated so far, this one included
        if kind == "person":
            want = list(v) == ["id", "name", "emailAddress", "creditCard", "city", "state", "dateTime", "extra"]
            if not want:
                fail("%s: person fields %s" % (where, list(v)))
            if v["id"] != 1000 + i // 50 or key != str(v["id"]):
                fail("%s: person id %s key %s" % (where, v["id"], key))
            first, _, last = v["name"].partition(" ")
            if first not in FIRST_NAMES or last not in LAST_NAMES:
                fail("%s: name %r" % (where, v["name"]))
            user, _, host = v["emailAddress"].partition("@")
            if not (len(user) <= 6 and host.endswith(".com") and len(host) - 4 <= 4):  # all spaces trim to ""
                fail("%s: email %r" % (where, v["emailAddress"]))
            cc = v["creditCard"].split(" ")
            if len(cc) != 4 or any(len(p) != 4 or not p.isdigit() for p in cc):
                fail("%s: credit card %r" % (where, v["creditCard"]))
            if v["city"] not in CITIES or v["state"] not in STATES:
                fail("%s: city/state %r %r" % (where, v["city"], v["state"]))
            current = 8 + sum(len(v[f]) for f in ("name", "emailAddress", "creditCard", "city", "state"))
            check_extra(where, v["extra"], current, 200)
        elif kind == "auction":
            want = ["id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires", "seller",
                    "category", "extra"]
            if list(v) != want:
                fail("%s: auction fields %s" % (where, list(v)))
            if v["id"] != 1000 + last_auction(i) or key != str(v["id"]):
                fail("%s: auction id %s key %s" % (where, v["id"], key))
            hot = (last_person(i) // 100) * 100
            if v["seller"] - 1000 == hot:
                hot_seller += 1
            else:
                active = min(people, 1000)
                in_range("seller", v["seller"] - 1000, people - active, people - active + active + 10 - 1, where)
            in_range("category", v["category"], 10, 14, where)
            in_range("initialBid", v["initialBid"], 100, 100000000, where)
            in_range("reserve", v["reserve"] - v["initialBid"], 100, 100000000, where)
            # Lasts 1 to 2 * (the time 1666 events later - now) ms.
            horizon = BASE + int((i + 100 * 50 // 3) * DELAY_US) // 1000 - ts
            in_range("length", v["expires"] - ts, 1, max(2 * horizon, 1), where)
            in_range("itemName length", len(v["itemName"]), 0, 19, where)
            in_range("description length", len(v["description"]), 0, 99, where)
            current = 8 + len(v["itemName"]) + len(v["description"]) + 40
            check_extra(where, v["extra"], current, 500)
        else:
            if list(v) != ["auction", "bidder", "price", "channel", "url", "dateTime", "extra"]:
                fail("%s: bid fields %s" % (where, list(v)))
            if key != str(v["auction"]):
                fail("%s: key %s, auction %s" % (where, key, v["auction"]))
            la = last_auction(i)
            if v["auction"] - 1000 == (la // 100) * 100:
                hot_auction += 1
            else:
                in_range("auction", v["auction"] - 1000, max(la - 100, 0), la + 10, where)
            bidder = v["bidder"] - 2000  # the reference adds 1000 twice
            if bidder == (last_person(i) // 100) * 100 + 1:
                hot_bidder += 1
            else:
                active = min(people, 1000)
                in_range("bidder", bidder, people - active, people + 10 - 1, where)
            in_range("price", v["price"], 100, 100000000, where)
            url = v["url"]
            if not (url.startswith("https://www.nexmark.com/") and "/item.htm?query=1" in url):
                fail("%s: url %r" % (where, url))
            if v["channel"] in HOT_CHANNELS:
                hot_channel += 1
                if "&channel_id=" in url:
                    fail("%s: a hot channel's url %r" % (where, url))
            elif not (v["channel"].startswith("channel-") and 0 <= int(v["channel"][8:]) < 10000):
                fail("%s: channel %r" % (where, v["channel"]))
            check_extra(where, v["extra"], 32, 100)
    # The mix, and the hot shares the ratios give (a fixed seed: no flakiness; generous bounds).
    n = events
    if counts != {"person": (n + 49) // 50, "auction": sum(1 for i in range(n) if 1 <= i % 50 <= 3),
                  "bid": sum(1 for i in range(n) if i % 50 >= 4)}:
        fail("counts %s" % counts)
    def share(name, got, total, p):
        if total and abs(got / total - p) > 0.03:
            fail("%s share %.3f, expected about %.3f" % (name, got / total, p))
    # A random pick can land on the hot id too, so the shares run a little above the ratios' (3/4, 1/2, 3/4, 1/2).
    share("hot seller", hot_seller, counts["auction"], 0.75)
    share("hot auction", hot_auction, counts["bid"], 0.5)
    share("hot bidder", hot_bidder, counts["bid"], 0.75)
    share("hot channel", hot_channel, counts["bid"], 0.5)
    if failures:
        report()
    print("ok: %d events %s, hot seller %d, hot auction %d, hot bidder %d, hot channel %d" %
          (n, counts, hot_seller, hot_auction, hot_bidder, hot_channel))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "model":
        model(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        print(__doc__)
        sys.exit(2)
