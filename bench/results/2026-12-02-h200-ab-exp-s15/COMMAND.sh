# session 15, call 1: A/B of main (2bb5bf6) against it:
# exp with subnormal results flushed and softmax's kept exponentials, softmax and cross_entropy
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info > $OUT/info-log.txt 2>&1
AB_SHAPES=4096x32768,1024x65536,2048x16384,4096x4095,12345x321,65535x127,1024x50257,8191x1023 \
AB_KERNELS=softmax,cross_entropy AB_RUN_LIMIT=120 timeout 420 bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1
tail -40 $OUT/ab-log.txt
