#!/usr/bin/env bash
# One call on a lent host with two GPUs: build, then the tuned-against-automatic-mapper replay
# of the `large` suite, f32 on GPU 0 and bf16 on GPU 1 at the same time (each its own database,
# since a record is keyed by the device that measured it). Everything comes back as one tarball.
# Usage, from the repository root with .deps and .rr-commit carried:
#   bash tools/gpu/x2-tune.sh [SUITE] [TUNE_BUDGET_S]
set -uo pipefail
suite=${1:-large}
budget=${2:-120}
OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT" /tmp/x2
OUT=/tmp/x2 bash tools/gpu/session.sh info | tail -5
nvidia-smi -L
export ROUNDS=${ROUNDS:-4}
for pair in 0:f32 1:bf16; do
	gpu=${pair%%:*} dt=${pair#*:}
	(CUDA_VISIBLE_DEVICES=$gpu OUT=/tmp/x2/$dt timeout ${LIMIT:-480} \
		bash tools/gpu/replay-tuned.sh "$suite" cold "$dt" "$budget" >/tmp/x2/$suite-$dt.log 2>&1;
	 echo "gpu $gpu $dt: exit $?" >>/tmp/x2/$suite-$dt.log) &
done
wait
tail -15 /tmp/x2/$suite-*.log
tar czf "$OUT/x2-$suite.tgz" /tmp/x2 bench/results/*-h200-tune-* bench/results/*-h200-replay-$suite-* 2>/dev/null
ls -la "$OUT"
