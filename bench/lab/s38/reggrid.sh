#!/bin/bash
# ptxas registers of the vec entry over a grid of shared-memory and cluster plans (aligned rows),
# beside the model's count (RR_PLAN_TRACE of the forced plan). Usage: reggrid.sh ROWREDUCE > table
RR=$1
t=$(mktemp -d)
for k in softmax rmsnorm layernorm add_layernorm cross_entropy; do for d in bf16 f32; do
	V=8; [ $d = f32 ] && V=4
	for NC in 16384:1 32768:1 32768:2 65536:4 131072:8 131072:4; do
		N=${NC%:*} C=${NC#*:}; S=cluster; [ $C = 1 ] && S=smem
		for W in 256 512 1024; do for U in 1 2 4; do
			plan="W=$W,V=$V,U=$U,R=1,C=$C,S=$S,G=persistent"; [ $C = 1 ] && plan="W=$W,V=$V,U=$U,R=1,C=1,S=smem,G=rows"
			RR_PLAN_TRACE=1 $RR emit --kernel $k --dtype $d --shape 1024x$N --layout $plan --backend cuda --arch sm_90 >$t/k.cu 2>$t/err || continue
			mregs=$(grep -oE 'regs [0-9]+' $t/err | head -1 | cut -d' ' -f2)
			mgrp=$(grep -oE 'groups/SM [0-9]+' $t/err | head -1 | cut -d' ' -f2)
			keep=$(grep -m1 -oE 'constexpr int KEEP_CHUNKS = [0-9]+' $t/k.cu | grep -oE '[0-9]+$')
			mb=$(grep -m1 -oE 'constexpr int MIN_BLOCKS = [0-9]+' $t/k.cu | grep -oE '[0-9]+$')
			smem=$(grep -m1 -oE '/\* [0-9]+ bytes at launch' $t/k.cu | grep -oE '[0-9]+' || echo 0)
			nvcc -cubin -arch sm_90 -std=c++17 -Xptxas -v -o $t/k.cubin $t/k.cu >$t/log 2>&1 || { echo "$k $d 1024x$N $plan nvcc failed"; continue; }
			regs=$(python3 -c "
import re
t=open('$t/log').read()
for m in re.finditer(r\"Compiling entry function '(\w+)'.*?Used (\d+) registers\", t, re.S):
    if m.group(1).endswith('_vec'): print(m.group(2)); break
")
			echo "$k $d 1024x$N $plan keep=$keep mb=$mb smem=$smem model=$mregs/$mgrp ptxas=$regs"
		done; done
	done
done; done
