#!/bin/bash
# abr.sh A.so B.so kernel dtype M N offset [rounds]: median over rounds of B/A (per-round times)
A=$1 B=$2 K=$3 D=$4 M=$5 N=$6 O=$7 R=${8:-10}
LAB_HUGE=1 LAB_OFFSET=$O ${LAB:-/tmp/lab}/lab_ab $A $B $K $D $M $N 5 $R 2 1 | python3 -c "
import sys,statistics as st
a=[];b=[]
for l in sys.stdin:
    p=l.split()
    if p and p[0]=='round': (a if p[2]=='A' else b).append(float(p[3]))
    if p and p[0]=='best': diff=l.split(';')[1].strip()
r=[y/x for x,y in zip(a,b)]
print('B/A median %.3f [%.3f..%.3f] A %.0f B %.0f; %s' % (st.median(r), min(r), max(r), st.median(a), st.median(b), diff))
"
