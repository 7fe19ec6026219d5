# Lab (session 45 CPU): like placement_dist.py for any built-in: OUT (default y) placed FAR + nb + off
# bytes past IN (default x) in one buffer, the other inputs and outputs apart. The first ten
# placements of a process run slow at any distance: repeat the first distance last.
#   PYTHONPATH=python RR_LIBRARY=build/librowreduce.so python3 placement_dist_all.py rmsnorm:f32:2048x1024 4096,0,1048576
# y (or OUT) placed FAR + nb + off past x (or IN) inside one buffer; other arrays elsewhere.
import os, sys, time, ctypes, numpy as np
sys.path.insert(0, "bench/peers")
import onnx_cpu as oc
import rowreduce
from rowreduce import _lib
op, dt, shape = sys.argv[1].split(":")
fars = [int(v) for v in sys.argv[2].split(",")]
IN, OUT = os.environ.get("IN", "x"), os.environ.get("OUT", "y")
m, n = [int(v) for v in shape.split("x")]
rng = np.random.default_rng(1)
a, ours = oc.make_inputs(op, m, n, dt, rng)
kernel = rowreduce.Kernel(op)
program = kernel.program(oc.RR_DTYPE[dt], m, n, "cpu")
lib = kernel._lib
storage = np.uint16 if dt == "bf16" else np.float32
src = ours[IN]; nb = src.nbytes
big = np.empty(3 * nb + (8 << 20), dtype=np.uint8)
x0 = (-big.ctypes.data) % (2 << 20)
xin = big[x0:x0 + nb].view(src.dtype).reshape(src.shape); xin[...] = src
others = {}
for nm, kind, _ in kernel.inputs:
    if kind != "param" and nm != IN:
        others[nm] = ours[nm].copy()
outs_other = {o: np.zeros((m, n) if o in ("y", "h") else (m,), dtype=storage) for o in oc.OUTPUTS[op] if o != OUT}
def best(call, k=5, reps=2):
    b = 1e9
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(k): call()
        b = min(b, (time.perf_counter() - t) / k)
    return b * 1e6
os.environ["RR_STREAM_BYTES"] = os.environ.get("STREAM", "1e18")
for far in fars:
    res = []
    for off in range(-512, 1024, 64):
        yo = x0 + nb + far + off
        yout = big[yo:yo + m * n * np.dtype(storage).itemsize].view(storage)
        args = (_lib.Arg * len(kernel.inputs))()
        for k, (nm, kind, _) in enumerate(kernel.inputs):
            if kind == "param": args[k].value = oc.EPS[op]
            else:
                arr = xin if nm == IN else others[nm]
                args[k].data = arr.ctypes.data
                args[k].dtype = _lib.RR_I64 if arr.dtype == np.int64 else oc.RR_DTYPE[dt]
        ptrs = (ctypes.c_void_p * len(oc.OUTPUTS[op]))(*[(yout if o == OUT else outs_other[o]).ctypes.data for o in oc.OUTPUTS[op]])
        call = lambda: lib.rr_program_launch(program, m, args, ptrs, None)
        call(); res.append((off, best(call)))
    med = sorted(t for _, t in res)[len(res) // 2]
    print("%s %s %s %s-%s = %d KiB + off: median %.0f; slow %s" % (op, dt, shape, OUT, IN, (nb + far) // 1024, med, " ".join("%+d:%.1f" % (o, t / med) for o, t in res if t > 1.2 * med)), flush=True)
