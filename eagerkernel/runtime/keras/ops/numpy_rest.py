"""`keras.ops` NumPy-style functions, third part: the remaining elementwise math, NaN-aware
and order-statistic reductions, bitwise ops and array rearrangement (follows
``keras/src/ops/numpy.py``). Differentiable ones compose eagerkernel's ops; the
data-dependent ones (``histogram``, ``digitize``, ``isin``, ``unique``, ...) run in NumPy."""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from ... import numpy_ops as tnp
from ...core import dtypes
from ...ops import bitwise as bitwise_ops
from ._base import check_axes, float_like, floatx, keras_op, promote, result_type, to_tensor
from ._tf import tf

# fmt: off
__all__ = [
    "allclose", "array_split", "bartlett", "bitwise_and", "bitwise_invert",
    "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "blackman", "cbrt", "column_stack", "corrcoef", "correlate", "cross", "deg2rad", "diagflat",
    "diagonal", "divide_no_nan", "dsplit", "dstack", "empty", "empty_like", "fabs", "fliplr",
    "flipud", "fmax", "fmin", "fmod", "gcd", "geomspace", "hamming", "hanning", "heaviside",
    "hsplit", "isneginf", "isposinf", "isreal", "kaiser", "kron", "lcm", "ldexp", "left_shift",
    "logaddexp2", "logspace", "median", "nanargmax", "nanargmin", "nancumprod", "nancumsum",
    "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile",
    "nanstd", "nansum", "nanvar", "nextafter", "percentile", "ptp", "quantile", "rad2deg",
    "right_shift", "rot90", "select", "signbit", "sinc", "trapezoid", "vander", "vsplit",
]
# fmt: on


def _float64_like(x):
    """``x`` as a float tensor the way Keras's TF backend casts cbrt/deg2rad/heaviside inputs:
    int64 to float64, other integers and bool to floatx."""
    x = to_tensor(x)
    if x.dtype == dtypes.int64:
        return tf.cast(x, "float64")
    return float_like(x)


def _float_unary(name, fn, doc, wide_int64=True):
    def op(x):
        return fn(_float64_like(x) if wide_int64 else float_like(x))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc} (follows `keras.ops.{name}`); integer inputs give floatx"
    op.__doc__ += " (int64 gives float64)." if wide_int64 else "."
    return keras_op(op)


cbrt = _float_unary("cbrt", tnp.cbrt, "The elementwise cube root")
deg2rad = _float_unary("deg2rad", tnp.deg2rad, "Degrees to radians")
rad2deg = _float_unary("rad2deg", tnp.rad2deg, "Radians to degrees")
sinc = _float_unary("sinc", tnp.sinc, "The normalized sinc, ``sin(pi x) / (pi x)``", False)


@keras_op
def fabs(x):
    """``|x|`` (follows `keras.ops.fabs`); integer inputs give floatx."""
    return tf.abs(float_like(x))


@keras_op
def divide_no_nan(x1, x2):
    """``x1 / x2``, 0 where ``x2 == 0`` (follows `keras.ops.divide_no_nan`); floats."""
    dtype = result_type(x1, x2, 1.0)
    return tf.divide_no_nan(to_tensor(x1, dtype), to_tensor(x2, dtype))


@keras_op
def fmod(x1, x2):
    """The remainder of truncated division, the sign of ``x1`` (follows `keras.ops.fmod`);
    Python numbers count as int32/float32 tensors in the promotion, as in Keras."""
    x1, x2 = promote(to_tensor(x1), to_tensor(x2))
    if x1.dtype == dtypes.bool:
        x1, x2 = tf.cast(x1, "int32"), tf.cast(x2, "int32")
    if x1.dtype.is_floating:  # Keras's sign(x1) * floormod(|x1|, |x2|): floormod's gradient
        m = tf.mod(tf.abs(x1), tf.abs(x2))
        return tf.where(x1 < 0, -m, m)
    return tf.truncatemod(x1, x2)


