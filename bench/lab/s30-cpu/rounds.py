#!/usr/bin/env python3
"""Per-round e2e ratios B/A of an abba.sh folder (runs n-A / n-B in A B B A order).
usage: rounds.py DIR"""
import glob
import json
import os
import statistics
import sys


def medians(path):
    out = {}
    for r in json.load(open(path))["rows"]:
        if r["state"] == "measured":
            out[(r["kernel"], r["dtype"], r["M"], r["N"])] = r["phases"]["e2e"]["median_us"]
    return out


d = sys.argv[1]
runs = sorted(glob.glob(os.path.join(d, "*-[AB]")), key=lambda p: int(os.path.basename(p).split("-")[0]))
pairs = [(runs[i], runs[i + 1]) for i in range(0, len(runs) - 1, 2)]
rounds = []
for x, y in pairs:
    a, b = (x, y) if x.endswith("A") else (y, x)
    rounds.append((medians(a + "/results.json"), medians(b + "/results.json")))
for k in sorted(rounds[0][0]):
    ra = [b[k] / a[k] for a, b in rounds]
    ta = statistics.median(a[k] for a, _ in rounds)
    tb = statistics.median(b[k] for _, b in rounds)
    print(f"{k[0]:14s} {k[1]:4s} {k[2]}x{k[3]:<6d} A {ta:8.0f} B {tb:8.0f} median ratio "
          f"{statistics.median(ra):.3f} rounds " + " ".join(f"{x:.2f}" for x in ra) +
          f"  (B faster in {sum(x < 1 for x in ra)} of {len(ra)})")
