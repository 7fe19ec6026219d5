#!/usr/bin/env python3
"""How well the GPU cost model ranks plans the H200 measured: for every workload (kernel, dtype,
shape) of one or more plan sweeps, the plan the model predicts fastest among those measured, and
its regret (its measured time over the best measured, minus one). No GPU needed: the predictions
come from `rowreduce emit` with RR_PLAN_TRACE (the model's every candidate), the times from the
sweep files.

usage: tools/model_regret.py [--rowreduce BIN] [-v] [--each | --pooled] SWEEP.txt...
  SWEEP.txt: lines "kernel dtype MxN plan µs ..." as tools/gpu/session.sh's plans stage writes
  them (tools/gpu/summary.py's format); lines that are not rows are skipped.
  -v: every measured plan of a workload, fastest first, with its prediction.
  --each: only one summary line a file (its workloads' regret), for comparing two models over
  the recorded sweeps.
  --pooled: each file's workloads on their own (a workload in two files counts twice, with its
  own file's times: sweeps of different trees and cards are not merged), then one summary line
  over all of them, with the count above 5 %.
Exit status: 0, or 2 on bad usage."""
import collections
import os
import re
import statistics
import subprocess
import sys

TRACE_LINE = re.compile(r"([* ])\s+([\d.]+|inf)\s+(W=\S+)\s")


def measured(paths):
    rows = collections.defaultdict(dict)
    for path in paths:
        for line in open(path):
            p = line.split()
            if len(p) < 6 or not p[3].startswith("W=") or p[5] != "us":
                continue
            try:
                rows[(p[0], p[1], p[2])][p[3]] = float(p[4])
            except ValueError:
                continue
    return rows


def predictions(rr, kernel, dtype, shape):
    out = subprocess.run([rr, "emit", "--kernel", kernel, "--shape", shape, "--dtype", dtype,
                          "--backend", "cuda", "--arch", "sm_90"],
                         env=dict(os.environ, RR_PLAN_TRACE="1000000"),
                         capture_output=True, text=True)
    pred, pick = {}, None
    for line in out.stderr.splitlines():
        m = TRACE_LINE.match(line)
        if m:
            pred[m.group(3)] = float(m.group(2))
            if m.group(1) == "*":
                pick = m.group(3)
    return pred, pick


def main(argv):
    rr = os.path.join(os.path.dirname(__file__), "..", "build", "rowreduce")
    verbose = False
    each = False
    pooled = False
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--rowreduce" and i + 1 < len(argv):
            rr = argv[i + 1]
            i += 2
            continue
        if argv[i] == "-v":
            verbose = True
        elif argv[i] == "--each":
            each = True
        elif argv[i] == "--pooled":
            pooled = True
        elif argv[i].startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            files.append(argv[i])
        i += 1
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    if each and pooled:
        print(__doc__, file=sys.stderr)
        return 2
    if pooled:
        regrets = []
        for path in files:
            regrets += report(rr, [path], False, quiet=True)
        print("%s, %d over 5 %%" % (summary(regrets), sum(r > 0.05 for r in regrets)))
        return 0
    if each:
        for path in files:
            regrets = report(rr, [path], False, quiet=True)
            print("%-60s %s" % (path, summary(regrets)))
        return 0
    print(summary(report(rr, files, verbose)))
    return 0


def summary(regrets):
    if not regrets:
        return "no workload with a measured plan among the model's candidates"
    return "%d workloads: regret mean %.1f %%, median %.1f %%, max %.1f %%" % (
        len(regrets), 100 * statistics.mean(regrets), 100 * statistics.median(regrets),
        100 * max(regrets))


def report(rr, files, verbose, quiet=False):
    regrets = []
    for (kernel, dtype, shape), plans in sorted(measured(files).items()):
        pred, pick = predictions(rr, kernel, dtype, shape)
        ranked = [p for p in plans if p in pred]
        if not ranked:
            if not quiet:
                print("%s %s %s: no measured plan among the model's candidates" % (
                    kernel, dtype, shape))
            continue
        best = min(plans.values())
        chosen = min(ranked, key=lambda p: pred[p])
        regret = plans[chosen] / best - 1
        regrets.append(regret)
        if quiet:
            continue
        print("%s %s %s: model's first of the measured %s %.2f µs, best %.2f, regret %.1f %%%s" % (
            kernel, dtype, shape, chosen, plans[chosen], best, 100 * regret,
            "" if pick in plans else " (its pick %s not measured)" % pick))
        if verbose:
            for p, t in sorted(plans.items(), key=lambda kv: kv[1]):
                print("    %8.2f µs  predicted %8s  %s" % (
                    t, "%.2f" % pred[p] if p in pred else "-", p))
    return regrets


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
