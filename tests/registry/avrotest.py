"""What the registry tests share: fastavro (from the cache, scripts/pydeps),
requests to the registry's Confluent API, and Confluent's wire format.
Imported by tests/registry/avro_wire and tests/kafka/avro_registry_check.py."""
import base64
import io
import json
import os
import struct
import subprocess
import sys
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, subprocess.run([os.path.join(ROOT, "scripts", "pydeps")], check=True, capture_output=True,
                                  text=True, env=dict(os.environ, PYTHON=sys.executable)).stdout.strip())
import fastavro  # noqa: E402,F401
from fastavro.schema import to_parsing_canonical_form  # noqa: E402,F401

CONTENT = "application/vnd.schemaregistry.v1+json"


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def registry(url, path, body=None):
    """One request to the registry's Confluent API; the JSON answer."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method="POST" if data else "GET",
                                 headers={"Content-Type": CONTENT, "Accept": CONTENT})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        fail("registry %s: HTTP %d %s" % (path, e.code, e.read()[:300]))


def register(url, subject, schema):
    """The id of schema (a JSON value) registered under subject."""
    return registry(url, "/subjects/%s/versions" % subject, {"schema": json.dumps(schema)})["id"]


def schema_of(url, schema_id):
    """The parsed schema the registry has for an id."""
    return fastavro.parse_schema(json.loads(registry(url, "/schemas/ids/%d" % schema_id)["schema"]))


def from_json(v):
    """tests/avro records as fastavro takes them ({"$b64": ...} -> bytes)."""
    if isinstance(v, dict):
        if set(v) == {"$b64"}:
            return base64.b64decode(v["$b64"])
        return {k: from_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [from_json(x) for x in v]
    return v


def avro_bytes(schema, record):
    b = io.BytesIO()
    fastavro.schemaless_writer(b, schema, record)
    return b.getvalue()


def frame(schema_id, body):
    """Confluent's wire format: 0, the id (4 bytes, big-endian), the Avro binary."""
    return b"\0" + struct.pack(">I", schema_id) + body


def unframe(data):
    """(id, Avro binary) of a framed value; fails on anything else."""
    if len(data) < 5 or data[0] != 0:
        fail("not in the wire format: %s" % data[:16].hex())
    return struct.unpack(">I", data[1:5])[0], data[5:]


def payload(rec, role="value"):
    """A replay-format record's key or value bytes (a string when they happen to be UTF-8)."""
    if role + "_base64" in rec:
        return base64.b64decode(rec[role + "_base64"])
    return rec[role].encode()
