"""A/B table of `rowreduce bench` runs named <variant>-<round>-<n> in one folder: per row, each
variant's median e2e over its runs and of-copy, and the median of the paired new/base ratios
(run k of new against run k of base, in run order). Usage: ab_table.py FOLDER [BASE NEW]"""
import glob
import json
import os
import statistics as st
import sys

folder = sys.argv[1]
base, new = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("base", "new")
runs = {}
for d in sorted(glob.glob(os.path.join(folder, "*")), key=lambda p: int(p.rsplit("-", 1)[1])):
    v = os.path.basename(d).split("-")[0]
    j = json.load(open(os.path.join(d, "results.json")))
    rows = {}
    for r in j["rows"]:
        e = r["phases"]["e2e"]
        rows[(r["kernel"], r["dtype"], f'{r["M"]}x{r["N"]}')] = (e["median_us"],
                                                                 e["fraction_of_ceiling"])
    runs.setdefault(v, []).append(rows)
print(f"| row | {base} µs | {new} µs | {base} of copy | {new} of copy | {new}/{base} (min-max) |")
print("|---|---:|---:|---:|---:|---:|")
for key in runs[base][0]:
    b = [r[key][0] for r in runs[base]]
    n = [r[key][0] for r in runs[new]]
    fb = [r[key][1] for r in runs[base]]
    fn = [r[key][1] for r in runs[new]]
    ratios = [x / y for x, y in zip(n, b)]
    print(f"| {' '.join(key)} | {st.median(b):.0f} | {st.median(n):.0f} | {st.median(fb):.2f} | "
          f"{st.median(fn):.2f} | {st.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) |")
