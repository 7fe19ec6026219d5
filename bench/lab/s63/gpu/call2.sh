#!/usr/bin/env bash
# Session 63, a lab call (H100 or H200). 1) add_layernorm bf16 on rows of 16384-32768, where
# torch.compile led on both cards (H200 4096x32768 0.93 of it, 2048x16384 0.88): fixed plans that
# re-read the row from L2 (S=reread, which no earlier sweep tried there; the model prices it 1.25x
# the pick) beside the pick and torch.compile. 2) add_layernorm on 4-16 rows of 1-2M
# elements over the grid (0.86-0.95 of torch.compile on the H200): C = 32 blocks a row, which
# re-read their segments from L2 where C = 64 keeps them over two waves. 3) If time is left,
# bench/lab/s62/gpu/call4.sh: ncu of sum f32 on few wide rows beside torch.compile's kernels.
# Carry .deps .whl .rr-commit; bench/results moved aside. About 570 s with the build.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv |
	tee "$OUT/nvidia-smi-call2.csv"
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
P="R=1,C=1,S=reread"
sweep plans-aln-reread 200 4096x32768,2048x32768,2048x16384,1000x30000 bf16 add_layernorm,layernorm \
	"W=512,V=8,U=2,$P;W=1024,V=8,U=1,$P;W=512,V=8,U=1,$P;W=256,V=8,U=2,$P;W=128,V=8,U=2,$P;W=512,V=8,U=2,$P,G=persistent"
G="R=1,C=32,S=grid,G=persistent"
sweep plans-aln-grid 150 4x2097152,16x1048576,8x1000003 bf16,f32 add_layernorm \
	"W=512,V=8,U=2,$G;W=512,V=8,U=1,$G;W=512,V=4,U=4,$G;W=256,V=8,U=2,$G"
(cd "$OUT" && tar czf results-sweeps.tgz plans-* && rm -rf plans-aln-reread plans-aln-grid)
left=$((570 - SECONDS))
[ $left -gt 120 ] && timeout $left bash bench/lab/s62/gpu/call4.sh
