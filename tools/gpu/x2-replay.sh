#!/usr/bin/env bash
# One call on a host with two GPUs: build, then tools/gpu/replay-from-tune.sh for two recorded
# tuning runs at the same time, the first on GPU 0 and the second on GPU 1; one tarball back.
# Usage: bash tools/gpu/x2-replay.sh TUNE_DIR_0 TUNE_DIR_1 [hot|cold]
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT" /tmp/x2r
OUT=/tmp/x2r bash tools/gpu/session.sh info | tail -3
gpu=0
for t in "$1" "$2"; do
	n=$(basename "$t")
	(CUDA_VISIBLE_DEVICES=$gpu OUT=/tmp/x2r/$gpu timeout ${LIMIT:-440} \
		bash tools/gpu/replay-from-tune.sh "$t" "${3:-cold}" 4 >/tmp/x2r/$n.log 2>&1;
	 echo "gpu $gpu $n: exit $?" >>/tmp/x2r/$n.log) &
	gpu=$((gpu + 1))
done
wait
for f in /tmp/x2r/*.log; do echo "## $f"; tail -n 12 "$f"; done
tar czf "$OUT/x2-replay.tgz" /tmp/x2r bench/results/*-replay-tuned-* 2>/dev/null
