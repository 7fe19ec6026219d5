#!/usr/bin/env bash
# Session 60, for the next GPU session: add_layernorm bf16 on rows of 8192-16384 (2048x16384 at
# 0.88 of torch.compile on an H200 in session 59) over fixed plans beside the pick and
# torch.compile, in one compare replay (bench/lab/s60/compare_plans.py). With NVRTC here the
# pick at 2048x16384 (W=512, S=regs) spills 8-64 bytes at its raised bound, so its capped build
# runs 16 warps an SM; W=1024 with h in shared memory compiles to 48-56 registers without
# spills (32 warps an SM); the clusters of two hold half a row a block. Carry .deps .whl
# .rr-commit; bench/results moved aside. About 150 s with the build.
# The model's times at 2048x16384 (RR_PLAN_TRACE at 9fb8e6b, µs): the pick 85.06, W=512 smem
# 112.50, W=1024 smem 185.84 (x1.60), W=512 C=2 cluster 429.13 (x2.40), W=256 C=2 cluster
# 135.73 (x1.50); measured H200 (compare, session 59) the pick 89.83, torch.compile 78.75.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-plans.csv"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -f build-py/librowreduce.so ] || bash bench/python_h200.sh >"$OUT/build.txt" 2>&1
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python"
export RR_LAB_PLANS="W=512,V=8,U=1,R=1,C=1,S=smem;W=1024,V=8,U=1,R=1,C=1,S=smem;W=512,V=8,U=1,R=1,C=2,S=cluster;W=256,V=8,U=2,R=1,C=2,S=cluster;W=1024,V=8,U=1,R=1,C=1,S=regs"
d=$OUT/${NAME:-plans-aln-bf16}
timeout ${SECONDS_LIMIT:-300} python3 bench/lab/s60/compare_plans.py \
	--shapes ${SHAPES:-2048x16384,8192x8192,4096x16384,1024x12288} --dtypes bf16 --ops add_layernorm \
	--impls rowreduce,plan0,plan1,plan2,plan3,plan4,compile --rounds 3 --samples 3 --sample-ms 5 \
	--l2 cold --time-limit $((${SECONDS_LIMIT:-300} - 30)) --out "$d" 2>"$d.err"
echo "== compare_plans (exit $?)"
grep -E "^plan[0-9]:" "$d.err"
grep -E "^\| [a-z_]+ \|" "$d/comparison.md" 2>/dev/null
(cd "$OUT" && tar czf results-plans.tgz "${d##*/}" "${d##*/}.err" && rm -rf "${d##*/}")
