#!/usr/bin/env bash
# Session 59, any call. On an H200: the `odd` record, six built-ins in f32 and bf16 beside eager,
# torch.compile and Liger (two runs of three built-ins, cut at 575 s from the call's start: what
# is cut is listed as not measured). On an H100: bench/lab/s58/gpu/lab.sh (rows of one element
# in the compare's replay, about 200 s). STAGE=wide: the `wide` record on an H200 instead.
# H100_LAB=0: nothing on an H100. Carry .deps .whl .rr-commit; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
	--format=csv | tee "$OUT/nvidia-smi.csv"
if ! grep -q H200 "$OUT/nvidia-smi.csv"; then
	[ "${H100_LAB:-1}" = 1 ] && timeout 300 bash bench/lab/s58/gpu/lab.sh
	exit 0
fi
suite=${STAGE:-odd}
end=$((SECONDS + 575))
for part in "softmax,cross_entropy,rmsnorm s59" "layernorm,add_layernorm,sum s59b"; do
	set -- $part
	left=$((end - SECONDS))
	[ "$2" = s59 ] && left=$((left / 2))
	DTYPES=f32,bf16 OPS=$1 TIME_LIMIT=$((left - 45)) SAMPLE_MS=5 ROUNDS=3 NAME=$2 \
		timeout $((left > 20 ? left - 10 : 10)) bash bench/python_h200.sh "$suite"
	cp "$OUT/compare-$suite.err" bench/results/*-compare-$suite-$2-f32-bf16/ 2>/dev/null
done
ls -d bench/results/*-compare-$suite-s59* | tar czf "$OUT/python-results.tgz" -T -
