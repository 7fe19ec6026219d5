"""Lab (session 61): old (base commit) against new binary, `rowreduce bench` folders run
alternately; per workload the median over the runs of each binary's e2e median."""
import json
import statistics
import sys


def load(folders):
    runs = {}
    for folder in folders:
        for row in json.load(open(f"{folder}/results.json"))["rows"]:
            key = (row["kernel"], row["dtype"], f'{row["M"]}x{row["N"]}')
            e2e = row["phases"]["e2e"]
            entry = runs.setdefault(key, {"plan": row["plan"], "us": []})
            entry["us"].append(e2e["median_us"] if e2e.get("available") else float("nan"))
            assert row["validation"]["valid"], key
    return runs


old = load(sys.argv[1].split(","))
new = load(sys.argv[2].split(","))
print("| kernel | dtype | MxN | old plan | new plan | old e2e µs | new e2e µs | new/old |")
print("|---|---|---|---|---|---:|---:|---:|")
for key in sorted(old, key=lambda k: (k[0], k[1], -int(k[2].split("x")[0]))):
    o, n = old[key], new[key]
    om, nm = statistics.median(o["us"]), statistics.median(n["us"])
    short = lambda p: ",".join(p.split(",")[:4])
    print(f"| {key[0]} | {key[1]} | {key[2]} | `{short(o['plan'])}` | `{short(n['plan'])}` | "
          f"{om:.1f} | {nm:.1f} | {nm / om:.2f} |")
