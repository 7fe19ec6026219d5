#!/usr/bin/env python3
"""The cost model's bias by kind of plan: for every measured row of `rowreduce bench`
results.json files, the measured gpu-phase median over the time the model predicts for that
row's plan (`RR_PLAN_TRACE=1 rowreduce emit --layout PLAN`), then min/median/max of that ratio
per storage and C = 1 / C > 1. A ratio above 1: the model is optimistic about that kind of plan.
Usage (from the repo root, after a build): python3 bench/lab/model_bias.py [--rows] FILE.json...
"""
import json
import os
import re
import statistics
import subprocess
import sys

TOOL = os.environ.get("ROWREDUCE", "build/rowreduce")
args = [a for a in sys.argv[1:] if a != "--rows"]
show_rows = "--rows" in sys.argv
ratios = {}
for path in args:
    for r in json.load(open(path))["rows"]:
        phase = r.get("phases", {}).get("gpu") or {}
        if r.get("state") != "measured" or not r.get("plan") or not phase.get("available"):
            continue
        shape = "%dx%d" % (r["M"], r["N"])
        p = subprocess.run([TOOL, "emit", "--kernel", r["kernel"], "--shape", shape, "--dtype", r["dtype"],
                            "--backend", "cuda", "--arch", "sm_90", "--layout", r["plan"]],
                           env=dict(os.environ, RR_PLAN_TRACE="1"), capture_output=True, text=True)
        m = re.search(r"^\*\s+([0-9.]+)", p.stderr, re.M)
        if not m:
            continue
        ratio = phase["median_us"] / float(m.group(1))
        storage = re.search(r"S=(\w+)", r["plan"]).group(1)
        clustered = int(re.search(r"C=(\d+)", r["plan"]).group(1)) > 1
        ratios.setdefault("%s C%s1" % (storage, ">" if clustered else "="), []).append(ratio)
        if show_rows:
            print("%.2f %s %s %s %s" % (ratio, r["kernel"], r["dtype"], shape, r["plan"]))
for kind, v in sorted(ratios.items()):
    v.sort()
    print("%-12s n=%3d  min %.2f  median %.2f  max %.2f" % (kind, len(v), v[0], statistics.median(v), v[-1]))
