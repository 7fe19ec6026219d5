#!/bin/bash
# The planner's cluster and shared-memory picks over the suites: the model's registers and
# blocks an SM (RR_PLAN_TRACE's chosen line) beside ptxas's for the entry the rows run
# (vec where N * size % 16 == 0, else head). Usage: audit.sh ROWREDUCE > table
RR=$1
t=$(mktemp -d)
for s in $(cat bench/suites/{large,wide,models,odd}.txt | grep -v '^#' | grep -oE '^[0-9]+x[0-9]+' | sort -u); do
	N=${s#*x}; [ "$N" -lt 8192 ] && continue
	for d in f32 bf16; do for k in softmax rmsnorm layernorm add_layernorm cross_entropy; do
		line=$(RR_PLAN_TRACE=1 $RR emit --kernel $k --dtype $d --shape $s --backend cuda --arch sm_90 2>&1 >$t/k.cu | grep '^\*')
		case $line in *S=cluster* | *S=smem*) ;; *) continue ;; esac
		plan=$(echo "$line" | awk '{print $3}')
		mregs=$(echo "$line" | grep -oE 'regs [0-9]+' | cut -d' ' -f2)
		mgrp=$(echo "$line" | grep -oE 'groups/SM [0-9]+' | cut -d' ' -f2)
		size=4; [ $d = bf16 ] && size=2
		entry=head; [ $((N * size % 16)) = 0 ] && entry=vec
		W=$(grep -m1 -oE 'constexpr int W = [0-9]+' $t/k.cu | grep -oE '[0-9]+$')
		smem=$(grep -m1 -oE '/\* [0-9]+ bytes at launch' $t/k.cu | grep -oE '[0-9]+' || echo 0)
		nvcc -cubin -arch sm_90 -std=c++17 -Xptxas -v -o $t/k.cubin $t/k.cu >$t/log 2>&1 || { echo "$k $d $s nvcc failed"; continue; }
		regs=$(python3 -c "
import re,sys
t=open('$t/log').read()
for m in re.finditer(r\"Compiling entry function '(\w+)'.*?Used (\d+) registers\", t, re.S):
    if m.group(1).endswith('_$entry'): print(m.group(2)); break
")
		warps=$(((W + 31) / 32)); pw=$(( (regs * 32 + 255) / 256 * 256 ))
		br=$((65536 / (pw * warps))); bs=$((233472 / (${smem:-0} + 1024))); bt=$((2048 / W))
		real=$br; [ $bs -lt $real ] && real=$bs; [ $bt -lt $real ] && real=$bt
		flag=""; [ "$real" -lt "$mgrp" ] && flag=FEWER; [ "$real" -gt "$mgrp" ] && flag=more
		echo "$k $d $s $plan model ${mregs}r/${mgrp}b ptxas $entry ${regs}r -> ${real}b (regs $br smem $bs threads $bt) $flag"
	done; done
done
