"""A/B table of orders.sh outputs: per shape, new's ratio to base (median of the per-round
ratios, quartiles) with base first (REF=1) and new first (REF=2), and their geometric mean (the
slot bias, ~2-5 % for the second slot in an A/A control, cancels). Usage: table.py RUN..."""
import math
import re
import sys

rows = {}
for path in sys.argv[1:]:
    head = None
    for line in open(path):
        m = re.match(r"== f32 (\S+)( in cache)? stream (\d) REF=(\d)", line)
        if m:
            head = (m.group(1) + (" in cache" if m.group(2) else ""), int(m.group(4)))
            continue
        m = re.match(r"so/sm-f32-\S+-new\.so\S*\s+([\d.]+) us\s+ratio ([\d.]+) "
                     r"\(([\d.]+)-([\d.]+), quartiles ([\d.]+)-([\d.]+)\)", line)
        if m and head:
            rows.setdefault(head[0], {}).setdefault(head[1], []).append(
                (float(m.group(2)), float(m.group(5)), float(m.group(6))))
print("| shape | base first: new/base (quartiles) | new first: new/base (quartiles) | "
      "both orders (geometric mean) |")
print("|---|---|---|---:|")
for shape, orders in rows.items():
    cells, means = [], []
    for ref in (1, 2):
        runs = orders.get(ref, [])
        cells.append(", ".join(f"{r:.3f} ({a:.3f}-{b:.3f})" for r, a, b in runs))
        means += [r for r, _, _ in runs]
    g = math.exp(sum(math.log(r) for r in means) / len(means))
    print(f"| {shape} | {cells[0]} | {cells[1]} | {g:.3f} |")
