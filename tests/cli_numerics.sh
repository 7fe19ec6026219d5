#!/usr/bin/env bash
# Long rows on the cpu backend: the planner's own plan validates in f32 (issue 10, numerics in
# legality). Before the serial-length bound, W = 1 plans summed a row of a million elements into
# one f32 accumulator and rmsnorm, layernorm, add_layernorm, softmax and sum failed validation.
# The longest row is 2^24 elements (RR_LONG_ROW to change it): about 7 s under the sanitizers.
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
export RR_CFLAGS="${RR_CFLAGS:--O1}"
long=${RR_LONG_ROW:-16777216}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 cases=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# validates KERNEL SHAPE: the planner's plan runs and every element of every output validates.
validates() {
	cases=$((cases + 1))
	"$ROWREDUCE" run --kernel "$1" --shape "$2" --dtype f32 --backend cpu >"$work/out" 2>"$work/err"
	local got=$?
	[ "$got" -eq 0 ] || fail "$1 $2 f32 exited $got: $(head -c 600 "$work/err")"
	grep -Eq '^validated ([0-9]+)/\1 elements in ([0-9]+)/\2 outputs' "$work/out" ||
		fail "$1 $2 f32 did not validate: $(grep -E '^(plan|output|validated)' "$work/out" | head -c 800)"
}

for kernel in sum rmsnorm layernorm add_layernorm softmax; do
	validates "$kernel" 2x1000000
done
for kernel in sum rmsnorm softmax; do
	validates "$kernel" "1x$long"
done

# The plan that failed is now rejected by name, with what to change.
"$ROWREDUCE" run --kernel rmsnorm --shape 2x1000000 --backend cpu --layout W=1,V=8 >"$work/out" 2>"$work/err"
got=$?
cases=$((cases + 1))
[ "$got" -eq 2 ] || fail "rmsnorm W=1,V=8 on 2x1000000 exited $got, want 2"
grep -q 'serial length 1000000 of each accumulator .* exceeds the f32 bound 32768: use more workers W (W >= 31)' "$work/err" ||
	fail "rmsnorm W=1,V=8 on 2x1000000: no serial-length reason: $(head -c 600 "$work/err")"

echo "cli_numerics: $cases cases checked, $failures failures"
[ "$failures" -eq 0 ]
