"""`ek.math.special` against TensorFlow 2.21's values (recorded with ``tensorflow-cpu``
2.21.0) and its gradients against central finite differences in float64."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

S = ek.math.special

# name, inputs, TensorFlow 2.21's float32 values
VALUES = [
    ("bessel_j0", [0.0, 1.0, 5.0], [1.0, 0.76519769, -0.17759679]),
    ("bessel_j1", [0.0, 1.0, 5.0], [0.0, 0.4400506, -0.32757914]),
    ("bessel_y0", [0.5, 1.0, 5.0], [-0.44451872, 0.08825697, -0.30851761]),
    ("bessel_y1", [0.5, 1.0, 5.0], [-1.4714724, -0.78121281, 0.14786312]),
    ("bessel_k0", [0.5, 1.0, 5.0], [0.92441911, 0.42102444, 0.0036910982]),
    ("bessel_k0e", [0.5, 1.0, 5.0], [1.5241094, 1.1444631, 0.54780757]),
    ("bessel_k1", [0.5, 1.0, 5.0], [1.656441, 0.60190731, 0.0040446129]),
    ("bessel_k1e", [0.5, 1.0, 5.0], [2.7310095, 1.6361537, 0.60027379]),
    ("dawsn", [0.0, 1.0, -2.0], [0.0, 0.5380795, -0.3013404]),
    ("expint", [0.5, 1.0, 2.0], [0.45421982, 1.8951179, 4.9542341]),
    ("fresnel_cos", [0.0, 1.0, 2.5], [0.0, 0.7798934, 0.45741299]),
    ("fresnel_sin", [0.0, 1.0, 2.5], [0.0, 0.43825912, 0.61918175]),
    ("spence", [0.0, 0.5, 1.0, 2.0], [1.6449341, 0.58224034, 0.0, -0.82246685]),
]


@pytest.mark.parametrize("name, x, want", VALUES, ids=[v[0] for v in VALUES])
def test_values_match_tensorflow(name, x, want):
    out = getattr(S, name)(ek.constant(x))
    assert out.dtype == ek.float32
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-6, atol=1e-7)
    assert getattr(S, name)(ek.constant(x, ek.float64)).dtype == ek.float64


@pytest.mark.parametrize(
    "name, x",
    [
        ("bessel_j0", [0.3, 1.0, 5.0]),
        ("bessel_j1", [0.3, 1.0, 5.0]),
        ("bessel_y0", [0.5, 1.0, 5.0]),
        ("bessel_y1", [0.5, 1.0, 5.0]),
        ("bessel_k0", [0.5, 1.0, 5.0]),
        ("bessel_k0e", [0.5, 1.0, 5.0]),
        ("bessel_k1", [0.5, 1.0, 5.0]),
        ("bessel_k1e", [0.5, 1.0, 5.0]),
        ("dawsn", [0.2, 1.0, -2.0]),
        ("expint", [0.5, 1.0, 2.0]),
        ("fresnel_cos", [0.2, 1.0, 2.5]),
        ("fresnel_sin", [0.2, 1.0, 2.5]),
        ("spence", [0.5, 1.5, 2.0]),
    ],
)
def test_gradients_match_finite_differences(name, x, h=1e-6):
    f = getattr(S, name)
    x = ek.constant(x, ek.float64)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    got = tape.gradient(y, x).numpy()
    fd = (f(x + h).numpy() - f(x - h).numpy()) / (2 * h)
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


def test_gradients_at_their_special_points_are_tensorflows():
    # TensorFlow 2.21: J1'(0) = 1/2; Spence'(1) = -1 (the limit of log(x) / (1 - x)).
    x, z = ek.constant([0.0, 1.0]), ek.constant([1.0, 2.0])
    with ek.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        j1 = S.bessel_j1(x)
        sp = S.spence(z)
    assert tape.gradient(j1, x).numpy()[0] == pytest.approx(0.5)
    assert tape.gradient(sp, z).numpy()[0] == pytest.approx(-1.0)


def test_integers_are_refused_as_tensorflow_refuses_them():
    with pytest.raises(ek.errors.InvalidArgumentError, match="BesselJ0"):
        S.bessel_j0(ek.constant([1, 2]))
