"""cuDNN kernels for `conv2d` and `avg_pool2d` on a real GPU, through CuPy's ``cupyx.cudnn``.

Dispatch: an array kernel of ``ops/conv.py`` or ``ops/pool2d.py`` running on CuPy first asks
``available(xp)`` (true only for CuPy with a working cuDNN), then calls the function here with
its own arguments. The function returns the result, or None when cuDNN cannot do that case,
and the kernel then runs its im2col or tap code on CuPy as before. On NumPy (the CPU and
virtual GPUs) nothing here imports CuPy or runs.

What goes to cuDNN, with TensorFlow's semantics kept:

- ``Conv2D`` and its two VJP ops, ``Conv2DBackpropInput`` and ``Conv2DBackpropFilter``: NHWC
  tensors (``CUDNN_TENSOR_NHWC``) and the filter in cuDNN's NHWC filter layout KRSC =
  (out_channels, kh, kw, in_channels). eagerkernel's HWIO filter is transposed on the way in,
  the filter gradient back to HWIO on the way out. Strides and dilations pass through.
- ``AvgPool`` and ``AvgPoolGrad`` with ``CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING``: each
  window is divided by the number of real elements it covers, as TensorFlow's SAME average
  pool. ``cupyx.cudnn``'s pooling takes no layout argument (it describes an array by its shape,
  NCHW or NCDHW), so the NHWC input is viewed, without a copy, as the 5-D array (N, 1, H, W, C)
  and pooled in three dimensions with the window (kh, kw, 1).

cuDNN pads symmetrically, while TensorFlow's SAME puts an odd extra row or column at the bottom
or right. The symmetric part of the padding goes to cuDNN; the rest is added explicitly as
zeros, and cropped off input gradients. For the average pool those explicit zeros count as real
elements in cuDNN's divisor, so the windows they touch are rescaled by cuDNN's count over
TensorFlow's, forward and backward (exact up to rounding).

Not on cuDNN, on purpose:

- ``max_pool2d``, forward and backward. TensorFlow's ``MaxPoolGrad`` sends the cotangent to the
  first maximum of each window; cuDNN does not document which maximum gets it under ties (Theano
  maintainers report one maximum, chosen non-deterministically: Theano issue #5404), and
  ``cupyx.cudnn`` hard-codes ``CUDNN_NOT_PROPAGATE_NAN`` where the tap path propagates NaN.
- dtypes other than float16, float32 and float64, or inputs of different dtypes (None).
- cases cuDNN refuses with a ``CuDNNError``, such as ``CUDNN_STATUS_NOT_SUPPORTED`` for a
  dtype, layout and algorithm combination (None).

Results differ from the im2col path in the last bits: cuDNN chooses its algorithm by heuristics
(``auto_tune=False``); its backward algorithms may accumulate with atomics, so gradients are not
bitwise reproducible from run to run (TensorFlow's GPU default too); and on Ampere or newer GPUs
cuDNN 8 or later may compute float32 convolutions in TF32 unless ``NVIDIA_TF32_OVERRIDE=0``.

CuPy 14 removed ``cupyx.cudnn``: there, and with CuPy 13 when no cuDNN library loads,
``available`` is False and everything stays on the im2col path.

Not yet run on a real GPU in this project: tests/test_cudnn.py runs every function against a
NumPy fake of ``cupyx.cudnn`` written from its documented semantics and its source (argument
order, layouts, shape, dtype and contiguity checks), and tests/test_cuda.py compares this path
with the im2col path on a CUDA GPU when one is present.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "available",
    "avg_pool",
    "avg_pool_grad",
    "backend",
    "conv2d",
    "conv2d_backprop_filter",
    "conv2d_backprop_input",
]

Array = Any  # numpy.ndarray or cupy.ndarray
Pads = tuple[tuple[int, int], tuple[int, int]]

_DTYPES = frozenset(np.dtype(name) for name in ("float16", "float32", "float64"))


class Backend(NamedTuple):
    """The two CuPy modules this file uses."""

    cudnn: Any  # cupyx.cudnn: convolution_forward, pooling_backward, ...
    lib: Any  # cupy.cuda.cudnn: CUDNN_* constants, CuDNNError, getVersion


@functools.cache
def backend() -> Backend | None:
    """``cupyx.cudnn`` and ``cupy.cuda.cudnn``, or None when either fails to import or load.

    The one place this module looks CuPy up (tests replace it with a NumPy fake). Importing
    ``cupy.cuda.cudnn`` loads the cuDNN library; ``getVersion`` checks that it answers.
    """
    try:
        cudnn = importlib.import_module("cupyx.cudnn")
        lib = importlib.import_module("cupy.cuda.cudnn")
        lib.getVersion()
    except Exception:  # no CuPy, CuPy 14 (no cuDNN), no libcudnn: the im2col path, no error
        return None
    return Backend(cudnn, lib)


def available(xp: ModuleType) -> bool:
    """True when ``xp`` is CuPy and cuDNN works through ``cupyx.cudnn`` (looked up once).

    Never imports CuPy when ``xp`` is NumPy, and never raises.

    >>> from eagerkernel.runtime.ops import cudnn
    >>> cudnn.available(np)
    False
    """
    if xp is np or getattr(xp, "__name__", None) != "cupy":
        return False
    return backend() is not None


# -- shared pieces ------------------------------------------------------------------------------

_REFUSED = object()


def _call(b: Backend, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, or ``_REFUSED`` when cuDNN rejects the case."""
    try:
        return fn(*args, **kwargs)
    except b.lib.CuDNNError:
        return _REFUSED


