#!/usr/bin/env python3
"""rowreduce's cpu backend beside ONNX Runtime's fused CPU kernels and NumPy, in one process, on
the same inputs, interleaved, written as a results folder that `rowreduce verify` audits
(docs/results-schema.md, "kind": "peers"; phase e2e: host wall time of a batch of calls / batch).

ONNX Runtime graphs (opset 17, 2 intra-op threads unless --ort-threads, all graph optimisations):
sum = ReduceSum, softmax = Softmax, rmsnorm = SimplifiedLayerNormalization, layernorm =
LayerNormalization, add_layernorm = Add + LayerNormalization (ORT fuses it; both outputs kept),
cross_entropy = SoftmaxCrossEntropyLoss (reduction none). bf16 configurations: rowreduce reads
and writes bf16; ONNX Runtime and NumPy have no bf16 kernels for these ops, so they run in f32
on the same (bf16-valued) inputs, reading and writing twice the bytes; said in each row.

Per configuration: every implementation's outputs are checked against float64 (the C
validator's tolerances) before anything is timed; then --rounds rounds, the implementations'
order rotated and reversed from round to round; per round one untimed sample, then --samples
samples of a batch calibrated to --sample-ms. ONNX Runtime runs twice: with its intra-op threads
spinning between runs (its default, "onnxruntime") and with spinning off
("onnxruntime_nospin"). Spinning threads keep both cores busy while the next implementation
runs (rowreduce bf16 rmsnorm 64x4096 measured 292 µs after them, 75 µs after the session
without spinning), so the spinning session is timed alone, in --rounds rounds of its own after
the interleaved ones, and each row is compared with the faster of the two. rowreduce gets the
same second window: timed again alone ("rowreduce_alone", its rounds between the interleaved
ones and ONNX Runtime's spinning ones), its time the faster of its two windows (both recorded),
so that a disturbance inside the interleaved rounds, which ONNX Runtime's spinning window
escapes, does not decide a row alone. rowreduce is called through its library
(rr_program_launch on preallocated arrays, the same entry the Python binding uses), ONNX Runtime
through IO binding on preallocated arrays, NumPy with out= where it has one.

    python3 bench/peers/onnx_cpu.py --shapes 64x4096,1024x1024 --dtypes f32,bf16 --out DIR
Needs: numpy, onnx, onnxruntime (PyPI), librowreduce (the build's; RR_LIBRARY to choose).
"""
import argparse
import ctypes
import datetime
import hashlib
import json
import math
import os
import platform
import socket
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import numpy as np  # noqa: E402

import rowreduce  # noqa: E402
from rowreduce import _lib  # noqa: E402

OPS = ["sum", "softmax", "rmsnorm", "layernorm", "add_layernorm", "cross_entropy"]
INPUTS = {"sum": ["x"], "softmax": ["x"], "rmsnorm": ["x", "w"], "layernorm": ["x", "w", "b"],
          "add_layernorm": ["x", "r", "w", "b"], "cross_entropy": ["x", "t"]}
OUTPUTS = {"sum": ["s"], "softmax": ["y"], "rmsnorm": ["y"], "layernorm": ["y"],
           "add_layernorm": ["y", "h"], "cross_entropy": ["loss"]}
EPS = {"rmsnorm": 1e-6, "layernorm": 1e-5, "add_layernorm": 1e-5}
TOLERANCE = {"f32": (1e-4, 1e-5), "bf16": (2e-2, 1.6e-2)}  # rtol, atol in units of max |want|
PHASES = ["gpu", "gpu_graph", "e2e", "single", "single_gpu"]
TIMED = "e2e"
CACHE_BYTES = 64 * 2**20  # the cache size rowreduce bench assumes on cpu (its --l2 cold)
RR_DTYPE = {"f32": _lib.RR_F32, "bf16": _lib.RR_BF16}


# ------------------------------------------------------------ inputs and the reference

