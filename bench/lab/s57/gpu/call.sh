#!/usr/bin/env bash
# Session 57, any call: on an H200 the `odd` record, six built-ins in f32 and bf16 beside eager,
# torch.compile and Liger (two runs of three built-ins, TAG=s57, cut at 575 s: what is cut is
# listed as not measured); on an H100 the moved half-warp picks not yet measured
# (plans-ohw-rest.txt, A B B A a shape, L2 cold), then 1x1, 1x127, 100000x1 and 17x257 beside
# the peers. Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
	--format=csv | tee "$OUT/nvidia-smi.csv"
if grep -q H200 "$OUT/nvidia-smi.csv"; then
	end=$((SECONDS + 575))
	for part in "softmax,cross_entropy,rmsnorm s57" "layernorm,add_layernorm,sum s57b"; do
		set -- $part
		left=$((end - SECONDS))
		[ "$2" = s57 ] && left=$((left / 2))
		DTYPES=f32,bf16 OPS=$1 TIME_LIMIT=$((left - 45)) SAMPLE_MS=5 ROUNDS=3 NAME=$2 \
			timeout $((left > 20 ? left - 10 : 10)) bash bench/python_h200.sh odd
		cp "$OUT/compare-odd.err" bench/results/*-compare-odd-$2-f32-bf16/ 2>/dev/null
	done
	ls -d bench/results/*-compare-odd-s57* | tar czf "$OUT/python-results.tgz" -T -
	exit 0
fi
PLAN_FILE=bench/lab/s56/gpu/plans-ohw-rest.txt timeout 240 bash tools/gpu/session.sh info plans
# issue 10's tiny launches beside the peers (six built-ins, f32 and bf16)
SHAPES=1x1,1x127,100000x1,17x257 DTYPES=f32,bf16 TIME_LIMIT=240 SAMPLE_MS=5 ROUNDS=3 NAME=tiny-s57 \
	timeout 300 bash bench/python_h200.sh odd
cp "$OUT/compare-odd.err" bench/results/*-compare-odd-tiny-s57-f32-bf16/ 2>/dev/null
ls -d bench/results/*-compare-odd-tiny-s57* | tar czf "$OUT/python-results.tgz" -T -