def _supported(*arrays: Array) -> bool:
    dtype = arrays[0].dtype
    return dtype in _DTYPES and all(a.dtype == dtype for a in arrays)


def _split(pads: Pads) -> tuple[tuple[int, int], Pads]:
    """TensorFlow's ((top, bottom), (left, right)) as (cuDNN's symmetric pads, the rest)."""
    sym = tuple(int(min(p)) for p in pads)
    rest = tuple((int(p0) - s, int(p1) - s) for (p0, p1), s in zip(pads, sym))
    return sym, rest


def _padded(xp: ModuleType, x: Array, rest: Pads) -> Array:
    """NHWC ``x`` with the explicit zeros around it, C-contiguous (cuDNN reads it densely)."""
    if not any(map(any, rest)):
        return xp.ascontiguousarray(x)
    return xp.pad(x, ((0, 0), *rest, (0, 0)))


def _grown(shape, rest: Pads) -> tuple[int, int, int, int]:
    """The NHWC shape of an input once the explicit padding is added."""
    n, h, w, c = shape
    (top, bottom), (left, right) = rest
    return int(n), int(h) + top + bottom, int(w) + left + right, int(c)


def _crop(x: Array, rest: Pads, hw) -> Array:
    (top, _), (left, _) = rest
    return x[:, top : top + hw[0], left : left + hw[1]]


def _out_hw(in_hw, ksize, strides, dilations, sym) -> tuple[int, int]:
    """cuDNN's output size: ``1 + (n + 2 * pad - ((k - 1) * dilation + 1)) // stride``."""
    return tuple(
        1 + (int(n) + 2 * p - ((int(k) - 1) * d + 1)) // s
        for n, k, s, d, p in zip(in_hw, ksize, strides, dilations, sym)
    )


# -- convolution --------------------------------------------------------------------------------


def _krsc(xp: ModuleType, w: Array) -> Array:
    """HWIO (kh, kw, cin, cout) as cuDNN's NHWC filter layout KRSC (cout, kh, kw, cin)."""
    return xp.ascontiguousarray(w.transpose(3, 0, 1, 2))


def _ints(values) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _conv_args(b: Backend, sym, strides, dilations, **keywords) -> tuple[tuple, dict]:
    """cupyx's positional (pad, stride, dilation, groups), typed as tuples of C ints, and its
    keywords: NHWC data and filter layouts, cuDNN's heuristics rather than benchmarking,
    ``tensor_core="auto"`` (cupyx then asks for tensor-op math only for float16 on compute
    capability 7.0), and ``keywords`` (the backward ops' ``deterministic=False``)."""
    nhwc = b.lib.CUDNN_TENSOR_NHWC
    options = {"auto_tune": False, "tensor_core": "auto", "d_layout": nhwc, "w_layout": nhwc}
    return (_ints(sym), _ints(strides), _ints(dilations), 1), {**options, **keywords}