def to_bf16_bits(a):
    """float32 -> bfloat16 bits, round to nearest even (rowreduce's rule; no NaN here)."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def make_inputs(op, m, n, dname, rng):
    """{name: f32 array (bf16-valued for bf16)}, and {name: the array rowreduce reads}."""
    a = {"x": (rng.random((m, n), dtype=np.float32) * 6 - 3)}
    if op in ("rmsnorm", "layernorm", "add_layernorm"):
        a["w"] = (1 + 0.1 * rng.standard_normal(n)).astype(np.float32)
    if op in ("layernorm", "add_layernorm"):
        a["b"] = (0.1 * rng.standard_normal(n)).astype(np.float32)
    if op == "add_layernorm":
        a["r"] = (rng.random((m, n), dtype=np.float32) * 6 - 3)
    ours = {}
    for k, v in list(a.items()):
        if dname == "bf16":
            ours[k] = to_bf16_bits(v)
            a[k] = from_bf16_bits(ours[k]).reshape(v.shape)
        else:
            ours[k] = v
    if op == "cross_entropy":
        a["t"] = ours["t"] = rng.integers(0, n, size=m, dtype=np.int64)
    return a, ours


def reference(op, a):
    """float64 outputs in OUTPUTS order."""
    x = a["x"].astype(np.float64)
    if op == "sum":
        return [x.sum(-1)]
    if op == "softmax":
        e = np.exp(x - x.max(-1, keepdims=True))
        return [e / e.sum(-1, keepdims=True)]
    if op == "rmsnorm":
        return [x / np.sqrt((x * x).mean(-1, keepdims=True) + EPS[op]) * a["w"]]
    if op == "cross_entropy":
        mx = x.max(-1, keepdims=True)
        lse = (mx + np.log(np.exp(x - mx).sum(-1, keepdims=True)))[:, 0]
        return [lse - x[np.arange(x.shape[0]), a["t"]]]
    h = x + a["r"].astype(np.float64) if op == "add_layernorm" else x
    mu = h.mean(-1, keepdims=True)
    var = ((h - mu) ** 2).mean(-1, keepdims=True)
    y = (h - mu) / np.sqrt(var + EPS[op]) * a["w"] + a["b"]
    return [y, h] if op == "add_layernorm" else [y]


def check(got, want, dname):
    """(validated, total, max abs error) over every output element."""
    rtol, atol = TOLERANCE[dname]
    validated = total = 0
    worst = 0.0
    for g, w in zip(got, want):
        g = g.astype(np.float64)
        err = np.abs(g - w)
        ok = (err <= atol * max(np.abs(w).max(), 1e-30) + rtol * np.abs(w)) & ~np.isnan(g)
        validated += int(ok.sum())
        total += ok.size
        worst = max(worst, float(np.nan_to_num(err, nan=np.inf).max()))
    return validated, total, worst


# ------------------------------------------------------------ implementations
# Each builder returns (call, outputs): call() computes into the preallocated outputs, which
# read back as f32 arrays in OUTPUTS order.

def build_rowreduce(op, m, n, dname, ours, plan):
    kernel = rowreduce.Kernel(op, plan=plan.get(op) if plan else None)
    program = kernel.program(RR_DTYPE[dname], m, n, "cpu")
    lib = kernel._lib
    storage = np.uint16 if dname == "bf16" else np.float32
    outs = [np.empty((m, n) if o in ("y", "h") else (m,), dtype=storage) for o in OUTPUTS[op]]
    names = [name for name, _, _ in kernel.inputs]
    args = (_lib.Arg * len(names))()
    for k, (name, kind, _) in enumerate(kernel.inputs):
        if kind == "param":
            args[k].value = EPS[op]
        else:
            arr = ours[name]
            args[k].data = arr.ctypes.data
            args[k].dtype = _lib.RR_I64 if arr.dtype == np.int64 else RR_DTYPE[dname]
    pointers = (ctypes.c_void_p * len(outs))(*[o.ctypes.data for o in outs])
    launch, rows = lib.rr_program_launch, m
    keep = (outs, ours, kernel)  # the raw pointers above stay valid while call lives

    def call():
        if launch(program, rows, args, pointers, None) != 0:
            raise RuntimeError(_lib.last_error())
    call.keep = keep

    buf = ctypes.create_string_buffer(128)
    lib.rr_layout_format(lib.rr_program_layout(program), buf, len(buf))
    read = (lambda: [from_bf16_bits(o).reshape(o.shape) for o in outs]) if dname == "bf16" \
        else (lambda: outs)
    return call, read, buf.value.decode(), kernel


def onnx_model(op, n):
    import onnx
    from onnx import TensorProto, helper
    f = TensorProto.FLOAT
    x = helper.make_tensor_value_info("x", f, ["M", n])
    ins, outs, nodes, inits = [x], [], [], []
    if op == "sum":
        inits.append(helper.make_tensor("axes", TensorProto.INT64, [1], [-1]))
        nodes.append(helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=0))
        outs.append(helper.make_tensor_value_info("s", f, ["M"]))
    elif op == "softmax":
        nodes.append(helper.make_node("Softmax", ["x"], ["y"], axis=-1))
        outs.append(helper.make_tensor_value_info("y", f, ["M", n]))
    elif op == "rmsnorm":
        ins.append(helper.make_tensor_value_info("w", f, [n]))
        nodes.append(helper.make_node("SimplifiedLayerNormalization", ["x", "w"], ["y"], axis=-1,
                                      epsilon=EPS[op], stash_type=1))
        outs.append(helper.make_tensor_value_info("y", f, ["M", n]))
    elif op in ("layernorm", "add_layernorm"):
        first = "x"
        if op == "add_layernorm":
            ins.append(helper.make_tensor_value_info("r", f, ["M", n]))
            nodes.append(helper.make_node("Add", ["x", "r"], ["h"]))
            first = "h"
        ins += [helper.make_tensor_value_info("w", f, [n]), helper.make_tensor_value_info("b", f, [n])]
        nodes.append(helper.make_node("LayerNormalization", [first, "w", "b"], ["y"], axis=-1,
                                      epsilon=EPS[op]))
        outs.append(helper.make_tensor_value_info("y", f, ["M", n]))
        if op == "add_layernorm":
            outs.append(helper.make_tensor_value_info("h", f, ["M", n]))
    elif op == "cross_entropy":
        ins.append(helper.make_tensor_value_info("t", TensorProto.INT64, ["M"]))
        nodes.append(helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["loss"], reduction="none"))
        outs.append(helper.make_tensor_value_info("loss", f, ["M"]))
    graph = helper.make_graph(nodes, op, ins, outs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString(), onnx.__version__


def build_onnxruntime(op, m, n, a, threads, spin):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    model, _ = onnx_model(op, n)
    session = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    binding = session.io_binding()
    bound = []  # ORT keeps raw pointers to these: they live as long as call
    for name in INPUTS[op]:
        arr = np.ascontiguousarray(a[name])
        binding.bind_cpu_input(name, arr)
        bound.append(arr)
    outs = []
    for o in OUTPUTS[op]:
        arr = np.empty((m, n) if o in ("y", "h") else (m,), dtype=np.float32)
        binding.bind_output(o, "cpu", 0, np.float32, list(arr.shape), arr.ctypes.data)
        outs.append(arr)
        bound.append(arr)
    run = session.run_with_iobinding

    def call():
        run(binding)
    call.keep = bound
    return call, lambda: outs


def build_numpy(op, m, n, a):
    x, eps = a["x"], EPS.get(op)
    y = np.empty((m, n), dtype=np.float32)
    v = np.empty((m, 1), dtype=np.float32)
    if op == "sum":
        s = np.empty(m, dtype=np.float32)
        return (lambda: np.sum(x, -1, out=s)), (lambda: [s])
    if op == "softmax":
        def call():
            np.max(x, -1, keepdims=True, out=v)
            np.subtract(x, v, out=y)
            np.exp(y, out=y)
            np.sum(y, -1, keepdims=True, out=v)
            np.divide(y, v, out=y)
        return call, lambda: [y]
    if op == "rmsnorm":
        w = a["w"]

        def call():
            np.multiply(x, x, out=y)
            np.mean(y, -1, keepdims=True, out=v)
            v[:] = 1 / np.sqrt(v + eps)
            np.multiply(x, v, out=y)
            np.multiply(y, w, out=y)
        return call, lambda: [y]
    if op in ("layernorm", "add_layernorm"):
        w, b = a["w"], a["b"]
        h = np.empty((m, n), dtype=np.float32) if op == "add_layernorm" else x
        mu = np.empty((m, 1), dtype=np.float32)

        def call():
            if op == "add_layernorm":
                np.add(x, a["r"], out=h)
            np.mean(h, -1, keepdims=True, out=mu)
            np.subtract(h, mu, out=y)
            np.mean(np.square(y), -1, keepdims=True, out=v)
            v[:] = 1 / np.sqrt(v + eps)
            np.multiply(y, v, out=y)
            np.multiply(y, w, out=y)
            np.add(y, b, out=y)
        return call, (lambda: [y, h]) if op == "add_layernorm" else (lambda: [y])
    if op == "cross_entropy":
        t, loss = a["t"], np.empty(m, dtype=np.float32)
        rows = np.arange(m)

        def call():
            np.max(x, -1, keepdims=True, out=v)
            np.subtract(x, v, out=y)
            np.exp(y, out=y)
            loss[:] = np.log(y.sum(-1)) + v[:, 0] - x[rows, t]
        return call, lambda: [loss]
    raise ValueError(op)


# ------------------------------------------------------------ timing

def calibrate(call, sample_ms, warmup_ms):
    """The batch of calls that takes about sample_ms, after warmup_ms of calls."""
    end = time.perf_counter() + warmup_ms / 1e3
    calls, start = 0, time.perf_counter()
    while True:
        call()
        calls += 1
        now = time.perf_counter()
        if now >= end and calls >= 3:
            break
    per_call = (now - start) / calls
    return max(1, min(100000, int(sample_ms / 1e3 / max(per_call, 1e-7))))


def sample(call, batch):
    """µs per call: host wall time of `batch` calls / batch."""
    t0 = time.perf_counter_ns()
    for _ in range(batch):
        call()
    return (time.perf_counter_ns() - t0) / 1e3 / batch


def rounds_order(names, r):
    """Round r's order: rotated by r, reversed in odd rounds, so positions balance out."""
    k = r % len(names)
    order = names[k:] + names[:k]
    return order[::-1] if r % 2 else order


