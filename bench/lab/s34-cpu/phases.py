#!/usr/bin/env python3
"""phases.py PERF_DATA SO SRC: the samples of one_row (perf record -e cpu-clock of the lab) summed
by the emitted source's phase. Each sampled address is put to the line of one_row it was inlined
into (addr2line -i, the outermost frame); the phases open at the source's lines that begin
a round, a pass (its accumulators), a tree or the output phase."""
import collections, subprocess, sys

data, so, src = sys.argv[1:4]
out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,symoff,dso"],
                     capture_output=True, text=True).stdout
nm = subprocess.run(["nm", so], capture_output=True, text=True).stdout
base = {l.split()[2]: int(l.split()[0], 16) for l in nm.splitlines() if len(l.split()) == 3}
ips = collections.Counter()
total = 0
for line in out.splitlines():
    parts = line.split()
    if not parts:
        continue
    total += 1
    if so.split("/")[-1] in line and "one_row" in line:
        sym, off = parts[1].split("+")
        ips[base[sym] + int(off, 16)] += 1
addrs = sorted(ips)
# addr2line -a -i: the address, then its frames innermost first; the last in SRC is one_row's
res = subprocess.run(["addr2line", "-a", "-i", "-e", so] + [hex(a) for a in addrs],
                     capture_output=True, text=True).stdout.split("\n")
line_of = {}
cur = None
for r in res:
    if r.startswith("0x"):
        cur = int(r, 16)
    elif r and cur is not None and src.split("/")[-1] in r:
        try:
            line_of[cur] = int(r.split(":")[1].split()[0])  # the last matching frame wins
        except ValueError:
            pass
lines = open(src).read().split("\n")
marks = []
start = next(i for i, l in enumerate(lines) if l.startswith("static void one_row"))
for i in range(start, len(lines)):
    l = lines[i]
    if ("/* round" in l or "output phase" in l or "vf acc" in l or "vf m1[" in l or
            "for (int step" in l or "e3 from the cache" in l):
        marks.append((i + 1, l.strip()[:70]))
def phase(n):
    name = "(before)"
    for ln, t in marks:
        if ln <= n:
            name = "%5d %s" % (ln, t)
    return name
by = collections.Counter()
for a, c in ips.items():
    by[phase(line_of.get(a, 0))] += c
one = sum(ips.values())
print("samples %d, one_row %d (%.1f%%)" % (total, one, 100.0 * one / max(total, 1)))
for k in sorted(by):
    print("%6.1f%%  %s" % (100.0 * by[k] / max(one, 1), k))
