#!/usr/bin/env python3
"""The model's predicted base/new cost ratio (RR_PLAN_TRACE=1, each plan fixed by --layout, sm_90)
beside the measured one, for the rows of moved-*.md tables; RR_X_TRIPS=1 is a lab build's switch
(session 66: S=grid segments priced by load_trips beyond grid_one_wave; absent from main, where
it changes nothing). usage: RR=path/to/rowreduce predicted.py MOVED_MD..."""
import re,sys,math,os,subprocess
RR = os.environ.get('RR', 'build/rowreduce')
def cost(k,dt,shape,plan,trips):
    env=dict(os.environ,RR_PLAN_TRACE='1')
    if trips: env['RR_X_TRIPS']='1'
    out=subprocess.run([RR,'emit','--backend','cuda','--kernel',k,'--shape',shape,'--dtype',dt,'--arch','sm_90','--layout',plan],capture_output=True,text=True,env=env).stderr
    m=re.search(r'^\*\s+([\d.]+)',out,re.M)
    return float(m.group(1))
xs=[];ys0=[];ys1=[]
for f in sys.argv[1:]:
    for line in open(f):
        if not line.startswith('| ') or 'kernel' in line or '---' in line: continue
        c=[x.strip() for x in line.strip().strip('|').split('|')]
        k,dt,shape,bp,bt,np_,nt,r=c[:8]
        r=float(r)
        p0=cost(k,dt,shape,bp,0)/cost(k,dt,shape,np_,0)
        p1=cost(k,dt,shape,bp,1)/cost(k,dt,shape,np_,1)
        xs.append(math.log(r));ys0.append(math.log(p0));ys1.append(math.log(p1))
        print(f"{k:13s} {dt:4s} {shape:10s} meas {r:.3f} model {p0:.3f} trips {p1:.3f}")
def corr(a,b):
    n=len(a);ma=sum(a)/n;mb=sum(b)/n
    return sum((x-ma)*(y-mb) for x,y in zip(a,b))/math.sqrt(sum((x-ma)**2 for x in a)*sum((y-mb)**2 for y in b))
def sign_agree(a,b): return sum((x>0.01)==(y>0) for x,y in zip(a,b) if abs(x)>0.01)
print("corr model",corr(xs,ys0),"trips",corr(xs,ys1))
print("sign agree (|meas|>1%)",sign_agree(xs,ys0),sign_agree(xs,ys1),"of",sum(abs(x)>0.01 for x in xs))
