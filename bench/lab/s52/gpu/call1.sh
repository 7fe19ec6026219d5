#!/usr/bin/env bash
# Session 52, call 1: copies for blocks of many rows (copies-rows.patch) and copies written a
# pack a thread (copies-packs.patch), this tree, against HEAD (.base); 50000x3 plans for
# small-launch.patch (L2 hot); then compute-sanitizer on a plan of 32 rows a block reading the
# copies.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
SPECS=bench/lab/s52/gpu/specs-call1.txt AB_RUN_LIMIT=40 AB_BASES=".base" \
	bash tools/gpu/session.sh info abspecs
PLAN_FILE=bench/lab/s52/gpu/plans-small.txt PLANS_L2=hot bash tools/gpu/session.sh plans
SAN_TOOLS="memcheck racecheck" SAN_SPECS="layernorm:8191x1023:bf16:auto" \
	timeout 150 bash tools/gpu/session.sh memcheck
