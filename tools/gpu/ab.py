#!/usr/bin/env python3
"""A/B of two builds from results.json files measured in ABBA order: per row, the median of
each side's per-run medians (gpu_graph, else gpu), the paired ratios candidate/reference and
their min-max; a range that straddles 1.0 is a tie.
usage: ab.py A1.json B1.json B2.json A2.json ...  (A = reference, B = candidate, alternating
pairs as measured)"""
import json
import statistics
import sys


def rows(path):
    """The measured rows of one run; none where its results.json is missing or cut short."""
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        print("ab.py: %s: %s (no rows from this run)" % (path, e), file=sys.stderr)
        return {}
    out = {}
    for r in doc["rows"]:
        if r["state"] != "measured":
            continue
        for name in ("gpu_graph", "gpu", "e2e"):  # e2e: a cpu run, to try the script
            ph = r["phases"].get(name) or {}
            if ph.get("available"):
                break
        out[(r["kernel"], r["dtype"], r["M"], r["N"])] = (ph["median_us"], r["plan"])
    return out


files = sys.argv[1:]
a = [rows(f) for f in files[0::4] + files[3::4]]
b = [rows(f) for f in files[1::4] + files[2::4]]
# rows with at least one ABBA pair measured on both sides (a run cut by its time limit loses
# the rows it had not reached; the pairs it left are counted in the table)
keys = sorted(k for k in set().union(*[set(x) for x in a + b])
              if any(k in x and k in y for x, y in zip(a, b)))
print("| kernel | dtype | shape | plan (reference → candidate where they differ) | reference µs | candidate µs | ratio B/A (min-max) | verdict |")
print("|---|---|---|---|---:|---:|---|---|")
verdicts = {}
for k in keys:
    pairs = [(x[k], y[k]) for x, y in zip(a, b) if k in x and k in y]
    ta = [p[0][0] for p in pairs]
    tb = [p[1][0] for p in pairs]
    ratios = [y / x for x, y in zip(ta, tb)]
    lo, hi = min(ratios), max(ratios)
    spread_a = (max(ta) - min(ta)) / statistics.median(ta)
    v = "tie" if lo <= 1.0 <= hi or abs(statistics.median(ratios) - 1) <= spread_a else (
        "slower" if lo > 1 else "faster")
    verdicts[v] = verdicts.get(v, 0) + 1
    plan_a, plan_b = pairs[0][0][1], pairs[0][1][1]
    print("| %s | %s | %dx%d | %s | %.2f | %.2f | %.3f (%.3f-%.3f) | %s |" % (
        k[0], k[1], k[2], k[3],
        plan_a if plan_a == plan_b else "%s → %s" % (plan_a, plan_b),
        statistics.median(ta), statistics.median(tb),
        statistics.median(ratios), lo, hi,
        v if len(pairs) == len(a) else "%s (%d of %d pairs)" % (v, len(pairs), len(a))))
print()
print("rows: %d; %s" % (len(keys), ", ".join("%s %d" % kv for kv in sorted(verdicts.items()))))
