#!/usr/bin/env bash
# For the next GPU session (about 1.5 minutes): the softmax bf16 8191x1023 and sum bf16
# 16x128257 sweeps (plans-softmax-8191.txt, plans-sum-16x128257.txt), L2 cold, one plan at a
# time, every output validated first. Carry .deps .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
grep -hv '^#' bench/lab/s52/gpu/plans-softmax-8191.txt bench/lab/s52/gpu/plans-sum-16x128257.txt \
	>/tmp/plans-next.txt
PLAN_FILE=/tmp/plans-next.txt bash tools/gpu/session.sh info plans
