"""Per-call times of the library's sum f32 4096x4096 launch, unpinned against pinned (the
caller on CPU 0, the pool's worker on CPU 1), alternated in blocks of 10 calls after a 2-call
warm-up, 80 ms of sleep before each block; prints each mode's quartiles and the involuntary
context switches of the caller and the worker per call."""
import os, statistics, sys, threading, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "peers"))
import numpy as np, onnx_cpu  # noqa: E402
M = N = 4096
x = np.ones((M, N), np.float32)
call, read, layout, kernel = onnx_cpu.build_rowreduce("sum", M, N, "f32", {"x": x}, None)
before = set(os.listdir("/proc/self/task")); call()
workers = [int(t) for t in set(os.listdir("/proc/self/task")) - before]
me = threading.get_native_id()
def invol(t):
    st = open("/proc/self/task/%d/status" % t).read()
    return int(st.split("nonvoluntary_ctxt_switches:")[1].split()[0])
times = {"free": [], "pinned": []}
sw = {"free": [0, 0], "pinned": [0, 0]}
mask = os.sched_getaffinity(0)
for r in range(16):
    for mode in (["free", "pinned"] if r % 2 == 0 else ["pinned", "free"]):
        time.sleep(0.08)
        if mode == "pinned":
            os.sched_setaffinity(0, {0}); [os.sched_setaffinity(w, {1}) for w in workers]
        call(); call()
        s0 = [invol(me)] + [invol(w) for w in workers]
        for _ in range(10):
            t0 = time.perf_counter(); call(); times[mode].append(time.perf_counter() - t0)
        s1 = [invol(me)] + [invol(w) for w in workers]
        sw[mode][0] += s1[0] - s0[0]; sw[mode][1] += s1[1] - s0[1]
        if mode == "pinned":
            os.sched_setaffinity(0, mask); [os.sched_setaffinity(w, mask) for w in workers]
for mode, t in times.items():
    q = statistics.quantiles([v * 1e6 for v in t], n=4)
    print("%-7s quartiles %.0f / %.0f / %.0f us, min %.0f max %.0f; involuntary switches a call: caller %.2f worker %.2f"
          % (mode, q[0], q[1], q[2], min(t) * 1e6, max(t) * 1e6, sw[mode][0] / len(t), sw[mode][1] / len(t)))
