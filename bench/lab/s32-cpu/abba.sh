#!/bin/bash
# Session 32 (cpu): `rowreduce bench` of two Release builds (A, B) alternated A B B A ...,
# ROUNDS rounds, the same command each time; then tools/gpu/ab.py (e2e medians, per-round ratios).
#   usage: abba.sh A_BUILD B_BUILD OUT ROUNDS KERNELS DTYPES SHAPES
set -e
A=$1 B=$2 OUT=$3 ROUNDS=$4 KERNELS=$5 DTYPES=$6 SHAPES=$7
mkdir -p "$OUT"
run() {
	"$1/rowreduce" bench --backend cpu --no-ceilings --kernels "$KERNELS" --dtypes "$DTYPES" \
		--shapes "$SHAPES" --samples 5 --sample-ms 20 --warmup-ms 100 --out "$2" > "$2.log" 2>&1
}
files=()
n=0
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then order="A B"; else order="B A"; fi
	for side in $order; do
		n=$((n + 1))
		dir="$OUT/$n-$side"
		echo "$(date +%T) load $(cut -d' ' -f1 /proc/loadavg) run $dir"
		if [ "$side" = A ]; then run "$A" "$dir"; else run "$B" "$dir"; fi
		files+=("$dir/results.json")
	done
done
python3 "$(dirname "$0")/../../../tools/gpu/ab.py" "${files[@]}" > "$OUT/ab.md"
cat "$OUT/ab.md"
