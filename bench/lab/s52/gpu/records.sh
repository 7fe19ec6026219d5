#!/usr/bin/env bash
# Session 52: the `odd` suite in DTYPE (bf16 or f32), six built-ins, beside eager, torch.compile
# and Liger, at this tree (two runs: three built-ins each), named after TAG (default s52).
# Carry .deps .whl .rr-commit.
#   bash bench/lab/s52/gpu/records.sh bf16
set -uo pipefail
dt=${1:?usage: records.sh bf16|f32}
tag=${TAG:-s52}
export OUT=${OUT:-/tmp/rr-out}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
	--format=csv | tee "$OUT/nvidia-smi.csv"
for part in "softmax,cross_entropy,rmsnorm $tag" "layernorm,add_layernorm,sum ${tag}b"; do
	set -- $part
	DTYPES=$dt OPS=$1 TIME_LIMIT=200 SAMPLE_MS=5 ROUNDS=3 NAME=$2 bash bench/python_h200.sh odd
	cp "$OUT/compare-odd.err" bench/results/*-compare-odd-$2-$dt/ 2>/dev/null
done
ls -d bench/results/*-compare-odd-$tag* | tar czf "$OUT/python-results.tgz" -T -
