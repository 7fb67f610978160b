"""Complex numbers: `complex`, `real`, `imag`, `conj` and `angle` (follow `tf.math`'s).

Gradients follow TensorFlow's registered ones (tensorflow/python/ops/math_grad.py): for a
complex input the cotangent is ``dL/d(re) + i dL/d(im)``, so ``real`` sends ``complex(g, 0)``
back, ``imag`` ``complex(0, g)``, ``conj`` ``conj(g)``, ``complex`` ``(real(g), imag(g))``.
They are written with public ops, so gradients of any order work.
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ._core import apply, tensor

__all__ = ["angle", "complex", "conj", "conj_if_complex", "imag", "real"]

_REAL_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _is_complex(x) -> bool:
    return x._value.dtype.kind == "c"


_conj = Primitive("Conj", lambda xp, x: xp.conj(x))
_real = Primitive("Real", lambda xp, x: xp.real(x).copy())
_imag = Primitive("Imag", lambda xp, x: xp.imag(x).copy())
_angle = Primitive("Angle", lambda xp, x: xp.angle(x).astype(_REAL_OF[x.dtype]))
_complex = Primitive(
    "Complex", lambda xp, re, im: (re + 1j * im).astype(_COMPLEX_OF[np.dtype(re.dtype)])
)


def conj_if_complex(t):
    """``conj(t)`` for a complex Tensor, ``t`` itself otherwise: the factor the VJPs of
    holomorphic ops multiply by (TensorFlow's math_grad.py conjugates the derivative), so that
    the cotangent of a complex input is ``dL/d(re) + i dL/d(im)``."""
    return apply(_conj, (t,)) if t._value.dtype.kind == "c" else t


def conj(x, name=None):
    """The complex conjugate, elementwise; a real tensor is returned as it is (follows
    `tf.math.conj`).

    Raises:
        TypeError: a tensor that is not numeric (strings, booleans).

    >>> ek.math.conj(ek.constant([1 + 2j])).numpy()
    array([1.-2.j])
    """
    x = tensor(x, "conj")
    if _is_complex(x):
        return apply(_conj, (x,))
    if x._value.dtype.kind not in "iuf":
        raise TypeError(f"conj: expected a numeric tensor. Received: dtype {x.dtype.name}.")
    return x


def real(input, name=None):
    """The real part, elementwise (float32 for complex64, float64 for complex128); a real
    tensor is returned as it is (follows `tf.math.real`).

    >>> ek.math.real(ek.constant([1 + 2j, 3 - 4j])).numpy()
    array([1., 3.])
    """
    x = tensor(input, "real")
    return apply(_real, (x,)) if _is_complex(x) else x


def imag(input, name=None):
    """The imaginary part, elementwise; zeros for a real tensor (follows `tf.math.imag`).

    >>> ek.math.imag(ek.constant([1 + 2j, 3 - 4j])).numpy()
    array([ 2., -4.])
    """
    x = tensor(input, "imag")
    if _is_complex(x):
        return apply(_imag, (x,))
    from .creation import zeros_like

    return zeros_like(x)


def angle(input, name=None):
    """The argument (phase) of each element, in radians, in (-pi, pi]; for a real tensor 0
    where it is >= 0 and pi where it is negative (follows `tf.math.angle`).

    >>> ek.math.angle(ek.constant([1j, -1 + 0j])).numpy().round(4)
    array([1.5708, 3.1416])
    """
    x = tensor(input, "angle")
    if _is_complex(x):
        return apply(_angle, (x,))
    from .elementwise import where

    if x._value.dtype.kind != "f":
        raise TypeError(f"angle: expected a float or complex tensor. Received: {x.dtype.name}.")
    zero = tensor(np.zeros((), x._value.dtype), "angle")
    pi = tensor(np.asarray(np.pi, x._value.dtype), "angle")
    return where(x < zero, pi + zero * x, zero * x)


def complex(real, imag, name=None):
    """``real + i * imag``, elementwise: complex64 from float32 parts, complex128 from float64
    (follows `tf.complex`).

    Raises:
        TypeError: parts that are not both float32 or both float64.
        InvalidArgumentError: shapes that do not broadcast.

    >>> ek.complex(ek.constant([1.0]), ek.constant([2.0])).numpy()
    array([1.+2.j], dtype=complex64)
    """
    re = tensor(real, "complex")
    im = tensor(imag, "complex", re._value.dtype)
    if re._value.dtype != im._value.dtype or re._value.dtype not in _COMPLEX_OF:
        raise TypeError(
            "complex: real and imag must both be float32 or both float64. Received: "
            f"real of dtype {re.dtype.name}, imag of dtype {im.dtype.name}."
        )
    try:
        np.broadcast_shapes(re._value.shape, im._value.shape)
    except ValueError:
        raise InvalidArgumentError(
            None,
            "Complex",
            f"complex: shapes {tuple(re._value.shape)} and {tuple(im._value.shape)} do not "
            "broadcast.",
        ) from None
    return apply(_complex, (re, im))


defvjp(_conj, lambda g, ans, x: conj(g))
defvjp(_real, lambda g, ans, x: complex(g, g * 0))
defvjp(_imag, lambda g, ans, x: complex(g * 0, g))
defvjp(
    _complex,
    lambda g, ans, re, im: real(g),
    lambda g, ans, re, im: imag(g),
)


def _angle_vjp(g, ans, x):
    # TensorFlow's AngleGrad: -complex(g, 0) / complex(imag(x), real(x))
    re, im = real(x), imag(x)
    z = complex(im, re)
    return -complex(g, g * 0) / z


defvjp(_angle, _angle_vjp)
