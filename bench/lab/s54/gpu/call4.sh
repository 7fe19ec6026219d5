#!/usr/bin/env bash
# Session 54, call 4: on an H200 first the f32 `odd` record (TAG=s54); then torch.compile's code
# for add_layernorm bf16 4x2097152 and 2x4000037 (TORCH_LOGS=output_code) and its kernels' times.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s54 bash bench/lab/s52/gpu/records.sh f32
	mv "$OUT/python-results.tgz" "$OUT/records-f32.tgz"
fi
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-call4.csv"
for s in 4x2097152 2x4000037; do
	TORCH_LOGS=output_code python3 bench/lab/s54/gpu/inductor_code.py $s >"$OUT/inductor-$s.txt" 2>&1
	grep -E "triton_|Self CUDA|^-" "$OUT/inductor-$s.txt" | grep -vE "^\s*$" | tail -12
done
grep -hv '^#' bench/lab/s54/gpu/plans-softmax-w.txt >/tmp/plans-w.txt
PLAN_FILE=/tmp/plans-w.txt bash tools/gpu/session.sh plans
