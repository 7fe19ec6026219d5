# session 15, call 7: A/B of main against cross_entropy's U = 8 stream (branch ce-stream)
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=1024x65536,4096x32768,1024x50257,2048x16384,4096x32003 AB_KERNELS=cross_entropy \
AB_RUN_LIMIT=40 timeout 200 bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1
tail -16 $OUT/ab-log.txt
