#!/usr/bin/env bash
# rowreduce bench end to end on the cpu backend: results.json (raw samples whose recomputed
# medians match), results.md and plot.svg; ceilings, cold L2 and captured sources on a tiny run;
# a bad flag, a bad suite file, a damaged tuning database and an unusable --out each exit 2 and
# write nothing.
set -uo pipefail
rr=${ROWREDUCE:?ROWREDUCE must name the rowreduce binary}
tmp=$(mktemp -d /tmp/rr-cli-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
quick=(--backend cpu --samples 3 --sample-ms 2 --warmup-ms 5)

# Checks a results folder: schema keys, every statistic recomputed from the raw samples.
check_results() { # dir expected_rows
	python3 - "$1" "$2" <<'PY'
import json, statistics, sys
folder, expected = sys.argv[1], int(sys.argv[2])
d = json.load(open(folder + "/results.json"))
errors = []
def need(cond, what):
    if not cond: errors.append(what)
need(d["schema_version"] == 1, "schema_version")
need(d["backend"] == "cpu", "backend")
need(d["command_line"] == " ".join(d["argv"]), "command_line is argv joined")
need("bench" in d["argv"] and "--out" in d["argv"], "argv")
for key in ("start_time", "host", "device", "versions", "binary", "library", "protocol"):
    need(key in d, "missing " + key)
need(len(d["binary"]["sha256"]) == 64, "binary sha256")
need(len(d["rows"]) == expected, "rows: %d != %d" % (len(d["rows"]), expected))
def check_phases(where, phases, bytes_, ceiling):
    for name in ("gpu", "gpu_graph", "e2e", "single", "single_gpu"):
        p = phases[name]
        if name in ("gpu", "gpu_graph", "single_gpu"):
            need(p["available"] is False and p["reason"], where + " " + name + " must be unavailable on cpu")
            continue
        need(p["available"] is True, where + " " + name + " available")
        s = p["samples_us"]
        need(len(s) == d["protocol"]["samples"], where + " sample count")
        need(p["batch"] >= 1, where + " batch")
        need(p["median_us"] == statistics.median(s), where + " " + name + " median recomputed")
        need(p["min_us"] == min(s) and p["max_us"] == max(s), where + " range recomputed")
        need(p["tbps"] == bytes_ / p["median_us"] / 1e6, where + " tbps recomputed")
        if ceiling is None:
            need(p["fraction_of_ceiling"] is None, where + " fraction without a ceiling")
        else:
            need(p["fraction_of_ceiling"] == p["tbps"] / ceiling, where + " fraction")
def best_of(c):
    """best_tbps and best_phase recomputed from the ceiling's stored phases (first on a tie)."""
    best, best_name = None, None
    for name in ("gpu", "gpu_graph", "e2e", "single", "single_gpu"):
        p = c["phases"][name]
        if c["measured"] and p["available"] and p["tbps"] is not None and p["tbps"] > 0 \
                and (best is None or p["tbps"] > best):
            best, best_name = p["tbps"], name
    need(c["best_tbps"] == best and c["best_phase"] == best_name, "ceiling best recomputed")
    return best
ceilings = d["ceilings"]
for c in ("copy", "read"):
    if ceilings["requested"]:
        need(ceilings[c]["measured"] is True, c + " ceiling measured")
        check_phases(c, ceilings[c]["phases"], ceilings[c]["bytes"], None)
        need(best_of(ceilings[c]) is not None, c + " ceiling has a best phase")
for r in d["rows"]:
    where = "%s %s %dx%d" % (r["kernel"], r["dtype"], r["M"], r["N"])
    need(r["state"] == "measured", where + " state")
    v = r["validation"]
    need(v["valid"] is True and v["validated"] == v["total"] > 0, where + " validation")
    need(len(r["source_sha256"]) == 64 and len(r["binary_sha256"]) == 64, where + " hashes")
    need(r["plan"].startswith("W="), where + " plan")
    ceiling = best_of(ceilings[r["ceiling"]]) if ceilings["requested"] else None
    check_phases(where, r["phases"], r["bytes_min"], ceiling)
for e in errors:
    print("results.json:", e)
sys.exit(1 if errors else 0)
PY
}

# 1. Two kernels on small shapes, no ceilings.
out="$tmp/a"
"$rr" bench --kernels softmax,sum --shapes 17x257,8x64 --dtypes f32,bf16 "${quick[@]}" \
	--no-ceilings --out "$out" >"$tmp/a.stdout" 2>"$tmp/a.stderr"
rc=$?
[ $rc -eq 0 ] || { fail "bench exited $rc"; cat "$tmp/a.stderr" >&2; }
for f in results.json results.md plot.svg; do
	[ -s "$out/$f" ] || fail "$f missing"
done
check_results "$out" 8 || fail "results.json of run 1"
grep -q '^| softmax | f32 | 17x257 |' "$out/results.md" || fail "results.md has no softmax row"
grep -q '8 of 8 configurations validated' "$out/results.md" || fail "results.md validation count"
head -c 4 "$out/plot.svg" | grep -q '<svg' || fail "plot.svg is not svg"
grep -q '</svg>' "$out/plot.svg" || fail "plot.svg is truncated"
grep -q 'wrote .*results.json' "$tmp/a.stdout" || fail "bench did not say where results went"
ls "$out" | grep -q tmp && fail "temporary files left in $out"

# 2. One small kernel with ceilings, cold L2 and captured sources.
out="$tmp/b"
"$rr" bench --kernels rmsnorm --shapes 4x256 --dtypes f32 --backend cpu --samples 2 \
	--sample-ms 2 --warmup-ms 1 --l2 cold --capture-sources --out "$out" \
	>"$tmp/b.stdout" 2>"$tmp/b.stderr"
rc=$?
[ $rc -eq 0 ] || { fail "bench with ceilings exited $rc"; cat "$tmp/b.stderr" >&2; }
check_results "$out" 1 || fail "results.json of run 2"
[ -s "$out/sources/rmsnorm-f32-4x256.c" ] || fail "captured source missing"
python3 - "$out" <<'PY' || fail "cold L2 / ceiling details"
import json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
r = d["rows"][0]
assert d["protocol"]["l2"]["mode"] == "cold", "l2 mode"
assert r["l2"]["buffer_sets"] > 1 and r["l2"]["over_twice_l2"] is True, r["l2"]
assert r["l2"]["working_set_bytes"] > 2 * d["protocol"]["l2"]["l2_bytes"], r["l2"]
assert r["source_file"] == "sources/rmsnorm-f32-4x256.c", r["source_file"]
assert r["ceiling"] == "copy" and d["ceilings"]["copy"]["bytes_counted"] == "read+write"
assert d["ceilings"]["read"]["bytes_counted"] == "read"
# rmsnorm reads x (M*N) and w (N) once and writes y (M*N): 4 bytes each in f32
assert r["bytes_min"] == (4 * 256 + 256 + 4 * 256) * 4, r["bytes_min"]
PY
grep -q '## Ceilings' "$out/results.md" || fail "results.md has no ceilings"
grep -q '| best GB/s | best phase |' "$out/results.md" || fail "results.md has no best ceiling phase in GB/s"
grep -q 'copy ceiling' "$out/plot.svg" || fail "plot.svg has no copy ceiling line"

# The cpu backend's own words: a memory copy, GB/s, a read pass that is rather than a rowreduce kernel,
# and nothing about GPUs (L2, graphs, device-to-device copies, TB/s).
grep -q '| copy | memory copy of ' "$out/results.md" || fail "results.md: the copy ceiling is not a memory copy"
grep -q '| read | read-only pass over .* vectorised sum .*rather than a rowreduce kernel' "$out/results.md" ||
	fail "results.md: the read ceiling is not the backend's own pass"
grep -q 'GB/s (e2e)' "$out/results.md" || fail "results.md: no GB/s column"
for word in 'TB/s' 'L2' 'graph' 'device-to-device' 'built-in sum'; do
	grep -q -- "$word" "$out/results.md" "$out/plot.svg" && fail "cpu report speaks of '$word'"
done
grep -Eq '\| [0-9.]+ (µs|ms|s) \[[0-9.]+–[0-9.]+\] \|' "$out/results.md" || fail "results.md times carry no unit"
python3 - "$out" <<'PY' || fail "cpu ceiling descriptions in results.json"
import json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
c = d["ceilings"]
assert c["copy"]["description"].startswith("memory copy of "), c["copy"]["description"]
assert "rather than a rowreduce kernel" in c["read"]["description"], c["read"]["description"]
PY

# run and bench count the same thing: output elements within tolerance / compared.
"$rr" run --kernel rmsnorm --shape 4x256 --backend cpu --repeat 1 >"$tmp/run.stdout" 2>&1 ||
	fail "run rmsnorm 4x256 failed"
grep -q '^validated 1024/1024 elements in 1/1 outputs of rmsnorm$' "$tmp/run.stdout" ||
	fail "run does not count validated elements: $(grep validated "$tmp/run.stdout")"
python3 - "$out" <<'PY' || fail "bench does not count 1024 elements per buffer set"
import json, re, sys
d = json.load(open(sys.argv[1] + "/results.json"))
r = d["rows"][0]
sets, v = r["l2"]["buffer_sets"], r["validation"]
assert v["total"] == v["validated"] == 1024 * sets, (v, sets)
md = open(sys.argv[1] + "/results.md").read()
cell = "%d/%d (%d buffer sets) |" % (1024 * sets, 1024 * sets, sets)
assert re.search(r"^\| rmsnorm \| f32 \| 4x256 \|.*" + re.escape(cell) + "$", md, re.M), cell
PY

# 3. Usage errors: exit 2, a clear message, no results.json.
expect_usage_error() { # name pattern args...
	local name=$1 pattern=$2
	shift 2
	local dir="$tmp/err-$name"
	"$rr" bench "$@" >"$tmp/$name.stdout" 2>"$tmp/$name.stderr"
	local rc=$?
	[ $rc -eq 2 ] || fail "$name: exit $rc, expected 2"
	grep -q -- "$pattern" "$tmp/$name.stderr" || { fail "$name: no '$pattern' in stderr"; cat "$tmp/$name.stderr" >&2; }
	[ ! -e "$dir/results.json" ] || fail "$name: results.json written"
}
expect_usage_error bad-flag "unknown option '--bogus'" --kernels sum --shapes 4x64 \
	--bogus --out "$tmp/err-bad-flag"
expect_usage_error bad-samples "^rowreduce: --samples: '0' is below the least allowed, 1$" --kernels sum --shapes 4x64 --samples 0 \
	--out "$tmp/err-bad-samples"
printf '# suite\n8x64\n8by64\n' >"$tmp/bad-suite.txt"
expect_usage_error bad-suite "$tmp/bad-suite.txt:3" --kernels sum --suite "$tmp/bad-suite.txt" \
	"${quick[@]}" --out "$tmp/err-bad-suite"
printf '# nothing\n' >"$tmp/empty-suite.txt"
expect_usage_error empty-suite "no shapes" --kernels sum --suite "$tmp/empty-suite.txt" \
	"${quick[@]}" --out "$tmp/err-empty-suite"
printf 'not a database at all, just text long enough to be read as a header' >"$tmp/bad.sqlite"
RR_TUNING_DB="$tmp/bad.sqlite" expect_usage_error tuned "damaged" --kernels sum --shapes 4x64 \
	"${quick[@]}" --plan tuned --no-ceilings --out "$tmp/err-tuned"
expect_usage_error bad-kernel "cannot load kernel" --kernels nosuchkernel --shapes 4x64 \
	--out "$tmp/err-bad-kernel"
touch "$tmp/a-file"
expect_usage_error bad-out "cannot be used" --kernels sum --shapes 4x64 "${quick[@]}" \
	--out "$tmp/a-file/out"
[ ! -e "$tmp/a-file/out" ] || fail "bad-out: created something"
"$rr" bench --help >"$tmp/help" || fail "bench --help exited non-zero"
grep -q -- '--l2 hot|cold' "$tmp/help" || fail "--help lacks --l2"

if [ $failures -ne 0 ]; then
	echo "cli_bench: $failures failures"
	exit 1
fi
echo "cli_bench: ok"