def _nan_pick(name, pick, doc):
    def op(x1, x2):
        x1, x2 = promote(x1, x2)
        if not x1.dtype.is_floating:
            return pick(x1, x2)
        out = pick(x1, x2)
        out = tf.where(tf.is_nan(x1), x2, out)
        return tf.where(tf.is_nan(x2), x1, out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc}, ignoring NaNs (follows `keras.ops.{name}`); the Keras result dtype."
    return keras_op(op)


fmax = _nan_pick("fmax", tf.maximum, "The elementwise maximum")
fmin = _nan_pick("fmin", tf.minimum, "The elementwise minimum")


def _int_binary(name, fn, doc):
    def op(x1, x2):
        x1, x2 = promote(x1, x2)
        if not (x1.dtype.is_integer or x1.dtype == dtypes.bool):
            raise TypeError(
                f"keras.ops.{name}: expected integer tensors. Received: dtype={x1.dtype.name}"
            )
        return fn(x1, x2)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc} (follows `keras.ops.{name}`); integers only (TypeError otherwise)."
    return keras_op(op)


gcd = _int_binary("gcd", tnp.gcd, "The elementwise greatest common divisor")
lcm = _int_binary("lcm", tnp.lcm, "The elementwise least common multiple")
bitwise_and = _int_binary("bitwise_and", bitwise_ops.bitwise_and, "``x & y``")
bitwise_or = _int_binary("bitwise_or", bitwise_ops.bitwise_or, "``x | y``")
bitwise_xor = _int_binary("bitwise_xor", bitwise_ops.bitwise_xor, "``x ^ y``")
bitwise_left_shift = _int_binary("bitwise_left_shift", bitwise_ops.left_shift, "``x << y``")
bitwise_right_shift = _int_binary("bitwise_right_shift", bitwise_ops.right_shift, "``x >> y``")
left_shift = _int_binary("left_shift", bitwise_ops.left_shift, "``x << y``")
right_shift = _int_binary("right_shift", bitwise_ops.right_shift, "``x >> y``")


def _invert(name):
    def op(x):
        x = to_tensor(x)
        if x.dtype == dtypes.bool:
            return tf.logical_not(x)
        if not x.dtype.is_integer:
            raise TypeError(
                f"keras.ops.{name}: expected an integer tensor. Received: dtype={x.dtype.name}"
            )
        return bitwise_ops.invert(x)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``~x`` (follows `keras.ops.{name}`); integers and bools."
    return keras_op(op)


bitwise_invert = _invert("bitwise_invert")
bitwise_not = _invert("bitwise_not")


