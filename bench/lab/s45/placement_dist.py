# Lab (session 45 CPU): row output OUT (default y) placed FAR + nb + off bytes past row input IN
# (default x) in one buffer, IN on a 2 MiB boundary, the other arrays apart; prints the offsets
# that ran 1.2x over the median. The first ten placements of a process run slow at any
# distance: repeat the first distance last. RR_STREAM_BYTES from $STREAM (default 1e18).
#   PYTHONPATH=python RR_LIBRARY=build/librowreduce.so python3 placement_dist.py rmsnorm:f32:2048x1024 4096,0,1048576,4096
import os, sys
import numpy as np
from placement_lib import Setup, best, slow, stream_from_env

s = Setup(sys.argv[1])
fars = [int(v) for v in sys.argv[2].split(",")]
IN, OUT = os.environ.get("IN", "x"), os.environ.get("OUT", "y")
src = s.inputs[IN]
nb = src.nbytes
out_bytes = s.output_zeros(OUT).nbytes
big = np.empty(2 * nb + out_bytes + (8 << 20), dtype=np.uint8)
x0 = (-big.ctypes.data) % (2 << 20)
arrays = {nm: s.inputs[nm].copy() for nm in s.arrays if nm in s.inputs and nm != IN}
arrays.update({o: s.output_zeros(o) for o in s.outputs if o != OUT})
arrays[IN] = big[x0:x0 + nb].view(src.dtype).reshape(src.shape)
arrays[IN][...] = src
stream_from_env()
for far in fars:
    res = []
    for off in range(-512, 1024, 64):
        yo = x0 + nb + far + off
        arrays[OUT] = big[yo:yo + out_bytes].view(s.storage)
        res.append((off, best(s.launcher(dict(arrays)))))
    med, slow_text = slow(res, "+")
    print("%s %s %dx%d %s-%s = %d KiB + off: median %.0f; slow %s" %
          (s.op, s.dt, s.m, s.n, OUT, IN, (nb + far) // 1024, med, slow_text), flush=True)
