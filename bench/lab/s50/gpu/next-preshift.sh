#!/usr/bin/env bash
# For the next GPU session (not run in session 50: its device time was spent): would col inputs
# read from pre-shifted copies run an odd row's output phase as the aligned row runs it? And
# would the shifted loads batched without a branch (lab_sources.py `batched`, edge.patch's
# form, which took 96 registers and lost in call 3) win at a register cap of 6 or 8 blocks an
# SM (80 or 64 registers, no spills here)? ncu's stall samples (call 5) put the odd row's
# extra time in its output phase, on the first use of each chunk's w and b loads.
# lab_sources.py's `preshift` variant of layernorm bf16 2047x6143 (W=128,V=8 one row a block)
# reads w and b as aligned 16-byte packs from one of 8 copies of each (copy h holds w[i] at
# i + (8 - h) % 8, so the row whose head is h finds its packs aligned); the copies would be
# written once a launch by a small kernel before the row kernel. Outputs are not validated
# (occ.cu fills the copies with its own values): a timing lab only, beside the entry as emitted
# and the aligned row. Carry .deps and .rr-commit (the tree is built first).
#   bash bench/lab/s50/gpu/next-preshift.sh
set -u
bash tools/gpu/session.sh info >/dev/null 2>&1 || { echo "build failed"; exit 1; }
RR=build-gpu/rowreduce
nvcc -O2 -o /tmp/occ bench/lab/s49/gpu/occ.cu -lcuda || exit 1
d=/tmp/preshift; mkdir -p $d
p=W=128,V=8,U=1,R=1,C=1,S=regs,G=rows
$RR emit --backend cuda --arch sm_90 --kernel layernorm --shape 2047x6143 --dtype bf16 --layout $p >$d/ln_rows.cu &&
	$RR emit --backend cuda --arch sm_90 --kernel layernorm --shape 2048x6144 --dtype bf16 --layout $p >$d/ln_al.cu &&
	python3 bench/lab/s50/gpu/lab_sources.py preshift $d/ln_rows.cu $d/ln_preshift.cu &&
	python3 bench/lab/s50/gpu/lab_sources.py batched $d/ln_rows.cu $d/ln_batched.cu || exit 1
for v in ln_preshift ln_batched; do
	for k in 6 8; do
		sed "s/constexpr int MIN_BLOCKS_HEAD = 5;/constexpr int MIN_BLOCKS_HEAD = $k;/" $d/$v.cu >$d/$v-mb$k.cu
	done
done
for f in ln_al ln_rows ln_preshift ln_preshift-mb6 ln_preshift-mb8 ln_batched ln_batched-mb6 ln_batched-mb8; do
	nvcc -cubin -arch=sm_90 -O3 -o $d/$f.cubin $d/$f.cu 2>/dev/null || { echo "nvcc $f failed"; exit 1; }
done
for rep in 1 2; do
	/tmp/occ $d/ln_al.cubin rr_layernorm_vec 2048 6144 2 RCCSR 0
	/tmp/occ $d/ln_rows.cubin rr_layernorm_head 2047 6143 2 RCCSR 0
	for v in ln_preshift ln_preshift-mb6 ln_preshift-mb8; do
		echo -n "$v: "; /tmp/occ $d/$v.cubin rr_layernorm_head 2047 6143 2 RCCSRR 0
	done
	for v in ln_batched ln_batched-mb6 ln_batched-mb8; do
		echo -n "$v: "; /tmp/occ $d/$v.cubin rr_layernorm_head 2047 6143 2 RCCSR 0
	done
done
