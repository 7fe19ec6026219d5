# session 19, call 3: how raw keeps are staged (cp.async.cg generic / .ca / cvta.to.global / ldg+sts), EXPERIMENT
export OUT=${OUT:-/tmp/rr-out}
RR=$PWD/build-gpu/rowreduce
bash tools/gpu/session.sh info > $OUT/build-info.txt 2>&1
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum,sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum,l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum
for x in none CA LDG GLOBAL; do
	for spec in softmax:bf16:512x131072; do
		IFS=: read -r k dt shape <<<"$spec"
		echo "#### $x $spec"
		( [ $x = none ] || export RR_X_STAGE=$x; timeout 60 ncu --metrics $m -k regex:rr_ --launch-skip 1 --launch-count 1 "$RR" run --backend cuda --kernel $k --shape $shape --dtype $dt --repeat 3 2>&1 | grep -E "validated|error|sum|pct|rr_softmax" | grep -v "==PROF" )
	done
done 2>&1 | tee $OUT/ncu-stage.txt
mkdir -p /tmp/st
for r in 1 2; do for x in none CA LDG GLOBAL; do
	( [ $x = none ] || export RR_X_STAGE=$x
	timeout 80 "$RR" bench --backend cuda --shapes 512x131072,256x262144 --kernels softmax,rmsnorm,layernorm --dtypes bf16 --l2 cold --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out /tmp/st/$r-$x > /dev/null 2> $OUT/st-$r-$x.err || echo "run $r $x failed" )
	python3 tools/gpu/summary.py /tmp/st/$r-$x/results.json 2>/dev/null | sed "s/^/$r $x /" | grep -v "^$r $x *$"
done; done 2>&1 | tee $OUT/stage-times.txt | cut -c1-200
tar czf $OUT/st.tgz -C /tmp st
