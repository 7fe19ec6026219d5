#!/bin/sh
# abbench.sh OUT ROUNDS: `rowreduce bench` of base (/tmp/rr-base-hoist, the branch point
# ce63b982 from `git archive`) and new (this worktree's build), $KERNELS x $DTYPES x $SHAPES,
# alternated base new new base per round (separate processes); folders
# OUT/<variant>-<round>-<n>, tabled by ab_table.py.
OUT=$1
ROUNDS=${2:-3}
SHAPES=${SHAPES:-64x4096,1024x4096,4096x4096,512x8192}
KERNELS=${KERNELS:-rmsnorm,layernorm}
DTYPES=${DTYPES:-f32}
BASE=${BASE:-/tmp/rr-base-hoist/build/rowreduce}
n=0
one() {
	n=$((n + 1))
	./quiet.sh "$2" bench --backend cpu --kernels $KERNELS --shapes $SHAPES --dtypes $DTYPES \
		--samples 5 --out "$OUT/$1-$3-$n" >/dev/null 2>&1 || echo "run $1 $3 failed"
}
for r in $(seq 1 $ROUNDS); do
	one base $BASE $r
	one new ../../../build/rowreduce $r
	one new ../../../build/rowreduce $r
	one base $BASE $r
done
