# Lab (session 45 CPU): one array of a built-in launch moved through a page (mod 4096, STEP
# bytes) while the others stay, each placement a fresh allocation; prints the slow offsets.
#   PYTHONPATH=python RR_LIBRARY=build/librowreduce.so python3 placement_scan.py add_layernorm:f32:1024x1024:r
# Scan one array's placement (mod 4096) with the others fixed; print slow offsets.
import os, sys, time, ctypes, numpy as np
sys.path.insert(0, "bench/peers")
import onnx_cpu as oc
import rowreduce
from rowreduce import _lib
op, dt, shape, which = sys.argv[1].split(":")
m, n = [int(v) for v in shape.split("x")]
rng = np.random.default_rng(1)
a, ours = oc.make_inputs(op, m, n, dt, rng)
kernel = rowreduce.Kernel(op)
program = kernel.program(oc.RR_DTYPE[dt], m, n, "cpu")
lib = kernel._lib
def placed(src, addr_mod):
    raw = np.empty(src.nbytes + 8192, dtype=np.uint8)
    s = (addr_mod - raw.ctypes.data) % 4096
    v = raw[s: s + src.nbytes].view(src.dtype).reshape(src.shape)
    v[...] = src
    return v
def best(call, k=6, reps=2):
    b = 1e9
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(k): call()
        b = min(b, (time.perf_counter() - t) / k)
    return b * 1e6
os.environ["RR_STREAM_BYTES"] = os.environ.get("STREAM", "1e18")
storage = np.uint16 if dt == "bf16" else np.float32
outs_names = oc.OUTPUTS[op]
fixed = {}
base = [0, 1024, 2048, 3072, 512, 1536, 2560, 3584]
names = [nm for nm, kind, _ in kernel.inputs if kind != "param"] + list(outs_names)
for k, nm in enumerate(names): fixed[nm] = base[k % len(base)]
def build(offs):
    arrs = {}
    for nm, kind, _ in kernel.inputs:
        if kind != "param": arrs[nm] = placed(ours[nm], offs[nm])
    outs = []
    for o in outs_names:
        shp = (m, n) if o in ("y", "h") else (m,)
        outs.append(placed(np.zeros(shp, dtype=storage), offs[o]))
    args = (_lib.Arg * len(kernel.inputs))()
    for k, (nm, kind, _) in enumerate(kernel.inputs):
        if kind == "param": args[k].value = oc.EPS[op]
        else: args[k].data = arrs[nm].ctypes.data; args[k].dtype = _lib.RR_I64 if arrs[nm].dtype == np.int64 else oc.RR_DTYPE[dt]
    ptrs = (ctypes.c_void_p * len(outs))(*[o.ctypes.data for o in outs])
    keep = (arrs, outs)
    def call(): lib.rr_program_launch(program, m, args, ptrs, None)
    call.keep = keep
    return call
res = []
for off in range(0, 4096, int(os.environ.get("STEP", "64"))):
    offs = dict(fixed); offs[which] = (fixed[which] + off) % 4096
    c = build(offs); c()
    res.append((off, best(c)))
med = sorted(t for _, t in res)[len(res) // 2]
print("%s %s %s: scan %s (others %s); median %.0f µs; slow: %s" % (op, dt, shape, which, fixed, med,
      " ".join("+%d:%.1f" % (d, t / med) for d, t in res if t > 1.2 * med)), flush=True)
