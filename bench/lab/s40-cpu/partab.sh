#!/bin/bash
# partab.sh KERNELS DTYPES SHAPES ROUNDS: ABBA of RR_CPU_ROW_PARTS=0 (A) against unset (B)
K=$1 D=$2 S=$3 R=${4:-2}
for r in $(seq $R); do for side in A B B A; do
  if [ $side = A ]; then export RR_CPU_ROW_PARTS=0; else unset RR_CPU_ROW_PARTS; fi
  build/rowreduce bench --backend cpu --kernels $K --dtypes $D --shapes $S --samples 5 --sample-ms 20 --warmup-ms 50 --no-ceilings --out ${LAB:-/tmp/lab}/pab >/dev/null 2>&1
  python3 -c "
import json
for r in json.load(open('${LAB:-/tmp/lab}/pab/results.json'))['rows']:
    ph=r['phases']['e2e']
    print('$side', r['kernel'], r['dtype'], '%dx%d'%(r['M'],r['N']), round(ph['median_us'],1))
"
done; done
