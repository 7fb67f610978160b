"""`tf.math.special`: Bessel functions of the first, second and third kind, Dawson's integral,
the exponential integral, the Fresnel integrals and Spence's function.

Forwards use SciPy (``cupyx.scipy.special`` on a GPU) through `special_math`'s helper, keeping
the input's dtype. VJPs follow TensorFlow's registered gradients
(tensorflow/python/ops/special_math_ops_grad and math_grad), written with public ops so that
gradients of any order work.

>>> ek.math.special.bessel_j0(ek.constant([0.0, 1.0])).numpy()
array([1.       , 0.7651977], dtype=float32)
>>> ek.math.special.spence(ek.constant([1.0])).numpy()
array([0.], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from ..core.dispatch import Primitive, defvjp
from ._core import unary
from .creation import zeros_like
from .elementwise import cos, equal, exp, log, sin, square, where
from .special_math import (
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    keep_dtype,
    over_x,
    scipy_function,
)

__all__ = [
    "bessel_i0",
    "bessel_i0e",
    "bessel_i1",
    "bessel_i1e",
    "bessel_j0",
    "bessel_j1",
    "bessel_k0",
    "bessel_k0e",
    "bessel_k1",
    "bessel_k1e",
    "bessel_y0",
    "bessel_y1",
    "dawsn",
    "expint",
    "fresnel_cos",
    "fresnel_sin",
    "spence",
]


def _op(name: str, scipy_name: str, doc: str, below_zero: float | None = None):
    """``below_zero``: TensorFlow's (Eigen's) value for x < 0 where SciPy returns NaN (Y0, Y1:
    -inf; K0, K1 and the scaled ones: inf)."""
    fwd = keep_dtype(scipy_name)
    if below_zero is not None:
        scipy_fwd = fwd

        def fwd(xp, x):
            return xp.where(x < 0, x.dtype.type(below_zero), scipy_fwd(xp, x))

    prim = Primitive(name, fwd)
    return prim, unary(prim, doc, "real")


def _expint_fwd(xp, x):
    # Eigen's expi is NaN for x < 0 (SciPy gives the real Ei there) and at +inf.
    return xp.where((x < 0) | (x == xp.inf), x.dtype.type(np.nan), keep_dtype("expi")(xp, x))


_j0, bessel_j0 = _op("BesselJ0", "j0", "J0(x), the Bessel function of the first kind.")
_j1, bessel_j1 = _op("BesselJ1", "j1", "J1(x), the Bessel function of the first kind.")
_y0, bessel_y0 = _op("BesselY0", "y0", "Y0(x), the Bessel function of the second kind.", -np.inf)
_y1, bessel_y1 = _op("BesselY1", "y1", "Y1(x), the Bessel function of the second kind.", -np.inf)
_k0, bessel_k0 = _op(
    "BesselK0", "k0", "K0(x), the modified Bessel function of the second kind.", np.inf
)
_k0e, bessel_k0e = _op("BesselK0e", "k0e", "exp(x) K0(x).", np.inf)
_k1, bessel_k1 = _op(
    "BesselK1", "k1", "K1(x), the modified Bessel function of the second kind.", np.inf
)
_k1e, bessel_k1e = _op("BesselK1e", "k1e", "exp(x) K1(x).", np.inf)
_dawsn, dawsn = _op("Dawsn", "dawsn", "Dawson's integral, exp(-x^2) * integral of exp(t^2).")
_expint = Primitive("Expint", _expint_fwd)
expint = unary(_expint, "The exponential integral Ei(x) (NaN for x < 0, as TensorFlow's).", "real")
_spence, spence = _op("Spence", "spence", "Spence's function: the integral of log(t)/(1-t) from 1.")


def _fresnel(part: int):
    def fwd(xp, x):
        return scipy_function("fresnel", xp)(x)[part].astype(x.dtype, copy=False)

    return fwd


_fresnel_sin = Primitive("FresnelSin", _fresnel(0))
_fresnel_cos = Primitive("FresnelCos", _fresnel(1))
fresnel_sin = unary(_fresnel_sin, "S(x), the Fresnel sine integral.", "real")
fresnel_cos = unary(_fresnel_cos, "C(x), the Fresnel cosine integral.", "real")

# TensorFlow's gradients: d/dx J0 = -J1, J1' = J0 - J1/x (1/2 at 0), the same for Y; K0' = -K1,
# K1' = -K0 - K1/x, the scaled ones with their exp(x) factor; Dawson 1 - 2x F(x); Ei e^x / x;
# Fresnel sin/cos(pi/2 x^2); Spence log(x) / (1 - x) (-1 at x = 1).
defvjp(_j0, lambda g, ans, x: -g * bessel_j1(x))
defvjp(_j1, lambda g, ans, x: g * (bessel_j0(x) - over_x(ans, x, 0.5)))
defvjp(_y0, lambda g, ans, x: -g * bessel_y1(x))
defvjp(_y1, lambda g, ans, x: g * (bessel_y0(x) - ans / x))
defvjp(_k0, lambda g, ans, x: -g * bessel_k1(x))
defvjp(_k0e, lambda g, ans, x: g * (ans - bessel_k1e(x)))
defvjp(_k1, lambda g, ans, x: -g * (bessel_k0(x) + ans / x))
defvjp(_k1e, lambda g, ans, x: g * (ans * (1 - 1 / x) - bessel_k0e(x)))
defvjp(_dawsn, lambda g, ans, x: g * (1 - 2 * x * ans))
defvjp(_expint, lambda g, ans, x: g * exp(x) / x)
defvjp(_fresnel_sin, lambda g, ans, x: g * sin((math.pi / 2) * square(x)))
defvjp(_fresnel_cos, lambda g, ans, x: g * cos((math.pi / 2) * square(x)))
defvjp(
    _spence,
    lambda g, ans, x: (
        g * where(equal(x, 1), zeros_like(x) - 1, log(x) / where(equal(x, 1), x + 1, 1 - x))
    ),
)
