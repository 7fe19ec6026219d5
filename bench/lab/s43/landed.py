"""Which rows of an A/B table (tools/gpu/ab.py) the landed planner still moves to the same plan:
python3 landed.py ROWREDUCE TABLE.md. Prints counts, the geomean of their ratios, and the rows
the landed rules no longer move."""
import math
import os
import subprocess
import sys

rr, table = sys.argv[1:3]
landed, dropped = [], []
for line in open(table):
    c = [x.strip() for x in line.split('|')]
    if len(c) < 9 or '→' not in c[4] or c[1] == 'kernel':
        continue
    k, dt, sh, plans = c[1], c[2], c[3], c[4]
    new = plans.split('→')[1].strip()
    env = dict(os.environ, RR_PLAN_TRACE='1')
    out = subprocess.run([rr, 'emit', '--kernel', k, '--dtype', dt, '--shape', sh, '--backend', 'cuda',
                          '--arch', 'sm_90'], capture_output=True, text=True, env=env).stderr
    pick = [l.split()[2] for l in out.splitlines() if l.startswith('*')][0]
    ratio = float(c[7].split()[0])
    (landed if pick == new else dropped).append((k, dt, sh, ratio, pick))


def gm(x):
    return math.exp(sum(math.log(v) for v in x) / len(x)) if x else float('nan')


for name, rows in (('moved as measured', landed), ('not moved (or elsewhere)', dropped)):
    r = [x[3] for x in rows]
    print('%s: %d rows, faster %d, slower %d, geomean %.3f, range %.3f-%.3f' % (
        name, len(rows), sum(v < 0.995 for v in r), sum(v > 1.005 for v in r), gm(r),
        min(r, default=0), max(r, default=0)))
    for x in rows:
        if x[3] > 1.005 or name.startswith('not'):
            print('   %s %s %s %.3f (now %s)' % x)
