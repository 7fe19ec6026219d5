#!/usr/bin/env bash
# Session 55, the first call: on an H200 the f32 `odd` record (TAG=s55); elsewhere the
# kexp-fold.patch A/B (session 54's next-ab-fold.sh, about 300 s) and then Nsight Compute of
# softmax bf16 8191x1023 and 8192x1024 (the picks, with the patch) beside Liger's kernels.
# Carry .deps .base .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s55 exec bash bench/lab/s52/gpu/records.sh f32
fi
bash bench/lab/s54/gpu/next-ab-fold.sh
export NCU_SPECS="softmax:bf16:8191x1023:auto softmax:bf16:8192x1024:auto"
export NCU_PEERS="softmax:bf16:8191x1023:liger softmax:bf16:8192x1024:liger"
timeout 200 bash tools/gpu/session.sh ncu
