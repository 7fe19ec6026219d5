#!/usr/bin/env bash
# Session 50, call 3: A/B of branch-free shifted col packs (this tree) against the commit
# before it (.base), then the norms' odd rows beside aligned ones at this tree.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
SPECS=bench/lab/s50/gpu/specs-call3.txt AB_RUN_LIMIT=40 ODD_KERNELS="rmsnorm,layernorm add_layernorm" \
	bash tools/gpu/session.sh info abspecs odd-pairs
