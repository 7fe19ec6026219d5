#!/usr/bin/env bash
# Session 65, call 1 (either card, one warm machine): session 64's two unrun experiments in one
# call. (1) ../../s64/gpu/call4.sh: the model pricing one grid round for the shifted S=grid
# kernels (the working tree, s64/patches/grid-shift-model.patch applied) against main (.base),
# both in one replay beside torch.compile, 140 s. (2) s64/gpu/call6.sh through ./sumend (carve-out rows added): where sum's
# few-row S=grid kernel spends its end (pick, no combine, no arrive, empty kernel), ~150 s.
# (3) below: fixed plans of add_layernorm bf16 4x2097152. Carry .deps .whl .rr-commit; .base travels untracked; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
t0=$(date +%s)
# $OUT brings back at most 8 files: everything in one archive, whatever stops the call.
trap 'cd "$OUT" && tar czf /tmp/s65-call.tgz . && find . -mindepth 1 -delete && mv /tmp/s65-call.tgz .' EXIT
bash bench/lab/s64/gpu/call4.sh
echo "== call4 done after $(($(date +%s) - t0)) s"
timeout 150 bash tools/gpu/session.sh info >"$OUT/info.txt" 2>&1
timeout $((500 - ($(date +%s) - t0))) bash bench/lab/s65/gpu/sumend/run.sh
echo "== call6 done after $(($(date +%s) - t0)) s"
# (3) add_layernorm bf16 4x2097152 (0.910 of torch.compile): the pick keeps each block's f32 h
# (128 KB) and runs 256 blocks in two waves; C = 32 re-reads its segment from L2 (32 MB of
# inputs) in one wave, priced x2.1 by the model. Fixed plans, L2 cold.
A=add_layernorm:bf16:4x2097152
PLAN_SPECS="$A:W=1024,V=8,U=1,R=1,C=64,S=grid,G=persistent $A:W=512,V=8,U=2,R=1,C=32,S=grid,G=persistent
$A:W=512,V=4,U=4,R=1,C=32,S=grid,G=persistent $A:W=512,V=8,U=2,R=1,C=64,S=grid,G=persistent
$A:W=256,V=8,U=2,R=1,C=128,S=grid,G=persistent" \
	timeout $((585 - ($(date +%s) - t0))) bash tools/gpu/session.sh plans >"$OUT/plans.log" 2>&1
echo "== plans done after $(($(date +%s) - t0)) s"
cat "$OUT/plans.txt" 2>/dev/null
