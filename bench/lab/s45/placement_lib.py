# Lab helpers (session 45 CPU) for the placement scripts beside this file: one built-in's
# program through rowreduce's binding, inputs as bench/peers/onnx_cpu.py makes them, launches
# over arrays the caller places, best-of timing and the slow offsets of a scan.
import ctypes, os, sys, time
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "peers"))
import onnx_cpu as oc  # noqa: E402
import rowreduce  # noqa: E402
from rowreduce import _lib  # noqa: E402


class Setup:
    """OP:DTYPE:MxN -> the kernel, its program, its inputs ({name: array}) and output shapes."""

    def __init__(self, spec):
        self.op, self.dt, shape = spec.split(":")
        self.m, self.n = [int(v) for v in shape.split("x")]
        _, self.inputs = oc.make_inputs(self.op, self.m, self.n, self.dt, np.random.default_rng(1))
        self.kernel = rowreduce.Kernel(self.op)
        self.program = self.kernel.program(oc.RR_DTYPE[self.dt], self.m, self.n, "cpu")
        self.storage = np.uint16 if self.dt == "bf16" else np.float32
        self.outputs = list(oc.OUTPUTS[self.op])
        self.arrays = [nm for nm, kind, _ in self.kernel.inputs if kind != "param"] + self.outputs

    def output_zeros(self, name):
        return np.zeros((self.m, self.n) if name in ("y", "h") else (self.m,), dtype=self.storage)

    def launcher(self, arrays):
        """A call launching the program over arrays {name: array} (every input and output)."""
        args = (_lib.Arg * len(self.kernel.inputs))()
        for k, (nm, kind, _) in enumerate(self.kernel.inputs):
            if kind == "param":
                args[k].value = oc.EPS[self.op]
            else:
                args[k].data = arrays[nm].ctypes.data
                args[k].dtype = _lib.RR_I64 if arrays[nm].dtype == np.int64 else oc.RR_DTYPE[self.dt]
        ptrs = (ctypes.c_void_p * len(self.outputs))(*[arrays[o].ctypes.data for o in self.outputs])
        lib, program, m = self.kernel._lib, self.program, self.m

        def call():
            lib.rr_program_launch(program, m, args, ptrs, None)
        call.keep = (arrays, args, ptrs)
        return call


def stream_from_env():
    """RR_STREAM_BYTES from $STREAM (default 1e18: every launch through the caches)."""
    os.environ["RR_STREAM_BYTES"] = os.environ.get("STREAM", "1e18")


def best(call, k=5, reps=2):
    """The least time of a call in µs, over reps batches of k calls (after one untimed call)."""
    call()
    b = 1e9
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(k):
            call()
        b = min(b, (time.perf_counter() - t) / k)
    return b * 1e6


def slow(results, sign=""):
    """(median, 'offset:ratio ...' of the results over 1.2 times the median)."""
    med = sorted(t for _, t in results)[len(results) // 2]
    return med, " ".join(("%" + sign + "d:%.1f") % (o, t / med) for o, t in results if t > 1.2 * med)
