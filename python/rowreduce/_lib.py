"""Finds librowreduce.so and declares the C signatures of the public API (include/rowreduce.h).

Only documented rr_ functions are used; every call that returns rr_status goes through check(),
which turns a failure into a RowreduceError carrying rr_last_error()'s sentence.
"""
import ctypes
import ctypes.util
import os
import threading

LIBRARY_NAME = "librowreduce.so"

# rr_status, in the order of the header's enum.
STATUS_NAMES = [
    "RR_OK", "RR_ERR_PARSE", "RR_ERR_TYPE", "RR_ERR_INVALID_ARG", "RR_ERR_ILLEGAL_LAYOUT",
    "RR_ERR_COMPILE", "RR_ERR_NO_DEVICE", "RR_ERR_DEVICE", "RR_ERR_IO", "RR_ERR_NOMEM",
    "RR_ERR_VALIDATION", "RR_ERR_UNSUPPORTED", "RR_ERR_INTERNAL",
]

# rr_dtype and rr_kind values.
RR_F32, RR_BF16, RR_F16, RR_F64, RR_I64 = range(5)
KIND_ROW, KIND_COL, KIND_ROWSCALAR, KIND_INDEX, KIND_PARAM = range(5)
KIND_NAMES = ["row", "col", "rowscalar", "index", "param"]


class RowreduceError(RuntimeError):
    """A rowreduce call failed; `status` is the rr_status name, the message says why."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class LibraryNotFoundError(RowreduceError, OSError):
    """librowreduce.so could not be found or loaded."""


class IoInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("default_value", ctypes.c_double)]


class Arg(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int), ("value", ctypes.c_double)]


class Layout(ctypes.Structure):
    _fields_ = [("workers_per_row", ctypes.c_int), ("vec", ctypes.c_int), ("unroll", ctypes.c_int),
                ("rows_per_group", ctypes.c_int), ("blocks_per_row", ctypes.c_int),
                ("storage", ctypes.c_int), ("grid", ctypes.c_int)]


def candidate_paths():
    """Where the library is looked for, in order: $RR_LIBRARY, beside the package, the build
    folder of the repository the package sits in (python/rowreduce -> build/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    paths = []
    if os.environ.get("RR_LIBRARY"):
        paths.append(os.environ["RR_LIBRARY"])
    paths.append(os.path.join(here, LIBRARY_NAME))
    paths.append(os.path.join(here, "..", "..", "build", LIBRARY_NAME))
    return paths


def _declare(lib):
    P, I, D, S, V = ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_char_p, None
    I64, SZ = ctypes.c_int64, ctypes.c_size_t
    PP = ctypes.POINTER(ctypes.c_void_p)
    signatures = {
        "rr_last_error": (S, []),
        "rr_status_string": (S, [I]),
        "rr_version": (S, []),
        "rr_git_commit": (S, []),
        "rr_dtype_name": (S, [I]),
        "rr_kernel_load": (I, [S, PP]),
        "rr_kernel_load_string": (I, [S, SZ, S, PP]),
        "rr_kernel_free": (V, [P]),
        "rr_builtin_names": (ctypes.POINTER(ctypes.c_char_p), []),
        "rr_kernel_name": (S, [P]),
        "rr_kernel_source_hash": (S, [P]),
        "rr_kernel_num_inputs": (I, [P]),
        "rr_kernel_num_outputs": (I, [P]),
        "rr_kernel_input": (I, [P, I, ctypes.POINTER(IoInfo)]),
        "rr_kernel_output": (I, [P, I, ctypes.POINTER(IoInfo)]),
        "rr_kernel_signature": (I, [P, ctypes.c_char_p, SZ]),
        "rr_layout_parse": (I, [S, ctypes.POINTER(Layout)]),
        "rr_layout_format": (I, [ctypes.POINTER(Layout), ctypes.c_char_p, SZ]),
        "rr_device_open": (I, [S, PP]),
        "rr_device_close": (V, [P]),
        "rr_device_backend": (S, [P]),
        "rr_device_name": (S, [P]),
        "rr_device_synchronize": (I, [P]),
        "rr_program_build": (I, [P, P, I, I64, I64, ctypes.POINTER(Layout), PP]),
        "rr_program_free": (V, [P]),
        "rr_program_layout": (ctypes.POINTER(Layout), [P]),
        "rr_program_source_hash": (S, [P]),
        "rr_program_binary_hash": (S, [P]),
        "rr_program_launch": (I, [P, I64, ctypes.POINTER(Arg), PP, P]),
        "rr_reference_run": (I, [P, I64, I64, ctypes.POINTER(Arg),
                                 ctypes.POINTER(ctypes.POINTER(ctypes.c_double))]),
    }
    missing = [name for name in signatures if not hasattr(lib, name)]
    if missing:
        raise LibraryNotFoundError("the library does not export %s: it is not a rowreduce library "
                                   "this package can use (built from another version?)" % ", ".join(missing))
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


_lock = threading.Lock()
_lib = None
_lib_path = None


def load_library():
    """The loaded library (once per process); LibraryNotFoundError naming every place tried."""
    global _lib, _lib_path
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in candidate_paths():
            path = os.path.normpath(path)
            if not os.path.exists(path):
                tried.append("%s (absent)" % path)
                continue
            try:
                lib = _declare(ctypes.CDLL(path))
            except (OSError, LibraryNotFoundError) as e:
                tried.append("%s (%s)" % (path, e))
                continue
            _lib, _lib_path = lib, path
            return _lib
        raise LibraryNotFoundError(
            "cannot load %s; tried: %s. Build it with `cmake -S . -B build && cmake --build build` "
            "in the rowreduce repository, or set RR_LIBRARY to its path" % (LIBRARY_NAME, "; ".join(tried)))


def library_path():
    """The path the library was loaded from (loading it if needed)."""
    load_library()
    return _lib_path


def last_error():
    return (load_library().rr_last_error() or b"").decode("utf-8", "replace")


def check(status, what):
    """Raises RowreduceError for a non-zero rr_status, with rr_last_error()'s sentence."""
    if status != 0:
        name = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else str(status)
        message = last_error() or "no reason recorded"
        raise RowreduceError("%s failed (%s): %s" % (what, name, message), status=name)
