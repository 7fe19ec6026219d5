#!/usr/bin/env bash
# Session 52: the `odd` suite in f32, six built-ins, beside eager, torch.compile and Liger, at this
# tree (two runs: three built-ins each). Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
	--format=csv | tee "$OUT/nvidia-smi.csv"
for part in "softmax,cross_entropy,rmsnorm s52" "layernorm,add_layernorm,sum s52b"; do
	set -- $part
	DTYPES=f32 OPS=$1 TIME_LIMIT=200 SAMPLE_MS=5 ROUNDS=3 NAME=$2 bash bench/python_h200.sh odd
	cp "$OUT/compare-odd.err" bench/results/*-compare-odd-$2-f32/ 2>/dev/null
done
ls -d bench/results/*-compare-odd-s52* | tar czf "$OUT/python-results.tgz" -T -
