import os, sys, time, ctypes, numpy as np
sys.path.insert(0, 'bench/peers'); sys.path.insert(0, 'python')
import rowreduce
from rowreduce import _lib
op, m, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
kernel = rowreduce.Kernel(op)
program = kernel.program(_lib.RR_F32 if hasattr(_lib,'RR_F32') else 0, m, n, "cpu")
lib = kernel._lib
rng = np.random.default_rng(1)
x = rng.standard_normal((m, n)).astype(np.float32); w = rng.standard_normal(n).astype(np.float32)
b = rng.standard_normal(n).astype(np.float32)
ins = {"x": x, "w": w, "b": b, "r": x.copy()}
names = [nm for nm, _, _ in kernel.inputs]
args = (_lib.Arg * len(names))()
for k, (nm, kind, _) in enumerate(kernel.inputs):
    if kind == "param": args[k].value = 1e-5
    else: args[k].data = ins[nm].ctypes.data; args[k].dtype = 0
y = np.empty((m, n), np.float32)
ptrs = (ctypes.c_void_p * 1)(y.ctypes.data)
buf = ctypes.create_string_buffer(128); lib.rr_layout_format(lib.rr_program_layout(program), buf, 128)
print(op, m, n, buf.value.decode(), 'x at', x.ctypes.data % 64)
for rnd in range(3):
  for env in ("0", None, None, "0"):
    if env: os.environ["RR_CPU_ROW_PARTS"] = env
    else: os.environ.pop("RR_CPU_ROW_PARTS", None)
    for gap in (0, 1):
        ts = []
        for i in range(200):
            if gap: time.sleep(0.0005)
            t0 = time.perf_counter(); lib.rr_program_launch(program, m, args, ptrs, None); ts.append(time.perf_counter() - t0)
        print('parts', 'off' if env else 'on ', 'gap' if gap else 'b2b', '%.1f us' % (np.median(ts) * 1e6))
