# session 17, call 1: raw keeps whose output phase copies the next row's packs (A = main before,
# .base; B = this tree), the plans of bench/lab/plans-2026-12-02-s17-ahead.txt, L2 cold; then
# grid-check (memcheck and racecheck) with a persistent raw keep that loops over rows.
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/quack-carry.sh keep .qk2 > $OUT/qk.log 2>&1 || tail -3 $OUT/qk.log
bash tools/gpu/session.sh info > $OUT/info-log.txt 2>&1 || { tail -5 $OUT/info-log.txt; exit 1; }
STATIC=ON; [ -f .deps/lib/libjansson.a ] || { STATIC=OFF; export LD_LIBRARY_PATH=$PWD/.deps/lib; }
(cd .base && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=$STATIC \
	-DRR_GIT_COMMIT="$(cat .rr-commit)" -DCMAKE_PREFIX_PATH="$OLDPWD/.deps" >/dev/null 2>&1 &&
	cmake --build build-gpu -j 16 --target rowreduce_cli >/dev/null 2>&1)
[ -x build-gpu/rowreduce ] && [ -x .base/build-gpu/rowreduce ] || { echo a build is missing; exit 1; }
export RR_CACHE_DIR=/tmp/rr-cache
declare -A BIN=([A]=$PWD/.base/build-gpu/rowreduce [B]=$PWD/build-gpu/rowreduce)
for spec in $(grep -v '^#' bench/lab/plans-2026-12-02-s17-ahead.txt); do
	IFS=: read -r side k dt shape plan <<<"$spec"
	d=/tmp/ahead/$side-$k-$dt-$shape-$(echo "$plan" | tr ',=' '-_')
	mkdir -p $d
	timeout 60 "${BIN[$side]}" bench --backend cuda --shapes "$shape" --kernels "$k" --dtypes "$dt" --plan "$plan" \
		--l2 cold --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out "$d" >/dev/null 2>"$d.err" ||
		{ echo "$side $spec: $(tail -1 "$d.err")"; continue; }
	echo "$side $(python3 tools/gpu/summary.py "$d/results.json" | tail -1)"
done | tee $OUT/ahead.txt
tar czf $OUT/ahead-runs.tgz -C /tmp ahead
RR=$PWD/build-gpu/rowreduce
for spec in rmsnorm:4096x2048:W=128,V=8,U=2,R=1,C=1,S=smem,G=persistent \
	layernorm:700x32771:W=256,V=8,U=2,R=1,C=2,S=cluster,G=persistent \
	softmax:8000x1027:W=64,V=8,U=1,R=1,C=1,S=smem,G=persistent; do
	IFS=: read -r k shape plan <<<"$spec"
	args=(run --backend cuda --kernel "$k" --shape "$shape" --dtype bf16 --layout "$plan")
	"$RR" "${args[@]}" --repeat 3 2>&1 | grep -E "validated|time|error" | sed "s|^|$k $shape $plan: |"
	for tool in memcheck racecheck; do
		timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$RR" "${args[@]}" --repeat 1 \
			>"$OUT/$tool-$k-$shape.log" 2>&1
		echo "$tool $k $shape $plan: exit $? ($(grep -E 'ERROR SUMMARY' "$OUT/$tool-$k-$shape.log" | tail -1))"
	done
done 2>&1 | tee $OUT/ahead-check.txt
