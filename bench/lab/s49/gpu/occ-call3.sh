#!/usr/bin/env bash
# Session 49 call 3: odd and aligned entries of lse and softmax bf16 W=128,V=8 at forced
# occupancies (occ.cu); cubins from `rowreduce emit` at 1195391, nvcc -cubin -arch=sm_90 -O3,
# carried in lab-cubins/ (the *-mbK ones with MIN_BLOCKS_HEAD edited to K).
set -u
nvcc -O2 -o /tmp/occ bench/lab/s49/gpu/occ.cu -lcuda || exit 1
c=lab-cubins
for rep in 1 2; do
/tmp/occ $c/lse-8192x1024.cubin rr_lse_vec 8192 1024 2 RS 0 16 12 9
/tmp/occ $c/lse-8191x1023.cubin rr_lse_head 8191 1023 2 RS 0 12 9
/tmp/occ $c/lse-odd-mb16.cubin rr_lse_head 8191 1023 2 RS 0 16 12
/tmp/occ $c/softmax-8192x1024.cubin rr_softmax_vec 8192 1024 2 RR 0 16 12 9
/tmp/occ $c/softmax-8191x1023.cubin rr_softmax_head 8191 1023 2 RR 0 9
/tmp/occ $c/softmax-odd-mb12.cubin rr_softmax_head 8191 1023 2 RR 0 12 9
/tmp/occ $c/softmax-odd-mb16.cubin rr_softmax_head 8191 1023 2 RR 0 16 12
done
# hand-edited softmax head entries (/tmp sources of session 49): v1 the partial pack read as a
# whole vector always (wrong for an array's last row only; occ allocates 64 bytes past each
# array), v5 the no-room pack by a loop not unrolled, v6 by at most three aligned loads
for v in v1 v5 v6 v1-mb12 v1-mb16; do
/tmp/occ $c/softmax-odd-$v.cubin rr_softmax_head 8191 1023 2 RR 0
done
/tmp/occ $c/softmax-8192x1024.cubin rr_softmax_vec 8192 1024 2 RR 0
