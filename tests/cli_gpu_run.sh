#!/usr/bin/env bash
# rowreduce run on the cuda backend: every built-in validates at 16384x4096 and 1024x131072 in
# f32 and bf16 with the planner's layout, plus explicit cluster, smem and reread plans for the
# wide rows. Skipped (77) where no GPU answers.
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! "$ROWREDUCE" run --backend cuda --kernel sum --shape 4x64 >"$work/out" 2>"$work/err"; then
	if grep -Eq "CUDA is not available|cannot open backend 'cuda'" "$work/err"; then
		echo "SKIP: $(cat "$work/err")"
		exit 77
	fi
	cat "$work/out" "$work/err"
	echo "FAIL: a small cuda run failed"
	exit 1
fi

failures=0
check() { # check ARGS...: rowreduce run --backend cuda ARGS validates every output
	if ! "$ROWREDUCE" run --backend cuda --repeat 3 "$@" >"$work/out" 2>"$work/err" ||
		! grep -Eq '^validated ([0-9]+)/\1 elements in ([0-9]+)/\2 outputs' "$work/out"; then
		echo "FAIL: rowreduce run --backend cuda $*"
		head -c 2000 "$work/out" "$work/err"
		failures=$((failures + 1))
	else
		echo "ok   $* :: $(grep -E '^plan ' "$work/out" | head -1)"
	fi
}

for kernel in sum softmax rmsnorm layernorm add_layernorm cross_entropy; do
	for dtype in f32 bf16; do
		check --kernel "$kernel" --dtype "$dtype" --shape 16384x4096
		check --kernel "$kernel" --dtype "$dtype" --shape 1024x131072
	done
	check --kernel "$kernel" --dtype bf16 --shape 1024x131072 --layout W=1024,V=8,U=1,R=1,C=8,S=cluster,G=rows
	check --kernel "$kernel" --dtype f32 --shape 1024x131072 --layout W=1024,V=4,U=1,R=1,C=1,S=reread,G=rows
	check --kernel "$kernel" --dtype f32 --shape 256x16384 --layout W=1024,V=4,U=2,R=1,C=1,S=smem,G=persistent
done
[ "$failures" -eq 0 ] || { echo "$failures runs failed"; exit 1; }
echo "PASS"
