#!/usr/bin/env bash
# Session 66, call 3 (either card): S=grid segments priced by load_trips wherever they are
# S=grid (patches/grid-trips.patch: the partial chunk one more serial trip), not only where
# grid_one_wave holds, against main without it (.base: `git archive` of d133f10). It moves 8 of
# 204 picks over the wide and odd suites' wide rows: sum and cross_entropy bf16 2x4000037 and
# 7x777777 (U = 2 -> 4), softmax bf16 5x1000000, layernorm and add_layernorm f32 16x128257,
# layernorm bf16 7x777777. Carry .deps .whl .rr-commit; .base travels untracked; bench/results
# moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
t0=$(date +%s)
trap 'cd "$OUT" && tar czf /tmp/s66-call.tgz . && find . -mindepth 1 -delete && mv /tmp/s66-call.tgz .' EXIT
AB_BASE_SRC=.base AB_NAME=ab-grid-trips AB_OPS=${AB_OPS:-sum,softmax,layernorm,add_layernorm,cross_entropy} \
	AB_DTYPES=${AB_DTYPES:-f32,bf16} AB_SECONDS=${AB_SECONDS:-240} \
	AB_SHAPES=${AB_SHAPES:-2x4000037,7x777777,16x128257,5x1000000} \
	bash bench/lab/s60/gpu/ab.sh
echo "== ab done after $(($(date +%s) - t0)) s"
