# session 20, call 2: bf16 raw clusters at 512x131072 and 256x262144, persistent against one cluster a row (G=rows), C x W, L2 cold; twice
export OUT=${OUT:-/tmp/rr-out}
PLAN_FILE=.gl/s20-plans.txt bash tools/gpu/session.sh plans > $OUT/plans-log.txt 2>&1
mv $OUT/plans.txt $OUT/plans-1.txt; mv $OUT/plans-runs.tgz $OUT/plans-runs-1.tgz; rm -rf /tmp/plans
tac .gl/s20-plans.txt > /tmp/rev.txt
PLAN_FILE=/tmp/rev.txt bash tools/gpu/session.sh plans > $OUT/plans-log2.txt 2>&1
mv $OUT/plans.txt $OUT/plans-2.txt

cat $OUT/plans-1.txt; echo ===; cat $OUT/plans-2.txt
