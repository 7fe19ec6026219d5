#!/usr/bin/env bash
# session 9, call 1: plan sweep on few very wide odd rows and layernorm f32 1000x50265; ncu of the cluster and grid plans and torch.compile
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
export RR_CACHE_DIR=/tmp/rr-cache LD_LIBRARY_PATH=$PWD/.deps/lib
mkdir -p /tmp/c1/plans
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_GIT_COMMIT="$(cat .rr-commit)" \
    -DCMAKE_PREFIX_PATH=$PWD/.deps >/tmp/c1/build.log 2>&1 && cmake --build build-gpu -j 16 --target rowreduce_cli >>/tmp/c1/build.log 2>&1 || { tail -20 /tmp/c1/build.log; exit 1; }
R=$PWD/build-gpu/rowreduce
echo "== plans $(date -u +%T)"
while read -r k dt sh plan; do
  d=/tmp/c1/plans/$k-$dt-$sh-$(echo "$plan" | tr ',=' '-_')
  timeout 40 $R bench --backend cuda --shapes $sh --kernels $k --dtypes $dt --plan "$plan" --l2 cold \
    --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out $d >/dev/null 2>$d.err || { echo "$k $dt $sh $plan: $(tail -1 $d.err)"; continue; }
  python3 tools/gpu/summary.py $d/results.json | tail -1
done < bench/lab/s9-specs.txt | tee /tmp/c1/plans.txt
echo "== ncu $(date -u +%T)"
secs="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats"
for spec in rmsnorm:f32:16x128257:auto rmsnorm:f32:16x128257:W=256,V=4,U=4,R=1,C=32,S=grid,G=persistent rmsnorm:f32:1x131073:auto; do
  IFS=: read -r k dt shape plan <<<"$spec"
  args=(run --backend cuda --kernel $k --shape $shape --dtype $dt --repeat 3); [ $plan = auto ] || args+=(--layout $plan)
  echo "#### rowreduce $spec"
  timeout 60 ncu $secs -k regex:rr_ --launch-skip 1 --launch-count 1 $R "${args[@]}" 2>&1 | grep -vE "^==PROF==|^  *-+ *$"
done > /tmp/c1/ncu.txt 2>&1
for spec in rmsnorm:f32:16x128257 rmsnorm:f32:1x131073; do
  IFS=: read -r op dt shape <<<"$spec"
  echo "#### peer compile $spec"
  timeout 120 ncu $secs -k regex:triton --launch-skip 4 --launch-count 3 python3 bench/lab/ncu_peer.py $op $shape $dt compile 2>&1 | grep -vE "^==PROF==|^  *-+ *$"
done >> /tmp/c1/ncu.txt 2>&1
grep -E "^####|^  [a-z_].*\(|Duration|Registers Per|Block Size|Grid Size|DRAM Throughput|Achieved Occupancy" /tmp/c1/ncu.txt | head -80
tar czf $OUT/c1.tgz -C /tmp c1
echo "== done $(date -u +%T)"
