#!/usr/bin/env bash
# Session 53: specs-scalar.txt under .base-scalar (HEAD with all-scalar.patch: every launch takes
# the scalar entry, element by element as a Triton row program loads) and this tree (headed
# entries), A B B A, L2 cold. Ready here:
#   bash tools/gpu/ab-prepare.sh --base HEAD scalar && (cd .base-scalar && patch -p1 < ../bench/lab/s53/gpu/all-scalar.patch)
# then carry .deps .base-scalar .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
SPECS=bench/lab/s53/gpu/specs-scalar.txt AB_RUN_LIMIT=40 AB_BASES=".base-scalar" bash tools/gpu/session.sh info abspecs
