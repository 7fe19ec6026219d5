#!/bin/bash
# ab.sh A.so B.so KERNEL DTYPE M N STREAM [PAIRS]: paired lab, huge pages, rows 16 bytes in (NumPy),
# each thread's scratch on pages of its own (../s31-cpu/lab_ab.c, built there); LAB_BIN: the driver built elsewhere
P=${8:-10}
echo "$(date +%T) load $(cut -d' ' -f1 /proc/loadavg) $1 vs $2 $3 $4 $5x$6 stream $7"
LAB_SCRATCH_PAGES=1 LAB_HUGE=${LAB_HUGE:-1} LAB_OFFSET=${LAB_OFFSET:-16} LAB_PAIRED=1 ${LAB_BIN:-"$(dirname "$0")"/../s31-cpu/lab_ab} $1 $2 $3 $4 $5 $6 $P 3 ${LAB_THREADS:-2} $7 | tail -3
