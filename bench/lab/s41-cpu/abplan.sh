#!/bin/bash
# ABBA of two plans on one build: abplan.sh ROWREDUCE KERNEL DTYPE SHAPES PLAN_A PLAN_B ROUNDS
RR=$1 K=$2 D=$3 S=$4 PA=$5 PB=$6 N=${7:-2}
for r in $(seq $N); do for side in A B B A; do
  plan=$PA; [ $side = B ] && plan=$PB
  $RR bench --backend cpu --shapes $S --kernels $K --dtypes $D --plan $plan --samples 5 --sample-ms 20 --warmup-ms 50 --no-ceilings --out /tmp/s41-ab-$side >/dev/null 2>&1
  python3 - $side <<'PY'
import json,sys,statistics as s
side=sys.argv[1]
for r in json.load(open('/tmp/s41-ab-%s/results.json'%side))['rows']:
    e=r['phases']['e2e'].get('samples_us')
    print(side, r['kernel'], r['dtype'], '%dx%d'%(r['M'],r['N']), round(s.median(e),1) if e else r.get('error'))
PY
done; done
