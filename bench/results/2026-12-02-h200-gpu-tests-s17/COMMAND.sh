# session 17, call 3: the first QuACK piece kept, `ctest -L gpu` and grid-check at main, then
# the stall reasons of the C = 4 raw cluster (512x131072) against S=smem (4096x32768), rmsnorm bf16.
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/quack-carry.sh keep .qk2 > $OUT/qk.log 2>&1 || tail -3 $OUT/qk.log
bash tools/gpu/session.sh info test grid-check > $OUT/test-log.txt 2>&1; grep -E "tests passed|Passed|Failed|exit|validated|time " $OUT/test-log.txt | tail -30
RR=$PWD/build-gpu/rowreduce
for spec in rmsnorm:bf16:512x131072:W=512,V=8,U=2,R=1,C=4,S=cluster,G=persistent rmsnorm:bf16:4096x32768:W=512,V=8,U=2,R=1,C=1,S=smem,G=rows; do
	IFS=: read -r k dt shape plan <<<"$spec"
	echo "#### $spec"
	timeout 100 ncu --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" -k regex:rr_ --launch-skip 1 --launch-count 1 \
		"$RR" run --backend cuda --kernel $k --shape $shape --dtype $dt --layout $plan --repeat 3 2>&1 | grep -E "stalled" | awk '$NF+0 > 0.3'
done 2>&1 | tee $OUT/stalls.txt
