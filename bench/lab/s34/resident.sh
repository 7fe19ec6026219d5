#!/bin/bash
# Which picks lose resident blocks to registers, offline (no GPU): for "kernel dtype shape" lines
# on stdin, the pick's vec (or head) entry registers from nvcc -Xptxas -v, and the blocks an SM
# that registers, threads and shared memory each allow (sm_90: 64K registers in warps of 256-
# register units, 2048 threads, 228 KB of shared memory with 1 KB reserved a block).
# Usage: resident.sh ROWREDUCE < list > table
RR=$1
t=$(mktemp -d)
while read -r k d s rest; do
	[ -z "$s" ] && continue
	case $k in \#*) continue ;; esac
	$RR emit --kernel $k --dtype $d --shape $s --backend cuda --arch sm_90 >$t/k.cu 2>/dev/null || continue
	plan=$(grep -m1 -o 'plan     [^ ]*' $t/k.cu | cut -c10-)
	threads=$(grep -m1 -oE 'constexpr int THREADS = [^;]*' $t/k.cu)
	W=$(grep -m1 -oE 'constexpr int W = [0-9]+' $t/k.cu | grep -oE '[0-9]+$')
	R=$(grep -m1 -oE 'constexpr int R = [0-9]+' $t/k.cu | grep -oE '[0-9]+$')
	smem=$(grep -m1 -oE '/\* [0-9]+ bytes at launch' $t/k.cu | grep -oE '[0-9]+' || echo 0)
	nvcc -cubin -arch sm_90 -std=c++17 -Xptxas -v -o $t/k.cubin $t/k.cu >$t/log 2>&1 || continue
	python3 - "$k" "$d" "$s" "$plan" "$((W * R))" "${smem:-0}" $t/log <<'PY'
import re, sys
k, d, s, plan, threads, smem, log = sys.argv[1:8]
threads, smem = int(threads), int(smem)
text = open(log).read()
entries = {}
for m in re.finditer(r"Compiling entry function '(\w+)'.*?Used (\d+) registers.*?(\d+) bytes smem", text, re.S):
    entries[m.group(1)] = (int(m.group(2)), int(m.group(3)))
for name in sorted(entries):
    kind = name.rsplit('_', 1)[1]
    if kind == 'scalar':
        continue
    regs, static = entries[name]
    warps = (threads + 31) // 32
    per_warp = ((regs * 32 + 255) // 256) * 256
    by_regs = 65536 // (per_warp * warps) if per_warp else 32
    by_threads = 2048 // threads
    by_smem = (228 * 1024) // (smem + static + 1024)
    at64 = 65536 // (64 * 32 * warps)
    fit = min(by_threads, by_smem, 32)
    flag = 'LOST' if by_regs < fit and by_regs < min(fit, at64) else ''
    print(f"{k} {d} {s} {plan} {kind} regs={regs} blocks: regs {by_regs} threads {by_threads} smem {by_smem} {flag}")
PY
done
rm -rf $t