# Timed after the interleaved rounds, each in rounds of its own: rowreduce's second window
# (before the spinning session, which keeps both cores busy after its runs), then
# the implementations that keep threads busy between their runs.
ALONE = ("rowreduce_alone", "onnxruntime")
# Rows that are rowreduce's, not a peer's.
OURS = ("rowreduce", "rowreduce_alone")


def measure(calls, args):
    """{name: (all samples, per-round medians, batch)}: the interleaved rounds, then each of
    ALONE in rounds of its own (calibrated there, so its spinning disturbs no other)."""
    samples = {name: [] for name in calls}
    rounds = {name: [] for name in calls}
    batch = {}

    def position(name):
        sample(calls[name], batch[name])  # the position's own warm-up, untimed
        got = [sample(calls[name], batch[name]) for _ in range(args.samples)]
        samples[name] += got
        rounds[name].append(statistics.median(got))

    names = [name for name in calls if name not in ALONE]
    for name in names:
        batch[name] = calibrate(calls[name], args.sample_ms, args.warmup_ms)
    for r in range(args.rounds):
        for name in rounds_order(names, r):
            position(name)
    for name in [n for n in ALONE if n in calls]:
        batch[name] = calibrate(calls[name], args.sample_ms, args.warmup_ms)
        for r in range(args.rounds):
            position(name)
    return {name: (samples[name], rounds[name], batch[name]) for name in calls}


