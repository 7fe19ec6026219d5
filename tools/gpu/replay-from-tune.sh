#!/usr/bin/env bash
# Replays the plans a recorded tuning run chose against the automatic mapper's (the cost model with
# an empty database), on this GPU, when the tuning ran on another device or at another commit:
# the run's records are imported into a fresh database under this device's and this build's key
# (UUID, driver, NVRTC, rowreduce version), which the folder's REKEYED.md states, then both sides
# are benched, replayed in position-balanced rounds and audited by rowreduce verify.
# Usage, from the repository root once tools/gpu/session.sh has built build-gpu/:
#   bash tools/gpu/replay-from-tune.sh TUNE_DIR hot|cold [ROUNDS]
# Writes bench/results/<date>-<host>-replay-<name>/ and $OUT/replay-<name>.tgz. RR, BACKEND and
# REPLAY_LIMIT (seconds: the replay's --time-limit, so a call's limit never loses the run) may be set.
set -uo pipefail
tune=${1:?usage: replay-from-tune.sh TUNE_DIR hot|cold [ROUNDS]}
l2=${2:?usage: replay-from-tune.sh TUNE_DIR hot|cold [ROUNDS]}
rounds=${3:-4}
RR=${RR:-$PWD/build-gpu/rowreduce}
BACKEND=${BACKEND:-cuda}
OUT=${OUT:-/tmp/rr-out}
name=$(basename "$tune" | sed 's/^[0-9-]*[a-z0-9]*-tune-//')
work=/tmp/rr-rekey-$name
rm -rf "$work" && mkdir -p "$OUT" "$work"
host=$([ "$BACKEND" = cuda ] && echo h200 || echo "$BACKEND")
dir=bench/results/$(date -u +%Y-%m-%d)-$host-replay-tuned-$name
step() { echo "== $* ($(date -u +%H:%M:%S))"; }
read -r kernels dtypes shapes < <(python3 - "$tune/results.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["tuning"]["workloads"]
uniq = lambda xs: ",".join(dict.fromkeys(xs))
print(uniq(x["kernel"] for x in w), uniq(x["dtype"] for x in w),
      uniq("%dx%d" % (x["m"], x["n"]) for x in w))
PY
)
common=(--backend "$BACKEND" --shapes "$shapes" --kernels "$kernels" --dtypes "$dtypes")
quick=(--samples 5 --sample-ms 10 --warmup-ms 50)

step "this device's key: a one-workload tune into a probe database"
"$RR" tune --backend "$BACKEND" --shapes 1x127 --kernels sum --dtypes f32 --max-candidates 1 \
	--db "$work/probe.sqlite" --out "$work/probe" >/dev/null 2>"$OUT/probe-$name.err" &&
	"$RR" db export "$work/probe.json" --db "$work/probe.sqlite" || { tail -3 "$OUT/probe-$name.err"; exit 1; }
step "import the tuned records under this key"
python3 - "$tune/results.json" "$work/probe.json" "$work/import.json" "$work/REKEYED.md" <<'PY'
import json, sys
runs, probe, out, note = sys.argv[1:]
here = json.load(open(probe))
key = here["records"][0]
fields = ["device_uuid", "device_name", "compute_capability", "driver", "compiler", "rowreduce_version"]
records, changed = [], set()
for w in json.load(open(runs))["tuning"]["workloads"]:
    if not w["ok"]:
        continue
    r = dict(w["record"])
    for f in fields:
        if r[f] != key[f]:
            changed.add("%s: %s -> %s" % (f, r[f], key[f]))
            r[f] = key[f]
    records.append(r)
json.dump({"tuning_db_schema": here["tuning_db_schema"], "records": records}, open(out, "w"), indent=1)
with open(note, "w") as f:
    f.write("# The tuned side's plans\n\nFrom `%s` (%d records), imported under this device's key.\n"
            "Key fields rewritten (the plans, kernel hashes, shapes and objective are the run's own):\n\n"
            % (runs, len(records)))
    f.writelines("- %s\n" % c for c in sorted(changed))
print(len(records), "records;", len(changed), "key fields rewritten")
PY
"$RR" db import "$work/import.json" --db "$work/tuned.sqlite" || exit 1
step "bench the automatic mapper's plans (empty database)"
RR_TUNING_DB=$work/empty.sqlite "$RR" bench "${common[@]}" --l2 "$l2" "${quick[@]}" --no-ceilings \
	--plan auto --out "$work/auto" 2>"$OUT/bench-auto-$name.err"
echo "exit $?"
step "bench the tuned plans"
RR_TUNING_DB=$work/tuned.sqlite "$RR" bench "${common[@]}" --l2 "$l2" "${quick[@]}" --no-ceilings \
	--plan tuned --out "$work/tuned" 2>"$OUT/bench-tuned-$name.err"
echo "exit $?"; grep -ci "miss" "$OUT/bench-tuned-$name.err" | sed 's/^/database misses: /'
step "replay: reference = automatic mapper, candidate = tuned, $rounds rounds"
"$RR" replay --reference "$work/auto" --candidate "$work/tuned" --rounds "$rounds" \
	${REPLAY_LIMIT:+--time-limit "$REPLAY_LIMIT"} "${quick[@]}" --bootstrap 1000 --capture-sources --out "$dir" 2>"$OUT/replay-$name.err"
echo "exit $?"; tail -1 "$OUT/replay-$name.err"
step "verify $dir"
"$RR" verify "$dir" >"$OUT/verify-$name.txt"
echo "exit $?"
if [ -d "$dir" ]; then
	cp "$OUT/verify-$name.txt" "$dir/verify.txt"
	cp "$work/REKEYED.md" "$dir/"
fi
tail -4 "$OUT/verify-$name.txt"
grep -m1 "workloads replayed" "$dir/results.md" 2>/dev/null
tar czf "$OUT/replay-$name.tgz" "$dir" 2>/dev/null
step done
