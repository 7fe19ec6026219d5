# call 5: A/B of the cluster-in-registers planner change (f32 wide rows), then softmax's grid
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=1024x65536,512x131072,256x262144,1024x131072,1000x50265,1024x50257 AB_KERNELS=rmsnorm,softmax,layernorm \
AB_DTYPES=f32 AB_RUN_LIMIT=120 timeout 500 bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1
tail -30 $OUT/ab-log.txt
PLAN_SPECS="softmax:f32:1024x65536:W=512,V=4,U=4,R=1,C=2,S=cluster,G=persistent softmax:f32:1024x65536:W=512,V=4,U=4,R=1,C=4,S=cluster,G=rows softmax:f32:512x131072:W=512,V=4,U=4,R=1,C=4,S=cluster,G=persistent softmax:f32:256x262144:W=512,V=4,U=4,R=1,C=8,S=cluster,G=persistent" \
timeout 80 bash tools/gpu/session.sh plans > $OUT/plans-log.txt 2>&1; cat $OUT/plans.txt
