#!/usr/bin/env bash
# rowreduce replay on the cpu backend: two small bench folders (the planner's plans and fixed
# plans) replayed against each other; the rounds' order (ABBA, BAAB, ...), the sample counts,
# every statistic and verdict recomputed here from the raw samples, verify passing on the
# replay and failing (exit 1, naming it) on a tampered replayed plan, frozen input, ratio or
# verdict; a changed library hash refused (exit 2, nothing written) unless --allow-rebuild,
# which records it; a peers side, bad flags and a missing input exit 2.
set -uo pipefail
rr=${ROWREDUCE:?ROWREDUCE must name the rowreduce binary}
tmp=$(mktemp -d /tmp/rr-cli-replay.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
bench=(bench --backend cpu --samples 3 --sample-ms 2 --warmup-ms 5 --no-ceilings
	--kernels sum,rmsnorm --dtypes f32 --shapes 4x64,8x256)
quick=(--samples 2 --sample-ms 1 --warmup-ms 2)

"$rr" "${bench[@]}" --out "$tmp/A" >/dev/null 2>&1 || fail "bench A"
"$rr" "${bench[@]}" --plan W=4,V=4 --shapes 4x64,8x256,16x128 --out "$tmp/B" >/dev/null 2>&1 ||
	fail "bench B"

"$rr" replay --reference "$tmp/A/results.json" --candidate "$tmp/B" --rounds 3 "${quick[@]}" \
	--bootstrap 100 --capture-sources --out "$tmp/R" >"$tmp/r.out" 2>"$tmp/r.err"
code=$?
[ $code -eq 0 ] || fail "replay: exit $code: $(cat "$tmp/r.err")"
for f in results.json results.md reference.json candidate.json; do
	[ -s "$tmp/R/$f" ] || fail "replay wrote no $f"
done
cmp -s "$tmp/A/results.json" "$tmp/R/reference.json" || fail "reference.json is not a copy of A"
# Positions balanced: every workload's rounds ran ABBA, BAAB, ABBA.
for w in "sum f32 4x64" "sum f32 8x256" "rmsnorm f32 4x64" "rmsnorm f32 8x256"; do
	orders=$(grep -F "] $w (" "$tmp/r.err" | grep -F "): round" | sed 's/.*, //' | tr '\n' ' ')
	[ "$orders" = "ABBA BAAB ABBA " ] || fail "$w ran in the order '$orders'"
done

# The workloads fit in memory together (one block): every round runs all four before the next.
rounds_seen=$(grep -o "round [0-9] of 3" "$tmp/r.err" | cut -d' ' -f2 | tr -d '\n')
[ "$rounds_seen" = "111122223333" ] || fail "rounds do not interleave the workloads: $rounds_seen"

# The replay's claims recomputed here, independently of the C code.
python3 - "$tmp" <<'PY' || fail "replay results"
import json, statistics, sys
tmp = sys.argv[1]
d = json.load(open(tmp + "/R/results.json"))
inputs = [json.load(open(tmp + "/A/results.json")), json.load(open(tmp + "/B/results.json"))]
errors = []
def need(cond, what):
    if not cond:
        errors.append(what)
need(d["kind"] == "replay" and d["schema_version"] == 1, "kind and schema")
p = d["protocol"]
need(p["rounds"] == 3 and p["samples"] == 2 and p["plan"] == "frozen", "protocol")
need(p["bootstrap"] == {"resamples": 100, "confidence": 0.95, "seed": 1}, "bootstrap recorded")
r = d["replay"]
need(r["allow_rebuild"] is False and r["differences"] == [], "no differences")
need(r["headline_phase"] == "e2e", "headline phase on cpu")
need(sorted((s["kernel"], s["M"], s["N"], s["reason"]) for s in r["skipped"]) ==
     [("rmsnorm", 16, 128, "only in the candidate"), ("sum", 16, 128, "only in the candidate")],
     "skipped: %s" % r["skipped"])
work = r["workloads"]
need(len(work) == 4 and len(d["rows"]) == 8, "4 workloads, 8 rows")
counts = {"candidate faster": 0, "reference faster": 0, "not demonstrated": 0}
for w in work:
    need(w["orders"] == ["ABBA", "BAAB", "ABBA"], "orders")
    need(w["block"] == 0, "one block")
    p50 = {}
    for s, name in enumerate(("reference", "candidate")):
        side = w[name]
        row = d["rows"][side["row"]]
        source = inputs[s]["rows"][side["source_row"]]
        need(row["side"] == name and row["state"] == "measured", "side row")
        need((source["kernel"], source["M"], source["N"]) == (w["kernel"], w["M"], w["N"]), "source row")
        need(side["frozen_plan"] == source["plan"] == row["plan"], "plan frozen and replayed")
        need(row["validation"]["valid"] and row["validation"]["validated"] > 0, "validated")
        for ph in ("e2e", "single"):
            x = row["phases"][ph]
            need(x["available"] and len(x["samples_us"]) == 12 and x["samples_per_round"] == 4
                 and x["rounds"] == 3 and len(x["batches"]) == 6, "sample counts")
            rounds = [statistics.median(x["samples_us"][4 * k: 4 * k + 4]) for k in range(3)]
            need(x["round_p50_us"] == rounds, "round medians")
            need(x["median_of_round_p50s_us"] == statistics.median(rounds), "median of rounds")
            need(x["median_us"] == statistics.median(x["samples_us"]), "median of samples")
            p50[name, ph] = rounds
    for ph in ("e2e", "single"):
        e = w["phases"][ph]
        ratios = [a / b for a, b in zip(p50["reference", ph], p50["candidate", ph])]
        need(e["ratios"] == ratios, "paired ratios")
        need(e["ratio_median"] == statistics.median(ratios), "median ratio")
        need(e["ratio_min"] == min(ratios) and e["ratio_max"] == max(ratios), "ratio range")
        want = ("candidate faster" if min(ratios) > 1 else
                "reference faster" if max(ratios) < 1 else "not demonstrated")
        need(e["verdict"] == want, "verdict %s, expected %s" % (e["verdict"], want))
        b = e["bootstrap"]
        need(min(ratios) <= b["lo"] <= b["hi"] <= max(ratios), "bootstrap interval")
    for ph in ("gpu", "gpu_graph", "single_gpu"):
        need(w["phases"][ph] == {"available": False}, "no %s on cpu" % ph)
    counts[w["phases"]["e2e"]["verdict"]] += 1
sm = d["summary"]
need((sm["workloads"], sm["candidate_faster"], sm["reference_faster"], sm["not_demonstrated"],
      sm["skipped"]) == (4, counts["candidate faster"], counts["reference faster"],
                         counts["not demonstrated"], 2), "summary %s" % sm)
md = open(tmp + "/R/results.md").read()
need(md.index("## Phase e2e") < md.index("## Phase single"), "the headline phase first")
need("## Not replayed" in md, "skipped workloads listed")
for e in errors:
    print("replay:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY

out=$("$rr" verify "$tmp/R")
code=$?
[ $code -eq 0 ] || fail "verify of the replay: exit $code: $out"
grep -q "^OK *frozen plans:" <<<"$out" || fail "no frozen-plans check: $out"

# tamper NAME PYTHON EXPECTED: a copy of the replay with one thing changed must fail verify
# (exit 1) with a MISMATCH line naming EXPECTED.
tamper() {
	local name=$1 code=$2 want=$3
	rm -rf "$tmp/t"
	cp -r "$tmp/R" "$tmp/t"
	(cd "$tmp/t" && python3 -c "import json
$code") || { fail "$name: tampering failed"; return; }
	out=$("$rr" verify "$tmp/t")
	local status=$?
	[ $status -eq 1 ] || fail "$name: exit $status, expected 1: $out"
	grep '^MISMATCH' <<<"$out" | grep -qF -- "$want" || fail "$name: no mismatch names '$want': $out"
}
edit='d = json.load(open("results.json"))'
save='json.dump(d, open("results.json", "w"), indent=1)'
tamper "replayed plan" "$edit
d['rows'][1]['plan'] = d['rows'][1]['plan'].replace('W=4', 'W=8')
$save" "rows[1].plan 'W=8"
tamper "frozen input" "i = json.load(open('reference.json'))
i['rows'][0]['plan'] = 'W=2,V=2,U=1,R=1,C=1,S=regs,G=rows'
json.dump(i, open('reference.json', 'w'))" "replay.reference.sha256: recorded"
tamper "ratio" "$edit
d['replay']['workloads'][2]['phases']['e2e']['ratio_median'] = 1.25
$save" "replay.workloads[2].phases.e2e.ratio_median: stored 1.25"
tamper "verdict" "$edit
e = d['replay']['workloads'][0]['phases']['single']
e['verdict'] = 'candidate faster' if e['verdict'] != 'candidate faster' else 'not demonstrated'
$save" "replay.workloads[0].phases.single.verdict: stored"
tamper "round median" "$edit
d['rows'][3]['phases']['e2e']['round_p50_us'][1] *= 0.5
$save" "rows[3].phases.e2e.round_p50_us[1]"
tamper "row's frozen plan" "$edit
d['rows'][2]['frozen_plan'] = 'W=1,V=1,U=1,R=1,C=1,S=regs,G=rows'
$save" "rows[2].frozen_plan 'W=1,V=1"
tamper "raw sample" "$edit
s = d['rows'][5]['phases']['single']['samples_us']
s[0] = max(s) * 3
$save" "phases.single.max_us: stored"

# A library hash that differs from this build's: refused, nothing written; allowed and recorded
# with --allow-rebuild (on the sum workloads only: --kernels).
python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/A/results.json"))
d["library"]["sha256"] = "0" * 64
json.dump(d, open(sys.argv[1] + "/A-lib.json", "w"))
d = json.load(open(sys.argv[1] + "/A/results.json"))
d["rows"][1]["source_sha256"] = "1" * 64
json.dump(d, open(sys.argv[1] + "/A-src.json", "w"))
PY
"$rr" replay --reference "$tmp/A-lib.json" --candidate "$tmp/B" --rounds 1 "${quick[@]}" \
	--out "$tmp/refused" >/dev/null 2>"$tmp/refused.err"
code=$?
[ $code -eq 2 ] || fail "a changed library hash: exit $code, expected 2"
grep -q "refusing to replay: 1 recorded hash differs.*the library of the reference" "$tmp/refused.err" ||
	fail "the refusal does not name the library: $(cat "$tmp/refused.err")"
[ -e "$tmp/refused/results.json" ] && fail "a refused replay wrote results.json"
"$rr" replay --reference "$tmp/A-src.json" --candidate "$tmp/B" --rounds 1 "${quick[@]}" \
	--out "$tmp/refused" >/dev/null 2>"$tmp/refused.err"
code=$?
[ $code -eq 2 ] || fail "a changed source hash: exit $code, expected 2"
grep -q "generated source of sum f32 8x256 of the reference" "$tmp/refused.err" ||
	fail "the refusal does not name the source: $(cat "$tmp/refused.err")"
"$rr" replay --reference "$tmp/A-lib.json" --candidate "$tmp/B" --rounds 2 "${quick[@]}" \
	--allow-rebuild --kernels sum --out "$tmp/rebuilt" >/dev/null 2>&1
code=$?
[ $code -eq 0 ] || fail "--allow-rebuild: exit $code"
python3 - "$tmp/rebuilt/results.json" <<'PY' || fail "--allow-rebuild is not recorded"
import json, sys
r = json.load(open(sys.argv[1]))["replay"]
assert r["allow_rebuild"] is True
assert [(x["side"], x["what"], x["recorded"]) for x in r["differences"]] == [("reference", "library", "0" * 64)]
assert [(w["kernel"], w["N"]) for w in r["workloads"]] == [("sum", 64), ("sum", 256)], "--kernels sum"
assert sorted((x["kernel"], x["N"], x["reason"]) for x in r["skipped"]) == [
    ("rmsnorm", 64, "left out by --kernels or --dtypes"),
    ("rmsnorm", 256, "left out by --kernels or --dtypes"), ("sum", 128, "only in the candidate")]
PY
grep -q "rebuilt with --allow-rebuild: 1 recorded hash" "$tmp/rebuilt/results.md" ||
	fail "results.md does not say the replay was rebuilt"
"$rr" verify "$tmp/rebuilt" >/dev/null || fail "verify of the --allow-rebuild replay"

# A time limit: asked for 1000 rounds with --time-limit 1, the replay keeps the rounds that ran
# (at least one, far fewer than asked), says so in results.md, and the folder still audits.
"$rr" replay --reference "$tmp/A" --candidate "$tmp/B" --rounds 1000 "${quick[@]}" \
	--time-limit 1 --allow-rebuild --out "$tmp/limited" >/dev/null 2>"$tmp/limited.err" ||
	fail "a time-limited replay: $(tail -2 "$tmp/limited.err")"
python3 - "$tmp/limited/results.json" <<'PY' || fail "the time-limited replay's protocol"
import json, sys
p = json.load(open(sys.argv[1]))["protocol"]
assert p["rounds_requested"] == 1000 and 1 <= p["rounds"] < 1000, p
assert p["time_limit_s"] == 1, p
PY
grep -q "^- time limit: 1 s; [0-9]* of 1000 requested rounds ran" "$tmp/limited/results.md" ||
	fail "results.md does not state the time limit"
"$rr" verify "$tmp/limited" >/dev/null || fail "verify of the time-limited replay"
expect2_limit() {
	"$rr" replay --reference "$tmp/A" --candidate "$tmp/B" --time-limit "$1" --out "$tmp/x" \
		>/dev/null 2>&1
	[ $? -eq 2 ] || fail "--time-limit $1 must exit 2"
}
expect2_limit 0.5
expect2_limit soon

# --skip-identical: a candidate holding A's rows but B's for sum 4x64 replays that workload only;
# the three whose plan and source equal A's are listed as not replayed, and verify passes. With
# nothing but identical workloads, the replay refuses (exit 2) and says why.
python3 - "$tmp" <<'PY' || fail "building the mixed candidate"
import json, os, sys
t = sys.argv[1]
a, b = json.load(open(t + "/A/results.json")), json.load(open(t + "/B/results.json"))
key = lambda r: (r["kernel"], r["dtype"], r["M"], r["N"])
theirs = {key(r): r for r in b["rows"]}
a["rows"] = [theirs[key(r)] if key(r) == ("sum", "f32", 4, 64) else r for r in a["rows"]]
os.makedirs(t + "/mixed")
json.dump(a, open(t + "/mixed/results.json", "w"))
PY
"$rr" replay --reference "$tmp/A" --candidate "$tmp/mixed" --skip-identical "${quick[@]}" \
	--out "$tmp/same" >/dev/null 2>"$tmp/same.err" || fail "--skip-identical: $(tail -2 "$tmp/same.err")"
python3 - "$tmp/same/results.json" <<'PY' || fail "--skip-identical replayed the wrong workloads"
import json, sys
r = json.load(open(sys.argv[1]))["replay"]
assert [(w["kernel"], w["N"]) for w in r["workloads"]] == [("sum", 64)], r["workloads"]
assert r["skip_identical"] is True
why = sorted((s["kernel"], s["N"], s["reason"]) for s in r["skipped"])
assert [w[:2] for w in why] == [("rmsnorm", 64), ("rmsnorm", 256), ("sum", 256)], why
assert all("same plan and generated source" in w[2] for w in why), why
PY
"$rr" verify "$tmp/same" >/dev/null || fail "verify of the --skip-identical replay"
"$rr" replay --reference "$tmp/A" --candidate "$tmp/A" --skip-identical --out "$tmp/x" \
	>/dev/null 2>"$tmp/x.err"
[ $? -eq 2 ] || fail "a replay of identical sides with --skip-identical must exit 2"
grep -q "same plan and generated source on both sides" "$tmp/x.err" ||
	fail "identical sides: $(cat "$tmp/x.err")"

# A peers side, bad flags, a missing input: exit 2 with a reason.
mkdir -p "$tmp/peers"
python3 -c '
import json, sys
json.dump({"schema_version": 1, "tool": "rowreduce-peers", "kind": "peers", "rows": []},
          open(sys.argv[1] + "/results.json", "w"))' "$tmp/peers"
"$rr" replay --reference "$tmp/A" --candidate "$tmp/peers" --out "$tmp/p" >/dev/null 2>"$tmp/p.err"
[ $? -eq 2 ] || fail "a peers side must exit 2"
grep -q "cannot re-run Python peers" "$tmp/p.err" || fail "peers refusal: $(cat "$tmp/p.err")"
# A tune run's results (a "tuning" object: many candidates per workload) cannot be a side.
mkdir -p "$tmp/tune"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + "/A/results.json")); d["tuning"] = {"workloads": []}
json.dump(d, open(sys.argv[1] + "/tune/results.json", "w"))' "$tmp"
"$rr" replay --reference "$tmp/A" --candidate "$tmp/tune" --out "$tmp/p" >/dev/null 2>"$tmp/p.err"
[ $? -eq 2 ] || fail "a tune run's results as a side must exit 2"
grep -q "is a tune run's results" "$tmp/p.err" || fail "tune refusal: $(cat "$tmp/p.err")"
expect2() {
	local name=$1
	shift
	"$rr" replay "$@" >/dev/null 2>"$tmp/e.err"
	local code=$?
	[ $code -eq 2 ] || fail "$name: exit $code, expected 2"
	[ -s "$tmp/e.err" ] || fail "$name: no message"
}
expect2 "no --out" --reference "$tmp/A" --candidate "$tmp/B"
expect2 "--rounds 0" --reference "$tmp/A" --candidate "$tmp/B" --rounds 0 --out "$tmp/x"
expect2 "--l2 warm" --reference "$tmp/A" --candidate "$tmp/B" --l2 warm --out "$tmp/x"
expect2 "unknown flag" --reference "$tmp/A" --candidate "$tmp/B" --fast --out "$tmp/x"
expect2 "missing input" --reference "$tmp/nothing" --candidate "$tmp/B" --out "$tmp/x"
expect2 "a replay as input" --reference "$tmp/R" --candidate "$tmp/B" --out "$tmp/x"

[ $failures -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "cli_replay: all checks passed"
