# call 6: A/B of the final planner (cluster in registers + the cluster-rows factor) against main
# on softmax f32 (whose picks moved from G=rows to persistent) and the odd rows that keep their plans
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=1024x65536,512x131072,256x262144,1024x131072,1000x50265 AB_KERNELS=softmax,layernorm \
AB_DTYPES=f32 AB_RUN_LIMIT=80 timeout 400 bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1
tail -16 $OUT/ab-log.txt
