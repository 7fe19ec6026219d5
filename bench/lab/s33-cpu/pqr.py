#!/usr/bin/env python3
"""Probe (session 33): layernorm bf16 with x kept (S=regs, W = 32) in pair order: round 1 loads x
through rr_load_bf16_paired and keeps it in that order, rounds 1 and 2 put their accumulators
back in worker order (vperm2f128 per pair of blocks) before the guarded chunk, the widened cols
are in pair order and the output runs store through rr_store_bf16_run_paired. Valid where
neither phase has an odd chunk (N a multiple of 2 W).
usage: pqr.py IN.c OUT.c CPU_VEC_H (IN: `rowreduce emit --kernel layernorm --dtype bf16`, S=regs)"""
import sys
s = open(sys.argv[1]).read()
dev = open(sys.argv[3]).read()
sec = dev[dev.index('//@ paired_bf16\n') + len('//@ paired_bf16\n'):dev.index('//@ end')]
k = s.index('/* The L workers\' element e of one chunk')
s = s[:k] + sec + s[k:]
def unpermute(acc):
    t = '\t\t'
    return ('{ /* back in worker order */\n' + ''.join(
        t + '\tconst vf p%d = %s[%d], q%d = %s[%d];\n' % (j, acc, 2 * j, j, acc, 2 * j + 1) +
        t + '\t%s[%d] = (vf)_mm256_permute2f128_ps((__m256)p%d, (__m256)q%d, 0x20);\n' % (acc, 2 * j, j, j) +
        t + '\t%s[%d] = (vf)_mm256_permute2f128_ps((__m256)p%d, (__m256)q%d, 0x31);\n' % (acc, 2 * j + 1, j, j)
        for j in range(2)) + t + '}\n' + t)
r1 = s.index('/* round 1: each worker')
g1 = s.index('if (chunks * W * V < N - h) {', r1)
seg = s[r1:g1]
assert seg.count('load_lanes(in0, i); /* x */') == 2
seg = seg.replace('load_lanes(in0, i); /* x */', 'rr_load_bf16_paired(in0, i, b & 1); /* x */')
s = s[:r1] + seg + unpermute('acc4') + s[g1:]
r2 = s.index('/* round 2: each worker')
g2 = s.index('if (chunks * W * V < N - h) {', r2)
s = s[:g2] + unpermute('acc9') + s[g2:]
o = s.index('/* output phase')
seg = s[o:]
assert seg.count('rr_store_bf16_run(out0') == 2
seg = seg.replace('rr_store_bf16_run(out0', 'rr_store_bf16_run_paired(out0')
seg = seg.replace('\twiden_col(', '\trr_widen_col_paired(')
s = s[:o] + seg
open(sys.argv[2], 'w').write(s)
