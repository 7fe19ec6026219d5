#!/usr/bin/env python3
"""inv.py FILE.s...: innermost loops (a label and the last jump back to it, no other loop
inside, up to 200 lines) with vector work, and what in them may be loop-invariant work:
imul, div, cmov, set*, calls, loads of the stack (spilled values reloaded a chunk)."""
import re, sys
for path in sys.argv[1:]:
    L = open(path).read().splitlines()
    lab = {m.group(1): i for i, l in enumerate(L) if (m := re.match(r'^(\.L\w+):', l))}
    loops = []
    for j, l in enumerate(L):
        m = re.match(r'^\s+j\w+\s+(\.L\w+)', l)
        if m and m.group(1) in lab and lab[m.group(1)] < j and j - lab[m.group(1)] < 200:
            loops.append((lab[m.group(1)], j))
    inner = [a for a in loops if not any(b != a and a[0] <= b[0] and b[1] <= a[1] for b in loops)]
    for a, b in sorted(set(inner)):
        body = [x.strip() for x in L[a:b + 1] if x.startswith('\t') and not x.startswith('\t.')]
        if not any(x.startswith('v') for x in body):
            continue
        sus = [x for x in body if re.match(r'(imul|idiv|div|cmov|set|call)', x) or
               re.search(r'\(%rsp\)|\(%rbp\)', x) and x.startswith('mov')]
        if sus:
            print(f'{path}:{a + 1}-{b + 1} {len(body)} ins: ' + '; '.join(sus[:6]))
