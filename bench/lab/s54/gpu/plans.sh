#!/usr/bin/env bash
# Session 54's plan sweeps, with grid-reread-lab.patch applied here: add_layernorm bf16's
# few-wide picks (h kept in shared memory) and softmax bf16 rows of 700-2100 elements beside
# W = 32, 64 at R = 1 (plans-picks-softmax.txt); then the few-wide shapes re-read
# (RR_LAB_GRID_REREAD=1, plans-reread.txt). Called by call4.sh and call5.sh.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
patch -p1 <bench/lab/s54/gpu/grid-reread-lab.patch >/dev/null || exit 1
L=bench/lab/s54/gpu
grep -hv '^#' $L/plans-aln-picks.txt $L/plans-softmax-w.txt >/tmp/plans-a.txt
PLAN_FILE=/tmp/plans-a.txt bash tools/gpu/session.sh info plans
mv "$OUT/plans.txt" "$OUT/plans-picks-softmax.txt"; mv "$OUT/plans-runs.tgz" "$OUT/plans-picks-softmax-runs.tgz"
rm -rf /tmp/plans
grep -hv '^#' $L/plans-aln-reread.txt >/tmp/plans-b.txt
RR_LAB_GRID_REREAD=1 PLAN_FILE=/tmp/plans-b.txt bash tools/gpu/session.sh plans
mv "$OUT/plans.txt" "$OUT/plans-reread.txt"; mv "$OUT/plans-runs.tgz" "$OUT/plans-reread-runs.tgz"
