"""Prints a bundle manifest one top-level field per line, in compact JSON
with sorted keys, so that FileCheck can match whole entries."""
import json
import sys

manifest = json.load(open(sys.argv[1]))
for key in sorted(manifest):
    print(key, json.dumps(manifest[key], sort_keys=True))
