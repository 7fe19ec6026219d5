# session 15, call 5: cross_entropy bf16 plans
export OUT=${OUT:-/tmp/rr-out}
PLAN_FILE=bench/lab/plans-2026-12-02-s15-ce.txt timeout 200 bash tools/gpu/session.sh plans > $OUT/plans-log.txt 2>&1
grep -v "^==" $OUT/plans-log.txt | tail -20
