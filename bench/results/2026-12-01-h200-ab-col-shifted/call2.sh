#!/usr/bin/env bash
# session 7, call 2: two A/Bs (ABBA, gpu_graph):
#  1. col inputs by shifted aligned loads: .base0 (041ed9a) vs .base1 (874918f), odd shapes with col inputs, L2 cold
#  2. the planner's few-groups terms: .base1 (874918f) vs this tree, tiny and changed shapes, L2 hot
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
commit=$(cat .rr-commit)
build() { # dir -> build-gpu/rowreduce
  (cd $1 && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=ON -DRR_GIT_COMMIT="$(cat .rr-commit)" \
    -DCMAKE_PREFIX_PATH=/tmp/deps >$OUT/build-$(basename $1).log 2>&1 && cmake --build build-gpu -j 16 --target rowreduce_cli >>$OUT/build-$(basename $1).log 2>&1) || { echo "build $1 failed"; tail -20 $OUT/build-$(basename $1).log; exit 1; }
}
rm -rf /tmp/deps && cp -r .deps /tmp/deps
echo "== builds $(date -u +%T)"
build .base0 & build .base1 & build . & wait
R0=$PWD/.base0/build-gpu/rowreduce R1=$PWD/.base1/build-gpu/rowreduce R2=$PWD/build-gpu/rowreduce
for r in $R0 $R1 $R2; do [ -x $r ] || { echo "missing $r"; exit 1; }; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
run() { # bin dir kernels shapes l2
  "$1" bench --backend cuda --shapes "$4" --kernels "$3" --dtypes f32,bf16 --l2 "$5" --samples 3 --sample-ms 4 \
    --warmup-ms 10 --no-ceilings --out "$2" >/dev/null 2>"$2.err" || { echo "run $2 failed: $(tail -2 $2.err)"; }
}
mkdir -p /tmp/ab1 /tmp/ab2
S1=65535x127,65536x128,8191x1023,8192x1024,2047x6143,2048x6144,12345x321,512x32003,512x32000,1000x50265,1000x50256,16x128257
echo "== ab1 colvec $(date -u +%T)"
i=0; for side in A B B A; do i=$((i+1)); bin=$R1; [ $side = A ] && bin=$R0
  timeout 150 bash -c "$(declare -f run); run $bin /tmp/ab1/$i-$side rmsnorm,layernorm,add_layernorm $S1 cold"; done
python3 tools/gpu/ab.py /tmp/ab1/1-A/results.json /tmp/ab1/2-B/results.json /tmp/ab1/3-B/results.json /tmp/ab1/4-A/results.json | tee $OUT/ab1.md | tail -60
S2=1x127,1x129,3x3,17x257,64x257,1x1000,64x4096,50000x3,1x131073,16x128257
echo "== ab2 planner $(date -u +%T)"
i=0; for side in A B B A; do i=$((i+1)); bin=$R2; [ $side = A ] && bin=$R1
  timeout 150 bash -c "$(declare -f run); run $bin /tmp/ab2/$i-$side all $S2 hot"; done
python3 tools/gpu/ab.py /tmp/ab2/1-A/results.json /tmp/ab2/2-B/results.json /tmp/ab2/3-B/results.json /tmp/ab2/4-A/results.json | tee $OUT/ab2.md | tail -130
tar czf $OUT/ab-runs.tgz -C /tmp ab1 ab2
echo "== done $(date -u +%T)"
