# session 14, call 5: A/B of the planner offering clusters of 16 blocks (W >= 512, S=cluster) on
# rows S=grid does not take, against main; 64x524288 and 256x262144 (suite) and two odd shapes
# the sweep never saw (100x300007, 48x700001)
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=64x524288,256x262144,100x300007,48x700001 AB_KERNELS=rmsnorm,softmax,layernorm,add_layernorm \
AB_DTYPES=f32,bf16 AB_RUN_LIMIT=120 timeout 560 bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1
tail -40 $OUT/ab-log.txt
