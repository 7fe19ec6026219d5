#!/usr/bin/env bash
# Session 50, call 5: where layernorm bf16's odd rows spend their time, instruction by
# instruction: ncu source counters (SASS with stall samples) and a few counters of the odd
# row (2047x6143) beside the aligned one (2048x6144), one plan, one launch each.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info >/dev/null 2>&1
RR=$PWD/build-gpu/rowreduce
export RR_CACHE_DIR=/tmp/rr-cache
p=W=128,V=8,U=1,R=1,C=1,S=regs,G=rows
m=smsp__inst_executed.sum,smsp__cycles_active.avg,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__data_pipe_lsu_wavefronts.sum,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_selected_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct,smsp__warp_issue_stalled_membar_per_warp_active.pct,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct,smsp__warp_issue_stalled_imc_miss_per_warp_active.pct,smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for k in layernorm:2047x6143 layernorm:2048x6144 bench/lab/s50/gpu/probes/ln_nocol.rr:2047x6143 bench/lab/s50/gpu/probes/ln_nocol.rr:2048x6144; do
	kern=${k%%:*}; shape=${k##*:}; tag=$(basename $kern .rr)-$shape
	echo "#### $tag"
	timeout 120 ncu --metrics $m -k regex:rr_ --launch-skip 1 --launch-count 1 "$RR" run --backend cuda \
		--kernel $kern --shape $shape --dtype bf16 --layout $p --repeat 3 2>&1 | grep -E "rr_|^\s+(smsp|l1tex|lts|dram|sm__|gpu__)"
	timeout 150 ncu --section SourceCounters --section WarpStateStats -k regex:rr_ --launch-skip 1 --launch-count 1 \
		-o /tmp/$tag "$RR" run --backend cuda --kernel $kern --shape $shape --dtype bf16 --layout $p --repeat 3 >/dev/null 2>&1
	ncu -i /tmp/$tag.ncu-rep --page source --csv --print-source sass > $OUT/$tag-sass.csv 2>&1
	gzip -f $OUT/$tag-sass.csv
done | tee $OUT/call5.txt
