#!/bin/sh
# orders.sh ROUNDS SHAPE[:hot]...: softmax f32 base against new with ./drive (session 64's
# drive.c with drive.patch applied: it prints the per-round ratios' quartiles too; `cp
# ../s64-cpu-bf16/drive.c . && patch drive.c drive.patch`), two threads, in both orders: a
# dummy (base's object under another name) right after each round's 256 MiB copy, then base
# new (REF=1: new's ratio to base) and new base (REF=2: the same ratio). Streamed as the backend
# would (row bytes from 32 MiB, target.h's RR_CPU_STREAM_BYTES); SHAPE:hot runs in cache
# (NOCOPY, REPEAT=20). Objects: ../s64-cpu-bf16/gen.sh base|new (cc.sh beside it).
rounds=$1
shift
for kind in "$@"; do
	hot=
	case $kind in *:hot) hot=1 kind=${kind%:hot} ;; esac
	m=${kind%x*} n=${kind#*x}
	stream=0
	[ $((m * n * 8)) -ge 33554432 ] && stream=1
	[ -n "$hot" ] && stream=0
	d=so/sm-f32-$kind-dummy.so:$stream b=so/sm-f32-$kind-base.so:$stream
	w=so/sm-f32-$kind-new.so:$stream
	for order in "$b $w" "$w $b"; do
		ref=1
		[ "$order" = "$w $b" ] && ref=2
		echo "== f32 $kind${hot:+ in cache} stream $stream REF=$ref"
		if [ -n "$hot" ]; then
			NOCOPY=1 REPEAT=20 REF=$ref ./quiet.sh ./drive $m $n 4 1 0 1 $rounds $d $order
		else
			REF=$ref ./quiet.sh ./drive $m $n 4 1 0 1 $rounds $d $order
		fi
	done
done
