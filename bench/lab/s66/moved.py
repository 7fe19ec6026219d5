#!/usr/bin/env python3
"""Rows of a compare_ab results.json whose plan differs from the base pick (the base's plan is
not recorded: it is asked of a rowreduce binary with RR_GRID_FILL=0, sm_90), with base/new.
usage: moved.py RESULTS_JSON ROWREDUCE [--all]  (--all: every row, moved or not)"""
import json, math, os, subprocess, sys

d = json.load(open(sys.argv[1]))
rows = {}
for r in d["rows"]:
    key = (r["kernel"], r["dtype"], r["M"], r["N"])
    rows.setdefault(key, {})[r.get("peer") or "rowreduce"] = (
        r["phases"]["gpu_graph"].get("median_us"), r.get("plan"))
env = dict(os.environ, RR_GRID_FILL="0")
print("| kernel | dtype | M x N | base plan | base µs | new plan | new µs | base/new | torch.compile µs |")
print("|---|---|---|---|---:|---|---:|---:|---:|")
logs = []
for (k, dt, M, N), v in rows.items():
    src = subprocess.run([sys.argv[2], "emit", "--backend", "cuda", "--kernel", k, "--shape",
                          f"{M}x{N}", "--dtype", dt, "--arch", "sm_90"],
                         capture_output=True, text=True, env=env).stdout
    bp = [l for l in src.splitlines() if " plan " in l][0].split("plan", 1)[1].strip()
    new, base, comp = v["rowreduce"], v["base"], v.get("compile", (float("nan"), None))
    if bp == new[1] and "--all" not in sys.argv:
        continue
    r = base[0] / new[0]
    logs.append(math.log(r))
    print(f"| {k} | {dt} | {M}x{N} | {bp} | {base[0]:.2f} | {new[1]} | {new[0]:.2f} | {r:.3f} "
          f"| {comp[0]:.2f} |")
if logs:
    print(f"\n{len(logs)} rows; geomean base/new {math.exp(sum(logs) / len(logs)):.3f}, "
          f"{sum(x >= 0 for x in logs)} at 1 or above")
