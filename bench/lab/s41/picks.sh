#!/bin/bash
# The planner's sm_90 picks of two builds side by side, rows whose plan differs.
# Usage: picks.sh OLD_ROWREDUCE NEW_ROWREDUCE "shapes" > table
A=$1 B=$2
for s in $3; do for d in f32 bf16; do for k in sum softmax rmsnorm layernorm add_layernorm cross_entropy; do
	pa=$(RR_PLAN_TRACE=1 $A emit --kernel $k --dtype $d --shape $s --backend cuda --arch sm_90 2>&1 >/dev/null | grep '^\*' | awk '{print $3}')
	pb=$(RR_PLAN_TRACE=1 $B emit --kernel $k --dtype $d --shape $s --backend cuda --arch sm_90 2>&1 >/dev/null | grep '^\*' | awk '{print $3}')
	[ "$pa" != "$pb" ] && echo "$k $d $s $pa -> $pb"
done; done; done
