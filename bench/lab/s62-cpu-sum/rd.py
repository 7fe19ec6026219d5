"""Lab driver (session 62, CPU sum): ONNX Runtime's ReduceSum, rowreduce's sum (the library's
launch, and a generated source on rd.so's two threads) and hand-written AVX-512 row sums (rd.c)
on the same f32 M x N array in one process. Each round runs every configuration's block of
ITERS calls (after WARM untimed calls) in order and then in reverse, with SLEEP seconds before
each block (ONNX Runtime's spinning threads and rd.so's helper go quiet); prints per
configuration the median µs a call, GB/s, and the median of its per-round ratio to the first.

Usage: rd.py M N ROUNDS CONF...   CONF one of
  ort | ort_nospin                 ONNX Runtime ReduceSum, 2 intra-op threads
  rr[:PLAN]                        rowreduce library launch (plan: the library's, or PLAN)
  rrpin[:PLAN]                     the same, the caller and the pool's worker pinned apart
  rrw[:PLAN]                       the same, only the pool's worker pinned (CPU 1)
  gen:SO[:BLOCK[:STREAM]]          SO's rr_cpu_kernel on rd.so's threads (BLOCK 0 = halves)
  hand:ACC[:PF[:NTA[:BLOCK]]]      rd.c's sums: ACC accumulators, prefetch PF bytes on
Env: ITERS (20), WARM (2), SLEEP (0.02), CHECK=1 compares the generated/library outputs byte for byte."""
import ctypes
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "peers"))
import numpy as np  # noqa: E402
import onnx_cpu  # noqa: E402

M, N, ROUNDS = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
CONFS = sys.argv[4:]
ITERS = int(os.environ.get("ITERS", "20"))
SLEEP = float(os.environ.get("SLEEP", "0.02"))
WARM = int(os.environ.get("WARM", "2"))

rng = np.random.default_rng(1)
x = (rng.integers(0, 6000, size=(M, N)) / 1000.0 - 3.0 + 1e-4).astype(np.float32)
rd = ctypes.CDLL(os.path.join(HERE, "rd.so"))
rd.rd_hand.restype = ctypes.c_double
rd.rd_hand.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p,
                       ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
rd.rd_gen.restype = ctypes.c_double
rd.rd_gen.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                      ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int]
rd.rd_start()
keep = []
pool_workers = []  # the library pool's worker threads (started by the first rr launch)


def build(conf):
    parts = conf.split(":")
    if parts[0] in ("ort", "ort_nospin"):
        call, read = onnx_cpu.build_onnxruntime("sum", M, N, {"x": x}, 2, parts[0] == "ort")

        def block(n):
            t0 = time.perf_counter()
            for _ in range(n):
                call()
            return time.perf_counter() - t0
        return block, lambda: read()[0]
    if parts[0] in ("rr", "rrpin", "rrw"):
        plan = {"sum": parts[1]} if len(parts) > 1 and parts[1] else None
        call, read, layout, kernel = onnx_cpu.build_rowreduce("sum", M, N, "f32", {"x": x}, plan)
        keep.append((call, kernel))
        print("#", conf, "plan", layout)
        before = set(os.listdir("/proc/self/task"))
        call()  # the first launch starts the pool's workers
        workers = [int(t) for t in set(os.listdir("/proc/self/task")) - before]
        if workers:
            pool_workers[:] = workers
        pin, worker_only = parts[0] in ("rrpin", "rrw"), parts[0] == "rrw"

        def block(n):
            if pin:  # rrpin: the caller on CPU 0, the pool's worker on CPU 1 during the block
                mask = os.sched_getaffinity(0)
                if not worker_only:
                    os.sched_setaffinity(0, {0})
                for w in pool_workers:
                    os.sched_setaffinity(w, {1})
            t0 = time.perf_counter()
            for _ in range(n):
                call()
            s = time.perf_counter() - t0
            if pin:
                os.sched_setaffinity(0, mask)
                for w in pool_workers:
                    os.sched_setaffinity(w, mask)
            return s
        return block, lambda: read()[0]
    out = np.zeros(M, dtype=np.float32)
    if parts[0] == "gen":
        so = ctypes.CDLL(os.path.abspath(parts[1]))
        kern = ctypes.cast(so.rr_cpu_kernel, ctypes.c_void_p).value
        bl = int(parts[2]) if len(parts) > 2 else 0
        stream = int(parts[3]) if len(parts) > 3 else 1
        scratch = [np.zeros(1 << 16, dtype=np.float32) for _ in range(2)]
        keep.append((so, scratch))

        def block(n):
            rd.rd_active(1)
            s = rd.rd_gen(kern, x.ctypes.data, M, N, out.ctypes.data, scratch[0].ctypes.data,
                          scratch[1].ctypes.data, stream, bl, n)
            rd.rd_active(0)
            return s
        return block, lambda: out
    if parts[0] == "hand":
        acc, pf, nta, bl = [int(p) for p in (parts[1:] + ["0", "0", "0"])[:4]]

        def block(n):
            rd.rd_active(1)
            s = rd.rd_hand(x.ctypes.data, M, N, out.ctypes.data, acc, pf, nta, bl, n)
            rd.rd_active(0)
            return s
        return block, lambda: out
    raise SystemExit("unknown configuration " + conf)


blocks, reads = zip(*[build(c) for c in CONFS])
for b in blocks:  # warm-up
    b(3)
exact = [c for c in range(len(CONFS)) if CONFS[c].split(":")[0] in ("rr", "gen")]
for c in exact[1:]:
    if reads[c]().tobytes() != reads[exact[0]]().tobytes():
        print("# %s: outputs DIFFER from %s's" % (CONFS[c], CONFS[exact[0]]))
want = x.astype(np.float64).sum(axis=1)
for c, conf in enumerate(CONFS):
    err = np.abs(reads[c]().astype(np.float64) - want).max()
    if err > 1e-2:
        print("# %s: max error %.3g" % (conf, err))

times = [[] for _ in CONFS]
busy = [[0.0] * 4 for _ in CONFS]
buf = (ctypes.c_double * 4)()
for r in range(ROUNDS):
    got = [0.0] * len(CONFS)
    order = list(range(len(CONFS)))
    for c in order + order[::-1]:
        time.sleep(SLEEP)
        if WARM:
            blocks[c](WARM)
        rd.rd_busy(buf)
        got[c] += blocks[c](ITERS) / ITERS / 2
        rd.rd_busy(buf)
        for k in range(4):
            busy[c][k] += buf[k]
    for c in order:
        times[c].append(got[c])
nbytes = M * N * 4
for c, conf in enumerate(CONFS):
    med = statistics.median(times[c])
    ratio = statistics.median(t / t0 for t, t0 in zip(times[c], times[0]))
    lo = min(t / t0 for t, t0 in zip(times[c], times[0]))
    hi = max(t / t0 for t, t0 in zip(times[c], times[0]))
    calls = ROUNDS * 2 * ITERS
    threads = ("  threads %.0f / %.0f us, start lag %.0f / %.0f" %
               tuple(b / calls * 1e6 for b in busy[c])
               if busy[c][0] > 0 else "")
    print("%-34s %8.1f us  %5.1f GB/s  ratio %.3f (%.3f-%.3f)%s" %
          (conf, med * 1e6, nbytes / med / 1e9, ratio, lo, hi, threads))
