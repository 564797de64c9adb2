"""Prints, for every bundle under a directory (sorted by name), its manifest
version and each kernel's ptxas resources, one line per kernel."""
import json
import os
import sys

root = sys.argv[1]
for name in sorted(os.listdir(root)):
    path = os.path.join(root, name, "manifest.json")
    if not os.path.exists(path):
        continue
    manifest = json.load(open(path))
    for kernel in manifest["kernels"]:
        print(f"{name} v{manifest['version']} {kernel['name']}: "
              f"spill_bytes {kernel.get('spill_bytes')} "
              f"registers {kernel.get('registers')}")
