#!/usr/bin/env bash
# Session 56: softmax 16-bit W = 16 picks against the W = 32 plans the online half-warp factor
# picks instead (plans-ohw.txt, A B B A a shape, L2 cold; about 150 s). Carry .deps .whl
# .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
PLAN_FILE=bench/lab/s56/gpu/plans-ohw.txt timeout 400 bash tools/gpu/session.sh info plans
