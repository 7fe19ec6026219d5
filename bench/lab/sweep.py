#!/usr/bin/env python3
"""Kernel lab: measure one kernel/shape/dtype under many plans with `rowreduce bench` (each plan
validated before it is timed) and print a table sorted by GPU time. For finding what the cost
model should pick; the numbers that go into README claims come from full bench runs instead.

Usage: sweep.py ROWREDUCE OUTDIR KERNEL DTYPE MxN PLAN [PLAN...]   (PLAN "auto" = the planner)
"""
import json
import os
import subprocess
import sys


def main():
    rr, out, kernel, dtype, shape = sys.argv[1:6]
    plans = sys.argv[6:]
    rows = []
    for i, plan in enumerate(plans):
        d = os.path.join(out, "%s-%s-%s-%d" % (kernel, dtype, shape, i))
        cmd = [rr, "bench", "--backend", "cuda", "--kernels", kernel, "--dtypes", dtype,
               "--shapes", shape, "--plan", plan, "--samples", "5", "--sample-ms", "5",
               "--warmup-ms", "20", "--l2", "cold", "--no-ceilings", "--out", d]
        p = subprocess.run(cmd, capture_output=True, text=True)
        try:
            with open(os.path.join(d, "results.json")) as f:
                row = json.load(f)["rows"][0]
        except Exception:
            rows.append((float("inf"), plan, "error: " + (p.stderr.strip().splitlines() or ["?"])[-1][:120]))
            continue
        ph = row["phases"].get("gpu_graph") or {}
        if not ph.get("available"):
            ph = row["phases"].get("gpu") or {}
        if row["state"] != "measured":
            rows.append((float("inf"), row["plan"] or plan, row["state"] + " " + str(row.get("error"))[:100]))
        else:
            rows.append((ph["median_us"], row["plan"], "%.2f TB/s" % ph["tbps"]))
    rows.sort(key=lambda r: r[0])
    print("## %s %s %s" % (kernel, dtype, shape))
    for t, plan, note in rows:
        print("%10.2f us  %-44s %s" % (t, plan, note))


if __name__ == "__main__":
    main()
