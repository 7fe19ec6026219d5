#!/usr/bin/env bash
# session 10, call 6: A/B (A = 84e03f5, B = tree: headed tails in one trip, S=grid one-wave model),
# ABBA, L2 cold, few wide rows; then the single-row plans again with B
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
export RR_CACHE_DIR=/tmp/rr-cache LD_LIBRARY_PATH=$PWD/.deps/lib PYTHONUNBUFFERED=1
mkdir -p /tmp/c6
build() { (cd $1 && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_GIT_COMMIT="$(cat .rr-commit)" \
    -DCMAKE_PREFIX_PATH=$OLDPWD/.deps >/tmp/c6/build-$(basename $1).log 2>&1 && cmake --build build-gpu -j 8 --target rowreduce_cli >>/tmp/c6/build-$(basename $1).log 2>&1) || { echo "build $1 failed"; tail -20 /tmp/c6/build-$(basename $1).log; exit 1; }; }
echo "== builds $(date -u +%T)"
build .base1 & build . & wait
R1=$PWD/.base1/build-gpu/rowreduce R2=$PWD/build-gpu/rowreduce
for r in $R1 $R2; do [ -x $r ] || { echo "missing $r"; exit 1; }; done
echo "== ab $(date -u +%T)"
i=0; for side in A B B A; do i=$((i+1)); bin=$R2; [ $side = A ] && bin=$R1
  timeout 130 "$bin" bench --backend cuda --shapes ${AB_SHAPES:-16x128257,16x131072,8x262144,7x777777} --kernels layernorm,add_layernorm --dtypes f32,bf16 --l2 cold --samples 3 --sample-ms 3 \
    --warmup-ms 8 --no-ceilings --out /tmp/c6/ab/$i-$side >/dev/null 2>/tmp/c6/ab-$i.err || echo "run $i failed: $(tail -2 /tmp/c6/ab-$i.err)"; done
python3 tools/gpu/ab.py /tmp/c6/ab/1-A/results.json /tmp/c6/ab/2-B/results.json /tmp/c6/ab/3-B/results.json /tmp/c6/ab/4-A/results.json > /tmp/c6/ab.md
grep -E 'faster|slower|tie' /tmp/c6/ab.md | awk -F'|' '{print $2,$3,$4,$6,$7,$8,$9}'; tail -1 /tmp/c6/ab.md
echo "== plans $(date -u +%T)"
mkdir -p /tmp/c6/plans
: || head -8 .gl/s10-specs.txt | while read -r k dt sh plan; do
  d=/tmp/c6/plans/$k-$dt-$sh-$(echo "$plan" | tr ',=' '-_')
  timeout 30 $R2 bench --backend cuda --shapes $sh --kernels $k --dtypes $dt --plan "$plan" --l2 cold \
    --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out $d >/dev/null 2>$d.err || { echo "$k $dt $sh $plan: $(tail -1 $d.err)"; continue; }
  python3 tools/gpu/summary.py $d/results.json | tail -1
done | tee /tmp/c6/plans.txt
tar czf $OUT/c6.tgz -C /tmp c6
echo "== done $(date -u +%T)"
