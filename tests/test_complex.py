"""Complex numbers: `ek.complex`, `ek.math.real/imag/conj/angle`, complex gradients (TF's
convention: the cotangent of z is dL/d(re) + i dL/d(im)) checked against finite differences,
and `matmul`'s adjoint and output_type arguments."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 2))
Y = RNG.normal(size=(2, 2))


def test_parts_and_construction_match_numpy():
    z = ek.constant([1 + 2j, -3 - 4j], dtype=ek.complex64)
    np.testing.assert_array_equal(ek.math.real(z).numpy(), [1, -3])
    np.testing.assert_array_equal(ek.math.imag(z).numpy(), [2, -4])
    np.testing.assert_array_equal(ek.math.conj(z).numpy(), [1 - 2j, -3 + 4j])
    np.testing.assert_allclose(ek.math.angle(z).numpy(), np.angle(z.numpy()), rtol=1e-6)
    assert ek.math.real(z).dtype == ek.float32
    made = ek.complex(ek.constant([1.0, 2.0]), ek.constant(3.0))
    assert made.dtype == ek.complex64
    np.testing.assert_array_equal(made.numpy(), [1 + 3j, 2 + 3j])
    assert ek.complex(ek.constant(1.0, ek.float64), 2.0).dtype == ek.complex128
    x = ek.constant([1.5, -2.0])
    assert ek.math.conj(x) is x and ek.math.real(x) is x
    np.testing.assert_array_equal(ek.math.imag(x).numpy(), [0, 0])
    np.testing.assert_allclose(ek.math.angle(x).numpy(), [0, np.pi], rtol=1e-6)


def test_bad_inputs_name_the_argument():
    with pytest.raises(TypeError, match="complex: real and imag must both be float32"):
        ek.complex(ek.constant([1.0]), ek.constant([1.0], ek.float64))
    with pytest.raises(TypeError, match="complex: real and imag"):
        ek.complex(ek.constant([1]), ek.constant([1]))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"complex: shapes \(2,\) and \(3,\)"):
        ek.complex(ek.constant([1.0, 2.0]), ek.constant([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="conj: expected a numeric tensor"):
        ek.math.conj(ek.constant(["a"]))


def _fd(f, x, y, eps=1e-6):
    gx, gy = np.zeros_like(x), np.zeros_like(y)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        gx[idx] = (f(x + e, y) - f(x - e, y)) / (2 * eps)
        gy[idx] = (f(x, y + e) - f(x, y - e)) / (2 * eps)
    return gx, gy


LOSSES = {
    "mul-conj": (
        lambda z: ek.math.real(z * ek.math.conj(z)),
        lambda z: np.real(z * np.conj(z)),
    ),
    "div": (lambda z: ek.math.imag(z * z / (z + 3.0)), lambda z: np.imag(z * z / (z + 3))),
    "exp": (lambda z: ek.math.real(ek.exp(z)), lambda z: np.real(np.exp(z))),
    "log": (lambda z: ek.math.imag(ek.math.log(z)), lambda z: np.imag(np.log(z))),
    "abs": (lambda z: ek.abs(z), np.abs),
    "square": (lambda z: ek.math.real(ek.square(z)), lambda z: np.real(z * z)),
    "sqrt": (lambda z: ek.math.imag(ek.sqrt(z)), lambda z: np.imag(np.sqrt(z))),
    "reciprocal": (
        lambda z: ek.math.real(ek.math.reciprocal(z)),
        lambda z: np.real(1 / z),
    ),
    "angle": (lambda z: ek.math.angle(z), np.angle),
    "sin-cos-tan": (
        lambda z: ek.math.real(ek.sin(z) * ek.cos(z) + ek.math.tan(z)),
        lambda z: np.real(np.sin(z) * np.cos(z) + np.tan(z)),
    ),
    "tanh": (lambda z: ek.math.imag(ek.tanh(z)), lambda z: np.imag(np.tanh(z))),
    "log1p": (lambda z: ek.math.real(ek.math.log1p(z)), lambda z: np.real(np.log1p(z))),
    "pow": (lambda z: ek.math.imag(ek.pow(z, z)), lambda z: np.imag(z**z)),
    "divide_no_nan": (
        lambda z: ek.math.imag(ek.math.divide_no_nan(z * z, z + 3.0)),
        lambda z: np.imag(z * z / (z + 3)),
    ),
    # Holomorphic ops whose VJPs conjugate the derivative, as TensorFlow's math_grad does.
    "asin-acos-atan": (
        lambda z: ek.math.real(ek.math.asin(z) * 0.5 + ek.math.acos(z) + 2 * ek.math.atan(z)),
        lambda z: np.real(np.arcsin(z) * 0.5 + np.arccos(z) + 2 * np.arctan(z)),
    ),
    "asinh-acosh-atanh": (
        lambda z: ek.math.imag(ek.math.asinh(z) + 0.5 * ek.math.acosh(z) + ek.math.atanh(z)),
        lambda z: np.imag(np.arcsinh(z) + 0.5 * np.arccosh(z) + np.arctanh(z)),
    ),
    "sinh-cosh-expm1": (
        lambda z: ek.math.real(ek.math.sinh(z) - 2 * ek.math.cosh(z) + ek.math.expm1(z)),
        lambda z: np.real(np.sinh(z) - 2 * np.cosh(z) + np.expm1(z)),
    ),
    "rsqrt": (lambda z: ek.math.imag(ek.math.rsqrt(z)), lambda z: np.imag(1 / np.sqrt(z))),
    "sigmoid": (
        lambda z: ek.math.real(ek.math.sigmoid(z)) + ek.math.imag(ek.math.sigmoid(z)),
        lambda z: np.real(1 / (1 + np.exp(-z))) + np.imag(1 / (1 + np.exp(-z))),
    ),
    "reduce_prod": (
        lambda z: ek.math.imag(ek.reduce_prod(z, axis=0)),
        lambda z: np.imag(np.prod(z, axis=0)),
    ),
    "einsum": (
        lambda z: ek.math.real(ek.einsum("ij,jk->ik", z, z * 1j)),
        lambda z: np.real(z @ (z * 1j)),
    ),
    "tensordot": (
        lambda z: ek.math.imag(ek.tensordot(z, z, 1)),
        lambda z: np.imag(np.tensordot(z, z, 1)),
    ),
    # Real-valued results of complex type (TensorFlow's forms: |x - y| ** 2, sqrt(sum |x| ** 2))
    "squared_difference": (
        lambda z: ek.math.real(ek.math.squared_difference(z, z * (0.5 + 1j))),
        lambda z: np.abs(z - z * (0.5 + 1j)) ** 2,
    ),
    "norm": (lambda z: ek.math.real(ek.norm(z, axis=1)), lambda z: np.linalg.norm(z, axis=1)),
    "reduce_euclidean_norm": (
        lambda z: ek.math.real(ek.math.reduce_euclidean_norm(z, axis=0)),
        lambda z: np.sqrt(np.sum(np.abs(z) ** 2, axis=0)),
    ),
    "l2_normalize": (
        lambda z: ek.math.imag(ek.math.l2_normalize(z, axis=1) * (1 + 2j)),
        lambda z: np.imag(z / np.linalg.norm(z, axis=1, keepdims=True) * (1 + 2j)),
    ),
    "sign": (
        lambda z: ek.math.real(ek.math.sign(z) * (2 - 1j)),
        lambda z: np.real(z / np.abs(z) * (2 - 1j)),
    ),
    "matmul-adjoint": (
        lambda z: ek.math.real(ek.matmul(z, z, adjoint_b=True)) ** 2,
        lambda z: np.real(z @ z.conj().T) ** 2,
    ),
    "matmul-transpose": (
        lambda z: ek.math.imag(ek.matmul(z, z, transpose_a=True)),
        lambda z: np.imag(z.T @ z),
    ),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_complex_gradients_match_finite_differences(name):
    ek_loss, np_loss = LOSSES[name]
    x = ek.constant(X)
    y = ek.constant(Y)
    with ek.GradientTape() as tape:
        tape.watch([x, y])
        loss = ek.reduce_sum(ek_loss(ek.complex(x, y)))
    gx, gy = tape.gradient(loss, [x, y])
    fx, fy = _fd(lambda a, b: np.sum(np_loss(a + 1j * b)), X, Y)
    np.testing.assert_allclose(gx.numpy(), fx, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gy.numpy(), fy, rtol=1e-5, atol=1e-7)


def test_matmul_adjoint_output_type_and_hints():
    a = ek.constant([[1 + 1j, 2], [3, 4 - 2j]])
    b = ek.constant([[1, 2j], [0, 1]], dtype=ek.complex128)
    np.testing.assert_allclose(
        ek.matmul(a, b, adjoint_a=True, adjoint_b=True).numpy(),
        a.numpy().conj().T @ b.numpy().conj().T,
    )
    real = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(
        ek.matmul(real, real, adjoint_a=True, a_is_sparse=True, grad_b=True).numpy(),
        real.numpy().T @ real.numpy(),
    )
    i8 = ek.constant([[100, 100]], dtype=ek.int8)
    out = ek.matmul(i8, ek.transpose(i8), output_type=ek.int32)
    assert out.dtype == ek.int32 and int(out.numpy()[0, 0]) == 20000
    with pytest.raises(ValueError, match="only one of transpose_a and adjoint_a"):
        ek.matmul(a, b, transpose_a=True, adjoint_a=True)
    with pytest.raises(TypeError, match="output_type int32 is not available for float32"):
        ek.matmul(real, real, output_type=ek.int32)


def test_range_converts_and_tensor_shape_slices_are_shapes():
    np.testing.assert_array_equal(ek.reshape(range(6), [2, 3]).numpy(), [[0, 1, 2], [3, 4, 5]])
    assert ek.constant(range(3)).dtype == ek.int32
    shape = ek.TensorShape([2, None, 3])
    assert isinstance(shape[1:], ek.TensorShape) and shape[1:].as_list() == [None, 3]
    assert shape[:-1].merge_with([2, 5]).as_list() == [2, 5]
    assert shape[0] == 2 and ek.TensorShape(None)[1:].rank is None


def _first_order(loss, x, y):
    """``(dL/dx, dL/dy)`` of ``reduce_sum(loss(complex(x, y)))`` as float64 arrays, and the
    tape's tensors ``(gx, gy, x, y, outer)`` for a second derivative."""
    x, y = ek.constant(x), ek.constant(y)
    with ek.GradientTape() as outer:
        outer.watch([x, y])
        with ek.GradientTape() as inner:
            inner.watch([x, y])
            value = ek.reduce_sum(loss(ek.complex(x, y)))
        gx, gy = inner.gradient(value, [x, y])
        h = ek.reduce_sum(1.5 * gx + 0.5 * gy)
    return h, outer, x, y


