#!/usr/bin/env python3
"""Issue 10's odd-against-aligned table from the tool's results.json files: for every measured
row whose shape is an odd shape of PAIRS, its neighbour of the same kernel and dtype beside it:
µs, TB/s and fraction of the ceiling (CUDA-graph GPU time, else GPU time, else host wall time),
the odd row's minimal traffic, and odd TB/s / aligned TB/s; then how many of the odd rows of
16 MiB or more (issue 10's target) are within 5 %.
usage: odd_pairs.py RESULTS.json... [--pairs ODD=ALIGNED,...]"""
import argparse
import json
import sys

PAIRS = "2047x6143=2048x6144,8191x1023=8192x1024,512x32003=512x32000,1000x50265=1000x50256," \
        "65535x127=65536x128,16x128257=16x128256"


def phase(row):
    for name in ("gpu_graph", "gpu", "e2e"):
        ph = (row.get("phases") or {}).get(name) or {}
        if ph.get("available"):
            return ph
    return None


def main(argv):
    ap = argparse.ArgumentParser(description="issue 10's odd-against-aligned table")
    ap.add_argument("results", nargs="+", help="the tool's results.json files")
    ap.add_argument("--pairs", default=PAIRS, help="ODD=ALIGNED,... (default: the odd suite's)")
    args = ap.parse_args(argv)
    files, pairs = args.results, args.pairs
    rows = {}
    for path in files:
        try:
            doc = json.load(open(path))
        except (OSError, ValueError) as e:
            print("odd_pairs.py: %s: %s" % (path, e), file=sys.stderr)
            return 1
        for r in doc.get("rows", []):
            ph = phase(r)
            if r.get("state") == "measured" and ph:
                rows[(r["kernel"], r["dtype"], "%dx%d" % (r["M"], r["N"]))] = (r, ph)
    print("| kernel | dtype | odd shape | µs | TB/s | of ceiling | aligned | µs | TB/s | of ceiling"
          " | odd MiB | odd / aligned |")
    print("|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    within = total = 0
    for kernel, dtype in sorted({(k, d) for k, d, _ in rows}):
        for pair in pairs.split(","):
            odd, aligned = pair.split("=")
            if (kernel, dtype, odd) not in rows or (kernel, dtype, aligned) not in rows:
                continue
            (ro, o), (_, a) = rows[(kernel, dtype, odd)], rows[(kernel, dtype, aligned)]
            q = o["tbps"] / a["tbps"]
            mib = (ro.get("bytes_min") or 0) / 2**20
            if mib >= 16:
                total += 1
                within += q >= 0.95
            print("| %s | %s | %s | %.2f | %.2f | %.2f | %s | %.2f | %.2f | %.2f | %.0f | %.3f |" %
                  (kernel, dtype, odd, o["median_us"], o["tbps"], o.get("fraction_of_ceiling") or 0,
                   aligned, a["median_us"], a["tbps"], a.get("fraction_of_ceiling") or 0, mib, q))
    print("\nodd rows of 16 MiB or more within 5 %% of their aligned neighbour: %d of %d" %
          (within, total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
