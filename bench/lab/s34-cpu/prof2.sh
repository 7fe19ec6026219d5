#!/bin/bash
# prof2.sh SO KERNEL DTYPE M N STREAM REPS: perf samples (cpu-clock, 20 kHz) of one build on both
# sides of the paired lab, into $PERF_OUT (default /tmp/s34/perf.data); then
#   python3 phases.py $PERF_OUT SO SOURCE.c
# Compile SO from the emitted source with -g added to cc.sh's flags (the same code).
so=$1; shift
LAB_SCRATCH_PAGES=1 LAB_HUGE=1 LAB_OFFSET=16 LAB_PAIRED=1 perf record -q -e cpu-clock -F 20000 -o ${PERF_OUT:-/tmp/s34/perf.data} "${LAB:-/tmp/s34/lab_ab}" $so $so $1 $2 $3 $4 $6 3 2 $5 2>&1 | grep median
