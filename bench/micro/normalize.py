#!/usr/bin/env python3
"""Re-serialises JSON lines so that two outputs can be compared.

usage: normalize.py < IN.jsonl > OUT.jsonl

Each line is parsed and written back with Python's json module: compact,
keys in their original order, non-ASCII as is, and every float in the
shortest form that reads back to the same double.  Only the spelling of
numbers changes (jansson writes reals with "%.17g"); a line that is not
JSON, or a difference in any value, still shows after normalising.
"""
import json
import sys

enc = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
out = sys.stdout
for line in sys.stdin:
    out.write(enc(json.loads(line)))
    out.write("\n")
