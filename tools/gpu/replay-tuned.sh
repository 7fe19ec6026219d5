#!/usr/bin/env bash
# The tuned plans against the automatic mapper's for one suite, on the lent GPU: tune (into a
# database of this run), bench the cost model's plans (an empty database) and the tuned plans,
# replay the two in position-balanced rounds, and audit the replay with rowreduce verify.
# Usage, from the repository root once tools/gpu/session.sh has built build-gpu/:
#   bash tools/gpu/replay-tuned.sh SUITE hot|cold DTYPES [TUNE_BUDGET_S]
#   e.g. bash tools/gpu/replay-tuned.sh seed hot f32,bf16
#        bash tools/gpu/replay-tuned.sh large cold f32 300
# Writes bench/results/<date>-<host>-replay-<suite>-<dtypes>/ (results.json, results.md, the two
# inputs, sources/, verify.txt); logs go to $OUT. RR (the binary), BACKEND (cuda), ROUNDS (4)
# RR_TUNING_DB, KERNELS (all) and TUNE_ARGS (more tune options) may be set; BACKEND=cpu with a small suite file tries the whole
# flow without a GPU.
set -uo pipefail
suite=${1:?usage: replay-tuned.sh SUITE hot|cold DTYPES [TUNE_BUDGET_S]}
l2=${2:?usage: replay-tuned.sh SUITE hot|cold DTYPES [TUNE_BUDGET_S]}
dtypes=${3:-f32,bf16}
budget=${4:-0}
RR=${RR:-$PWD/build-gpu/rowreduce}
BACKEND=${BACKEND:-cuda}
OUT=${OUT:-/tmp/rr-out}
tag=$(basename "$suite" .txt)-${dtypes//,/-}
work=/tmp/rr-replay-$tag
mkdir -p "$OUT" "$work"
export RR_TUNING_DB=${RR_TUNING_DB:-$work/tuning.sqlite}
quick=(--samples 5 --sample-ms 10 --warmup-ms 50)
common=(--backend "$BACKEND" --suite "$suite" --kernels ${KERNELS:-all} --dtypes "$dtypes")
host=$([ "$BACKEND" = cuda ] && echo h200 || echo "$BACKEND")
dir=bench/results/$(date -u +%Y-%m-%d)-$host-replay-$tag
step() { echo "== $* ($(date -u +%H:%M:%S))"; }

step "tune $tag (database $RR_TUNING_DB)"
"$RR" tune "${common[@]}" --budget-s "$budget" ${TUNE_ARGS:-} --out "$work/tune" 2>"$OUT/tune-$tag.err"
echo "exit $?"; tail -2 "$OUT/tune-$tag.err"
# The tuning run itself (every candidate's samples, the regret) is kept beside the replay: the
# cost model's fit reads it.
tdir=bench/results/$(date -u +%Y-%m-%d)-$host-tune-$tag
rm -rf "$tdir" && mkdir -p "$tdir" && cp -r "$work/tune/." "$tdir/" && cp "$OUT/tune-$tag.err" "$tdir/tune.log"
printf '%s\n' "RR_TUNING_DB=<fresh> rowreduce tune ${common[*]} --budget-s $budget ${TUNE_ARGS:-} --out DIR" >"$tdir/COMMAND"
step "bench the automatic mapper's plans (empty database)"
rm -f "$work/empty.sqlite"
RR_TUNING_DB=$work/empty.sqlite "$RR" bench "${common[@]}" --l2 "$l2" "${quick[@]}" --no-ceilings \
	--plan auto --out "$work/auto" 2>"$OUT/bench-auto-$tag.err"
echo "exit $?"
step "bench the tuned plans"
"$RR" bench "${common[@]}" --l2 "$l2" "${quick[@]}" --no-ceilings --plan tuned \
	--out "$work/tuned" 2>"$OUT/bench-tuned-$tag.err"
echo "exit $?"; grep -ci "miss" "$OUT/bench-tuned-$tag.err" | sed 's/^/database misses: /'
step "replay: reference = automatic mapper, candidate = tuned, ${ROUNDS:-4} rounds"
"$RR" replay --reference "$work/auto" --candidate "$work/tuned" --rounds "${ROUNDS:-4}" \
	"${quick[@]}" --bootstrap 1000 --capture-sources --out "$dir" 2>"$OUT/replay-$tag.err"
echo "exit $?"; tail -1 "$OUT/replay-$tag.err"
step "verify $dir"
"$RR" verify "$dir" >"$OUT/verify-$tag.txt"
echo "exit $?"
[ -d "$dir" ] && cp "$OUT/verify-$tag.txt" "$dir/verify.txt"
tail -12 "$OUT/verify-$tag.txt"
grep -m1 "workloads replayed" "$dir/results.md" 2>/dev/null
tar czf "$OUT/replay-$tag.tgz" "$dir" "$tdir" 2>/dev/null
step done
