#!/usr/bin/env bash
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}; mkdir -p $OUT
AB_SHAPES=512x131072,256x262144,2048x131072 AB_KERNELS=rmsnorm,sum AB_DTYPES=bf16 AB_RUN_LIMIT=60 \
  bash tools/gpu/session.sh ab > $OUT/s-ab.txt 2>&1; tail -12 $OUT/s-ab.txt
RR=$PWD/build-gpu/rowreduce
timeout 100 ncu --section WarpStateStats --section SourceCounters -k regex:rr_ --launch-skip 1 --launch-count 1 \
  $RR run --backend cuda --kernel softmax --shape 512x131072 --dtype bf16 --layout W=256,V=8,U=2,R=1,C=8,S=cluster,G=persistent --repeat 3 > $OUT/ncu-src.txt 2>&1
echo "ncu exit $?"; grep -iE 'stall|Warp Cycles|smsp__pcsamp|Location|Sampling' $OUT/ncu-src.txt | head -40
