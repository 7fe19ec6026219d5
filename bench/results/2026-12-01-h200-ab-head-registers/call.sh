#!/usr/bin/env bash
# session 7, call 4: head entries' register cap: .base1 (4a8968a) vs this tree, ABBA, L2 hot
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
rm -rf /tmp/deps && cp -r .deps /tmp/deps
build() { (cd $1 && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=ON -DRR_GIT_COMMIT="$(cat .rr-commit)" \
    -DCMAKE_PREFIX_PATH=/tmp/deps >$OUT/build-$(basename $1).log 2>&1 && cmake --build build-gpu -j 16 --target rowreduce_cli >>$OUT/build-$(basename $1).log 2>&1) || { echo "build $1 failed"; tail -20 $OUT/build-$(basename $1).log; exit 1; }; }
echo "== builds $(date -u +%T)"
build .base1 & build . & wait
R1=$PWD/.base1/build-gpu/rowreduce R2=$PWD/build-gpu/rowreduce
for r in $R1 $R2; do [ -x $r ] || { echo "missing $r"; exit 1; }; done
S=1x129,17x257,50000x3,65535x127,12345x321,2047x6143,8191x1023,4x4099
mkdir -p /tmp/ab4
echo "== ab4 $(date -u +%T)"
i=0; for side in A B B A; do i=$((i+1)); bin=$R2; [ $side = A ] && bin=$R1
  timeout 110 "$bin" bench --backend cuda --shapes $S --kernels all --dtypes f32,bf16 --l2 hot --samples 3 --sample-ms 4 \
    --warmup-ms 10 --no-ceilings --out /tmp/ab4/$i-$side >/dev/null 2>/tmp/ab4/$i.err || echo "run $i failed: $(tail -2 /tmp/ab4/$i.err)"; done
python3 tools/gpu/ab.py /tmp/ab4/1-A/results.json /tmp/ab4/2-B/results.json /tmp/ab4/3-B/results.json /tmp/ab4/4-A/results.json > $OUT/ab4.md
grep -E 'faster|slower' $OUT/ab4.md | grep -v tie; tail -1 $OUT/ab4.md
tar czf $OUT/ab-runs.tgz -C /tmp ab4
echo "== done $(date -u +%T)"
