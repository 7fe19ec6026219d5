#!/usr/bin/env bash
# Session 54, call 4: on an H200 first the f32 `odd` record (TAG=s54); then plans.sh, and
# torch.compile's code for add_layernorm bf16 4x2097152 (TORCH_LOGS=output_code) with its
# kernels' times. Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s54 bash bench/lab/s52/gpu/records.sh f32
	mv "$OUT/python-results.tgz" "$OUT/records-f32.tgz"
fi
bash bench/lab/s54/gpu/plans.sh
for s in 4x2097152; do
	TORCH_LOGS=output_code timeout 90 python3 bench/lab/s54/gpu/inductor_code.py $s >"$OUT/inductor-$s.txt" 2>&1
	grep -E "triton_|Self CUDA" "$OUT/inductor-$s.txt" | grep -v "^\s*$" | tail -8
done
