#!/usr/bin/env bash
# Next session: rows of one element and of three in the compare's graph replay, the pick beside
# fixed plans (bench/lab/s57/compare_plan.py), rmsnorm bf16 beside torch.compile only. About 120 s.
# Prediction: if the 98 blocks of 512-1024 threads are what costs 0.3-0.5 µs in graph replay,
# R = 128 (782 blocks of 128) runs 100000x1 in about torch.compile's 1.42 µs. Carry .deps .whl
# .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
bash bench/python_h200.sh >"$OUT/build.txt" 2>&1 # builds build-py, runs no stage
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/py-site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH="$PWD/python:/tmp/py-site"
for shape in 100000x1 50000x3; do
	for plan in pick W=1,V=1,U=1,R=1024 W=1,V=1,U=1,R=256 W=1,V=1,U=1,R=128 W=1,V=1,U=1,R=32; do
		[ "$shape" = 50000x3 ] && [ "$plan" != pick ] && plan=${plan/U=1/U=3}
		d=$OUT/$shape-${plan//[=,]/_}
		RR_LAB_PLAN=$([ "$plan" = pick ] || echo "$plan") timeout 60 python3 bench/lab/s57/compare_plan.py \
			--shapes "$shape" --dtypes bf16 --ops rmsnorm --impls rowreduce,compile --rounds 3 \
			--samples 3 --sample-ms 5 --out "$d" 2>"$d.err" | grep -E "^\| rmsnorm" | sed "s/^/$plan /"
	done
done
