#!/usr/bin/env bash
# Session 60, for a later GPU session: a million rows of one element (rmsnorm bf16 1000000x1,
# 0.69 of torch.compile in this session's A/B, 3.69 against 2.53 µs on an H100) in the
# compare's replay beside session 58's hand kernels: lab0 rows1<1024>, lab1 rows1<256> (one row
# a thread), lab2 rowsP<2,256>, lab3 rowsP<4,256>, lab4 rowsP<8,128> (several rows a thread,
# bench/lab/s58/tiny/tiny_kernels.cuh). Is a pack of rows a thread the way to torch.compile's
# time? Carry .deps .whl .rr-commit; bench/results moved aside. About 120 s.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-rows1.csv"
nvcc -O3 -arch=sm_90 -std=c++17 -shared -Xcompiler -fPIC bench/lab/s58/tiny/lablib.cu \
	-o /tmp/liblab.so || exit 1
[ -f build-py/librowreduce.so ] || bash bench/python_h200.sh >"$OUT/build.txt" 2>&1
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python" RR_LAB_LIB=/tmp/liblab.so
for shape in ${SHAPES:-1000000x1 4000000x1 100000x1}; do
	d=$OUT/rows1-$shape
	timeout 120 python3 bench/lab/s58/compare_lab.py --shapes "$shape" --dtypes bf16 \
		--ops rmsnorm --impls rowreduce,compile,lab0,lab1,lab2,lab3,lab4 --rounds 3 \
		--samples 3 --sample-ms 5 --out "$d" 2>"$d.err"
	echo "== $shape (exit $?)"
	grep -E "^\| rmsnorm" "$d/comparison.md" 2>/dev/null
	grep -iE "error|invalid|fail" "$d.err" | head -5
done
(cd "$OUT" && ls -d rows1-* | tar czf results-rows1.tgz -T - && ls -d rows1-* | xargs rm -rf)
