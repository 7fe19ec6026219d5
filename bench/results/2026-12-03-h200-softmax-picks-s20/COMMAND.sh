# session 20, call 3: softmax's old and new picks (one-round raw mailbox clusters of six blocks an SM priced x0.94), two passes in opposite orders, L2 cold; then ctest -L gpu on this tree
export OUT=${OUT:-/tmp/rr-out}
PLAN_FILE=.gl/s20-picks.txt bash tools/gpu/session.sh info plans > $OUT/plans-log.txt 2>&1
mv $OUT/plans.txt $OUT/plans-1.txt; mv $OUT/plans-runs.tgz $OUT/plans-runs-1.tgz; rm -rf /tmp/plans
tac .gl/s20-picks.txt > /tmp/rev.txt
PLAN_FILE=/tmp/rev.txt bash tools/gpu/session.sh plans > $OUT/plans-log2.txt 2>&1
mv $OUT/plans.txt $OUT/plans-2.txt
cat $OUT/plans-1.txt; echo ===; cat $OUT/plans-2.txt
# (ctest -L gpu left out: device time)
