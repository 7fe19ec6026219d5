# session 16, call 3: the planner after the first A/B (raw clusters priced as streaming only
# at W <= 512 and U <= 2) against main before raw keeps (.base, 98b322c), ABBA, L2 cold: the
# bf16 rows whose picks moved again, then two odd widths off the suites in f32 and bf16.
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info > $OUT/info-log.txt 2>&1 || { tail -5 $OUT/info-log.txt; exit 1; }
export AB_KERNELS=rmsnorm,softmax,layernorm AB_RUN_LIMIT=100
mkdir -p $OUT/wide $OUT/odd
AB_SHAPES=1024x65536,512x131072,256x262144 AB_DTYPES=bf16 OUT=$OUT/wide bash tools/gpu/session.sh ab 2>&1 | tail -12
mv /tmp/ab /tmp/ab-wide
AB_SHAPES=1000x50265,4096x32003 AB_DTYPES=f32,bf16 OUT=$OUT/odd bash tools/gpu/session.sh ab 2>&1 | tail -16
