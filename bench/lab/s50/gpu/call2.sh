#!/usr/bin/env bash
# Session 50, call 2: layernorm's odd rows one access at a time (plans-probes.txt), then ncu of
# layernorm and its probe without col inputs, odd beside aligned, W=128 one row a block.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
p="W=128,V=8,U=1,R=1,C=1,S=regs,G=rows"; n=bench/lab/s50/gpu/probes/ln_nocol.rr
PLAN_FILE=bench/lab/s50/gpu/plans-probes.txt \
NCU_SPECS="layernorm:bf16:2047x6143:$p layernorm:bf16:2048x6144:$p $n:bf16:2047x6143:$p $n:bf16:2048x6144:$p" \
	bash tools/gpu/session.sh info plans ncu
grep -E "^####|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Executed Ipc A|Issue Slots Busy|Stall|Warp Cycles Per Issued|One or More|No Eligible" $OUT/ncu.txt | head -80
