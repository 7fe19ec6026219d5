#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages that `make run` (deps.sh run) or `make test` and CI
# (deps.sh test) need, only those missing: apt-get runs only when dpkg lacks one of them. As
# root it installs; otherwise through sudo; with neither it prints the exact command and fails.
set -euo pipefail

# The library, the tool and the CPU backend's runtime compiler (`make run`).
run_packages="build-essential cmake libjansson-dev libsqlite3-dev libssl-dev git"
# What `make test` adds: clang and its fuzzer runtime for the parser fuzz target.
test_packages="clang libclang-rt-dev"
# The Python binding's test (tests/cli_python.sh, skipped without NumPy).
python_test_packages="python3 python3-numpy"

case "${1:-test}" in
run) wanted="$run_packages" ;;
test) wanted="$run_packages $test_packages $python_test_packages" ;;
*)
	echo "usage: tools/deps.sh [run|test]" >&2
	exit 2
	;;
esac
# For tests of this script: extra (e.g. deliberately absent) package names.
wanted="$wanted ${RR_DEPS_EXTRA:-}"

if ! command -v dpkg >/dev/null 2>&1; then
	echo "deps: no dpkg here (not Debian/Ubuntu): make sure these are installed: $wanted" >&2
	exit 0
fi

missing=""
for p in $wanted; do
	# Installed means dpkg's status says "install ok installed" (not merely known).
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && { [ -t 0 ] || sudo -n true 2>/dev/null; }; then
	sudo="sudo" # it may ask for the password on the terminal
else
	echo "deps: missing packages:$missing" >&2
	echo "deps: this needs root, and sudo is absent (or needs a password with no terminal);" >&2
	echo "deps: run as root, then run make again:" >&2
	echo "    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp "${TMPDIR:-/tmp}/rowreduce-deps.XXXXXX")
if ! { $sudo apt-get update -q && $sudo apt-get install -y -q $missing; } >"$log" 2>&1; then
	cat "$log" >&2
	echo "deps: apt-get failed (full output above); the command was:" >&2
	echo "    ${sudo:+$sudo }apt-get update && ${sudo:+$sudo }apt-get install -y$missing" >&2
	rm -f "$log"
	exit 1
fi
rm -f "$log"
echo "deps: installed:$missing"
