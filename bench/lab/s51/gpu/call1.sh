#!/usr/bin/env bash
# Session 51, call 1: session 50's col-input labs. (1) next-preshift.sh at the unpatched tree
# (.base, with bench/lab copied in); (2) A/B of specs-call3.txt: .base (HEAD), this tree
# (HEAD + col-copies.patch) and .base-bc (HEAD + batched-cap.patch), A B C C B A.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
root=$PWD
cp -r bench/lab .base/bench/ && ln -sfn "$root/.deps" .base/.deps && ln -sfn "$root/.deps" .base-bc/.deps
(cd .base && OUT=$OUT/pre bash bench/lab/s50/gpu/next-preshift.sh) 2>&1 | tee "$OUT/preshift.txt"
SPECS=bench/lab/s50/gpu/specs-call3.txt AB_RUN_LIMIT=40 AB_BASES=".base .base-bc" \
	bash tools/gpu/session.sh info abspecs
