#!/usr/bin/env bash
# Malformed kernels given to `rowreduce check`: every one must exit exactly 2 (a sanitizer abort
# or a crash would give another code), name FILE:LINE:COL: error: with the expected position and
# words, and leave no sanitizer report. The files in tests/malformed are listed in its EXPECT;
# binary, megabyte and deeply nested inputs are generated here.
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
: "${RR_SOURCE_DIR:?set RR_SOURCE_DIR to the repository root}"
dir="$RR_SOURCE_DIR/tests/malformed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checked=0
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

# expect_error FILE WHERE WORDS: WHERE is LINE:COL, or LINE:* when only the line is fixed.
expect_error() {
	local file=$1 where=$2 words=$3 rc line column
	checked=$((checked + 1))
	"$ROWREDUCE" check "$file" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		fail "$file: exit $rc, expected 2; stderr: $(head -c 600 "$tmp/stderr")"
		return
	fi
	if grep -q -e "AddressSanitizer" -e "LeakSanitizer" -e "runtime error" "$tmp/stderr"; then
		fail "$file: sanitizer report: $(head -c 600 "$tmp/stderr")"
		return
	fi
	line=${where%%:*}
	column=${where#*:}
	if [ "$column" = "*" ]; then
		if ! grep -qF -e "$file:$line:" "$tmp/stderr" || ! grep -qE ":$line:[0-9]+: error: " "$tmp/stderr"; then
			fail "$file: expected '$file:$line:COL: error:', got: $(head -c 600 "$tmp/stderr")"
			return
		fi
	elif ! grep -qF -e "$file:$line:$column: error: " "$tmp/stderr"; then
		fail "$file: expected '$file:$where: error:', got: $(head -c 600 "$tmp/stderr")"
		return
	fi
	if ! grep -qF -e "$words" "$tmp/stderr"; then
		fail "$file: message lacks '$words': $(head -c 600 "$tmp/stderr")"
		return
	fi
	if [ -s "$tmp/stdout" ]; then
		fail "$file: printed an analysis for a bad kernel"
	fi
}

# The committed cases.
while read -r name where words; do
	case "$name" in '' | '#'*) continue ;; esac
	if [ ! -f "$dir/$name.rr" ]; then
		fail "EXPECT names $name.rr, which is missing"
		continue
	fi
	expect_error "$dir/$name.rr" "$where" "$words"
done <"$dir/EXPECT"
for file in "$dir"/*.rr; do
	name=$(basename "$file" .rr)
	grep -q "^$name " "$dir/EXPECT" || fail "$file has no line in EXPECT"
done

header='kernel k\n  in x : row\n  out y : row\n'

# Binary garbage: an ELF-like header, then random bytes (any position, but a clean exit 2).
printf '\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe\x01' >"$tmp/elf.rr"
expect_error "$tmp/elf.rr" 1:1 "unexpected byte 0x7F"
head -c 4096 /dev/urandom >"$tmp/random.rr"
printf '\x01' | dd of="$tmp/random.rr" bs=1 seek=0 conv=notrunc status=none
expect_error "$tmp/random.rr" 1:1 "unexpected byte 0x01"
printf "${header}  y = x\x00 * 2\n" >"$tmp/nul.rr"
expect_error "$tmp/nul.rr" 4:8 "unexpected byte 0x00"
printf "kernel k\n  in x : row\n  out y : row\n  y = \xc3\xa9 * x\n" >"$tmp/utf8.rr"
expect_error "$tmp/utf8.rr" 4:7 "unexpected byte 0xC3"

# Megabyte lines (kernel files are limited to 1 MiB: these stay just under it).
mega=1000000
{ printf "$header  y ="; head -c $mega /dev/zero | tr '\0' ' '; printf '@\n'; } >"$tmp/spaces.rr"
expect_error "$tmp/spaces.rr" "4:$((6 + mega))" "unexpected character '@'"
{ printf "$header  #"; head -c $mega /dev/zero | tr '\0' 'c'; printf '\n  y = x ! 2\n'; } >"$tmp/comment.rr"
expect_error "$tmp/comment.rr" 5:9 "unexpected character '!'"
{ printf "$header  "; head -c $mega /dev/zero | tr '\0' 'a'; printf ' = x\n  y = x\n'; } >"$tmp/name.rr"
expect_error "$tmp/name.rr" 4:3 "is $mega characters long; expected at most 63"
{ printf "$header  y = x * "; head -c $mega /dev/zero | tr '\0' '1'; printf '\n'; } >"$tmp/number.rr"
expect_error "$tmp/number.rr" 4:11 "is $mega characters long; expected at most 63"
{ printf "$header  y = x"; yes ' + x' | head -c $mega | tr -d '\n'; printf '\n'; } >"$tmp/sum.rr"
expect_error "$tmp/sum.rr" '4:*' "more than 4096 distinct sub-expressions"

# Deep nesting: the 257th level is refused where it is written.
{ printf "$header  y = "; for _ in $(seq 300); do printf '('; done; printf 'x'; for _ in $(seq 300); do printf ')'; done; printf '\n'; } >"$tmp/parens.rr"
expect_error "$tmp/parens.rr" 4:263 "nested deeper than 256 levels"
{ printf "$header  y = "; for _ in $(seq 5000); do printf -- '-'; done; printf 'x\n'; } >"$tmp/minus.rr"
expect_error "$tmp/minus.rr" 4:263 "nested deeper than 256 levels"
{ printf "$header  y = "; for _ in $(seq 20000); do printf 'exp('; done; printf 'x\n'; } >"$tmp/calls.rr"
expect_error "$tmp/calls.rr" "4:$((7 + 256 * 4 + 3))" "nested deeper than 256 levels"
{ printf "$header  y = "; for _ in $(seq 20000); do printf 'x[t]['; done; printf '\n'; } >"$tmp/brackets.rr"
expect_error "$tmp/brackets.rr" 4:9 "expected the name of an index input"

echo "cli_malformed: $checked malformed kernels checked, $failed failures"
[ "$checked" -ge 30 ] || fail "only $checked cases"
[ "$failed" -eq 0 ]
