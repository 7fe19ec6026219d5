#!/usr/bin/env bash
# Session 49, call 6: the six built-ins in bf16 on odd rows beside their aligned neighbours at
# this tree (the tool's own results folder, archived under $OUT); sum and the norms first, as
# separate runs so that a cut leaves the finished ones.
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info
RR=$PWD/build-gpu/rowreduce
export RR_CACHE_DIR=/tmp/rr-cache
shapes=2047x6143,2048x6144,8191x1023,8192x1024,512x32003,512x32000,1000x50265,1000x50256,65535x127,65536x128
for k in rmsnorm,layernorm add_layernorm,sum softmax,cross_entropy; do
	d=/tmp/odd-vs-aligned-s49/${k/,/-}
	echo "== $k odd vs aligned ($(date -u +%H:%M:%S))"
	timeout 150 "$RR" bench --backend cuda --kernels $k --dtypes bf16 --l2 cold --shapes $shapes \
		--samples 3 --sample-ms 5 --warmup-ms 10 --out $d 2>$OUT/odd-${k/,/-}.err
	echo "exit $?"
	cp $OUT/health.txt $OUT/nvidia-smi.csv $d/ 2>/dev/null
	python3 tools/gpu/summary.py $d/results.json | tail -24
	tar czf $OUT/odd-vs-aligned-s49.tgz -C /tmp odd-vs-aligned-s49
done
echo "== done ($(date -u +%H:%M:%S))"
