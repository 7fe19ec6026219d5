# remez4.py: exp(r) ~ 1 + r (c1 + r (c2 + r (c3 + r c4))) minimax in relative error on |r| <= A
# (plain Python, Remez exchange); prints the coefficients rounded to f32 and their error.
import math, struct
A = 0.3466 + 2e-4  # ln 2 / 2 and the slack of k ln 2 in one part
f32 = lambda v: struct.unpack('f', struct.pack('f', v))[0]
def err(c, r):
    p = 0.0
    for cj in reversed(c):
        p = p * r + cj
    return (1 + r * p) * math.exp(-r) - 1
def solve(M, y):
    n = len(y); M = [row[:] + [y[i]] for i, row in enumerate(M)]
    for i in range(n):
        piv = max(range(i, n), key=lambda k: abs(M[k][i])); M[i], M[piv] = M[piv], M[i]
        for k in range(i + 1, n):
            f = M[k][i] / M[i][i]
            for j in range(i, n + 1): M[k][j] -= f * M[i][j]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (M[i][n] - sum(M[i][j] * x[j] for j in range(i + 1, n))) / M[i][i]
    return x
pts = [A * math.cos(math.pi * (4 - i) / 4) for i in range(5)]
grid = [-A + 2 * A * i / 20000 for i in range(20001)]
for it in range(30):
    M = [[pts[i] ** (j + 1) * math.exp(-pts[i]) for j in range(4)] + [-(-1) ** i] for i in range(5)]
    sol = solve(M, [1 - math.exp(-p) for p in pts]); c = sol[:4]
    e = [err(c, r) for r in grid]
    # new points: extrema of alternating sign segments
    ext = []; seg = [0]
    for i in range(1, len(grid)):
        if (e[i] > 0) != (e[seg[-1]] > 0):
            ext.append(max(seg, key=lambda k: abs(e[k]))); seg = []
        seg.append(i)
    ext.append(max(seg, key=lambda k: abs(e[k])))
    if len(ext) >= 5:
        while len(ext) > 5:
            ext.pop(0 if abs(e[ext[0]]) < abs(e[ext[-1]]) else -1)
        pts = [grid[k] for k in ext]
print("E", sol[4], "max", max(abs(v) for v in e))
cf = [f32(v) for v in c]
print("coefficients f32:", ["%.9e" % v for v in cf])
print("max rel err with f32 coefficients:", max(abs(err(cf, r)) for r in grid))
