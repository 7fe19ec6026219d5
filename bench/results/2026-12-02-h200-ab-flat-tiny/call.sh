#!/usr/bin/env bash
# session 12 call 1: keep QuACK piece 1; A/B flat tiny launches (tree) against main (.base), L2 hot;
# flat alternatives on 1x129 by hand.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p $OUT
bash tools/gpu/quack-carry.sh keep .qk1 2>&1 | tail -3
bash tools/gpu/session.sh info 2>&1 | tail -4
export AB_SHAPES=1x129,3x3,17x257,64x257,50000x3,1x127,1x1000,65535x127 AB_L2=hot AB_RUN_LIMIT=90
timeout 380 bash tools/gpu/session.sh ab 2>&1 | grep -v "^| " | tail -5
grep -E "faster|slower" $OUT/ab.md | head -100
RR=$PWD/build-gpu/rowreduce
echo "== plans $(date -u +%T)"
for P in W=32,V=1,U=5,R=1 W=64,V=1,U=3,R=1 W=128,V=1,U=2,R=1 W=256,V=1,U=1,R=1 W=32,V=4,U=2,R=1 W=16,V=8,U=2,R=1; do
  d=/tmp/plans/$(echo $P | tr ',=' '-_')
  timeout 60 $RR bench --backend cuda --shapes 1x129 --kernels rmsnorm,softmax,layernorm,add_layernorm --dtypes f32,bf16 --plan $P \
    --l2 hot --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out $d >/dev/null 2>$d.err || tail -2 $d.err
  echo "-- $P"; python3 tools/gpu/summary.py $d/results.json | tail -9
done 2>&1 | tee $OUT/plans.txt | head -80
tar czf $OUT/plans.tgz -C /tmp plans
rm -f $OUT/build*.log
echo "== end $(date -u +%T)"
