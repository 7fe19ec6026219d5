# session 15, call 2: softmax plans once the exponentials are kept (plans file below), then
# A/B of f5517dd (.base2) against this tree on the odd f32 shapes whose picks session 14's
# cost change moved without a measurement (bench/NOTES.md session 14, Next 5)
export OUT=${OUT:-/tmp/rr-out}
PLAN_FILE=bench/lab/plans-2026-12-02-s15-softmax.txt timeout 300 bash tools/gpu/session.sh plans > $OUT/plans-log.txt 2>&1
tail -62 $OUT/plans-log.txt | grep -v '^=='
rm -rf .base && mv .base2 .base
AB_SHAPES=300x200003,1000x131075,777x65539 AB_KERNELS=rmsnorm,softmax,layernorm AB_DTYPES=f32 \
AB_RUN_LIMIT=60 timeout 250 bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1
tail -14 $OUT/ab-log.txt
