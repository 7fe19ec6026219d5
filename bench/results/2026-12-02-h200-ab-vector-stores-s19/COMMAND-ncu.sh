# session 19, call 2: ncu tables (shared/global excessive, source counters) of the planner's wide bf16 plans
export OUT=${OUT:-/tmp/rr-out}
RR=$PWD/build-gpu/rowreduce
[ -x $RR ] || bash tools/gpu/session.sh info > /dev/null 2>&1
secs="--section SourceCounters --section MemoryWorkloadAnalysis_Tables --section WarpStateStats"
for spec in softmax:bf16:512x131072 rmsnorm:bf16:512x131072; do
	IFS=: read -r k dt shape <<<"$spec"
	echo "#### $spec"
	timeout 100 ncu $secs --print-details all -k regex:rr_ --launch-skip 1 --launch-count 1 "$RR" run --backend cuda --kernel $k --shape $shape --dtype $dt --repeat 3 2>&1 | grep -vE "^==PROF==|^  *-+ *$"
done > $OUT/ncu-src.txt 2>&1
tar czf $OUT/ncu.tgz -C $OUT ncu-src.txt
grep -vE "^\s*$" $OUT/ncu-src.txt | cut -c1-160 | head -150
