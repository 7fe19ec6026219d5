# Lab (session 45 CPU): a one-input f32 kernel (softmax, sum) with y placed y - x = FAR + nb + off bytes
# from x inside one buffer, x on a 2 MiB boundary; prints the offsets that ran 1.2x over the
# median. RR_STREAM_BYTES from $STREAM (default 1e18: through the caches).
#   PYTHONPATH=python RR_LIBRARY=build/librowreduce.so python3 placement_dist.py softmax:f32:2048x1024 0,4096,1048576
import os, sys, time, ctypes, numpy as np
sys.path.insert(0, "bench/peers")
import onnx_cpu as oc
import rowreduce
from rowreduce import _lib
op, dt, shape = sys.argv[1].split(":")
m, n = [int(v) for v in shape.split("x")]
rng = np.random.default_rng(1)
a, ours = oc.make_inputs(op, m, n, dt, rng)
kernel = rowreduce.Kernel(op)
program = kernel.program(oc.RR_DTYPE[dt], m, n, "cpu")
lib = kernel._lib
nb = ours["x"].nbytes
big = np.empty(3 * nb + (8 << 20), dtype=np.uint8)
base = big.ctypes.data
x0 = (-base) % (2 << 20)  # x at a 2 MiB boundary
x = big[x0:x0 + nb].view(np.float32); x[:] = ours["x"].ravel()
def best(call, k=5, reps=2):
    b = 1e9
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(k): call()
        b = min(b, (time.perf_counter() - t) / k)
    return b * 1e6
os.environ["RR_STREAM_BYTES"] = os.environ.get("STREAM", "1e18")
for far in [int(v) for v in sys.argv[2].split(",")]:
    res = []
    for off in range(-512, 1024, 64):
        yo = x0 + nb + far + off
        y = big[yo:yo + nb].view(np.float32)
        args = (_lib.Arg * 1)(); args[0].data = x.ctypes.data; args[0].dtype = oc.RR_DTYPE[dt]
        ptrs = (ctypes.c_void_p * 1)(y.ctypes.data)
        call = lambda: lib.rr_program_launch(program, m, args, ptrs, None)
        call(); res.append((off, best(call)))
    med = sorted(t for _, t in res)[len(res) // 2]
    print("y - x = %d KiB + off: median %.0f; slow %s" % ((nb + far) // 1024, med, " ".join("%+d:%.1f" % (o, t / med) for o, t in res if t > 1.2 * med)), flush=True)
