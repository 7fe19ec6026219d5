#!/usr/bin/env bash
# Session 64, call 1 (either card): the `odd` record (STAGE=wide: `wide`) at this tree, six
# built-ins in f32 and bf16 beside eager, torch.compile and Liger, through
# bench/lab/s59/gpu/call.sh with its H200 test lifted: on an H100 it is the first odd record of
# both dtypes since session 60's short rows (the folder names the card). Cut at 575 s.
# Carry .deps .whl .rr-commit; bench/results moved aside first.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
sed -e 's/grep -q H200 "\$OUT\/nvidia-smi.csv"/true/' -e 's/s59/s64/g' bench/lab/s59/gpu/call.sh >/tmp/rr-call.sh
bash /tmp/rr-call.sh
