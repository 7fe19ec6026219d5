#!/bin/bash
# The planner's CPU picks of two builds side by side, rows whose plan differs.
# Usage: cpupicks.sh OLD NEW "kernels" "dtypes" "shapes"
for s in $5; do for d in $4; do for k in $3; do
	pa=$(RR_PLAN_TRACE=1 $1 emit --kernel $k --dtype $d --shape $s 2>&1 >/dev/null | grep '^\*' | awk '{print $3}')
	pb=$(RR_PLAN_TRACE=1 $2 emit --kernel $k --dtype $d --shape $s 2>&1 >/dev/null | grep '^\*' | awk '{print $3}')
	[ "$pa" != "$pb" ] && echo "$k $d $s $pa -> $pb"
done; done; done
