#!/usr/bin/env python3
"""Probe (session 32): a 16-bit kernel's col inputs converted to f32 once per call of
rr_cpu_kernel (a VLA on its stack), the complete chunks reading them as f32 (no widening
shuffle a vector). Same values, so the same output bits.  usage: colf.py IN.c OUT.c"""
import re, sys
src = open(sys.argv[1]).read()
cols = re.findall(r'const io_t \*in(\d+) = \(const io_t \*\)inputs\[\d+\]; /\* (\w+): col \*/', src)
assert cols, 'no col input'
params = ''.join(f', const float *colf{k}' for k, _ in cols)
args = ''.join(f', colf{k}' for k, _ in cols)
old_sig = 'void *const *outputs, float *scratch, int stream)\n{\n\t(void)params;'
assert src.count(old_sig) == 1
src = src.replace(old_sig, old_sig.replace('int stream)', 'int stream' + params + ')'))
for k, _ in cols:
    src, n = re.subn(rf'load_lanes\(in{k}, i\)', f'load_kept(colf{k}, i)', src)
    assert n > 0
src = src.replace('one_row(row, N, inputs, params, outputs, scratch, stream);',
                  'one_row(row, N, inputs, params, outputs, scratch, stream' + args + ');')
conv = ''.join(f'\tfloat colf{k}[N];\n\tfor (int64_t k = 0; k < N; k++)\n\t\tcolf{k}[k] = load_io((const io_t *)inputs[{k}], k);\n' for k, _ in cols)
marker = "\t/* groups of R rows; the grouping never changes a row's arithmetic */"
assert src.count(marker) == 1
src = src.replace(marker, conv + marker)
open(sys.argv[2], 'w').write(src)
