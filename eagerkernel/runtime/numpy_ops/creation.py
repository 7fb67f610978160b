"""`ek.experimental.numpy`'s array creation (follows TF NumPy's ``np_array_ops``): NumPy's
signatures and defaults (``dtype=float`` is float64), results as `ek.Tensor`."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..core.errors import InvalidArgumentError
from ..core.numpy_methods import STATE
from ..core.tensor import Tensor, constant
from ..core.type_promotion import keep_weak
from ..core.type_promotion import result_type as _lattice_type
from .utils import as_np_dtype, asarray_value, default_float, no_argument, result_type
from .utils import const as _const


def _shape(shape, op: str) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        dims = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(
            f"{op}: shape must be an int or a sequence of ints, got {shape!r}."
        ) from None
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(
            None, op, f"{op}: negative dimensions are not allowed, got {dims}."
        )
    return dims


def _filled(shape, value, dtype, op: str) -> Tensor:
    np_dtype = as_np_dtype(dtype, op)
    return constant(np.full(_shape(shape, op), value, dtype=np_dtype))


def _weak_if_python(t: Tensor, val, dtype) -> Tensor:
    """``t``, weak when the new type promotion is on and it was made from a Python value
    without ``dtype`` (TensorFlow's ``tnp.array(1)`` is a weak int32)."""
    if STATE.promotion is None or dtype is not None:
        return t
    if not isinstance(val, (Tensor, np.ndarray, np.generic)) and _lattice_type(val, op="array")[1]:
        keep_weak(t, True)
    return t


def array(val, dtype=None, copy=True, ndmin=0) -> Tensor:
    """An array from ``val`` (follows `tf.experimental.numpy.array`): Python ints give int64,
    floats float64 (float32 under ``prefer_float32``), tensors keep their dtype; ``ndmin``
    prepends length-1 axes. Differentiable in tensor inputs (a list of tensors is stacked).
    Under the new type promotion (NumPy behavior's "all"/"safe" mode) a Python value gives a
    weak int32, float32 or complex128 tensor.

    >>> tnp = ek.experimental.numpy
    >>> tnp.array([1, 2]).dtype, tnp.array([[1.0]], ndmin=3).shape
    (ek.int64, TensorShape([1, 1, 1]))
    """
    t = asarray_value(val, dtype, "array")
    if t.ndim < ndmin:
        t = _ops.reshape(t, (1,) * (ndmin - t.ndim) + tuple(t.shape))
    if type(t) is not Tensor:  # a Variable: its current value
        t = _ops.identity(t)
    return _weak_if_python(t, val, dtype)


def asarray(a, dtype=None) -> Tensor:
    """``a`` as a Tensor, itself when it already is one of ``dtype`` (follows
    `tf.experimental.numpy.asarray`; the same inference as `array`, weak ones included)."""
    t = asarray_value(a, dtype, "asarray")
    if type(t) is not Tensor:
        t = _ops.identity(t)
    return _weak_if_python(t, a, dtype)


asanyarray = asarray
ascontiguousarray = asarray


def copy(a) -> Tensor:
    """A copy of ``a``, placed on the current device scope's device (follows
    `tf.experimental.numpy.copy`: inside ``ek.device(...)`` it copies there);
    differentiable."""
    return _ops.identity(asarray_value(a, op="copy"))  # dispatch places it in the scope


def zeros(shape, dtype=float) -> Tensor:
    """Zeros of ``shape`` (default float64; follows `tf.experimental.numpy.zeros`)."""
    return _filled(shape, 0, dtype or default_float(), "zeros")


def ones(shape, dtype=float) -> Tensor:
    """Ones of ``shape`` (default float64; follows `tf.experimental.numpy.ones`)."""
    return _filled(shape, 1, dtype or default_float(), "ones")


def empty(shape, dtype=float) -> Tensor:
    """An array of ``shape`` (zeros: tensors are never uninitialized; follows
    `tf.experimental.numpy.empty`)."""
    return _filled(shape, 0, dtype or default_float(), "empty")


def full(shape, fill_value, dtype=None) -> Tensor:
    """``fill_value`` broadcast to ``shape`` (its dtype unless ``dtype``; follows
    `tf.experimental.numpy.full`)."""
    value = asarray_value(fill_value, dtype, "full")
    return _ops.broadcast_to(value, _shape(shape, "full"))


def _like(a, dtype, value, op):
    t = asarray_value(a, op=op)
    np_dtype = as_np_dtype(dtype, op) or t._value.dtype
    return constant(np.full(tuple(t.shape), value, dtype=np_dtype))


def zeros_like(a, dtype=None) -> Tensor:
    """Zeros with ``a``'s shape and dtype (follows `tf.experimental.numpy.zeros_like`)."""
    return _like(a, dtype, 0, "zeros_like")


def ones_like(a, dtype=None) -> Tensor:
    """Ones with ``a``'s shape and dtype (follows `tf.experimental.numpy.ones_like`)."""
    return _like(a, dtype, 1, "ones_like")


def empty_like(a, dtype=None) -> Tensor:
    """Zeros with ``a``'s shape and dtype (follows `tf.experimental.numpy.empty_like`)."""
    return _like(a, dtype, 0, "empty_like")


def full_like(a, fill_value, dtype=None) -> Tensor:
    """``fill_value`` with ``a``'s shape, in ``a``'s dtype unless ``dtype`` (follows
    `tf.experimental.numpy.full_like`)."""
    t = asarray_value(a, op="full_like")
    np_dtype = as_np_dtype(dtype, "full_like") or t._value.dtype
    return _ops.broadcast_to(asarray_value(fill_value, np_dtype, "full_like"), tuple(t.shape))


def arange(start, stop=None, step=1, dtype=None) -> Tensor:
    """Values from ``start`` to ``stop`` (excluded) by ``step``, as NumPy's ``arange``
    (follows `tf.experimental.numpy.arange`): the dtype is the result type of the arguments
    (int64 for Python ints, float64 for floats) unless given.

    Raises:
        ValueError: ``step`` is 0.
    """
    if stop is None:
        start, stop = 0, start
    values = [v.numpy().item() if isinstance(v, Tensor) else v for v in (start, stop, step)]
    if values[2] == 0:
        raise ValueError("arange: step must not be 0.")
    np_dtype = as_np_dtype(dtype, "arange") or result_type(*(start, stop, step))
    return constant(np.arange(*values).astype(np_dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (follows
    `tf.experimental.numpy.linspace`); ``retstep`` also returns the spacing.

    Raises:
        ValueError: a negative ``num``.
    """
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative, got {num}.")
    np_dtype = as_np_dtype(dtype, "linspace")
    out, step = np.linspace(
        np.asarray(start), np.asarray(stop), int(num), endpoint=endpoint, retstep=True, axis=axis
    )
    t = constant(out.astype(np_dtype))
    return (t, constant(np.asarray(step, dtype=np_dtype))) if retstep else t


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0) -> Tensor:
    """``base ** linspace(start, stop, num)`` (follows `tf.experimental.numpy.logspace`)."""
    out = np.logspace(np.asarray(start), np.asarray(stop), int(num), endpoint, base, axis=axis)
    return constant(out.astype(as_np_dtype(dtype, "logspace") or default_float()))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0) -> Tensor:
    """Values spaced evenly on a log scale from ``start`` to ``stop`` (follows
    `tf.experimental.numpy.geomspace`)."""
    out = np.geomspace(np.asarray(start), np.asarray(stop), int(num), endpoint, axis=axis)
    return constant(out.astype(as_np_dtype(dtype, "geomspace") or default_float()))


def eye(N, M=None, k=0, dtype=float) -> Tensor:
    """A 2-D array with ones on diagonal ``k`` (follows `tf.experimental.numpy.eye`)."""
    return constant(
        np.eye(int(N), None if M is None else int(M), int(k), as_np_dtype(dtype, "eye"))
    )


def identity(n, dtype=float) -> Tensor:
    """The ``n`` x ``n`` identity (follows `tf.experimental.numpy.identity`)."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None) -> Tensor:
    """Ones at and below diagonal ``k`` (follows `tf.experimental.numpy.tri`)."""
    np_dtype = as_np_dtype(dtype, "tri") or default_float()
    return constant(np.tri(int(N), None if M is None else int(M), int(k), dtype=np_dtype))


def _triangle(m, k, lower: bool, op: str) -> Tensor:
    x = asarray_value(m, op=op)
    if x.ndim < 2:
        raise ValueError(f"{op}: the input must have rank >= 2, got shape {tuple(x.shape)}.")
    rows, cols = x.shape[-2], x.shape[-1]
    mask = np.tri(rows, cols, k, dtype=bool)
    if not lower:
        mask = ~np.tri(rows, cols, k - 1, dtype=bool)
    keep = _ops.broadcast_to(constant(mask), tuple(x.shape))
    return _ops.where(keep, x, _ops.zeros_like(x))


def tril(m, k=0) -> Tensor:
    """``m`` with the elements above diagonal ``k`` zeroed (follows
    `tf.experimental.numpy.tril`); differentiable."""
    return _triangle(m, k, True, "tril")


def triu(m, k=0) -> Tensor:
    """``m`` with the elements below diagonal ``k`` zeroed (follows
    `tf.experimental.numpy.triu`); differentiable."""
    return _triangle(m, k, False, "triu")


def vander(x, N=None, increasing=False) -> Tensor:
    """The Vandermonde matrix of the 1-D ``x``: columns ``x**(N-1) ... x**0`` (follows
    `tf.experimental.numpy.vander`); differentiable."""
    v = asarray_value(x, op="vander")
    if v.ndim != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {tuple(v.shape)}.")
    n = v.shape[0] if N is None else int(N)
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    cols = [_ops.pow(v, _const(int(p), v.dtype)) for p in powers]
    return _ops.stack(cols, axis=1) if cols else _ops.zeros((v.shape[0], 0), v.dtype)


def meshgrid(*xi, indexing="xy", sparse=False, copy=True) -> list:
    """Coordinate arrays from 1-D ``xi`` (follows `tf.experimental.numpy.meshgrid`).

    Raises:
        NotImplementedError: ``sparse=True``. ValueError: ``indexing`` other than "xy"/"ij".
    """
    if sparse:
        raise NotImplementedError("meshgrid: sparse=True is not supported.")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}.")
    ts = [_ops.reshape(asarray_value(x, op="meshgrid"), [-1]) for x in xi]
    n = len(ts)
    swap = indexing == "xy" and n >= 2
    lengths = [t.shape[0] for t in ts]
    if swap:
        lengths[0], lengths[1] = lengths[1], lengths[0]
    out = []
    for i, t in enumerate(ts):
        dims = [1] * n
        dims[1 - i if swap and i < 2 else i] = t.shape[0]
        out.append(_ops.broadcast_to(_ops.reshape(t, dims), lengths))
    return out


def diag(v, k=0) -> Tensor:
    """The diagonal ``k`` of a 2-D ``v``, or a 2-D array with the 1-D ``v`` on diagonal ``k``
    (follows `tf.experimental.numpy.diag`); differentiable.

    Raises:
        ValueError: ``v`` not 1-D or 2-D.
    """
    from ..ops import matrix_ops

    t = asarray_value(v, op="diag")
    if t.ndim == 1:
        return matrix_ops.diag(t, k=int(k))
    if t.ndim == 2:
        return diagonal(t, offset=k)
    raise ValueError(f"diag: input must be 1-D or 2-D, got shape {tuple(t.shape)}.")


def diagflat(v, k=0) -> Tensor:
    """`diag` of ``v`` flattened (follows `tf.experimental.numpy.diagflat`)."""
    return diag(_ops.reshape(asarray_value(v, op="diagflat"), [-1]), k)


def diagonal(a, offset=0, axis1=0, axis2=1) -> Tensor:
    """Diagonal ``offset`` of the ``(axis1, axis2)`` planes, as a last axis (follows
    `tf.experimental.numpy.diagonal`); differentiable."""
    x = asarray_value(a, op="diagonal")
    if x.ndim < 2:
        raise ValueError(f"diagonal: the input must have rank >= 2, got shape {tuple(x.shape)}.")
    a1, a2 = axis1 % x.ndim, axis2 % x.ndim
    if a1 == a2:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same.")
    rest = [i for i in range(x.ndim) if i not in (a1, a2)]
    x = _ops.transpose(x, [*rest, a1, a2])
    rows, cols = x.shape[-2], x.shape[-1]
    i = np.arange(max(0, min(rows + min(offset, 0), cols - max(offset, 0))))
    r, c = i - min(offset, 0), i + max(offset, 0)
    lead = (slice(None),) * len(rest)
    return x[(*lead, constant(r), constant(c))]


def no_order(op: str, order) -> None:
    """Raises for a memory ``order`` other than C (tensors have no layout to choose)."""
    if order not in (None, "C", "K", "A"):
        no_argument(op, order=order)
