"""Fused kernels in C for the CPU: Adam's update, ReLU's gradient, a tiling max pool's
gradient, conv2d's col2im, the elementwise passes of sigmoid, softplus and the sigmoid and
tanh gradients, and erf and the exact GELU on float32 arrays.

NumPy computes Adam's update as twelve passes over memory (`keras/optimizers/adam.py`), and
ReLU's and a max pool's gradients and col2im as several (`ops/nn.py`, `ops/conv.py`); the C
extension ``eagerkernel.runtime.native._kernels`` (``_kernels.c``, built by ``pip install``)
does each in one loop that reads and writes each element once, with the GIL released. The
results are the NumPy kernels', bit for bit (the same operations in the same order). The
extension is optional: where it was not built (no C compiler at install time), each function
here declines (False or None) and the caller runs its NumPy kernel.

The activations (`sigmoid`, `softplus`) keep NumPy's own ``exp``/``log1p`` (its SIMD loops,
called in place on the output) and do the arithmetic around them in C, so NumPy's formula
``where(x >= 0, 1 / (1 + e), e / (1 + e))`` with ``e = exp(-|x|)`` costs three passes over
memory and no temporary instead of about nine passes and five temporaries, with the same
result bit for bit. ``benchmarks/elementwise.py`` measures them beside numexpr, the library
made for fused elementwise expressions, on the same formulas.

Floating-point errors follow NumPy's error state (`numpy.errstate`), as the NumPy kernels'
do: the C loop reports which IEEE flags it raised, and the wrapper ignores them, warns with a
RuntimeWarning, or raises FloatingPointError as ``np.geterr()`` says.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

try:
    from . import _kernels
except ImportError:  # not built: every kernel declines and NumPy's runs
    _kernels = None

__all__ = [
    "adam",
    "available",
    "col2im",
    "erf",
    "gelu",
    "max_pool_grad",
    "relu_grad",
    "sigmoid",
    "sigmoid_grad",
    "softplus",
    "tanh_grad",
]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def available() -> bool:
    """Whether the C extension was built and imported."""
    return _kernels is not None


def adam(g, var, m, v, *, b1: float, b2: float, epsilon: float, lr_t: float) -> bool:
    """Adam's update of ``var``, ``m`` and ``v`` in place, in one pass (Keras's formula)::

        m = b1 * m + (1 - b1) * g;  v = b2 * v + (1 - b2) * g * g
        var -= lr_t * m / (sqrt(v) + epsilon)

    Args:
        g: the gradient, a NumPy array of ``var``'s shape and dtype (float32 or float64);
            copied first if not C-contiguous.
        var, m, v: the variable and its two slots, C-contiguous NumPy arrays of that shape
            and dtype, updated in place.
        b1, b2, epsilon, lr_t: Adam's ``beta_1``, ``beta_2``, ``epsilon`` and this step's
            bias-corrected learning rate.

    Returns:
        True once the update is done; False, having changed nothing, when the C kernel does
        not apply (extension not built, another array type or dtype, mismatched shapes, a
        non-contiguous ``var``, ``m`` or ``v``): the caller then runs the NumPy kernel.

    Raises:
        FloatingPointError: the update overflowed, made a NaN or divided by zero, and
            ``np.geterr()`` says ``"raise"`` for that error (the arrays are then already
            updated, as after NumPy's kernel: the optimizer restores them).
    """
    if _kernels is None or any(type(a) is not np.ndarray for a in (g, var, m, v)):
        return False
    dtype = var.dtype
    if dtype not in _FLOATS or g.dtype != dtype or m.dtype != dtype or v.dtype != dtype:
        return False
    if not (var.shape == g.shape == m.shape == v.shape):
        return False
    if not (var.flags.c_contiguous and m.flags.c_contiguous and v.flags.c_contiguous):
        return False
    if not g.flags.c_contiguous:
        g = np.ascontiguousarray(g)
    flags = _kernels.adam(g, var, m, v, b1, b2, epsilon, lr_t)
    if flags:
        _fp_errors(flags, "adam")
    return True


def relu_grad(g, x):
    """ReLU's gradient ``g * (x > 0)`` (TF's ReluGrad) in one pass, or None to decline.

    Args:
        g, x: NumPy arrays of one shape and dtype (float32 or float64), C-contiguous.

    Returns:
        A new array of that shape and dtype; None (nothing done) for anything else
        (broadcasting shapes, other dtypes, strided arrays, CuPy, extension not built).

    Raises:
        FloatingPointError: as NumPy's multiply would (``0 * inf``), if ``np.geterr()`` says
            ``"raise"``.
    """
    if _kernels is None or type(g) is not np.ndarray or type(x) is not np.ndarray:
        return None
    if g.dtype not in _FLOATS or x.dtype != g.dtype or x.shape != g.shape:
        return None
    if not (g.flags.c_contiguous and x.flags.c_contiguous):
        return None
    out = np.empty_like(g)
    flags = _kernels.relu_grad(g, x, out)
    if flags:
        _fp_errors(flags, "multiply")
    return out


# Kinds of ``_kernels.elementwise``.
_NEG_ABS, _SIGMOID_FINISH, _SOFTPLUS_FINISH, _SIGMOID_GRAD, _TANH_GRAD, _ERF, _GELU = range(7)
_FLOAT32 = np.dtype(np.float32)


def _applies(*arrays) -> bool:
    """Whether the elementwise kernels take these arrays: the C extension is built, and they
    are NumPy arrays (not scalars, not CuPy) of one shape and float dtype, C-contiguous."""
    if _kernels is None:
        return False
    first = arrays[0]
    for a in arrays:
        if type(a) is not np.ndarray or not a.flags.c_contiguous:
            return False
        if a.dtype is not first.dtype and a.dtype != first.dtype:
            return False
        if a.shape != first.shape:
            return False
    return first.dtype in _FLOATS


def sigmoid(x):
    """The stable sigmoid, ``where(x >= 0, 1 / (1 + e), e / (1 + e))`` with ``e = exp(-|x|)``,
    in three passes without temporaries, or None to decline.

    Args:
        x: a C-contiguous float32 or float64 NumPy array.

    Returns:
        A new array of x's shape and dtype, equal bit for bit to that NumPy formula (NumPy's
        ``exp`` computes ``e``); None (nothing done) for anything else.
    """
    if not _applies(x):
        return None
    out = np.empty_like(x)
    _kernels.elementwise(_NEG_ABS, x, x, out)
    np.exp(out, out=out)  # never overflows: the argument is <= 0
    # The only flag the finishing pass can raise is "invalid" from comparing a NaN, which
    # NumPy's comparison does not report either: ignored.
    _kernels.elementwise(_SIGMOID_FINISH, x, out, out)
    return out


def softplus(x):
    """The stable softplus, ``log1p(exp(-|x|)) + maximum(x, 0)``, in four passes without
    temporaries, or None to decline; bit for bit that NumPy formula (NumPy's ``exp`` and
    ``log1p``). Takes and returns what `sigmoid` does."""
    if not _applies(x):
        return None
    out = np.empty_like(x)
    _kernels.elementwise(_NEG_ABS, x, x, out)
    np.exp(out, out=out)
    np.log1p(out, out=out)
    flags = _kernels.elementwise(_SOFTPLUS_FINISH, x, out, out)
    if flags & ~_kernels.INVALID:  # "invalid": a NaN compared (NumPy's maximum is silent)
        _fp_errors(flags & ~_kernels.INVALID, "add")
    return out


def erf(x):
    """The error function of a float32 array in one pass, or None to decline.

    Evaluated in double precision (a polynomial with relative error below 4e-10) and rounded
    once, so each value is the correctly rounded erf or its neighbour: within 1 ulp of
    SciPy's float32 ``erf`` (its double erf, rounded), equal to it for all but about one value
    in a thousand. Raises no floating-point warnings (erf cannot overflow).

    Args:
        x: a C-contiguous float32 NumPy array (float64 declines: 1 ulp of float64 is beyond
            this polynomial, and SciPy's double erf runs).

    Returns:
        A new float32 array of x's shape; None for anything else.
    """
    if not _applies(x) or x.dtype != _FLOAT32:
        return None
    out = np.empty_like(x)
    _kernels.elementwise(_ERF, x, x, out)
    return out


def gelu(x):
    """The exact GELU ``0.5 * x * (1 + erf(x * sqrt(1/2)))`` of a float32 array in one pass,
    NumPy's float32 operations in NumPy's order around `erf` (so within 1 ulp of the NumPy
    formula with SciPy's erf), or None to decline. Unlike the NumPy formula it does not warn
    for ``x = -inf`` (``-inf * 0``: NaN either way). Takes and returns what `erf` does."""
    if not _applies(x) or x.dtype != _FLOAT32:
        return None
    out = np.empty_like(x)
    _kernels.elementwise(_GELU, x, x, out)
    return out


def sigmoid_grad(y, g):
    """TF's SigmoidGrad, ``g * y * (1 - y)`` for ``y = sigmoid(x)``, in one pass, or None.

    Args:
        y: the sigmoid's output; g: its cotangent. NumPy arrays of one shape and float dtype,
            C-contiguous.

    Returns:
        A new array, NumPy's ``g * y * (1 - y)`` bit for bit; None when the kernel does not
        apply (broadcast or strided cotangents, other types): the caller's NumPy path runs.

    Raises:
        FloatingPointError: as NumPy's multiply would (overflow, ``0 * inf``), if
            ``np.geterr()`` says ``"raise"``.
    """
    return _grad(_SIGMOID_GRAD, y, g)


def tanh_grad(y, g):
    """TF's TanhGrad, ``g * (1 - y * y)`` for ``y = tanh(x)``, in one pass, or None; takes,
    returns and raises what `sigmoid_grad` does."""
    return _grad(_TANH_GRAD, y, g)


def _grad(kind: int, y, g):
    if not _applies(g, y):
        return None
    out = np.empty_like(g)
    flags = _kernels.elementwise(kind, g, y, out)
    if flags:
        _fp_errors(flags, "multiply")
    return out


def max_pool_grad(x, ans, g, ksize: tuple[int, int]):
    """The gradient of a max pool whose ``ksize`` windows tile ``x`` (stride = window, no
    padding), in one pass, or None to decline. Follows TF's MaxPoolGrad: each window's
    cotangent goes to its first maximum in row-major order (ties after a ReLU included).

    Args:
        x: the pool's input, NHWC, float32 or float64, C-contiguous; its height and width
            multiples of ``ksize``.
        ans: the pool's output, ``(N, H // kh, W // kw, C)``, x's dtype, C-contiguous.
        g: the cotangent of ``ans``: same shape and dtype (copied if strided).
        ksize: ``(kh, kw)``.

    Returns:
        The cotangent of ``x`` (a new array of x's shape and dtype); None when the kernel does
        not apply (the caller's NumPy path then runs).

    Raises:
        FloatingPointError: as NumPy's multiply would (``0 * inf``), if ``np.geterr()`` says
            ``"raise"``.
    """
    if _kernels is None or type(x) is not np.ndarray or type(ans) is not np.ndarray:
        return None
    if type(g) is not np.ndarray or x.ndim != 4:
        return None
    dtype = x.dtype
    if dtype not in _FLOATS or ans.dtype != dtype or g.dtype != dtype:
        return None
    n, h, w, c = x.shape
    kh, kw = ksize
    if h % kh or w % kw or ans.shape != (n, h // kh, w // kw, c) or g.shape != ans.shape:
        return None
    if not (x.flags.c_contiguous and ans.flags.c_contiguous):
        return None
    if not g.flags.c_contiguous:
        g = np.ascontiguousarray(g)
    out = np.empty_like(x)
    flags = _kernels.max_pool_grad(x, ans, g, out, n, h, w, c, kh, kw)
    if flags:
        _fp_errors(flags, "multiply")
    return out


def col2im(cols, padded_shape, strides, dilations):
    """Sums window columns back into a zero padded input (conv2d's input VJP), or None.

    Args:
        cols: ``(KH, KW, N, OH, OW, C)``, float32 or float64, C-contiguous: what each kernel
            position read from each window.
        padded_shape: ``(N, HP, WP, C)``, the padded input.
        strides, dilations: ``(sh, sw)`` and ``(dh, dw)`` of the convolution.

    Returns:
        A new array of ``padded_shape``: element ``(b, y, x, c)`` is the sum, over the
        kernel positions in row-major order, of the columns that read it (NumPy's loop of
        ``conv._col2im`` in one pass, bit for bit). None when the kernel does not apply.

    Raises:
        FloatingPointError: as NumPy's additions would (overflow), if ``np.geterr()`` says
            ``"raise"``.
    """
    if _kernels is None or type(cols) is not np.ndarray or cols.dtype not in _FLOATS:
        return None
    if cols.ndim != 6 or not cols.flags.c_contiguous:
        return None
    kh, kw, n, oh, ow, c = cols.shape
    pn, hp, wp, pc = padded_shape
    if (pn, pc) != (n, c):
        return None
    out = np.empty(padded_shape, cols.dtype)
    flags = _kernels.col2im(cols, out, kh, kw, n, oh, ow, c, hp, wp, *strides, *dilations)
    if flags:
        _fp_errors(flags, "add")
    return out


# (np.geterr() key, NumPy's wording, NumPy's status bit for "call" callbacks) per kernel flag.
_ERRORS = (
    ("over", "overflow", 2),
    ("invalid", "invalid value", 8),
    ("divide", "divide by zero", 1),
    ("under", "underflow", 4),
)


def _fp_errors(flags: int, op: str) -> None:
    """Applies ``np.geterr()`` to the flags a kernel raised (overflow, invalid, divide, under),
    as NumPy does after a ufunc, with its messages ("overflow encountered in adam"): "ignore",
    "warn" (RuntimeWarning), "raise" (FloatingPointError), "call" (``np.geterrcall()`` with the
    error's name and NumPy's status bit), "print" (to stderr) and "log" (the call object's
    ``write``)."""
    policy = np.geterr()
    bits = (_kernels.OVERFLOW, _kernels.INVALID, _kernels.DIVBYZERO, _kernels.UNDERFLOW)
    for bit, (kind, text, status) in zip(bits, _ERRORS):
        mode = policy[kind]
        if not flags & bit or mode == "ignore":
            continue
        message = f"{text} encountered in {op}"
        if mode == "raise":
            raise FloatingPointError(message)
        handler = np.geterrcall()
        if mode == "call" and handler is not None:
            handler(text, status)
        elif mode == "log" and handler is not None:
            handler.write(f"Warning: {message}\n")
        elif mode == "print":
            print(f"Warning: {message}", file=sys.stderr)
        else:  # "warn", NumPy's default
            warnings.warn(message, RuntimeWarning, stacklevel=4)
