#!/usr/bin/env bash
# Session 50, calls 6-8 and 14 (as run, by hand): col inputs staged in shared memory, timed by
# bench/lab/s49/gpu/occ.cu (its own timing: events around one launch, L2 flushed by a memset,
# median of 15). Sources: `rowreduce emit --arch sm_90` at a170683 of layernorm bf16 2047x6143
# (W=128,V=8,U=1,R=1,C=1,S=regs; G=persistent for ln_pers/ln_staged, G=rows for ln_rows and the
# rest), edited by bench/lab/s50/gpu/lab_sources.py (ln_staged = `staged` of ln_pers, ln_rstagedN
# = `rstagedN` and ln_async = `async` of ln_rows), compiled nvcc -cubin -arch=sm_90 -O3 into
# lab-cubins/ (not kept); the -mbK ones with MIN_BLOCKS_HEAD edited to K.
#   calls 6-7: OCC_GRID=1056|528 /tmp/occ lab-cubins/ln_staged.cubin rr_layernorm_head 2047 6143 2 RCCSR 0
#           (and ln_pers.cubin, the same source unedited; call 6's ln_staged failed with a
#           misaligned address, its second copy of the cols 2 bytes off 16: fixed for call 7)
#   call 14: ln_async (cols by cp.async into shared memory, read shifted there), its
#           -mb6 and -mb8 copies, beside ln_rows.cubin and ln_al.cubin as in call 8
#   call 8: /tmp/occ lab-cubins/ln_rstaged{1,3}[-mb7|-mb8].cubin rr_layernorm_head 2047 6143 2 RCCSR 0
#           beside ln_rows.cubin (head entry, unedited) and ln_al.cubin (rr_layernorm_vec 2048 6144)
