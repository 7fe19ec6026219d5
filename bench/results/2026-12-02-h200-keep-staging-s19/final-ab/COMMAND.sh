# session 19, call 5: cluster raw keeps of up to 8 packs a thread staged through registers, four chunks at a time, against 4cfbaf6 (.base), ABBA x2, L2 cold
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=128x131072,512x131072,1024x131072,2048x131072,256x262144 AB_KERNELS=rmsnorm,layernorm,softmax AB_DTYPES=bf16 AB_RUN_LIMIT=110 AB_REPEAT=2 \
	bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1; grep -E "^\||rows:|failed" $OUT/ab-log.txt | tail -40
rm -f $OUT/ab-[0-9].err
