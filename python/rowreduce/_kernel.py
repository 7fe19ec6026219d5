"""Kernels called on arrays: rowreduce.load() and Kernel.__call__.

Arrays are used in place. CUDA tensors run on the cuda backend on PyTorch's current stream; NumPy
arrays and CPU tensors run on the cpu backend. A compiled program is cached per (kernel, dtype,
row length, backend); its plan comes from the plan source hook when one is set, else from
rr_program_build with no layout: the tuning database's record when it has one, else the planner.
"""
import ctypes
import math
import threading

from . import _lib
from ._lib import RowreduceError, check

try:
    import numpy as _np
except ImportError:  # NumPy is optional: only NumPy arrays need it
    _np = None

DTYPE_NAMES = {_lib.RR_F32: "f32", _lib.RR_BF16: "bf16", _lib.RR_F16: "f16", _lib.RR_F64: "f64",
               _lib.RR_I64: "i64"}
ACCEPTED = ("NumPy float32, float16 (and bfloat16 where ml_dtypes provides it) or PyTorch "
            "float32, bfloat16, float16 tensors; index inputs int64")

# The plan source: None (rr_program_build decides: a tuning-database hit, else the planner), or a callable (kernel_name, dtype_name, rows, cols,
# backend) -> layout text such as "W=32,V=4,U=1,R=1" or None (then as without a source).
plan_source = None


class _Array:
    """One array argument seen through the facts the launch needs."""

    def __init__(self, name, obj):
        self.name, self.obj = name, obj
        module = type(obj).__module__
        if module.startswith("torch"):
            self.library = "torch"
            self.shape = tuple(obj.shape)
            self.dtype = {"torch.float32": _lib.RR_F32, "torch.bfloat16": _lib.RR_BF16,
                          "torch.float16": _lib.RR_F16, "torch.int64": _lib.RR_I64}.get(str(obj.dtype))
            self.dtype_text = str(obj.dtype)
            self.backend = {"cuda": "cuda", "cpu": "cpu"}.get(obj.device.type)
            self.device_text = str(obj.device)
            self.contiguous = obj.is_contiguous()
            self.writeable = True
            self.pointer = obj.data_ptr()
        elif _np is not None and isinstance(obj, _np.ndarray):
            self.library = "numpy"
            self.shape = tuple(obj.shape)
            self.dtype = {"float32": _lib.RR_F32, "float16": _lib.RR_F16, "bfloat16": _lib.RR_BF16,
                          "int64": _lib.RR_I64}.get(obj.dtype.name)
            self.dtype_text = "numpy." + obj.dtype.name
            self.backend, self.device_text = "cpu", "cpu"
            self.contiguous = obj.flags["C_CONTIGUOUS"]
            self.writeable = obj.flags["WRITEABLE"]
            self.pointer = obj.ctypes.data
        else:
            raise TypeError("argument '%s' is a %s; expected a NumPy array or a PyTorch tensor"
                            % (name, type(obj).__name__))
        if self.backend is None:
            raise ValueError("argument '%s' is on device %s; rowreduce runs on cuda and cpu"
                             % (name, self.device_text))


def _leading(shape):
    return int(math.prod(shape[:-1])) if len(shape) else 1


