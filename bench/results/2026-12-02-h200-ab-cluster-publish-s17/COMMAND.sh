# session 17, call 5: clusters whose barrier is relaxed, the partials published by a fence at
# the scope of the block's shared memory (rr_cluster_publish), against main (.base), ABBA, L2
# cold, the planner's picks at 512x131072 and 256x262144; then memcheck and racecheck of a
# persistent raw cluster and a register-kept f32 cluster of two rounds.
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=512x131072,256x262144 AB_KERNELS=rmsnorm,softmax,layernorm AB_DTYPES=f32,bf16 AB_RUN_LIMIT=60 \
	bash tools/gpu/session.sh ab > $OUT/ab-log.txt 2>&1; grep -E "^\||rows:|failed" $OUT/ab-log.txt | tail -16
RR=$PWD/build-gpu/rowreduce
for spec in layernorm:bf16:700x32771:W=256,V=8,U=2,R=1,C=2,S=cluster,G=persistent \
	softmax:f32:300x65539:W=512,V=4,U=2,R=1,C=4,S=cluster,G=persistent; do
	IFS=: read -r k dt shape plan <<<"$spec"
	args=(run --backend cuda --kernel "$k" --shape "$shape" --dtype $dt --layout "$plan")
	"$RR" "${args[@]}" --repeat 3 2>&1 | grep -E "validated|error" | sed "s|^|$k $shape $plan: |"
	for tool in memcheck racecheck; do
		timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$RR" "${args[@]}" --repeat 1 \
			>"$OUT/$tool-$k.log" 2>&1
		echo "$tool $k $dt $shape $plan: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool-$k.log" | tail -1))"
	done
done 2>&1 | tee $OUT/publish-check.txt
