#!/usr/bin/env bash
# Session 54, call 1: on an H200 the `odd` records in f32 and then bf16 (session 53's
# records.sh, TAG=s54) at this tree; on any other card grid-regs.patch A/B (session 53's specs)
# with the patch applied here, on the lent machine's copy. Carry .deps .base .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s54 bash bench/lab/s52/gpu/records.sh f32
	mv "$OUT/python-results.tgz" "$OUT/python-results-f32.tgz"
	TAG=s54 bash bench/lab/s52/gpu/records.sh bf16
else
	patch -p1 <bench/lab/s53/gpu/grid-regs.patch || exit 1
	SPECS=bench/lab/s53/gpu/specs-grid-regs.txt AB_RUN_LIMIT=40 bash tools/gpu/session.sh info abspecs
fi
