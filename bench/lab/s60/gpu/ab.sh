#!/usr/bin/env bash
# Session 59 (s60: AB_BASE_SRC names the base tree, default .base): rows of a few elements
# a thread without the loop over groups, loads flat
# (rr__realisation_short_rows) against the build before (.base, `git archive` of 7e70bd4), both
# in one compare_torch.py replay beside torch.compile (bench/lab/s59/compare_ab.py), six
# built-ins, f32 and bf16, on 100000x1 and 50000x3 (the rows it was made for) and 1000000x1,
# 65536x5 (not looked at). Carry .deps .whl .rr-commit
# .base; bench/results moved aside. AB_SHAPES, AB_OPS, AB_DTYPES, AB_IMPLS and AB_SECONDS
# narrow or widen it (bench/lab/s59/patches/README.md: the spill patch's A/B).
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-ab.csv"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
(cmake -S "${AB_BASE_SRC:-.base}" -B /tmp/build-base -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/.deps" \
	-DRR_GIT_COMMIT="$(cat "${AB_BASE_SRC:-.base}"/.rr-commit)" >"$OUT/build-base.log" 2>&1 &&
	cmake --build /tmp/build-base -j 16 --target rowreduce_shared >>"$OUT/build-base.log" 2>&1) &
[ -f build-py/librowreduce.so ] || bash bench/python_h200.sh >"$OUT/build.txt" 2>&1
wait
[ -f /tmp/build-base/librowreduce.so ] || { tail -20 "$OUT/build-base.log"; exit 1; }
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_BASE_LIBRARY=/tmp/build-base/librowreduce.so
export RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/python"
d=$OUT/${AB_NAME:-ab-short-rows}
timeout ${AB_SECONDS:-200} python3 bench/lab/s59/compare_ab.py \
	--shapes ${AB_SHAPES:-100000x1,50000x3,1000000x1,65536x5} --dtypes ${AB_DTYPES:-bf16,f32} \
	--ops ${AB_OPS:-sum,softmax,rmsnorm,layernorm,add_layernorm,cross_entropy} \
	--impls ${AB_IMPLS:-rowreduce,base,compile} --rounds 3 --samples 3 --sample-ms 5 \
	--time-limit $((${AB_SECONDS:-200} - 30)) --out "$d" 2>"$d.err"
echo "== compare_ab (exit $?)"
grep -E "library:" "$d.err"
cat "$d/comparison.md" 2>/dev/null | grep -E "^\| [a-z_]+ \|" | head -80
(cd "$OUT" && tar czf results-ab.tgz "${d##*/}" "${d##*/}.err" && rm -rf "${d##*/}")
