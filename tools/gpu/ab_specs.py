#!/usr/bin/env python3
"""The table of session.sh's abspecs stage: runs named RUN-SIDE-SPEC (RUN the order number,
SIDE the build's label, SPEC kernel-dtype-MxN-plan) under one folder, each holding the tool's
results.json; per spec, each side's median of its runs' medians (gpu_graph) and its ratio to
the first side listed; the plans where the sides' differ (a spec of plan `auto` is the planner's
pick on each side).
usage: ab_specs.py FOLDER SIDE1 SIDE2 ..."""
import glob
import json
import os
import statistics
import sys

folder, sides = sys.argv[1], sys.argv[2:]
times, plans = {}, {}
for path in glob.glob(os.path.join(folder, "*", "results.json")):
    run, side, spec = os.path.basename(os.path.dirname(path)).split("-", 2)
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        print("ab_specs.py: %s: %s (no rows from this run)" % (path, e), file=sys.stderr)
        continue
    for r in doc["rows"]:
        ph = (r.get("phases") or {}).get("gpu_graph") or {}
        if r.get("state") != "measured" or not ph.get("available"):
            continue
        times.setdefault(spec, {}).setdefault(side, []).append(ph["median_us"])
        plans.setdefault(spec, {})[side] = r["plan"]
print("| spec | plan | " + " | ".join("%s µs" % s for s in sides) + " | " +
      " | ".join("%s/%s" % (s, sides[0]) for s in sides[1:]) + " |")
print("|---|---|" + "---:|" * (2 * len(sides) - 1))
for spec in sorted(times):
    med = {s: statistics.median(v) for s, v in times[spec].items()}
    pl = plans[spec]
    plan = pl.get(sides[-1]) or next(iter(pl.values()))
    if len(set(pl.values())) > 1:
        plan = "; ".join("%s %s" % (s, pl[s]) for s in sides if s in pl)
    cells = ["%.2f" % med[s] if s in med else "-" for s in sides]
    ratios = ["%.3f" % (med[s] / med[sides[0]]) if s in med and sides[0] in med else "-"
              for s in sides[1:]]
    print("| %s | %s | %s | %s |" % (spec, plan, " | ".join(cells), " | ".join(ratios)))