class Kernel:
    """A loaded kernel. Call it with its inputs by name; it returns {output name: array}."""

    def __init__(self, name_or_path, plan=None):
        lib = _lib.load_library()
        handle = ctypes.c_void_p()
        check(lib.rr_kernel_load(name_or_path.encode(), ctypes.byref(handle)),
              "loading kernel '%s'" % name_or_path)
        self._handle, self._lib = handle, lib
        self.name = lib.rr_kernel_name(handle).decode()
        self.source_sha256 = lib.rr_kernel_source_hash(handle).decode()
        self.inputs = [self._io(lib.rr_kernel_input, i) for i in range(lib.rr_kernel_num_inputs(handle))]
        self.outputs = [self._io(lib.rr_kernel_output, j) for j in range(lib.rr_kernel_num_outputs(handle))]
        self.plan = plan
        self._programs = {}
        self._lock = threading.Lock()

    def _io(self, getter, i):
        info = _lib.IoInfo()
        check(getter(self._handle, i, ctypes.byref(info)), "reading kernel '%s' arguments" % self.name)
        return (info.name.decode(), _lib.KIND_NAMES[info.kind], info.default_value)

    def __del__(self):
        if getattr(self, "_handle", None):
            for program in self._programs.values():
                self._lib.rr_program_free(program)
            self._lib.rr_kernel_free(self._handle)
            self._handle = None

    @property
    def signature(self):
        buf = ctypes.create_string_buffer(512)
        check(self._lib.rr_kernel_signature(self._handle, buf, len(buf)), "kernel signature")
        return buf.value.decode()

    def __repr__(self):
        return "<rowreduce.Kernel %s>" % self.signature

    # ------------------------------------------------------------ programs

    def program(self, dtype, rows, cols, backend):
        """The compiled program for (dtype, cols, backend) and the power-of-two class of rows,
        built on first use: the planner's choice depends on M (rows per block, clusters, the
        grid), so 3 rows and 50000 rows get their own programs, while batch sizes of one class
        share one. Returns the rr_program pointer."""
        key = (dtype, cols, backend, max(int(rows), 0).bit_length())
        with self._lock:
            program = self._programs.get(key)
            if program is None:
                program = self._build(dtype, rows, cols, backend)
                self._programs[key] = program
            return program

    def _build(self, dtype, rows, cols, backend):
        text = self.plan
        if text is None and plan_source is not None:
            text = plan_source(self.name, DTYPE_NAMES[dtype], rows, cols, backend)
        layout = None
        if text:
            layout = _lib.Layout()
            check(self._lib.rr_layout_parse(text.encode(), ctypes.byref(layout)), "plan '%s'" % text)
        program = ctypes.c_void_p()
        check(self._lib.rr_program_build(device(backend), self._handle, dtype, rows, cols,
                                         ctypes.byref(layout) if layout else None,
                                         ctypes.byref(program)),
              "building kernel '%s' for %s, N=%d on %s" % (self.name, DTYPE_NAMES[dtype], cols, backend))
        return program

    def layout(self, dtype_name, cols, backend="cpu", rows=0):
        """The plan used for (dtype, cols, backend), as rr_layout_format writes it."""
        dtype = {v: k for k, v in DTYPE_NAMES.items()}[dtype_name]
        program = self.program(dtype, rows, cols, backend)
        buf = ctypes.create_string_buffer(128)
        self._lib.rr_layout_format(self._lib.rr_program_layout(program), buf, len(buf))
        return buf.value.decode()

    # ------------------------------------------------------------ calls

    def __call__(self, out=None, device=None, ignore_index=None, check_index=True, **named):
        """Runs the kernel: inputs and params by name (params default to the kernel's values),
        preallocated outputs in `out` ({name: array}); returns {output name: array}.

        device: None runs where the arrays are; "cpu" or "cuda" insists on that backend.
        ignore_index: rows whose index input equals it are not computed from that index: they
        get 0 in every output. Other indices must lie in [0, N), else ValueError.
        check_index=False skips the host check of index inputs (it reads them back; it is
        skipped anyway during CUDA graph capture, where an index outside [0, N) is undefined)."""
        arrays, params = self._collect(named)
        first = arrays[self._first_row()]
        backend, dtype = first.backend, first.dtype
        if device not in (None, "cpu", "cuda"):
            raise ValueError("device must be None, 'cpu' or 'cuda', got %r" % (device,))
        if device is not None and device != backend:
            raise ValueError("device=%r was asked for but input '%s' is a %s array on %s; %s"
                             % (device, first.name, first.library, first.device_text,
                                "the cuda backend needs CUDA tensors" if device == "cuda"
                                else "the cpu backend needs host arrays (NumPy or CPU tensors)"))
        rows, cols = _leading(first.shape), first.shape[-1]
        for info, arr in zip(self.inputs, arrays):
            if arr is not None:
                self._check_array(info[0], info[1], arr, first, rows, cols)
        outputs = self._outputs(out, first, rows, cols)
        if rows == 0:
            return {name: arr.obj for (name, _, _), arr in zip(self.outputs, outputs)}
        ignored = None
        for k, (name, kind, _) in enumerate(self.inputs):
            if kind != "index":
                continue
            if ignore_index is not None:
                mask = arrays[k].obj == ignore_index
                ignored = mask if ignored is None else (ignored | mask)
                arrays[k] = _Array(name, _where(mask, 0, arrays[k].obj))
            if check_index:
                _check_index(name, arrays[k], cols)
        self._launch(arrays, params, outputs, rows, cols, backend, dtype, first)
        if ignored is not None:
            for arr in outputs:
                _zero_rows(arr.obj, ignored)
        return {name: arr.obj for (name, _, _), arr in zip(self.outputs, outputs)}

    def _launch(self, arrays, params, outputs, rows, cols, backend, dtype, first):
        program = self.program(dtype, rows, cols, backend)
        args = (_lib.Arg * max(len(self.inputs), 1))()
        for k, ((name, kind, _), arr) in enumerate(zip(self.inputs, arrays)):
            if kind == "param":
                args[k].value = params[name]
            else:
                args[k].data = arr.pointer
                args[k].dtype = arr.dtype
        pointers = (ctypes.c_void_p * max(len(outputs), 1))(*[o.pointer for o in outputs])
        stream = None
        if backend == "cuda":
            import torch  # a CUDA array is a torch tensor
            stream = torch.cuda.current_stream(first.obj.device).cuda_stream
        check(self._lib.rr_program_launch(program, rows, args, pointers, stream),
              "running kernel '%s'" % self.name)

    def _first_row(self):
        for k, (_, kind, _) in enumerate(self.inputs):
            if kind == "row":
                return k
        raise RowreduceError("kernel '%s' has no row input, so the number of rows is unknown" % self.name)

    def _collect(self, named):
        allowed = [name for name, _, _ in self.inputs]
        unknown = sorted(set(named) - set(allowed))
        if unknown:
            raise TypeError("kernel '%s' has no input %s; its inputs are %s"
                            % (self.name, ", ".join(repr(u) for u in unknown), ", ".join(allowed)))
        arrays, params = [], {}
        for name, kind, default in self.inputs:
            if kind == "param":
                value = named.get(name, default)
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise TypeError("param '%s' of kernel '%s' must be a number, got %r"
                                    % (name, self.name, value))
                params[name] = float(value)
                arrays.append(None)
            elif name not in named:
                raise TypeError("kernel '%s' needs input '%s' (%s); signature: %s"
                                % (self.name, name, kind, self.signature))
            else:
                arrays.append(_Array(name, named[name]))
        return arrays, params

    def _check_array(self, name, kind, arr, first, rows, cols):
        where = "input '%s' of kernel '%s'" % (name, self.name)
        if arr.library != first.library or arr.device_text != first.device_text:
            raise ValueError("%s is a %s array on %s but '%s' is a %s array on %s; all arrays of a call "
                             "must be of one kind on one device" % (where, arr.library, arr.device_text,
                                                                   first.name, first.library, first.device_text))
        if kind == "index":
            if arr.dtype != _lib.RR_I64:
                raise TypeError("%s is %s; an index input must be int64" % (where, arr.dtype_text))
        elif arr.dtype is None or arr.dtype == _lib.RR_I64:
            raise TypeError("%s is %s; accepted are %s" % (where, arr.dtype_text, ACCEPTED))
        elif arr.dtype != first.dtype:
            raise TypeError("%s is %s but '%s' is %s; all float arrays of a call must have one dtype"
                            % (where, arr.dtype_text, first.name, first.dtype_text))
        if arr.backend == "cuda" and arr.obj.device.index not in (None, 0):
            raise ValueError("%s is on %s; rowreduce's cuda backend runs on the first visible GPU "
                             "(cuda:0)" % (where, arr.device_text))
        if len(first.shape) == 0:
            raise ValueError("input '%s' of kernel '%s' is a scalar; a row input needs shape (..., N)"
                             % (first.name, self.name))
        want = {"row": first.shape, "col": (cols,), "rowscalar": first.shape[:-1],
                "index": first.shape[:-1]}[kind]
        if arr.shape != want:
            raise ValueError("%s has shape %s but must have shape %s (%s input; '%s' has shape %s)"
                             % (where, arr.shape, want, kind, first.name, first.shape))
        if not arr.contiguous:
            raise ValueError("%s is not contiguous: rows must be stored one after another with "
                             "pitch N and unit stride (a contiguous view with an offset is fine); "
                             "use .contiguous() / numpy.ascontiguousarray()" % where)

    def _outputs(self, out, first, rows, cols):
        out = dict(out or {})
        names = [name for name, _, _ in self.outputs]
        unknown = sorted(set(out) - set(names))
        if unknown:
            raise TypeError("kernel '%s' has no output %s; its outputs are %s"
                            % (self.name, ", ".join(repr(u) for u in unknown), ", ".join(names)))
        arrays = []
        for name, kind, _ in self.outputs:
            shape = first.shape if kind == "row" else first.shape[:-1]
            if name in out:
                arr = _Array(name, out[name])
                where = "output '%s' of kernel '%s'" % (name, self.name)
                if arr.library != first.library or arr.device_text != first.device_text:
                    raise ValueError("%s is a %s array on %s; the inputs are %s arrays on %s"
                                     % (where, arr.library, arr.device_text, first.library, first.device_text))
                if arr.dtype != first.dtype:
                    raise TypeError("%s is %s but must be %s like the inputs" % (where, arr.dtype_text, first.dtype_text))
                if arr.shape != shape:
                    raise ValueError("%s has shape %s but must have shape %s" % (where, arr.shape, shape))
                if not arr.contiguous:
                    raise ValueError("%s is not contiguous; rows must be stored with pitch N and unit stride" % where)
                if not arr.writeable:
                    raise ValueError("%s is read-only (its WRITEABLE flag is off); pass a writeable array, "
                                     "or leave it out of out= to get a new one" % where)
            else:
                arr = _Array(name, _empty_like(first, shape))
            arrays.append(arr)
        return arrays


