#!/usr/bin/env bash
# Session 54, the last call (about 230 s of device time left): on an H200 the f32 `odd` record
# alone (TAG=s54); elsewhere plans.sh. Carry .deps .whl .rr-commit.
set -uo pipefail
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
	TAG=s54 exec bash bench/lab/s52/gpu/records.sh f32
fi
exec bash bench/lab/s54/gpu/plans.sh
