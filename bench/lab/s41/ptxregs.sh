#!/bin/bash
# ptxas registers and spills of every entry of one plan: ptxregs.sh ROWREDUCE KERNEL DTYPE MxN PLAN
t=$(mktemp -d)
$1 emit --kernel $2 --dtype $3 --shape $4 --backend cuda --arch sm_90 --layout $5 > $t/a.cu || exit 1
mb=$(grep -m1 -oE 'constexpr int MIN_BLOCKS = [0-9]+' $t/a.cu | grep -oE '[0-9]+$')
out=$(nvcc -cubin -arch sm_90 -std=c++17 -Xptxas -v -o $t/k.cubin $t/a.cu 2>&1 | python3 -c "
import re,sys
t=sys.stdin.read()
for m in re.finditer(r\"Compiling entry function '(\w+)'.*?(\d+) bytes spill stores.*?Used (\d+) registers\", t, re.S):
    print(m.group(1).split('_')[-1]+':'+m.group(3)+('/spill'+m.group(2) if m.group(2)!='0' else ''), end=' ')
")
echo "$2 $3 $4 $5 MIN_BLOCKS=$mb $out"
rm -rf $t
