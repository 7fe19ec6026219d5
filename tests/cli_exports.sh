#!/usr/bin/env bash
# The shared library exports only the documented public names: every symbol `nm -D
# --defined-only` lists must be an rr_ function declared with RR_API in include/*.h (hidden
# visibility is the default; internal rr__ names and static helpers never leave the library).
# Also checks the other way: every declared public function is exported. A build without a
# shared library (RR_STATIC_DEPS) skips.
set -u
lib=${RR_SHARED_LIB:-}
[ -n "$lib" ] && [ -f "$lib" ] || { echo "cli_exports: no shared library in this build"; exit 77; }
include=${RR_SOURCE_DIR:?RR_SOURCE_DIR must name the source tree}/include
command -v nm >/dev/null || { echo "cli_exports: nm is missing"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# Declared: the name before '(' on every RR_API declaration (they may span lines).
tr '\n' ' ' <<<"$(cat "$include"/*.h)" | grep -oE 'RR_API [^;{]*\(' |
	grep -oE '\brr_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u >"$work/declared"
[ -s "$work/declared" ] || fail "no RR_API declarations found in $include"
# Symbols the loader sees, without the linker's own section markers.
nm -D --defined-only "$lib" | awk '{print $3}' |
	grep -vE '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u >"$work/exported"
[ -s "$work/exported" ] || fail "nm -D lists nothing for $lib"

while read -r name; do
	case "$name" in
	rr__*) fail "internal name exported: $name" ;;
	rr_*) grep -qx -- "$name" "$work/declared" || fail "exported but not declared with RR_API in include/: $name" ;;
	*) fail "exported name outside the rr_ prefix: $name" ;;
	esac
done <"$work/exported"
while read -r name; do
	grep -qx -- "$name" "$work/exported" || fail "declared public but not exported: $name"
done <"$work/declared"

if [ $failures -ne 0 ]; then
	echo "cli_exports: $failures failures"
	exit 1
fi
echo "cli_exports: ok ($(wc -l <"$work/exported") public names exported)"
