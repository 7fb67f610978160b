"""`ek.experimental.numpy` (usually imported as ``tnp``): the NumPy API on eagerkernel
Tensors, following `tf.experimental.numpy`.

Functions take Tensors, Variables, NumPy arrays and Python values and return `ek.Tensor`
(``tnp.ndarray`` is `ek.Tensor`, as TF's is `tf.Tensor`). Each promotes its operands with
NumPy's rules (`result_type`: int32 and int64 give int64; Python ints become int64 and floats
float64, float32 under ``experimental_enable_numpy_behavior(prefer_float32=True)``) and calls
eagerkernel's ops, so it runs on the current device, is recorded by tapes and traced by
``ek.function``, and is differentiable wherever the op is. Arguments NumPy has and TF NumPy
does not (``out=``, ``where=``, structured ``order=``) raise NotImplementedError naming them.

`experimental_enable_numpy_behavior` adds NumPy methods to tensors (``t.reshape``, ``t.T``,
``t.astype`` ...) and NumPy type promotion to their operators.

Names TensorFlow's ``tf.experimental.numpy`` has that this module does not implement raise
NotImplementedError naming the function when looked up: ``ix_``, ``nextafter``, and the
dtype classes ``inexact``, ``object_``, ``string_`` and ``unicode_`` (eagerkernel's string
tensors are ``ek.string``). Any other missing name raises AttributeError. Complex inputs to
``real``, ``imag``, ``conj``/``conjugate`` and ``angle`` raise NotImplementedError.
``experimental_enable_numpy_behavior(dtype_conversion_mode="all"|"safe")`` switches to
TensorFlow 2.15's new type promotion (``core/type_promotion.py``): this module's Python
values are then 32-bit (weak) and its promotion follows that lattice.

>>> tnp = ek.experimental.numpy
>>> x = tnp.reshape(tnp.arange(6), (2, 3))
>>> x.dtype, tnp.sum(x, axis=0).numpy(), tnp.sqrt(4).dtype
(ek.int64, array([3, 5, 7]), ek.float64)
"""

from __future__ import annotations

import numpy as _np

from ..core import numpy_behavior as _numpy_behavior
from ..core.tensor import Tensor as ndarray
from . import random
from .arrays import (
    append,
    argsort,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_arrays,
    broadcast_to,
    compress,
    concatenate,
    cross,
    diff,
    dot,
    dsplit,
    dstack,
    einsum,
    expand_dims,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    inner,
    isscalar,
    kron,
    matmul,
    moveaxis,
    ndim,
    nonzero,
    outer,
    pad,
    polyval,
    ravel,
    repeat,
    reshape,
    roll,
    rot90,
    select,
    shape,
    size,
    sort,
    split,
    squeeze,
    stack,
    swapaxes,
    take,
    take_along_axis,
    tensordot,
    tile,
    trace,
    transpose,
    vdot,
    vsplit,
    vstack,
    where,
)
from .creation import (
    arange,
    array,
    asanyarray,
    asarray,
    ascontiguousarray,
    copy,
    diag,
    diagflat,
    diagonal,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    geomspace,
    identity,
    linspace,
    logspace,
    meshgrid,
    ones,
    ones_like,
    tri,
    tril,
    triu,
    vander,
    zeros,
    zeros_like,
)
from .math import (
    abs,
    absolute,
    add,
    all,
    allclose,
    amax,
    amin,
    angle,
    any,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    argmax,
    argmin,
    around,
    array_equal,
    average,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    cbrt,
    ceil,
    clip,
    conj,
    conjugate,
    cos,
    cosh,
    count_nonzero,
    cumprod,
    cumsum,
    deg2rad,
    divide,
    divmod,
    equal,
    exp,
    exp2,
    expm1,
    fabs,
    fix,
    float_power,
    floor,
    floor_divide,
    gcd,
    greater,
    greater_equal,
    heaviside,
    hypot,
    imag,
    isclose,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    lcm,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    max,
    maximum,
    mean,
    min,
    minimum,
    mod,
    multiply,
    nanmean,
    nanprod,
    nansum,
    negative,
    not_equal,
    positive,
    power,
    prod,
    ptp,
    rad2deg,
    real,
    reciprocal,
    remainder,
    round,
    sign,
    signbit,
    sin,
    sinc,
    sinh,
    sqrt,
    square,
    std,
    subtract,
    sum,
    tan,
    tanh,
    true_divide,
    var,
)
from .utils import as_np_dtype as _as_np_dtype
from .utils import asarray_value as _asarray_value
from .utils import default_float as _default_float

