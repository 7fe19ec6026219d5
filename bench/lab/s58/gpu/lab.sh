#!/usr/bin/env bash
# Session 58: rows of one element in compare_torch.py's graph replay: rowreduce's pick,
# torch.compile and five hand-written launch shapes (bench/lab/s58/compare_lab.py,
# bench/lab/s58/tiny/lablib.cu), rmsnorm bf16 100000x1 and 1000000x1. About 100 s.
# Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-lab.csv"
nvcc -O3 -arch=sm_90 -std=c++17 -shared -Xcompiler -fPIC bench/lab/s58/tiny/lablib.cu \
	-o /tmp/liblab.so || exit 1
[ -f build-py/librowreduce.so ] || bash bench/python_h200.sh >"$OUT/build.txt" 2>&1
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python" RR_LAB_LIB=/tmp/liblab.so
for shape in 100000x1; do
	d=$OUT/lab-$shape
	# torch.compile's generated code into the .err file, its PTX and cubin under triton-cache
	TORCH_LOGS=output_code TRITON_CACHE_DIR=$OUT/triton-cache \
		timeout 120 python3 bench/lab/s58/compare_lab.py --shapes "$shape" --dtypes bf16 \
		--ops rmsnorm --impls rowreduce,compile,lab0,lab1,lab2,lab3 --rounds 3 \
		--samples 3 --sample-ms 5 --out "$d" 2>"$d.err"
	echo "== $shape (exit $?)"
	grep -E " us$" "$d.err"
	grep -iE "error|invalid|fail" "$d.err" | head -5
done
# 50000x3 bf16 on fixed plans in the same replay: session 57's pick (R = 512), R = 256 and
# R = 128, which the model's few-bytes bound over all SMs picks
for plan in W=1,V=1,U=3,R=512 W=1,V=1,U=3,R=256 W=1,V=1,U=3,R=128; do
	d=$OUT/plan-50000x3-${plan//[=,]/_}
	RR_LAB_PLAN=$plan timeout 90 python3 bench/lab/s57/compare_plan.py --shapes 50000x3 \
		--dtypes bf16 --ops rmsnorm,sum --impls rowreduce,compile --rounds 3 \
		--samples 3 --sample-ms 5 --out "$d" 2>"$d.err" | grep -E "^\| (rmsnorm|sum)" |
		sed "s/^/$plan /"
done
# one archive of the results folders (a call brings back a limited count of files)
(cd "$OUT" && ls -d lab-* plan-* triton-cache 2>/dev/null | tar czf results-lab.tgz -T - &&
	ls -d lab-* plan-* triton-cache | xargs rm -rf)
