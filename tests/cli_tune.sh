#!/usr/bin/env bash
# rowreduce tune and db end to end on the cpu backend: tuning a small grid writes the database and
# a results.json whose candidates were validated before timing; a second run is a hit with no
# measurement; an edited kernel text is a miss; two processes (and two workers, one of which dies)
# lose no record; a run stopped from outside keeps the workloads it finished; export/import/clear;
# --plan tuned; a truncated, a future-schema and a read-only database each exit 2 with a clear
# sentence and are left untouched.
set -uo pipefail
rr=${ROWREDUCE:?ROWREDUCE must name the rowreduce binary}
tmp=$(mktemp -d /tmp/rr-cli-tune.XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
export RR_TUNING_DB="$tmp/db/tuning.sqlite"
# Kernels compiled at -O1 as the other cpu tests do (half the compile time of the default -O3;
# nothing here depends on the timings' values, only on what was measured and recorded).
export RR_CFLAGS="${RR_CFLAGS:--O1}"
quick=(--backend cpu --dtypes f32 --max-candidates 3 --rounds 2 --samples 3 --sample-ms 1
	--warmup-ms 1)
records() { "$rr" db list --db "${1:-$RR_TUNING_DB}" | grep -c ' wall '; }

# 1. A small grid: four records, every measured candidate validated then timed, regret printed.
"$rr" tune --kernels sum,rmsnorm --shapes 4x64,16x1000 "${quick[@]}" --out "$tmp/first" \
	>"$tmp/first.out" 2>"$tmp/first.err" || fail "first tune exit $?"
[ "$(records)" = 4 ] || fail "first tune: $(records) records, expected 4"
grep -q '4 tuned, 0 from the database' "$tmp/first.out" || fail "first tune summary"
grep -Eq 'regret .* median [0-9.]+%, max [0-9.-]+% \(worst: ' "$tmp/first.out" ||
	fail "no regret summary"
grep -q 'left' "$tmp/first.err" || fail "progress does not say what remains"
python3 - "$tmp/first/results.json" <<'PY' || fail "first results.json"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
t = d["tuning"]
assert d["schema_version"] == 1 and t["objective"] == "wall" and t["phase"] == "e2e"
assert len(t["workloads"]) == 4, len(t["workloads"])
for w in t["workloads"]:
    assert w["ok"] and not w["from_database"], w
    assert w["considered"] == w["legal"] + w["merged_duplicates"] + w["rejected_illegal"]
    measured = [c for c in w["candidates"] if c["measured"]]
    assert 1 <= len(measured) <= 3, len(measured)
    for c in measured:
        row = d["rows"][c["row"]]
        assert row["plan"] == c["plan"] and row["state"] == "measured"
        assert row["validation"]["valid"] and row["validation"]["validated"] > 0
        assert c["median_us"] == statistics.median(row["phases"]["e2e"]["samples_us"])
    fresh = d["rows"][w["fresh_row"]]
    assert fresh["plan"] == w["plan"] and w["best_us"] == fresh["phases"]["e2e"]["median_us"]
    assert w["regret"] is not None and len(w["rounds"]["round_p50_us"]) == 2
s = t["regret_summary"]
assert s["workloads"] == 4 and s["max"] == max(w["regret"] for w in t["workloads"])
assert s["median"] == statistics.median(w["regret"] for w in t["workloads"])
PY

# 2. The same grid again: every workload a hit, nothing measured.
"$rr" tune --kernels sum,rmsnorm --shapes 4x64,16x1000 "${quick[@]}" --out "$tmp/second" \
	>"$tmp/second.out" 2>"$tmp/second.err" || fail "second tune exit $?"
grep -q '0 tuned, 4 from the database' "$tmp/second.out" || fail "second run is not all hits"
[ "$(grep -c 'database hit, not measured' "$tmp/second.out")" = 4 ] || fail "hit lines"
! grep -q 'candidate' "$tmp/second.err" || fail "second run measured a candidate"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['rows'] == []" \
	"$tmp/second/results.json" || fail "second run has measurement rows"

# 3. The kernel text is part of the key: the same text is a hit, an edited comment a miss.
cp "$RR_SOURCE_DIR/specs/sum.rr" "$tmp/sum.rr"
"$rr" tune --kernels "$tmp/sum.rr" --shapes 4x64 "${quick[@]}" --out "$tmp/same" \
	>"$tmp/same.out" 2>&1 || fail "same-text tune exit $?"
grep -q '0 tuned, 1 from the database' "$tmp/same.out" || fail "same kernel text was a miss"
echo '# an edited comment' >>"$tmp/sum.rr"
"$rr" tune --kernels "$tmp/sum.rr" --shapes 4x64 "${quick[@]}" --out "$tmp/edited" \
	>"$tmp/edited.out" 2>&1 || fail "edited tune exit $?"
grep -q '1 tuned, 0 from the database' "$tmp/edited.out" || fail "edited kernel text was a hit"
[ "$(records)" = 5 ] || fail "edited kernel: $(records) records, expected 5"

# 4. Two tuning processes writing at once lose no record.
"$rr" tune --kernels sum --shapes 2x64,3x64,5x64 "${quick[@]}" --out "$tmp/p1" >/dev/null 2>&1 &
p1=$!
"$rr" tune --kernels softmax --shapes 2x64,3x64,5x64 "${quick[@]}" --out "$tmp/p2" >/dev/null 2>&1 &
p2=$!
wait $p1 || fail "process 1 exit $?"
wait $p2 || fail "process 2 exit $?"
[ "$(records)" = 11 ] || fail "two processes: $(records) records, expected 11"

# 5. Two worker processes share the workloads; worker 0 dies at its second workload, which the
# other worker finishes: no record lost, one merged results.json.
RR_TUNE_TEST_STOP_WORKER=0:2 "$rr" tune --kernels layernorm --shapes 2x64,3x64,4x64,5x64 \
	"${quick[@]}" --workers 2 --out "$tmp/workers" >"$tmp/workers.out" 2>"$tmp/workers.err" ||
	fail "workers tune exit $?"
grep -q 'worker 0 stopped.*goes to another worker' "$tmp/workers.err" || fail "no worker death"
[ "$(records)" = 15 ] || fail "workers: $(records) records, expected 15"
python3 - "$tmp/workers/results.json" <<'PY' || fail "merged results.json"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["tuning"]["workloads"]
assert sorted(x["m"] for x in w) == [2, 3, 4, 5], [x["m"] for x in w]
for x in w:
    assert d["rows"][x["fresh_row"]]["plan"] == x["plan"] and d["rows"][x["fresh_row"]]["M"] == x["m"]
assert d["summary"]["rows"] == len(d["rows"])
PY

# 5b. One process stopped dead as it starts its third workload (as a time limit would stop it):
# results.json holds the two it finished, each with its measured candidates and rows.
RR_TUNE_TEST_STOP_WORKER=0:3 "$rr" tune --kernels sum --shapes 2x64,3x64,4x64 "${quick[@]}" \
	--db "$tmp/stopped.sqlite" --out "$tmp/stopped" >"$tmp/stopped.out" 2>"$tmp/stopped.err"
rc=$?
[ $rc -eq 9 ] || fail "stopped tune: exit $rc, expected the test hook's 9"
python3 - "$tmp/stopped/results.json" <<'PY' || fail "stopped run's results.json"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["tuning"]["workloads"]
assert [x["m"] for x in w] == [2, 3], [x["m"] for x in w]
for x in w:
    assert x["ok"] and any(c["measured"] for c in x["candidates"]), x
    assert d["rows"][x["fresh_row"]]["plan"] == x["plan"] and d["rows"][x["fresh_row"]]["M"] == x["m"]
assert d["summary"]["rows"] == len(d["rows"])
PY

# 6. --objective gpu on the cpu backend: no GPU timer, every candidate rejected with the reason.
"$rr" tune --kernels sum --shapes 7x64 "${quick[@]}" --objective gpu --out "$tmp/gpu" \
	>"$tmp/gpu.out" 2>"$tmp/gpu.err"
rc=$?
[ $rc -eq 1 ] || fail "objective gpu on cpu: exit $rc, expected 1"
grep -q 'no timing control for --objective gpu' "$tmp/gpu.err" || fail "no rejection reason"
python3 -c "
import json,sys; w=json.load(open(sys.argv[1]))['tuning']['workloads'][0]
assert not w['ok'] and all(c['rejected_because'] for c in w['candidates'] if c['measured'])" \
	"$tmp/gpu/results.json" || fail "objective gpu results"
[ "$(records)" = 15 ] || fail "a rejected workload was stored"

# 7. export, clear, import; bench --plan tuned says hit and miss.
"$rr" db export "$tmp/export.json" >/dev/null || fail "export"
"$rr" db clear | grep -q 'clear: 15 records' || fail "clear"
[ "$("$rr" db list | grep -c ' wall ')" = 0 ] || fail "clear left records"
"$rr" db import "$tmp/export.json" | grep -q 'import: 15 records' || fail "import"
[ "$(records)" = 15 ] || fail "import: $(records) records"
"$rr" db show rmsnorm | grep -q '"kernel": "rmsnorm"' || fail "db show"
"$rr" bench --kernels sum --shapes 4x64,9x64 --backend cpu --dtypes f32 --samples 2 \
	--sample-ms 1 --warmup-ms 1 --no-ceilings --plan tuned --out "$tmp/bench" \
	>/dev/null 2>"$tmp/bench.err" || fail "bench --plan tuned exit $?"
grep -q 'database hit for sum f32 4x64' "$tmp/bench.err" || fail "bench tuned: no hit"
grep -q 'MISS for sum f32 9x64' "$tmp/bench.err" || fail "bench tuned: no miss"

# 8. Databases that must not be used: exit 2, a sentence, the file unchanged, nothing written.
expect_refused() { # name pattern db
	local name=$1 pattern=$2 db=$3 before=""
	[ -f "$db" ] && before=$(sha256sum <"$db")
	RR_TUNING_DB="$db" "$rr" tune --kernels sum --shapes 4x64 "${quick[@]}" --out "$tmp/$name" \
		>/dev/null 2>"$tmp/$name.err"
	local rc=$?
	[ $rc -eq 2 ] || fail "$name: tune exit $rc, expected 2"
	grep -q -- "$pattern" "$tmp/$name.err" || { fail "$name: no '$pattern'"; cat "$tmp/$name.err" >&2; }
	[ ! -e "$tmp/$name/results.json" ] || fail "$name: results.json written"
	RR_TUNING_DB="$db" "$rr" db list >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "$name: db list exit $rc, expected 2"
	[ -z "$before" ] || [ "$(sha256sum <"$db")" = "$before" ] || fail "$name: file changed"
}
cp "$RR_TUNING_DB" "$tmp/truncated.sqlite"
truncate -s 3000 "$tmp/truncated.sqlite"
expect_refused truncated "is damaged" "$tmp/truncated.sqlite"
cp "$RR_TUNING_DB" "$tmp/future.sqlite"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version=99'); c.commit()" \
	"$tmp/future.sqlite"
expect_refused future "newer rowreduce (schema 99" "$tmp/future.sqlite"
mkdir -p "$tmp/ro"
chmod 555 "$tmp/ro"
ro="$tmp/ro/sub/tuning.sqlite"
if touch "$tmp/ro/probe" 2>/dev/null; then # root ignores the mode: use a location no one can write
	rm -f "$tmp/ro/probe"
	ro=/proc/rowreduce-test/tuning.sqlite
fi
expect_refused readonly "tuning database" "$ro"

# 9. The cost model's coefficients fitted from the measured candidates, a third held out: a
# coefficients file of the cpu class, headed by the command and the data, the same on a rerun.
"$rr" tune --fit "$tmp/first,$tmp/p1/results.json" --out "$tmp/coefficients.txt" >"$tmp/fit.out" ||
	fail "fit exit $?"
python3 - "$tmp/coefficients.txt" <<'PY' || fail "coefficients file"
import re, sys
text = open(sys.argv[1]).read()
lines = text.splitlines()
assert lines[0].startswith("# rowreduce cost-model coefficients for cpu/"), lines[0]
assert any(l.startswith("# fitted by: rowreduce tune --fit ") for l in lines)
assert "results.json (sha256 " in text
sides = [(int(m.group(2)), int(m.group(3))) for m in re.finditer(
    r"#   fitted, (fitted set|held out) +(\d+) workloads:.* of (\d+)\n", text)]
# FNV-1a of "kernel dtype MxN" is 0 mod 3 for "sum f32 16x1000" alone: one workload held out.
assert len(sides) == 2 and sum(sides[1]) == 1 and sum(n + a for n, a in sides) == 7, sides
body = [l.split("#")[0].split() for l in lines if not l.startswith("#")]
assert body[0] == ["class", body[0][1]] and body[0][1].startswith("cpu/"), body[0]
names = [b[0] for b in body[1:] if b]
assert len(names) == len(set(names)) and "cpu_pack_ns" in names and "gpu_bandwidth" not in names
assert all(float(b[1]) > 0 for b in body[1:] if b)
PY
grep -q 'fitted, held out' "$tmp/fit.out" || fail "fit does not print the held-out regret"
"$rr" tune --fit "$tmp/first,$tmp/p1/results.json" --out "$tmp/again.txt" >/dev/null &&
	cmp -s <(grep -v '^# fitted by' "$tmp/coefficients.txt") <(grep -v '^# fitted by' "$tmp/again.txt") ||
	fail "the fit is not deterministic"
# Results of two device classes are refused: one class is fitted at a time.
"$rr" tune --fit "$tmp/first,$RR_SOURCE_DIR/bench/results/2026-11-30-h200-tune-large-f32" \
	--out "$tmp/two-classes.txt" >/dev/null 2>"$tmp/two-classes.err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/two-classes.txt" ] || fail "fit of two classes: exit $rc"
