#!/usr/bin/env bash
# Session 58, any call: rows of one element in the compare's replay (bench/lab/s58/gpu/lab.sh,
# about 200 s; the device time left this session held no `odd` record too). Carry .deps .whl
# .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
	--format=csv | tee "$OUT/nvidia-smi.csv"
timeout 300 bash bench/lab/s58/gpu/lab.sh
