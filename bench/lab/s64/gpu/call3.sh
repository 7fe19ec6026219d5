#!/usr/bin/env bash
# Session 64, call 3 (either card): S=grid LayerNorm with one barrier for both rounds (the
# working tree: rr__realisation.grid_shift, each block's round 2 about its own mean, combined
# after the one barrier by rr_grid_shifted) against the tree before it (.base, `git archive` of
# the commit before), both in one replay beside torch.compile (bench/lab/s60/gpu/ab.sh), on the
# shapes whose picks are S=grid: the picks are the same in both (the model is unchanged), so
# only the kernels differ. Then compute-sanitizer memcheck and racecheck on one shifted plan.
# Carry .deps .whl .rr-commit; .base travels untracked; bench/results moved aside. ~450 s.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
AB_BASE_SRC=.base AB_NAME=ab-grid-shift AB_OPS=layernorm,add_layernorm AB_DTYPES=f32,bf16 \
	AB_SECONDS=${AB_SECONDS:-270} \
	AB_SHAPES=${SHAPES:-4x2097152,16x1048576,2x4000037,7x777777,64x524288,16x128257,1x131073,8x1000003} \
	bash bench/lab/s60/gpu/ab.sh
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" RR_CACHE_DIR=/tmp/rr-cache
for tool in memcheck racecheck; do
	for k in layernorm add_layernorm; do
		echo "#### $tool $k f32 4x262144 W=256,V=4,U=2,R=1,C=32,S=grid,G=persistent"
		timeout 80 compute-sanitizer --tool $tool build-py/rowreduce run --backend cuda \
			--kernel $k --shape 4x262144 --dtype f32 \
			--layout W=256,V=4,U=2,R=1,C=32,S=grid,G=persistent 2>&1 | tail -4
	done
done | tee "$OUT/sanitizer.txt"
