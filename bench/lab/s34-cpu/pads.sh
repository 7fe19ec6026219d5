#!/bin/bash
# pads.sh A_ROWREDUCE B_ROWREDUCE KERNEL DTYPE M N STREAM PAIRS [PADS]: the placement lottery. Both
# builds' emitted source, each compiled with 0, 16, 32, 48 bytes of nops jumped over at the start of
# one_row (pad.py: every later instruction moves), each against A unpadded in the paired lab.
set -e
here=$(dirname "$0"); d=${DIR:-/tmp/s34/p}; mkdir -p $d
n=$3_$4_$5x$6
"$1" emit --kernel $3 --shape $5x$6 --dtype $4 > $d/$n.A.c
"$2" emit --kernel $3 --shape $5x$6 --dtype $4 > $d/$n.B.c
"$here"/cc.sh $d/$n.A.c
for p in ${9:-0 16 32 48}; do
	for s in A B; do
		python3 "$here"/pad.py $d/$n.$s.c $d/$n.$s.pad$p.c $p
		"$here"/cc.sh $d/$n.$s.pad$p.c 2>/dev/null
		echo "# $s with pad $p against A"
		"$here"/ab.sh $d/$n.A.so $d/$n.$s.pad$p.so $3 $4 $5 $6 $7 $8
	done
done