def conv2d(xp: ModuleType, x: Array, w: Array, strides, dilations, pads: Pads) -> Array | None:
    """``Conv2D`` on cuDNN (the signature of ``conv._conv_fwd``).

    Args:
        xp: the array module (CuPy).
        x: input, NHWC (N, H, W, Cin).
        w: filters, HWIO (KH, KW, Cin, Cout), the dtype of ``x``.
        strides, dilations: (h, w) ints.
        pads: TensorFlow's ((top, bottom), (left, right)), possibly asymmetric.

    Returns:
        NHWC (N, OH, OW, Cout), or None when cuDNN cannot do it (dtype, or cuDNN refuses).
    """
    b = backend()
    if b is None or not _supported(x, w):
        return None
    sym, rest = _split(pads)
    xe = _padded(xp, x, rest)
    out_hw = _out_hw(xe.shape[1:3], w.shape[:2], strides, dilations, sym)
    y = xp.empty((x.shape[0], *out_hw, w.shape[3]), dtype=x.dtype)
    args, options = _conv_args(b, sym, strides, dilations)
    done = _call(b, b.cudnn.convolution_forward, xe, _krsc(xp, w), None, y, *args, **options)
    return None if done is _REFUSED else y


def conv2d_backprop_input(
    xp: ModuleType, g: Array, w: Array, input_shape, strides, dilations, pads: Pads
) -> Array | None:
    """``Conv2DBackpropInput`` on cuDNN (the signature of ``conv._backprop_input_fwd``).

    Args:
        g: the cotangent of the convolution's output, NHWC (N, OH, OW, Cout).
        w: filters, HWIO (KH, KW, Cin, Cout), the dtype of ``g``.
        input_shape: the convolution input's NHWC shape (N, H, W, Cin).
        strides, dilations, pads: as for `conv2d`.

    Returns:
        The input cotangent, NHWC ``input_shape``, or None when cuDNN cannot do it.
    """
    b = backend()
    if b is None or not _supported(g, w):
        return None
    sym, rest = _split(pads)
    gx = xp.empty(_grown(input_shape, rest), dtype=g.dtype)
    args, options = _conv_args(b, sym, strides, dilations, deterministic=False)
    wk, gy = _krsc(xp, w), xp.ascontiguousarray(g)
    done = _call(b, b.cudnn.convolution_backward_data, wk, gy, None, gx, *args, **options)
    return None if done is _REFUSED else _crop(gx, rest, input_shape[1:3])


def conv2d_backprop_filter(
    xp: ModuleType, x: Array, g: Array, filter_shape, strides, dilations, pads: Pads
) -> Array | None:
    """``Conv2DBackpropFilter`` on cuDNN (the signature of ``conv._backprop_filter_fwd``).

    Args:
        x: the convolution's input, NHWC (N, H, W, Cin).
        g: the cotangent of its output, NHWC (N, OH, OW, Cout), the dtype of ``x``.
        filter_shape: HWIO (KH, KW, Cin, Cout).
        strides, dilations, pads: as for `conv2d`.

    Returns:
        The filter cotangent, HWIO ``filter_shape`` (C-contiguous), or None when cuDNN cannot
        do it.
    """
    b = backend()
    if b is None or not _supported(x, g):
        return None
    sym, rest = _split(pads)
    kh, kw, cin, cout = (int(v) for v in filter_shape)
    gw = xp.empty((cout, kh, kw, cin), dtype=x.dtype)  # KRSC, written densely by cuDNN
    args, options = _conv_args(b, sym, strides, dilations, deterministic=False)
    xe, gy = _padded(xp, x, rest), xp.ascontiguousarray(g)
    done = _call(b, b.cudnn.convolution_backward_filter, xe, gy, gw, *args, **options)
    return None if done is _REFUSED else xp.ascontiguousarray(gw.transpose(1, 2, 3, 0))


# -- average pooling ----------------------------------------------------------------------------


def _pool_args(b: Backend, ksize, strides, sym) -> tuple:
    """cupyx's (ksize, stride, pad, mode) for the 3-D pool over (H, W, C), window depth 1."""
    window = (int(ksize[0]), int(ksize[1]), 1)
    stride = (int(strides[0]), int(strides[1]), 1)
    return window, stride, (*sym, 0), b.lib.CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING


