#!/usr/bin/env bash
# Session 63, any call. On an H200: the record of STAGE (odd by default; wide, large) through
# bench/lab/s59/gpu/call.sh (two runs of three built-ins, f32 and bf16, beside eager,
# torch.compile and Liger, cut at 575 s). On an H100: bench/lab/s63/gpu/call2.sh (fixed-plan
# sweeps of add_layernorm, then ncu of sum; about 570 s).
# Carry .deps .whl .rr-commit; bench/results moved aside first.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv | grep -q H200; then
	H100_LAB=0 bash bench/lab/s59/gpu/call.sh
else
	bash bench/lab/s63/gpu/call2.sh
fi
