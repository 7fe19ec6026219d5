#!/usr/bin/env bash
# Session 58: rows of one element. The hand-written launch shapes of bench/lab/s58/tiny/tiny.cu
# (about 20 s), then bench/lab/s57/gpu/next-tiny.sh (rowreduce's pick and fixed R in the
# compare's graph replay beside torch.compile, about 120 s). Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-tiny.csv"
nvcc -O3 -arch=sm_90 -std=c++17 bench/lab/s58/tiny/tiny.cu -o /tmp/tinylab &&
	timeout 60 /tmp/tinylab | tee "$OUT/tiny.txt"
timeout 300 bash bench/lab/s57/gpu/next-tiny.sh | tee "$OUT/next-tiny.txt"