# -- dtypes and constants: NumPy's scalar types, as TF NumPy exports them -----------------------
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
int_ = _np.int64
float_ = _np.float64
complex_ = _np.complex128
iinfo = _np.iinfo

e = _np.e
pi = _np.pi
inf = _np.inf
nan = _np.nan
newaxis = None


def finfo(dtype):
    """NumPy's ``finfo`` of ``dtype`` (a type, `ek.DType` or tensor; follows
    `tf.experimental.numpy.finfo`)."""
    if isinstance(dtype, ndarray):
        dtype = dtype._value.dtype
    return _np.finfo(_as_np_dtype(dtype, "finfo"))


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives the arguments, as an `ek.DType` (follows
    `tf.experimental.numpy.result_type`); Python floats follow ``prefer_float32``.

    >>> tnp = ek.experimental.numpy
    >>> tnp.result_type(tnp.int32, tnp.int64), tnp.result_type(tnp.float32, 1.0)
    (ek.int64, ek.float32)
    """
    from ..core.dtypes import from_numpy

    return from_numpy(_numpy_behavior.result_type(*arrays_and_dtypes))


def promote_types(type1, type2):
    """The smallest dtype both promote to, as a NumPy dtype (follows
    `tf.experimental.numpy.promote_types`)."""
    return _np.promote_types(
        _as_np_dtype(type1, "promote_types"), _as_np_dtype(type2, "promote_types")
    )


def issubdtype(arg1, arg2) -> bool:
    """NumPy's ``issubdtype`` (follows `tf.experimental.numpy.issubdtype`); `ek.DType`
    arguments are read as their NumPy dtypes."""

    def np_of(x):
        if isinstance(x, type) and issubclass(x, _np.generic):
            return x
        return _as_np_dtype(x, "issubdtype")

    return bool(_np.issubdtype(np_of(arg1), np_of(arg2)))


def iscomplexobj(x) -> bool:
    """Whether ``x`` has a complex dtype (follows `tf.experimental.numpy.iscomplexobj`)."""
    return _asarray_value(x, op="iscomplexobj")._value.dtype.kind == "c"


def isrealobj(x) -> bool:
    """Whether ``x`` has no complex dtype (follows `tf.experimental.numpy.isrealobj`)."""
    return not iscomplexobj(x)


def iscomplex(x) -> ndarray:
    """Elementwise: a non-zero imaginary part (all False for real dtypes; follows
    `tf.experimental.numpy.iscomplex`)."""
    return zeros_like(x, dtype=bool_) if not iscomplexobj(x) else not_equal(imag(x), 0)


def isreal(x) -> ndarray:
    """Elementwise: a zero imaginary part (all True for real dtypes; follows
    `tf.experimental.numpy.isreal`)."""
    return ones_like(x, dtype=bool_) if not iscomplexobj(x) else equal(imag(x), 0)


def flatten(a, order="C") -> ndarray:
    """``a`` flattened to 1-D (follows `tf.experimental.numpy.flatten`)."""
    return ravel(a, order)


def diag_indices(n, ndim=2) -> tuple:
    """The indices of the main diagonal of an ``n``-wide ``ndim``-D array (follows
    `tf.experimental.numpy.diag_indices`)."""
    if n < 0:
        raise ValueError(f"diag_indices: n must be non-negative, got {n}.")
    idx = arange(n)
    return (idx,) * ndim


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Enables NumPy behavior for the whole process (follows
    `tf.experimental.numpy.experimental_enable_numpy_behavior`): tensors gain NumPy methods
    (``.T``, ``.reshape``, ``.ravel``, ``.transpose``, ``.flatten``, ``.astype``, ``.clip``,
    ``.tolist``, ``.max``, ``.mean``, ``.min``, ``round(t)``, ``.data``) and mixed dtypes
    promote. Calling it again switches to the mode it names.

    Args:
        prefer_float32: Python floats become float32 (else float64) in this module's
            conversions ("legacy" mode).
        dtype_conversion_mode: "legacy" (the default): the operators promote as NumPy does
            (int32 + int64 gives int64, int32 + 1.5 float64). "all": TensorFlow 2.15's new type
            promotion, a JAX-like lattice (int8 + float16 gives float16, int32 + float32
            float32) in the operators and the binary math ops (``tf.add``, ``tf.math.pow``...),
            with weak types: a Python int is a weak int32, a float a weak float32, a complex a
            weak complex128, and ``tf.constant(5)`` a weak tensor that takes the other
            operand's dtype; Variable assignments and ``tf.constant(tensor, dtype)`` convert
            implicitly to a dtype the value promotes to; ``tnp.array(1)`` is a weak int32.
            "safe": as "all", but the promotions that may lose precision or widen (int32 +
            float32, int8 + uint32...) raise TypeError.

    Raises:
        ValueError: another ``dtype_conversion_mode``.
    """
    if dtype_conversion_mode not in ("legacy", "all", "safe"):
        raise ValueError(
            "experimental_enable_numpy_behavior: dtype_conversion_mode must be 'legacy', "
            f"'all' or 'safe', got {dtype_conversion_mode!r}."
        )
    promotion = None if dtype_conversion_mode == "legacy" else dtype_conversion_mode
    _numpy_behavior.enable(prefer_float32, promotion)


