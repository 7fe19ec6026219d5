#!/usr/bin/env bash
# Session 62, second call (an H100 or an H200): f32 rows of 65536-262144 elements over clusters,
# which session 61's H100 `wide` record had at 0.90-0.92 of the copy ceiling (issue 11 asks
# 0.95 at 256 MiB and more). The picks (W = 512, U = 4, C = N / 32768, one block an SM with
# 112 registers: a block loads, then reduces, then stores, nothing overlapping on its SM) beside
# plans of two or three blocks an SM (W = 256, C = 8; W = 512, C = 8) and W = 1024, C = 4, for
# rmsnorm and softmax f32, in one compare replay (bench/lab/s60/compare_plans.py, L2 cold).
# Carry .deps .whl .rr-commit; bench/results moved aside. About 450 s with the build.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv |
	tee "$OUT/nvidia-smi-call2.csv"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -f build-py/librowreduce.so ] || bash bench/python_h200.sh >"$OUT/build.txt" 2>&1 ||
	{ tail -20 "$OUT/build.txt"; exit 1; }
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python"
d=$OUT/plans-cluster-f32
P="W=256,V=4,U=4,R=1,C=8,S=cluster;W=256,V=4,U=8,R=1,C=8,S=cluster;W=512,V=4,U=4,R=1,C=8,S=cluster"
P="$P;W=512,V=4,U=2,R=1,C=4,S=cluster;W=1024,V=4,U=2,R=1,C=4,S=cluster;W=1024,V=4,U=2,R=1,C=8,S=cluster"
RR_LAB_PLANS="$P" timeout ${SECONDS_LIMIT:-380} python3 bench/lab/s60/compare_plans.py \
	--shapes 1024x65536,512x131072,256x262144 --dtypes f32 --ops rmsnorm,softmax \
	--impls rowreduce,plan0,plan1,plan2,plan3,plan4,plan5,compile --rounds 3 --samples 3 \
	--sample-ms 5 --l2 cold --time-limit $((${SECONDS_LIMIT:-380} - 30)) --out "$d" 2>"$d.err"
echo "== plans-cluster-f32 (exit $?)"
grep -E "^\| [a-z_]+ \|" "$d/comparison.md" 2>/dev/null
(cd "$OUT" && tar czf results-cluster.tgz plans-cluster-f32* && rm -rf plans-cluster-f32)
