#!/usr/bin/env bash
# rowreduce verify on the cpu backend: an untouched bench folder passes (exit 0); a copy with
# one thing tampered (a raw sample, a median, a results.md cell, a hash, a plan, a phase label,
# a validated count) fails (exit 1) naming exactly that thing; a folder it cannot read (no
# results.json, truncated JSON, a sample that is a string, no results.md) exits 2 with the
# reason; a peers folder written by bench/peers/torch_peers.py's schema code is audited too.
set -uo pipefail
rr=${ROWREDUCE:?ROWREDUCE must name the rowreduce binary}
src=${RR_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d /tmp/rr-cli-verify.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

"$rr" bench --backend cpu --samples 3 --sample-ms 2 --warmup-ms 5 --no-ceilings \
	--capture-sources --kernels sum,softmax --dtypes f32 --shapes 4x64,8x256 \
	--out "$tmp/base" >/dev/null 2>"$tmp/bench.err" || { cat "$tmp/bench.err"; fail "bench"; }

out=$("$rr" verify "$tmp/base")
code=$?
[ $code -eq 0 ] || fail "untouched folder: exit $code: $out"
for check in "read:" "statistics:" "validated counts:" "phase labels:" "hashes and plans:" \
	"binaries: 1 recorded" "results.md:"; do
	grep -q "^OK *$check" <<<"$out" || fail "untouched folder: no OK line for '$check'"
done
grep -q MISMATCH <<<"$out" && fail "untouched folder reports a mismatch: $out"

# tamper NAME PYTHON EXPECTED...: copies the folder, runs PYTHON in it (d = results.json as a
# dict, saved afterwards; md = results.md lines, saved afterwards), expects exit 1, a MISMATCH
# line with every EXPECTED text, and no MISMATCH line of an unexpected check.
tamper() {
	local name=$1 code=$2 checks=$3
	shift 3
	rm -rf "$tmp/t"
	cp -r "$tmp/base" "$tmp/t"
	(cd "$tmp/t" && python3 - <<PY) || { fail "$name: tampering failed"; return; }
import json
d = json.load(open("results.json"))
md = open("results.md").read().split("\n")
$code
json.dump(d, open("results.json", "w"), indent=1)
open("results.md", "w").write("\n".join(md))
PY
	out=$("$rr" verify "$tmp/t")
	local status=$?
	[ $status -eq 1 ] || fail "$name: exit $status, expected 1: $out"
	local mismatches
	mismatches=$(grep '^MISMATCH' <<<"$out")
	for want in "$@"; do
		grep -qF -- "$want" <<<"$mismatches" || fail "$name: no mismatch names '$want': $out"
	done
	while read -r line; do
		[ -z "$line" ] && continue
		grep -qE "^MISMATCH ($checks):" <<<"$line" || fail "$name: unexpected: $line"
	done <<<"$mismatches"
}

# A raw sample: the largest e2e sample of row 1 doubled; its max no longer matches, and the
# results.md cell rendered from the samples differs from the file's.
tamper "raw sample" '
s = d["rows"][1]["phases"]["e2e"]["samples_us"]
s[s.index(max(s))] *= 2' "statistics|results.md" \
	"rows[1] (sum f32 8x256).phases.e2e.max_us" "row 2 (sum f32 8x256), column 'e2e"
tamper "median" 'd["rows"][2]["phases"]["single"]["median_us"] *= 1.5' "statistics" \
	"rows[2] (softmax f32 4x64).phases.single.median_us: stored"
tamper "results.md cell" '
i = next(k for k, l in enumerate(md) if l.startswith("| softmax | f32 | 8x256"))
cells = md[i].split("|"); cells[5] = " 1.000 [1.000–1.000] "; md[i] = "|".join(cells)' \
	"results.md" "table 'Results', row 4 (softmax f32 8x256), column 'e2e" \
	"file has '1.000 [1.000–1.000]'"
tamper "source hash" 'd["rows"][3]["source_sha256"] = "0" * 64' "hashes and plans" \
	"rows[3] (softmax f32 8x256).source_sha256: recorded 0000"
tamper "plan" '
plan = d["rows"][0]["plan"]
d["rows"][0]["plan"] = plan.replace("U=1", "U=2") if "U=1" in plan else plan.replace("U=", "U=1")' \
	"hashes and plans|results.md" "rows[0] (sum f32 4x64).plan:" "column 'plan'"
tamper "phase label" 'ph = d["rows"][1]["phases"]; ph["e2e_wall"] = ph.pop("e2e")' \
	"phase labels|results.md" "rows[1] (sum f32 8x256).phases has 'e2e_wall'" \
	"rows[1] (sum f32 8x256).phases.e2e is missing"
tamper "phase label in results.md" '
i = next(k for k, l in enumerate(md) if l.startswith("| kernel |"))
assert "| e2e" in md[i]
md[i] = md[i].replace("| e2e", "| wall", 1)' "results.md" "table 'Results', header, column 'e2e" \
	"file has 'wall"
tamper "validated count" 'd["rows"][2]["validation"]["validated"] -= 1' "validated counts|results.md" \
	"rows[2] (softmax f32 4x64).validation: valid is true but 255 of 256" "column 'validated"
tamper "validated total" '
v = d["rows"][0]["validation"]; v["validated"] += 4; v["total"] += 4' "validated counts|results.md" \
	"rows[0] (sum f32 4x64).validation.total: 8, but 1 buffer set(s)"
tamper "binary hash" 'd["binary"]["sha256"] = "0" * 64' "binaries" "binary.sha256: recorded 0000"
tamper "summary" 'd["summary"]["measured"] = 3' "statistics" "summary.measured: stored 3, counted 4"

# Unreadable folders: exit 2 with the reason.
unreadable() {
	local name=$1 code=$2 want=$3
	rm -rf "$tmp/u"
	cp -r "$tmp/base" "$tmp/u"
	(cd "$tmp/u" && python3 -c "$code")
	"$rr" verify "$tmp/u" >"$tmp/u.out" 2>"$tmp/u.err"
	local status=$?
	[ $status -eq 2 ] || fail "$name: exit $status, expected 2"
	grep -qF -- "$want" "$tmp/u.err" || fail "$name: no reason '$want': $(cat "$tmp/u.err")"
}
unreadable "missing results.json" 'import os; os.remove("results.json")' "results.json"
unreadable "truncated JSON" 's = open("results.json").read(); open("results.json", "w").write(s[: len(s) // 2])' \
	"not valid JSON"
unreadable "sample is a string" '
import json; d = json.load(open("results.json"))
d["rows"][0]["phases"]["e2e"]["samples_us"][1] = "3.5"; json.dump(d, open("results.json", "w"))' \
	"rows[0].phases.e2e.samples_us[1] is a string, expected a number"
unreadable "missing results.md" 'import os; os.remove("results.md")' "no readable results.md"
"$rr" verify "$tmp/does-not-exist" >/dev/null 2>&1
[ $? -eq 2 ] || fail "a folder that does not exist must exit 2"
"$rr" verify >/dev/null 2>&1
[ $? -eq 2 ] || fail "verify without a folder must exit 2"

# A tune run's folder (results.json with a "tuning" object) has no results.md and passes.
mkdir -p "$tmp/tune"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + "/base/results.json")); d["tuning"] = {"workloads": []}
json.dump(d, open(sys.argv[1] + "/tune/results.json", "w"))' "$tmp"
cp -r "$tmp/base/sources" "$tmp/tune/"
out=$("$rr" verify "$tmp/tune")
[ $? -eq 0 ] || fail "a tune folder without results.md: $out"
grep -q "absent, as for every tune folder" <<<"$out" || fail "tune folder not recognised: $out"