@pytest.mark.parametrize(
    "name, loss",
    [
        ("abs", lambda z: ek.abs(z)),
        ("abs-squared", lambda z: ek.abs(z * z) ** 2),
        ("divide_no_nan", lambda z: ek.math.real(ek.math.divide_no_nan(z * z, z + 3.0))),
        ("div", lambda z: ek.math.real(z * z / (z + 3.0))),
    ],
)
def test_second_derivatives_through_complex_ops_match_finite_differences(name, loss):
    """The VJPs themselves differentiate: h = sum(1.5 dL/dx + 0.5 dL/dy) differentiated again
    equals central differences of h (whose first derivatives the test above checks). Abs's
    complex VJP divides by |z| with divide_no_nan, whose VJP must conjugate as TensorFlow's
    does (TensorFlow 2.21: d/dz of re+im of d|z|/dz at 1+2j is 0.17888544-0.08944272j)."""
    h, outer, x, y = _first_order(loss, X, Y)
    hx, hy = outer.gradient(h, [x, y])

    def h_at(a, b):
        return float(_first_order(loss, a, b)[0].numpy())

    fx, fy = _fd(h_at, X, Y, eps=1e-5)
    np.testing.assert_allclose(hx.numpy(), fx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hy.numpy(), fy, rtol=1e-5, atol=1e-6)


