#!/usr/bin/env bash
# Session 57: the flat-span lab (bench/lab/s57/flat/flat.cu: rmsnorm and softmax bf16 on odd rows and their
# aligned neighbours, three hand-written kernels) beside rowreduce's picks on the same shapes
# (`rowreduce bench --l2 cold`), then the moved half-warp picks (plans-ohw-rest.txt). About 150 s.
# Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90 -std=c++17 bench/lab/s57/flat/flat.cu -o /tmp/flat && timeout 120 /tmp/flat | tee "$OUT/flat.txt"
bash tools/gpu/session.sh info >"$OUT/session-info.txt" 2>&1
build-gpu/rowreduce bench --backend cuda --kernels rmsnorm,softmax --dtypes bf16 --l2 cold \
	--shapes 8191x1023,8192x1024,65535x127,65536x128,4095x2047,4096x2048 \
	--samples 5 --sample-ms 5 --warmup-ms 20 --out "$OUT/rr-rmsnorm" >"$OUT/rr-rmsnorm.log" 2>&1
grep -E "^\| (rmsnorm|softmax)" "$OUT/rr-rmsnorm/results.md" | cut -d"|" -f2-5,7 | head -20
OUT=$OUT/v1 PLAN_FILE=bench/lab/s57/gpu/plans-v1.txt timeout 80 bash tools/gpu/session.sh plans
OUT=$OUT/ohw PLAN_FILE=bench/lab/s56/gpu/plans-ohw-rest.txt timeout 150 bash tools/gpu/session.sh plans
