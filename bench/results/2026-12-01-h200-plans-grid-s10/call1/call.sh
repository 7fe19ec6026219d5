#!/usr/bin/env bash
# session 10, call 1: full build; S=grid and cluster plans under compute-sanitizer; S=grid block
# widths on single wide rows; ctest -L gpu whole
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
export RR_CACHE_DIR=/tmp/rr-cache LD_LIBRARY_PATH=$PWD/.deps/lib PYTHONUNBUFFERED=1
T0=$(date +%s)
mkdir -p /tmp/c1/plans
echo "== build $(date -u +%T)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_GIT_COMMIT="$(cat .rr-commit)" \
  -DCMAKE_PREFIX_PATH=$PWD/.deps >/tmp/c1/build.log 2>&1 && cmake --build build-gpu -j 16 >>/tmp/c1/build.log 2>&1 || { tail -20 /tmp/c1/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
R=$PWD/build-gpu/rowreduce
echo "== grid-check $(date -u +%T)"
for spec in layernorm:4x262144:bf16:W=512,V=4,U=1,R=1,C=64,S=grid,G=persistent \
  layernorm:16x131072:bf16:W=1024,V=4,U=1,R=1,C=8,S=cluster,G=persistent \
  add_layernorm:12x100003:f32:auto softmax:40x65536:f32:W=256,V=4,U=2,R=1,C=64,S=grid,G=persistent; do
  IFS=: read -r k shape dt plan <<<"$spec"
  args=(run --backend cuda --kernel "$k" --shape "$shape" --dtype $dt); [ $plan = auto ] || args+=(--layout "$plan")
  timeout 30 "$R" "${args[@]}" --repeat 5 2>&1 | grep -E "plan|validated|time|error" | sed "s|^|$k $shape $dt: |"
  for tool in memcheck racecheck; do
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 "$R" "${args[@]}" --repeat 1 >/tmp/c1/$tool-$k-$shape.log 2>&1
    echo "$tool $k $shape $dt $plan: exit $? ($(grep -E 'ERROR SUMMARY' /tmp/c1/$tool-$k-$shape.log | tail -1))"
  done
done 2>&1 | tee /tmp/c1/grid-check.txt
echo "== plans $(date -u +%T)"
while read -r k dt sh plan; do
  d=/tmp/c1/plans/$k-$dt-$sh-$(echo "$plan" | tr ',=' '-_')
  timeout 30 $R bench --backend cuda --shapes $sh --kernels $k --dtypes $dt --plan "$plan" --l2 cold \
    --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out $d >/dev/null 2>$d.err || { echo "$k $dt $sh $plan: $(tail -1 $d.err)"; continue; }
  python3 tools/gpu/summary.py $d/results.json | tail -1
done < .gl/s10-specs.txt | tee /tmp/c1/plans.txt
echo "== gpu tests $(date -u +%T)"
left=$((560 - ($(date +%s) - T0)))
(cd build-gpu && timeout $left ctest -L gpu --output-on-failure -j 3 2>&1) | tee /tmp/c1/ctest-gpu.log | tail -12
tar czf $OUT/c1.tgz -C /tmp c1
echo "== done $(date -u +%T)"
