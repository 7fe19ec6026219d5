#!/usr/bin/env bash
# Session 62, first call. On an H200: the `odd` record (bench/lab/s59/gpu/call.sh). On an H100:
# sweeps of fixed plans for sum, the one built-in behind torch.compile on every `wide` row of
# session 61's H100 record (0.94-0.999): rows of 16384-65536 in one block a row (W, U, groups
# an SM), and a few wide rows over the grid (W, U, C); then rmsnorm f32 10x2000000's W = 1024,
# C = 32 plan, which ran 95 us in one call and 79 in another with the same source. Each sweep
# is bench/lab/s60/compare_plans.py (fixed plans as peers in compare_torch.py's replay, L2 cold).
# Carry .deps .whl .rr-commit; bench/results moved aside. About 520 s with the build.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv | grep -q H200; then
	H100_LAB=0 bash bench/lab/s59/gpu/call.sh
	exit 0
fi
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv |
	tee "$OUT/nvidia-smi-call1.csv"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bash bench/python_h200.sh >"$OUT/build.txt" 2>&1 || { tail -20 "$OUT/build.txt"; exit 1; }
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python"
sweep() { # NAME SECONDS SHAPES DTYPES OPS PLANS
	local d=$OUT/$1 n impls=rowreduce
	n=$(echo "$6" | tr ';' '\n' | grep -c .)
	for i in $(seq 0 $((n - 1))); do impls=$impls,plan$i; done
	RR_LAB_PLANS="$6" timeout "$2" python3 bench/lab/s60/compare_plans.py --shapes "$3" \
		--dtypes "$4" --ops "$5" --impls "$impls,compile" --rounds 3 --samples 3 --sample-ms 5 \
		--l2 cold --time-limit $(($2 - 30)) --out "$d" 2>"$d.err"
	echo "== $1 (exit $?)"
	grep -E "^\| [a-z_]+ \|" "$d/comparison.md" 2>/dev/null
}
R="R=1,C=1,S=regs"
sweep plans-sum-rows 230 1024x65536,2048x16384,4096x32768,1000x50000,3000x40000 f32 sum \
	"W=128,V=4,U=8,$R;W=128,V=4,U=4,$R;W=256,V=4,U=4,$R;W=256,V=4,U=2,$R;W=512,V=4,U=8,$R;W=512,V=4,U=4,$R;W=1024,V=4,U=4,$R;W=64,V=4,U=8,$R"
sweep plans-sum-grid 170 2x4000037,4x2097152,16x1048576,7x777777,16x128257,1x131073 f32,bf16 sum \
	"W=1024,V=4,U=4,R=1,C=64,S=grid;W=512,V=4,U=4,R=1,C=128,S=grid;W=256,V=4,U=8,R=1,C=256,S=grid;W=512,V=4,U=8,R=1,C=64,S=grid;W=1024,V=4,U=2,R=1,C=64,S=grid;W=1024,V=4,U=8,R=1,C=32,S=grid"
sweep plans-rms-again 60 10x2000000 f32 rmsnorm \
	"W=1024,V=4,U=4,R=1,C=32,S=grid;W=1024,V=4,U=2,R=1,C=64,S=grid"
(cd "$OUT" && tar czf results-sweeps.tgz plans-* && rm -rf plans-sum-rows plans-sum-grid plans-rms-again)
