#!/bin/bash
# ptxas registers (sm_90) of each entry of the picks in a "kernel shape plan" list, emitted by two
# builds (A, B), bf16; the blocks an SM that registers, threads and shared memory allow.
# Usage: rawregs.sh A_ROWREDUCE B_ROWREDUCE < picks > table
A=$1 B=$2 DT=${DT:-bf16}
t=$(mktemp -d)
regs() { # source -> "entry:regs:spill ..." 
	nvcc -cubin -arch sm_90 -std=c++17 -Xptxas -v -o $t/k.cubin "$1" >$t/log 2>&1 || { echo FAIL; return; }
	python3 - $t/log <<'PY'
import re, sys
t = open(sys.argv[1]).read()
out = []
for m in re.finditer(r"Compiling entry function '(\w+)'.*?(\d+) bytes spill stores.*?Used (\d+) registers", t, re.S):
    kind = m.group(1).rsplit('_', 1)[1]
    if kind != 'scalar':
        out.append(f"{kind}:{m.group(3)}{'+s' + m.group(2) if m.group(2) != '0' else ''}")
print(' '.join(out))
PY
}
while read -r k s plan; do
	[ -z "$plan" ] && continue
	$A emit --kernel $k --dtype $DT --shape $s --backend cuda --arch sm_90 >$t/a.cu 2>/dev/null || continue
	$B emit --kernel $k --dtype $DT --shape $s --backend cuda --arch sm_90 >$t/b.cu 2>/dev/null || continue
	W=$(grep -m1 -oE 'constexpr int THREADS = W \* R' $t/a.cu >/dev/null && echo)
	echo "$k $DT $s $plan | A $(regs $t/a.cu) | B $(regs $t/b.cu)"
done
