"""rowreduce kernels as PyTorch operators, with PyTorch's argument conventions.

Each function is a custom operator (torch.library, namespace "rowreduce") with a fake
implementation, so torch.compile(fullgraph=True) traces through it without a graph break and CUDA
graph capture records its launch on the capturing stream. CUDA tensors run on the cuda backend,
CPU tensors on the cpu backend. Inputs of any leading shape are flattened to rows of the last
dimension (the reduced one); non-contiguous inputs are copied to contiguous ones first.
Forward only: no backward is registered.
"""
from typing import Optional, Sequence, Tuple, Union

import torch

from . import _kernel

__all__ = ["sum", "softmax", "rms_norm", "layer_norm", "add_layer_norm", "cross_entropy"]


def _run(name, **named):
    return _kernel.load(name)(check_index=False, **named)


def _last_dim(x, dim, what):
    if x.dim() == 0:
        raise ValueError("rowreduce.torch.%s: the input is a scalar; it needs shape (..., N)" % what)
    if dim not in (-1, x.dim() - 1):
        raise ValueError("rowreduce.torch.%s reduces the last dimension only (dim=-1 or %d), got dim=%d"
                         % (what, x.dim() - 1, dim))


def _normalized(x, normalized_shape, what):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if x.dim() == 0 or shape != (x.shape[-1],):
        raise ValueError("rowreduce.torch.%s normalises over the last dimension only: normalized_shape "
                         "must be (%s,), got %s" % (what, x.shape[-1] if x.dim() else "N", shape))


def _col(t, x, fill, name, what):
    """A weight or bias of shape (N,) in x's dtype on x's device (fill when None)."""
    n = x.shape[-1]
    if t is None:
        return torch.full((n,), fill, dtype=x.dtype, device=x.device)
    if tuple(t.shape) != (n,):
        raise ValueError("rowreduce.torch.%s: %s has shape %s but must have shape (%d,)"
                         % (what, name, tuple(t.shape), n))
    if t.device != x.device:
        raise ValueError("rowreduce.torch.%s: %s is on %s but the input is on %s" % (what, name, t.device, x.device))
    return t.to(x.dtype).contiguous()


# ------------------------------------------------------------ the operators


@torch.library.custom_op("rowreduce::sum", mutates_args=())
def _sum_op(x: torch.Tensor) -> torch.Tensor:
    return _run("sum", x=x.contiguous())["s"]


@_sum_op.register_fake
def _(x):
    return x.new_empty(x.shape[:-1])


@torch.library.custom_op("rowreduce::softmax", mutates_args=())
def _softmax_op(x: torch.Tensor) -> torch.Tensor:
    return _run("softmax", x=x.contiguous())["y"]


