#!/usr/bin/env python3
"""Measures the peers rowreduce is compared against (PyTorch eager, torch.compile, Liger when
installed) on the same shapes, dtypes and L2 mode as a `rowreduce bench` run, on the same GPU,
in the same session. Each timed output is first checked against a float64 computation.

GPU time per call: a CUDA graph of a batch of calls is replayed and timed with events; the
batch size is calibrated to --sample-ms; --samples samples; the median is reported with the
raw samples. --l2 cold rotates input/output sets so the working set exceeds twice the L2.

Writes the results schema of rowreduce (docs/results-schema.md, tool "rowreduce-peers", kind
"peers"): one row per peer, kernel, dtype and shape, the raw samples under the gpu_graph phase,
so `rowreduce verify` audits a comparison with the peers as it audits rowreduce's own runs.
--out FILE.json writes that file; --out DIR writes DIR/results.json.
"""
import argparse
import json
import math
import os
import socket
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the document builders below need no torch (tests/cli_verify.sh uses them)
    torch = F = None

OPS = ["sum", "softmax", "rmsnorm", "layernorm", "add_layernorm", "cross_entropy"]
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16} if torch else {}
DTYPE_BYTES = {"f32": 4, "bf16": 2, "f16": 2}
PHASES = ["gpu", "gpu_graph", "e2e", "single", "single_gpu"]
TIMED_PHASE = "gpu_graph"


# ---------------------------------------------------------------- the results schema

def bytes_min(op, m, n, dname):
    """Minimal bytes of one call, by rowreduce's rule: each input read once (a col input once,
    an index 8 bytes per row), each output written once."""
    e = DTYPE_BYTES[dname]
    row, col, scalar = m * n * e, n * e, m * e
    return {"sum": row + scalar, "softmax": 2 * row, "rmsnorm": 2 * row + col,
            "layernorm": 2 * row + 2 * col, "add_layernorm": 4 * row + 2 * col,
            "cross_entropy": row + 8 * m + scalar}[op]


def writes_row(op):
    return op not in ("sum", "cross_entropy")


def phase_doc(samples, batch, nbytes):
    median = statistics.median(samples)
    return {"available": True, "batch": int(batch), "samples_us": [float(v) for v in samples],
            "median_us": float(median), "min_us": float(min(samples)), "max_us": float(max(samples)),
            "tbps": nbytes / median / 1e6 if nbytes > 0 and median > 0 else 0.0,
            "fraction_of_ceiling": None}


def row_doc(peer, op, dname, m, n, l2_mode, sets, validated, total, max_abs, samples=None, batch=0,
            error=None):
    """One peer row. validated/total: output elements within tolerance / compared. samples:
    the gpu_graph samples (µs per call) when the row was timed."""
    nbytes = bytes_min(op, m, n, dname)
    valid = total > 0 and validated == total
    state = "error" if error and total == 0 else "measured" if valid and samples else "invalid"
    why = {"gpu": "peers are timed as CUDA-graph replays only",
           "e2e": "peers are timed as CUDA-graph replays only",
           "single": "peers are timed as CUDA-graph replays only",
           "single_gpu": "peers are timed as CUDA-graph replays only"}
    phases = {}
    for name in PHASES:
        if name == TIMED_PHASE and state == "measured":
            phases[name] = phase_doc(samples, batch, nbytes)
        else:
            phases[name] = {"available": False, "reason": why.get(name, "not timed: " + (
                error or "the output failed validation"))}
    return {"state": state, "error": error, "peer": peer, "kernel": op,
            "kernel_source_sha256": None, "dtype": dname, "M": m, "N": n, "plan": None,
            "source_sha256": None, "binary_sha256": None, "source_file": None,
            "l2": {"mode": l2_mode, "buffer_sets": sets, "working_set_bytes": nbytes * sets,
                   "over_twice_l2": False},
            "validation": {"valid": valid, "validated": validated, "total": total,
                           "max_abs_error": float(max_abs), "max_rel_error": None,
                           "first_failure": None},
            "bytes_min": nbytes, "ceiling": "copy" if writes_row(op) else "read", "phases": phases}


