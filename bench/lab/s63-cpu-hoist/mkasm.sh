#!/bin/sh
# mkasm.sh ROWREDUCE TAG: every kernel's emitted source (src/K-T-S-TAG.c) for the record's
# shapes and the assembly (asm/, the backend's flags of src/backend/cpu.c, -S).
RR=$1; TAG=$2
mkdir -p src asm
for k in rmsnorm layernorm add_layernorm softmax cross_entropy sum; do for t in f32 bf16; do
for s in 64x4096 1024x1024 1024x4096 4096x4096 16384x1024 256x65536 1000x1000 512x8192; do
	b=$k-$t-$s-$TAG
	$RR emit --backend cpu --kernel $k --shape $s --dtype $t > src/$b.c || echo FAIL $b
	gcc -O3 -march=native -ffp-contract=off -fno-math-errno -fPIC -std=c11 -S -o asm/$b.s \
		src/$b.c &
done; wait; done; done
