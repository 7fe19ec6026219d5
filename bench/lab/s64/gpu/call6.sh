#!/usr/bin/env bash
# For the next GPU session (written in session 64, not run): where sum's few-row S=grid kernel
# spends its time at the end (bench/lab/s65/gpu/sumend/run.sh, once s64/gpu/sumend/: the pick, its last block's
# arrive without the combine, neither, an empty kernel; L2 cold, CUDA graphs). About 150 s.
# Carry .deps .whl .rr-commit; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
timeout 150 bash tools/gpu/session.sh info >"$OUT/info.txt" 2>&1
SHAPES="2x4000037 4x2097152 16x1048576 1x131073 7x777777" bash bench/lab/s65/gpu/sumend/run.sh
