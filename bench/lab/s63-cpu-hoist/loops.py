#!/usr/bin/env python3
"""loops.py FILE.s...: for every compare of a row-size constant ($8191, $16384, $16383) and
every prefetch, the shortest cycle of the control-flow graph through its block (instructions
on it, prefetches on it, the row-size compares on it): a short cycle with a compare is a
loop-invariant test left in a hot loop."""
import heapq, re, sys

CONST = re.compile(r'\$(8191|16384|16383|8192)\b')
JMP = re.compile(r'^\s+(j[a-z]+)\s+(\.L\w+)')

def blocks(lines):
    bl, cur, label = [], [], None
    def flush(nxt_label=None):
        nonlocal cur, label
        if cur or label:
            bl.append({'label': label, 'ins': cur})
        cur, label = [], nxt_label
    for ln in lines:
        m = re.match(r'^(\.L\w+):', ln)
        if m:
            flush(m.group(1)); continue
        if ln.startswith('\t.') or not ln.startswith('\t'):
            if re.match(r'^\w+:', ln):
                flush(None)
            continue
        cur.append(ln.strip())
        if JMP.match(ln) or ln.strip().startswith('ret'):
            flush(None)
    flush()
    return bl

def analyse(path):
    bl = blocks(open(path).read().splitlines())
    at = {b['label']: i for i, b in enumerate(bl) if b['label']}
    succ = []
    for i, b in enumerate(bl):
        s = []
        last = b['ins'][-1] if b['ins'] else ''
        m = re.match(r'(j[a-z]+)\s+(\.L\w+)', last)
        if m and m.group(2) in at:
            s.append(at[m.group(2)])
        if not (last.startswith('jmp') or last.startswith('ret')) and i + 1 < len(bl):
            s.append(i + 1)
        succ.append(s)
    w = [max(1, len(b['ins'])) for b in bl]
    out = []
    for i, b in enumerate(bl):
        txt = ' '.join(b['ins'])
        if not (CONST.search(txt) or 'prefetch' in txt):
            continue
        # shortest cycle through i (Dijkstra from i's successors back to i)
        dist, prev, pq = {}, {}, [(w[i], i, s) for s in succ[i]]
        heapq.heapify(pq)
        best = None
        while pq:
            d, p, n = heapq.heappop(pq)
            if n in dist:
                continue
            dist[n], prev[n] = d, p
            if n == i:
                best = d; break
            for s in succ[n]:
                if s not in dist:
                    heapq.heappush(pq, (d + w[n], n, s))
        if best is None:
            continue
        cyc, n = [], prev[i]
        while n != i:
            cyc.append(n); n = prev[n]
        cyc.append(i)
        ctext = ' '.join(' '.join(bl[c]['ins']) for c in cyc)
        out.append((best, ctext.count('prefetch'), len(CONST.findall(ctext)),
                    str(bl[i]['label']), 'cmp' if CONST.search(txt) else 'pf'))
    seen = set()
    for o in sorted(out):
        if o[2] and o not in seen and o[0] < 400:
            seen.add(o)
            print(f'{path}: cycle {o[0]} ins, {o[1]} prefetch, {o[2]} row-size cmp, via {o[3]} ({o[4]})')

for p in sys.argv[1:]:
    analyse(p)
