#!/usr/bin/env bash
# The Python binding (python/rowreduce) on the cpu backend with NumPy: tests/python/*.py run
# against the shared library built beside the tool under test. A sanitized library is loaded
# with the sanitizer runtime preloaded (leak checks off: the interpreter keeps its memory).
# Exit 77 (skipped) only when no python3 with NumPy is found; CI installs it (tools/deps.sh).
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
: "${RR_SOURCE_DIR:?set RR_SOURCE_DIR to the repository}"
# The first interpreter with NumPy: $RR_PYTHON, python3 on the PATH, then the system's (where
# tools/deps.sh installs python3-numpy; a python3 of pyenv or a venv on the PATH does not see it).
python=""
for candidate in ${RR_PYTHON:-} python3 /usr/bin/python3; do
	command -v "$candidate" >/dev/null 2>&1 || continue
	if "$candidate" -c 'import numpy' 2>/dev/null; then
		python=$candidate
		break
	fi
done
[ -n "$python" ] || { echo "skip: no python3 with NumPy (tools/deps.sh test installs python3-numpy)"; exit 77; }

library="${RR_LIBRARY:-$(dirname "$ROWREDUCE")/librowreduce.so}"
[ -f "$library" ] || { echo "FAIL: no shared library at $library (target rowreduce_shared)" >&2; exit 1; }
export RR_LIBRARY="$library"
export PYTHONPATH="$RR_SOURCE_DIR/python${PYTHONPATH:+:$PYTHONPATH}"
export RR_CFLAGS="${RR_CFLAGS:--O1}"
asan=$(ldd "$library" 2>/dev/null | awk '/libasan/ {print $3}')
if [ -n "$asan" ]; then
	export LD_PRELOAD="$asan${LD_PRELOAD:+:$LD_PRELOAD}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi

failures=0
for test in "$RR_SOURCE_DIR"/tests/python/test_*.py; do
	echo "== $(basename "$test") ($python, library $RR_LIBRARY${asan:+, sanitizer runtime preloaded})"
	"$python" "$test" || failures=$((failures + 1))
done
# PyTorch aborts under a preloaded sanitizer runtime: when it is installed, its tests run again
# against the Release build's unsanitized library (make test builds it), if there is one.
release="$RR_SOURCE_DIR/build/librowreduce.so"
if [ -n "$asan" ] && [ -f "$release" ] && env -u LD_PRELOAD "$python" -c 'import torch' 2>/dev/null; then
	echo "== test_binding.py Torch (library $release)"
	env -u LD_PRELOAD RR_LIBRARY="$release" "$python" "$RR_SOURCE_DIR/tests/python/test_binding.py" Torch ||
		failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] || { echo "FAIL: $failures Python test file(s) failed" >&2; exit 1; }
echo "python binding: all tests passed"