# ------------------------------------------------------------ results

def num(v):
    return v if v is not None and math.isfinite(v) else None


def bytes_of(op, m, n, elem):
    """Minimal bytes of one call: each input read once (an index 8 bytes a row), each output
    written once, at `elem` bytes an element."""
    b = {"x": m * n * elem, "r": m * n * elem, "w": n * elem, "b": n * elem, "t": 8 * m}
    total = sum(b[k] for k in INPUTS[op])
    for out in OUTPUTS[op]:
        total += m * n * elem if out in ("y", "h") else m * elem
    return total


def phase_object(phase, samples, batch, nbytes, reason):
    if phase != TIMED or samples is None:
        return {"available": False, "reason": reason if phase == TIMED else
                "onnx_cpu.py times the host wall time of a batch (e2e) only"}
    ordered = sorted(samples)
    median = statistics.median(ordered)
    return {"available": True, "batch": batch, "samples_us": [num(s) for s in samples],
            "median_us": num(median), "min_us": num(ordered[0]), "max_us": num(ordered[-1]),
            "tbps": num(nbytes / median / 1e6) if nbytes and median > 0 else 0,
            "fraction_of_ceiling": None}


def make_row(op, dname, m, n, name, nbytes, l2, valid, result, note):
    state = "error" if valid["error"] else ("measured" if valid["valid"] else "invalid")
    samples, rounds, batch = result if result else (None, None, None)
    if state == "measured" and result is None:
        state, valid["error"] = "error", "not timed"
    reason = {"error": "not run: %s" % valid["error"], "invalid": "failed validation: never timed"}.get(state)
    row = {"state": state, "error": valid["error"], "peer": name, "kernel": op,
           "kernel_source_sha256": None, "dtype": dname, "M": m, "N": n, "plan": None,
           "source_sha256": None, "binary_sha256": None, "source_file": None, "l2": l2,
           "validation": {"valid": valid["valid"], "validated": valid["validated"],
                          "total": valid["total"], "max_abs_error": num(valid["max_abs_error"]),
                          "max_rel_error": None, "first_failure": None},
           "bytes_min": nbytes, "ceiling": "copy" if any(o in ("y", "h") for o in OUTPUTS[op]) else "read",
           "phases": {p: phase_object(p, samples, batch, nbytes, reason) for p in PHASES}}
    if rounds is not None:
        row["round_p50_us"] = rounds
    if note:
        row["note"] = note
    return row


