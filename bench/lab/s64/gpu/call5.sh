#!/usr/bin/env bash
# Session 64, call 5 (short, the session's last device seconds): call 4 cut to the three
# add_layernorm f32 picks the one-grid-round model moves (64x524288, 3x2097152, 10x300000),
# the patch applied in the working tree against main (.base), beside torch.compile.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
AB_BASE_SRC=.base AB_NAME=ab-grid-shift-model AB_OPS=add_layernorm AB_DTYPES=f32 \
	AB_SECONDS=${AB_SECONDS:-60} AB_SHAPES=64x524288,3x2097152,10x300000 \
	bash bench/lab/s60/gpu/ab.sh
