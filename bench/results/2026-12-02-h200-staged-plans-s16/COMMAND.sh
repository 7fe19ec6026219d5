# session 16, call 1: raw shared-memory keeps filled by asynchronous copies. Three binaries in
# one run: A = main before the change (.base), B = this tree, C = this tree with S=cluster
# keeping raw in shared memory wherever it can (the lab edit below, not in main). Every plan
# of bench/lab/plans-2026-12-02-s16-staged.txt once (pass 2, the list backwards, where time allows: PASSES="1 2").
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info > $OUT/info-log.txt 2>&1 || { tail -5 $OUT/info-log.txt; exit 1; }
STATIC=ON; [ -f .deps/lib/libjansson.a ] || { STATIC=OFF; export LD_LIBRARY_PATH=$PWD/.deps/lib; }
build() { # dir
	(cd "$1" && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=$STATIC \
		-DRR_GIT_COMMIT="$(cat .rr-commit 2>/dev/null || cat $OLDPWD/.rr-commit)" -DCMAKE_PREFIX_PATH="$OLDPWD/.deps" >/dev/null 2>&1 &&
		cmake --build build-gpu -j 16 --target rowreduce_cli >/dev/null 2>&1)
}
rm -rf /tmp/lab && mkdir -p /tmp/lab && git ls-files -z | xargs -0 cp --parents -t /tmp/lab && cp -r src /tmp/lab/
python3 - <<'PY'
p='/tmp/lab/src/layout/realise.c'; s=open(p).read()
old="else if (l->storage == RR_STORAGE_CLUSTER && r->slots * r->kept_inputs > r->register_slots)"
assert old in s
s=s.replace(old,"else if (l->storage == RR_STORAGE_CLUSTER && (r->slots * r->kept_inputs > r->register_slots || (f->kept_raw && r->pack_bytes == 16)))")
open(p,'w').write(s)
PY
build .base & build /tmp/lab & wait
[ -x build-gpu/rowreduce ] || { echo B build missing; exit 1; }
[ -x .base/build-gpu/rowreduce ] && [ -x /tmp/lab/build-gpu/rowreduce ] || { echo A or C build failed; exit 1; }
export RR_CACHE_DIR=/tmp/rr-cache
declare -A BIN=([A]=$PWD/.base/build-gpu/rowreduce [B]=$PWD/build-gpu/rowreduce [C]=/tmp/lab/build-gpu/rowreduce)
specs=$(grep -v '^#' bench/lab/plans-2026-12-02-s16-staged.txt)
rev=$(echo "$specs" | tac)
for pass in ${PASSES:-1}; do
	list=$specs; [ $pass = 2 ] && list=$rev
	for spec in $list; do
		IFS=: read -r side k dt shape plan <<<"$spec"
		d=/tmp/staged/$pass-$side-$k-$dt-$shape-$(echo "$plan" | tr ',=' '-_')
		mkdir -p $d
		timeout 60 "${BIN[$side]}" bench --backend cuda --shapes "$shape" --kernels "$k" --dtypes "$dt" --plan "$plan" \
			--l2 cold --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out "$d" >/dev/null 2>"$d.err" ||
			{ echo "$pass $side $spec: $(tail -1 "$d.err")"; continue; }
		echo "$pass $side $(python3 tools/gpu/summary.py "$d/results.json" | tail -1)"
	done
done | tee $OUT/staged.txt
tar czf $OUT/staged-runs.tgz -C /tmp staged
