#!/usr/bin/env bash
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}; mkdir -p $OUT
PLAN_FILE=.gl/plans5.txt NCU_SPECS="softmax:bf16:512x131072:W=256,V=8,U=2,R=1,C=8,S=cluster,G=persistent softmax:bf16:4096x32768:W=1024,V=8,U=2,R=1,C=1,S=smem,G=rows" \
  bash tools/gpu/session.sh plans ncu > $OUT/s5.txt 2>&1
grep -E 'softmax|TB/s' $OUT/s5.txt | head -12
grep -E '^####|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Eligible Warps|Issued Warp|Waves Per SM|Registers Per|Block Limit' $OUT/ncu.txt | head -40
grep -iE 'stall' $OUT/ncu.txt | head -30
