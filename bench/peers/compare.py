#!/usr/bin/env python3
"""Puts a `rowreduce bench` results folder side by side with the peers measured in the same
session (bench/peers/torch_peers.py). Both use the same method for the headline number: a CUDA
graph of a batch of calls replayed and timed with device events, divided by the batch.

Usage: compare.py RESULTS_DIR PEERS_JSON   (writes RESULTS_DIR/comparison.md, copies the peers
file to RESULTS_DIR/peers.json; every number comes from those two files)
"""
import json
import os
import shutil
import sys


def peers_from_results(doc):
    """The peers file in the results schema, read into the flat rows this script compares."""
    rows = []
    for r in doc["rows"]:
        ph = r["phases"]["gpu_graph"]
        row = {"peer": r["peer"], "kernel": r["kernel"], "dtype": r["dtype"], "M": r["M"],
               "N": r["N"], "l2": r["l2"]["mode"], "valid": r["validation"]["valid"]}
        if ph["available"]:
            row.update(median_us=ph["median_us"], min_us=ph["min_us"], max_us=ph["max_us"])
        rows.append(row)
    out = {"command": doc["command_line"], "peers": rows,
           "torch": doc["versions"].get("torch", "?")}
    if doc["versions"].get("triton"):
        out["triton"] = doc["versions"]["triton"]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    folder, peers_path = sys.argv[1], sys.argv[2]
    with open(os.path.join(folder, "results.json")) as f:
        ours = json.load(f)
    with open(peers_path) as f:
        peers = json.load(f)
    if "rows" in peers:  # the results schema torch_peers.py writes now (tool rowreduce-peers)
        peers = peers_from_results(peers)
    by_key = {}
    for p in peers["peers"]:
        by_key.setdefault((p["kernel"], p["dtype"], p["M"], p["N"]), {})[p["peer"]] = p
    copy = ours["ceilings"].get("copy") or {}
    copy_tbps = ((copy.get("phases") or {}).get("gpu_graph") or {}).get("tbps")
    lines = ["# rowreduce against its peers, same GPU, same session", "",
             "rowreduce: `%s`" % ours["command_line"],
             "peers: `%s` (torch %s%s)" % (peers["command"], peers.get("torch", "?"),
                                         ", triton " + peers["triton"] if "triton" in peers else ""),
             "device: %s, L2 mode: rowreduce %s, peers %s" % (
                 ours["device"]["description"], ours["protocol"]["l2"]["mode"],
                 peers["peers"][0]["l2"] if peers["peers"] else "?"),
             "copy ceiling (graph phase): %s TB/s" % ("%.2f" % copy_tbps if copy_tbps else "not measured"),
             "",
             "µs per call: CUDA-graph replay of a calibrated batch, device events / batch, median of "
             "the samples. speed-up = best peer / rowreduce; a ratio within the two runs' spread "
             "(max/min of the samples) is marked `tie`. \"of ceiling\": the row's fraction of its "
             "ceiling's best TB/s (the copy for kernels that write a row, the read-only pass for "
             "sum and cross_entropy).", "",
             "| kernel | dtype | shape | rowreduce µs | TB/s | of ceiling | eager µs | compile µs | liger µs | best peer | speed-up |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    wins = losses = ties = 0
    for row in ours["rows"]:
        key = (row["kernel"], row["dtype"], row["M"], row["N"])
        ph = (row.get("phases") or {}).get("gpu_graph") or {}
        if row["state"] != "measured" or not ph.get("available"):
            ph = (row.get("phases") or {}).get("gpu") or {}
        ours_us = ph.get("median_us") if row["state"] == "measured" else None
        cells = []
        best = None
        for name in ("eager", "compile", "liger"):
            p = by_key.get(key, {}).get(name)
            if p and p.get("median_us") is not None:
                cells.append("%.2f" % p["median_us"])
                if best is None or p["median_us"] < best[1]["median_us"]:
                    best = (name, p)
            elif p:
                cells.append("fails" if p.get("valid") is False else "—")
            else:
                cells.append("—")
        if ours_us is None:
            verdict, ratio = row["state"], "—"
        elif best is None:
            verdict, ratio = "—", "—"
        else:
            r = best[1]["median_us"] / ours_us
            spread = max(ph["max_us"] / ph["min_us"], best[1]["max_us"] / best[1]["min_us"])
            if 1 / spread <= r <= spread:
                verdict = "tie"
                ties += 1
            elif r > 1:
                verdict = "win"
                wins += 1
            else:
                verdict = "LOSS"
                losses += 1
            ratio = "%.2f× %s" % (r, verdict)
        lines.append("| %s | %s | %d×%d | %s | %s | %s | %s | %s | %s |" % (
            row["kernel"], row["dtype"], row["M"], row["N"],
            "%.2f" % ours_us if ours_us else row["state"],
            "%.2f" % ph["tbps"] if ours_us else "—",
            "%.2f" % ph["fraction_of_ceiling"] if ours_us and ph.get("fraction_of_ceiling") else "—",
            " | ".join(cells), best[0] if best else "—", ratio))
    lines += ["", "wins %d, ties %d, losses %d" % (wins, ties, losses), ""]
    tmp = os.path.join(folder, "comparison.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(lines))
    os.replace(tmp, os.path.join(folder, "comparison.md"))
    if os.path.abspath(peers_path) != os.path.abspath(os.path.join(folder, "peers.json")):
        shutil.copyfile(peers_path, os.path.join(folder, "peers.json"))
    print("\n".join(lines[-3:]))


if __name__ == "__main__":
    main()
