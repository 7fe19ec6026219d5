"""Runs one peer kernel (torch.compile or eager) a few times on one workload, for `ncu` to
profile next to rowreduce's own launch (tools/gpu/session.sh, stage ncu).
Usage: python3 bench/lab/ncu_peer.py OP MxN DTYPE [compile|eager|liger]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "peers"))
import torch  # noqa: E402
import torch_peers as tp  # noqa: E402

op, shape, dname = sys.argv[1:4]
variant = sys.argv[4] if len(sys.argv) > 4 else "compile"
m, n = (int(v) for v in shape.split("x"))
dtype = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dname]
inputs = tp.make_inputs(op, m, n, dtype, torch.Generator(device="cuda").manual_seed(1))
fn = tp.eager_fn(op, n)
if variant == "compile":
    fn = torch.compile(fn, dynamic=False)
elif variant == "liger":
    fn = tp.liger_fn(op, n)
    if fn is None:
        sys.exit("ncu_peer: Liger has no %s here (liger_kernel not importable)" % op)
for _ in range(6):
    fn(*inputs)
torch.cuda.synchronize()
