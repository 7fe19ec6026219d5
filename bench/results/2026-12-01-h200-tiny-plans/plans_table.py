#!/usr/bin/env python3
"""plans_table.py DIR...: one line per (kernel, dtype, shape), gpu_graph median µs per folder."""
import json, sys, os
cols = sys.argv[1:]
table = {}
for i, d in enumerate(cols):
    try:
        doc = json.load(open(os.path.join(d, "results.json")))
    except Exception as e:
        print("no results in", d, e); continue
    for r in doc["rows"]:
        key = (r["kernel"], r["dtype"], "%dx%d" % (r["M"], r["N"]))
        ph = r["phases"].get("gpu_graph") or {}
        v = "%.2f" % ph["median_us"] if r["state"] == "measured" and ph.get("available") else r["state"][:8]
        table.setdefault(key, {})[i] = (v, r["plan"])
print("| kernel | dtype | shape | " + " | ".join(os.path.basename(c) for c in cols) + " | auto plan |")
for key in sorted(table):
    row = table[key]
    print("| %s | %s | %s | " % key + " | ".join(row.get(i, ("-", ""))[0] for i in range(len(cols))) + " | " + row.get(0, ("", ""))[1] + " |")
