#!/bin/bash
# flags_ab.sh ROWREDUCE KERNEL DTYPE M N STREAM PAIRS "EXTRA FLAGS": one emitted source compiled
# with the backend's flags (A) and with EXTRA FLAGS added (B), in $DIR (default /tmp/s34/f), then
# the paired lab (ab.sh): the same source, so the same arithmetic; only the code's placement differs.
set -e
here=$(dirname "$0"); d=${DIR:-/tmp/s34/f}; mkdir -p $d
n=$2_$3_$4x$5
"$1" emit --kernel $2 --shape $4x$5 --dtype $3 > $d/$n.c
cc -O3 -march=native -ffp-contract=off -fno-math-errno -fPIC -shared -std=c11 -o $d/$n.A.so $d/$n.c -lm
cc -O3 -march=native -ffp-contract=off -fno-math-errno $8 -fPIC -shared -std=c11 -o $d/$n.B.so $d/$n.c -lm
echo "# B: $8"
"$here"/ab.sh $d/$n.A.so $d/$n.B.so $2 $3 $4 $5 $6 $7
