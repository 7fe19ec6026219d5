#!/usr/bin/env bash
# Session 66, call 2 (either card): the filling C's rule (plan.c grid_fill_pays: kernels that
# write rows, where the largest power of two leaves a fifth of the SMs idle) against main
# before it (.base: `git archive` of c61cb98, the filling C off), on shapes the rule was not
# drawn from: softmax, rmsnorm, layernorm, add_layernorm, f32 and bf16, seven few-row shapes
# (39 of the 56 picks move). Carry .deps .whl .rr-commit; .base travels untracked;
# bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
t0=$(date +%s)
trap 'cd "$OUT" && tar czf /tmp/s66-call.tgz . && find . -mindepth 1 -delete && mv /tmp/s66-call.tgz .' EXIT
AB_BASE_SRC=.base AB_NAME=ab-grid-fill-rule AB_OPS=softmax,rmsnorm,layernorm,add_layernorm \
	AB_DTYPES=f32,bf16 AB_SECONDS=${AB_SECONDS:-300} \
	AB_SHAPES=3x1500000,5x600000,6x500000,3x3000000,5x2500000,6x1048576,3x700000 \
	bash bench/lab/s60/gpu/ab.sh
echo "== ab done after $(($(date +%s) - t0)) s"
