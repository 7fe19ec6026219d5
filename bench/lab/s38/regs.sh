#!/bin/bash
# Registers of each entry (ptxas -v, sm_90) and the blocks an SM that registers, threads and
# shared memory allow, for "kernel:dtype:MxN:plan" specs on stdin (plan auto = the planner's).
# Usage: regs.sh ROWREDUCE < specs
RR=$1
t=$(mktemp -d)
while read -r spec; do
	case $spec in \#* | "") continue ;; esac
	IFS=: read -r k d s plan <<<"$spec"
	args=(emit --kernel $k --dtype $d --shape $s --backend cuda --arch sm_90)
	[ "$plan" = auto ] || args+=(--layout "$plan")
	$RR "${args[@]}" >$t/k.cu 2>$t/err || { echo "$spec: $(head -1 $t/err)"; continue; }
	plan=$(grep -m1 -o 'plan     [^ ]*' $t/k.cu | cut -c10-)
	W=$(grep -m1 -oE 'constexpr int W = [0-9]+' $t/k.cu | grep -oE '[0-9]+$')
	R=$(grep -m1 -oE 'constexpr int R = [0-9]+' $t/k.cu | grep -oE '[0-9]+$')
	mb=$(grep -m1 -oE 'constexpr int MIN_BLOCKS = [0-9]+' $t/k.cu | grep -oE '[0-9]+$')
	smem=$(grep -m1 -oE '/\* [0-9]+ bytes at launch' $t/k.cu | grep -oE '[0-9]+' || echo 0)
	nvcc -cubin -arch sm_90 -std=c++17 -Xptxas -v -o $t/k.cubin $t/k.cu >$t/log 2>&1 || { echo "$spec: nvcc failed"; continue; }
	python3 - "$k" "$d" "$s" "$plan" "$((W * R))" "${smem:-0}" "$mb" $t/log <<'PY'
import re, sys
k, d, s, plan, threads, smem, mb, log = sys.argv[1:9]
threads, smem = int(threads), int(smem)
text = open(log).read()
out = []
for m in re.finditer(r"Compiling entry function '(\w+)'.*?Used (\d+) registers.*?(\d+) bytes smem", text, re.S):
    name, regs, static = m.group(1), int(m.group(2)), int(m.group(3))
    kind = name.rsplit('_', 1)[1]
    if kind == 'scalar':
        continue
    warps = (threads + 31) // 32
    per_warp = ((regs * 32 + 255) // 256) * 256
    by_regs = 65536 // (per_warp * warps)
    by_smem = (228 * 1024) // (smem + static + 1024)
    out.append(f"{kind} {regs}r/{by_regs}b")
print(f"{k} {d} {s} {plan} MIN_BLOCKS={mb} smem={smem} by_smem={(228*1024)//(smem+1024)} by_threads={2048//threads} :: " + " ".join(out))
PY
done
