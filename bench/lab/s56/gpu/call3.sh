#!/usr/bin/env bash
# Session 56, the short form of call2.sh for the last minutes of device time: three shapes of
# plans-ohw-short.txt (A B B A), about 90 s after the build. Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
PLAN_FILE=bench/lab/s56/gpu/plans-ohw-short.txt timeout 220 bash tools/gpu/session.sh info plans
