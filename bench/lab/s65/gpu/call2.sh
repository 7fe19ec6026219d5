#!/usr/bin/env bash
# Session 65, call 2 (either card): S=grid at any C (3bc639a) with the planner's filling C on
# (the working tree: patches/grid-fill-on.patch applied) against main, where that C is offered
# only under RR_GRID_FILL=1 (.base: `git archive` of 3bc639a), both in one replay beside
# torch.compile (bench/lab/s60/gpu/ab.sh). Six built-ins, f32 and bf16, on five few-row shapes:
# 26 of the 60 picks move to M x C = 132 blocks (C = 66, 44, 33, 26, 18), the rest are
# controls. Then, with the time left, sumend/run.sh on four shapes (the end's cost, the
# carve-out, the hand-rewritten any-C sources). Carry .deps .whl .rr-commit; .base travels
# untracked; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
t0=$(date +%s)
trap 'cd "$OUT" && tar czf /tmp/s65-call.tgz . && find . -mindepth 1 -delete && mv /tmp/s65-call.tgz .' EXIT
AB_BASE_SRC=.base AB_NAME=ab-grid-fill AB_OPS=sum,softmax,rmsnorm,layernorm,add_layernorm,cross_entropy \
	AB_DTYPES=f32,bf16 AB_SECONDS=${AB_SECONDS:-300} AB_SHAPES=2x4000037,3x2000000,4x2097152,7x777777,5x1000000 \
	bash bench/lab/s60/gpu/ab.sh
echo "== ab done after $(($(date +%s) - t0)) s"
[ $(($(date +%s) - t0)) -lt 460 ] || exit 0
timeout $((540 - ($(date +%s) - t0))) bash tools/gpu/session.sh info >"$OUT/info.txt" 2>&1
RR_GRID_FILL=0 SHAPES="2x4000037:66 4x2097152:33 7x777777:18 16x1048576" \
	timeout $((585 - ($(date +%s) - t0))) bash bench/lab/s65/gpu/sumend/run.sh
echo "== sumend done after $(($(date +%s) - t0)) s"
