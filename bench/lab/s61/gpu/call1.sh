#!/usr/bin/env bash
# Session 61, first call. On an H200: the `odd` record (bench/lab/s59/gpu/call.sh). On an H100:
# session 60's two prepared experiments, fixed plans for add_layernorm bf16 on rows of
# 8192-16384 (next-plans.sh) and a million rows of one element beside hand kernels
# (next-rows1.sh). Carry .deps .whl .rr-commit; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv | grep -q H200; then
	H100_LAB=0 bash bench/lab/s59/gpu/call.sh
	exit 0
fi
SECONDS_LIMIT=280 bash bench/lab/s60/gpu/next-plans.sh
bash bench/lab/s60/gpu/next-rows1.sh
