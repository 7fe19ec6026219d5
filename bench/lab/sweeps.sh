#!/usr/bin/env bash
# The plan sweeps of bench/NOTES.md: shapes where the planner's first choice lost, each under a
# handful of alternative plans. Usage: sweeps.sh ROWREDUCE OUTDIR
set -u
rr=$1; out=$2; here=$(dirname "$0")
s() { python3 "$here/sweep.py" "$rr" "$out" "$@"; }
s layernorm f32 1024x131072 auto W=1024,V=4,U=4,R=1,C=8,S=cluster,G=rows W=512,V=4,U=4,R=1,C=8,S=cluster,G=rows \
	W=512,V=4,U=2,R=1,C=4,S=cluster,G=rows W=1024,V=4,U=4,R=1,C=4,S=cluster,G=rows \
	W=1024,V=4,U=4,R=1,C=1,S=reread,G=rows W=512,V=4,U=4,R=1,C=2,S=reread,G=rows W=256,V=4,U=2,R=1,C=8,S=cluster,G=rows
s softmax f32 1024x131072 auto W=1024,V=4,U=4,R=1,C=8,S=cluster,G=rows W=512,V=4,U=2,R=1,C=8,S=cluster,G=rows \
	W=1024,V=4,U=4,R=1,C=4,S=cluster,G=rows W=512,V=4,U=4,R=1,C=4,S=cluster,G=rows
s add_layernorm bf16 1024x131072 auto W=1024,V=8,U=2,R=1,C=8,S=cluster,G=rows W=512,V=8,U=2,R=1,C=8,S=cluster,G=rows \
	W=1024,V=8,U=2,R=1,C=4,S=cluster,G=rows
s add_layernorm f32 4096x32768 auto W=512,V=4,U=4,R=1,C=2,S=cluster,G=rows W=1024,V=4,U=2,R=1,C=1,S=smem,G=rows \
	W=1024,V=4,U=2,R=1,C=2,S=cluster,G=rows W=512,V=4,U=4,R=1,C=1,S=reread,G=rows W=256,V=4,U=2,R=1,C=4,S=cluster,G=rows
s softmax bf16 16384x4096 auto W=256,V=8,U=1,R=1,C=1,S=regs,G=rows W=512,V=8,U=1,R=1,C=1,S=regs,G=rows \
	W=128,V=8,U=1,R=1,C=1,S=regs,G=rows W=64,V=8,U=1,R=2,C=1,S=regs,G=rows
s cross_entropy bf16 32768x1024 auto W=128,V=8,U=1,R=1,C=1,S=regs,G=rows W=64,V=16,U=1,R=2,C=1,S=regs,G=rows \
	W=32,V=8,U=4,R=4,C=1,S=regs,G=rows W=128,V=8,U=1,R=2,C=1,S=regs,G=rows
s sum bf16 65536x128 auto W=16,V=8,U=1,R=16,C=1,S=regs,G=rows W=8,V=16,U=1,R=32,C=1,S=regs,G=rows W=4,V=8,U=4,R=64,C=1,S=regs,G=rows
