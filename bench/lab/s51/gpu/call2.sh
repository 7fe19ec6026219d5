#!/usr/bin/env bash
# Session 51, call 2: the col copies with the 64-register cap, bf16/f16 only, and the row
# entries launched as programmatic dependents of the copies' entry (this tree), against HEAD
# (.base) and against this tree without the programmatic launch (.base-nopdl).
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
ln -sfn "$PWD/.deps" .base-nopdl/.deps
SPECS=bench/lab/s51/gpu/specs-call2.txt AB_RUN_LIMIT=40 AB_BASES=".base .base-nopdl" \
	bash tools/gpu/session.sh info abspecs
