#!/bin/bash
# ab.sh A.so B.so KERNEL DTYPE M N STREAM [PAIRS]: session 32's ab.sh (../s32-cpu/ab.sh) with the
# driver ../s31-cpu/lab_ab.c built at $LAB (default /tmp/s33b/lab_ab: cc -O2 -o $LAB
# ../s31-cpu/lab_ab.c -ldl -lpthread -lm). Two threads, A B B A, huge pages, rows 16 bytes in.
P=${8:-10}
LAB=${LAB:-/tmp/s33b/lab_ab}
echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $1 vs $2 $3 $4 $5x$6 stream $7"
LAB_SCRATCH_PAGES=1 LAB_HUGE=${LAB_HUGE:-1} LAB_OFFSET=${LAB_OFFSET:-16} LAB_PAIRED=1 $LAB $1 $2 $3 $4 $5 $6 $P 3 ${LAB_THREADS:-2} $7 | tail -3
