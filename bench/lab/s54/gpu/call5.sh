#!/usr/bin/env bash
# Session 54, the last call (about 230 s of device time left): on an H200 the f32 `odd` record
# alone (TAG=s54); elsewhere call4.sh's plans without torch.compile's code (grid-reread-lab.patch
# applied here). Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s54 exec bash bench/lab/s52/gpu/records.sh f32
fi
patch -p1 <bench/lab/s54/gpu/grid-reread-lab.patch >/dev/null || exit 1
L=bench/lab/s54/gpu
grep -hv '^#' $L/plans-aln-picks.txt $L/plans-softmax-w.txt >/tmp/plans-a.txt
PLAN_FILE=/tmp/plans-a.txt bash tools/gpu/session.sh info plans
mv "$OUT/plans.txt" "$OUT/plans-picks-softmax.txt"; mv "$OUT/plans-runs.tgz" "$OUT/plans-picks-softmax-runs.tgz"
rm -rf /tmp/plans
grep -hv '^#' $L/plans-aln-reread.txt >/tmp/plans-b.txt
RR_LAB_GRID_REREAD=1 PLAN_FILE=/tmp/plans-b.txt bash tools/gpu/session.sh plans
mv "$OUT/plans.txt" "$OUT/plans-reread.txt"; mv "$OUT/plans-runs.tgz" "$OUT/plans-reread-runs.tgz"
