#!/usr/bin/env bash
# Session 53: plans-few-wide-1024.txt (146 plans: each few-wide pick beside W = 1024 grid plans of
# C = 16-128, U = 2 and 4), L2 cold, one plan at a time, every output validated first.
# Carry .deps .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
grep -hv '^#' bench/lab/s53/gpu/plans-few-wide-1024.txt >/tmp/plans-fw.txt
PLAN_FILE=/tmp/plans-fw.txt bash tools/gpu/session.sh info plans
