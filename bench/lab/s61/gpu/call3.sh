#!/usr/bin/env bash
# Session 61, call 3: `ctest -L gpu` at this tree (tools/gpu/session.sh info test), then the
# A/B of grid_regs_beyond_l2 (the working tree) against the tree before the grid change (.base,
# `git archive` of 52f3095): rmsnorm and softmax f32 on the six shapes it was made for and five
# it was not (8x1048576, 32x524288, 24x1000000, 12x1500000, 10x2000000), in one compare replay
# beside torch.compile (bench/lab/s60/gpu/ab.sh). Carry .deps .whl .rr-commit; .base travels
# as an untracked folder; bench/results moved aside. About 300 s.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
timeout 200 bash tools/gpu/session.sh info test
AB_BASE_SRC=.base AB_NAME=ab-grid-l2 AB_OPS=rmsnorm,softmax AB_DTYPES=f32 AB_SECONDS=${AB_SECONDS:-300} \
	AB_SHAPES=8x1048576,32x524288,24x1000000,12x1500000,10x2000000,4x2097152,16x1048576,64x524288 \
	bash bench/lab/s60/gpu/ab.sh
