#!/usr/bin/env bash
# Session 53 (about 2 minutes): session 52's softmax bf16 8191x1023 and sum bf16 16x128257
# sweeps and the rmsnorm bf16 2x2000003 grid plans, L2 cold, one plan at a time, every output
# validated first. Carry .deps .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
grep -hv '^#' bench/lab/s52/gpu/plans-softmax-8191.txt bench/lab/s52/gpu/plans-sum-16x128257.txt \
	bench/lab/s53/gpu/plans-rmsnorm-2x2000003.txt >/tmp/plans-next.txt
PLAN_FILE=/tmp/plans-next.txt bash tools/gpu/session.sh info plans
