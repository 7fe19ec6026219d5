#!/usr/bin/env python3
"""Prints one line per row of a results.json: kernel, dtype, shape, plan, gpu_graph µs, TB/s."""
import json
import sys

doc = json.load(open(sys.argv[1]))
c = (doc["ceilings"].get("copy") or {}).get("phases", {}).get("gpu_graph", {})
print("copy ceiling %.2f TB/s" % c["tbps"] if c.get("available") else "no copy ceiling")
for r in doc["rows"]:
    ph = r["phases"].get("gpu_graph") or {}
    if not ph.get("available"):
        ph = r["phases"].get("gpu") or {}
    t = "%8.2f us %5.2f TB/s %4.2f" % (ph["median_us"], ph["tbps"], ph.get("fraction_of_ceiling") or 0) \
        if r["state"] == "measured" else r["state"] + " " + str(r.get("error"))[:80]
    print("%-14s %-5s %7dx%-7d %-40s %s" % (r["kernel"], r["dtype"], r["M"], r["N"], r["plan"], t))
