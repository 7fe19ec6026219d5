#!/usr/bin/env bash
# Session 64, call 4 (either card, short): the model pricing one grid round for S=grid kernels
# that meet once for two rounds (the working tree: io_facts.grid_shift in src/plan/cost.c)
# against main (.base), both in one replay beside torch.compile. It moves 5 of 216 LayerNorm
# picks over the suites and a few more shapes: layernorm f32 64x524288, bf16 5x500000,
# add_layernorm f32 64x524288, 3x2097152, 10x300000; the other rows of the cross product are
# controls. Carry .deps .whl .rr-commit; .base travels untracked; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
AB_BASE_SRC=.base AB_NAME=ab-grid-shift-model AB_OPS=layernorm,add_layernorm AB_DTYPES=f32,bf16 \
	AB_SECONDS=${AB_SECONDS:-140} AB_SHAPES=64x524288,5x500000,3x2097152,10x300000 \
	bash bench/lab/s60/gpu/ab.sh