def add_ratios(rows):
    """On each rowreduce row: its faster window (interleaved or alone) and that time, the
    fastest peer, best peer time / rowreduce's time, per round (the faster window's rounds)."""
    for rr in rows:
        if rr["peer"] != "rowreduce":
            continue
        rr.update(best_peer=None, ratio_to_best_peer=None, ratio_per_round=None, window=None,
                  window_us=None)
        if rr["state"] != "measured":
            continue
        same = [p for p in rows if p["state"] == "measured"
                and (p["kernel"], p["dtype"], p["M"], p["N"]) == (rr["kernel"], rr["dtype"], rr["M"], rr["N"])]
        mine = min([p for p in same if p["peer"] in OURS], key=lambda p: p["phases"][TIMED]["median_us"])
        rr["window"] = "alone" if mine["peer"] == "rowreduce_alone" else "interleaved"
        rr["window_us"] = num(mine["phases"][TIMED]["median_us"])
        peers = [p for p in same if p["peer"] not in OURS]
        if not peers:
            continue
        best = min(peers, key=lambda p: p["phases"][TIMED]["median_us"])
        rr["best_peer"] = best["peer"]
        rr["ratio_to_best_peer"] = num(best["phases"][TIMED]["median_us"] / rr["window_us"])
        rr["ratio_per_round"] = [num(b / a) for a, b in zip(mine["round_p50_us"], best["round_p50_us"])]


def run_ceilings(tool, out):
    """The copy and read ceilings of `rowreduce bench` (the cpu backend's own loops over its
    pool), in a bench folder of their own; returns their best GB/s."""
    import subprocess
    os.makedirs(out, exist_ok=True)
    cmd = [tool, "bench", "--backend", "cpu", "--kernels", "sum", "--shapes", "64x64",
           "--dtypes", "f32", "--samples", "7", "--out", out]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    doc = json.load(open(os.path.join(out, "results.json")))
    best = {}
    for kind in ("copy", "read"):
        c = doc["ceilings"].get(kind) or {}
        rates = [ph.get("tbps") for ph in (c.get("phases") or {}).values() if ph.get("available")]
        best[kind] = max(r for r in rates if r) * 1e3 if rates else None  # TB/s -> GB/s
    return best, " ".join(cmd)


def read_shapes(args):
    text = ""
    if args.shapes:
        text += args.shapes.replace(",", "\n") + "\n"
    if args.suite:
        path = args.suite if os.path.exists(args.suite) else os.path.join(HERE, "..", "suites", args.suite + ".txt")
        if not os.path.exists(path):
            sys.exit("onnx_cpu.py: no suite '%s' (bench/suites/NAME.txt or a file)" % args.suite)
        text += open(path).read()
    shapes = []
    for line in text.splitlines():
        for item in line.split("#")[0].replace(",", " ").split():
            try:
                m, n = (int(v) for v in item.lower().split("x"))
            except ValueError:
                sys.exit("onnx_cpu.py: '%s' is not a shape MxN" % item)
            if (m, n) not in shapes:
                shapes.append((m, n))
    if not shapes:
        sys.exit("onnx_cpu.py: no shapes: give --shapes MxN[,...] and/or --suite NAME")
    return shapes


def read_plans(text):
    """'softmax=W=16,V=1,U=1,R=1;sum=...' -> {kernel: layout text}."""
    plans = {}
    for part in filter(None, (text or "").split(";")):
        op, _, layout = part.partition("=")
        if op not in OPS or not layout:
            sys.exit("onnx_cpu.py: --plans wants KERNEL=LAYOUT;... with KERNEL among %s, got '%s'"
                     % (", ".join(OPS), part))
        plans[op] = layout
    return plans


