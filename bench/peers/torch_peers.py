#!/usr/bin/env python3
"""Measures the peers rowreduce is compared against (PyTorch eager, torch.compile, Liger when
installed) on the same shapes, dtypes and L2 mode as a `rowreduce bench` run, on the same GPU,
in the same session. Each timed output is first checked against a float64 computation.

GPU time per call: a CUDA graph of a batch of calls is replayed and timed with events; the
batch size is calibrated to --sample-ms; --samples samples; the median is reported with the
raw samples. --l2 cold rotates input/output sets so the working set exceeds twice the L2.

Writes one JSON file (schema: {"peers": [row, ...], "device": ..., "command": ...}).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

OPS = ["sum", "softmax", "rmsnorm", "layernorm", "add_layernorm", "cross_entropy"]
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def make_inputs(op, m, n, dtype, gen):
    x = (torch.rand(m, n, generator=gen, device="cuda") * 6 - 3).to(dtype)
    w = (1 + 0.1 * torch.randn(n, generator=gen, device="cuda")).to(dtype)
    b = (0.1 * torch.randn(n, generator=gen, device="cuda")).to(dtype)
    if op == "sum" or op == "softmax":
        return (x,)
    if op == "rmsnorm":
        return (x, w)
    if op == "layernorm":
        return (x, w, b)
    if op == "add_layernorm":
        r = (torch.rand(m, n, generator=gen, device="cuda") * 6 - 3).to(dtype)
        return (x, r, w, b)
    if op == "cross_entropy":
        t = torch.randint(0, n, (m,), generator=gen, device="cuda")
        return (x, t)
    raise ValueError(op)


def eager_fn(op, n):
    if op == "sum":
        return lambda x: x.sum(-1)
    if op == "softmax":
        return lambda x: torch.softmax(x, -1)
    if op == "rmsnorm":
        return lambda x, w: F.rms_norm(x, (n,), w, 1e-6)
    if op == "layernorm":
        return lambda x, w, b: F.layer_norm(x, (n,), w, b, 1e-5)
    if op == "add_layernorm":
        def f(x, r, w, b):
            h = x + r
            return F.layer_norm(h, (n,), w, b, 1e-5), h
        return f
    if op == "cross_entropy":
        return lambda x, t: F.cross_entropy(x, t, reduction="none")
    raise ValueError(op)


def liger_fn(op, n):
    try:
        if op == "rmsnorm":
            from liger_kernel.ops.rms_norm import LigerRMSNormFunction
            return lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6)
        if op == "layernorm":
            from liger_kernel.ops.layer_norm import LigerLayerNormFunction
            return lambda x, w, b: LigerLayerNormFunction.apply(x, w, b, 1e-5)
        if op == "softmax":
            from liger_kernel.ops.softmax import LigerSoftmaxFunction
            return lambda x: LigerSoftmaxFunction.apply(x)
        if op == "cross_entropy":
            from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
            return lambda x, t: LigerCrossEntropyFunction.apply(x, t, None, -100, 0.0, 0.0, "none")[0]
    except Exception:
        return None
    return None


def reference(op, inputs, n):
    d = [t.double() if t.is_floating_point() else t for t in inputs]
    out = eager_fn(op, n)(*d)
    return out if isinstance(out, tuple) else (out,)


def check(op, fn, inputs, n, dtype):
    with torch.no_grad():
        got = fn(*inputs)
    got = got if isinstance(got, tuple) else (got,)
    want = reference(op, inputs, n)
    tol = {torch.float32: (1e-4, 1e-5), torch.float16: (4e-3, 2e-3), torch.bfloat16: (2e-2, 1.6e-2)}[dtype]
    for g, w in zip(got, want):
        g = g.double()
        scale = max(w.abs().max().item(), 1e-30)
        err = (g - w).abs()
        ok = bool(torch.all(err <= tol[1] * scale + tol[0] * w.abs()).item()) and not bool(torch.isnan(g).any().item())
        if not ok:
            return False, float(err.max().item())
    return True, 0.0


def time_graph(fn, input_sets, sample_ms, samples, warmup_ms):
    """Median µs per call of a CUDA-graph replay of a calibrated batch over rotating input sets."""
    stream = torch.cuda.Stream()
    def build(batch):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            for i in range(3):  # warm the function (and its compile) outside capture
                fn(*input_sets[i % len(input_sets)])
        torch.cuda.synchronize()
        with torch.cuda.graph(g, stream=stream):
            for i in range(batch):
                fn(*input_sets[i % len(input_sets)])
        return g
    def run(g):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        return start.elapsed_time(end)
    batch = 8
    g = build(batch)
    t_end = time.time() + warmup_ms / 1000
    ms = run(g)
    while time.time() < t_end:
        ms = run(g)
    per_call = max(ms / batch, 1e-4)
    batch = int(min(max(sample_ms / per_call, 1), 20000))
    g = build(batch)
    run(g)
    out = [run(g) * 1000.0 / batch for _ in range(samples)]
    return out, batch


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shapes", required=True, help="MxN[,MxN...]")
    ap.add_argument("--dtypes", default="f32,bf16")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--l2", choices=["hot", "cold"], default="cold")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--sample-ms", type=float, default=20)
    ap.add_argument("--warmup-ms", type=float, default=100)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 * 2**20)
    rows = []
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    shapes = [tuple(int(v) for v in s.lower().split("x")) for s in a.shapes.split(",")]
    for op in a.ops.split(","):
        for dname in a.dtypes.split(","):
            dtype = DTYPES[dname]
            for (m, n) in shapes:
                one = make_inputs(op, m, n, dtype, gen)
                size = sum(t.numel() * t.element_size() for t in one) * 2
                sets = 1 if a.l2 == "hot" else max(1, math.ceil(2 * l2 / max(size, 1)) + 1)
                sets = min(sets, 64)
                input_sets = [one] + [make_inputs(op, m, n, dtype, gen) for _ in range(sets - 1)]
                variants = [("eager", eager_fn(op, n))]
                if not a.no_compile:
                    variants.append(("compile", torch.compile(eager_fn(op, n), dynamic=False)))
                lf = liger_fn(op, n)
                if lf is not None:
                    variants.append(("liger", lf))
                for name, fn in variants:
                    row = {"peer": name, "kernel": op, "dtype": dname, "M": m, "N": n, "l2": a.l2,
                           "sets": sets}
                    try:
                        ok, err = check(op, fn, one, n, dtype)
                        row["valid"] = ok
                        if not ok:
                            row["error"] = "validation failed, max abs error %g" % err
                        else:
                            with torch.no_grad():
                                samples, batch = time_graph(fn, input_sets, a.sample_ms, a.samples, a.warmup_ms)
                            row.update(samples_us=samples, batch=batch, median_us=statistics.median(samples),
                                       min_us=min(samples), max_us=max(samples))
                    except Exception as e:  # a peer that cannot run a shape is recorded, not fatal
                        row["valid"] = False
                        row["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
                    rows.append(row)
                    print("%-8s %-14s %-5s %6dx%-7d %s" % (name, op, dname, m, n,
                          "%.2f us" % row["median_us"] if "median_us" in row else row.get("error", "")),
                          file=sys.stderr, flush=True)
                del input_sets, one
                torch.cuda.empty_cache()
    doc = {"command": " ".join(sys.argv), "device": torch.cuda.get_device_name(0),
           "torch": torch.__version__, "l2_bytes": l2, "peers": rows,
           "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    try:
        import triton
        doc["triton"] = triton.__version__
    except Exception:
        pass
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
