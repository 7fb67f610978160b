"""The separable resampling behind `ek.image.resize`'s bicubic, area, Lanczos, Gaussian and
Mitchell-cubic methods and bilinear anti-aliasing, numerically as TensorFlow 2's kernels.

Each method is a linear map per spatial axis: an ``[out_size, in_size]`` float32 weight
matrix built once on the host in NumPy (cached by sizes) with TensorFlow's sampling positions,
boundary handling and normalisation, emulating its float32 arithmetic:

- ``ResizeBicubic`` with half-pixel centres (``resize_bicubic_op.cc``): Keys' cubic
  (a = -0.5) read from TensorFlow's 1024-entry coefficient table; taps outside the image get
  weight 0 and the four weights are renormalised to sum to 1.
- ``ResizeArea`` (``resize_area_op.cc``): each output pixel averages the input cells its
  footprint covers, partial cells weighted by the covered fraction.
- ``ScaleAndTranslate`` (``scale_and_translate_op.cc``, kernels from ``sampling_kernels.h``):
  the kernel centred on ``(i + 0.5) * in / out``, stretched by ``in / out`` when
  anti-aliasing a downsampled axis, clipped to the image and normalised to sum 1.

The two matrices are applied by one primitive, ``ResizeSeparable`` (rows first, as
TensorFlow's kernels; block-banded matrix products that skip the zeros outside each block's
band); its VJP is the same primitive with the transposed matrices. An image holding NaN or
infinity goes through gathers of the kernel's own taps instead (differentiable ops), so those
values reach the same outputs as in TensorFlow.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.tensor import Tensor
from ..native import blas
from ._core import apply, tensor

__all__ = ["AxisWeights", "Banded", "Taps", "apply_separable", "axis_weights"]

_F32 = np.float32
_TINY = _F32(1000.0) * np.finfo(np.float32).tiny  # TF: 1000 * numeric_limits<float>::min()


class Taps(NamedTuple):
    """One axis's resampling as the kernel computes it: output ``i`` is
    ``sum_k weight[i, k] * input[index[i, k]]`` over the taps with ``mask[i, k]`` (the taps
    TensorFlow reads, zero weights included, so non-finite inputs spread as in TensorFlow)."""

    index: np.ndarray  # [out, K] int64, in [0, in_size)
    weight: np.ndarray  # [out, K] float32
    mask: np.ndarray  # [out, K] bool


class Banded:
    """A resampling matrix ``[out, in]`` split into blocks of consecutive output rows, each
    with the columns its nonzero weights use: the product skips the zeros outside the band
    (a 224 -> 112 bicubic axis reads 6 of 224 inputs per output)."""

    __slots__ = ("_kron", "_transpose", "blocks", "matrix")
    ROWS_PER_BLOCK = 16

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix
        blocks = []
        for a in range(0, matrix.shape[0], self.ROWS_PER_BLOCK):
            b = min(matrix.shape[0], a + self.ROWS_PER_BLOCK)
            used = np.flatnonzero(matrix[a:b].any(axis=0))
            lo, hi = (int(used[0]), int(used[-1]) + 1) if used.size else (0, 0)
            blocks.append((a, b, lo, hi, np.ascontiguousarray(matrix[a:b, lo:hi])))
        self.blocks = tuple(blocks)
        self._transpose = None
        self._kron: dict[int, tuple] = {}

    def kron_blocks(self, channels: int) -> tuple:
        """The blocks as ``kron(block, eye(channels))``, transposed: they act on an axis
        interleaved with ``channels`` (``[..., W * C]``) from the right, with no transpose."""
        got = self._kron.get(channels)
        if got is None:
            eye = np.eye(channels, dtype=self.matrix.dtype)
            got = self._kron[channels] = tuple(
                (a, b, lo, hi, np.ascontiguousarray(np.kron(block, eye).T))
                for a, b, lo, hi, block in self.blocks
            )
        return got

    @property
    def T(self) -> Banded:
        """The transposed matrix (the adjoint map, for the gradient), built once."""
        if self._transpose is None:
            self._transpose = Banded(np.ascontiguousarray(self.matrix.T))
            self._transpose._transpose = self
        return self._transpose

    def __repr__(self) -> str:
        return f"Banded({self.matrix.shape[0]}x{self.matrix.shape[1]})"


class AxisWeights(NamedTuple):
    """An axis's `Taps` and the same map as a `Banded` ``[out, in]`` float32 matrix."""

    matrix: Banded
    taps: Taps


