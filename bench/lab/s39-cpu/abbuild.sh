#!/bin/bash
# ABBA of two rowreduce builds: abbuild.sh A B KERNELS DTYPES SHAPES ROUNDS
A=$1 B=$2 K=$3 D=$4 S=$5 N=${6:-2}
for r in $(seq $N); do for side in A B B A; do
  bin=$A; [ $side = B ] && bin=$B
  $bin bench --backend cpu --shapes $S --kernels $K --dtypes $D --samples 5 --sample-ms 20 --warmup-ms 50 --no-ceilings --out /tmp/s39-ab-$side >/dev/null 2>&1
  python3 - $side <<'PY'
import json,sys,statistics as s
side=sys.argv[1]
for r in json.load(open('/tmp/s39-ab-%s/results.json'%side))['rows']:
    e=r['phases']['e2e'].get('samples_us')
    print(side, r['kernel'], r['dtype'], '%dx%d'%(r['M'],r['N']), round(s.median(e),1) if e else r.get('error'))
PY
done; done
