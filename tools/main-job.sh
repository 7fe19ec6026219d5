#!/usr/bin/env bash
# The main job of `make run`: the six built-in kernels with their analyses (`rowreduce ops`),
# then a short bench of them on the default backend (cuda when a GPU answers, else the embedded
# cpu backend), every configuration validated before it is timed; prints the results table and
# where results.json went (under the build folder).
set -uo pipefail
rowreduce=${1:-build/rowreduce}
out=${RR_MAIN_JOB_OUT:-$(dirname "$rowreduce")/main-job/bench-$(date -u +%Y%m%dT%H%M%SZ)}
"$rowreduce" ops || exit $?
echo
"$rowreduce" bench --kernels all --backend auto --shapes 64x4096,1024x1024 --dtypes f32,bf16 \
	--samples 5 --sample-ms 10 --warmup-ms 20 --out "$out"
status=$?
if [ -f "$out/results.md" ]; then
	echo
	cat "$out/results.md"
	echo
	echo "results.json: $out/results.json"
	echo "plot:         $out/plot.svg"
fi
exit $status
