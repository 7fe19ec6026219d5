"""Lab tool (session 62): the innermost loops of a gcc -S listing (a label and a later
backward jump to it, no other label between them that is jumped to from below), with their
instruction count and the instructions by mnemonic. Usage: loops.py FILE.s [FUNCTION]"""
import collections
import re
import sys

lines = open(sys.argv[1]).read().split('\n')
func = sys.argv[2] if len(sys.argv) > 2 else None
if func:
    a = next(i for i, l in enumerate(lines) if l.startswith(func + ':'))
    b = next(i for i in range(a, len(lines)) if lines[i].strip().startswith('.size\t' + func))
    lines = lines[a:b]
labels = {}
for i, l in enumerate(lines):
    m = re.match(r'^(\.L\w+):', l)
    if m:
        labels[m.group(1)] = i
for i, l in enumerate(lines):
    m = re.match(r'^\s+(j\w+)\s+(\.L\w+)', l)
    if not m or m.group(2) not in labels or labels[m.group(2)] >= i:
        continue
    start = labels[m.group(2)]
    body = [x.strip() for x in lines[start + 1:i + 1]
            if x.startswith('\t') and not x.strip().startswith('.')]
    if len(body) > 120:
        continue
    ops = collections.Counter(x.split()[0] for x in body)
    print(f'loop {m.group(2)} (lines {start}-{i}): {len(body)} instructions')
    print('   ', ', '.join(f'{k} {v}' for k, v in sorted(ops.items(), key=lambda kv: -kv[1])))
