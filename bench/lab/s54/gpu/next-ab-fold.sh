#!/usr/bin/env bash
# Next session: kexp-fold.patch A/B (abspecs, L2 cold) over specs-kexp-fold.txt. Ready the tree
# first: `bash tools/gpu/ab-prepare.sh --base HEAD`; the patch is applied here, on the lent
# machine's copy. Carry .deps .base .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
patch -p1 <bench/lab/s54/gpu/kexp-fold.patch || exit 1
SPECS=bench/lab/s54/gpu/specs-kexp-fold.txt AB_RUN_LIMIT=40 bash tools/gpu/session.sh info abspecs
