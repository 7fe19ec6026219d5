# session 14, call 8: A/B of pricing f32 clusters that keep their segment in registers as loaded
# at once (U = chunks in flight), against main: the three f32 picks it changes
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=256x262144,512x131072,1024x131072 AB_KERNELS=layernorm,add_layernorm \
AB_DTYPES=f32 AB_RUN_LIMIT=60 timeout 250 bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1
tail -12 $OUT/ab-log.txt
