#!/usr/bin/env bash
# Session 48, call 5: ctest -L gpu at this tree, then softmax and cross_entropy on odd rows
# beside their aligned neighbours (the tool's own results folder, archived under $OUT).
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info test
RR=$PWD/build-gpu/rowreduce
export RR_CACHE_DIR=/tmp/rr-cache
d=/tmp/odd-vs-aligned-s48
shapes=2047x6143,2048x6144,8191x1023,8192x1024,512x32003,512x32000,1000x50265,1000x50256,65535x127,65536x128,16x128257,16x128256
echo "== odd vs aligned ($(date -u +%H:%M:%S))"
timeout 240 "$RR" bench --backend cuda --kernels softmax,cross_entropy --dtypes f32,bf16 --l2 cold --shapes $shapes \
	--samples 3 --sample-ms 5 --warmup-ms 10 --out $d 2>$OUT/odd.err
echo "exit $?"; tail -2 $OUT/odd.err
"$RR" verify $d >$d/verify.txt 2>&1; tail -1 $d/verify.txt
cp $OUT/ctest-gpu.log $OUT/health.txt $OUT/nvidia-smi.csv $d/ 2>/dev/null
python3 tools/gpu/summary.py $d/results.json | tail -50
tar czf $OUT/odd-vs-aligned-s48.tgz -C /tmp odd-vs-aligned-s48
echo "== done ($(date -u +%H:%M:%S))"
