#!/usr/bin/env bash
# Session 64, call 2. On an H200: the `wide` record at this tree (call1.sh with STAGE=wide). On
# an H100: ncu of add_layernorm over the grid on few wide rows (bf16 4x2097152, f32 16x1048576;
# 0.86-0.96 of torch.compile on both cards), the pick's duration, launch shape and stalls
# (barrier, membar, long scoreboard, sleeping) beside every kernel of one torch.compile call:
# how much of the pick's time its two grid barriers take. About 250 s.
# Carry .deps .whl .rr-commit; bench/results moved aside first.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
if nvidia-smi --query-gpu=name --format=csv | grep -q H200; then
	STAGE=wide bash bench/lab/s64/gpu/call1.sh
	exit
fi
timeout 150 bash tools/gpu/session.sh info >"$OUT/info.txt" 2>&1
RR=$PWD/build-gpu/rowreduce
export RR_CACHE_DIR=/tmp/rr-cache
m=gpu__time_duration.sum,sm__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum
m=$m,launch__grid_size,launch__block_size,launch__registers_per_thread
m=$m,sm__warps_active.avg.pct_of_peak_sustained_active
m=$m,dram__throughput.avg.pct_of_peak_sustained_elapsed
for s in long_scoreboard membar barrier sleeping lg_throttle; do
	m=$m,smsp__warp_issue_stalled_${s}_per_warp_active.pct
done
for job in "4x2097152 bf16" "16x1048576 f32" "16x1048576 bf16"; do
	set -- $job
	echo "#### rowreduce add_layernorm $2 $1"
	timeout 60 ncu --metrics $m -k regex:rr_ --launch-skip 2 --launch-count 1 "$RR" run \
		--backend cuda --kernel add_layernorm --shape $1 --dtype $2 --repeat 5 2>&1 |
		grep -E "rr_|plan|^\s+(sm|smsp|dram|gpu|launch)__"
	echo "#### torch.compile add_layernorm $2 $1"
	timeout 100 ncu --metrics $m --profile-from-start off python3 \
		bench/lab/s64/gpu/compile_aln.py $1 $2 2>&1 |
		grep -E "^  [a-zA-Z_].*\(|^\s+(sm|smsp|dram|gpu|launch)__"
done | tee "$OUT/call2.txt"
