#!/usr/bin/env bash
# Next session: the online half-warp factor (landed after fb7867b) against fb7867b over
# specs-ohw.txt (abspecs, picks under both builds, A B B A, L2 cold; about 200 s). Ready the tree
# first: `bash tools/gpu/ab-prepare.sh --base fb7867b`. Carry .deps .base .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
SPECS=bench/lab/s56/gpu/specs-ohw.txt AB_RUN_LIMIT=40 bash tools/gpu/session.sh info abspecs
