#!/usr/bin/env bash
# Session 63, call 4: S=grid sum and cross_entropy at 32 registers, two blocks of 1024 an SM
# (the working tree: rr__grid_lean in src/layout/realise.c and its registers in
# src/plan/cost.c; the picks of f32 sum on 2-16 rows of 0.8-4M move from W = 1024, U = 4 to
# U = 2 with C doubled) against the tree before it (.base, `git archive` of main), both in one
# replay beside torch.compile (bench/lab/s60/gpu/ab.sh); 1x131073 and bf16 do not move
# (controls). Carry .deps .whl .rr-commit; .base travels untracked; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
AB_BASE_SRC=.base AB_NAME=ab-grid-lean AB_OPS=sum,cross_entropy AB_DTYPES=f32,bf16 \
	AB_SECONDS=${AB_SECONDS:-190} \
	AB_SHAPES=${SHAPES:-2x4000037,4x2097152,16x1048576,7x777777,8x1000003,3x3000017,2x2000003,1x131073} \
	bash bench/lab/s60/gpu/ab.sh
