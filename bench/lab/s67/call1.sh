#!/usr/bin/env bash
# Session 67, any call, run with lab/s66/patches/grid-trips.patch and lab/s67/patches/l2-hint.patch
# applied in the working tree and main archived into .base. On an H200: both patches taken out
# again and the STAGE record (odd by default, wide) at main through lab/s64/gpu/call1.sh
# (RECORD_ON_H200=0: the A/Bs instead). Otherwise two A/Bs against main in compare_ab's replay
# (lab/s60/gpu/ab.sh; rowreduce and base only unless AB_IMPLS adds compile): the grid-trips
# pricing on the four shapes where it moves picks (session 66's call 3; AB1_OPS, AB1_DTYPES,
# AB1_SHAPES narrow it), then RR_L2_HINT=1 (every 8- and 16-byte row load asks the L2 for 256
# bytes) on shapes where the trips patch moves none (AB2_SHAPES). Carry .deps .whl .rr-commit;
# bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/card.csv"
if [ "${RECORD_ON_H200:-1}" = 1 ] && grep -q H200 "$OUT/card.csv"; then
	git apply -R bench/lab/s67/patches/l2-hint.patch bench/lab/s66/patches/grid-trips.patch || exit 1
	bash bench/lab/s64/gpu/call1.sh
	exit
fi
t0=$(date +%s)
trap 'cd "$OUT" && tar czf /tmp/s67-call.tgz . && find . -mindepth 1 -delete && mv /tmp/s67-call.tgz .' EXIT
AB_IMPLS=${AB_IMPLS:-rowreduce,base} AB_BASE_SRC=.base AB_NAME=ab-grid-trips AB_OPS=${AB1_OPS:-sum,softmax,layernorm,add_layernorm,cross_entropy} \
	AB_DTYPES=${AB1_DTYPES:-f32,bf16} AB_SECONDS=${AB1_SECONDS:-200} \
	AB_SHAPES=${AB1_SHAPES:-2x4000037,7x777777,16x128257,5x1000000} \
	bash bench/lab/s60/gpu/ab.sh
echo "== trips done after $(($(date +%s) - t0)) s"
RR_L2_HINT=1 AB_IMPLS=${AB_IMPLS:-rowreduce,base} AB_BASE_SRC=.base AB_NAME=ab-l2-hint AB_OPS=sum,rmsnorm,softmax,add_layernorm \
	AB_DTYPES=f32,bf16 AB_SECONDS=${AB2_SECONDS:-220} \
	AB_SHAPES=${AB2_SHAPES:-4096x32768,1024x65536,16x1048576,8191x1023,2048x16384} \
	bash bench/lab/s60/gpu/ab.sh
echo "== hint done after $(($(date +%s) - t0)) s"
