#!/usr/bin/env python3
"""A small model block under torch.compile(fullgraph=True), once with rowreduce.torch's operators
and once with PyTorch's own: h = x + residual; y = softmax(rms_norm(h) @ W). The rowreduce block
is validated against the eager PyTorch block (and both against float64), captured as a CUDA graph
(showing the custom operators are capturable), and the two compiled blocks are timed in
alternating rounds on one stream (CUDA-graph replays, events). Writes DIR/model_block.json and
DIR/model_block.md.

    python3 bench/model_block.py --out bench/results/DIR [--dtypes f32,bf16]
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import rowreduce  # noqa: E402
import rowreduce.torch as rt  # noqa: E402

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
TOLERANCE = {"f32": (1e-4, 1e-5), "f16": (4e-3, 2e-3), "bf16": (2e-2, 1.6e-2)}  # rtol, atol x max|want|


def block_rowreduce(x, residual, w, proj):
    h = x + residual
    n = rt.rms_norm(h, (h.shape[-1],), w, 1e-6)
    return rt.softmax(n @ proj), h


def block_torch(x, residual, w, proj):
    h = x + residual
    n = F.rms_norm(h, (h.shape[-1],), w, 1e-6)
    return torch.softmax(n @ proj, -1), h


def within(got, want, dname):
    """(all within tolerance, max abs error) of got against a float64 want."""
    rtol, atol = TOLERANCE[dname]
    g = got.double()
    err = (g - want).abs()
    scale = max(float(want.abs().max()), 1e-30)
    ok = bool(((err <= atol * scale + rtol * want.abs()) & torch.isfinite(g)).all())
    return ok, float(err.max())


def graph_of(fn, args, calls, stream):
    for _ in range(2):  # warm-up outside capture (compilation, autotuning)
        fn(*args)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(calls):
            out = fn(*args)
    return graph, out


def replay_us(graph, calls, stream):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(stream):
        start.record()
        graph.replay()
        end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1000.0 / calls


def run(dname, args, stream):
    dtype = DTYPES[dname]
    dev = args.device
    g = torch.Generator(device=dev).manual_seed(args.seed)
    t, d, v = args.tokens, args.hidden, args.vocab
    x = torch.randn(t, d, generator=g, device=dev).to(dtype)
    residual = torch.randn(t, d, generator=g, device=dev).to(dtype)
    w = (1 + 0.1 * torch.randn(d, generator=g, device=dev)).to(dtype)
    proj = (torch.randn(d, v, generator=g, device=dev) / d ** 0.5).to(dtype)
    inputs = (x, residual, w, proj)
    compiled_rr = torch.compile(block_rowreduce, fullgraph=True, dynamic=False)
    compiled_torch = torch.compile(block_torch, fullgraph=True, dynamic=False)
    record = {"dtype": dname, "tokens": t, "hidden": d, "vocab": v}
    with torch.no_grad(), (torch.cuda.stream(stream) if stream is not None else _Null()):
        want = block_torch(*[a.double() for a in inputs])
        eager = block_torch(*inputs)
        got = compiled_rr(*inputs)
        also = compiled_torch(*inputs)
        if stream is not None:
            torch.cuda.synchronize()
        # rowreduce's block against eager PyTorch in the block's dtype, and each against float64
        # (the matmul's rounding in bf16 differs between paths: the float64 check is the judge).
        record["validation"] = {
            "rowreduce_vs_float64": [within(a, b, dname) for a, b in zip(got, want)],
            "torch_compiled_vs_float64": [within(a, b, dname) for a, b in zip(also, want)],
            "torch_eager_vs_float64": [within(a, b, dname) for a, b in zip(eager, want)],
            "rowreduce_vs_eager_max_abs": [float((a.double() - b.double()).abs().max()) for a, b in zip(got, eager)],
        }
        # Valid: within the dtype's tolerance of float64, or no further from it than twice PyTorch's
        # own eager block (a bf16 matmul's rounding can exceed the tolerance for both).
        rr_check = record["validation"]["rowreduce_vs_float64"]
        eager_check = record["validation"]["torch_eager_vs_float64"]
        valid = all(ok for ok, _ in rr_check) or all(a <= 2 * b for (_, a), (_, b) in zip(rr_check, eager_check))
        record["valid"] = valid
        explain = getattr(torch._dynamo, "explain", None)
        if explain is not None:
            e = explain(block_rowreduce)(*inputs)
            record["graph_breaks"] = e.graph_break_count
            record["graphs"] = e.graph_count
        if not valid or args.device == "cpu":
            return record
        graphs = {}
        for name, fn in (("rowreduce", compiled_rr), ("torch", compiled_torch)):
            graph, out = graph_of(fn, inputs, args.calls, stream)
            graph.replay()
            torch.cuda.synchronize()
            record.setdefault("graph_replay_valid", {})[name] = all(within(a, b, dname)[0] for a, b in zip(out, want))
            graphs[name] = graph
        samples = {"rowreduce": [], "torch": []}
        for r in range(args.rounds):
            order = ["rowreduce", "torch"] if r % 2 == 0 else ["torch", "rowreduce"]
            for name in order:
                replay_us(graphs[name], args.calls, stream)
                samples[name].extend(replay_us(graphs[name], args.calls, stream) for _ in range(args.samples))
        record["samples_us"] = samples
        record["median_us"] = {k: statistics.median(s) for k, s in samples.items()}
        record["ratio_torch_over_rowreduce"] = record["median_us"]["torch"] / record["median_us"]["rowreduce"]
    return record


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtypes", default="f32,bf16")
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--calls", type=int, default=20, help="blocks per CUDA graph")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cpu: validation and graph-break count only (no timing), for a dry run")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("model_block.py: no CUDA device (--device cpu for a dry run without timing)")
    torch.backends.cuda.matmul.allow_tf32 = False
    os.makedirs(args.out, exist_ok=True)
    stream = torch.cuda.Stream() if args.device == "cuda" else None
    doc = {"tool": "rowreduce-model-block", "command_line": " ".join(sys.argv),
           "start_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "device": torch.cuda.get_device_name(0) if stream is not None else "cpu (dry run)", "torch": torch.__version__,
           "rowreduce": rowreduce.version(), "git_commit": rowreduce.git_commit(),
           "block": "h = x + residual; y = softmax(rms_norm(h, eps=1e-6) @ W); returns (y, h)",
           "timing": "torch.compile(fullgraph=True) of each block, a CUDA graph of `calls` blocks "
                     "replayed between events on one stream, rounds alternating which goes first",
           "runs": []}
    for dname in args.dtypes.split(","):
        doc["runs"].append(run(dname, args, stream))
        r = doc["runs"][-1]
        print("%-5s valid=%s %s" % (dname, r["valid"], {k: "%.1f us" % v for k, v in r.get("median_us", {}).items()}),
              file=sys.stderr, flush=True)
    lines = ["# Model block: rowreduce.torch vs PyTorch ops, both under torch.compile(fullgraph=True)", "",
             doc["block"] + ". " + doc["timing"] + ".", "",
             "| dtype | T x D -> V | valid (vs float64) | graph breaks | rowreduce block us | torch block us | torch / rowreduce |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for r in doc["runs"]:
        m = r.get("median_us", {})
        lines.append("| %s | %dx%d -> %d | %s | %s | %s | %s | %s |" % (
            r["dtype"], r["tokens"], r["hidden"], r["vocab"], r["valid"], r.get("graph_breaks", "-"),
            "%.1f" % m["rowreduce"] if m else "-", "%.1f" % m["torch"] if m else "-",
            "%.3f" % r["ratio_torch_over_rowreduce"] if m else "-"))
    for name, text in (("model_block.json", json.dumps(doc, indent=1) + "\n"), ("model_block.md", "\n".join(lines) + "\n")):
        path = os.path.join(args.out, name)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    print("\n".join(lines))
    return 0 if all(r["valid"] for r in doc["runs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
