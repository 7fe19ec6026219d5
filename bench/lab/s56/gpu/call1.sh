#!/usr/bin/env bash
# Session 56, the first call: the `odd` record in f32 on an H200 (TAG=s56), in bf16 elsewhere
# (TAG=s56-h100). Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s56 exec bash bench/lab/s52/gpu/records.sh f32
fi
TAG=s56 exec bash bench/lab/s52/gpu/records.sh bf16
