# session 16, calls 2-3: the planner with raw keeps (this tree) against main before them (.base,
# 98b322c), ABBA, L2 cold, on the shapes whose picks or realisations changed. SET=wide (call 2,
# then the gpu tests) or SET=odd (call 3).
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info > $OUT/info-log.txt 2>&1 || { tail -5 $OUT/info-log.txt; exit 1; }
export AB_KERNELS=rmsnorm,softmax,layernorm AB_DTYPES=f32,bf16 AB_RUN_LIMIT=150
if [ "$SET" = wide ]; then
	export AB_SHAPES=4096x32768,1024x65536,512x131072,256x262144,64x524288,1024x131072
else
	export AB_SHAPES=1000x50265,4096x32003,512x32003,2048x16384,16x1048576,2x4000037
fi
bash tools/gpu/session.sh ab 2>&1 | tail -60
if [ "$SET" = wide ]; then
	(cd build-gpu && timeout 200 ctest -L gpu --output-on-failure 2>&1 | tail -15) | tee $OUT/gpu-tests.txt
fi
