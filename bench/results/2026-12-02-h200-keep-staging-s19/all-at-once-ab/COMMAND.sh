# session 19, call 4: raw keeps of up to 8 packs a thread staged through registers against 4cfbaf6 (.base), ABBA, L2 cold
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=512x131072,256x262144,1024x65536,4096x32768,1000x50265 AB_KERNELS=rmsnorm,softmax,layernorm AB_DTYPES=bf16,f32 AB_RUN_LIMIT=110 \
	bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1; grep -E "^\||rows:|failed" $OUT/ab-log.txt | tail -40
rm -f $OUT/ab-[0-9].err
