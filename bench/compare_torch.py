#!/usr/bin/env python3
"""rowreduce through its Python binding beside PyTorch eager, torch.compile, Liger and QuACK
(where importable), in one process on one stream, written as a results folder that
`rowreduce verify` audits (docs/results-schema.md, "kind": "peers").

Per configuration (kernel, dtype, shape): inputs in buffer sets (L2 cold: enough sets to pass
twice the L2); every implementation is run on every set and each output element compared with a
float64 computation before anything is timed (an invalid one is never timed); then --rounds
rounds, the implementations' order rotated and reversed from round to round so each holds every
position; in a round each takes --samples samples. On cuda a sample is a CUDA graph of whole
buffer rotations replayed and timed with events (phase gpu_graph); on cpu (a dry run of the
protocol) the host wall time of a batch (phase e2e). Each rowreduce row carries the best peer and
the ratio best peer time / rowreduce time (above 1: rowreduce is faster) per round and overall.

    python3 bench/compare_torch.py --suite seed --dtypes f32,bf16 --out bench/results/DIR
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import signal
import socket
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import rowreduce  # noqa: E402

OPS = ["sum", "softmax", "rmsnorm", "layernorm", "add_layernorm", "cross_entropy"]
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
# The C validator's tolerances (src/validate/validate.h): rtol, atol (atol in units of max |want|),
# and tiny, the dtype's subnormal spacing.
TOLERANCE = {"f32": (1e-4, 1e-5), "f16": (4e-3, 2e-3), "bf16": (2e-2, 1.6e-2)}
TINY = {"f32": 2.0 ** -149, "f16": 2.0 ** -24, "bf16": 2.0 ** -133}
# The reference's error-bound rules (src/ref/reference.h): f32 unit roundoff, a sum's lambda, the
# rounding allowed exp, log, rsqrt (3 ULP = 6u) and exp's extra per unit of its argument.
U = 2.0 ** -24
SUM_LAMBDA = 8.0
FUNCTION_ROUNDING = 6 * U
EXP_ROUNDING_PER_ARGUMENT = 2.4 * U
PHASES = ["gpu", "gpu_graph", "e2e", "single", "single_gpu"]
EPS = {"rmsnorm": 1e-6, "layernorm": 1e-5, "add_layernorm": 1e-5}
MAX_SETS = 1024       # buffer sets at most (tiny shapes then stay in the L2: recorded)
MAX_GRAPH_CALLS = 4096


# ------------------------------------------------------------ inputs, reference, implementations

def make_inputs(op, m, n, dtype, gen, device):
    """The inputs of one buffer set, keyed by the built-in kernel's input names."""
    def rows():
        return (torch.rand(m, n, generator=gen, device=device) * 6 - 3).to(dtype)
    a = {"x": rows()}
    if op in ("rmsnorm", "layernorm", "add_layernorm"):
        a["w"] = (1 + 0.1 * torch.randn(n, generator=gen, device=device)).to(dtype)
    if op in ("layernorm", "add_layernorm"):
        a["b"] = (0.1 * torch.randn(n, generator=gen, device=device)).to(dtype)
    if op == "add_layernorm":
        a["r"] = rows()
    if op == "cross_entropy":
        a["t"] = torch.randint(0, n, (m,), generator=gen, device=device)
    return a


def torch_op(op, n):
    """PyTorch's own computation as a function of the inputs in kernel order -> outputs tuple."""
    eps = EPS.get(op)
    if op == "sum":
        return lambda x: (x.sum(-1),)
    if op == "softmax":
        return lambda x: (torch.softmax(x, -1),)
    if op == "rmsnorm":
        return lambda x, w: (F.rms_norm(x, (n,), w, eps),)
    if op == "layernorm":
        return lambda x, w, b: (F.layer_norm(x, (n,), w, b, eps),)
    if op == "add_layernorm":
        def add_layernorm(x, r, w, b):
            h = x + r
            return F.layer_norm(h, (n,), w, b, eps), h
        return add_layernorm
    if op == "cross_entropy":
        return lambda x, t: (F.cross_entropy(x, t, reduction="none"),)
    raise ValueError(op)


