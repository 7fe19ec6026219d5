#!/usr/bin/env bash
# Session 51, call 3: the col copies as they would land (this tree) against HEAD (.base), then
# the GPU tests of this tree.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
SPECS=bench/lab/s51/gpu/specs-call3.txt AB_RUN_LIMIT=40 AB_BASES=".base" \
	bash tools/gpu/session.sh info abspecs test
