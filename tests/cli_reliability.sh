#!/usr/bin/env bash
# Hostile inputs to the tool, each with its expected message and exit status and no sanitizer
# report: cached kernel objects cut short or swapped (rebuilt, said once, exit 0), an unsafe
# cache folder, huge shapes (refused before allocating), /dev/zero, a pipe and an oversized
# kernel file, a byte-order mark, a NaN reference (eps = -100), and tools/deps.sh's decisions
# with stand-in dpkg-query/apt-get/id (nothing is installed).
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
: "${RR_SOURCE_DIR:?set RR_SOURCE_DIR to the repository root}"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export RR_CACHE_DIR="$tmp/cache"
checked=0
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

# expect CODE WORDS -- COMMAND...: exit status CODE, WORDS in stdout+stderr, no sanitizer report.
expect() {
	local code=$1 words=$2 rc
	shift 3
	checked=$((checked + 1))
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	cat "$tmp/out" "$tmp/err" >"$tmp/all"
	if grep -q -e "AddressSanitizer" -e "LeakSanitizer" -e "runtime error" "$tmp/err"; then
		fail "$*: sanitizer report: $(head -c 800 "$tmp/err")"
	elif [ "$rc" -ne "$code" ]; then
		fail "$*: exit $rc, expected $code: $(tail -c 800 "$tmp/all")"
	elif ! grep -qF -e "$words" "$tmp/all"; then
		fail "$*: output lacks '$words': $(tail -c 800 "$tmp/all")"
	else
		return 0
	fi
	return 1
}

run_sum() {
	"$ROWREDUCE" run --kernel sum --shape 8x256 --backend cpu "$@"
}

