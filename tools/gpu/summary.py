#!/usr/bin/env python3
"""Prints one line per row of a results.json: kernel, dtype, shape, plan, µs (gpu_graph, else gpu,
else e2e: the cpu backend's host wall time), TB/s."""
import json
import sys

doc = json.load(open(sys.argv[1]))
c = (doc["ceilings"].get("copy") or {}).get("phases", {}).get("gpu_graph", {})
print("copy ceiling %.2f TB/s" % c["tbps"] if c.get("available") else "no copy ceiling")
for r in doc["rows"]:
    # the first timed phase of: CUDA-graph GPU time, GPU time, host wall (the cpu backend's)
    ph = {}
    for name in ("gpu_graph", "gpu", "e2e"):
        ph = r["phases"].get(name) or {}
        if ph.get("available"):
            break
    t = "%8.2f us %5.2f TB/s %4.2f" % (ph["median_us"], ph["tbps"], ph.get("fraction_of_ceiling") or 0) \
        if r["state"] == "measured" else r["state"] + " " + str(r.get("error"))[:80]
    print("%-14s %-5s %7dx%-7d %-40s %s" % (r["kernel"], r["dtype"], r["M"], r["N"], r["plan"], t))
