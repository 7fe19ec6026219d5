#!/usr/bin/env bash
# Every built-in validates on the cpu backend for the planner's choice over every shape of
# bench/suites/odd.txt in f32, bf16 and f16 (issue 10). A shape of more than 2^21 elements is
# validated on a slice of its rows with the plan the planner chose for the whole shape (read
# from `rowreduce emit`): rows are independent, and the slice of min(M, 37) rows still ends in
# a partial group for every R up to 32. That keeps the run near a minute under the sanitizers.
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
: "${RR_SOURCE_DIR:?set RR_SOURCE_DIR to the source tree}"
# -Wall -Wextra -Werror: the generated C holds to the warnings the project's own code does (a
# kernel whose source warns fails to build and so to validate).
export RR_CFLAGS="${RR_CFLAGS:--O1 -Wall -Wextra -Werror}"
# The release tool when `make test` names it (RR_RELEASE_ROWREDUCE), as cli_emit_cuda does: the
# cases' time is the host's input generation, float64 reference and validation of up to 5.4M
# elements, ten times slower under the sanitizers (minutes of CI). The sanitizers still see
# the planner's choice and its source for every shape of odd.txt (test_realise) and the run
# path on odd lengths (cli_run, test_cpu_grid); the kernels are the same objects either way.
tool=$ROWREDUCE
[ -x "${RR_RELEASE_ROWREDUCE:-}" ] && tool=$RR_RELEASE_ROWREDUCE
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 cases=0 sliced=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

shapes=$(sed 's/#.*//' "$RR_SOURCE_DIR/bench/suites/odd.txt" | grep -Eo '[0-9]+x[0-9]+')
[ "$(echo "$shapes" | wc -l)" -eq 12 ] || fail "bench/suites/odd.txt: want 12 shapes, got: $shapes"

for kernel in sum softmax rmsnorm layernorm add_layernorm cross_entropy; do
	for dtype in f32 bf16 f16; do
		for shape in $shapes; do
			m=${shape%x*} n=${shape#*x}
			args=(--kernel "$kernel" --dtype "$dtype" --backend cpu)
			run_shape=$shape
			if [ $((m * n)) -gt 2097152 ] && [ "$m" -gt 37 ]; then
				plan=$("$tool" emit "${args[@]}" --shape "$shape" 2>"$work/err" |
					sed -n 's/^ \* plan *//p' | head -n 1)
				if [ -z "$plan" ]; then
					fail "$kernel $shape $dtype: emit printed no plan: $(head -c 600 "$work/err")"
					continue
				fi
				args+=(--layout "$plan")
				run_shape=37x$n
				sliced=$((sliced + 1))
			fi
			cases=$((cases + 1))
			"$tool" run "${args[@]}" --shape "$run_shape" >"$work/out" 2>"$work/err"
			got=$?
			what="$kernel $shape $dtype (ran ${args[*]} --shape $run_shape)"
			[ "$got" -eq 0 ] || fail "$what exited $got: $(head -c 600 "$work/err")"
			grep -Eq '^validated ([0-9]+)/\1 elements in ([0-9]+)/\2 outputs' "$work/out" ||
				fail "$what did not validate: $(grep -E '^(plan|output|validated)' "$work/out" | head -c 800)"
		done
	done
done

echo "cli_odd: $cases cases checked ($sliced on a slice of 37 rows), $failures failures"
[ "$failures" -eq 0 ]