def reference(op, a, n):
    """Float64 outputs keyed by output name."""
    names = OUTPUTS[op]
    args = [a[k].double() if a[k].is_floating_point() else a[k] for k in INPUTS[op]]
    return dict(zip(names, torch_op(op, n)(*args)))


INPUTS = {"sum": ["x"], "softmax": ["x"], "rmsnorm": ["x", "w"], "layernorm": ["x", "w", "b"],
          "add_layernorm": ["x", "r", "w", "b"], "cross_entropy": ["x", "t"]}
OUTPUTS = {"sum": ["s"], "softmax": ["y"], "rmsnorm": ["y"], "layernorm": ["y"],
           "add_layernorm": ["y", "h"], "cross_entropy": ["loss"]}


def positional(op, fn):
    """fn(*inputs in kernel order) -> tuple, as a function of a buffer set -> {output: tensor}."""
    names, outs = INPUTS[op], OUTPUTS[op]

    def call(a):
        got = fn(*[a[k] for k in names])
        got = got if isinstance(got, (tuple, list)) else (got,)
        return dict(zip(outs, got))
    return call


def impl_rowreduce(op, n):
    kernel = rowreduce.load(op)
    eps = EPS.get(op)
    params = {"eps": eps} if eps is not None else {}
    return lambda a: kernel(check_index=False, **a, **params)


def impl_compile(op, n):
    return positional(op, torch.compile(torch_op(op, n), dynamic=False, fullgraph=True))


def impl_liger(op, n):
    eps = EPS.get(op)
    if op == "rmsnorm":
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction
        return positional(op, lambda x, w: LigerRMSNormFunction.apply(x, w, eps))
    if op == "layernorm":
        from liger_kernel.ops.layer_norm import LigerLayerNormFunction
        return positional(op, lambda x, w, b: LigerLayerNormFunction.apply(x, w, b, eps))
    if op == "softmax":
        from liger_kernel.ops.softmax import LigerSoftmaxFunction
        return positional(op, lambda x: LigerSoftmaxFunction.apply(x))
    if op == "cross_entropy":
        from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
        return positional(op, lambda x, t: LigerCrossEntropyFunction.apply(x, t, None, -100, 0.0, 0.0, "none")[0])
    return None


def impl_quack(op, n):
    eps = EPS.get(op)
    if op == "rmsnorm":
        from quack.rmsnorm import rmsnorm
        return positional(op, lambda x, w: rmsnorm(x, w, eps=eps))
    if op == "softmax":
        from quack.softmax import softmax
        return positional(op, softmax)
    if op == "cross_entropy":
        from quack.cross_entropy import cross_entropy
        return positional(op, lambda x, t: cross_entropy(x, t, reduction="none"))
    if op == "layernorm":
        from quack.rmsnorm import layernorm_fwd  # weight and bias must be float32 there
        cache = {}

        def layernorm(x, w, b):
            key = (w.data_ptr(), b.data_ptr())
            if key not in cache:
                cache[key] = (w.float(), b.float())
            return layernorm_fwd(x, cache[key][0], cache[key][1], eps=eps)
        return positional(op, layernorm)
    return None


PEERS = {"eager": lambda op, n: positional(op, torch_op(op, n)), "compile": impl_compile,
         "liger": impl_liger, "quack": impl_quack}