# ---------------------------------------------------------------- the cpu compile cache
expect 0 "1/1 outputs" -- run_sum
built=$(grep -o 'binary    sha256 [0-9a-f]*' "$tmp/out")
so=$(ls "$RR_CACHE_DIR"/cpu/*.so 2>/dev/null | head -1)
[ -n "$so" ] && [ -f "$so.sha256" ] || fail "no object with a digest file in $RR_CACHE_DIR/cpu"
grep -qF "$(basename "$so")" "$so.sha256" || fail "the digest file does not name its object"
size=$(stat -c %s "$so")
[ "$size" -gt 12000 ] || fail "the object has only $size bytes: the cuts below would not cut it"
cp "$so" "$tmp/good.so"

# rebuilt WHY: the next run says WHY once on stderr, rebuilds, validates and prints the built
# hash; the run after it is quiet.
rebuilt() {
	local why=$1
	if expect 0 "1/1 outputs" -- run_sum; then
		[ "$(grep -c "rebuilding it" "$tmp/err")" -eq 1 ] ||
			fail "$why: expected one 'rebuilding it' line: $(cat "$tmp/err")"
		grep -qF "$why" "$tmp/err" || fail "expected '$why': $(cat "$tmp/err")"
		grep -qF "$built" "$tmp/out" || fail "$why: the binary hash is not the built one"
	fi
	expect 0 "1/1 outputs" -- run_sum && [ -s "$tmp/err" ] &&
		fail "after the rebuild the run still says: $(cat "$tmp/err")"
}
for cut in 4096 7000 12000 0; do
	cp "$tmp/good.so" "$so"
	truncate -s "$cut" "$so"
	rebuilt "does not match its digest"
done
# Another kernel's object in its place: alone, then with its digest file too.
expect 0 "1/1 outputs" -- "$ROWREDUCE" run --kernel softmax --shape 8x256 --backend cpu
other=$(ls -t "$RR_CACHE_DIR"/cpu/*.so | grep -v "$(basename "$so")" | head -1)
cp "$other" "$so"
rebuilt "does not match its digest"
cp "$other" "$so"
cp "$other.sha256" "$so.sha256"
rebuilt "names another object"
rm -f "$so.sha256"
rebuilt "has no readable digest file"
# An object with a right digest that does not load (its digest rewritten to match garbage).
printf 'not an ELF object' >"$so"
printf '%s  %s\n' "$(sha256sum "$so" | cut -c1-64)" "$(basename "$so")" >"$so.sha256"
rebuilt "failed to load"
# A cache folder that others may write is refused, not loaded from.
chmod 777 "$RR_CACHE_DIR/cpu"
expect 2 "writable by others" -- run_sum
chmod 700 "$RR_CACHE_DIR/cpu"

# ---------------------------------------------------------------- sizes and files
expect 2 "needs 48.0 GiB" -- env RR_MEMORY_LIMIT=16G "$ROWREDUCE" run --kernel sum \
	--shape 2147483648x1 --backend cpu
expect 2 "exceeds the most allowed" -- "$ROWREDUCE" run --kernel sum --shape 1x4294967296 \
	--backend cpu
# One row of 2^31 f32: 16 GiB of inputs and outputs (twice), and 48 GiB of the reference's
# scratch rows (three rows of doubles), counted before anything is allocated.
expect 2 "needs 64.0 GiB (68719476760 bytes)" -- env RR_MEMORY_LIMIT=16G "$ROWREDUCE" run \
	--kernel sum --shape 1x2147483648 --backend cpu
grep -qF "capped by RR_MEMORY_LIMIT" "$tmp/err" || fail "the cap is not named: $(cat "$tmp/err")"
expect 2 "needs 3.0 PiB" -- "$ROWREDUCE" run --kernel rmsnorm --shape 65536x2147483648 \
	--backend cpu
expect 2 "'/dev/zero' is a character device; expected a kernel file" -- \
	timeout 20 "$ROWREDUCE" check /dev/zero
mkfifo "$tmp/pipe.rr"
expect 2 "is a pipe; expected a kernel file" -- timeout 20 "$ROWREDUCE" check "$tmp/pipe.rr"
head -c 1048577 /dev/zero | tr '\0' '#' >"$tmp/big.rr"
expect 2 "has 1048577 bytes, over the limit of 1048576 bytes" -- "$ROWREDUCE" check "$tmp/big.rr"
printf '\xef\xbb\xbfkernel twice\n  in x : row\n  out y : row\n  y = x * 2\n' >"$tmp/bom.rr"
expect 0 "twice(x: row) -> (y: row)" -- "$ROWREDUCE" check "$tmp/bom.rr"
printf '\xef\xbb\xbfkernel k\n  in x : row\n  out y : row\n  y = x ! 2\n' >"$tmp/bom-bad.rr"
expect 2 "bom-bad.rr:4:9: error: unexpected character '!'" -- "$ROWREDUCE" check "$tmp/bom-bad.rr"

# ---------------------------------------------------------------- a NaN reference
expect 2 "the reference is NaN for 'rmsnorm'" -- "$ROWREDUCE" run --kernel rmsnorm --shape 8x64 \
	--backend cpu --param eps=-100
grep -qF "undefined for these parameters (eps = -100)" "$tmp/err" || fail "eps=-100: $(cat "$tmp/err")"
grep -q "FAILED" "$tmp/out" && fail "eps=-100 reported as a validation failure"

# ---------------------------------------------------------------- tools/deps.sh
# Stand-ins: dpkg-query knows the packages in $tmp/installed; id -u prints $FAKE_UID; apt-get
# records its arguments. PATH holds nothing else, so there is no sudo.
stub="$tmp/stub"
mkdir -p "$stub"
cat >"$stub/dpkg-query" <<'EOF'
#!/bin/bash
grep -qx "${@: -1}" "$INSTALLED" && printf 'install ok installed' && exit 0
exit 1
EOF
printf '#!/bin/bash\nexit 0\n' >"$stub/dpkg"
printf '#!/bin/bash\necho "${FAKE_UID}"\n' >"$stub/id"
printf '#!/bin/bash\necho "apt-get $*" >>"$APT_LOG"\n' >"$stub/apt-get"
for tool in mktemp cat rm grep; do ln -s "$(command -v $tool)" "$stub/$tool"; done
chmod +x "$stub"/*
deps() {
	env -i PATH="$stub" INSTALLED="$tmp/installed" APT_LOG="$tmp/apt.log" FAKE_UID="$1" \
		RR_DEPS_EXTRA="${2:-}" "$BASH" "$RR_SOURCE_DIR/tools/deps.sh" test
}
sed -n 's/^\(run\|test\|python_test\)_packages="\(.*\)"/\2/p' "$RR_SOURCE_DIR/tools/deps.sh" | tr ' ' '\n' >"$tmp/installed"
[ "$(wc -l <"$tmp/installed")" -ge 7 ] || fail "could not read deps.sh's package lists"
rm -f "$tmp/apt.log"
checked=$((checked + 1))
deps 1000 >"$tmp/all" 2>&1 || fail "deps.sh with everything installed failed: $(cat "$tmp/all")"
[ -s "$tmp/all" ] && fail "deps.sh with everything installed printed: $(cat "$tmp/all")"
[ -e "$tmp/apt.log" ] && fail "deps.sh ran apt-get with everything installed"
expect 1 "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y rr-absent-package" -- \
	deps 1000 rr-absent-package
grep -qF "needs root" "$tmp/err" || fail "deps.sh without root: $(cat "$tmp/err")"
[ -e "$tmp/apt.log" ] && fail "deps.sh ran apt-get without root"
expect 0 "deps: installed: rr-absent-package" -- deps 0 rr-absent-package
[ "$(cat "$tmp/apt.log" 2>/dev/null)" = "apt-get update -q
apt-get install -y -q rr-absent-package" ] || fail "deps.sh as root ran: $(cat "$tmp/apt.log")"

echo "cli_reliability: $checked cases checked, $failed failures"
[ "$checked" -ge 25 ] || fail "only $checked cases"
[ "$failed" -eq 0 ]
