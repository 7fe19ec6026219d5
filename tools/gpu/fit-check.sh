#!/usr/bin/env bash
# The fitted cost model against the hand values on workloads the fit never saw, on the lent GPU:
# two tuning runs of one suite with fresh databases, one whose model uses the embedded fitted
# coefficients (src/plan/coeffs/cuda-sm_90.txt), one whose model uses the hand values (a
# coefficients file with only its class line), then each run's regret and the regret of each
# model's pick against the best either run found.
# Usage, from the repository root once tools/gpu/session.sh has built build-gpu/:
#   bash tools/gpu/fit-check.sh [SUITE] [DTYPES] [TUNE_BUDGET_S]     (default odd f32 150)
# On a host with two GPUs, PARALLEL=1 runs the two tunings at once (fitted on GPU 0, hand on 1).
# BACKEND=cpu (class cpu/<arch>) with a small suite file tries the flow without a GPU.
# Writes bench/results/<date>-h200-fitcheck-<suite>-<dtypes>/{fitted,hand}/ and summary.txt.
set -uo pipefail
suite=${1:-odd}
dtypes=${2:-f32}
budget=${3:-150}
RR=${RR:-$PWD/build-gpu/rowreduce}
BACKEND=${BACKEND:-cuda}
class=${CLASS:-cuda/sm_90}
[ "$BACKEND" = cpu ] && class=cpu/$(uname -m | sed 's/_/-/')
host=$([ "$BACKEND" = cuda ] && echo h200 || echo "$BACKEND")
dir=bench/results/$(date -u +%Y-%m-%d)-$host-fitcheck-$(basename "$suite" .txt)-${dtypes//,/-}
work=$(mktemp -d /tmp/rr-fitcheck.XXXXXX)
mkdir -p "$dir"
printf 'class %s\n' "$class" >"$work/hand.txt" # no coefficient given: every hand value
args=(tune --backend "$BACKEND" --suite "$suite" --kernels all --dtypes "$dtypes" --budget-s "$budget")
tune() { # name gpu [RR_COST_COEFFS]
	local name=$1 gpu=$2
	env ${PARALLEL:+CUDA_VISIBLE_DEVICES=$gpu} RR_TUNING_DB="$work/$name.sqlite" \
		RR_COST_COEFFS="${3:-}" "$RR" "${args[@]}" --out "$dir/$name" \
		>"$dir/$name.out" 2>"$dir/$name.log"
	echo "$name: exit $?; $(tail -1 "$dir/$name.out")"
}
printf 'rowreduce %s --out DIR, with fresh databases; hand: RR_COST_COEFFS=<a file: class %s>\n' \
	"${args[*]}" "$class" >"$dir/COMMAND"
if [ -n "${PARALLEL:-}" ]; then
	tune fitted 0 & tune hand 1 "$work/hand.txt" & wait
else
	tune fitted 0
	tune hand 1 "$work/hand.txt"
fi
python3 - "$dir" <<'PY' | tee "$dir/summary.txt"
import json, statistics, sys
runs = {}
for name in ("fitted", "hand"):
    d = json.load(open(f"{sys.argv[1]}/{name}/results.json"))
    runs[name] = {(w["kernel"], w["dtype"], w["m"], w["n"]): w
                  for w in d["tuning"]["workloads"] if w["ok"] and w["regret"] is not None}
keys = sorted(set(runs["fitted"]) & set(runs["hand"]))
print(f"{len(keys)} workloads tuned in both runs")
for name, run in runs.items():
    own = [run[k]["regret"] for k in keys]
    both = []
    for k in keys:
        pick = run[k]["best_us"] * (1 + run[k]["regret"])
        best = min(runs["fitted"][k]["best_us"], runs["hand"][k]["best_us"])
        both.append((pick / best - 1, k))
    worst = max(both)
    print(f"{name:6s} model: regret in its own run median {100 * statistics.median(own):.2f}%, "
          f"max {100 * max(own):.2f}%; against the best of both runs median "
          f"{100 * statistics.median(v for v, _ in both):.2f}%, max {100 * worst[0]:.2f}% "
          f"({' '.join(map(str, worst[1]))})")
PY
rm -rf "$work"
