#!/usr/bin/env bash
# Session 54, call 3: on an H200 first the f32 `odd` record (TAG=s54); then add_layernorm bf16
# few wide rows under grid plans (plans-aln-few.txt) and softmax bf16 8191x1023 / 8192x1024 over
# R (plans-softmax-r.txt), L2 cold, every output validated first; then softmax bf16 at both
# shapes beside the peers (compare harness). Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s54 bash bench/lab/s52/gpu/records.sh f32
	mv "$OUT/python-results.tgz" "$OUT/records-f32.tgz"
fi
grep -hv '^#' bench/lab/s54/gpu/plans-aln-few.txt bench/lab/s54/gpu/plans-softmax-r.txt >/tmp/plans-s54.txt
PLAN_FILE=/tmp/plans-s54.txt bash tools/gpu/session.sh info plans
DTYPES=bf16 OPS=softmax SHAPES=8191x1023,8192x1024,4095x4095,4096x4096 TIME_LIMIT=100 SAMPLE_MS=5 ROUNDS=3 \
	NAME=softmax-pair-s54 bash bench/python_h200.sh odd 2>&1 | grep -E '^\| softmax|mismatch'
cp "$OUT/compare-odd.err" bench/results/*-compare-odd-softmax-pair-s54-bf16/ 2>/dev/null
tar czf "$OUT/pair.tgz" bench/results/*-compare-odd-softmax-pair-s54-bf16