def test_second_derivative_of_abs_matches_tensorflow():
    t = ek.Variable(np.array([1 + 2j], np.complex128))
    with ek.GradientTape() as outer:
        with ek.GradientTape() as inner:
            value = ek.reduce_sum(ek.abs(t))
        g = inner.gradient(value, t)
        h = ek.reduce_sum(ek.math.real(g) + ek.math.imag(g))
    # TensorFlow 2.21, the same program: [0.17888544-0.08944272j]
    np.testing.assert_allclose(outer.gradient(h, t).numpy(), [0.17888544 - 0.08944272j], 1e-7)


@pytest.mark.parametrize(
    "op",
    [
        ek.math.erf,
        ek.math.erfc,
        ek.math.lgamma,
        ek.math.digamma,
        ek.math.softplus,
        ek.math.log_sigmoid,
        ek.math.reduce_logsumexp,
        ek.nn.softmax,
        ek.nn.log_softmax,
        ek.nn.relu,
        ek.nn.relu6,
        ek.nn.elu,
        ek.nn.selu,
        ek.nn.gelu,
        ek.nn.softsign,
        ek.nn.leaky_relu,
        ek.nn.l2_loss,
        ek.math.round,
        ek.math.rint,
        ek.math.reduce_max,
        ek.math.reduce_min,
        ek.math.argmax,
        ek.math.argmin,
        ek.math.is_nan,
        ek.math.is_finite,
        ek.math.is_inf,
    ],
)
def test_ops_without_a_complex_kernel_refuse_complex_input(op):
    """TensorFlow 2.21 raises for these on complex128 ("Value for attr 'T' of complex128 is
    not in the list of allowed values"): an order or a real-only formula, which NumPy would
    apply to complex numbers with a meaning of its own (lexicographic order, the modulus)."""
    z = ek.constant(np.array([1 + 2j, -0.5 + 0.3j]))
    with pytest.raises(TypeError, match=r"must be a real (floating-point )?tensor, got complex128"):
        op(z)


