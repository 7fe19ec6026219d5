"""The Python binding on the cpu backend with NumPy: every built-in and a kernel file validated
against float64 NumPy computations written here, preallocated outputs, views with an offset, the
program cache, and each argument error raising a clear exception. rowreduce.torch is checked
too when PyTorch is importable (not required). Run by tests/cli_python.sh.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import rowreduce

SANITIZED = "libasan" in os.environ.get("LD_PRELOAD", "")

# Per-dtype tolerances of the C validator (src/validate/validate.h): |got - want| <= atol *
# scale + rtol * |want|, scale = the largest |want|.
TOLERANCE = {np.float32: (1e-4, 1e-5), np.float16: (4e-3, 2e-3)}
RNG = np.random.default_rng(7)


def ref_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def ref_layernorm(h, w, b, eps):
    mean = h.mean(-1, keepdims=True)
    d = h - mean
    return d / np.sqrt((d * d).mean(-1, keepdims=True) + eps) * w + b


def reference(name, a, eps=None):
    """The float64 result of a built-in on float64 copies of its inputs `a`."""
    if name == "sum":
        return {"s": a["x"].sum(-1)}
    if name == "softmax":
        return {"y": ref_softmax(a["x"])}
    if name == "rmsnorm":
        x = a["x"]
        return {"y": x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * a["w"]}
    if name == "layernorm":
        return {"y": ref_layernorm(a["x"], a["w"], a["b"], eps)}
    if name == "add_layernorm":
        h = a["x"] + a["r"]
        return {"y": ref_layernorm(h, a["w"], a["b"], eps), "h": h}
    if name == "cross_entropy":
        x = a["x"]
        m = x.max(-1)
        lse = m + np.log(np.exp(x - m[..., None]).sum(-1))
        picked = np.take_along_axis(x, a["t"][..., None], -1)[..., 0]
        return {"loss": lse - picked}
    raise ValueError(name)


def make_inputs(name, shape, dtype):
    n = shape[-1]
    a = {"x": (RNG.random(shape) * 6 - 3).astype(dtype)}
    if name in ("rmsnorm", "layernorm", "add_layernorm"):
        a["w"] = (1 + 0.1 * RNG.standard_normal(n)).astype(dtype)
    if name in ("layernorm", "add_layernorm"):
        a["b"] = (0.1 * RNG.standard_normal(n)).astype(dtype)
    if name == "add_layernorm":
        a["r"] = (RNG.random(shape) * 6 - 3).astype(dtype)
    if name == "cross_entropy":
        a["t"] = RNG.integers(0, n, shape[:-1]).astype(np.int64)
    return a


class Base(unittest.TestCase):
    def assertClose(self, got, want, dtype, what):
        rtol, atol = TOLERANCE[dtype]
        self.assertEqual(got.shape, want.shape, what)
        self.assertEqual(got.dtype, np.dtype(dtype), what)
        g = got.astype(np.float64)
        scale = max(np.abs(want).max(), 1e-30)
        bad = ~(np.abs(g - want) <= atol * scale + rtol * np.abs(want))
        if bad.any():
            i = np.unravel_index(np.argmax(bad), bad.shape)
            self.fail("%s: element %s is %r, float64 gives %r" % (what, i, g[i], want[i]))


class Builtins(Base):
    def test_every_builtin_validates(self):
        names = rowreduce.builtin_names()
        self.assertEqual(sorted(names), ["add_layernorm", "cross_entropy", "layernorm", "rmsnorm",
                                         "softmax", "sum"])
        for name in names:
            kernel = rowreduce.load(name)
            eps = dict((n, d) for n, kind, d in kernel.inputs if kind == "param").get("eps")
            for dtype in (np.float32, np.float16):
                for shape in ((5, 300), (2, 3, 77), (1, 1031)):
                    with self.subTest(kernel=name, dtype=dtype.__name__, shape=shape):
                        a = make_inputs(name, shape, dtype)
                        out = kernel(**a)
                        want = reference(name, {k: v.astype(np.float64) if v.dtype != np.int64 else v
                                                for k, v in a.items()}, eps)
                        self.assertEqual(sorted(out), sorted(want))
                        for key in want:
                            self.assertClose(out[key], want[key], dtype, "%s.%s" % (name, key))

    def test_param_is_passed(self):
        a = make_inputs("rmsnorm", (4, 64), np.float32)
        a["x"] *= 1e-3  # so eps matters
        got = rowreduce.load("rmsnorm")(eps=0.5, **a)["y"]
        want = reference("rmsnorm", {k: v.astype(np.float64) for k, v in a.items()}, 0.5)["y"]
        self.assertClose(got, want, np.float32, "rmsnorm eps=0.5")

    def test_kernel_file(self):
        folder = tempfile.mkdtemp()
        try:
            path = os.path.join(folder, "meansq.rr")
            with open(path, "w") as f:
                f.write("# weighted mean square per row, scaled\nkernel meansq\n  in x : row\n  in w : col\n"
                        "  param alpha = 2\n  out s : rowscalar\n  s = sum(x * x * w) / N * alpha\n")
            kernel = rowreduce.load(path)
            self.assertEqual(kernel.name, "meansq")
            x = RNG.standard_normal((6, 129)).astype(np.float32)
            w = RNG.random(129).astype(np.float32)
            for alpha in (2.0, 0.25):
                got = kernel(x=x, w=w, alpha=alpha) if alpha != 2.0 else kernel(x=x, w=w)
                want = (x.astype(np.float64) ** 2 * w).sum(-1) / 129 * alpha
                self.assertClose(got["s"], want, np.float32, "meansq alpha=%g" % alpha)
            spec = os.path.join(os.environ.get("RR_SOURCE_DIR", "."), "specs", "softmax.rr")
            if os.path.exists(spec):
                self.assertEqual(rowreduce.load(spec)(x=x)["y"].shape, x.shape)
        finally:
            shutil.rmtree(folder)

    def test_preallocated_output_and_offset_view(self):
        kernel = rowreduce.load("add_layernorm")
        big = make_inputs("add_layernorm", (9, 100), np.float32)
        a = dict(big, x=big["x"][3:8], r=big["r"][1:6])  # contiguous rows, data at an offset
        self.assertNotEqual(a["x"].ctypes.data, big["x"].ctypes.data)
        y, h = np.full((5, 100), np.nan, np.float32), np.full((5, 100), np.nan, np.float32)
        out = kernel(out={"y": y, "h": h}, **a)
        self.assertIs(out["y"], y)
        self.assertIs(out["h"], h)
        want = reference("add_layernorm", {k: v.astype(np.float64) for k, v in a.items()}, 1e-5)
        self.assertClose(y, want["y"], np.float32, "y into out=")
        self.assertClose(h, want["h"], np.float32, "h into out=")

    def test_program_cache_per_dtype_and_length(self):
        kernel = rowreduce.load("sum")
        self.assertIs(kernel, rowreduce.load("sum"))
        kernel(x=np.ones((3, 40), np.float32))
        count = len(kernel._programs)
        kernel(x=np.ones((2, 40), np.float32))  # another M of the same class: the same program
        self.assertEqual(len(kernel._programs), count)
        kernel(x=np.ones((3, 41), np.float32))
        kernel(x=np.ones((3, 40), np.float16))
        self.assertEqual(len(kernel._programs), count + 2)
        # Many more rows: a program of its own, planned for them (more rows per group here),
        # and the 3-row program is not reused for it.
        big = kernel(x=np.ones((50000, 3), np.float32))["s"]
        self.assertEqual(len(kernel._programs), count + 3)
        self.assertTrue(np.all(big == 3.0))
        self.assertNotEqual(kernel.layout("f32", 3, rows=3), kernel.layout("f32", 3, rows=50000))

    def test_ignore_index(self):
        a = make_inputs("cross_entropy", (6, 50), np.float32)
        a["t"][[1, 4]] = -100
        got = rowreduce.load("cross_entropy")(ignore_index=-100, **a)["loss"]
        self.assertEqual(got[1], 0.0)
        self.assertEqual(got[4], 0.0)
        keep = [0, 2, 3, 5]
        want = reference("cross_entropy", {"x": a["x"][keep].astype(np.float64), "t": a["t"][keep]})["loss"]
        self.assertClose(got[keep], want, np.float32, "cross_entropy with ignored rows")

    def test_empty_rows(self):
        out = rowreduce.load("softmax")(x=np.ones((0, 16), np.float32))["y"]
        self.assertEqual(out.shape, (0, 16))

    def test_plan_hook(self):
        seen = []

        def source(kernel, dtype, rows, cols, backend):
            seen.append((kernel, dtype, cols, backend))
            return "W=4,V=2,U=1,R=1"
        rowreduce.set_plan_source(source)
        try:
            kernel = rowreduce.Kernel("softmax")  # a fresh kernel: no cached program
            x = RNG.standard_normal((3, 64)).astype(np.float32)
            y = kernel(x=x)["y"]
            self.assertEqual(seen, [("softmax", "f32", 64, "cpu")])
            self.assertTrue(kernel.layout("f32", 64).startswith("W=4,V=2,U=1,R=1"))
            self.assertClose(y, ref_softmax(x.astype(np.float64)), np.float32, "softmax with a given plan")
        finally:
            rowreduce.set_plan_source(None)


class Errors(unittest.TestCase):
    def raises(self, exc, pattern, fn, *args, **kw):
        with self.assertRaises(exc) as caught:
            fn(*args, **kw)
        self.assertRegex(str(caught.exception), pattern)
        return caught.exception

    def test_wrong_dtype(self):
        k = rowreduce.load("rmsnorm")
        x64 = np.ones((2, 8))
        self.raises(TypeError, r"input 'x' of kernel 'rmsnorm' is numpy.float64; accepted are", k,
                    x=x64, w=np.ones(8))
        self.raises(TypeError, r"'w' .* is numpy.float16 but 'x' is numpy.float32", k,
                    x=np.ones((2, 8), np.float32), w=np.ones(8, np.float16))
        self.raises(TypeError, r"index input must be int64", rowreduce.load("cross_entropy"),
                    x=np.ones((2, 8), np.float32), t=np.zeros(2, np.int32))
        self.raises(TypeError, r"output 'y' .* is numpy.float16 but must be numpy.float32", k,
                    x=np.ones((2, 8), np.float32), w=np.ones(8, np.float32),
                    out={"y": np.ones((2, 8), np.float16)})
        self.raises(TypeError, r"expected a NumPy array or a PyTorch tensor", k, x=[[1.0]], w=np.ones(1))

    def test_wrong_device(self):
        x = np.ones((2, 8), np.float32)
        self.raises(ValueError, r"device='cuda' was asked for .* the cuda backend needs CUDA tensors",
                    rowreduce.load("softmax"), x=x, device="cuda")
        self.raises(ValueError, r"device must be None, 'cpu' or 'cuda'", rowreduce.load("softmax"), x=x,
                    device="tpu")

    def test_non_contiguous_rows(self):
        k = rowreduce.load("softmax")
        wide = np.ones((4, 12), np.float32)
        self.raises(ValueError, r"input 'x' of kernel 'softmax' is not contiguous", k, x=wide[:, :8])
        self.raises(ValueError, r"is not contiguous", k, x=wide.T)
        self.raises(ValueError, r"output 'y' .* is not contiguous", k, x=np.ones((4, 6), np.float32),
                    out={"y": wide[:, ::2]})

    def test_read_only_output(self):
        k = rowreduce.load("softmax")
        y = np.zeros((4, 6), np.float32)
        y.setflags(write=False)
        self.raises(ValueError, r"output 'y' of kernel 'softmax' is read-only", k,
                    x=np.ones((4, 6), np.float32), out={"y": y})
        self.assertTrue((y == 0).all())  # not written

    def test_shape_mismatch(self):
        self.raises(ValueError, r"input 'w' of kernel 'rmsnorm' has shape \(7,\) but must have shape \(8,\)",
                    rowreduce.load("rmsnorm"), x=np.ones((2, 8), np.float32), w=np.ones(7, np.float32))
        a = make_inputs("add_layernorm", (3, 8), np.float32)
        a["r"] = a["r"][:2]
        self.raises(ValueError, r"input 'r' .* has shape \(2, 8\) but must have shape \(3, 8\)",
                    rowreduce.load("add_layernorm"), **a)
        self.raises(ValueError, r"input 't' .* has shape \(3,\) but must have shape \(2,\)",
                    rowreduce.load("cross_entropy"), x=np.ones((2, 8), np.float32), t=np.zeros(3, np.int64))
        self.raises(ValueError, r"output 's' .* has shape \(3,\) but must have shape \(2,\)",
                    rowreduce.load("sum"), x=np.ones((2, 8), np.float32), out={"s": np.ones(3, np.float32)})

    def test_target_outside_range(self):
        k = rowreduce.load("cross_entropy")
        x = np.ones((4, 8), np.float32)
        for bad, where in ((8, 2), (-1, 1), (-100, 3)):
            t = np.zeros(4, np.int64)
            t[where] = bad
            self.raises(ValueError, r"index input 't' holds %d at position %d; indices must lie in \[0, 8\)"
                        % (bad, where), k, x=x, t=t)
        t = np.array([0, -100, 7, 9], np.int64)  # -100 ignored, 9 still outside
        self.raises(ValueError, r"holds 9 at position 3", k, x=x, t=t, ignore_index=-100)

    def test_names_and_params(self):
        k = rowreduce.load("rmsnorm")
        x, w = np.ones((2, 8), np.float32), np.ones(8, np.float32)
        self.raises(TypeError, r"kernel 'rmsnorm' has no input 'weight'; its inputs are x, w, eps", k, x=x, weight=w)
        self.raises(TypeError, r"kernel 'rmsnorm' needs input 'w' \(col\)", k, x=x)
        self.raises(TypeError, r"param 'eps' of kernel 'rmsnorm' must be a number", k, x=x, w=w, eps="small")
        self.raises(TypeError, r"kernel 'rmsnorm' has no output 'z'", k, x=x, w=w, out={"z": x})

    def test_bad_kernel_and_plan(self):
        e = self.raises(rowreduce.RowreduceError, r"loading kernel 'no_such_kernel'", rowreduce.load, "no_such_kernel")
        self.assertTrue(e.status.startswith("RR_ERR_"))
        folder = tempfile.mkdtemp()
        try:
            path = os.path.join(folder, "broken.rr")
            with open(path, "w") as f:
                f.write("kernel broken\n  in x : row\n  out y : row\n  y = x +\n")
            e = self.raises(rowreduce.RowreduceError, r"broken\.rr:\d+", rowreduce.load, path)
            self.assertEqual(e.status, "RR_ERR_PARSE")
        finally:
            shutil.rmtree(folder)
        self.raises(rowreduce.RowreduceError, r"power of two", rowreduce.Kernel("sum", plan="W=3,V=1,U=1,R=1"),
                    x=np.ones((2, 8), np.float32))

    def test_library_not_found(self):
        # A copy of the package with no library beside it and none in a build folder above it.
        folder = tempfile.mkdtemp()
        try:
            shutil.copytree(os.path.dirname(rowreduce.__file__), os.path.join(folder, "rowreduce"),
                            ignore=shutil.ignore_patterns("*.so", "__pycache__"))
            env = dict(os.environ, RR_LIBRARY=os.path.join(folder, "missing.so"), PYTHONPATH=folder)
            run = subprocess.run([sys.executable, "-c", "import rowreduce; rowreduce.load('sum')"],
                                 env=env, cwd=folder, capture_output=True, text=True)
            self.assertNotEqual(run.returncode, 0)
            self.assertIn("LibraryNotFoundError", run.stderr)
            self.assertIn("set RR_LIBRARY", run.stderr)
            self.assertIn("missing.so (absent)", run.stderr)
        finally:
            shutil.rmtree(folder)


if SANITIZED:
    torch = None  # importing it under the sanitizer runtime is not attempted either
else:
    try:
        import torch
    except ImportError:
        torch = None
# PyTorch's C++ exceptions abort under a preloaded sanitizer runtime (cli_python.sh runs the
# Torch tests again against an unsanitized library when it finds one).


@unittest.skipIf(torch is None and not SANITIZED, "PyTorch is not installed")
@unittest.skipIf(SANITIZED, "PyTorch is not run under a preloaded sanitizer runtime")
class Torch(Base):
    """rowreduce.torch on CPU tensors (the cpu backend), against float64 PyTorch."""

    def test_functions_match_float64(self):
        import torch.nn.functional as F
        import rowreduce.torch as rt
        g = torch.Generator().manual_seed(3)
        x = torch.rand(3, 4, 96, generator=g) * 6 - 3
        r = torch.rand(3, 4, 96, generator=g) * 6 - 3
        w, b = 1 + 0.1 * torch.randn(96, generator=g), 0.1 * torch.randn(96, generator=g)
        t = torch.randint(0, 96, (3, 4), generator=g)
        t[1, 2] = -100
        d = lambda v: v.double()
        checks = {
            "sum": (rt.sum(x), x.double().sum(-1)),
            "softmax": (rt.softmax(x), torch.softmax(d(x), -1)),
            "rms_norm": (rt.rms_norm(x, (96,), w, 1e-6), F.rms_norm(d(x), (96,), d(w), 1e-6)),
            "layer_norm": (rt.layer_norm(x, 96, w, b), F.layer_norm(d(x), (96,), d(w), d(b))),
            "add_layer_norm.y": (rt.add_layer_norm(x, r, w, b)[0], F.layer_norm(d(x + r), (96,), d(w), d(b))),
            "add_layer_norm.h": (rt.add_layer_norm(x, r, w, b)[1], d(x) + d(r)),
            "cross_entropy": (rt.cross_entropy(x, t),
                              F.cross_entropy(d(x).reshape(-1, 96), t.reshape(-1), reduction="none").reshape(3, 4)),
            "cross_entropy.mean": (rt.cross_entropy(x, t, reduction="mean"),
                                   F.cross_entropy(d(x).reshape(-1, 96), t.reshape(-1))),
        }
        for name, (got, want) in checks.items():
            self.assertClose(got.numpy(), want.numpy(), np.float32, name)
        with self.assertRaisesRegex(ValueError, r"targets must lie in \[0, 96\) or equal ignore_index=-100"):
            rt.cross_entropy(x, torch.full((3, 4), 96))
        with self.assertRaisesRegex(ValueError, r"is on device meta; rowreduce runs on cuda and cpu"):
            rowreduce.load("softmax")(x=torch.empty(2, 8, device="meta"))
        with self.assertRaisesRegex(ValueError, r"all arrays of a call must be of one kind on one device"):
            rowreduce.load("rmsnorm")(x=torch.ones(2, 8), w=np.ones(8, np.float32))
        with self.assertRaisesRegex(ValueError, r"last dimension only"):
            rt.softmax(x, dim=0)

    def test_compile_fullgraph(self):
        import rowreduce.torch as rt

        def block(x, r, w, m):
            y = rt.rms_norm(x + r, (64,), w, 1e-6)
            return rt.softmax(y @ m)
        g = torch.Generator().manual_seed(5)
        args = (torch.randn(8, 64, generator=g), torch.randn(8, 64, generator=g),
                torch.randn(64, generator=g), torch.randn(64, 32, generator=g))
        compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
        self.assertTrue(torch.allclose(compiled(*args), block(*args)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
