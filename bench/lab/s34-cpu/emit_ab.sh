#!/bin/bash
# emit_ab.sh A_ROWREDUCE B_ROWREDUCE KERNEL DTYPE M N STREAM PAIRS [LAYOUT]: both builds' `rowreduce
# emit` of one kernel and shape compiled with the backend's flags (cc.sh) in $DIR (default
# /tmp/s34/k), then the paired lab (ab.sh) on them. BFLAGS: flags added to B's compile only.
set -e
here=$(dirname "$0"); d=${DIR:-/tmp/s34/k}; mkdir -p $d
n=$3_$4_$5x$6${9:+_$9}
"$1" emit --kernel $3 --shape $5x$6 --dtype $4 ${9:+--layout $9} > $d/$n.A.c
"$2" emit --kernel $3 --shape $5x$6 --dtype $4 ${9:+--layout $9} > $d/$n.B.c
if [ -z "$BFLAGS" ] && cmp -s $d/$n.A.c $d/$n.B.c; then echo "$n: the same source"; exit 0; fi
"$here"/cc.sh $d/$n.A.c
cc -O3 -march=native -ffp-contract=off -fno-math-errno $BFLAGS -fPIC -shared -std=c11 -o $d/$n.B.so $d/$n.B.c -lm
[ -n "$BFLAGS" ] && echo "# B compiled with $BFLAGS added"
"$here"/ab.sh $d/$n.A.so $d/$n.B.so $3 $4 $5 $6 $7 $8
