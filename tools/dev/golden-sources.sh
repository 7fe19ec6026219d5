#!/usr/bin/env bash
# Emits the generated source of every planner choice over the seed and large suites and of the
# `emit --check-all` plan grid (both backends, f32/bf16/f16) into DIR, one file each, so a
# structural change can be checked byte for byte: run before and after, then diff -r.
# usage: tools/dev/golden-sources.sh ROWREDUCE DIR
set -euo pipefail
tool=$1 out=$2
mkdir -p "$out"
kernels="sum softmax rmsnorm layernorm add_layernorm cross_entropy"
dtypes="f32 bf16 f16"
shapes=$(cat "$(dirname "$0")/../../bench/suites/seed.txt" "$(dirname "$0")/../../bench/suites/large.txt" |
	sed 's/#.*//' | tr -s ' \t,' '\n' | grep -E '^[0-9]+x[0-9]+$' | sort -u)
# The check-all grid: N W V U R C S G (V 0 = 16-byte packs, -1 = half of that).
grid="64 8 0 1 16 1 regs rows
31 4 2 1 8 1 regs rows
64 8 0 1 16 1 regs persistent
4096 128 0 1 1 1 regs rows
4096 256 0 2 1 1 regs rows
4096 512 0 1 1 1 regs persistent
4096 256 -1 2 1 1 regs rows
4103 256 0 2 1 1 regs rows
16384 512 0 1 1 1 reread rows
16384 512 0 2 1 1 smem rows
32768 1024 0 1 1 1 regs rows
32768 1024 0 2 1 1 smem persistent
131072 1024 0 1 1 1 smem rows
131072 1024 0 1 1 8 cluster rows
131072 512 0 2 1 4 cluster persistent
262144 1024 0 1 1 8 cluster rows
262144 1024 0 1 1 8 reread rows"
for k in $kernels; do
	for t in $dtypes; do
		for s in $shapes; do
			for b in cpu cuda; do
				f="$out/auto-$b-$k-$t-$s.src"
				arch=""; [ "$b" = cuda ] && arch="--arch sm_90"
				"$tool" emit --kernel "$k" --shape "$s" --dtype "$t" --backend "$b" $arch >"$f" 2>&1 || echo "exit $?" >>"$f"
			done
		done
		while read -r n w v u r c st g; do
			if [ "$t" = f32 ]; then full=4; else full=8; fi
			[ "$v" = 0 ] && v=$full
			[ "$v" = -1 ] && v=$((full / 2))
			lay="W=$w,V=$v,U=$u,R=$r,C=$c,S=$st,G=$g"
			for b in cpu cuda; do
				f="$out/grid-$b-$k-$t-$n-$lay.src"
				arch=""; [ "$b" = cuda ] && arch="--arch sm_90"
				"$tool" emit --kernel "$k" --shape "4x$n" --dtype "$t" --backend "$b" $arch --layout "$lay" >"$f" 2>&1 || echo "exit $?" >>"$f"
			done
		done <<<"$grid"
	done
done
ls "$out" | wc -l
