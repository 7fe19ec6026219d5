#!/usr/bin/env bash
# Session 58, any call: rows of one element in the compare's replay (bench/lab/s58/gpu/lab.sh,
# about 100 s); then on an H200 the `odd` record in bf16, six built-ins beside eager,
# torch.compile and Liger, cut at 470 s from the start of the call (what is cut is listed as not
# measured). Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
	--format=csv | tee "$OUT/nvidia-smi.csv"
timeout 300 bash bench/lab/s58/gpu/lab.sh
if grep -q H200 "$OUT/nvidia-smi.csv"; then
	left=$((470 - SECONDS))
	DTYPES=bf16 OPS=softmax,rmsnorm,sum,cross_entropy,layernorm,add_layernorm \
		TIME_LIMIT=$((left - 40)) SAMPLE_MS=5 ROUNDS=3 NAME=s58 \
		timeout $((left > 20 ? left - 10 : 10)) bash bench/python_h200.sh odd
	cp "$OUT/compare-odd.err" bench/results/*-compare-odd-s58-bf16/ 2>/dev/null
	ls -d bench/results/*-compare-odd-s58* | tar czf "$OUT/python-results.tgz" -T -
fi
