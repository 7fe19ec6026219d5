#!/bin/bash
# pv.sh SHAPE [offset]: softmax f32, the new emitter's source piped vs PIPED 0
sh=$1; M=${sh%x*}; N=${sh#*x}
${RR:-build/rowreduce} emit --kernel ${K:-softmax} --dtype ${D:-f32} --shape $sh > ${LAB:-/tmp/lab}/pv_$sh.c
sed 's/^#define PIPED 1$/#define PIPED 0/' ${LAB:-/tmp/lab}/pv_$sh.c > ${LAB:-/tmp/lab}/pv0_$sh.c
for f in pv pv0; do cc -O3 -march=native -ffp-contract=off -fno-math-errno -fPIC -shared -std=c11 -o ${LAB:-/tmp/lab}/${f}_$sh.so ${LAB:-/tmp/lab}/${f}_$sh.c -lm; done
for o in ${2:-0 16}; do echo -n "$sh off $o: "; $(dirname "$0")/abr.sh ${LAB:-/tmp/lab}/pv0_$sh.so ${LAB:-/tmp/lab}/pv_$sh.so ${K:-softmax} ${D:-f32} $M $N $o ${R:-8}; done
