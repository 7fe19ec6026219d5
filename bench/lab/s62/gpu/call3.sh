#!/usr/bin/env bash
# Session 62, third call: sum's GPU pricing (the working tree: plain reductions' registers as
# ptxas allocates them, the tree's issue hidden under memory on launches of as many groups as
# SMs of one row a block on rows of 4096 or more, wider pieces past 4 KB) against the tree before it (.base, `git archive` of the commit
# before), both in one compare replay beside torch.compile (bench/lab/s60/gpu/ab.sh), sum f32
# and bf16 on the shapes of call 1's sweep, suite shapes whose picks moved, and shapes tuned on
# by none (1000x50000, 3000x40000, 6000x6000, 20000x2000, 1536x24576, 8192x2048). Carry .deps
# .whl .rr-commit; .base travels untracked; bench/results moved aside. About 300 s.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
AB_BASE_SRC=.base AB_NAME=ab-sum-model AB_OPS=sum AB_DTYPES=f32,bf16 AB_SECONDS=${AB_SECONDS:-420} \
	AB_SHAPES=${SHAPES:-1024x65536,2048x16384,4096x32768,512x131072,4096x4096,8191x1023,32768x1024,12345x321,65535x127,16384x512,64x4096,1000x50000,3000x40000,6000x6000,20000x2000,1536x24576,8192x2048} \
	bash bench/lab/s60/gpu/ab.sh
