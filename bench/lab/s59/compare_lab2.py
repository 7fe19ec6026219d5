#!/usr/bin/env python3
"""Session 59 lab: bench/lab/s58/compare_lab.py's peers (lab0..lab4) plus lab5, lab1's kernel
(rows1<256>) launched through the driver API as rowreduce launches (tiny/lablib2.cu), and lab6,
rowreduce's own generated kernel built by nvcc and launched by the runtime (tiny/lab_rr.cu).
RR_LAB_LIB is the liblab.so built of lablib2.cu and lab_rr.cu. Arguments: those of compare_torch.py."""
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
lib.lab_rmsnorm1_driver.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_longlong, ctypes.c_void_p]
lib.lab_rr_rmsnorm1.argtypes = lib.lab_rmsnorm1_driver.argtypes


def make(variant):
    def peer(op, n):
        if op != "rmsnorm" or n != 1:
            return None

        def call(a):
            x, w = a["x"], a["w"]
            if x.dtype != torch.bfloat16:
                raise TypeError("the lab kernels are bf16 only")
            y = torch.empty_like(x)
            s = torch.cuda.current_stream().cuda_stream
            if variant in (5, 6):
                fn = lib.lab_rmsnorm1_driver if variant == 5 else lib.lab_rr_rmsnorm1
                rc = fn(x.data_ptr(), w.data_ptr(), y.data_ptr(), x.shape[0], s)
            else:
                rc = lib.lab_rmsnorm1(variant, x.data_ptr(), w.data_ptr(), y.data_ptr(),
                                      x.shape[0], s)
            if rc:
                raise RuntimeError("lab launch failed: error %d" % rc)
            return {"y": y}
        return call
    return peer


for v in range(7):
    ct.PEERS["lab%d" % v] = make(v)
sys.argv[0] = COMPARE
sys.exit(ct.main())
