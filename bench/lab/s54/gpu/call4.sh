#!/usr/bin/env bash
# Session 54, call 4: on an H200 first the f32 `odd` record (TAG=s54). Then, with
# grid-reread-lab.patch applied here: add_layernorm bf16's few-wide picks (h kept in shared
# memory), the same shapes re-read (RR_LAB_GRID_REREAD=1), softmax bf16 rows of 700-2100
# elements beside W = 32, 64 at R = 1; torch.compile's code for add_layernorm bf16 4x2097152 and
# 2x4000037 and its kernels' times. Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s54 bash bench/lab/s52/gpu/records.sh f32
	mv "$OUT/python-results.tgz" "$OUT/records-f32.tgz"
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
for s in 4x2097152; do
	TORCH_LOGS=output_code timeout 90 python3 $L/inductor_code.py $s >"$OUT/inductor-$s.txt" 2>&1
	grep -E "triton_|Self CUDA" "$OUT/inductor-$s.txt" | grep -v "^\s*$" | tail -8
done
