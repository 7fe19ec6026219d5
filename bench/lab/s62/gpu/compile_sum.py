#!/usr/bin/env python3
"""Session 62 lab: torch.compile's row sum of an f32 MxN tensor (argv[1]), compiled and warmed
up first, then run once between cudaProfilerStart and Stop, so that `ncu --profile-from-start
off` sees only the kernels of one call."""
import sys

import torch

m, n = map(int, sys.argv[1].split("x"))
x = torch.randn(m, n, device="cuda", dtype=torch.float32)
f = torch.compile(lambda t: t.sum(-1), dynamic=False, fullgraph=True)
for _ in range(3):
    f(x)
torch.cuda.synchronize()
torch.cuda.profiler.start()
f(x)
torch.cuda.synchronize()
torch.cuda.profiler.stop()
