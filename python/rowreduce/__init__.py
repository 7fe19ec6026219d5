"""rowreduce from Python: compiled row-reduction kernels called on NumPy arrays (cpu backend) and
PyTorch tensors (in place, on the current CUDA stream). A ctypes binding over librowreduce.so's
public C API (include/rowreduce.h); standard library only, NumPy and PyTorch used when present.

    import rowreduce
    k = rowreduce.load("rmsnorm")            # a built-in name or a kernel file path
    out = k(x=x, w=w, eps=1e-6)              # {"y": array}; out={"y": y} writes in place

PyTorch operators (torch.compile and CUDA graph friendly): rowreduce.torch.
"""
from ._kernel import Kernel, builtin_names, load
from ._lib import LibraryNotFoundError, RowreduceError, library_path

__all__ = ["Kernel", "load", "builtin_names", "library_path", "version", "git_commit",
           "RowreduceError", "LibraryNotFoundError", "set_plan_source"]
__version__ = "0.1.0"


def version():
    """The library's version (rr_version())."""
    from . import _lib
    return _lib.load_library().rr_version().decode()


def git_commit():
    """The git commit the library was built from (rr_git_commit())."""
    from . import _lib
    return _lib.load_library().rr_git_commit().decode()


def set_plan_source(source):
    """Sets where plans come from: None (the library decides: the tuning database's record when
    there is one, else the planner) or a callable (kernel_name, dtype_name, rows, cols, backend)
    -> layout text, or None to let the library decide. Applies to programs built afterwards."""
    from . import _kernel
    _kernel.plan_source = source