grep -q 'was measured on cuda/sm_90, the files before it on cpu/' "$tmp/two-classes.err" ||
	fail "no sentence for results of two classes"

# 10. RR_COST_COEFFS names a coefficients file to try before it is checked in: the tuner's model
# uses it and says so; a file of another device class stops the run with exit 2.
RR_COST_COEFFS="$tmp/coefficients.txt" "$rr" tune --kernels sum --shapes 6x64 "${quick[@]}" \
	--retune --out "$tmp/with-fit" >/dev/null 2>&1 || fail "tune with RR_COST_COEFFS exit $?"
python3 -c "
import json,sys; w=json.load(open(sys.argv[1]))['tuning']['workloads'][0]
assert w['cost_model'].startswith('cpu/') and 'RR_COST_COEFFS=' in w['cost_model'], w['cost_model']" \
	"$tmp/with-fit/results.json" || fail "results do not say which coefficients the model used"
sed 's|^class .*|class cuda/sm_90|' "$tmp/coefficients.txt" >"$tmp/other-class.txt"
RR_COST_COEFFS="$tmp/other-class.txt" "$rr" tune --kernels sum --shapes 6x64 "${quick[@]}" \
	--retune --out "$tmp/wrong-class" >/dev/null 2>"$tmp/wrong-class.err"
