#!/usr/bin/env bash
# session 9, call 4: S=grid barrier A/B (A = 6e76d0e, B = tree: monotonic count), ABBA, L2 cold; then the GPU tests
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
export RR_CACHE_DIR=/tmp/rr-cache LD_LIBRARY_PATH=$PWD/.deps/lib PYTHONUNBUFFERED=1
mkdir -p /tmp/c4
build() { (cd $1 && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_GIT_COMMIT="$(cat .rr-commit)" \
    -DCMAKE_PREFIX_PATH=$OLDPWD/.deps >/tmp/c4/build-$(basename $1).log 2>&1 && cmake --build build-gpu -j 16 ${2:-} >>/tmp/c4/build-$(basename $1).log 2>&1) || { echo "build $1 failed"; tail -20 /tmp/c4/build-$(basename $1).log; exit 1; }; }
echo "== builds $(date -u +%T)"
build .base1 "--target rowreduce_cli" & build . & wait
R1=$PWD/.base1/build-gpu/rowreduce R2=$PWD/build-gpu/rowreduce
for r in $R1 $R2; do [ -x $r ] || { echo "missing $r"; exit 1; }; done
echo "== ab $(date -u +%T)"
i=0; for side in A B B A; do i=$((i+1)); bin=$R2; [ $side = A ] && bin=$R1
  timeout 100 "$bin" bench --backend cuda --shapes 16x128257,12x100003,1x131073 --kernels all --dtypes f32,bf16 --l2 cold --samples 3 --sample-ms 3 \
    --warmup-ms 8 --no-ceilings --out /tmp/c4/ab/$i-$side >/dev/null 2>/tmp/c4/ab-$i.err || echo "run $i failed: $(tail -2 /tmp/c4/ab-$i.err)"; done
python3 tools/gpu/ab.py /tmp/c4/ab/1-A/results.json /tmp/c4/ab/2-B/results.json /tmp/c4/ab/3-B/results.json /tmp/c4/ab/4-A/results.json > /tmp/c4/ab.md
grep -E 'faster|slower|tie' /tmp/c4/ab.md | awk -F'|' '{print $2,$3,$4,$6,$7,$8,$9}'; tail -1 /tmp/c4/ab.md
tar czf $OUT/c4-ab.tgz -C /tmp c4
echo "== gpu tests $(date -u +%T)"
(cd build-gpu && timeout 170 ctest -L gpu --output-on-failure -j 3 2>&1) | tee /tmp/c4/ctest-gpu.log | tail -12
cp /tmp/c4/ctest-gpu.log $OUT/
echo "== done $(date -u +%T)"
