#!/usr/bin/env bash
# Session 65, call 2 (either card): S=grid at any C (3bc639a) with the planner's filling C on
# (the working tree: patches/grid-fill-on.patch applied) against main, where that C is offered
# only under RR_GRID_FILL=1 (.base: `git archive` of 3bc639a), both in one replay beside
# torch.compile (bench/lab/s60/gpu/ab.sh). Six built-ins, f32 and bf16, on five few-row shapes:
# 26 of the 60 picks move to M x C = 132 blocks (C = 66, 44, 33, 26, 18), the rest are
# controls. Then, with the time left, sumend/run.sh on four shapes (the end's cost, the
# carve-out, the hand-rewritten any-C sources). Carry .deps .whl .rr-commit; .base travels
# untracked; bench/results moved aside.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
t0=$(date +%s)
trap 'cd "$OUT" && tar czf /tmp/s65-call.tgz . && find . -mindepth 1 -delete && mv /tmp/s65-call.tgz .' EXIT
AB_BASE_SRC=.base AB_NAME=ab-grid-fill AB_OPS=sum,softmax,rmsnorm,layernorm,add_layernorm,cross_entropy \
	AB_DTYPES=f32,bf16 AB_SECONDS=${AB_SECONDS:-300} AB_SHAPES=2x4000037,3x2000000,4x2097152,7x777777,5x1000000 \
	bash bench/lab/s60/gpu/ab.sh
echo "== ab done after $(($(date +%s) - t0)) s"
# Session 66: S=grid at a C that is no power of two (the 64-bit count, the tree past C) under
# compute-sanitizer memcheck and racecheck, one plan each of layernorm bf16 and cross_entropy f32.
for spec in layernorm:bf16:4x262144:W=512,V=4,U=1,R=1,C=33,S=grid,G=persistent \
	cross_entropy:f32:3x1000000:W=1024,V=4,U=1,R=1,C=44,S=grid,G=persistent; do
	IFS=: read -r k dt shape plan <<<"$spec"
	args=(run --backend cuda --kernel "$k" --shape "$shape" --dtype "$dt" --layout "$plan")
	build-py/rowreduce "${args[@]}" --repeat 5 2>&1 | grep -E "validated|time|error" | sed "s|^|$k $dt $shape: |"
	for tool in memcheck racecheck; do
		timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 build-py/rowreduce "${args[@]}" \
			--repeat 1 >/tmp/san.log 2>&1
		echo "$tool $k $dt $shape $plan: exit $? ($(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1))"
	done
done 2>&1 | tee "$OUT/anyc-sanitizer.txt"
echo "== sanitizer done after $(($(date +%s) - t0)) s"
[ $(($(date +%s) - t0)) -lt 460 ] || exit 0
timeout $((540 - ($(date +%s) - t0))) bash tools/gpu/session.sh info >"$OUT/info.txt" 2>&1
RR_GRID_FILL=0 SHAPES="2x4000037:66 4x2097152:33 7x777777:18 16x1048576" \
	timeout $((585 - ($(date +%s) - t0))) bash bench/lab/s65/gpu/sumend/run.sh
echo "== sumend done after $(($(date +%s) - t0)) s"
