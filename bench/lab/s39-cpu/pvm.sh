#!/bin/bash
# pvm.sh SHAPE MIN: piped with PIPED_MIN_N = MIN vs PIPED 0
sh=$1; M=${sh%x*}; N=${sh#*x}
${RR:-build/rowreduce} emit --kernel ${K:-softmax} --dtype ${D:-f32} --shape $sh | sed "s/^#define PIPED_MIN_N [0-9]*/#define PIPED_MIN_N $2/" > ${LAB:-/tmp/lab}/pm_$sh.c
sed 's/^#define PIPED 1$/#define PIPED 0/' ${LAB:-/tmp/lab}/pm_$sh.c > ${LAB:-/tmp/lab}/pm0_$sh.c
for f in pm pm0; do cc -O3 -march=native -ffp-contract=off -fno-math-errno -fPIC -shared -std=c11 -o ${LAB:-/tmp/lab}/${f}_$sh.so ${LAB:-/tmp/lab}/${f}_$sh.c -lm; done
for o in ${3:-0 16}; do echo -n "$sh min $2 off $o: "; $(dirname "$0")/abr.sh ${LAB:-/tmp/lab}/pm0_$sh.so ${LAB:-/tmp/lab}/pm_$sh.so ${K:-softmax} ${D:-f32} $M $N $o ${R:-8}; done
