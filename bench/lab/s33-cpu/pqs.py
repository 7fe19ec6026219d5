#!/usr/bin/env python3
"""Probe (session 33): softmax bf16's split (W = 16) in pair order: the sum pass loads x through
rr_load_bf16_paired (its accumulators then hold workers 0-3, 8-11 and 4-7, 12-15: each worker
still adds its elements in order), the cache is written in that order, the accumulators are put
back in worker order before the guarded chunk and the tree, and the output phase's runs store
through rr_store_bf16_run_paired. Valid where the output phase has no odd chunk (chunks even).
usage: pqs.py IN.c OUT.c CPU_VEC_H (IN: `rowreduce emit --kernel softmax --dtype bf16`)"""
import sys
s = open(sys.argv[1]).read()
dev = open(sys.argv[3]).read()
sec = dev[dev.index('//@ paired_bf16\n') + len('//@ paired_bf16\n'):dev.index('//@ end')]
k = s.index('/* The L workers\' element e of one chunk')
s = s[:k] + sec + s[k:]
# the sum passes (both branches of ranged): their chunk loops up to the guarded chunk
out = []
pos = 0
while True:
    a = s.find('vf acc4[BLOCKS]; /* sum */', pos)
    if a < 0:
        break
    g = s.index('if (chunks * W * V < N - h) {', a)
    seg = s[a:g]
    n = seg.count('load_lanes(in0, i); /* x */')
    assert n == 2, n
    seg = seg.replace('load_lanes(in0, i); /* x */', 'rr_load_bf16_paired(in0, i, b & 1); /* x */')
    indent = '\t\t\t\t\t'
    seg = seg + ('{ /* back in worker order */\n' + indent + 'const vf p0 = acc4[0], p1 = acc4[1];\n' + indent +
                 'acc4[0] = (vf)_mm256_permute2f128_ps((__m256)p0, (__m256)p1, 0x20);\n' + indent +
                 'acc4[1] = (vf)_mm256_permute2f128_ps((__m256)p0, (__m256)p1, 0x31);\n' + indent + '}\n' + indent)
    s = s[:a] + seg + s[g:]
    pos = a + len(seg) + 10
o = s.index('if (N <= SPLIT_MAX_N) { /* e3 from the cache */')
e = s.index('} else {', o)
seg = s[o:e]
assert seg.count('rr_store_bf16_run(out0') == 1
seg = seg.replace('rr_store_bf16_run(out0', 'rr_store_bf16_run_paired(out0')
s = s[:o] + seg + s[e:]
open(sys.argv[2], 'w').write(s)
