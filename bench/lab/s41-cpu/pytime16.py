# One bf16 kernel's launches from NumPy arrays (their placement: 16 bytes into a line on huge
# pages), back to back: the median of 100 launches. RR_LIBRARY picks the build.
# Usage: RR_LIBRARY=.../librowreduce.so python3 pytime16.py KERNEL M N
import ctypes, sys, time
import numpy as np
sys.path.insert(0, 'python')
import rowreduce
from rowreduce import _lib
op, m, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
kernel = rowreduce.Kernel(op)
BF16 = 1
program = kernel.program(BF16, m, n, "cpu")
lib = kernel._lib
rng = np.random.default_rng(1)
def bf16(a):
    return (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
x = bf16(rng.standard_normal((m, n))); r = bf16(rng.standard_normal((m, n)))
w = bf16(rng.standard_normal(n)); b = bf16(rng.standard_normal(n))
ins = {"x": x, "w": w, "b": b, "r": r}
args = (_lib.Arg * len(kernel.inputs))()
for k, (nm, kind, _) in enumerate(kernel.inputs):
    if kind == "param": args[k].value = 1e-5
    else: args[k].data = ins[nm].ctypes.data; args[k].dtype = BF16
outs = [np.empty((m, n), np.uint16) for _ in kernel.outputs]
ptrs = (ctypes.c_void_p * len(outs))(*[o.ctypes.data for o in outs])
buf = ctypes.create_string_buffer(128); lib.rr_layout_format(lib.rr_program_layout(program), buf, 128)
ts = []
for i in range(120):
    t0 = time.perf_counter(); lib.rr_program_launch(program, m, args, ptrs, None); ts.append(time.perf_counter() - t0)
print(op, m, n, buf.value.decode(), 'x at', x.ctypes.data % 64, '%.1f us' % (np.median(ts[20:]) * 1e6))