@keras_op
def heaviside(x1, x2):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0`` (follows
    `keras.ops.heaviside`); the Keras result dtype, float64 for int64, floatx for other
    integers."""
    dtype = result_type(x1, x2)
    if dtype == dtypes.int64:
        dtype = dtypes.float64
    elif not dtype.is_floating:
        dtype = dtypes.as_dtype(floatx())
    x1, x2 = to_tensor(x1, dtype), to_tensor(x2, dtype)
    ones, zeros = tf.ones_like(x1), tf.zeros_like(x1)
    return tf.where(x1 > 0, ones, tf.where(x1 < 0, zeros, x2 + zeros))


@keras_op
def ldexp(x1, x2):
    """``x1 * 2 ** x2`` (follows `keras.ops.ldexp`); ``x2`` must be integer (TypeError)."""
    x2 = to_tensor(x2)
    if not x2.dtype.is_integer:
        raise TypeError(f"keras.ops.ldexp: x2 must be integer. Received: dtype={x2.dtype.name}")
    dtype = result_type(x1, x2)
    if not dtype.is_floating:
        dtype = dtypes.as_dtype(floatx())
    return to_tensor(x1, dtype) * tf.pow(to_tensor(2.0, dtype), tf.cast(x2, dtype))


@keras_op
def logaddexp2(x1, x2):
    """``log2(2**x1 + 2**x2)`` (follows `keras.ops.logaddexp2`); floats."""
    dtype = result_type(x1, x2, 1.0)
    return tnp.logaddexp2(to_tensor(x1, dtype), to_tensor(x2, dtype))


@keras_op
def nextafter(x1, x2):
    """The next float after ``x1`` towards ``x2`` (follows `keras.ops.nextafter`)."""
    dtype = result_type(x1, x2, 1.0)
    return tf.nextafter(to_tensor(x1, dtype), to_tensor(x2, dtype))


def _inf_test(x, value):
    if not x.dtype.is_floating:
        return tf.fill(list(x.shape), False)
    return tf.equal(x, to_tensor(value, x.dtype))


def _bool_test(name, fn, doc):
    def op(x):
        return fn(to_tensor(x))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{doc} (follows `keras.ops.{name}`); bool."
    return keras_op(op)


isneginf = _bool_test("isneginf", lambda x: _inf_test(x, -np.inf), "Whether ``x == -inf``")
isposinf = _bool_test("isposinf", lambda x: _inf_test(x, np.inf), "Whether ``x == +inf``")
isreal = _bool_test("isreal", tnp.isreal, "Whether the imaginary part is 0")
signbit = _bool_test("signbit", tnp.signbit, "Whether the sign bit is set (``-0.0`` too)")


def _np(x):
    return np.asarray(to_tensor(x).numpy())


@keras_op
def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """Whether ``|x1 - x2| <= atol + rtol * |x2|`` everywhere (follows `keras.ops.allclose`);
    a bool scalar tensor."""
    return to_tensor(np.allclose(_np(x1), _np(x2), rtol=rtol, atol=atol, equal_nan=equal_nan))


# -- reductions ---------------------------------------------------------------------------------


def _reduce_float(x):
    x = to_tensor(x)
    return x if x.dtype.is_floating else tf.cast(x, floatx())


@keras_op
def ptp(x, axis=None, keepdims=False):
    """``max - min`` over ``axis`` (follows `keras.ops.ptp`); the dtype of ``x``."""
    x = to_tensor(x)
    axis = check_axes(axis, x.shape.rank, "ptp")
    low = tf.reduce_min(x, axis=axis, keepdims=keepdims)
    return tf.reduce_max(x, axis=axis, keepdims=keepdims) - low


def _to_last(x, axis, op):
    """``x`` with the ``axis`` dims flattened into one last axis, and the kept-dims shape."""
    rank = x.shape.rank
    shape = list(x.shape)
    axes = check_axes(axis, rank, op)
    if axes is None:
        axes = list(range(rank))
    elif isinstance(axes, int):
        axes = [axes]
    rest = [i for i in range(rank) if i not in axes]
    moved = tf.transpose(x, rest + axes) if rank else x
    flat = tf.reshape(moved, [shape[i] for i in rest] + [-1])
    kept = [1 if i in axes else shape[i] for i in range(rank)]
    return flat, [shape[i] for i in rest], kept


def _quantile(name, x, q, axis, method, keepdims, scale=1.0):
    methods = ("linear", "lower", "higher", "midpoint", "nearest")
    if method not in methods:
        raise ValueError(
            f"keras.ops.{name}: method must be one of {methods}. Received: method={method!r}"
        )
    x = _reduce_float(x)
    # As Keras: a Python q becomes a float32 tensor, and percentile divides in floatx
    q_arr = to_tensor(q, floatx() if scale != 1.0 else None).numpy()
    q_arr = np.asarray(q_arr / q_arr.dtype.type(scale) if scale != 1.0 else q_arr, np.float64)
    if np.any((q_arr < 0) | (q_arr > 1)):
        raise ValueError(f"keras.ops.{name}: q must be in [0, {scale:g}]. Received: q={q!r}")
    flat, rest_shape, kept = _to_last(x, axis, name)
    n = int(flat.shape[-1])
    s = tf.sort(flat, axis=-1)
    pos = q_arr.reshape(-1) * (n - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    frac = pos - lo
    if method == "lower":
        hi, frac = lo, frac * 0
    elif method == "higher":
        lo, frac = np.ceil(pos).astype(np.int64), frac * 0
        hi = lo
    elif method == "midpoint":
        frac = np.where(frac > 0, 0.5, 0.0)
    elif method == "nearest":
        lo = np.round(pos).astype(np.int64)  # half to even, as NumPy
        hi, frac = lo, frac * 0
    a = tf.gather(s, lo.tolist(), axis=-1)
    b = tf.gather(s, hi.tolist(), axis=-1)
    w = to_tensor(frac.astype(x.dtype.as_numpy_dtype))
    # a plain gather where no interpolation is needed, so that +-inf stays (inf - inf is NaN)
    out = tf.where(w == 0, a, a + (b - a) * w) if np.any(frac == 0) else a + (b - a) * w
    # out: rest_shape + [len(q)] -> [len(q)] + rest_shape (NumPy puts q's axes first)
    r = len(rest_shape)
    out = tf.transpose(out, [r, *list(range(r))])
    target = kept if keepdims else rest_shape
    out = tf.reshape(out, list(q_arr.shape) + list(target))
    return out


@keras_op
def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th quantiles (``q`` in [0, 1]) over ``axis`` (follows `keras.ops.quantile`);
    ``method`` is one of linear, lower, higher, midpoint, nearest. Differentiable (by sorting).
    """
    return _quantile("quantile", x, q, axis, method, keepdims)


