#!/bin/bash
# Session 31 (cpu): bench/peers/onnx_cpu.py with two libraries (A, B) alternated A B B A ...,
# ROUNDS calls each, on the same subset; then one line per row and call: rowreduce µs, the
# ratio to ONNX Runtime and "of copy" (each call measures its own ONNX Runtime and ceilings).
#   usage: onnx_ab.sh A_BUILD B_BUILD OUT ROUNDS OPS DTYPES SHAPES
set -e
A=$1 B=$2 OUT=$3 ROUNDS=$4 OPS=$5 DTYPES=$6 SHAPES=$7
here=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$OUT"
n=0
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then order="A B"; else order="B A"; fi
	for side in $order; do
		n=$((n + 1))
		if [ "$side" = A ]; then build=$A; else build=$B; fi
		echo "$(date +%T) load $(cut -d' ' -f1 /proc/loadavg) call $n $side"
		RR_LIBRARY=$build/librowreduce.so PYTHONPATH=$here/python /work/venv-cpu/bin/python \
			"$here/bench/peers/onnx_cpu.py" --shapes "$SHAPES" --ops "$OPS" --dtypes "$DTYPES" \
			--rounds 3 --samples 3 --sample-ms 20 --warmup-ms 50 --rowreduce "$build/rowreduce" \
			--out "$OUT/$n-$side" > "$OUT/$n-$side.log" 2>&1
	done
done
for f in "$OUT"/*/comparison.md; do
	d=$(basename "$(dirname "$f")")
	grep -E '^\| [a-z_]+ \| (f32|bf16) \|' "$f" | awk -F'|' -v d="$d" \
		'{printf "%-6s %-14s %-5s %-11s rr %9s  ratio %s  copy %s\n", d, $2, $3, $4, $6, $9, $11}'
done | sort -k2,2 -k3,3 -k4,4 -k1,1n
