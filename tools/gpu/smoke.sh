#!/usr/bin/env bash
# A short first look on the lent GPU: build there, then `rowreduce run` on a few shapes.
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}; mkdir -p "$OUT"
export RR_CACHE_DIR=/tmp/rr-cache
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=ON -DCMAKE_PREFIX_PATH="$PWD/.deps" >"$OUT/build.log" 2>&1 &&
	cmake --build build-gpu -j 16 >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
RR=$PWD/build-gpu/rowreduce
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv
for spec in "$@"; do
	IFS=: read -r k shape dt <<<"$spec"
	echo "-- $k $shape $dt"
	timeout 120 "$RR" run --backend cuda --kernel "$k" --shape "$shape" --dtype "$dt" --repeat 20 >"$OUT/run.txt" 2>&1
	echo "exit $?"; grep -E "plan|validated|time|error|rowreduce:" "$OUT/run.txt" | head -6
done 2>&1 | tee "$OUT/smoke.log"
