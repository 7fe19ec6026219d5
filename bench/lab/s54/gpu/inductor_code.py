"""Session 54: torch.compile's generated code for add_layernorm bf16 4x2097152 (its kernels, grid
and launch shapes), and each kernel's time by the profiler; run on the lent machine."""
import os
import sys
import torch
import torch.nn.functional as F

M, N = (int(v) for v in (sys.argv[1] if len(sys.argv) > 1 else "4x2097152").split("x"))


def add_layernorm(x, r, w, b):
    h = x + r
    return F.layer_norm(h, (N,), w, b, 1e-5), h


dev = "cuda"
x, r = (torch.randn(M, N, device=dev, dtype=torch.bfloat16) for _ in range(2))
w, b = (torch.randn(N, device=dev, dtype=torch.bfloat16) for _ in range(2))
fn = torch.compile(add_layernorm, dynamic=False, fullgraph=True)
for _ in range(3):
    fn(x, r, w, b)
torch.cuda.synchronize()
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        fn(x, r, w, b)
    torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=10))
