#!/usr/bin/env bash
# Next session, one call on whatever card comes: bench/lab/s58/gpu/lab.sh (rows of one element and
# 50000x3 in the compare's replay, about 200 s), then on an H200 the `odd` record, six built-ins in
# bf16 and f32 beside eager, torch.compile and Liger, cut at 580 s from the call's start (what is
# cut is listed as not measured). Carry .deps .whl .rr-commit; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
	--format=csv | tee "$OUT/nvidia-smi.csv"
timeout 240 bash bench/lab/s58/gpu/lab.sh
grep -q H200 "$OUT/nvidia-smi.csv" || exit 0
left=$((580 - SECONDS))
[ "$left" -gt 120 ] || exit 0
DTYPES=bf16,f32 OPS=rmsnorm,sum,softmax,cross_entropy,layernorm,add_layernorm \
	TIME_LIMIT=$((left - 40)) SAMPLE_MS=5 ROUNDS=3 NAME=s58 \
	timeout $((left - 10)) bash bench/python_h200.sh odd
cp "$OUT/compare-odd.err" bench/results/*-compare-odd-s58-bf16-f32/ 2>/dev/null
ls -d bench/results/*-compare-odd-s58* | tar czf "$OUT/python-results.tgz" -T -
