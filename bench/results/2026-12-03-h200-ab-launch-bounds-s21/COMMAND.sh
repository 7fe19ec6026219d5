# session 21, call 4: launch bounds raised for 16-bit rows in flight (two-round kernels) against 2384da3, ABBA x2, L2 cold; then a sweep of short-row plans at 65536x128
export OUT=${OUT:-/tmp/rr-out}
AB_SHAPES=64x4096,1024x4096,16384x4096,8192x8192,2048x16384,2047x6143,8191x1023,32768x1024,512x32003,4096x32768 \
AB_KERNELS=layernorm,add_layernorm AB_DTYPES=bf16 AB_REPEAT=2 bash tools/gpu/session.sh info ab > $OUT/ab-log.txt 2>&1
tail -26 $OUT/ab-log.txt
RR=$PWD/build-gpu/rowreduce
export RR_CACHE_DIR=/tmp/rr-cache
mkdir -p /tmp/plans
grep -v '^#' .gl/s21-short.txt | while read -r line; do
	spec=${line#*|}; IFS=: read -r k dt shape plan <<<"$spec"
	d=/tmp/plans/$k-$dt-$shape-$(echo "$plan" | tr ',=' '-_')
	timeout 60 "$RR" bench --backend cuda --shapes "$shape" --kernels "$k" --dtypes "$dt" --plan "$plan" --l2 cold \
		--samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out "$d" >/dev/null 2>"$d.err" ||
		{ echo "$line: $(tail -1 "$d.err")"; continue; }
	python3 tools/gpu/summary.py "$d/results.json" | tail -1
done | tee $OUT/short.txt
tar czf $OUT/runs.tgz -C /tmp plans ab
