#!/bin/bash
# ab.sh A.so B.so KERNEL DTYPE M N STREAM [PAIRS]: session 32's paired lab (../s32-cpu/ab.sh) with the
# driver built from ../s31-cpu/lab_ab.c at $LAB (default /tmp/s34/lab_ab):
#   cc -O2 -o /tmp/s34/lab_ab ../s31-cpu/lab_ab.c -ldl -lpthread -lm
# Two threads, A B B A over 3 rounds, rows 16 bytes in on huge pages (NumPy's placement) unless
# LAB_HUGE / LAB_OFFSET say otherwise; each thread's scratch on pages of its own.
P=${8:-10}
echo "$(date +%T) load $(cut -d' ' -f1 /proc/loadavg) $1 vs $2 $3 $4 $5x$6 stream $7 huge ${LAB_HUGE:-1} offset ${LAB_OFFSET:-16}"
LAB_SCRATCH_PAGES=1 LAB_HUGE=${LAB_HUGE:-1} LAB_OFFSET=${LAB_OFFSET:-16} LAB_PAIRED=1 "${LAB:-/tmp/s34/lab_ab}" $1 $2 $3 $4 $5 $6 $P 3 ${LAB_THREADS:-2} $7 | tail -3
