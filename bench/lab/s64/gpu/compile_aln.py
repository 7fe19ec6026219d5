#!/usr/bin/env python3
"""Session 64 lab: torch.compile's add_layernorm (h = x + r; y = layer_norm(h)) of an MxN
tensor (argv[1]) in dtype argv[2] (f32 or bf16), compiled and warmed up first, then run once
between cudaProfilerStart and Stop, so that `ncu --profile-from-start off` sees only the
kernels of one call."""
import sys

import torch
import torch.nn.functional as F

m, n = map(int, sys.argv[1].split("x"))
dt = {"f32": torch.float32, "bf16": torch.bfloat16}[sys.argv[2]]
x, r = (torch.randn(m, n, device="cuda", dtype=dt) for _ in range(2))
w, b = (torch.randn(n, device="cuda", dtype=dt) for _ in range(2))


def add_layernorm(x, r, w, b):
    h = x + r
    return F.layer_norm(h, (n,), w, b, 1e-5), h


f = torch.compile(add_layernorm, dynamic=False, fullgraph=True)
for _ in range(3):
    f(x, r, w, b)
torch.cuda.synchronize()
torch.cuda.profiler.start()
f(x, r, w, b)
torch.cuda.synchronize()
torch.cuda.profiler.stop()