@_softmax_op.register_fake
def _(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("rowreduce::rms_norm", mutates_args=())
def _rms_norm_op(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return _run("rmsnorm", x=x.contiguous(), w=weight, eps=eps)["y"]


@_rms_norm_op.register_fake
def _(x, weight, eps):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("rowreduce::layer_norm", mutates_args=())
def _layer_norm_op(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    return _run("layernorm", x=x.contiguous(), w=weight, b=bias, eps=eps)["y"]


@_layer_norm_op.register_fake
def _(x, weight, bias, eps):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("rowreduce::add_layer_norm", mutates_args=())
def _add_layer_norm_op(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                       eps: float) -> Tuple[torch.Tensor, torch.Tensor]:
    out = _run("add_layernorm", x=x.contiguous(), r=residual.contiguous(), w=weight, b=bias, eps=eps)
    return out["y"], out["h"]


@_add_layer_norm_op.register_fake
def _(x, residual, weight, bias, eps):
    return (torch.empty_like(x, memory_format=torch.contiguous_format),
            torch.empty_like(x, memory_format=torch.contiguous_format))


@torch.library.custom_op("rowreduce::cross_entropy", mutates_args=())
def _cross_entropy_op(logits: torch.Tensor, target: torch.Tensor, ignore_index: int) -> torch.Tensor:
    n = logits.shape[-1]
    ignored = target == ignore_index
    outside = ~ignored & ((target < 0) | (target >= n))
    if not (logits.is_cuda and torch.cuda.is_current_stream_capturing()) and bool(outside.any()):
        flat = outside.reshape(-1).nonzero()[0, 0]
        raise ValueError("rowreduce.torch.cross_entropy: target holds %d at position %d; targets must lie "
                         "in [0, %d) or equal ignore_index=%d"
                         % (int(target.reshape(-1)[flat]), int(flat), n, ignore_index))
    # The kernel reads x[t] for every row: ignored (and, during capture, out-of-range) rows read
    # class 0 and their loss is replaced afterwards: 0 when ignored, NaN when out of range.
    safe = torch.where(ignored | outside, torch.zeros_like(target), target).contiguous()
    loss = _run("cross_entropy", x=logits.contiguous(), t=safe)["loss"]
    loss = torch.where(ignored, torch.zeros_like(loss), loss)
    return torch.where(outside, torch.full_like(loss, float("nan")), loss)


@_cross_entropy_op.register_fake
def _(logits, target, ignore_index):
    return logits.new_empty(logits.shape[:-1])


# ------------------------------------------------------------ PyTorch-style functions


def sum(x: torch.Tensor, dim: int = -1, keepdim: bool = False) -> torch.Tensor:
    """x.sum(dim) over the last dimension, in x's dtype (accumulated in float32)."""
    _last_dim(x, dim, "sum")
    s = _sum_op(x)
    return s.unsqueeze(-1) if keepdim else s


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """torch.softmax(x, dim) over the last dimension."""
    _last_dim(x, dim, "softmax")
    return _softmax_op(x)


def rms_norm(x: torch.Tensor, normalized_shape: Union[int, Sequence[int]], weight: Optional[torch.Tensor] = None,
             eps: Optional[float] = None) -> torch.Tensor:
    """torch.nn.functional.rms_norm over the last dimension; eps None = torch.finfo(x.dtype).eps."""
    _normalized(x, normalized_shape, "rms_norm")
    eps = torch.finfo(x.dtype).eps if eps is None else float(eps)
    return _rms_norm_op(x, _col(weight, x, 1.0, "weight", "rms_norm"), eps)


def layer_norm(x: torch.Tensor, normalized_shape: Union[int, Sequence[int]], weight: Optional[torch.Tensor] = None,
               bias: Optional[torch.Tensor] = None, eps: float = 1e-5) -> torch.Tensor:
    """torch.nn.functional.layer_norm over the last dimension."""
    _normalized(x, normalized_shape, "layer_norm")
    return _layer_norm_op(x, _col(weight, x, 1.0, "weight", "layer_norm"),
                          _col(bias, x, 0.0, "bias", "layer_norm"), float(eps))


def add_layer_norm(x: torch.Tensor, residual: torch.Tensor, weight: Optional[torch.Tensor] = None,
                   bias: Optional[torch.Tensor] = None, eps: float = 1e-5) -> Tuple[torch.Tensor, torch.Tensor]:
    """(layer_norm(x + residual), x + residual), the sum computed once and written out."""
    if residual.shape != x.shape:
        raise ValueError("rowreduce.torch.add_layer_norm: residual has shape %s but x has shape %s"
                         % (tuple(residual.shape), tuple(x.shape)))
    if x.dim() == 0:
        raise ValueError("rowreduce.torch.add_layer_norm: x is a scalar; it needs shape (..., N)")
    return _add_layer_norm_op(x, residual.to(x.dtype), _col(weight, x, 1.0, "weight", "add_layer_norm"),
                              _col(bias, x, 0.0, "bias", "add_layer_norm"), float(eps))


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, reduction: str = "none",
                  ignore_index: int = -100) -> torch.Tensor:
    """torch.nn.functional.cross_entropy with class indices, classes in the LAST dimension:
    logits (..., C), target (...) int64. Rows whose target is ignore_index have loss 0 and are
    left out of 'mean'. A target outside [0, C) other than ignore_index raises ValueError (during
    CUDA graph capture it cannot be read back: that row's loss is NaN instead)."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("rowreduce.torch.cross_entropy: reduction must be 'none', 'mean' or 'sum', got %r"
                         % (reduction,))
    if logits.dim() == 0 or tuple(target.shape) != tuple(logits.shape[:-1]):
        raise ValueError("rowreduce.torch.cross_entropy: target has shape %s but must have shape %s "
                         "(logits %s, classes last)" % (tuple(target.shape), tuple(logits.shape[:-1]),
                                                        tuple(logits.shape)))
    if target.dtype != torch.int64:
        raise TypeError("rowreduce.torch.cross_entropy: target is %s; class indices must be torch.int64"
                        % target.dtype)
    loss = _cross_entropy_op(logits, target, int(ignore_index))
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.float().sum().to(loss.dtype)
    count = (target != ignore_index).sum()
    return (loss.float().sum() / count).to(loss.dtype)