# -- sampling kernels (sampling_kernels.h), evaluated in float32 --------------------------------
def _lanczos(radius: float):
    r = _F32(radius)
    pi = _F32(3.14159265359)

    def kernel(x: np.ndarray) -> np.ndarray:
        x = np.abs(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = r * np.sin(pi * x) * np.sin(pi * x / r) / (pi * pi * x * x)
        return np.where(x > r, _F32(0), np.where(x <= _F32(1e-3), _F32(1), v)).astype(_F32)

    return kernel, r


def _gaussian(x: np.ndarray) -> np.ndarray:
    radius, sigma = _F32(1.5), _F32(1.5) / _F32(3.0)
    x = np.abs(x)
    # -x*x in float, the division and exp in double (2.0 is a double constant), then float.
    v = np.exp((-x * x).astype(np.float64) / (2.0 * float(sigma) * float(sigma))).astype(_F32)
    return np.where(x >= radius, _F32(0), v)


def _triangle(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < _F32(1), _F32(1) - x, _F32(0))


def _keys_cubic(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    outer = ((_F32(-0.5) * x + _F32(2.5)) * x - _F32(4.0)) * x + _F32(2.0)
    inner = ((_F32(1.5) * x - _F32(2.5)) * x) * x + _F32(1.0)
    return np.where(x >= _F32(2), _F32(0), np.where(x >= _F32(1), outer, inner))


def _mitchell_cubic(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    outer = ((_F32(-7.0) / _F32(18.0) * x + _F32(2.0)) * x - _F32(10.0) / _F32(3.0)) * x + (
        _F32(16.0) / _F32(9.0)
    )
    inner = ((_F32(7.0) / _F32(6.0) * x - _F32(2.0)) * x) * x + _F32(8.0) / _F32(9.0)
    return np.where(x >= _F32(2), _F32(0), np.where(x >= _F32(1), outer, inner))


# ScaleAndTranslate's kernel_type names -> (kernel, radius).
_KERNELS = {
    "lanczos3": _lanczos(3.0),
    "lanczos5": _lanczos(5.0),
    "gaussian": (_gaussian, _F32(1.5)),
    "triangle": (_triangle, _F32(1.0)),
    "keyscubic": (_keys_cubic, _F32(2.0)),
    "mitchellcubic": (_mitchell_cubic, _F32(2.0)),
}


def _scale_and_translate(kernel_type: str, in_size: int, out_size: int, antialias: bool) -> Taps:
    """ScaleAndTranslate's spans (ComputeSpansCore) with scale ``out / in`` and translation 0."""
    kernel, radius = _KERNELS[kernel_type]
    scale = _F32(out_size) / _F32(in_size)  # resize_images_v2 casts both sizes to float32
    inv_scale = _F32(1.0 / float(scale))
    kernel_scale = max(inv_scale, _F32(1.0)) if antialias else _F32(1.0)
    reach = radius * kernel_scale
    span_size = min(2 * int(np.ceil(reach)) + 1, in_size)
    sample = (np.arange(out_size, dtype=_F32) + _F32(0.5)) * inv_scale
    start = np.ceil(sample - reach - _F32(0.5)).astype(np.int64)
    end = np.floor(sample + reach - _F32(0.5)).astype(np.int64)
    start = np.clip(start, 0, in_size - 1)
    end = np.clip(end, 0, in_size - 1) + 1
    source = start[:, None] + np.arange(span_size)[None, :]
    valid = (source < end[:, None]) & ((sample >= 0) & (sample <= in_size))[:, None]
    pos = (source.astype(_F32) + _F32(0.5)) - sample[:, None]
    weights = np.where(valid, kernel(np.abs(pos * (_F32(1.0) / kernel_scale))), _F32(0))
    total = np.cumsum(weights, axis=1, dtype=_F32)[:, -1]  # summed in order, in float32
    ok = np.abs(total) >= _TINY
    inv_total = np.where(ok, _F32(1.0) / np.where(ok, total, _F32(1)), _F32(0)).astype(_F32)
    weights = weights * inv_total[:, None]
    # GatherRows/GatherColumns multiply every tap of the widest span that is inside the image
    return Taps(np.minimum(source, in_size - 1), weights, source < in_size)


@functools.cache
def _bicubic_table() -> np.ndarray:
    """ResizeBicubic's coefficient table for Keys' a = -0.5: ``[1025, 2]`` float32, column 0
    the weight at distance ``i / 1024``, column 1 at ``1 + i / 1024`` (computed in double)."""
    a = -0.5
    x = np.arange(1025, dtype=np.float64) / 1024.0
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1.0
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return np.stack([near, far], axis=1).astype(_F32)


def _bicubic(in_size: int, out_size: int) -> Taps:
    """ResizeBicubic with ``half_pixel_centers=True`` (GetWeightsAndIndices with Keys' cubic)."""
    table = _bicubic_table()
    scale = _F32(in_size) / _F32(out_size)
    loc = (np.arange(out_size, dtype=_F32) + _F32(0.5)) * scale - _F32(0.5)
    base = np.floor(loc).astype(np.int64)
    delta = loc - base.astype(_F32)
    offset = np.rint(delta * _F32(1024)).astype(np.int64)  # lrintf: round half to even
    weights = np.stack(
        [table[offset, 1], table[offset, 0], table[1024 - offset, 0], table[1024 - offset, 1]],
        axis=1,
    )
    index = base[:, None] + np.arange(-1, 3)[None, :]
    inside = (index >= 0) & (index < in_size)
    weights = np.where(inside, weights, _F32(0))
    total = ((weights[:, 0] + weights[:, 1]) + weights[:, 2]) + weights[:, 3]
    ok = np.abs(total) >= _TINY
    inv_total = np.where(ok, _F32(1.0) / np.where(ok, total, _F32(1)), _F32(1)).astype(_F32)
    weights = weights * inv_total[:, None]
    # the four taps are read at the clamped indices, an outside one with weight 0
    return Taps(np.clip(index, 0, in_size - 1), weights, np.ones(index.shape, bool))


def _area(in_size: int, out_size: int) -> Taps:
    """ResizeArea's cell coverage along one axis, divided by ``in / out`` (the kernel
    multiplies the 2-D sum by ``1 / (height_scale * width_scale)``)."""
    scale = _F32(in_size) / _F32(out_size)
    cells = []
    for y in range(out_size):
        lo = _F32(y) * scale
        hi = _F32(y + 1) * scale
        row = []
        for i in range(int(np.floor(lo)), int(np.ceil(hi))):
            if i < lo:
                w = scale if i + 1 > hi else _F32(i + 1) - lo
            else:
                w = hi - _F32(i) if i + 1 > hi else _F32(1.0)
            row.append((min(in_size - 1, max(0, i)), w))
        cells.append(row)
    width = max(len(row) for row in cells)
    index = np.zeros((out_size, width), np.int64)
    weights = np.zeros((out_size, width), _F32)
    mask = np.zeros((out_size, width), bool)
    for y, row in enumerate(cells):
        for k, (i, w) in enumerate(row):
            index[y, k], weights[y, k], mask[y, k] = i, w, True
    return Taps(index, weights * _F32(1.0 / float(scale)), mask)


@functools.lru_cache(maxsize=64)
def _cached_weights(kind: str, in_size: int, out_size: int, antialias: bool) -> AxisWeights:
    if kind == "bicubic":
        taps = _bicubic(in_size, out_size)
    elif kind == "area":
        taps = _area(in_size, out_size)
    else:
        taps = _scale_and_translate(kind, in_size, out_size, antialias)
    matrix = np.zeros((out_size, in_size), _F32)
    rows = np.broadcast_to(np.arange(out_size)[:, None], taps.index.shape)
    np.add.at(matrix, (rows[taps.mask], taps.index[taps.mask]), taps.weight[taps.mask])
    for a in (matrix, *taps):
        a.setflags(write=False)
    return AxisWeights(Banded(matrix), taps)


def axis_weights(kind: str, in_size: int, out_size: int, antialias: bool = False) -> AxisWeights:
    """How one axis of ``in_size`` pixels is resampled to ``out_size``.

    Args:
        kind: ``"bicubic"`` (ResizeBicubic, half-pixel centres), ``"area"`` (ResizeArea), or a
            ScaleAndTranslate kernel: ``"lanczos3"``, ``"lanczos5"``, ``"gaussian"``,
            ``"triangle"``, ``"keyscubic"``, ``"mitchellcubic"``.
        antialias: for the ScaleAndTranslate kernels, widen the kernel by ``in / out`` when
            downsampling (ignored by bicubic and area).

    Returns:
        `AxisWeights`: the ``[out_size, in_size]`` float32 matrix as `Banded` (row ``i``
        holds output ``i``'s weights) and the kernel's `Taps`; read-only arrays, cached by
        the arguments.
    """
    return _cached_weights(kind, int(in_size), int(out_size), bool(antialias))


def _apply_taps(x: Tensor, axis: int, taps: Taps) -> Tensor:
    """Resamples ``axis`` of ``x`` by gathering each output's taps (TensorFlow's order of
    reads, so a NaN or infinity reaches only the outputs whose taps read it)."""
    from .array_ops import reshape
    from .elementwise import where
    from .indexing import gather
    from .reduction import reduce_sum

    out, k = taps.index.shape
    shape = list(x.shape)
    split = [*shape[:axis], out, k, *shape[axis + 1 :]]
    g = reshape(gather(x, taps.index.reshape(-1), axis=axis), split)
    bshape = [1] * len(split)
    bshape[axis], bshape[axis + 1] = out, k
    mask = tensor(taps.mask.reshape(bshape), "resize")
    dt = x._value.dtype
    g = where(mask, g, tensor(np.zeros((), dt), "resize"))
    return reduce_sum(g * tensor(taps.weight.reshape(bshape).astype(dt), "resize"), axis=axis + 1)


def _matmul(xp, a, b):
    return blas.matmul(a, b) if xp is np else xp.matmul(a, b)


def _banded_product(xp, band: Banded, x):
    """``band.matrix @ x`` for ``x`` of shape ``[B, in, F]``, block by block."""
    out = xp.zeros((x.shape[0], band.matrix.shape[0], x.shape[2]), x.dtype)
    for a, b, lo, hi, block in band.blocks:
        if hi > lo:
            out[:, a:b] = _matmul(xp, xp.asarray(block, dtype=x.dtype), x[:, lo:hi])
    return out


# Up to this many channels the width axis is resampled in place (``kron(block, eye(C))`` from
# the right, C times the multiply-adds); beyond it, by transposing width before the rows.
_KRON_CHANNELS = 4


def _separable_fwd(xp, x, rows: Banded, cols: Banded):
    b, h, w, c = x.shape
    out_h, out_w = rows.matrix.shape[0], cols.matrix.shape[0]
    y = _banded_product(xp, rows, x.reshape(b, h, w * c))  # [B, out_h, W * C]
    if c <= _KRON_CHANNELS:
        y = y.reshape(b * out_h, w * c)
        out = xp.zeros((b * out_h, out_w * c), x.dtype)
        for a, e, lo, hi, block in cols.kron_blocks(c):
            if hi > lo:
                out[:, a * c : e * c] = _matmul(
                    xp, y[:, lo * c : hi * c], xp.asarray(block, dtype=x.dtype)
                )
        return out.reshape(b, out_h, out_w, c)
    y = y.reshape(b, out_h, w, c).transpose(0, 2, 1, 3).reshape(b, w, out_h * c)
    z = _banded_product(xp, cols, y)  # [B, out_w, out_h * C]
    return xp.ascontiguousarray(z.reshape(b, out_w, out_h, c).transpose(0, 2, 1, 3))


# out = rows @ x @ cols^T per image and channel; its VJP is the same map with the transposed
# matrices (rows^T @ g @ cols), itself differentiable, so every order of gradient is exact.
_separable = Primitive("ResizeSeparable", _separable_fwd)
defvjp(
    _separable,
    lambda g, ans, x, rows, cols: apply(_separable, (g,), {"rows": rows.T, "cols": cols.T}),
)


def apply_separable(x: Tensor, rows: AxisWeights, cols: AxisWeights) -> Tensor:
    """``out[b, i, j, c] = sum_{h, w} rows[i, h] * cols[j, w] * x[b, h, w, c]`` for a float
    ``[B, H, W, C]`` tensor, rows first as TensorFlow's kernels. Finite images go through one
    primitive (block-banded matrix products; its gradient is the transposed map); an image
    holding NaN or infinity goes through per-output gathers of the kernel's taps, so those
    values spread only as far as in TensorFlow (a matrix product would spread them over whole
    rows). The finiteness test is a value read, so a traced function re-traces on a change."""
    from .math_ops import is_finite
    from .reduction import reduce_all

    if not bool(reduce_all(is_finite(x))):
        return _apply_taps(_apply_taps(x, 1, rows.taps), 2, cols.taps)
    return apply(_separable, (x,), {"rows": rows.matrix, "cols": cols.matrix})
