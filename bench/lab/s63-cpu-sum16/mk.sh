#!/bin/sh
# mk.sh ROWREDUCE: the lab's sources (src/sum-T-S-VARIANT.c) and objects (so/, cc.sh) from
# ROWREDUCE's emitted sum (use the branch point's build, /tmp/rr-base, for -base): -nopf
# without the loop's prefetch, -pfline the prefetch behind a test of its line offset, -hoist
# the distance computed once before the loop (what the branch now emits).
RR=${1:-/tmp/rr-base/build/rowreduce}
mkdir -p src so
for t in bf16 f32; do for s in 1024x1024 1024x4096; do
	b=src/sum-$t-$s
	$RR emit --backend cpu --kernel sum --shape $s --dtype $t > $b-base.c
	sed 's|__builtin_prefetch(in0 + prefetch_single(N, stream) + i); /\* ahead \*/||' \
		$b-base.c > $b-nopf.c
	sed 's|__builtin_prefetch(in0 + prefetch_single(N, stream) + i); /\* ahead \*/|{ const io_t *q = in0 + prefetch_single(N, stream) + i; if (((uintptr_t)q \& 63) < L * sizeof(io_t)) __builtin_prefetch(q); }|' \
		$b-base.c > $b-pfline.c
	sed -e 's|__builtin_prefetch(in0 + prefetch_single(N, stream) + i); /\* ahead \*/|__builtin_prefetch(in0 + ahead + i);|' \
		-e 's|^\(\t*\)int64_t chunk = 0;|\1int64_t chunk = 0;\n\1const int64_t ahead = prefetch_single(N, stream);|' \
		$b-base.c > $b-hoist.c
	for v in base nopf pfline hoist; do ./cc.sh sum-$t-$s-$v; done
done; done
