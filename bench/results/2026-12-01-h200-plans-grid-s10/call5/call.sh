#!/usr/bin/env bash
# session 10, call 5: layernorm plans on 16x128257 and 1x131072
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
export RR_CACHE_DIR=/tmp/rr-cache LD_LIBRARY_PATH=$PWD/.deps/lib PYTHONUNBUFFERED=1
T0=$(date +%s)
mkdir -p /tmp/c5/plans
echo "== build $(date -u +%T)"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_GIT_COMMIT="$(cat .rr-commit)" \
  -DCMAKE_PREFIX_PATH=$PWD/.deps >/tmp/c5/build.log 2>&1 && cmake --build build-gpu -j 16 --target rowreduce_cli >>/tmp/c5/build.log 2>&1 || { tail -20 /tmp/c5/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
R=$PWD/build-gpu/rowreduce
echo "== plans $(date -u +%T)"
while read -r k dt sh plan; do
  d=/tmp/c5/plans/$k-$dt-$sh-$(echo "$plan" | tr ',=' '-_')
  timeout 30 $R bench --backend cuda --shapes $sh --kernels $k --dtypes $dt --plan "$plan" --l2 cold \
    --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out $d >/dev/null 2>$d.err || { echo "$k $dt $sh $plan: $(tail -1 $d.err)"; continue; }
  python3 tools/gpu/summary.py $d/results.json | tail -1
done < .gl/s10-specs2.txt | tee /tmp/c5/plans.txt
tar czf $OUT/c5.tgz -C /tmp c5
echo "== done $(date -u +%T)"
