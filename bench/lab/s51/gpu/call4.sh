#!/usr/bin/env bash
# Session 51, call 4: the col copies as they would land (this tree) against HEAD (.base), then
# the norms' odd bf16 rows beside their aligned neighbours at this tree.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
SPECS=bench/lab/s51/gpu/specs-call4.txt AB_RUN_LIMIT=40 AB_BASES=".base" \
	ODD_KERNELS="rmsnorm,layernorm add_layernorm" ODD_DTYPES=bf16 \
	bash tools/gpu/session.sh info abspecs odd-pairs
