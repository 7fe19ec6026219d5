#!/usr/bin/env python3
"""Session 65 lab: an emitted S=grid `sum` source (one round, rr_grid_arrive) rewritten by hand
for a C that need not be a power of two, so that M x C blocks fill every SM (2 rows: C = 66 on
132 SMs). Only what C touches changes: SEG (rounded up to 8 elements as the emitter does), the
last block's length, the workspace's words a group, the arrival target (old / C * C + C: the
count starts at zero and a timing run never wraps it), and the combine's tree (32 lanes, lane l
takes l, l + 32, ... while < C, 0 elsewhere). Not a product change: a measurement of what the
four idle SMs cost. Usage: anyc.py SOURCE C2 > OUT"""
import math
import re
import sys

src, c2 = open(sys.argv[1]).read(), int(sys.argv[2])
N = int(re.search(r"constexpr int N = (\d+);", src).group(1))
C = int(re.search(r"constexpr int C = (\d+);", src).group(1))
slots = int(re.search(r"constexpr int RED_SLOTS = (\d+);", src).group(1))
head = int(re.search(r"constexpr int WS_HEAD = (\d+);", src).group(1))
seg = math.ceil(N / c2 / 8) * 8
last = N - (c2 - 1) * seg
assert 0 < last <= seg, (N, c2, seg, last)


def sub(pattern, repl, text, count=1):
    new, n = re.subn(pattern, repl, text)
    assert n == count, (pattern, n)
    return new


src = sub(r"constexpr int C = \d+;", f"constexpr int C = {c2};", src)
src = sub(r"constexpr int SEG = \d+;", f"constexpr int SEG = {seg};", src)
src = sub(r"constexpr int WS_GROUP = \d+;", f"constexpr int WS_GROUP = {head + 2 * slots * c2};",
          src)
src = sub(r"\(old & ~\(unsigned\)\(C - 1\)\) \+ \(unsigned\)C",
          "(old / (unsigned)C) * (unsigned)C + (unsigned)C", src, count=2)
src = sub(r"constexpr int RR_GRID_LANES = [^;]*;", "constexpr int RR_GRID_LANES = 32;", src)
src = sub(r"constexpr int RR_GRID_LOADS = [^;]*;", "constexpr int RR_GRID_LOADS = (C + 31) / 32;",
          src)
src = sub(r"part\[k\] = __ldcg\(p \+ lane \+ 32 \* k\);",
          "part[k] = lane + 32 * k < C ? __ldcg(p + lane + 32 * k) : 0.0f;", src)
# rr_main's segments: every block but the last SEG elements, the last `last`
m = re.search(r"if \(rank < (\d+)\)\n(.*)\n(\s*)else if \(rank == (\d+)\)\n(.*rr_row<VEC, HEADED, )"
              r"(\d+)(, TWIN>.*)", src)
if m:
    body = (f"if (rank < {c2 - 1})\n{m.group(2)}\n{m.group(3)}else if (rank == {c2 - 1})\n"
            f"{m.group(5)}{last}{m.group(7)}")
    src = src[:m.start()] + body + src[m.end():]
else:  # every segment the same length (N a multiple of C x 8): the last differs now
    m = re.search(r"\n(\s*)(rr_row<VEC, HEADED, SEG, TWIN>\(.*\);)", src)
    assert m, "no rr_row call found"
    ind, call = m.group(1), m.group(2)
    body = (f"\n{ind}if (rank < {c2 - 1})\n{ind}\t{call}\n{ind}else\n{ind}\t"
            f"{call.replace('HEADED, SEG,', f'HEADED, {last},')}")
    src = src[:m.start()] + body + src[m.end():]
sys.stdout.write(src)
