import json,sys,statistics as st
r=json.load(open(sys.argv[1]))['rows'][0]
e=r['phases']['e2e']
print(r['state'], (r.get('error') or '')[:80], round(st.median(e['samples_us']),1) if e.get('samples_us') else '-')