def _ncdhw(x: Array) -> Array:
    """A C-contiguous NHWC array as the 5-D (N, 1, H, W, C): a view, no copy."""
    n, h, w, c = x.shape
    return x.reshape(n, 1, h, w, c)


def _counts(n: int, out: int, k: int, s: int, before: int) -> np.ndarray:
    """Real elements per window along one axis of length ``n``; windows start at o*s - before."""
    start = np.arange(out) * s - before
    return np.minimum(start + k, n) - np.maximum(start, 0)


def _rescale(xp: ModuleType, in_hw, out_hw, ksize, strides, pads: Pads, dtype) -> Array | None:
    """(OH, OW, 1) factors cuDNN's divisor / TensorFlow's, or None when the pads are symmetric.

    cuDNN counts the explicit zeros as real elements: along an axis its input is
    ``n + p0 + p1 - 2 * sym`` long and its windows start at ``o * s - sym``.
    """
    sym, rest = _split(pads)
    if not any(map(any, rest)):
        return None
    ratios = [
        _counts(n + p0 + p1 - 2 * q, o, k, s, q) / _counts(n, o, k, s, p0)
        for n, o, k, s, (p0, p1), q in zip(in_hw, out_hw, ksize, strides, pads, sym)
    ]
    return xp.asarray((ratios[0][:, None] * ratios[1][None, :])[:, :, None].astype(dtype))


def avg_pool(xp: ModuleType, x: Array, ksize, strides, pads: Pads) -> Array | None:
    """``AvgPool`` on cuDNN (the signature of ``pool2d._avg_pool_fwd``).

    Args:
        x: input, NHWC (N, H, W, C).
        ksize, strides: (h, w) ints.
        pads: TensorFlow's ((top, bottom), (left, right)); each window is divided by the number
            of real (not padded) elements it covers.

    Returns:
        NHWC (N, OH, OW, C), or None when cuDNN cannot do it.
    """
    b = backend()
    if b is None or not _supported(x):
        return None
    sym, rest = _split(pads)
    xe = _padded(xp, x, rest)
    n, he, we, c = xe.shape
    oh, ow = _out_hw((he, we), ksize, strides, (1, 1), sym)
    y = xp.empty((n, 1, oh, ow, c), dtype=x.dtype)
    pooled = _call(b, b.cudnn.pooling_forward, _ncdhw(xe), y, *_pool_args(b, ksize, strides, sym))
    if pooled is _REFUSED:
        return None
    y = y.reshape(n, oh, ow, c)
    scale = _rescale(xp, x.shape[1:3], (oh, ow), ksize, strides, pads, x.dtype)
    if scale is not None:
        y *= scale
    return y


def avg_pool_grad(
    xp: ModuleType, g: Array, input_shape, ksize, strides, pads: Pads
) -> Array | None:
    """``AvgPoolGrad`` on cuDNN (the signature of ``pool2d._avg_pool_grad_fwd``).

    Args:
        g: the cotangent of the pool's output, NHWC (N, OH, OW, C).
        input_shape: the pool input's NHWC shape (N, H, W, C).
        ksize, strides, pads: as for `avg_pool`.

    Returns:
        The input cotangent, NHWC ``input_shape``, or None when cuDNN cannot do it.
    """
    b = backend()
    if b is None or not _supported(g):
        return None
    sym, rest = _split(pads)
    n, he, we, c = _grown(input_shape, rest)
    oh, ow = g.shape[1:3]
    scale = _rescale(xp, input_shape[1:3], (oh, ow), ksize, strides, pads, g.dtype)
    gy = _ncdhw(xp.ascontiguousarray(g if scale is None else g * scale))
    # An average's gradient depends on dy alone, but cuDNN's pooling backward also takes the
    # forward's x and y (max pooling needs them): zeros and dy stand in, with their shapes.
    x_like = xp.zeros((n, 1, he, we, c), dtype=g.dtype)
    gx = _call(b, b.cudnn.pooling_backward, x_like, gy, gy, *_pool_args(b, ksize, strides, sym))
    if gx is _REFUSED:
        return None
    return _crop(gx.reshape(n, he, we, c), rest, input_shape[1:3])
