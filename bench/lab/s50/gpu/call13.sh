#!/usr/bin/env bash
# Session 50, call 13: A/B of the cost model's headed U in plain reductions (this tree) against
# its parent (.base): the 13 picks of the suites it moves.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
SPECS=bench/lab/s50/gpu/specs-model.txt AB_RUN_LIMIT=30 bash tools/gpu/session.sh info abspecs
