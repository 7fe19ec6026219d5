#!/usr/bin/env bash
# session 9, call 2: the 3-pass norms' storage sweep (re-read vs smem vs cluster), then A/B of S=grid for few rows (A = HEAD, B = tree), ABBA, L2 cold
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
export RR_CACHE_DIR=/tmp/rr-cache LD_LIBRARY_PATH=$PWD/.deps/lib
mkdir -p /tmp/c2/plans
build() { (cd $1 && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_GIT_COMMIT="$(cat .rr-commit)" \
    -DCMAKE_PREFIX_PATH=$OLDPWD/.deps >/tmp/c2/build-$(basename $1).log 2>&1 && cmake --build build-gpu -j 16 --target rowreduce_cli >>/tmp/c2/build-$(basename $1).log 2>&1) || { echo "build $1 failed"; tail -20 /tmp/c2/build-$(basename $1).log; exit 1; }; }
echo "== builds $(date -u +%T)"
build .base1 & build . & wait
R1=$PWD/.base1/build-gpu/rowreduce R2=$PWD/build-gpu/rowreduce
for r in $R1 $R2; do [ -x $r ] || { echo "missing $r"; exit 1; }; done
echo "== plans $(date -u +%T)"
while read -r k dt sh plan; do
  d=/tmp/c2/plans/$k-$dt-$sh-$(echo "$plan" | tr ',=' '-_')
  timeout 40 $R2 bench --backend cuda --shapes $sh --kernels $k --dtypes $dt --plan "$plan" --l2 cold \
    --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out $d >/dev/null 2>$d.err || { echo "$k $dt $sh $plan: $(tail -1 $d.err)"; continue; }
  python3 tools/gpu/summary.py $d/results.json | tail -1
done < bench/lab/s9-specs2.txt | tee /tmp/c2/plans.txt
S=1x131073,1x65536,4x65536,4x16384,16x60000,16x128257,8x262144
echo "== ab $(date -u +%T)"
i=0; for side in A B B A; do i=$((i+1)); bin=$R2; [ $side = A ] && bin=$R1
  timeout 110 "$bin" bench --backend cuda --shapes $S --kernels all --dtypes f32,bf16 --l2 cold --samples 3 --sample-ms 3 \
    --warmup-ms 8 --no-ceilings --out /tmp/c2/ab/$i-$side >/dev/null 2>/tmp/c2/ab-$i.err || echo "run $i failed: $(tail -2 /tmp/c2/ab-$i.err)"; done
python3 tools/gpu/ab.py /tmp/c2/ab/1-A/results.json /tmp/c2/ab/2-B/results.json /tmp/c2/ab/3-B/results.json /tmp/c2/ab/4-A/results.json > /tmp/c2/ab.md
grep -E 'faster|slower' /tmp/c2/ab.md | grep -v tie | head -60; tail -1 /tmp/c2/ab.md
tar czf $OUT/c2.tgz -C /tmp c2
echo "== done $(date -u +%T)"
