#!/usr/bin/env python3
"""The checks of tests/kafka/avro_registry (format avro through a real registry).

gen URL SUBJECT_PREFIX N TOPIC FILE
    registers tests/kafka/avro_registry.avsc (v1) under <TOPIC>-value and a
    v2 (a field added, with a default) under <SUBJECT_PREFIX>-v2-value, and
    writes N replay-format records for TOPIC, reading i keyed r<i> with
    value i % 20, note "n<i>" for odd i: framed with v1's id, except every
    fifth (i % 5 == 4), framed with v2's and written by its schema.
check URL N OUTPUT DLQ
    OUTPUT (a dump of the output topic) holds exactly once each v1 reading
    with value > 10, its value doubled, every frame naming the id the
    registry has for <output topic>-value, decoded with the schema the
    registry gives for that id (as a Python consumer using the registry
    would); DLQ holds exactly the v2 readings, unchanged, each with a
    stoat.error header naming v2's id.
"""
import base64
import io
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "registry"))
from avrotest import (ROOT, avro_bytes, fail, fastavro, frame, payload, register, registry,  # noqa: E402
                      schema_of, unframe)

V1 = json.load(open(os.path.join(ROOT, "tests", "kafka", "avro_registry.avsc")))
V2 = dict(V1, fields=V1["fields"] + [{"name": "unit", "type": "string", "default": "C"}])


def reading(i):
    return {"id": i, "sensor": "s%d" % (i % 7), "value": float(i % 20), "note": "n%d" % i if i % 2 else None}


def is_v2(i):
    return i % 5 == 4


def gen(url, prefix, n, topic, path):
    v1_id = register(url, topic + "-value", V1)
    v2_id = register(url, prefix + "-v2-value", V2)
    s1, s2 = fastavro.parse_schema(V1), fastavro.parse_schema(V2)
    with open(path, "w") as f:
        for i in range(n):
            body = frame(v2_id, avro_bytes(s2, dict(reading(i), unit="K"))) if is_v2(i) else \
                frame(v1_id, avro_bytes(s1, reading(i)))
            f.write(json.dumps({"topic": topic, "partition": i % 2, "timestamp": 1700000000000 + i,
                                "key": "r%d" % i, "value_base64": base64.b64encode(body).decode()}) + "\n")
    with open(path + ".ids", "w") as f:
        json.dump({"v1": v1_id, "v2": v2_id}, f)
    print("ok: %d records, v1 id %d, v2 id %d" % (n, v1_id, v2_id))


def check(url, n, out_path, dlq_path):
    ids = json.load(open(out_path.replace(".out.jsonl", ".in.jsonl") + ".ids"))
    outs = [json.loads(l) for l in open(out_path) if l.strip()]
    if not outs:
        fail("no output")
    topic = outs[0]["topic"]
    out_id = registry(url, "/subjects/%s-value/versions/latest" % topic)["id"]
    seen = {}
    for r in outs:
        sid, body = unframe(payload(r))
        if sid != out_id:
            fail("record %s framed with id %d, not %d (the registry's for %s-value)" % (r["key"], sid, out_id, topic))
        v = fastavro.schemaless_reader(io.BytesIO(body), schema_of(url, sid), None)
        i = int(r["key"][1:])
        want = dict(reading(i), value=2 * reading(i)["value"])
        if is_v2(i) or reading(i)["value"] <= 10.0:
            fail("record %d should not be in the output: %r" % (i, v))
        if v != want:
            fail("record %d: %r, expected %r" % (i, v, want))
        seen[i] = seen.get(i, 0) + 1
    want = [i for i in range(n) if not is_v2(i) and reading(i)["value"] > 10.0]
    missing = [i for i in want if i not in seen]
    dup = [i for i, c in seen.items() if c > 1]
    if missing or dup:
        fail("missing %s, duplicated %s" % (missing[:10], dup[:10]))
    dl = {}
    for r in (json.loads(l) for l in open(dlq_path) if l.strip()):
        i = int(r["key"][1:])
        sid, _ = unframe(payload(r))
        err = r.get("headers", {}).get("stoat.error") or ""
        if not is_v2(i) or sid != ids["v2"] or ("schema id %d" % ids["v2"]) not in err:
            fail("dead-lettered record %d (id %d): error %r" % (i, sid, err))
        dl[i] = dl.get(i, 0) + 1
    want_dl = [i for i in range(n) if is_v2(i)]
    if sorted(dl) != want_dl:
        fail("dead-lettered %d records, expected the %d v2 ones" % (len(dl), len(want_dl)))
    print("ok: %d outputs with id %d, %d v2 records dead-lettered" % (len(seen), out_id, len(dl)))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
    elif sys.argv[1] == "check":
        check(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        sys.exit(__doc__)
