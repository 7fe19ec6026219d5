#!/usr/bin/env bash
# Session 60, first call: the short rows' A/B (HEAD against 7e70bd4 in .base), then the odd
# suite's tiny rows beside the peers. Carry .deps .whl .rr-commit; .base travels untracked.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
AB_SECONDS=${AB_SECONDS:-190} bash bench/lab/s60/gpu/ab.sh
echo "== tiny rows beside the peers ($(date -u +%H:%M:%S))"
SHAPES=1x1,3x3,50000x3,100000x1 DTYPES=f32,bf16 NAME=tiny-s60 TIME_LIMIT=${TINY_SECONDS:-150} \
	bash bench/python_h200.sh odd 2>&1 | tail -60
echo "== done ($(date -u +%H:%M:%S))"
