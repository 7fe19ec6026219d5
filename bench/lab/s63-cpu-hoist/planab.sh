#!/bin/sh
# planab.sh OUT ROUNDS PLAN...: `rowreduce bench --plan` of this worktree's build, sum f32 and
# bf16 on $SHAPES, the plans (auto = the planner's) in order then reversed each round (A B C
# .. C B A), separate processes; folders OUT/<plan index>-<round>-<n> (plan_table.py).
OUT=$1; ROUNDS=$2; shift 2
SHAPES=${SHAPES:-64x4096,1024x1024,1024x4096,4096x4096,16384x1024,256x65536}
n=0
one() {
	n=$((n + 1))
	./quiet.sh ../../../build/rowreduce bench --backend cpu --kernels sum --shapes $SHAPES \
		--dtypes f32,bf16 --samples 5 --no-ceilings --plan "$2" \
		--out "$OUT/p$1-$3-$n" >/dev/null 2>&1 || echo "run $2 $3 failed"
}
for r in $(seq 1 $ROUNDS); do
	i=0; for p in "$@"; do one $i "$p" $r; i=$((i + 1)); done
	i=$#; for p in $(printf '%s\n' "$@" | tac); do i=$((i - 1)); one $i "$p" $r; done
done
