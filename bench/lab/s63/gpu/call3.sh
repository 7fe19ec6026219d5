#!/usr/bin/env bash
# Session 63, call 3 (H100 or H200): sum over the grid with more warps an SM. ncu of call 2
# had the pick for f32 2x4000037 (W = 1024, C = 64, 40 registers: one block an SM, 50 % of the
# warps) stalled on its loads 74 % of the time, and torch.compile's reduction kernel at 85 %
# of the warps. With bench/lab/s63/patches/grid-cap-lab.patch applied in the working tree
# (RR_LAB_GRID_CAP=32: one-round S=grid plans of U * V <= 8 asked to fit 32 registers a thread,
# which NVRTC here fits without spilling), fixed plans of C = 64-256 run two or four blocks an
# SM beside the pick (U * V = 16: untouched) and torch.compile. Carry .deps .whl .rr-commit;
# bench/results moved aside. About 300 s with the build.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv |
	tee "$OUT/nvidia-smi-call3.csv"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bash bench/python_h200.sh >/tmp/build-call3.txt 2>&1 || { tail -20 /tmp/build-call3.txt; exit 1; }
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python" RR_LAB_GRID_CAP=32
d=/tmp/s63-call3
rm -rf $d && mkdir -p $d
sweep() { # NAME SECONDS SHAPES DTYPES OPS PLANS
	local n impls=rowreduce
	n=$(echo "$6" | tr ';' '\n' | grep -c .)
	for i in $(seq 0 $((n - 1))); do impls=$impls,plan$i; done
	RR_LAB_PLANS="$6" timeout "$2" python3 bench/lab/s60/compare_plans.py --shapes "$3" \
		--dtypes "$4" --ops "$5" --impls "$impls,compile" --rounds 3 --samples 3 --sample-ms 5 \
		--l2 cold --time-limit $(($2 - 30)) --out "$d/$1" 2>"$d/$1.err"
	echo "== $1 (exit $?)"
	grep -E "^\| [a-z_]+ \|" "$d/$1/comparison.md" 2>/dev/null
}
G="S=grid,G=persistent"
sweep plans-sum-cap 260 2x4000037,4x2097152,16x1048576,7x777777,2x2000003,1x131073 f32,bf16 sum \
	"W=1024,V=4,U=2,R=1,C=128,$G;W=1024,V=4,U=2,R=1,C=64,$G;W=512,V=4,U=2,R=1,C=256,$G;W=1024,V=8,U=1,R=1,C=128,$G;W=512,V=8,U=1,R=1,C=256,$G"
(cd $d && tar czf "$OUT/results-call3.tgz" .)
