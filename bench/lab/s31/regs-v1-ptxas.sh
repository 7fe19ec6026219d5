#!/bin/bash
# From the repository root after a build: the model's register estimate (RR_PLAN_TRACE) against
# ptxas's for one-element-pack plans; the emitted .cu files go to a temporary folder.
RR=$(realpath "${RR:-build/rowreduce}")
cd "$(mktemp -d)" || exit 1
for k in rmsnorm layernorm softmax add_layernorm; do for d in bf16 f32; do for s in 65535x127 32767x255; do for W in 16 32; do for U in 2 4; do for R in 2 4; do
 pl="W=$W,V=1,U=$U,R=$R,C=1,S=regs,G=rows"
 f=$k-$d-$s-$W-$U-$R.cu
 $RR emit --backend cuda --arch sm_90 --kernel $k --dtype $d --shape $s --layout $pl > $f 2>/dev/null || { echo "$k $d $s $pl illegal"; continue; }
 m=$(RR_PLAN_TRACE=1 $RR emit --backend cuda --arch sm_90 --kernel $k --dtype $d --shape $s --layout $pl 2>&1 >/dev/null | tail -1 | grep -o 'regs [0-9]*' | cut -d' ' -f2)
 p=$(nvcc -cubin -arch sm_90 -Xptxas -v -o /dev/null $f 2>&1 | grep -o 'Used [0-9]* registers' | awk '{print $2}' | tr '\n' ' ')
 echo "$k $d $s $pl model $m ptxas $p"
done; done; done; done; done; done
