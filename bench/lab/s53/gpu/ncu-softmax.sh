#!/usr/bin/env bash
# Session 53: Nsight Compute of softmax bf16 8191x1023 (0.90 of Liger in the compares) beside
# Liger's kernel on the same shape and the aligned 8192x1024: the pick (W=16,R=16), the sweep's
# best (W=64,R=1) and Liger's shape of launch (W=128,V=8, one row a block). Carry .deps .whl
# .rr-commit. Then the sum f32 plans of plans-sum-f32.txt (L2 cold).
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
export NCU_SPECS="sum:f32:8191x1023:auto rmsnorm:bf16:2x2000003:auto rmsnorm:bf16:2x2000003:W=1024,V=8,U=2,R=1,C=64,S=grid,G=persistent softmax:bf16:8191x1023:auto softmax:bf16:8191x1023:W=64,V=8,U=2,R=1,C=1,S=regs,G=rows softmax:bf16:8191x1023:W=128,V=8,U=1,R=1,C=1,S=regs,G=rows softmax:bf16:8192x1024:auto"
export NCU_PEERS="softmax:bf16:8191x1023:liger softmax:bf16:8192x1024:liger sum:f32:8191x1023:compile"
grep -hv '^#' bench/lab/s53/gpu/plans-sum-f32.txt >/tmp/plans-sum-f32.txt
PLAN_FILE=/tmp/plans-sum-f32.txt bash tools/gpu/session.sh info ncu plans
