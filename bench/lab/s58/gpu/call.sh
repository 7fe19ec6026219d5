#!/usr/bin/env bash
# Session 58, any call: on an H200 the `odd` record, six built-ins in f32 and bf16 beside eager,
# torch.compile and Liger (two runs of three built-ins, TAG=s58, cut at 575 s: what is cut is
# listed as not measured); on any other card bench/lab/s58/gpu/lab.sh. Carry .deps .whl
# .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
	--format=csv | tee "$OUT/nvidia-smi.csv"
if grep -q H200 "$OUT/nvidia-smi.csv"; then
	end=$((SECONDS + 575))
	for part in "softmax,cross_entropy,rmsnorm s58" "layernorm,add_layernorm,sum s58b"; do
		set -- $part
		left=$((end - SECONDS))
		[ "$2" = s58 ] && left=$((left / 2))
		DTYPES=f32,bf16 OPS=$1 TIME_LIMIT=$((left - 45)) SAMPLE_MS=5 ROUNDS=3 NAME=$2 \
			timeout $((left > 20 ? left - 10 : 10)) bash bench/python_h200.sh odd
		cp "$OUT/compare-odd.err" bench/results/*-compare-odd-$2-f32-bf16/ 2>/dev/null
	done
	ls -d bench/results/*-compare-odd-s58* | tar czf "$OUT/python-results.tgz" -T -
	exit 0
fi
# not an H200: rows of one element in the compare's replay (bench/lab/s58/gpu/lab.sh)
bash bench/lab/s58/gpu/lab.sh