# A peers folder in the results schema (the builders of torch_peers.py, no GPU needed).
PYTHONPATH="$src/bench/peers" python3 - "$tmp/peers" <<'PY' || fail "peers document"
import sys
import torch_peers as tp
rows = [tp.row_doc("eager", "softmax", "f32", 64, 4096, "hot", 1, 64 * 4096, 64 * 4096, 1e-7,
                   [3.1, 2.9, 3.0, 3.3, 3.2], 1000),
        tp.row_doc("compile", "rmsnorm", "bf16", 64, 4096, "hot", 1, 64 * 4096 - 2, 64 * 4096, 0.5,
                   error="validation failed, max abs error 0.5"),
        tp.row_doc("liger", "cross_entropy", "f32", 1, 127, "hot", 1, 0, 0, 0.0,
                   error="RuntimeError: no kernel")]
device = {"description": "test device", "name": "test", "l2_bytes": 1 << 20}
protocol = {"samples": 5, "sample_ms": 10, "warmup_ms": 50, "seed": 1234, "l2_mode": "hot"}
doc = tp.results_doc(["torch_peers.py", "--out", sys.argv[1]], device, {"torch": "0"},
                     protocol, rows, "2026-11-30T00:00:00Z", 1.5)
tp.write_results(doc, sys.argv[1])
PY
out=$("$rr" verify "$tmp/peers")
code=$?
[ $code -eq 0 ] || fail "peers folder: exit $code: $out"
grep -q "a peers of 3 rows" <<<"$out" || fail "peers folder not read as peers: $out"
python3 - "$tmp/peers/results.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["rows"][0]["phases"]["gpu_graph"]["median_us"] = 2.0
json.dump(d, open(p, "w"))
PY
out=$("$rr" verify "$tmp/peers")
[ $? -eq 1 ] || fail "a tampered peers median must exit 1: $out"
grep -qF "rows[0] (softmax f32 64x4096).phases.gpu_graph.median_us: stored 2" <<<"$out" ||
	fail "the tampered peers median is not named: $out"

[ $failures -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "cli_verify: all checks passed"
