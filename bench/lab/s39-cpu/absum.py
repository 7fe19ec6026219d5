import collections,statistics as s,sys
d=collections.defaultdict(lambda:{'A':[],'B':[]})
for l in open(sys.argv[1]):
    f=l.split()
    if len(f)==5:
        try: d[tuple(f[1:4])][f[0]].append(float(f[4]))
        except: pass
for k,v in sorted(d.items()):
    a,b=s.median(v['A']),s.median(v['B'])
    print(*k, a, b, '%.3f'%(b/a), 'B faster in %d/%d'%(sum(1 for x,y in zip(v['A'],v['B']) if y<x), len(v['A'])))
