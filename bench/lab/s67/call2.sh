#!/usr/bin/env bash
# Session 67, call 2, right after call 1 on the same warm machine (its .qk1 kept in /tmp/qk and
# its .deps and build-py left in the tree): QuACK installed from the pieces (.qk2, .qk3 carried
# with .rr-commit), then the `wide` suite in bf16 beside eager, torch.compile, Liger and QuACK at
# main (the working tree without the lab patch).
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/card2.csv"
bash tools/gpu/quack-carry.sh keep .qk2 >/dev/null && bash tools/gpu/quack-carry.sh keep .qk3 >/dev/null &&
	bash tools/gpu/quack-carry.sh install || exit 1
mkdir -p bench/results
DTYPES=bf16 TIME_LIMIT=${TIME_LIMIT:-430} SAMPLE_MS=5 ROUNDS=3 NAME=s67-quack \
	timeout 540 bash bench/python_h200.sh wide
cp "$OUT/compare-wide.err" bench/results/*-compare-wide-s67-quack-bf16/ 2>/dev/null
ls -d bench/results/*-compare-wide-s67-quack* | tar czf "$OUT/python-results.tgz" -T -
