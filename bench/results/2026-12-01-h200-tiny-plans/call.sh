#!/usr/bin/env bash
# session 7, call 1: tiny rows under V=1 plans against the planner's (L2 hot); ncu of odd vs aligned
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info 2>&1 | tail -4 || true
RR=$PWD/build-gpu/rowreduce
[ -x "$RR" ] || { echo build failed; tail -30 $OUT/build.log; exit 1; }
echo "== tiny plans $(date -u +%T)"
mkdir -p /tmp/tiny
dirs=()
for plan in auto W=32,V=1,U=1,R=1 W=64,V=1,U=1,R=1 W=128,V=1,U=1,R=1 W=32,V=2,U=1,R=1; do
  d=/tmp/tiny/$(echo $plan | tr ',=' '-_'); dirs+=($d)
  timeout 75 $RR bench --backend cuda --kernels rmsnorm,softmax,layernorm,cross_entropy,sum,add_layernorm \
    --dtypes f32,bf16 --shapes 1x129,17x257,1x1000,64x257 --plan $plan --l2 hot --samples 5 --sample-ms 5 \
    --warmup-ms 10 --no-ceilings --out $d >/dev/null 2>$d.err || echo "$plan failed: $(tail -2 $d.err)"
done
python3 .gl/plans_table.py "${dirs[@]}" | tee $OUT/tiny-plans.md
tar czf $OUT/tiny.tgz -C /tmp tiny
echo "== ncu $(date -u +%T)"
export NCU_SPECS="rmsnorm:bf16:65535x127:auto rmsnorm:bf16:65536x128:auto softmax:f32:2047x6143:auto softmax:f32:2048x6144:auto rmsnorm:bf16:8191x1023:auto rmsnorm:bf16:8192x1024:auto rmsnorm:bf16:17x257:auto rmsnorm:bf16:17x257:W=64,V=1,U=1,R=1"
export NCU_PEERS=""
timeout 200 bash tools/gpu/session.sh ncu 2>&1 | tail -90
echo "== done $(date -u +%T)"