def test_complex_forward_values_are_tensorflows():
    z = np.array([1 + 2j, -0.5 + 0.3j, 2 - 1j])
    w = np.array([0.3 - 1j, 1 + 1j, -2 + 0.5j])
    t, u = ek.constant(z), ek.constant(w)
    np.testing.assert_allclose(ek.math.sigmoid(t).numpy(), 1 / (1 + np.exp(-z)), 1e-12)
    np.testing.assert_allclose(
        ek.math.squared_difference(t, u).numpy(), np.abs(z - w) ** 2 + 0j, 1e-12
    )
    norm = np.sqrt(np.sum(np.abs(z) ** 2))
    for value in (ek.norm(t), ek.math.reduce_euclidean_norm(t)):
        assert value.dtype == ek.complex128  # TensorFlow keeps the complex dtype
        np.testing.assert_allclose(value.numpy(), norm + 0j, 1e-12)
    np.testing.assert_allclose(ek.math.l2_normalize(t).numpy(), z / norm, 1e-12)
    np.testing.assert_allclose(ek.math.sign(t).numpy(), z / np.abs(z), 1e-12)
    # TensorFlow 2.21's gradient of sum(real(sign(z)) * [1.3, -0.7, 0.4]) at these z:
    x = ek.constant(z.real)
    y = ek.constant(z.imag)
    with ek.GradientTape() as tape:
        tape.watch([x, y])
        loss = ek.reduce_sum(ek.math.real(ek.math.sign(ek.complex(x, y))) * [1.3, -0.7, 0.4])
    gx, gy = tape.gradient(loss, [x, y])
    r = np.abs(z)
    np.testing.assert_allclose(gx.numpy(), [1.3, -0.7, 0.4] * (z.imag**2) / r**3, 1e-12)
    np.testing.assert_allclose(
        gy.numpy(), -np.array([1.3, -0.7, 0.4]) * z.real * z.imag / r**3, 1e-12
    )