@keras_op
def percentile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th percentiles (``q`` in [0, 100]) over ``axis`` (follows
    `keras.ops.percentile`)."""
    return _quantile("percentile", x, q, axis, method, keepdims, scale=100.0)


@keras_op
def median(x, axis=None, keepdims=False):
    """The median over ``axis`` (follows `keras.ops.median`); floats, differentiable.

    >>> ek.keras.ops.median([[1, 5, 2], [4, 3, 9]], axis=1).numpy()
    array([2., 4.], dtype=float32)
    """
    return _quantile("median", x, 0.5, axis, "linear", keepdims)


def _nan_numpy(name, fn, takes_q=False):
    def op(x, *args, **kwargs):
        x = to_tensor(x)
        if "axis" in kwargs:
            kwargs["axis"] = _np_axis(kwargs["axis"], x.shape.rank, name)
        out = fn(x.numpy(), *args, **kwargs)
        dtype = x.dtype.as_numpy_dtype if x.dtype.is_floating else floatx()
        return to_tensor(np.asarray(out, dtype=dtype))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"`numpy.{name}` (follows `keras.ops.{name}`), computed in NumPy: no gradient; floats."
    )
    return op


def _np_axis(axis, rank, op):
    axes = check_axes(axis, rank, op)
    return tuple(axes) if isinstance(axes, list) else axes


_nanmedian = _nan_numpy("nanmedian", np.nanmedian)
_nanquantile = _nan_numpy("nanquantile", np.nanquantile)
_nanpercentile = _nan_numpy("nanpercentile", np.nanpercentile)


@keras_op
def nanmedian(x, axis=None, keepdims=False):
    """The median over ``axis`` ignoring NaNs (follows `keras.ops.nanmedian`); NumPy, no
    gradient."""
    return _nanmedian(x, axis=axis, keepdims=keepdims)


@keras_op
def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """`quantile` ignoring NaNs (follows `keras.ops.nanquantile`); NumPy, no gradient."""
    return _nanquantile(x, np.asarray(q), axis=axis, method=method, keepdims=keepdims)


@keras_op
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """`percentile` ignoring NaNs (follows `keras.ops.nanpercentile`); NumPy, no gradient."""
    return _nanpercentile(x, np.asarray(q), axis=axis, method=method, keepdims=keepdims)


def _fill_nan(x, value):
    if not x.dtype.is_floating:
        return x
    return tf.where(tf.is_nan(x), tf.fill(list(x.shape), to_tensor(value, x.dtype)), x)


@keras_op
def nansum(x, axis=None, keepdims=False):
    """The sum over ``axis``, NaNs as 0 (follows `keras.ops.nansum`); bool, int8 and int16
    sum in int32, uint8 and uint16 in uint32."""
    x = to_tensor(x)
    axis = check_axes(axis, x.shape.rank, "nansum")
    wide = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32"}
    wide["uint16"] = "uint32"
    if x.dtype.name in wide:
        x = tf.cast(x, wide[x.dtype.name])
    return tf.reduce_sum(_fill_nan(x, 0.0), axis=axis, keepdims=keepdims)


@keras_op
def nanprod(x, axis=None, keepdims=False):
    """The product over ``axis``, NaNs as 1 (follows `keras.ops.nanprod`)."""
    x = to_tensor(x)
    axis = check_axes(axis, x.shape.rank, "nanprod")
    return tf.reduce_prod(_fill_nan(x, 1.0), axis=axis, keepdims=keepdims)


def _nan_count(x, axis, keepdims):
    valid = tf.cast(tf.logical_not(tf.is_nan(x)), x.dtype)
    return tf.reduce_sum(valid, axis=axis, keepdims=keepdims)


@keras_op
def nanmean(x, axis=None, keepdims=False):
    """The mean over ``axis`` ignoring NaNs (follows `keras.ops.nanmean`); floats, NaN where
    all are NaN."""
    x = _reduce_float(x)
    axis = check_axes(axis, x.shape.rank, "nanmean")
    total = tf.reduce_sum(_fill_nan(x, 0.0), axis=axis, keepdims=keepdims)
    return total / _nan_count(x, axis, keepdims)


@keras_op
def nanvar(x, axis=None, keepdims=False):
    """The variance over ``axis`` ignoring NaNs (follows `keras.ops.nanvar`); floats."""
    x = _reduce_float(x)
    axis = check_axes(axis, x.shape.rank, "nanvar")
    mean = nanmean(x, axis=axis, keepdims=True)
    sq = tf.square(_fill_nan(x - mean, 0.0))
    return tf.reduce_sum(sq, axis=axis, keepdims=keepdims) / _nan_count(x, axis, keepdims)


@keras_op
def nanstd(x, axis=None, keepdims=False):
    """The standard deviation over ``axis`` ignoring NaNs (follows `keras.ops.nanstd`)."""
    return tf.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def _nan_extreme(name, reduce, fill):
    def op(x, axis=None, keepdims=False):
        x = to_tensor(x)
        axis = check_axes(axis, x.shape.rank, name)
        if not x.dtype.is_floating:
            return reduce(x, axis=axis, keepdims=keepdims)
        out = reduce(_fill_nan(x, fill), axis=axis, keepdims=keepdims)
        all_nan = tf.logical_not(
            tf.reduce_any(tf.logical_not(tf.is_nan(x)), axis=axis, keepdims=keepdims)
        )
        return tf.where(all_nan, tf.fill(list(out.shape), to_tensor(np.nan, x.dtype)), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"`{name[3:]}` over ``axis`` ignoring NaNs (follows `keras.ops.{name}`)."
    return keras_op(op)


nanmax = _nan_extreme("nanmax", tf.reduce_max, -np.inf)
nanmin = _nan_extreme("nanmin", tf.reduce_min, np.inf)


def _nan_arg(name, fn):
    def op(x, axis=None, keepdims=False):
        x = to_tensor(x)
        if axis is not None:
            axis = _np_axis(axis, x.shape.rank, name)
        if x.dtype.is_floating and np.isnan(x.numpy()).all(axis=axis).any():
            raise ValueError(f"keras.ops.{name}: an all-NaN slice. Received: shape={x.shape}")
        out = fn(x.numpy(), axis=axis, keepdims=keepdims)
        return to_tensor(np.asarray(out, dtype=np.int32))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"`numpy.{name}` (follows `keras.ops.{name}`); int32 indices, ValueError on an "
        "all-NaN slice."
    )
    return keras_op(op)


nanargmax = _nan_arg("nanargmax", np.nanargmax)
nanargmin = _nan_arg("nanargmin", np.nanargmin)


def _nan_cum(name, fn, fill):
    def op(x, axis=None, dtype=None):
        x = to_tensor(x, dtype)
        if axis is None:
            x, axis = tf.reshape(x, [-1]), 0
        else:
            axis = check_axes(axis, x.shape.rank, name)
        return fn(_fill_nan(x, fill), axis=axis)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"`{name[3:]}` treating NaNs as {fill:g} (follows `keras.ops.{name}`)."
    return keras_op(op)


nancumsum = _nan_cum("nancumsum", tf.cumsum, 0.0)
nancumprod = _nan_cum("nancumprod", tf.cumprod, 1.0)


@keras_op
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` over ``axis`` by the trapezoidal rule (follows
    `keras.ops.trapezoid`); sample points ``x`` or spacing ``dx``; floats."""
    y = _reduce_float(y)
    rank = y.shape.rank
    axis = check_axes(axis, rank, "trapezoid")
    n = int(y.shape[axis])
    y1 = tf.gather(y, list(range(1, n)), axis=axis)
    y0 = tf.gather(y, list(range(n - 1)), axis=axis)
    if x is None:
        d = to_tensor(dx, y.dtype)
    else:
        x = to_tensor(x, y.dtype)
        xa = axis if x.shape.rank == rank else 0
        d = tf.gather(x, list(range(1, n)), axis=xa) - tf.gather(x, list(range(n - 1)), axis=xa)
        if x.shape.rank == 1 and rank > 1:
            shape = [1] * rank
            shape[axis] = n - 1
            d = tf.reshape(d, shape)
    return tf.reduce_sum(d * (y0 + y1) / 2.0, axis=axis)