def results_doc(argv, device, versions, protocol, rows, start_time, wall_seconds):
    """The whole file. device: description, name, compute_capability, multiprocessors,
    memory_bytes, l2_bytes. protocol: samples, sample_ms, warmup_ms, seed, l2_mode."""
    counts = {s: sum(1 for r in rows if r["state"] == s) for s in ("measured", "invalid", "error")}
    l2_bytes = device.get("l2_bytes", 0)
    for r in rows:
        r["l2"]["over_twice_l2"] = r["l2"]["working_set_bytes"] > 2 * l2_bytes
    return {
        "schema_version": 1, "tool": "rowreduce-peers", "kind": "peers",
        "command_line": " ".join(argv), "argv": list(argv), "start_time": start_time,
        "wall_seconds": float(wall_seconds), "host": socket.gethostname(), "backend": "cuda",
        "device": {"description": device["description"], "name": device["name"], "uuid": None,
                   "compute_capability": device.get("compute_capability"),
                   "multiprocessors": device.get("multiprocessors", 0),
                   "memory_bytes": device.get("memory_bytes", 0), "l2_bytes": l2_bytes,
                   "sm_clock_mhz_at_start": 0, "mem_clock_mhz_at_start": 0},
        "versions": dict({"rowreduce": None, "git_commit": None, "driver": None,
                          "kernel_compiler": None, "build_compiler": None}, **versions),
        "binary": None, "library": None,
        "protocol": {"samples": protocol["samples"], "sample_ms": float(protocol["sample_ms"]),
                     "warmup_ms": float(protocol["warmup_ms"]), "seed": protocol["seed"],
                     "plan": "peer", "phases": PHASES,
                     "l2": {"mode": protocol["l2_mode"], "l2_bytes": l2_bytes,
                            "working_set_target_bytes": 2 * l2_bytes if protocol["l2_mode"] == "cold" else 0},
                     "sample_unit": "us_per_op",
                     "statistic": "median over samples; each sample is a CUDA-graph replay of a "
                                  "calibrated batch of calls timed by events, / batch"},
        "ceilings": {"requested": False, "copy": None, "read": None},
        "rows": rows,
        "summary": {"rows": len(rows), "measured": counts["measured"],
                    "invalid": counts["invalid"], "errors": counts["error"]},
    }


def write_results(doc, out):
    """Atomically: out itself when it ends in .json, else out/results.json."""
    if not out.endswith(".json"):
        os.makedirs(out, exist_ok=True)
        out = os.path.join(out, "results.json")
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, out)
    return out


# ---------------------------------------------------------------- measuring (needs torch, a GPU)


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
    """(validated, total, max abs error): output elements within tolerance of a float64
    computation, over every output."""
    with torch.no_grad():
        got = fn(*inputs)
    got = got if isinstance(got, tuple) else (got,)
    want = reference(op, inputs, n)
    tol = {torch.float32: (1e-4, 1e-5), torch.float16: (4e-3, 2e-3), torch.bfloat16: (2e-2, 1.6e-2)}[dtype]
    validated = total = 0
    worst = 0.0
    for g, w in zip(got, want):
        g = g.double()
        scale = max(w.abs().max().item(), 1e-30)
        err = (g - w).abs()
        ok = (err <= tol[1] * scale + tol[0] * w.abs()) & ~torch.isnan(g)
        validated += int(ok.sum().item())
        total += ok.numel()
        worst = max(worst, float(torch.nan_to_num(err, nan=float("inf")).max().item()))
    return validated, total, worst


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
    ap.add_argument("--out", required=True, help="FILE.json, or a folder for results.json")
    a = ap.parse_args()
    if torch is None:
        sys.exit("torch_peers.py: PyTorch is not installed")
    started, t0 = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), time.time()
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
                    try:
                        validated, total, worst = check(op, fn, one, n, dtype)
                        samples, batch, error = None, 0, None
                        if validated == total:
                            with torch.no_grad():
                                samples, batch = time_graph(fn, input_sets, a.sample_ms, a.samples, a.warmup_ms)
                        else:
                            error = "validation failed, max abs error %g" % worst
                        row = row_doc(name, op, dname, m, n, a.l2, sets, validated, total, worst,
                                      samples, batch, error)
                    except Exception as e:  # a peer that cannot run a shape is recorded, not fatal
                        msg = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
                        row = row_doc(name, op, dname, m, n, a.l2, sets, 0, 0, 0.0, error=msg)
                    rows.append(row)
                    ph = row["phases"][TIMED_PHASE]
                    print("%-8s %-14s %-5s %6dx%-7d %s" % (name, op, dname, m, n,
                          "%.2f us" % ph["median_us"] if ph["available"] else row["error"] or row["state"]),
                          file=sys.stderr, flush=True)
                del input_sets, one
                torch.cuda.empty_cache()
    versions = {"torch": torch.__version__, "cuda_runtime": torch.version.cuda,
                "kernel_compiler": "torch %s" % torch.__version__}
    try:
        import triton
        versions["triton"] = triton.__version__
        versions["kernel_compiler"] += ", triton %s" % triton.__version__
    except Exception:
        pass
    device = {"description": "%s (sm_%d%d, %d SMs)" % (props.name, props.major, props.minor,
                                                       props.multi_processor_count),
              "name": props.name, "compute_capability": "%d.%d" % (props.major, props.minor),
              "multiprocessors": props.multi_processor_count, "memory_bytes": props.total_memory,
              "l2_bytes": l2}
    protocol = {"samples": a.samples, "sample_ms": a.sample_ms, "warmup_ms": a.warmup_ms,
                "seed": 1234, "l2_mode": a.l2}
    doc = results_doc(sys.argv, device, versions, protocol, rows, started, time.time() - t0)
    print("wrote", write_results(doc, a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