def comparison_md(doc, ceilings, plans_note):
    copy = ceilings.get("copy")
    lines = ["# rowreduce (cpu) beside ONNX Runtime and NumPy", "",
             "- device: %s; %s" % (doc["device"]["description"], doc["versions"]["machine"]),
             "- command: `%s`" % doc["command_line"],
             "- ceilings (same run, `%s`): copy %.1f GB/s, read %.1f GB/s (best of before and after)"
             % (doc["ceilings_command"], copy or 0, ceilings.get("read") or 0),
             "- plans: %s" % plans_note,
             "- µs per call: host wall time of a calibrated batch / batch, median of all samples "
             "over %d interleaved rounds (rowreduce again, and ONNX Runtime with its threads spinning: "
             "each in rounds of its own after them); rowreduce µs = the faster of its interleaved and "
             "alone windows (both in brackets); ONNX Runtime µs = the faster of spinning and not (both "
             "in brackets); "
             "ratio = ONNX Runtime µs / rowreduce µs (above 1: rowreduce "
             "faster), its range over rounds in brackets; GB/s = rowreduce's minimal bytes / its "
             "median; of copy = that over the copy ceiling; traffic = minimal bytes of the "
             "configuration. bf16: ONNX Runtime and NumPy compute in f32 on the same values."
             % doc["protocol"]["rounds"], "",
             "| kernel | dtype | M x N | traffic MiB | rowreduce µs [interleaved / alone] | ONNX Runtime µs [spinning / not] | NumPy µs | ratio vs ORT | GB/s | of copy | target | rowreduce plan |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    cell = {}
    for row in doc["rows"]:
        cell.setdefault((row["kernel"], row["dtype"], row["M"], row["N"]), {})[row["peer"]] = row
    missed = 0
    for key, peers in cell.items():
        rr, np_row = peers.get("rowreduce"), peers.get("numpy")
        mine = rr
        if rr is not None and rr.get("window") == "alone":
            mine = peers.get("rowreduce_alone")
        ort_rows = [r for r in (peers.get("onnxruntime"), peers.get("onnxruntime_nospin"))
                    if r is not None]
        timed = [r for r in ort_rows if r["phases"][TIMED]["available"]]
        ort_row = min(timed, key=lambda r: r["phases"][TIMED]["median_us"]) if timed else \
            (ort_rows[0] if ort_rows else None)

        def us(r):
            if r is None:
                return "-"
            ph = r["phases"][TIMED]
            return "%.1f" % ph["median_us"] if ph["available"] else r["state"]

        def ort_cell(best, peers):
            return "%s [%s / %s]" % (us(best), us(peers.get("onnxruntime")),
                                     us(peers.get("onnxruntime_nospin")))
        ratio, gbs, frac, verdict = "-", "-", "-", "-"
        if rr and rr["phases"][TIMED]["available"]:
            med = mine["phases"][TIMED]["median_us"]
            gbs = "%.1f" % (rr["bytes_min"] / med / 1e3)
            need_copy = rr["bytes_min"] >= 64 * 2**20
            f = rr["bytes_min"] / med / 1e3 / copy if copy else None
            frac = "%.2f" % f if f else "-"
            ok = True
            if ort_row and ort_row["phases"][TIMED]["available"]:
                o = ort_row["phases"][TIMED]["median_us"]
                per = [b / a for a, b in zip(mine["round_p50_us"], ort_row["round_p50_us"])]
                ratio = "%.2f [%.2f..%.2f]" % (o / med, min(per), max(per))
                ok = o / med >= 1
            if need_copy and f is not None:
                ok = ok and f >= 0.7
            verdict = "met" if ok else "MISSED"
            missed += not ok
        lines.append("| %s | %s | %dx%d | %.1f | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            key[0], key[1], key[2], key[3], (rr or ort_row)["bytes_min"] / 2**20,
            "%s [%s / %s]" % (us(mine), us(rr), us(peers.get("rowreduce_alone"))) if rr else "-",
            ort_cell(ort_row, peers), us(np_row), ratio, gbs, frac, verdict,
            (rr or {}).get("plan") or "-"))
    lines += ["", "Targets: rowreduce >= ONNX Runtime on every row; rows of >= 64 MiB traffic at >= 70%% "
              "of the copy ceiling. Rows missing a target: %d of %d." % (missed, len(cell)), ""]
    return "\n".join(lines)


