#!/bin/bash
# lines "k d s OLD -> NEW": ABBA medians of both plans with build/rowreduce
cd "$(dirname "$0")/../../.."
while read -r k d s a arrow b; do
 ta=(); tb=()
 for side in A B B A A B; do
  p=$a; [ $side = B ] && p=$b
  build/rowreduce bench --backend cpu --shapes $s --kernels $k --dtypes $d --plan $p --samples 5 --sample-ms 20 --warmup-ms 50 --no-ceilings --out /tmp/s37-r >/dev/null 2>&1
  t=$(python3 bench/lab/s37-cpu/med.py /tmp/s37-r/results.json | awk '{print $NF}')
  [ $side = A ] && ta+=($t) || tb+=($t)
 done
 python3 -c "
import statistics as st,sys
a=[float(x) for x in '${ta[*]}'.split()]; b=[float(x) for x in '${tb[*]}'.split()]
print('$k $d $s', '$a', st.median(a), '$b', st.median(b), 'ratio %.3f'%(st.median(b)/st.median(a)))"
done
