#!/usr/bin/env python3
"""Summarises compare_torch.py folders: per rowreduce row its time, the best peer's, the ratio
(best peer / rowreduce, per-round range), the fraction of a given copy ceiling, and counts of
wins (every round above 1), losses (every round below 1) and ties, per dtype.
Usage: compare_summary.py --copy-tbps 4.23 DIR [DIR ...]   (a later DIR's rows replace an
earlier one's for the same kernel, dtype and shape; an argument without a results.json, such as
a file a glob brought in, is skipped with a note)
Last, issue 11's copy targets over the rows measured: of the rows of 256 MiB or more of minimal
traffic, those at 0.95 of copy or more; of the rows of N >= 131072, those at 0.90 or more."""
import argparse
import json
import math
import os
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--copy-tbps", type=float, required=True)
ap.add_argument("dirs", nargs="+")
a = ap.parse_args()
rows, peers = {}, {}
for d in a.dirs:
    path = os.path.join(d, "results.json")
    if not os.path.isfile(path):
        print("compare_summary.py: %s: no results.json, skipped" % d, file=sys.stderr)
        continue
    doc = json.load(open(path))
    for r in doc["rows"]:
        key = (r["kernel"], r["dtype"], r["M"], r["N"])
        if r["peer"] == "rowreduce":
            rows[key] = r
        elif r["state"] == "measured":
            peers.setdefault(key, {})[r["peer"]] = r
print("| kernel | dtype | M x N | rowreduce µs | best peer µs | ratio (rounds) | of copy |")
print("|---|---|---|---:|---:|---|---:|")
count = {}
targets = {"big": [0, 0], "wide": [0, 0]}
for key in sorted(rows, key=lambda k: (k[0], k[1], k[2] * k[3], k[2])):
    r = rows[key]
    if r["state"] != "measured":
        print("| %s | %s | %dx%d | %s | - | - | - |" % (key + (r["state"],)))
        continue
    if not r.get("best_peer"):
        print("| %s | %s | %dx%d | %.2f | no valid peer | - | - |" % (
            key + (r["phases"]["gpu_graph"]["median_us"],)))
        continue
    t = r["phases"]["gpu_graph"]["median_us"]
    best = peers[key][r["best_peer"]]["phases"]["gpu_graph"]["median_us"]
    lo, hi = min(r["ratio_per_round"]), max(r["ratio_per_round"])
    verdict = "win" if lo > 1 else "loss" if hi < 1 else "tie"
    c = count.setdefault(key[1], {"win": 0, "tie": 0, "loss": 0, "logs": []})
    c[verdict] += 1
    c["logs"].append(math.log(r["ratio_to_best_peer"]))
    frac = r["bytes_min"] / (t * 1e-6) / (a.copy_tbps * 1e12)
    if r["bytes_min"] >= 256 * 2**20:
        targets["big"][0] += frac >= 0.95
        targets["big"][1] += 1
    if key[3] >= 131072:
        targets["wide"][0] += frac >= 0.90
        targets["wide"][1] += 1
    print("| %s | %s | %dx%d | %.2f | %.2f (%s) | %.3f (%.3f..%.3f) %s | %.2f |" % (
        key[0], key[1], key[2], key[3], t, best, r["best_peer"], r["ratio_to_best_peer"], lo, hi,
        verdict, frac))
print()
for dt, c in sorted(count.items()):
    print("%s: %d wins, %d ties, %d losses, geomean ratio %.3f" % (
        dt, c["win"], c["tie"], c["loss"], math.exp(sum(c["logs"]) / len(c["logs"]))))
print("of copy (%.2f TB/s): %d of %d rows of 256 MiB or more at 0.95 or more; %d of %d rows of "
      "N >= 131072 at 0.90 or more" % (a.copy_tbps, targets["big"][0], targets["big"][1],
                                       targets["wide"][0], targets["wide"][1]))
