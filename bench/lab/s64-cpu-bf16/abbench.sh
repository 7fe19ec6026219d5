#!/bin/sh
# abbench.sh OUT ROUNDS: `rowreduce bench` of base ($BASE, default /tmp/s64/base: the branch
# point built from git archive) and new
# (this worktree's build), softmax f32 and bf16 on the shapes below, alternated base new new
# base per round; folders OUT/<variant>-<round>-<n>, tabled by ab_table.py.
OUT=$1
ROUNDS=${2:-3}
SHAPES=${SHAPES:-4096x4096,16384x1024,256x65536,1024x4096}
n=0
one() {
	n=$((n + 1))
	./quiet.sh "$2" bench --backend cpu --kernels softmax --shapes $SHAPES --dtypes f32,bf16 \
		--samples 5 --out "$OUT/$1-$3-$n" >/dev/null 2>&1 || echo "run $1 $3 failed"
}
for r in $(seq 1 $ROUNDS); do
	one base ${BASE:-/tmp/s64/base/build/rowreduce} $r
	one new ../../../build/rowreduce $r
	one new ../../../build/rowreduce $r
	one base ${BASE:-/tmp/s64/base/build/rowreduce} $r
done
