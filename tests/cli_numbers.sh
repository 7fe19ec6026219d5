#!/usr/bin/env bash
# Numbers parse one way everywhere (seeds, params, shapes, layouts, counts): each bad value exits
# 2 with one sentence saying what was wrong and what is allowed, in the same shape for every
# flag; nothing wraps around (--seed -1 is refused like --seed abc); check prints constants as
# written (30, not 3e+01).
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# refuse MESSAGE ARGS...: rowreduce ARGS exits 2 and its stderr is exactly MESSAGE.
refuse() {
	local want=$1
	shift
	"$ROWREDUCE" "$@" >"$work/out" 2>"$work/err"
	local got=$?
	[ "$got" -eq 2 ] || fail "rowreduce $* exited $got, want 2"
	[ "$(cat "$work/err")" = "$want" ] || fail "rowreduce $*: stderr '$(head -c 400 "$work/err")', want '$want'"
	[ ! -s "$work/out" ] || fail "rowreduce $* printed on stdout: $(head -c 200 "$work/out")"
}

run=(run --kernel rmsnorm --backend cpu)
most=18446744073709551615
refuse "rowreduce: --seed: '-1' is not a whole number from 0 to $most" "${run[@]}" --shape 4x64 --seed -1
refuse "rowreduce: --seed: 'abc' is not a whole number from 0 to $most" "${run[@]}" --shape 4x64 --seed abc
refuse "rowreduce: --seed: '' is not a whole number from 0 to $most" "${run[@]}" --shape 4x64 --seed=
refuse "rowreduce: --seed: '18446744073709551616' exceeds the most allowed, $most" "${run[@]}" --shape 4x64 --seed 18446744073709551616
refuse "rowreduce: --seed: '+1' is not a whole number from 0 to $most" "${run[@]}" --shape 4x64 --seed +1
refuse "rowreduce: --repeat: '0' is below the least allowed, 1" "${run[@]}" --shape 4x64 --repeat 0
refuse "rowreduce: --repeat: '1e3' is not a whole number from 1 to 1000000" "${run[@]}" --shape 4x64 --repeat 1e3
refuse "rowreduce: --repeat: '2000000' exceeds the most allowed, 1000000" "${run[@]}" --shape 4x64 --repeat 2000000

refuse "rowreduce: --shape: '4096' is not a shape: expected MxN, M rows and N columns (e.g. 4096x4096)" "${run[@]}" --shape 4096
refuse "rowreduce: --shape: shape '-1x64': M (rows): '-1' is not a whole number from 1 to 2147483648" "${run[@]}" --shape -1x64
refuse "rowreduce: --shape: shape '4x0': N (columns): '0' is below the least allowed, 1" "${run[@]}" --shape 4x0
refuse "rowreduce: --shape: shape '1x4294967296': N (columns): '4294967296' exceeds the most allowed, 2147483648" "${run[@]}" --shape 1x4294967296
refuse "rowreduce: --shape: '4x64x2' is not a shape: expected MxN, M rows and N columns (e.g. 4096x4096)" "${run[@]}" --shape 4x64x2

keep="(leave the key out to let the planner choose)"
refuse "rowreduce: --layout 'W=65536': layout field W: '65536' exceeds the most allowed, 1024 $keep" "${run[@]}" --shape 4x64 --layout W=65536
refuse "rowreduce: --layout 'V=-4': layout field V: '-4' is not a whole number from 1 to 16 $keep" "${run[@]}" --shape 4x64 --layout V=-4
refuse "rowreduce: --layout 'U=0': layout field U: '0' is below the least allowed, 1 $keep" "${run[@]}" --shape 4x64 --layout U=0
refuse "rowreduce: --layout 'W=4294967328': layout field W: '4294967328' exceeds the most allowed, 1024 $keep" "${run[@]}" --shape 4x64 --layout W=4294967328

refuse "rowreduce: param override 'eps=abc': 'abc' is not a finite number (e.g. eps=1e-5)" "${run[@]}" --shape 4x64 --param eps=abc
refuse "rowreduce: param override 'eps=nan': 'nan' is not a finite number (e.g. eps=1e-5)" "${run[@]}" --shape 4x64 --param eps=nan
refuse "rowreduce: param override 'eps=1e999': '1e999' is not a finite number (e.g. eps=1e-5)" "${run[@]}" --shape 4x64 --param eps=1e999

bench=(bench --kernels sum --shapes 4x64 --backend cpu --out "$work/b")
refuse "rowreduce: --seed: '-1' is not a whole number from 0 to $most" "${bench[@]}" --seed -1
refuse "rowreduce: --samples: '2.5' is not a whole number from 1 to 100000" "${bench[@]}" --samples 2.5
refuse "rowreduce: --sample-ms: 'abc' is not a number from 0.001 to 60000" "${bench[@]}" --sample-ms abc
refuse "rowreduce: --warmup-ms: '-1' is below the least allowed, 0" "${bench[@]}" --warmup-ms -1
refuse "rowreduce: --shapes: shape list '4x64,0x8': shape '0x8': M (rows): '0' is below the least allowed, 1" \
	bench --kernels sum --shapes 4x64,0x8 --backend cpu --out "$work/b"
[ ! -e "$work/b/results.json" ] || fail "a refused bench wrote results.json"
refuse "rowreduce: --jobs: '-2' is not a whole number from 1 to 64" emit --check-all --jobs -2
tune=(tune --kernels sum --shapes 4x64 --backend cpu --out "$work/t")
refuse "rowreduce: --seed: '-1' is not a whole number from 0 to $most" "${tune[@]}" --seed -1
refuse "rowreduce: --rounds: '1' is below the least allowed, 2" "${tune[@]}" --rounds 1
refuse "rowreduce: --max-candidates: 'x' is not a whole number from 1 to 100000" "${tune[@]}" --max-candidates x
refuse "rowreduce: --budget-s: '-5' is below the least allowed, 0" "${tune[@]}" --budget-s -5

# Constants print as written.
printf 'kernel scaled\n  in x : row\n  param eps = 1e-6\n  out y : row\n  y = x * 30 + 0.5 + eps\n' >"$work/scaled.rr"
"$ROWREDUCE" check "$work/scaled.rr" >"$work/check" 2>&1 || fail "check scaled.rr failed: $(cat "$work/check")"
grep -q '^  y : row = x \* 30 + 0.5 + eps$' "$work/check" || fail "check: constants not as written: $(grep 'y :' "$work/check")"
grep -q 'param eps = 1e-6$' "$work/check" || fail "check: 1e-6 not as written: $(grep eps "$work/check")"

if [ $failures -ne 0 ]; then
	echo "cli_numbers: $failures failures"
	exit 1
fi
echo "cli_numbers: ok"
