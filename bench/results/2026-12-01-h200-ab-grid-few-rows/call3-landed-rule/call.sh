#!/usr/bin/env bash
# session 9, call 3: A/B (A = 179fe89, B = tree) on few wide rows (seen and unseen) and the 3-pass norms; then the few wide rows beside the peers
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
export RR_CACHE_DIR=/tmp/rr-cache LD_LIBRARY_PATH=$PWD/.deps/lib PYTHONUNBUFFERED=1
mkdir -p /tmp/c3
build() { (cd $1 && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_GIT_COMMIT="$(cat .rr-commit)" \
    -DCMAKE_PREFIX_PATH=$OLDPWD/.deps >/tmp/c3/build-$(basename $1).log 2>&1 && cmake --build build-gpu -j 16 --target rowreduce_cli ${2:-} >>/tmp/c3/build-$(basename $1).log 2>&1) || { echo "build $1 failed"; tail -20 /tmp/c3/build-$(basename $1).log; exit 1; }; }
echo "== builds $(date -u +%T)"
build .base1 & build . rowreduce_shared & wait
R1=$PWD/.base1/build-gpu/rowreduce R2=$PWD/build-gpu/rowreduce
for r in $R1 $R2; do [ -x $r ] || { echo "missing $r"; exit 1; }; done
ab() { # name shapes kernels timeout
  i=0; for side in A B B A; do i=$((i+1)); bin=$R2; [ $side = A ] && bin=$R1
    timeout $4 "$bin" bench --backend cuda --shapes $2 --kernels $3 --dtypes f32,bf16 --l2 cold --samples 3 --sample-ms 3 \
      --warmup-ms 8 --no-ceilings --out /tmp/c3/$1/$i-$side >/dev/null 2>/tmp/c3/$1-$i.err || echo "run $1 $i failed: $(tail -2 /tmp/c3/$1-$i.err)"; done
  python3 tools/gpu/ab.py /tmp/c3/$1/1-A/results.json /tmp/c3/$1/2-B/results.json /tmp/c3/$1/3-B/results.json /tmp/c3/$1/4-A/results.json > /tmp/c3/ab-$1.md
  grep -E 'faster|slower' /tmp/c3/ab-$1.md | grep -v tie | awk -F'|' '{print $2,$3,$4,$6,$7,$8,$9}' | head -70; tail -1 /tmp/c3/ab-$1.md; }
echo "== ab wide $(date -u +%T)"
ab wide 16x128257,1x131073,2x131072,12x100003,8x262144 all 70
echo "== ab three-pass $(date -u +%T)"
ab three 1000x50265,512x32003 layernorm,add_layernorm 40
tar czf $OUT/c3-ab.tgz -C /tmp c3
echo "== compare $(date -u +%T)"
export RR_LIBRARY="$PWD/build-gpu/librowreduce.so" PYTHONPATH="$PWD/python"
python3 -m pip install -q --no-index --no-deps --target /tmp/py-site .whl/*.whl >/dev/null 2>&1 && export PYTHONPATH="$PYTHONPATH:/tmp/py-site"
d=bench/results/2026-12-01-h200-compare-few-wide-s9
timeout 200 python3 bench/compare_torch.py --shapes 16x128257,1x131073,12x100003,1000x50265 --dtypes f32,bf16 --l2 cold \
  --ops rmsnorm,layernorm,add_layernorm,softmax,cross_entropy --rounds 4 --samples 3 --sample-ms 5 --time-limit 170 --out $d 2>/tmp/c3/compare.err | tail -3
$R2 verify $d | tail -1
tar czf $OUT/compare.tgz $d
echo "== done $(date -u +%T)"
