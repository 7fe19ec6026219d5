#!/usr/bin/env bash
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}; mkdir -p $OUT
AB_SHAPES=512x131072,256x262144,1024x65536,1000x50265,2048x131072 AB_KERNELS=rmsnorm,softmax,layernorm,add_layernorm AB_DTYPES=bf16 AB_RUN_LIMIT=120 \
  bash tools/gpu/session.sh ab > $OUT/s-ab.txt 2>&1; tail -28 $OUT/s-ab.txt
