#!/usr/bin/env python3
"""Session 59 lab: rmsnorm bf16 100000x1 once each by rowreduce (its binding), lab1 (rows1<256>,
runtime launch), lab5 (the same kernel through cuLaunchKernelEx), lab6 (rowreduce's
kernel built by nvcc) and torch.compile, a few times,
for `ncu` to compare the kernels' own durations and launch attributes (no graph)."""
import ctypes
import os

import torch
import torch.nn.functional as F

import rowreduce

lib = ctypes.CDLL(os.environ["RR_LAB_LIB"])
lib.lab_rmsnorm1.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_longlong, ctypes.c_void_p]
lib.lab_rmsnorm1_driver.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_longlong, ctypes.c_void_p]
lib.lab_rr_rmsnorm1.argtypes = lib.lab_rmsnorm1_driver.argtypes
M = int(os.environ.get("M", "100000"))
x = torch.randn(M, 1, device="cuda", dtype=torch.bfloat16)
w = torch.randn(1, device="cuda", dtype=torch.bfloat16)
y = torch.empty_like(x)
k = rowreduce.load("rmsnorm")
comp = torch.compile(lambda x, w: F.rms_norm(x, (1,), w, 1e-6), dynamic=False, fullgraph=True)
s = torch.cuda.current_stream().cuda_stream
comp(x, w)  # compiled (and tuned) before ncu starts to profile
k(x=x, w=w, eps=1e-6)
torch.cuda.synchronize()
torch.cuda.profiler.start()
for _ in range(3):
    k(x=x, w=w, eps=1e-6)
    lib.lab_rmsnorm1(1, x.data_ptr(), w.data_ptr(), y.data_ptr(), M, s)
    lib.lab_rmsnorm1_driver(x.data_ptr(), w.data_ptr(), y.data_ptr(), M, s)
    lib.lab_rr_rmsnorm1(x.data_ptr(), w.data_ptr(), y.data_ptr(), M, s)
    comp(x, w)
torch.cuda.synchronize()
torch.cuda.profiler.stop()
print("done")