def implementations(op, n, wanted, notes):
    """[(name, call)], rowreduce first; a peer that cannot be imported is left out (noted once)."""
    out = [("rowreduce", impl_rowreduce(op, n))] if "rowreduce" in wanted else []
    for name, make in PEERS.items():
        if name not in wanted:
            continue
        try:
            call = make(op, n)
        except Exception as e:  # not installed, or an API this script does not know
            notes.setdefault(name, "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:160] if str(e) else ""))
            continue
        if call is not None:
            out.append((name, call))
    return out


# ------------------------------------------------------------ validation

def f32_representation_error(v):
    """|v - float32(v)|: a param or const as the kernels compute with it."""
    return abs(v - float(torch.tensor(v, dtype=torch.float32)))


def sum_bound(t, e, n):
    """sum over the row of t (bounds e): sum of e + lambda * sqrt(n) * u * sum of |t|."""
    return e.sum(-1, keepdim=True) + SUM_LAMBDA * math.sqrt(n) * U * t.abs().sum(-1, keepdim=True)


def exp_bound(t, e):
    """exp(t), its bound: |r| e + (6 + 2.4|t|) u |r|."""
    r = torch.exp(t)
    return r, r * (e + FUNCTION_ROUNDING + EXP_ROUNDING_PER_ARGUMENT * t.abs())


def layernorm_bound(h, eh, w, b, n, eps):
    """The bound of y = d * inv * w + b, the layernorm of h (bounds eh), rule by rule as the
    reference follows specs/layernorm.rr: mean = sum(h) / N, d = h - mean, var = sum(d * d) / N,
    inv = rsqrt(var + eps)."""
    mean = h.sum(-1, keepdim=True) / n
    e_mean = sum_bound(h, eh, n) / n + U * mean.abs()
    d = h - mean
    e_d = eh + e_mean + U * d.abs()
    dd = d * d
    e_dd = 2 * d.abs() * e_d + e_d * e_d + U * dd
    var = dd.sum(-1, keepdim=True) / n
    e_var = sum_bound(dd, e_dd, n) / n + U * var
    v = var + eps
    e_v = e_var + f32_representation_error(eps) + U * v
    inv = torch.rsqrt(v)
    e_inv = inv * e_v / (2 * v) + FUNCTION_ROUNDING * inv
    t = d * inv
    e_t = inv * e_d + d.abs() * e_inv + e_d * e_inv + U * t.abs()
    tw = t * w
    e_tw = w.abs() * e_t + U * tw.abs()
    return e_tw + U * (tw + b).abs()


def error_bounds(op, a, n):
    """Per output, the float64 bound of the error an f32 evaluation of the built-in's formula
    carries (the C reference's rules, src/ref/reference.h): inputs exact, each operation's
    first-order propagation plus its own rounding, a sum's lambda * sqrt(N) * u * sum |t|. The
    validator allows it on top of the tolerance, as src/validate does."""
    x = a["x"].double()
    eps = EPS.get(op)
    if op == "sum":
        bounds = {"s": sum_bound(x, torch.zeros_like(x), n)}
    elif op in ("softmax", "cross_entropy"):  # max exact; t = x - m; s = sum(exp(t))
        m = x.max(-1, keepdim=True).values
        t = x - m
        p, e_p = exp_bound(t, U * t.abs())
        s = p.sum(-1, keepdim=True)
        e_s = sum_bound(p, e_p, n)
        if op == "softmax":
            y = p / s
            bounds = {"y": (e_p + y * e_s) / s + U * y}
        else:  # loss = m + log(s) - x[t]
            ls = torch.log(s)
            e_ls = e_s / s + FUNCTION_ROUNDING * ls.abs()
            head = m + ls
            e_head = e_ls + U * head.abs()
            loss = head - x.gather(-1, a["t"].unsqueeze(-1))
            bounds = {"loss": e_head + U * loss.abs()}
    elif op == "rmsnorm":  # inv = rsqrt(sum(x * x) / N + eps); y = x * inv * w
        w = a["w"].double()
        sq = x * x
        ms = sq.sum(-1, keepdim=True) / n
        e_ms = sum_bound(sq, U * sq, n) / n + U * ms
        v = ms + eps
        e_v = e_ms + f32_representation_error(eps) + U * v
        inv = torch.rsqrt(v)
        e_inv = inv * e_v / (2 * v) + FUNCTION_ROUNDING * inv
        t = x * inv
        e_t = x.abs() * e_inv + U * t.abs()
        bounds = {"y": w.abs() * e_t + U * (t * w).abs()}
    elif op == "layernorm":
        bounds = {"y": layernorm_bound(x, torch.zeros_like(x), a["w"].double(), a["b"].double(),
                                       n, eps)}
    elif op == "add_layernorm":
        h = x + a["r"].double()
        e_h = U * h.abs()
        bounds = {"y": layernorm_bound(h, e_h, a["w"].double(), a["b"].double(), n, eps),
                  "h": e_h}
    else:
        raise ValueError(op)
    # A bound that is not finite says nothing: 0, as in the C reference.
    return {k: torch.where(torch.isfinite(e), e, torch.zeros_like(e)) for k, e in bounds.items()}


def validate(op, impls, sets, n, dname):
    """Runs every implementation on every set against float64; {name: validation object}."""
    rtol, atol = TOLERANCE[dname]
    tiny = TINY[dname]
    result = {name: {"valid": True, "validated": 0, "total": 0, "max_abs_error": 0.0,
                     "max_rel_error": None, "first_failure": None, "error": None} for name, _ in impls}
    for a in sets:
        want = reference(op, a, n)
        bounds = error_bounds(op, a, n)
        for name, call in impls:
            v = result[name]
            if v["error"]:
                continue
            try:
                got = call(a)
            except Exception as e:  # a peer that cannot run a shape is recorded, not fatal
                v["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "")
                v["valid"] = False
                continue
            for key, w in want.items():
                g = got[key].double().reshape(w.shape)
                scale = max(float(w.abs().max()), 1e-30) if w.numel() else 1.0
                # The C validator's rule: tolerance plus the error bound of an f32 evaluation
                # (a sum's own rounding among them: lambda * sqrt(N) * u * sum |x|).
                bound = bounds[key].reshape(w.shape)
                err = (g - w).abs()
                ok = (err <= tiny + atol * scale + rtol * w.abs() + bound) & torch.isfinite(g)
                passed = int(ok.sum())
                v["validated"] += passed
                v["total"] += w.numel()
                finite = err[torch.isfinite(err)]
                if finite.numel():
                    v["max_abs_error"] = max(v["max_abs_error"], float(finite.max()))
                if passed != w.numel():
                    v["valid"] = False
    return result


# ------------------------------------------------------------ timing

class CudaTimer:
    """Samples of µs per call: a CUDA graph of whole buffer rotations, replayed `reps` times
    between two events on the one stream."""
    phase = "gpu_graph"

    def __init__(self, stream):
        self.stream = stream

    def prepare(self, call, sets, sample_ms, warmup_ms):
        calls = len(sets) * max(1, min(MAX_GRAPH_CALLS, 64) // len(sets))
        graph = self._capture(call, sets, calls)
        end = time.time() + warmup_ms / 1000
        ms = self._replay(graph, 1)
        while time.time() < end:
            ms = self._replay(graph, 1)
        per_call = max(ms / calls, 1e-5)
        # Enough whole rotations for about a sample, at most MAX_GRAPH_CALLS calls per graph.
        want = max(1, int(sample_ms / per_call))
        calls = len(sets) * max(1, min(want, MAX_GRAPH_CALLS) // len(sets))
        graph = self._capture(call, sets, calls)
        self._replay(graph, 1)
        reps = max(1, int(round(want / calls)))
        return graph, calls, reps

    def _capture(self, call, sets, calls):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=self.stream):
            for i in range(calls):
                call(sets[i % len(sets)])
        return graph

    def _replay(self, graph, reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        with torch.cuda.stream(self.stream):
            start.record()
            for _ in range(reps):
                graph.replay()
            end.record()
        end.synchronize()
        return start.elapsed_time(end)

    def sample(self, prepared):
        graph, calls, reps = prepared
        return self._replay(graph, reps) * 1000.0 / (calls * reps)


class CpuTimer:
    """The cpu dry run: host wall time of a batch of calls (phase e2e)."""
    phase = "e2e"

    def prepare(self, call, sets, sample_ms, warmup_ms):
        end = time.time() + warmup_ms / 1000
        calls, t = 0, time.perf_counter()
        while time.time() < end or calls < len(sets):
            call(sets[calls % len(sets)])
            calls += 1
        per_call_ms = (time.perf_counter() - t) * 1000 / calls
        batch = len(sets) * max(1, int(sample_ms / per_call_ms) // len(sets))
        return call, sets, batch

    def sample(self, prepared):
        call, sets, batch = prepared
        t = time.perf_counter()
        for i in range(batch):
            call(sets[i % len(sets)])
        return (time.perf_counter() - t) * 1e6 / batch


def rounds_order(names, r):
    """Round r's order: rotated by r, reversed in odd rounds, so positions balance out."""
    k = r % len(names)
    order = names[k:] + names[:k]
    return order[::-1] if r % 2 else order


def measure(impls, sets, timer, args):
    """({name: (samples in order taken, per-round medians, batch)} over args.rounds rounds,
    {name: why it could not be timed})."""
    prepared, failed = {}, {}
    for name, call in impls:
        try:
            prepared[name] = timer.prepare(call, sets, args.sample_ms, args.warmup_ms)
        except Exception as e:  # e.g. a peer that cannot be captured in a CUDA graph
            failed[name] = "cannot be timed: %s" % (str(e).strip().splitlines() or ["?"])[0][:200]
            try:
                torch.cuda.synchronize()
            except Exception:
                pass
    names = [name for name, _ in impls if name in prepared]
    samples = {name: [] for name in names}
    rounds = {name: [] for name in names}
    for r in range(args.rounds):
        for name in rounds_order(names, r):
            timer.sample(prepared[name])  # one untimed sample: the position's own warm-up
            got = [timer.sample(prepared[name]) for _ in range(args.samples)]
            samples[name].extend(got)
            rounds[name].append(statistics.median(got))
    batch = {name: (p[1] * p[2] if timer.phase == "gpu_graph" else p[2]) for name, p in prepared.items()}
    results = {name: (samples[name], rounds[name], batch[name]) for name in names}
    return results, failed


# ------------------------------------------------------------ results

def num(v):
    return v if v is not None and math.isfinite(v) else None


REASON_MAX = 191


def phase_object(timed, phase, samples, batch, bytes_min, reason):
    if phase != timed or samples is None:
        return {"available": False, "reason": reason if phase == timed else
                "compare_torch.py times the %s phase only" % timed}
    ordered = sorted(samples)
    median = statistics.median(ordered)
    return {"available": True, "batch": batch, "samples_us": [num(s) for s in samples],
            "median_us": num(median), "min_us": num(ordered[0]), "max_us": num(ordered[-1]),
            "tbps": num(bytes_min / median / 1e6) if bytes_min and median > 0 else 0,
            "fraction_of_ceiling": None}


def bytes_of(op, m, n, elem):
    b = {"x": m * n * elem, "r": m * n * elem, "w": n * elem, "b": n * elem, "t": 8 * m}
    total = sum(b[k] for k in INPUTS[op])
    for out in OUTPUTS[op]:
        total += m * n * elem if out in ("y", "h") else m * elem
    return total


def make_row(op, dname, m, n, name, bytes_min, l2, validation, timed, result, rr_kernel):
    state = "error" if validation["error"] else ("measured" if validation["valid"] else "invalid")
    if state == "measured" and result is None:
        state, validation["error"] = "error", "not timed"
    samples, rounds, batch = result if result else (None, None, None)
    reason = {"error": "not run: %s" % validation["error"], "invalid": "failed validation: never timed"}.get(state)
    if reason:
        reason = reason[:REASON_MAX]  # a phase's reason is at most this long in results.json
    row = {"state": state, "error": validation["error"], "peer": name, "kernel": op,
           "kernel_source_sha256": None, "dtype": dname, "M": m, "N": n, "plan": None,
           "source_sha256": None, "binary_sha256": None, "source_file": None, "l2": l2,
           "validation": {k: validation[k] for k in ("valid", "validated", "total", "max_abs_error",
                                                     "max_rel_error", "first_failure")},
           "bytes_min": bytes_min, "ceiling": "copy" if any(o in ("y", "h") for o in OUTPUTS[op]) else "read",
           "phases": {p: phase_object(timed, p, samples, batch, bytes_min, reason) for p in PHASES}}
    row["validation"]["max_abs_error"] = num(row["validation"]["max_abs_error"])
    if rounds is not None:
        row["round_p50_us"] = rounds
    if name == "rowreduce" and rr_kernel is not None:
        row["kernel_source_sha256"] = rr_kernel.source_sha256
        try:
            row["plan"] = rr_kernel.layout(dname, n, "cuda" if timed == "gpu_graph" else "cpu", m)
        except Exception:
            pass
    return row


def add_ratios(rows, timed):
    """On each rowreduce row: the fastest peer and best peer time / rowreduce time."""
    for rr in rows:
        if rr["peer"] != "rowreduce":
            continue
        rr.update(best_peer=None, ratio_to_best_peer=None, ratio_per_round=None)
        if rr["state"] != "measured":
            continue
        peers = [p for p in rows if p["peer"] != "rowreduce" and p["state"] == "measured"
                 and (p["kernel"], p["dtype"], p["M"], p["N"]) == (rr["kernel"], rr["dtype"], rr["M"], rr["N"])]
        if not peers:
            continue
        best = min(peers, key=lambda p: p["phases"][timed]["median_us"])
        rr["best_peer"] = best["peer"]
        rr["ratio_to_best_peer"] = num(best["phases"][timed]["median_us"] / rr["phases"][timed]["median_us"])
        rr["ratio_per_round"] = [num(b / a) for a, b in zip(rr["round_p50_us"], best["round_p50_us"])]


def device_object(device):
    if device == "cpu":
        return {"description": "cpu (dry run)", "name": "cpu", "uuid": None, "compute_capability": None,
                "multiprocessors": os.cpu_count() or 0, "memory_bytes": 0, "l2_bytes": 0,
                "sm_clock_mhz_at_start": 0, "mem_clock_mhz_at_start": 0}
    p = torch.cuda.get_device_properties(0)
    return {"description": "%s (sm_%d%d, %d SMs)" % (p.name, p.major, p.minor, p.multi_processor_count),
            "name": p.name, "uuid": str(getattr(p, "uuid", "")) or None,
            "compute_capability": "%d.%d" % (p.major, p.minor), "multiprocessors": p.multi_processor_count,
            "memory_bytes": p.total_memory, "l2_bytes": getattr(p, "L2_cache_size", 0),
            "sm_clock_mhz_at_start": 0, "mem_clock_mhz_at_start": 0}


def versions_object():
    v = {"rowreduce": rowreduce.version(), "git_commit": rowreduce.git_commit(), "driver": None,
         "kernel_compiler": None, "build_compiler": None, "torch": torch.__version__,
         "cuda": torch.version.cuda, "python": sys.version.split()[0]}
    for name in ("triton", "liger_kernel", "quack", "numpy"):
        try:
            module = __import__(name)
            v[name] = getattr(module, "__version__", "unknown")
        except Exception:
            v[name] = None
    try:
        v["driver"] = str(torch._C._cuda_getDriverVersion())
    except Exception:
        pass
    return v


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def comparison_md(doc, timed):
    lines = ["# rowreduce beside its peers (%s, L2 %s, %s)" % (doc["device"]["description"],
                                                              doc["protocol"]["l2"]["mode"], timed),
             "", "Median µs per call (phase %s); ratio = best peer time / rowreduce time (above 1: "
             "rowreduce is faster), with its range over rounds." % timed, "",
             "| kernel | dtype | M x N | rowreduce | " + " | ".join(doc["peers_measured"]) +
             " | best peer | ratio | per-round range |",
             "| --- | --- | --- | ---: | " + " | ".join("---:" for _ in doc["peers_measured"]) + " | --- | ---: | --- |"]
    cell = {}
    for row in doc["rows"]:
        key = (row["kernel"], row["dtype"], row["M"], row["N"])
        ph = row["phases"][timed]
        cell.setdefault(key, {})[row["peer"]] = ("%.2f" % ph["median_us"]) if ph["available"] else row["state"]
    for row in doc["rows"]:
        if row["peer"] != "rowreduce":
            continue
        key = (row["kernel"], row["dtype"], row["M"], row["N"])
        ratios = [r for r in (row.get("ratio_per_round") or []) if r is not None]
        lines.append("| %s | %s | %dx%d | %s | %s | %s | %s | %s |" % (
            row["kernel"], row["dtype"], row["M"], row["N"], cell[key].get("rowreduce"),
            " | ".join(cell[key].get(p, "-") for p in doc["peers_measured"]), row.get("best_peer") or "-",
            "%.3f" % row["ratio_to_best_peer"] if row.get("ratio_to_best_peer") else "-",
            "%.3f..%.3f" % (min(ratios), max(ratios)) if ratios else "-"))
    if doc["peers_missing"]:
        lines += ["", "Not measured (not importable here): " +
                  "; ".join("%s (%s)" % kv for kv in sorted(doc["peers_missing"].items()))]
    left = doc["not_measured"]["configurations"]
    if left:
        why = ("stopped by %s" % doc["not_measured"]["signal"] if doc["not_measured"].get("signal")
               else "past the %g s time limit" % doc["not_measured"]["time_limit_s"])
        lines += ["", "Not measured (%s): %s" % (why, "; ".join(left))]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------ main

def read_shapes(args):
    if args.shapes:
        text = args.shapes.replace(",", "\n")
    else:
        path = args.suite if os.path.exists(args.suite) else os.path.join(HERE, "suites", args.suite + ".txt")
        if not os.path.exists(path):
            sys.exit("compare_torch.py: no suite '%s' (bench/suites/NAME.txt or a file)" % args.suite)
        text = open(path).read()
    shapes = []
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if line:
            try:
                m, n = (int(v) for v in line.lower().split("x"))
            except ValueError:
                sys.exit("compare_torch.py: '%s' is not a shape MxN" % line)
            shapes.append((m, n))
    return shapes


def configure_compile():
    """Raises dynamo's recompile limits so no configuration silently runs eagerly, and makes
    hitting one an error rather than a fallback."""
    cfg = torch._dynamo.config
    for key in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                "accumulated_cache_size_limit"):
        if hasattr(cfg, key):
            setattr(cfg, key, 100000)
    if hasattr(cfg, "fail_on_recompile_limit_hit"):
        cfg.fail_on_recompile_limit_hit = True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="seed", help="seed, large (bench/suites/NAME.txt) or a file")
    ap.add_argument("--shapes", help="MxN[,MxN...] instead of a suite")
    ap.add_argument("--dtypes", default="f32,bf16")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--impls", default="rowreduce,eager,compile,liger,quack")
    ap.add_argument("--l2", choices=["hot", "cold"], default="cold")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--samples", type=int, default=3, help="samples per implementation per round")
    ap.add_argument("--sample-ms", type=float, default=10)
    ap.add_argument("--warmup-ms", type=float, default=50)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cpu: a dry run of the protocol on CPU tensors (phase e2e)")
    ap.add_argument("--time-limit", type=float, default=0,
                    help="seconds: no configuration starts past this; the ones left are listed in "
                         "the results as not measured (0: no limit)")
    ap.add_argument("--out", required=True, help="results folder (created)")
    args = ap.parse_args()
    for d in args.dtypes.split(","):
        if d not in DTYPES:
            sys.exit("compare_torch.py: dtype '%s': allowed are f32, bf16, f16" % d)
    for op in args.ops.split(","):
        if op not in OPS:
            sys.exit("compare_torch.py: kernel '%s': allowed are %s" % (op, ", ".join(OPS)))
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("compare_torch.py: no CUDA device (use --device cpu for a dry run)")
    os.makedirs(args.out, exist_ok=True)
    if not os.access(args.out, os.W_OK):
        sys.exit("compare_torch.py: cannot write to %s" % args.out)
    shapes = read_shapes(args)
    wanted = args.impls.split(",")
    torch.backends.cuda.matmul.allow_tf32 = False
    configure_compile()
    started, t0 = datetime.datetime.now(datetime.timezone.utc), time.time()
    device = args.device
    dev = device_object(device)
    l2_bytes = dev["l2_bytes"] or 64 * 2**20
    stream = torch.cuda.Stream() if device == "cuda" else None
    timer = CudaTimer(stream) if device == "cuda" else CpuTimer()
    gen = torch.Generator(device=device)
    gen.manual_seed(args.seed)
    rows, notes, seen, skipped = [], {}, [], []
    # SIGTERM or SIGINT (a `timeout` around the run, Ctrl-C): the configuration being measured
    # finishes, the ones left are listed as not measured, and the folder is written as at the
    # time limit, so a cut run keeps what it measured.
    stop = {}

    def on_signal(signum, _frame):
        stop.setdefault("signal", signal.Signals(signum).name)
        print("compare_torch.py: %s: finishing this configuration, then writing the results"
              % stop["signal"], file=sys.stderr, flush=True)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, on_signal)
    context = torch.cuda.stream(stream) if stream is not None else _null()
    with context, torch.no_grad():
        for op in args.ops.split(","):
            for dname in args.dtypes.split(","):
                dtype = DTYPES[dname]
                elem = torch.tensor([], dtype=dtype).element_size()
                for (m, n) in shapes:
                    if stop or (args.time_limit > 0 and time.time() - t0 > args.time_limit):
                        skipped.append("%s %s %dx%d" % (op, dname, m, n))
                        continue
                    torch._dynamo.reset()
                    bytes_min = bytes_of(op, m, n, elem)
                    sets_n = 1 if args.l2 == "hot" else min(2 * l2_bytes // bytes_min + 1, MAX_SETS)
                    try:
                        sets = [make_inputs(op, m, n, dtype, gen, device) for _ in range(sets_n)]
                    except RuntimeError as e:  # out of memory: recorded for every implementation
                        sets, err = None, "inputs: %s" % str(e).splitlines()[0][:200]
                    impls = implementations(op, n, wanted, notes)
                    for name, _ in impls:
                        if name not in seen:
                            seen.append(name)
                    l2 = {"mode": args.l2, "buffer_sets": sets_n, "working_set_bytes": bytes_min * sets_n,
                          "over_twice_l2": bytes_min * sets_n > 2 * l2_bytes}
                    if sets is None:
                        valid = {name: {"valid": False, "validated": 0, "total": 0, "max_abs_error": 0.0,
                                        "max_rel_error": None, "first_failure": None, "error": err}
                                 for name, _ in impls}
                    else:
                        valid = validate(op, impls, sets, n, dname)
                    good = [(name, call) for name, call in impls if valid[name]["valid"]]
                    results, failed = measure(good, sets, timer, args) if good else ({}, {})
                    for name, reason in failed.items():
                        valid[name]["error"] = reason
                    for name, _ in impls:
                        rows.append(make_row(op, dname, m, n, name, bytes_min, l2, valid[name], timer.phase,
                                             results.get(name), rowreduce.load(op) if name == "rowreduce" else None))
                        r = rows[-1]
                        ph = r["phases"][timer.phase]
                        print("%-9s %-14s %-5s %7dx%-7d %s" % (name, op, dname, m, n, "%.2f us" % ph["median_us"]
                              if ph["available"] else "%s %s" % (r["state"], r["error"] or "")),
                              file=sys.stderr, flush=True)
                    del sets
                    if device == "cuda":
                        torch.cuda.empty_cache()
    add_ratios(rows, timer.phase)
    lib = rowreduce.library_path()
    doc = {
        "schema_version": 1, "tool": "rowreduce-peers", "kind": "peers",
        "command_line": " ".join(sys.argv), "argv": list(sys.argv),
        "start_time": started.strftime("%Y-%m-%dT%H:%M:%SZ"), "wall_seconds": time.time() - t0,
        "host": socket.gethostname(), "backend": device, "device": dev, "versions": versions_object(),
        "binary": None, "library": None,
        "rowreduce_library": {"path": lib, "sha256": hashlib.sha256(open(lib, "rb").read()).hexdigest()},
        "protocol": {"samples": args.samples, "sample_ms": args.sample_ms, "warmup_ms": args.warmup_ms,
                     "seed": args.seed, "plan": "peer", "phases": PHASES,
                     "l2": {"mode": args.l2, "l2_bytes": l2_bytes,
                            "working_set_target_bytes": 2 * l2_bytes if args.l2 == "cold" else 0},
                     "sample_unit": "us_per_op", "rounds": args.rounds,
                     "order": "round r: the implementations rotated by r, reversed in odd rounds; one "
                              "untimed sample, then `samples` samples at each position",
                     "statistic": "median of all samples; ratio_to_best_peer = best peer median / "
                                  "rowreduce median; ratio_per_round from round_p50_us"},
        "ceilings": {"requested": False, "copy": None, "read": None},
        "peers_measured": [s for s in seen if s != "rowreduce"], "peers_missing": notes,
        "not_measured": {"time_limit_s": args.time_limit, "configurations": skipped,
                         "signal": stop.get("signal")},
        "rows": rows,
        "summary": {"rows": len(rows), "measured": sum(r["state"] == "measured" for r in rows),
                    "invalid": sum(r["state"] == "invalid" for r in rows),
                    "errors": sum(r["state"] == "error" for r in rows)},
    }
    write_atomic(os.path.join(args.out, "results.json"), json.dumps(doc, indent=1, allow_nan=False) + "\n")
    write_atomic(os.path.join(args.out, "comparison.md"), comparison_md(doc, timer.phase))
    print(open(os.path.join(args.out, "comparison.md")).read())
    return 1 if doc["summary"]["invalid"] else 0


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
