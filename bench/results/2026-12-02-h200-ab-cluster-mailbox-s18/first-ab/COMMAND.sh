#!/usr/bin/env bash
# call 1: mailbox clusters — smoke, sanitizers, A/B against main, C x W sweep
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p $OUT
bash tools/gpu/session.sh info > $OUT/s-info.txt 2>&1; tail -3 $OUT/s-info.txt
RR=$PWD/build-gpu/rowreduce
export RR_CACHE_DIR=/tmp/rr-cache
echo "== smoke"
for spec in rmsnorm:bf16:512x131072:auto softmax:f32:300x65539:W=512,V=4,U=2,R=1,C=4,S=cluster,G=persistent \
  layernorm:bf16:700x32771:W=256,V=8,U=2,R=1,C=2,S=cluster,G=persistent layernorm:f32:1024x131072:auto \
  sum:f32:1000x262144:W=1024,V=4,U=1,R=1,C=16,S=cluster,G=rows cross_entropy:bf16:100x131073:auto; do
  IFS=: read -r k dt shape plan <<<"$spec"
  args=(run --backend cuda --kernel $k --shape $shape --dtype $dt --repeat 3)
  [ "$plan" = auto ] || args+=(--layout "$plan")
  timeout 60 $RR "${args[@]}" 2>&1 | grep -E "plan|validated|time|error|rror" | sed "s|^|$spec: |"
  echo "$spec exit ${PIPESTATUS[0]}"
done
echo "== sanitizers"
for spec in softmax:f32:300x65539:W=512,V=4,U=2,R=1,C=4,S=cluster,G=persistent layernorm:bf16:700x32771:W=256,V=8,U=2,R=1,C=2,S=cluster,G=persistent; do
  IFS=: read -r k dt shape plan <<<"$spec"
  for tool in memcheck racecheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $RR run --backend cuda --kernel $k --shape $shape --dtype $dt --layout "$plan" --repeat 1 > $OUT/$tool-$k.log 2>&1
    echo "$tool $spec: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool-$k.log | tail -1))"
  done
done
echo "== ab"
AB_SHAPES=512x131072,256x262144 AB_KERNELS=rmsnorm,softmax,layernorm AB_DTYPES=f32,bf16 AB_RUN_LIMIT=95 \
  bash tools/gpu/session.sh ab > $OUT/s-ab.txt 2>&1; tail -20 $OUT/s-ab.txt
