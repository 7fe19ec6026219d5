#!/bin/bash
# usage: splitab2.sh KERNEL DTYPE SHAPE PLAN ROUNDS  (A whole rows, B every row in parts)
k=$1 d=$2 s=$3 p=$4 n=$5
for r in $(seq $n); do for side in A B B A; do
  if [ $side = A ]; then env="RR_CPU_ROW_PARTS=0"; else env="RR_CPU_ROW_PARTS=all"; fi
  env $env build/rowreduce bench --backend cpu --kernels $k --dtypes $d --shapes $s --plan $p --samples 5 --sample-ms 20 --warmup-ms 50 --no-ceilings --out /tmp/sab >/dev/null 2>&1
  echo "$side $(grep "^| $k" /tmp/sab/results.md | cut -d'|' -f6 | awk '{print $1, $2}')"
done; done
