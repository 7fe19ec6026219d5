#!/usr/bin/env bash
# Second round of plan sweeps (bench/NOTES.md, "after the first recorded run"): the shapes
# where the recorded large-suite run lost to torch.compile or Liger. Usage: sweeps2.sh ROWREDUCE OUTDIR
set -u
rr=$1; out=$2; here=$(dirname "$0")
s() { python3 "$here/sweep.py" "$rr" "$out" "$@"; }
s layernorm f32 16384x4096 auto W=256,V=4,U=1,R=1,C=1,S=regs,G=rows W=512,V=4,U=1,R=1,C=1,S=regs,G=rows \
	W=1024,V=4,U=1,R=1,C=1,S=regs,G=rows W=128,V=4,U=1,R=1,C=1,S=regs,G=rows W=256,V=4,U=1,R=1,C=1,S=reread,G=rows
s rmsnorm f32 4096x32768 auto W=1024,V=4,U=2,R=1,C=1,S=regs,G=rows W=1024,V=4,U=4,R=1,C=1,S=smem,G=rows \
	W=512,V=4,U=4,R=1,C=2,S=cluster,G=rows W=1024,V=4,U=4,R=1,C=1,S=reread,G=rows
s softmax f32 4096x32768 auto W=1024,V=4,U=4,R=1,C=1,S=regs,G=rows W=1024,V=4,U=4,R=1,C=1,S=smem,G=rows
s layernorm f32 1024x131072 auto W=512,V=4,U=4,R=1,C=4,S=cluster,G=persistent W=512,V=4,U=4,R=1,C=4,S=cluster,G=rows \
	W=256,V=4,U=4,R=1,C=8,S=cluster,G=rows
s add_layernorm f32 16384x4096 auto W=256,V=4,U=1,R=1,C=1,S=regs,G=rows W=512,V=4,U=1,R=1,C=1,S=regs,G=rows \
	W=1024,V=4,U=1,R=1,C=1,S=regs,G=rows
s rmsnorm bf16 65536x128 auto W=16,V=8,U=1,R=8,C=1,S=regs,G=rows W=16,V=8,U=1,R=16,C=1,S=regs,G=rows \
	W=8,V=16,U=1,R=16,C=1,S=regs,G=rows W=32,V=4,U=1,R=8,C=1,S=regs,G=rows
s layernorm f32 17x257 auto W=32,V=4,U=1,R=1,C=1,S=regs,G=rows W=64,V=4,U=1,R=1,C=1,S=regs,G=rows W=32,V=1,U=1,R=1,C=1,S=regs,G=rows
