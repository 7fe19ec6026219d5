import re,collections,sys
import statistics as st
rows=collections.defaultdict(dict)
for l in open(sys.argv[1]):
    m=re.match(r'(\d+)-([AB])\s+(\S+)\s+(\S+)\s+(\S+)\s+rr\s+([\d.]+)\s+ratio\s+([\d.]+)',l)
    if m:
        rows[(m.group(3),m.group(4),m.group(5))][int(m.group(1))]=(m.group(2),float(m.group(6)))
print("| kernel | dtype | shape | A µs | B µs | B/A of means | per round (B/A) | rounds B faster |")
print("|---|---|---|---|---|---:|---|---:|")
for k,v in sorted(rows.items()):
    n=max(v); calls=[v[i] for i in sorted(v)]
    a=[t for s,t in calls if s=='A']; b=[t for s,t in calls if s=='B']
    pr=[]
    for r in range(len(calls)//2):
        x,y=calls[2*r],calls[2*r+1]
        A=x[1] if x[0]=='A' else y[1]; B=y[1] if y[0]=='B' else x[1]
        pr.append(B/A)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {' '.join('%.0f'%x for x in a)} | {' '.join('%.0f'%x for x in b)} | {st.mean(b)/st.mean(a):.3f} | {' '.join('%.2f'%x for x in pr)} | {sum(p<1 for p in pr)} of {len(pr)} |")