def cpu_description():
    model = "CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d online CPUs" % (model, os.cpu_count() or 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", help="seed, large (bench/suites/NAME.txt) or a file; with --shapes both")
    ap.add_argument("--shapes", help="MxN[,MxN...]")
    ap.add_argument("--dtypes", default="f32,bf16")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--samples", type=int, default=3, help="samples per implementation per round")
    ap.add_argument("--sample-ms", type=float, default=20)
    ap.add_argument("--warmup-ms", type=float, default=50)
    ap.add_argument("--ort-threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--plans", help="KERNEL=LAYOUT;... fixed rowreduce plans (default: the library's)")
    ap.add_argument("--rowreduce", default=os.path.join(HERE, "..", "..", "build", "rowreduce"),
                    help="the tool, for the ceilings (default build/rowreduce)")
    ap.add_argument("--out", required=True, help="results folder (created)")
    args = ap.parse_args()
    for d in args.dtypes.split(","):
        if d not in RR_DTYPE:
            sys.exit("onnx_cpu.py: dtype '%s': allowed are f32, bf16" % d)
    for op in args.ops.split(","):
        if op not in OPS:
            sys.exit("onnx_cpu.py: kernel '%s': allowed are %s" % (op, ", ".join(OPS)))
    try:
        import onnx  # noqa: F401
        import onnxruntime as ort
    except ImportError as e:
        sys.exit("onnx_cpu.py: %s (pip install numpy onnx onnxruntime)" % e)
    shapes, plans = read_shapes(args), read_plans(args.plans)
    os.makedirs(args.out, exist_ok=True)
    started, t0 = datetime.datetime.now(datetime.timezone.utc), time.time()
    ceilings, ceilings_cmd = run_ceilings(args.rowreduce, os.path.join(args.out, "ceilings-before"))
    rng = np.random.default_rng(args.seed)
    rows = []
    for op in args.ops.split(","):
        for dname in args.dtypes.split(","):
            for (m, n) in shapes:
                a, ours = make_inputs(op, m, n, dname, rng)
                want = reference(op, a)
                builders = [("rowreduce", None), ("onnxruntime", True), ("onnxruntime_nospin", False),
                            ("numpy", None)]
                calls, valid, notes, extra = {}, {}, {}, {}
                for name, spin in builders:
                    v = {"valid": False, "validated": 0, "total": 0, "max_abs_error": 0.0, "error": None}
                    try:
                        if name == "rowreduce":
                            call, read, layout, kernel = build_rowreduce(op, m, n, dname, ours, plans)
                            extra[name] = {"plan": layout, "kernel_source_sha256": kernel.source_sha256}
                        elif name.startswith("onnxruntime"):
                            call, read = build_onnxruntime(op, m, n, a, args.ort_threads, spin)
                        else:
                            call, read = build_numpy(op, m, n, a)
                        call()
                        v["validated"], v["total"], v["max_abs_error"] = check(read(), want, dname)
                        v["valid"] = v["total"] > 0 and v["validated"] == v["total"]
                        if v["valid"]:
                            calls[name] = call
                    except Exception as e:  # a peer that cannot run a shape is recorded, not fatal
                        v["error"] = "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:200])
                    valid[name] = v
                    if dname == "bf16" and name != "rowreduce":
                        notes[name] = "computes in f32 on the bf16-valued inputs (no bf16 kernel)"
                if "rowreduce" in calls:  # its second window: the same call, timed alone
                    calls["rowreduce_alone"] = calls["rowreduce"]
                valid["rowreduce_alone"] = valid["rowreduce"]
                extra["rowreduce_alone"] = extra.get("rowreduce", {})
                results = measure(calls, args) if calls else {}
                for name in [b[0] for b in builders] + ["rowreduce_alone"]:
                    elem = 2 if dname == "bf16" and name in OURS else 4 if dname == "bf16" else 4
                    nbytes = bytes_of(op, m, n, elem)
                    l2 = {"mode": "hot", "buffer_sets": 1, "working_set_bytes": nbytes,
                          "over_twice_l2": nbytes > 2 * CACHE_BYTES}
                    row = make_row(op, dname, m, n, name, nbytes, l2, valid[name], results.get(name),
                                   notes.get(name))
                    row.update(extra.get(name, {}))
                    rows.append(row)
                    ph = row["phases"][TIMED]
                    print("%-11s %-14s %-5s %6dx%-7d %s" % (name, op, dname, m, n, "%.1f us" % ph["median_us"]
                          if ph["available"] else "%s %s" % (row["state"], row["error"] or "")),
                          file=sys.stderr, flush=True)
                del a, ours, want, calls
    after, _ = run_ceilings(args.rowreduce, os.path.join(args.out, "ceilings-after"))
    for kind in ("copy", "read"):
        vals = [v for v in (ceilings.get(kind), after.get(kind)) if v]
        ceilings[kind] = max(vals) if vals else None
    add_ratios(rows)
    lib = rowreduce.library_path()
    copy_gbps = ceilings.get("copy")
    for row in rows:
        ph = row["phases"][TIMED]
        if ph["available"] and copy_gbps:  # beside the schema's phase (verify recomputes that)
            us = row.get("window_us") or ph["median_us"]  # rowreduce: its faster window
            row["fraction_of_copy"] = num(row["bytes_min"] / us / 1e3 / copy_gbps)
    versions = {"rowreduce": rowreduce.version(), "git_commit": rowreduce.git_commit(), "driver": None,
                "kernel_compiler": None, "build_compiler": None, "onnxruntime": ort.__version__,
                "onnx": onnx.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
                "machine": "%s, %s" % (platform.platform(), cpu_description())}
    doc = {
        "schema_version": 1, "tool": "rowreduce-peers", "kind": "peers",
        "command_line": " ".join(sys.argv), "argv": list(sys.argv),
        "start_time": started.strftime("%Y-%m-%dT%H:%M:%SZ"), "wall_seconds": time.time() - t0,
        "host": socket.gethostname(), "backend": "cpu",
        "device": {"description": cpu_description(), "name": "cpu", "uuid": None, "compute_capability": None,
                   "multiprocessors": os.cpu_count() or 0, "memory_bytes": 0, "l2_bytes": 0,
                   "sm_clock_mhz_at_start": 0, "mem_clock_mhz_at_start": 0},
        "versions": versions, "binary": None, "library": None,
        "rowreduce_library": {"path": lib, "sha256": hashlib.sha256(open(lib, "rb").read()).hexdigest()},
        "protocol": {"samples": args.samples, "sample_ms": args.sample_ms, "warmup_ms": args.warmup_ms,
                     "seed": args.seed, "plan": "peer", "phases": PHASES,
                     "l2": {"mode": "hot", "l2_bytes": CACHE_BYTES, "working_set_target_bytes": 0},
                     "sample_unit": "us_per_op", "rounds": args.rounds, "ort_intra_op_threads": args.ort_threads,
                     "order": "round r: the implementations rotated by r, reversed in odd rounds; one "
                              "untimed sample, then `samples` samples at each position; then "
                              "rowreduce_alone (rowreduce's call again) and onnxruntime (intra-op "
                              "threads spinning), each in rounds of its own",
                     "statistic": "median of all samples; rowreduce's window_us = the faster of its "
                                  "rows rowreduce and rowreduce_alone; ratio_to_best_peer = best peer "
                                  "median / window_us; ratio_per_round from round_p50_us"},
        "ceilings": {"requested": False, "copy": None, "read": None},
        "ceilings_gbps": ceilings, "ceilings_command": ceilings_cmd,
        "peers_measured": ["onnxruntime", "onnxruntime_nospin", "numpy"], "peers_missing": {},
        "rows": rows,
        "summary": {"rows": len(rows), "measured": sum(r["state"] == "measured" for r in rows),
                    "invalid": sum(r["state"] == "invalid" for r in rows),
                    "errors": sum(r["state"] == "error" for r in rows)},
    }
    plans_note = ("fixed by --plans: " + "; ".join("%s %s" % kv for kv in sorted(plans.items()))) if plans \
        else "the library's choice (tuning database, else the planner)"
    with open(os.path.join(args.out, "results.json.tmp"), "w") as f:
        f.write(json.dumps(doc, indent=1, allow_nan=False) + "\n")
    os.replace(os.path.join(args.out, "results.json.tmp"), os.path.join(args.out, "results.json"))
    text = comparison_md(doc, ceilings, plans_note)
    with open(os.path.join(args.out, "comparison.md.tmp"), "w") as f:
        f.write(text)
    os.replace(os.path.join(args.out, "comparison.md.tmp"), os.path.join(args.out, "comparison.md"))
    print(text)
    return 1 if doc["summary"]["invalid"] else 0


if __name__ == "__main__":
    sys.exit(main())
