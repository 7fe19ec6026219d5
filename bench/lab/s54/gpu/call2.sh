#!/usr/bin/env bash
# Session 54, call 2: add_layernorm bf16 few wide rows under grid plans (plans-aln-few.txt, L2
# cold, every output validated first); on an H200 first the f32 `odd` record (TAG=s54).
# Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s54 bash bench/lab/s52/gpu/records.sh f32
fi
grep -hv '^#' bench/lab/s54/gpu/plans-aln-few.txt >/tmp/plans-aln.txt
PLAN_FILE=/tmp/plans-aln.txt bash tools/gpu/session.sh info plans
