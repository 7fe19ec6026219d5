#!/usr/bin/env bash
# Session 62, call 4: sum f32 on few wide rows over the grid (2x4000037, 1x131073), where
# torch.compile stayed 3-9 % ahead of every fixed plan on two H100s: ncu's duration, launch
# shape and a few stall counters of rowreduce's pick beside every kernel of one torch.compile
# call (compile_sum.py). Carry .deps .whl .rr-commit; bench/results moved aside. About 200 s.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
timeout 150 bash tools/gpu/session.sh info >"$OUT/info.txt" 2>&1
RR=$PWD/build-gpu/rowreduce
export RR_CACHE_DIR=/tmp/rr-cache
m=gpu__time_duration.sum,sm__cycles_active.avg,dram__bytes_read.sum,launch__grid_size,launch__block_size
m=$m,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
m=$m,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
m=$m,smsp__warp_issue_stalled_membar_per_warp_active.pct
m=$m,smsp__warp_issue_stalled_barrier_per_warp_active.pct
for shape in 2x4000037 1x131073; do
	echo "#### rowreduce sum f32 $shape"
	timeout 40 ncu --metrics $m -k regex:rr_ --launch-skip 2 --launch-count 1 "$RR" run \
		--backend cuda --kernel sum --shape $shape --dtype f32 --repeat 5 2>&1 |
		grep -E "rr_|plan|^\s+(sm|smsp|dram|gpu|launch)__"
	echo "#### torch.compile sum f32 $shape"
	timeout 90 ncu --metrics $m --profile-from-start off python3 bench/lab/s62/gpu/compile_sum.py \
		$shape 2>&1 | grep -E "^  [a-zA-Z_].*\(|^\s+(sm|smsp|dram|gpu|launch)__"
done | tee "$OUT/call4.txt"
