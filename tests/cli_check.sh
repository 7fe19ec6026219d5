#!/usr/bin/env bash
# `rowreduce check` and `rowreduce ops` end to end: every built-in checks with its rounds and
# rewrites, files and names both work, bad usage exits 2, and ops lists the six built-ins.
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
: "${RR_SOURCE_DIR:?set RR_SOURCE_DIR to the repository root}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

# run EXPECTED_EXIT ARGS...: runs the tool, output in $tmp/out and $tmp/err.
run() {
	local expected=$1 rc
	shift
	"$ROWREDUCE" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$expected" ] || fail "rowreduce $*: exit $rc, expected $expected: $(head -c 400 "$tmp/err")"
	if grep -q -e "AddressSanitizer" -e "LeakSanitizer" -e "runtime error" "$tmp/err"; then
		fail "rowreduce $*: sanitizer report"
	fi
}

has() {
	grep -qF -e "$2" "$tmp/$1" || fail "output of the last command lacks '$2': $(head -c 800 "$tmp/$1")"
}

# check NAME: the rounds each built-in needs, and the online rewrites where max and sum fuse.
for case in sum:1 softmax:1 rmsnorm:1 layernorm:2 add_layernorm:2 cross_entropy:1; do
	name=${case%%:*}
	rounds=${case#*:}
	run 0 check "$name"
	has out "kernel $name"
	has out "rounds: $rounds"
	has out "row storage between rounds:"
	has out "reductions"
	[ -s "$tmp/err" ] && fail "check $name wrote to stderr: $(head -c 400 "$tmp/err")"
done
for name in softmax cross_entropy; do
	run 0 check "$name"
	has out "online rewrite: m = max(x); s = sum(exp(x - m)) -> one online (max, sum) pass"
done
run 0 check layernorm
has out "round 2: sum(d * d)"
has out "param eps = 1e-5"
has out "row storage between rounds: needed"
run 0 check sum
has out "row storage between rounds: not needed"

# check FILE, and several at once.
run 0 check "$RR_SOURCE_DIR/specs/rmsnorm.rr"
has out "signature: rmsnorm(x: row, w: col, eps = 1e-6) -> (y: row)"
has out "y : row = x * inv * w"
run 0 check sum "$RR_SOURCE_DIR/specs/softmax.rr"
has out "kernel sum"
has out "kernel softmax"
printf 'kernel mine\n  in x : row\n  in t : index\n  param k = -0.5\n  out y : rowscalar\n  y = sum(x * k, exact) + x[t]\n' >"$tmp/mine.rr"
run 0 check "$tmp/mine.rr"
has out "exact reductions: 1"
has out "round 1: sum(x * k, exact)"
has out "param k = -0.5"
has out "t : index"

# Bad usage and bad names.
run 0 check --help
has out "usage: rowreduce check"
run 2 check
run 2 check no_such_kernel_anywhere
has err "no_such_kernel_anywhere"
has err "softmax"
run 2 check "$tmp"
has err "is a folder"
run 2 check --bogus
run 2 check sum "$tmp/missing.rr"
has out "kernel sum"

# ops: six built-ins, each with its signature and a one-line analysis.
run 0 ops
for name in sum softmax rmsnorm layernorm add_layernorm cross_entropy; do
	grep -qE "^  $name +$name\(" "$tmp/out" || fail "ops does not list $name with its signature"
done
count=$(grep -cE '^  [a-z_]+ +[a-z_]+\(.*\) -> \(' "$tmp/out")
[ "$count" -eq 6 ] || fail "ops lists $count kernels, expected 6"
has out "cross_entropy(x: row, t: index) -> (loss: rowscalar)"
has out "1 online rewrite"
has out "2 rounds"
run 0 ops --help
has out "usage: rowreduce ops"
run 2 ops extra

echo "cli_check: $failed failures"
[ "$failed" -eq 0 ]
