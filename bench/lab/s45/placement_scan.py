# Lab (session 45 CPU): one array of a built-in launch moved through a page (mod 4096, STEP
# bytes) while the others stay, each placement a fresh allocation; prints the slow offsets.
# Only the page offset is controlled, not the arrays' distance modulo 1 MiB (placement_dist.py).
#   PYTHONPATH=python RR_LIBRARY=build/librowreduce.so python3 placement_scan.py add_layernorm:f32:1024x1024:r
import os, sys
import numpy as np
from placement_lib import Setup, best, slow, stream_from_env

spec, which = sys.argv[1].rsplit(":", 1)
s = Setup(spec)


def placed(src, addr_mod):
    raw = np.empty(src.nbytes + 8192, dtype=np.uint8)
    at = (addr_mod - raw.ctypes.data) % 4096
    v = raw[at:at + src.nbytes].view(src.dtype).reshape(src.shape)
    v[...] = src
    return v


base = [0, 1024, 2048, 3072, 512, 1536, 2560, 3584]
fixed = {nm: base[k % len(base)] for k, nm in enumerate(s.arrays)}
stream_from_env()
res = []
for off in range(0, 4096, int(os.environ.get("STEP", "64"))):
    offs = dict(fixed)
    offs[which] = (fixed[which] + off) % 4096
    arrays = {nm: placed(s.inputs[nm] if nm in s.inputs else s.output_zeros(nm), offs[nm])
              for nm in s.arrays}
    res.append((off, best(s.launcher(arrays), k=6)))
med, slow_text = slow(res, "+")
print("%s %s %dx%d: scan %s (others %s); median %.0f µs; slow: %s" %
      (s.op, s.dt, s.m, s.n, which, fixed, med, slow_text), flush=True)