def _where(mask, value, obj):
    """A contiguous copy of obj with `value` where mask holds."""
    if type(obj).__module__.startswith("torch"):
        import torch
        return torch.where(mask, torch.full_like(obj, value), obj).contiguous()
    return _np.ascontiguousarray(_np.where(mask, value, obj).astype(obj.dtype))


def _zero_rows(obj, mask):
    """obj[mask] = 0 for a mask over obj's leading dimensions, without a host sync on torch."""
    if type(obj).__module__.startswith("torch"):
        obj.masked_fill_(mask.reshape(tuple(mask.shape) + (1,) * (obj.dim() - mask.dim())), 0)
    else:
        obj[mask] = 0


def _empty_like(first, shape):
    if first.library == "torch":
        return first.obj.new_empty(shape)
    return _np.empty(shape, dtype=first.obj.dtype)


def _check_index(name, arr, cols):
    """Raises ValueError when an index is outside [0, cols). Skipped during CUDA graph capture,
    where reading values back is not allowed."""
    obj = arr.obj
    if arr.library == "torch":
        import torch
        if obj.is_cuda and torch.cuda.is_current_stream_capturing():
            return
        bad = (obj < 0) | (obj >= cols)
        if obj.numel() and bool(bad.any()):
            first = int(bad.reshape(-1).nonzero()[0, 0])
            value = int(obj.reshape(-1)[first])
            raise ValueError("index input '%s' holds %d at position %d; indices must lie in [0, %d)"
                             % (name, value, first, cols))
    else:
        flat = obj.reshape(-1)
        bad = (flat < 0) | (flat >= cols)
        if bad.any():
            first = int(_np.argmax(bad))
            raise ValueError("index input '%s' holds %d at position %d; indices must lie in [0, %d)"
                             % (name, int(flat[first]), first, cols))


# ------------------------------------------------------------ devices and the kernel cache

_devices = {}
_kernels = {}
_cache_lock = threading.Lock()


def device(backend):
    """The rr_device of a backend ("cpu" or "cuda"), opened once per process."""
    with _cache_lock:
        handle = _devices.get(backend)
        if handle is None:
            lib = _lib.load_library()
            handle = ctypes.c_void_p()
            check(lib.rr_device_open(backend.encode(), ctypes.byref(handle)),
                  "opening the %s backend" % backend)
            _devices[backend] = handle
        return handle


def load(name_or_path, plan=None):
    """A built-in kernel by name ("rmsnorm") or a kernel file by path; one Kernel per (name, plan)
    per process, so its compiled programs are shared."""
    key = (name_or_path, plan)
    with _cache_lock:
        kernel = _kernels.get(key)
    if kernel is None:
        kernel = Kernel(name_or_path, plan=plan)
        with _cache_lock:
            kernel = _kernels.setdefault(key, kernel)
    return kernel


def builtin_names():
    lib = _lib.load_library()
    names, array, i = [], lib.rr_builtin_names(), 0
    while array[i]:
        names.append(array[i].decode())
        i += 1
    return names
