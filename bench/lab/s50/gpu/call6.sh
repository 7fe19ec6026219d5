#!/usr/bin/env bash
# Session 50, call 6: col inputs staged in shared memory once per persistent block (a
# hand-edited layernorm bf16 2047x6143 source, W=128,V=8 G=persistent: every row of a block
# shares one phase when the grid is a multiple of 8), timed by bench/lab/s49/gpu/occ.cu beside
# the unedited persistent source, the one-row-a-block entry and the aligned 2048x6144 entry.
# Cubins (nvcc -cubin -arch=sm_90 -O3 of `rowreduce emit` at a170683) carried in lab-cubins/.
set -u
nvcc -O2 -o /tmp/occ bench/lab/s49/gpu/occ.cu -lcuda || exit 1
c=lab-cubins
for rep in 1 2; do
	/tmp/occ $c/ln_al.cubin rr_layernorm_vec 2048 6144 2 RCCSR 0
	/tmp/occ $c/ln_rows.cubin rr_layernorm_head 2047 6143 2 RCCSR 0
	for g in 1056 528 264; do
		echo "grid $g"
		OCC_GRID=$g /tmp/occ $c/ln_pers.cubin rr_layernorm_head 2047 6143 2 RCCSR 0
		OCC_GRID=$g /tmp/occ $c/ln_staged.cubin rr_layernorm_head 2047 6143 2 RCCSR 0
	done
done