# -- construction and rearrangement --------------------------------------------------------------


@keras_op
def empty(shape, dtype=None):
    """A tensor of ``shape`` (zeros here) (follows `keras.ops.empty`); floatx by default."""
    return tf.zeros(list(np.atleast_1d(shape)) if np.ndim(shape) else [shape], dtype or floatx())


@keras_op
def empty_like(x, dtype=None):
    """A tensor shaped like ``x`` (zeros here) (follows `keras.ops.empty_like`)."""
    x = to_tensor(x)
    return tf.zeros(list(x.shape), dtype or x.dtype)


@keras_op
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` numbers spaced evenly on a log scale (follows `keras.ops.geomspace`)."""
    out = np.geomspace(_np(start), _np(stop), num, endpoint=endpoint, axis=axis)
    return to_tensor(out.astype(dtype or floatx()))


@keras_op
def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)`` (follows `keras.ops.logspace`)."""
    out = np.logspace(_np(start), _np(stop), num, endpoint=endpoint, base=base, axis=axis)
    return to_tensor(out.astype(dtype or floatx()))


def _window(name, fn):
    def op(x):
        return to_tensor(fn(int(_np(x))).astype(floatx()))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The {name} window of ``x`` points (follows `keras.ops.{name}`); floatx."
    return keras_op(op)


bartlett = _window("bartlett", np.bartlett)
blackman = _window("blackman", np.blackman)
hamming = _window("hamming", np.hamming)
hanning = _window("hanning", np.hanning)


@keras_op
def kaiser(x, beta):
    """The Kaiser window of ``x`` points (follows `keras.ops.kaiser`); floatx."""
    return to_tensor(np.kaiser(int(_np(x)), float(beta)).astype(floatx()))


@keras_op
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of 1-D ``x`` (follows `keras.ops.vander`)."""
    x = to_tensor(x)
    if x.shape.rank != 1:
        raise ValueError(f"keras.ops.vander: x must be 1-D. Received: shape={x.shape}")
    n = int(x.shape[0]) if N is None else int(N)
    powers = list(range(n)) if increasing else list(range(n - 1, -1, -1))
    cols = [tf.pow(x, to_tensor(p, x.dtype)) for p in powers]
    return tf.stack(cols, axis=1) if cols else tf.zeros([int(x.shape[0]), 0], x.dtype)


@keras_op
def kron(x1, x2):
    """The Kronecker product (follows `keras.ops.kron`); the Keras result dtype."""
    x1, x2 = promote(x1, x2)
    return tnp.kron(x1, x2)


@keras_op
def diagflat(x, k=0):
    """A 2-D tensor with flattened ``x`` on its ``k``-th diagonal (follows
    `keras.ops.diagflat`)."""
    return tnp.diagflat(to_tensor(x), k)


@keras_op
def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset``-th diagonals over ``axis1``/``axis2``, as a last axis (follows
    `keras.ops.diagonal`)."""
    x = to_tensor(x)
    if x.shape.rank < 2:
        raise ValueError(f"keras.ops.diagonal: x must be at least 2-D. Received: shape={x.shape}")
    return tnp.diagonal(x, offset, axis1, axis2)


@keras_op
def fliplr(x):
    """``x`` reversed along axis 1 (follows `keras.ops.fliplr`)."""
    x = to_tensor(x)
    if x.shape.rank < 2:
        raise ValueError(f"keras.ops.fliplr: x must be at least 2-D. Received: shape={x.shape}")
    return tf.reverse(x, [1])


@keras_op
def flipud(x):
    """``x`` reversed along axis 0 (follows `keras.ops.flipud`)."""
    x = to_tensor(x)
    if x.shape.rank < 1:
        raise ValueError(f"keras.ops.flipud: x must be at least 1-D. Received: shape={x.shape}")
    return tf.reverse(x, [0])


@keras_op
def rot90(array, k=1, axes=(0, 1)):
    """``array`` rotated by ``k`` quarter turns in the plane ``axes`` (follows
    `keras.ops.rot90`)."""
    x = to_tensor(array)
    if x.shape.rank < 2:
        raise ValueError(f"keras.ops.rot90: array must be at least 2-D. Received: {x.shape}")
    return tnp.rot90(x, k, tuple(axes))


@keras_op
def dstack(xs):
    """Tensors stacked along axis 2 (follows `keras.ops.dstack`)."""
    return tnp.dstack(promote(*xs))


@keras_op
def column_stack(xs):
    """1-D tensors as columns of a 2-D tensor (follows `keras.ops.column_stack`)."""
    xs = [t if t.shape.rank > 1 else tf.reshape(t, [-1, 1]) for t in promote(*xs)]
    return tf.concat(xs, axis=1)


@keras_op
def array_split(x, indices_or_sections, axis=0):
    """``x`` split into ``indices_or_sections`` parts, the first ones one longer when it does
    not divide (follows `keras.ops.array_split`); a list of tensors."""
    x = to_tensor(x)
    axis = check_axes(axis, x.shape.rank, "array_split")
    n = int(x.shape[axis])
    if isinstance(indices_or_sections, int):
        if indices_or_sections <= 0:
            raise ValueError(
                "keras.ops.array_split: the number of sections must be positive. "
                f"Received: indices_or_sections={indices_or_sections}"
            )
        q, r = divmod(n, indices_or_sections)
        sizes = [q + 1] * r + [q] * (indices_or_sections - r)
    else:
        bounds = [0, *[builtins.min(int(i), n) for i in indices_or_sections], n]
        sizes = [builtins.max(b - a, 0) for a, b in itertools.pairwise(bounds)]
    out, start = [], 0
    for size in sizes:
        out.append(tf.gather(x, list(range(start, start + size)), axis=axis))
        start += size
    return out


def _split_along(name, axis, min_rank):
    def op(x, indices_or_sections):
        x = to_tensor(x)
        if x.shape.rank < min_rank:
            raise ValueError(
                f"keras.ops.{name}: x must be at least {min_rank}-D. Received: shape={x.shape}"
            )
        ax = 0 if (axis == 1 and x.shape.rank == 1) else axis
        if isinstance(indices_or_sections, int) and int(x.shape[ax]) % indices_or_sections:
            raise ValueError(
                f"keras.ops.{name}: {indices_or_sections} sections do not divide axis size "
                f"{x.shape[ax]}. Received: shape={x.shape}"
            )
        return array_split(x, indices_or_sections, axis=ax)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``x`` split along axis {axis} (follows `keras.ops.{name}`)."
    return keras_op(op)


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


@keras_op
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-vectors (follows `keras.ops.cross`)."""
    x1, x2 = promote(x1, x2)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = tnp.moveaxis(x1, axisa, -1)
    b = tnp.moveaxis(x2, axisb, -1)
    if int(a.shape[-1]) not in (2, 3) or int(b.shape[-1]) not in (2, 3):
        raise ValueError(
            "keras.ops.cross: vectors must have 2 or 3 components. "
            f"Received: x1.shape={x1.shape}, x2.shape={x2.shape}"
        )

    def comps(v):
        parts = tf.unstack(v, axis=-1)
        return parts if len(parts) == 3 else [*parts, tf.zeros_like(parts[0])]

    a0, a1, a2 = comps(a)
    b0, b1, b2 = comps(b)
    if int(a.shape[-1]) == 2 and int(b.shape[-1]) == 2:
        return a0 * b1 - a1 * b0
    out = tf.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return tnp.moveaxis(out, -1, axisc)


@keras_op
def corrcoef(x):
    """The Pearson correlation matrix of the rows of ``x`` (follows `keras.ops.corrcoef`)."""
    x = _reduce_float(x)
    if x.shape.rank == 1:
        x = tf.reshape(x, [1, -1])
    xc = x - tf.reduce_mean(x, axis=1, keepdims=True)
    cov = tf.matmul(xc, tf.transpose(xc))
    d = tf.sqrt(tf.linalg_diag_part(cov)) if hasattr(tf, "linalg_diag_part") else None
    if d is None:
        d = tf.sqrt(tf.reduce_sum(tf.square(xc), axis=1))
    out = cov / (tf.reshape(d, [-1, 1]) * tf.reshape(d, [1, -1]))
    return tf.clip_by_value(out, -1.0, 1.0)


@keras_op
def correlate(x1, x2, mode="valid"):
    """The cross-correlation of two 1-D tensors (follows `keras.ops.correlate`); ``mode`` is
    valid, same or full."""
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"keras.ops.correlate: invalid mode. Received: mode={mode!r}")
    dtype = result_type(x1, x2, 1.0)
    a, v = to_tensor(x1, dtype), to_tensor(x2, dtype)
    if a.shape.rank != 1 or v.shape.rank != 1:
        raise ValueError(
            f"keras.ops.correlate: x1 and x2 must be 1-D. Received: {a.shape}, {v.shape}"
        )
    n, m = int(a.shape[0]), int(v.shape[0])
    if n < m:
        return tf.reverse(correlate(v, a, mode), [0])
    pad = {"valid": (0, 0), "same": (m // 2, m - 1 - m // 2), "full": (m - 1, m - 1)}[mode]
    ap = tf.pad(a, [list(pad)])
    length = int(ap.shape[0]) - m + 1
    rows = tf.stack([tf.gather(ap, list(range(i, i + m))) for i in range(length)])
    return tf.reshape(tf.matmul(rows, tf.reshape(v, [-1, 1])), [-1])


@keras_op
def select(condlist, choicelist, default=0):
    """The first ``choicelist[i]`` whose ``condlist[i]`` holds, else ``default`` (follows
    `keras.ops.select`)."""
    if len(condlist) != len(choicelist):
        raise ValueError(
            "keras.ops.select: condlist and choicelist must have the same length. "
            f"Received: {len(condlist)} and {len(choicelist)}"
        )
    choices = promote(*choicelist, default)
    out = choices[-1]
    for cond, choice in zip(reversed(condlist), reversed(choices[:-1])):
        cond = tf.cast(to_tensor(cond), "bool")
        out = tf.where(cond, choice, out)
    return out
