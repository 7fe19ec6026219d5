#!/usr/bin/env bash
# Session 50, call 4: A/B of shifted col packs by four-byte loads (this tree) against the commit
# before it (.base), then the norms' odd rows beside aligned ones at this tree.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
SPECS=bench/lab/s50/gpu/specs-call4.txt AB_RUN_LIMIT=40 \
	bash tools/gpu/session.sh info abspecs
