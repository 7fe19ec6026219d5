#!/bin/sh
# abbench.sh OUT ROUNDS: `rowreduce bench` of base (/tmp/rr-base, the branch point) and new
# (this worktree's build), sum f32 and bf16 on SHAPES, alternated base new new base per round;
# folders OUT/<variant>-<round>-<n>, tabled by ab_table.py.
OUT=$1
ROUNDS=${2:-3}
SHAPES=${SHAPES:-64x4096,1024x1024,1024x4096,4096x4096,16384x1024,256x65536}
n=0
one() {
	n=$((n + 1))
	./quiet.sh "$2" bench --backend cpu --kernels sum --shapes $SHAPES --dtypes ${DTYPES:-f32,bf16} \
		--samples 5 --sample-ms 10 --warmup-ms 50 --no-ceilings --out "$OUT/$1-$3-$n" >/dev/null 2>&1 || echo "run $1 $3 failed"
}
for r in $(seq 1 $ROUNDS); do
	one base /tmp/rr-base/build/rowreduce $r
	one new ../../../build/rowreduce $r
	one new ../../../build/rowreduce $r
	one base /tmp/rr-base/build/rowreduce $r
done