rc=$?
[ $rc -eq 2 ] || fail "coefficients of another class: exit $rc, expected 2"
grep -q 'holds the coefficients of cuda/sm_90; this target is cpu/' "$tmp/wrong-class.err" ||
	fail "no sentence for coefficients of another class"

# 11. --devices naming one device twice runs two worker processes on it (how one GPU stands in for
# two), both writing one database.
RR_TUNING_DB="$tmp/devices.sqlite" "$rr" tune --kernels sum --shapes 2x32,3x32,5x32 "${quick[@]}" \
	--devices 0,0 --out "$tmp/devices" >/dev/null 2>&1 || fail "--devices 0,0 exit $?"
[ -f "$tmp/devices/workers/worker-0.json" ] && [ -f "$tmp/devices/workers/worker-1.json" ] ||
	fail "--devices 0,0 did not run two workers"
[ "$(records "$tmp/devices.sqlite")" = 3 ] || fail "--devices 0,0: $(records "$tmp/devices.sqlite") records"

"$rr" tune --fit "$tmp/nothing-here" --out "$tmp/bad-fit.txt" >/dev/null 2>&1
[ $? -eq 2 ] && [ ! -e "$tmp/bad-fit.txt" ] || fail "fit of a missing file"

help=$("$rr" tune --help)
grep -q -- '--max-candidates' <<<"$help" || fail "--help lacks --max-candidates"
if [ $failures -ne 0 ]; then
	echo "cli_tune: $failures failures"
	exit 1
fi
echo "cli_tune: ok"
