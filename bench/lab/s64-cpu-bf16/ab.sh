#!/bin/sh
# ab.sh A B [KIND ...]: drive so/<k>-<shape>-A.so against -B.so (interleaved A B B A, ROUNDS
# rounds, default 15) on each KIND (k-dtype-MxN, e.g. sm-bf16-4096x4096), DRAM and streamed;
# rms and ln take 1 and 2 cols; a KIND ending in :hot runs in cache (NOCOPY, REPEAT=20, not streamed).
A=$1 B=$2
shift 2
for kind in "$@"; do
	hot=
	case $kind in *:hot) hot=1 kind=${kind%:hot} ;; esac
	shape=${kind##*-}
	m=${shape%x*} n=${shape#*x}
	case $kind in *-bf16-*) es=2 ;; *) es=4 ;; esac
	case $kind in rms-*) cols=1 ;; ln-*) cols=2 ;; *) cols=0 ;; esac
	echo "== $kind${hot:+ (in cache, not streamed)}"
	if [ -n "$hot" ]; then
		NOCOPY=1 REPEAT=${REPEAT:-20} ./quiet.sh ./drive $m $n $es 1 $cols 1 ${ROUNDS:-15} \
			so/$kind-$A.so:0 so/$kind-$B.so:0
	else
		./quiet.sh ./drive $m $n $es 1 $cols 1 ${ROUNDS:-15} so/$kind-$A.so so/$kind-$B.so
	fi
done
