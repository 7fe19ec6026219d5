# session 14, call 1: keep the first QuACK piece, then A/B of the L2 prefetch of a persistent
# block's next row group (prefetch.cuh) against main, on the wide plans that loop over rows
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/quack-carry.sh keep .qk1 > $OUT/qk.log 2>&1 || tail -3 $OUT/qk.log
AB_SHAPES=1024x65536,256x262144,1000x50265,64x524288 AB_KERNELS=rmsnorm,softmax,layernorm,add_layernorm \
AB_DTYPES=f32,bf16 AB_RUN_LIMIT=110 timeout 520 bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1
tail -40 $OUT/ab-log.txt
