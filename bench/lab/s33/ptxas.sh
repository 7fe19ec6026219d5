#!/bin/bash
# Registers and spills of each entry of one plan, offline (nvcc -cubin -Xptxas -v, no GPU): ptxas.sh ROWREDUCE KERNEL DTYPE MxN
# ptxas.sh RR k d s : registers/spills of each entry
RR=$1; k=$2; d=$3; s=$4
t=$(mktemp -d)
$RR emit --kernel $k --dtype $d --shape $s --backend cuda --arch sm_90 > $t/k.cu 2>/dev/null
nvcc -cubin -arch sm_90 -std=c++17 -Xptxas -v -o $t/k.cubin $t/k.cu 2>&1 | grep -E "Compiling entry|registers|spill" | paste - - - | sed -E 's/ptxas info    : //g; s/Compiling entry function //; s/for .sm_90.//' | awk '{printf "%s ", $0; print ""}' | sed -E 's/Function properties for [^ ]+//; s/  +/ /g'
rm -rf $t
