#!/usr/bin/env bash
# rowreduce run and emit end to end on the cpu backend: every built-in validates; bad shapes,
# dtypes, layouts and compilers exit 2 with the reason; a NaN output exits 1 naming the element.
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
export RR_CFLAGS="${RR_CFLAGS:--O1}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# The version names the commit the tool was built from, read at every build (an incremental
# build after a commit records the new one; cmake/git_commit.cmake), where the source tree is a
# git checkout: results.json files carry it.
if [ -n "${RR_SOURCE_DIR:-}" ] && command -v git >/dev/null &&
	head=$(git -C "$RR_SOURCE_DIR" rev-parse --short=12 HEAD 2>/dev/null); then
	version=$("$ROWREDUCE" --version)
	case $version in
	*"($head)" | *"($head-dirty)") ;;
	*) fail "rowreduce --version '$version' does not name the checkout's commit $head (built from another commit: rebuild)" ;;
	esac
fi

# expect CODE PATTERN -- ARGS...: runs rowreduce ARGS, checks the exit code and that stdout or
# stderr matches PATTERN (an extended regex).
expect() {
	local code=$1 pattern=$2
	shift 3
	"$ROWREDUCE" "$@" >"$work/out" 2>"$work/err"
	local got=$?
	[ "$got" -eq "$code" ] || fail "rowreduce $* exited $got, want $code: $(head -c 600 "$work/err")"
	grep -Eq -- "$pattern" "$work/out" "$work/err" || fail "rowreduce $* printed no /$pattern/: $(head -c 600 "$work/out" "$work/err")"
}

for kernel in sum softmax rmsnorm layernorm add_layernorm cross_entropy; do
	expect 0 '^validated ([0-9]+)/\1 elements in ([0-9]+)/\2 outputs' -- run --kernel "$kernel" --shape 5x300 --dtype bf16 --backend cpu --repeat 2
	grep -Eq '^plan +W=[0-9]+,V=[0-9]+,U=[0-9]+,R=[0-9]+,C=[0-9]+,S=[a-z]+,G=[a-z]+$' "$work/out" ||
		fail "$kernel: no complete plan printed"
	grep -Eq '^time +[0-9.]+ (µs|ms|s) ' "$work/out" || fail "$kernel: no time printed"
done
expect 0 'validated 3093/3093 elements in 1/1 outputs' -- run --kernel layernorm --shape 3x1031 --layout W=32,V=4,U=1,R=1 --backend cpu --param eps=1e-3 --seed 7
expect 0 'validated 308/308 elements in 2/2 outputs' -- run --kernel add_layernorm --shape 2x77 --dtype f16 --layout W=4,V=2,U=3,R=2,S=reread --backend cpu

# Bad usage and bad input: exit 2 with the reason.
expect 2 'power of two' -- run --kernel sum --shape 4x64 --layout W=3,V=4,U=1,R=1 --backend cpu
expect 2 'S=grid spreads a row over co-resident blocks of a cooperative GPU launch, which the cpu backend does not have' -- run --kernel layernorm --shape 2x4096 --layout W=64,V=4,U=1,R=1,C=4,S=grid,G=persistent --backend cpu
expect 2 "^rowreduce: --shape: shape '0x5': M \\(rows\\): '0' is below the least allowed, 1$" -- run --kernel sum --shape 0x5 --backend cpu
expect 2 'f32, bf16 or f16' -- run --kernel sum --shape 4x64 --dtype f64x --backend cpu
expect 2 'allowed are' -- run --kernel sum --shape 4x64 --backend tpu
expect 2 'eps' -- run --kernel rmsnorm --shape 4x64 --param bogus=1 --backend cpu
expect 2 'unknown option' -- run --kernel sum --shape 4x64 --bogus
expect 2 'needs --kernel and --shape' -- run --kernel sum
expect 0 '--repeat' -- run --help
expect 0 '--param' -- run --help

# A NaN output never validates: log of the negative inputs is NaN in the reference too, which
# is reported as the kernel being undefined there (exit 2), not as a validated output.
printf 'kernel logs\n  in x : row\n  out y : row\n  y = log(x)\n' >"$work/logs.rr"
expect 2 'the reference is NaN for .logs.' -- run --kernel "$work/logs.rr" --shape 2x50 --backend cpu

# emit prints the source with the plan and the kernel text on top, and compiles nothing.
expect 0 '^ \* plan +W=8,V=2,U=1,R=1' -- emit --kernel rmsnorm --shape 4x512 --backend cpu --layout W=8,V=2,U=1,R=1
grep -q 'void rr_cpu_kernel' "$work/out" || fail "emit: no entry point in the source"
grep -q 'kernel rmsnorm' "$work/out" || fail "emit: no kernel text in the source"
expect 2 'power of two' -- emit --kernel rmsnorm --shape 4x512 --backend cpu --layout W=6,V=2,U=1,R=1

# A compiler that cannot run: exit 2 naming it (in a fresh cache, so nothing is reused).
printf 'kernel scaled\n  in x : row\n  param a = 3\n  out y : row\n  y = x * a + sum(x) / N\n' >"$work/scaled.rr"
export RR_CACHE_DIR="$work/cache"
saved_cc=${RR_CC-}
export RR_CC=/nonexistent/rr-cc
expect 2 'cannot run the C compiler .?/nonexistent/rr-cc' -- run --kernel "$work/scaled.rr" --shape 2x40 --backend cpu
export RR_CC=false
expect 2 'rejected the generated source' -- run --kernel "$work/scaled.rr" --shape 2x40 --backend cpu
if [ -n "$saved_cc" ]; then export RR_CC="$saved_cc"; else unset RR_CC; fi
expect 0 'validated 80/80 elements in 1/1 outputs' -- run --kernel "$work/scaled.rr" --shape 2x40 --backend cpu

# The planner reports how it got to the layout, and its counts add up; a complete layout is
# only checked, so there is nothing to report.
"$ROWREDUCE" run --kernel layernorm --shape 3x1000 --backend cpu >"$work/planned" 2>&1 ||
	fail "run with the planner's layout failed"
line=$(grep '^planner ' "$work/planned")
read -r considered rejected merged ranked < <(echo "$line" | grep -oE '[0-9]+' | tr '\n' ' ')
[ -n "$line" ] && [ $((rejected + merged + ranked)) -eq "$considered" ] && [ "$ranked" -gt 0 ] ||
	fail "planner line missing or its counts do not add up: '$line'"
"$ROWREDUCE" run --kernel layernorm --shape 3x1000 --backend cpu \
	--layout W=4,V=4,U=1,R=1,C=1,S=reread,G=rows >"$work/fixed" 2>&1 || fail "run with a complete layout failed"
grep -q '^planner ' "$work/fixed" && fail "a complete layout printed a planner line"

if [ "$failures" -ne 0 ]; then
	echo "cli_run: $failures failures" >&2
	exit 1
fi
echo "cli_run: all passed"
