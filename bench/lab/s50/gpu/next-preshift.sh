#!/usr/bin/env bash
# For the next GPU session (not run in session 50: its device time was spent): would col inputs
# read from pre-shifted copies run an odd row's output phase as the aligned row runs it?
# src/ln_preshift.cu is src/ln_rows.cu (layernorm bf16 2047x6143, W=128,V=8 one row a block, as
# emitted at a170683) reading w and b as aligned 16-byte packs from one of 8 copies of each
# (copy h holds w[i] at i + (8 - h) % 8, so the row whose head is h finds its packs aligned);
# the copies would be written once a launch by a small kernel before the row kernel. Outputs
# are not validated (occ.cu fills the copies with its own values): a timing lab only.
#   bash bench/lab/s50/gpu/next-preshift.sh     (no carry beyond the tree)
set -u
nvcc -O2 -o /tmp/occ bench/lab/s49/gpu/occ.cu -lcuda || exit 1
s=bench/lab/s50/gpu/src; d=/tmp/preshift; mkdir -p $d
for f in ln_al ln_rows ln_preshift; do nvcc -cubin -arch=sm_90 -O3 -o $d/$f.cubin $s/$f.cu 2>/dev/null || exit 1; done
for k in 6 8; do
	sed "s/constexpr int MIN_BLOCKS_HEAD = 5;/constexpr int MIN_BLOCKS_HEAD = $k;/" $s/ln_preshift.cu >$d/ln_preshift-mb$k.cu
	nvcc -cubin -arch=sm_90 -O3 -o $d/ln_preshift-mb$k.cubin $d/ln_preshift-mb$k.cu 2>/dev/null || exit 1
done
for rep in 1 2; do
	/tmp/occ $d/ln_al.cubin rr_layernorm_vec 2048 6144 2 RCCSR 0
	/tmp/occ $d/ln_rows.cubin rr_layernorm_head 2047 6143 2 RCCSR 0
	for v in ln_preshift ln_preshift-mb6 ln_preshift-mb8; do
		echo -n "$v: "; /tmp/occ $d/$v.cubin rr_layernorm_head 2047 6143 2 RCCSRR 0
	done
done
