#!/usr/bin/env bash
# Session 53: on an H200, the f32 `odd` record (records.sh f32, issue 10's H200 record); on any
# other card, $ELSE (ab-scalar.sh by default). Carry .deps .whl .rr-commit (and .base-scalar).
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	bash bench/lab/s53/gpu/records.sh "${1:-f32}"
else
	bash bench/lab/s53/gpu/${ELSE:-ab-scalar.sh}
fi
