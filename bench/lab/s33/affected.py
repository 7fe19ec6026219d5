# Which "kernel dtype shape" lines (stdin) get the aligned body unrolled (c4afaab), with the plan and FULL: python3 affected.py ROWREDUCE < list
import re,subprocess,sys
rr=sys.argv[1]
for line in sys.stdin:
    f=line.split()
    if len(f)<3: continue
    k,d,s=f[:3]
    src=subprocess.run([rr,'emit','--kernel',k,'--dtype',d,'--shape',s,'--backend','cuda','--arch','sm_90'],capture_output=True,text=True).stdout
    if '#pragma unroll (FULL / UL <= 4 && FULL < 16' not in src: continue
    g=lambda n: int(re.search(r'constexpr int %s = (\d+);'%n,src).group(1))
    W,V,U,N=g('W'),g('V'),g('U'),g('N')
    lens=[int(x) for x in re.findall(r'rr_row<VEC, HEADED, (\d+)>',src)]
    if 'rr_row<VEC, HEADED, SEG>' in src: lens.append(g('SEG'))
    if 'rr_row<VEC, HEADED, N>' in src: lens.append(N)
    hit=[L for L in lens if U < L//(W*V) and (L//(W*V))//U <= 4 and L//(W*V) < 16]
    if hit:
        plan=re.search(r'plan     (\S+)',src).group(1)
        print(k,d,s,plan,'FULL=%s'%[L//(W*V) for L in hit])
