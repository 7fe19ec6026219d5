#!/usr/bin/env bash
# Session 55 CPU: plans of V = 2 and 4 (and 8, unchanged) before (BEFORE, a build of main) and
# after (AFTER) the packs read as whole vectors: `rowreduce run` (validated in full, then the
# median host wall of 11 launches), the two builds alternated, two rounds.
#   BEFORE=/work/main/build/rowreduce AFTER=build/rowreduce bash bench/lab/s55-cpu/pick-ab.sh
set -uo pipefail
for spec in "sum f32 1024x4096" "sum bf16 3000x1001" "softmax f32 1024x4096" \
	"rmsnorm bf16 1024x4096" "layernorm bf16 1024x4096" "layernorm f32 777x2999" \
	"cross_entropy f32 2000x3001" "add_layernorm bf16 512x5000"; do
	set -- $spec
	for lay in W=16,V=2,U=1,R=1 W=16,V=4,U=1,R=1 W=32,V=4,U=2,R=1 W=16,V=8,U=1,R=1; do
		line="$1 $2 $3 $lay"
		for r in 1 2; do
			for b in BEFORE AFTER; do
				t=$(${!b} run --backend cpu --kernel $1 --dtype $2 --shape $3 --layout $lay \
					--repeat 11 2>&1 | grep -E "^time" | awk '{print $2, $3}')
				line="$line | $b $t"
			done
		done
		echo "$line"
	done
done
