# session 19, call 1: global stores of a pack as one PTX vector store (rr_st16) against main
# (.base), ABBA, L2 cold; then ncu of the planner's wide bf16 plans with source counters.
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=512x131072,256x262144,1024x65536,4096x4096 AB_KERNELS=rmsnorm,softmax,layernorm,add_layernorm AB_DTYPES=bf16,f32 AB_RUN_LIMIT=100 \
	bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1; grep -E "^\||rows:|failed" $OUT/ab-log.txt | tail -40
RR=$PWD/build-gpu/rowreduce
secs="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis_Tables --section InstructionStats"
for spec in softmax:bf16:512x131072 rmsnorm:bf16:512x131072; do
	IFS=: read -r k dt shape <<<"$spec"
	echo "#### $spec"
	timeout 100 ncu $secs -k regex:rr_ --launch-skip 1 --launch-count 1 "$RR" run --backend cuda --kernel $k --shape $shape --dtype $dt --repeat 3 2>&1 | grep -vE "^==PROF==|^  *-+ *$"
done > $OUT/ncu-src.txt 2>&1
grep -E "^####|Duration|DRAM Throughput|Achieved Occ|Issued Warp|No Eligible|Warp Cycles Per Issued|Executed Instructions  |Stall|stall|Uncoalesced|Excessive|est. speedup|Est. Speedup" $OUT/ncu-src.txt | head -60
