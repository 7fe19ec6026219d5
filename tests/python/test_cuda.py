"""The Python binding on a GPU: CUDA tensors used in place on PyTorch's current stream, views with
an offset, preallocated outputs, the argument errors of CUDA tensors, and rowreduce.torch inside
torch.compile(fullgraph=True, inductor) and CUDA graph capture. Skipped without PyTorch or a GPU
(run on the lent GPU machine by bench/python_h200.sh).
"""
import os
import unittest

SANITIZED = "libasan" in os.environ.get("LD_PRELOAD", "")
try:
    import torch
    import torch.nn.functional as F
    HAVE_CUDA = not SANITIZED and torch.cuda.is_available()
except ImportError:
    HAVE_CUDA = False

import rowreduce


def close(got, want, dtype):
    rtol, atol = {torch.float32: (1e-4, 1e-5), torch.bfloat16: (2e-2, 1.6e-2), torch.float16: (4e-3, 2e-3)}[dtype]
    scale = max(float(want.abs().max()), 1e-30)
    return bool(((got.double() - want).abs() <= atol * scale + rtol * want.abs()).all())


@unittest.skipUnless(HAVE_CUDA, "needs PyTorch with a CUDA device")
class Cuda(unittest.TestCase):
    def test_every_builtin_on_cuda(self):
        import rowreduce.torch as rt
        g = torch.Generator(device="cuda").manual_seed(1)
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            x = (torch.rand(3, 5, 1000, generator=g, device="cuda") * 6 - 3).to(dtype)
            r = (torch.rand(3, 5, 1000, generator=g, device="cuda") * 6 - 3).to(dtype)
            w = (1 + 0.1 * torch.randn(1000, generator=g, device="cuda")).to(dtype)
            b = (0.1 * torch.randn(1000, generator=g, device="cuda")).to(dtype)
            t = torch.randint(0, 1000, (3, 5), generator=g, device="cuda")
            t[2, 2] = -100
            d = lambda v: v.double()
            cases = {
                "sum": (rt.sum(x), d(x).sum(-1)),
                "softmax": (rt.softmax(x), torch.softmax(d(x), -1)),
                "rms_norm": (rt.rms_norm(x, (1000,), w, 1e-6), F.rms_norm(d(x), (1000,), d(w), 1e-6)),
                "layer_norm": (rt.layer_norm(x, (1000,), w, b), F.layer_norm(d(x), (1000,), d(w), d(b))),
                "add_layer_norm": (rt.add_layer_norm(x, r, w, b)[0], F.layer_norm(d(x) + d(r), (1000,), d(w), d(b))),
                "cross_entropy": (rt.cross_entropy(x, t), F.cross_entropy(
                    d(x).reshape(-1, 1000), t.reshape(-1), reduction="none").reshape(3, 5)),
            }
            for name, (got, want) in cases.items():
                self.assertTrue(got.is_cuda and got.dtype == dtype, name)
                self.assertTrue(close(got, want, dtype), "%s %s" % (name, dtype))

    def test_in_place_on_the_current_stream(self):
        k = rowreduce.load("softmax")
        big = torch.randn(10, 4096, device="cuda")
        x = big[3:7]  # contiguous rows at an offset
        y = torch.empty_like(x)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            out = k(x=x, out={"y": y})
        self.assertIs(out["y"], y)
        side.synchronize()
        self.assertTrue(close(y, torch.softmax(x.double(), -1), torch.float32))

    def test_errors(self):
        k = rowreduce.load("rmsnorm")
        x = torch.randn(4, 64, device="cuda")
        w = torch.ones(64, device="cuda")
        with self.assertRaisesRegex(ValueError, "all arrays of a call must be of one kind on one device"):
            k(x=x, w=torch.ones(64))
        with self.assertRaisesRegex(TypeError, "torch.float64; accepted are"):
            k(x=x.double(), w=w.double())
        with self.assertRaisesRegex(ValueError, "is not contiguous"):
            k(x=torch.randn(4, 128, device="cuda")[:, :64], w=w)
        with self.assertRaisesRegex(ValueError, r"has shape \(63,\) but must have shape \(64,\)"):
            k(x=x, w=w[:63])
        with self.assertRaisesRegex(ValueError, "device='cpu' was asked for"):
            k(x=x, w=w, device="cpu")
        with self.assertRaisesRegex(ValueError, r"holds 64 at position 1; indices must lie in \[0, 64\)"):
            rowreduce.load("cross_entropy")(x=x, t=torch.tensor([0, 64, 1, 2], device="cuda"))

    def test_compile_inductor_and_graph_capture(self):
        import rowreduce.torch as rt

        def block(x, r, w, m):
            h = x + r
            return rt.softmax(rt.rms_norm(h, (256,), w, 1e-6) @ m), rt.sum(h), h

        g = torch.Generator(device="cuda").manual_seed(2)
        args = [torch.randn(64, 256, generator=g, device="cuda"), torch.randn(64, 256, generator=g, device="cuda"),
                torch.rand(256, generator=g, device="cuda"), torch.randn(256, 512, generator=g, device="cuda") / 16]
        compiled = torch.compile(block, fullgraph=True)
        want = block(*args)
        got = compiled(*args)
        for a, b in zip(got, want):
            self.assertTrue(torch.allclose(a, b, rtol=1e-4, atol=1e-5))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            compiled(*args)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            captured = compiled(*args)
        args[0].add_(1.0)  # the replay must read the new values
        graph.replay()
        torch.cuda.synchronize()
        for a, b in zip(captured, block(*args)):
            self.assertTrue(torch.allclose(a, b, rtol=1e-4, atol=1e-5))

    def test_cross_entropy_during_capture(self):
        import rowreduce.torch as rt
        x = torch.randn(4, 32, device="cuda")
        t = torch.tensor([1, -100, 3, 5], device="cuda")
        rt.cross_entropy(x, t)  # the program is built outside capture
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            loss = rt.cross_entropy(x, t)
        t.copy_(torch.tensor([1, -100, 99, 5], device="cuda"))  # 99 is outside [0, 32)
        graph.replay()
        torch.cuda.synchronize()
        self.assertEqual(float(loss[1]), 0.0)
        self.assertTrue(bool(torch.isnan(loss[2])))
        self.assertTrue(bool(torch.isfinite(loss[[0, 3]]).all()))


if __name__ == "__main__":
    unittest.main(verbosity=2)