__all__ = [
    "abs",
    "absolute",
    "add",
    "all",
    "allclose",
    "amax",
    "amin",
    "angle",
    "any",
    "append",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argsort",
    "around",
    "array",
    "array_equal",
    "asanyarray",
    "asarray",
    "ascontiguousarray",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "average",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "bool_",
    "broadcast_arrays",
    "broadcast_to",
    "cbrt",
    "ceil",
    "clip",
    "complex64",
    "complex128",
    "complex_",
    "compress",
    "concatenate",
    "conj",
    "conjugate",
    "copy",
    "cos",
    "cosh",
    "count_nonzero",
    "cross",
    "cumprod",
    "cumsum",
    "deg2rad",
    "diag",
    "diag_indices",
    "diagflat",
    "diagonal",
    "diff",
    "divide",
    "divmod",
    "dot",
    "dsplit",
    "dstack",
    "e",
    "einsum",
    "empty",
    "empty_like",
    "equal",
    "exp",
    "exp2",
    "expand_dims",
    "experimental_enable_numpy_behavior",
    "expm1",
    "eye",
    "fabs",
    "finfo",
    "fix",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "float16",
    "float32",
    "float64",
    "float_",
    "float_power",
    "floor",
    "floor_divide",
    "full",
    "full_like",
    "gcd",
    "geomspace",
    "greater",
    "greater_equal",
    "heaviside",
    "hsplit",
    "hstack",
    "hypot",
    "identity",
    "iinfo",
    "imag",
    "inf",
    "inner",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_",
    "isclose",
    "iscomplex",
    "iscomplexobj",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "isrealobj",
    "isscalar",
    "issubdtype",
    "kron",
    "lcm",
    "less",
    "less_equal",
    "linspace",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logaddexp2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logspace",
    "matmul",
    "max",
    "maximum",
    "mean",
    "meshgrid",
    "min",
    "minimum",
    "mod",
    "moveaxis",
    "multiply",
    "nan",
    "nanmean",
    "nanprod",
    "nansum",
    "ndarray",
    "ndim",
    "negative",
    "newaxis",
    "nonzero",
    "not_equal",
    "ones",
    "ones_like",
    "outer",
    "pad",
    "pi",
    "polyval",
    "positive",
    "power",
    "prod",
    "promote_types",
    "ptp",
    "rad2deg",
    "random",
    "ravel",
    "real",
    "reciprocal",
    "remainder",
    "repeat",
    "reshape",
    "result_type",
    "roll",
    "rot90",
    "round",
    "select",
    "shape",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "size",
    "sort",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "subtract",
    "sum",
    "swapaxes",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "trace",
    "transpose",
    "tri",
    "tril",
    "triu",
    "true_divide",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "vander",
    "var",
    "vdot",
    "vsplit",
    "vstack",
    "where",
    "zeros",
    "zeros_like",
]

_NOT_IMPLEMENTED = ("ix_", "nextafter", "inexact", "object_", "string_", "unicode_")


def __getattr__(name: str):
    if name in _NOT_IMPLEMENTED:
        raise NotImplementedError(
            f"ek.experimental.numpy.{name} (tf.experimental.numpy.{name}) is not implemented "
            "in eagerkernel."
        )
    raise AttributeError(f"module 'ek.experimental.numpy' has no attribute {name!r}")


del _default_float
