# session 15, call 3: bf16 rows kept in registers two elements a word (branch packed2, this tree)
# against main (.base) on the same plans, in one run: per plan A B, then B A over the list
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info > $OUT/info-log.txt 2>&1 || { tail -5 $OUT/info-log.txt; exit 1; }
STATIC=ON; [ -f .deps/lib/libjansson.a ] || { STATIC=OFF; export LD_LIBRARY_PATH=$PWD/.deps/lib; }
(cd .base && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=$STATIC \
	-DRR_GIT_COMMIT="$(cat .rr-commit)" -DCMAKE_PREFIX_PATH="$OLDPWD/.deps" >/dev/null 2>&1 &&
	cmake --build build-gpu -j 16 --target rowreduce_cli >/dev/null 2>&1) || { echo base build failed; exit 1; }
export RR_CACHE_DIR=/tmp/rr-cache
A=$PWD/.base/build-gpu/rowreduce B=$PWD/build-gpu/rowreduce
specs=$(grep -v '^#' bench/lab/plans-2026-12-02-s15-packed.txt)
for pass in 1 2; do
	for spec in $specs; do
		IFS=: read -r k dt shape plan <<<"$spec"
		order="A B"; [ $pass = 2 ] && order="B A"
		for side in $order; do
			bin=$A; [ $side = B ] && bin=$B
			d=/tmp/packed/$pass-$side-$k-$dt-$shape-$(echo "$plan" | tr ',=' '-_')
			mkdir -p $d
			timeout 60 "$bin" bench --backend cuda --shapes "$shape" --kernels "$k" --dtypes "$dt" --plan "$plan" \
				--l2 cold --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out "$d" >/dev/null 2>"$d.err" ||
				{ echo "$side $spec: $(tail -1 "$d.err")"; continue; }
			echo "$pass $side $(python3 tools/gpu/summary.py "$d/results.json" | tail -1)"
		done
	done
done | tee $OUT/packed.txt
tar czf $OUT/packed-runs.tgz -C /tmp packed
