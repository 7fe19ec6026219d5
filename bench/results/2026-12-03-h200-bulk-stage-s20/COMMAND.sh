# session 20, call 1: raw keeps staged by bulk copies (RR_STAGE=bulk) against the default (async / regs), one build, ABBA, L2 cold; ncu; sanitizers
export OUT=${OUT:-/tmp/rr-out}
RR=$PWD/build-gpu/rowreduce
bash tools/gpu/session.sh info > $OUT/build-info.txt 2>&1; tail -3 $OUT/build-info.txt
export RR_CACHE_DIR=/tmp/rr-cache
mkdir -p /tmp/ab
run() { # side set i
	local side=$1 set=$2 i=$3 env=""
	[ $side = B ] && env="RR_STAGE=bulk"
	if [ $set = bf16 ]; then sh=4096x32768,1024x65536,128x131072,512x131072,256x262144,64x524288,1000x50265,512x32003; dt=bf16
	else sh=4096x32768,512x32003,1000x50265; dt=f32; fi
	env $env timeout 110 "$RR" bench --backend cuda --shapes $sh --kernels softmax,rmsnorm,layernorm --dtypes $dt --l2 cold --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out /tmp/ab/$set-$i-$side > /dev/null 2> /tmp/ab/$set-$i-$side.err || { echo "run $set $i $side failed"; tail -3 /tmp/ab/$set-$i-$side.err; }
}
i=0
for side in A B B A; do i=$((i+1)); for set in bf16 f32; do run $side $set $i; done; echo "round $i $side done $(date +%T)"; done
for set in bf16 f32; do
	echo "### $set"
	python3 tools/gpu/ab.py /tmp/ab/$set-1-A/results.json /tmp/ab/$set-2-B/results.json /tmp/ab/$set-3-B/results.json /tmp/ab/$set-4-A/results.json
done 2>&1 | tee $OUT/ab.md
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_op_read.sum,dram__sectors_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for x in A B; do for spec in softmax:bf16:512x131072 layernorm:bf16:512x131072; do
	IFS=: read -r k dt shape <<<"$spec"
	echo "#### $x $spec"
	( [ $x = A ] || export RR_STAGE=bulk; timeout 60 ncu --metrics $m -k regex:rr_ --launch-skip 1 --launch-count 1 "$RR" run --backend cuda --kernel $k --shape $shape --dtype $dt --repeat 3 2>&1 | grep -E "validated|error|sum|pct|rr_" | grep -v "==PROF" )
done; done 2>&1 | tee $OUT/ncu.txt | cut -c1-160
for tool in memcheck racecheck; do for spec in softmax:bf16:64x131072 layernorm:bf16:40x50265 rmsnorm:f32:64x32003; do
	IFS=: read -r k dt shape <<<"$spec"
	echo "#### $tool $spec"
	RR_STAGE=bulk timeout 90 compute-sanitizer --tool $tool "$RR" run --backend cuda --kernel $k --shape $shape --dtype $dt --repeat 1 2>&1 | grep -E "ERROR SUMMARY|validated|error|Error|hazard" | head -5
done; done 2>&1 | tee $OUT/sanitizer.txt
rm -f /tmp/ab/*.err; tar czf $OUT/ab-runs.tgz -C /tmp ab
