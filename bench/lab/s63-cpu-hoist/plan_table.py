"""plan_table.py FOLDER PLAN...: per row, each plan's median e2e µs over its runs (pK-round-n)
and the median (min-max) of its per-round ratio to plan 0 (the round's two runs averaged)."""
import glob, json, os, statistics as st, sys
folder, plans = sys.argv[1], sys.argv[2:]
t = {}  # (plan, round) -> {row: [us]}
layouts = {}
for d in glob.glob(os.path.join(folder, "p*")):
    p, r, _ = os.path.basename(d)[1:].split("-")
    for row in json.load(open(os.path.join(d, "results.json")))["rows"]:
        key = f'{row["dtype"]} {row["M"]}x{row["N"]}'
        t.setdefault((int(p), int(r)), {}).setdefault(key, []).append(
            row["phases"]["e2e"]["median_us"])
        layouts.setdefault((int(p), key), row.get("layout", row.get("plan", "")))
rounds = sorted({r for _, r in t})
keys = sorted(t[(0, rounds[0])], key=lambda k: (k.split()[0], int(k.split()[1].split("x")[0]) * int(k.split()[1].split("x")[1])))
print("| row | " + " | ".join(plans) + " |")
print("|---|" + "---:|" * len(plans))
for k in keys:
    cells = []
    for i in range(len(plans)):
        us = [st.mean(t[(i, r)][k]) for r in rounds]
        ratio = [st.mean(t[(i, r)][k]) / st.mean(t[(0, r)][k]) for r in rounds]
        cells.append(f"{st.median(us):.1f}" + ("" if i == 0 else
                     f" ({st.median(ratio):.2f}, {min(ratio):.2f}-{max(ratio):.2f})"))
    print(f"| sum {k} | " + " | ".join(cells) + " |")
