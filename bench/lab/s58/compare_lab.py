#!/usr/bin/env python3
"""Session 58 lab: bench/compare_torch.py with the hand-written kernels of
bench/lab/s58/tiny/lablib.cu (rmsnorm bf16 on rows of one element) as extra peers, so that they
are timed in the compare's own graph replay beside rowreduce and torch.compile. RR_LAB_LIB is
the built liblab.so. Arguments: those of compare_torch.py, e.g.
  --shapes 100000x1 --dtypes bf16 --ops rmsnorm --impls rowreduce,compile,lab0,lab2"""
import ctypes
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "..", "..", "compare_torch.py")
spec = importlib.util.spec_from_file_location("compare_torch", COMPARE)
ct = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ct)
torch = ct.torch
lib = ctypes.CDLL(os.environ["RR_LAB_LIB"])
lib.lab_rmsnorm1.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_longlong, ctypes.c_void_p]
lib.lab_rmsnorm1.restype = ctypes.c_int
# 0: one row a thread, blocks of 1024 (rowreduce's pick's shape); 1: blocks of 256;
# 2, 3: two and four rows a thread, blocks of 256 (2: torch.compile's shape); 4: eight, of 128
VARIANTS = 5


def make(variant):
    def peer(op, n):
        if op != "rmsnorm" or n != 1:
            return None

        def call(a):
            x, w = a["x"], a["w"]
            if x.dtype != torch.bfloat16:
                raise TypeError("the lab kernels are bf16 only")
            y = torch.empty_like(x)
            rc = lib.lab_rmsnorm1(variant, x.data_ptr(), w.data_ptr(), y.data_ptr(),
                                  x.shape[0], torch.cuda.current_stream().cuda_stream)
            if rc:
                raise RuntimeError("lab launch failed: cudaError %d" % rc)
            return {"y": y}
        return call
    return peer


for v in range(VARIANTS):
    ct.PEERS["lab%d" % v] = make(v)
sys.argv[0] = COMPARE
sys.exit(ct.main())
