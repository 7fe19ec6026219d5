#!/bin/sh
# gen.sh TAG ROWREDUCE KERNEL DTYPE SHAPE...: src/<k>-<dtype>-<shape>-TAG.c from that build's
# `emit`, compiled to so/ by cc.sh (k: sm softmax, rms rmsnorm, ln layernorm, sum).
tag=$1 rr=$2 kernel=$3 dtype=$4
shift 4
case $kernel in softmax) k=sm ;; rmsnorm) k=rms ;; layernorm) k=ln ;; *) k=$kernel ;; esac
for s in "$@"; do
	n=$k-$dtype-$s-$tag
	$rr emit --backend cpu --kernel $kernel --shape $s --dtype $dtype >src/$n.c && ./cc.sh $n
done
