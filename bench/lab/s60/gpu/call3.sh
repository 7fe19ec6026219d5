#!/usr/bin/env bash
# Session 60, lab: the short rows' col inputs loaded in their own phase (base =
# patches/short-cols-late.patch) and, besides, the output phase entered by live rows only
# (varb = short-cols-late-return.patch), against the tree as carried (rowreduce), in one
# compare replay beside torch.compile. Carry .deps .whl .rr-commit; bench/results aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-lab.csv"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
variant() { # $1 label, $2 patch
	rm -rf "/tmp/$1" "/tmp/build-$1" && mkdir "/tmp/$1" &&
		tar -c --exclude=./bench/results --exclude=./bench/lab --exclude='./build*' --exclude=./.base . |
		tar -x -C "/tmp/$1" && cp .rr-commit "/tmp/$1/.rr-commit" &&
		(cd "/tmp/$1" && git apply "$OLDPWD/bench/lab/s60/patches/$2") &&
		cmake -S "/tmp/$1" -B "/tmp/build-$1" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/.deps" \
			-DRR_GIT_COMMIT="$(cat .rr-commit)-$1" >"$OUT/build-$1.log" 2>&1 &&
		cmake --build "/tmp/build-$1" -j 8 --target rowreduce_shared >>"$OUT/build-$1.log" 2>&1
}
variant cols-late short-return.patch &
variant cols-late-return short-cols-late-return.patch &
[ -f build-py/librowreduce.so ] || bash bench/python_h200.sh >"$OUT/build.txt" 2>&1
wait
for v in cols-late cols-late-return; do
	[ -f /tmp/build-$v/librowreduce.so ] || { tail -20 "$OUT/build-$v.log"; exit 1; }
done
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_BASE_LIBRARY=/tmp/build-cols-late/librowreduce.so
export RR_VARB_LIBRARY=/tmp/build-cols-late-return/librowreduce.so
export RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/python"
d=$OUT/${AB_NAME:-lab-short-cols}
timeout ${AB_SECONDS:-240} python3 bench/lab/s60/compare_ab3.py \
	--shapes ${AB_SHAPES:-50000x3,65536x5,100000x1,30000x7} --dtypes ${AB_DTYPES:-f32,bf16} \
	--ops ${AB_OPS:-softmax,rmsnorm,layernorm,add_layernorm} \
	--impls rowreduce,base,varb,compile --rounds 3 --samples 3 --sample-ms 5 \
	--time-limit $((${AB_SECONDS:-240} - 30)) --out "$d" 2>"$d.err"
echo "== compare_ab3 (exit $?)"
grep -E "library:" "$d.err"
cat "$d/comparison.md" 2>/dev/null | grep -E "^\| [a-z_]+ \|" | head -80
(cd "$OUT" && tar czf results-lab.tgz "${d##*/}" "${d##*/}.err" && rm -rf "${d##*/}")
echo "== done ($(date -u +%H:%M:%S))"
