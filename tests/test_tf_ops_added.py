"""Ops added after a gradient comparison of 162 differentiable calls with TensorFlow 2.21
(every other gradient already matched): `strided_slice`, `reverse_sequence`, a differentiable
and batched `linspace`, `math.zeta`, `linalg.expm` and `linalg.sqrtm`. Values against NumPy,
SciPy and TensorFlow's outputs; gradients against central finite differences."""

import numpy as np
import pytest
import scipy.linalg

import eagerkernel as ek


def _fd(f, x, eps=1e-6):
    """Central differences of the scalar ``f`` at the float64 array ``x``."""
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        g[idx] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def _grad(f, x):
    v = ek.constant(x)
    with ek.GradientTape() as tape:
        tape.watch(v)
        value = f(v)
    return tape.gradient(value, v).numpy()


def _weights(shape):
    return np.arange(1, np.prod(shape) + 1, dtype=np.float64).reshape(shape) / 7.0


def test_strided_slice_is_python_slicing_with_tensorflows_masks():
    a = np.arange(24).reshape(2, 3, 4)
    x = ek.constant(a)
    np.testing.assert_array_equal(ek.strided_slice(x, [0, 3], [3, 0], [2, -1]), a[0:3:2, 3:0:-1])
    # TensorFlow 2.21's results for the same masks: shapes and values.
    shrink = ek.strided_slice(x, [0, 1], [1, 2], [1, 1], shrink_axis_mask=1)
    np.testing.assert_array_equal(shrink, [[4, 5, 6, 7]])
    assert ek.strided_slice(x, [0, 0, 0], [2, 2, 2], [1, 1, 1], new_axis_mask=2).shape == (
        2,
        1,
        2,
        4,
    )
    assert ek.strided_slice(x, [0, 1], [0, 3], [1, 1], ellipsis_mask=1).shape == (2, 3, 2)
    masked = ek.strided_slice(x, [1, 2, 1], [0, 0, 3], begin_mask=1, end_mask=2)
    np.testing.assert_array_equal(masked, a[:0, 2:, 1:3])
    with pytest.raises(ValueError, match="strided_slice: strides\\[1\\] must be non-zero"):
        ek.strided_slice(x, [0, 0], [1, 1], [1, 0])
    with pytest.raises(ValueError, match="same length"):
        ek.strided_slice(x, [0, 0], [1], [1, 1])
    with pytest.raises(NotImplementedError, match="var="):
        ek.strided_slice(x, [0], [1], var=ek.Variable(a))
    w = _weights((2, 2, 4))
    a64 = np.random.default_rng(0).normal(size=(3, 4, 4))

    def loss(t):
        return ek.reduce_sum(ek.strided_slice(t, [2, 0], [0, 4], [-1, 2]) ** 2 * w)

    np.testing.assert_allclose(
        _grad(loss, a64), _fd(lambda v: float(loss(ek.constant(v))), a64), rtol=1e-6
    )


def test_reverse_sequence_reverses_each_prefix_and_differentiates():
    a = np.arange(24).reshape(2, 3, 4)
    out = ek.reverse_sequence(ek.constant(a), [1, 3], seq_axis=2, batch_axis=0).numpy()
    expected = a.copy()
    expected[1, :, :3] = a[1, :, 2::-1]
    np.testing.assert_array_equal(out, expected)  # TensorFlow 2.21 gives the same
    out = ek.reverse_sequence(ek.constant(a), [2, 0, 4], seq_axis=2, batch_axis=1).numpy()
    expected = a.copy()
    expected[:, 0, :2] = a[:, 0, 1::-1]
    expected[:, 2, :] = a[:, 2, ::-1]
    np.testing.assert_array_equal(out, expected)
    with pytest.raises(ValueError, match="seq_axis must be given"):
        ek.reverse_sequence(ek.constant(a), [1, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"must lie in \[0, 4\]"):
        ek.reverse_sequence(ek.constant(a), [1, 5], seq_axis=2)
    with pytest.raises(ek.errors.InvalidArgumentError, match="one per entry"):
        ek.reverse_sequence(ek.constant(a), [1, 2, 3], seq_axis=2)
    x = np.random.default_rng(1).normal(size=(2, 5))
    w = _weights((2, 5))

    def loss(t):
        return ek.reduce_sum(ek.reverse_sequence(t, [3, 5], seq_axis=1) ** 2 * w)

    np.testing.assert_allclose(_grad(loss, x), _fd(lambda v: float(loss(ek.constant(v))), x))


def test_float_range_is_start_plus_i_delta_in_the_dtype():
    # TensorFlow 2.21's Range kernel: the arguments cast to the dtype, then start + i * delta
    # computed in it (float32 rounding included).
    got = ek.range(0.0, 1.0, 0.3)
    assert got.dtype == ek.float32
    np.testing.assert_array_equal(got.numpy(), np.float32([0.0, 0.3, 0.6, 0.90000004]))
    i = np.arange(1_000_000, dtype=np.float32)
    tail = ek.range(0.0, 100000.0, 0.1).numpy()
    np.testing.assert_array_equal(tail, i * np.float32(0.1))
    assert tail[-1] == np.float32(99999.8984375)  # TensorFlow's last value
    np.testing.assert_array_equal(
        ek.range(1.5, 5.0, 0.7, dtype=ek.float64).numpy(), 1.5 + np.arange(5) * 0.7
    )
    np.testing.assert_array_equal(ek.range(10.0, 0.0, -1.5).numpy(), [10, 8.5, 7, 5.5, 4, 2.5, 1])
    assert ek.range(0.0, 0.0, 1.0).shape == (0,)
    assert ek.range(5, dtype=ek.float16).dtype == "float16"


def test_linspace_is_tensorflows_batched_and_differentiable():
    # TensorFlow 2.21's float32 values, bit for bit (start + i * step, the last one stop).
    np.testing.assert_array_equal(
        ek.linspace(0.0, 10.0, 7).numpy(),
        np.array([0, 1.6666666, 3.3333333, 5, 6.6666665, 8.333333, 10], np.float32),
    )
    assert ek.linspace(-2, 2, 5).dtype == ek.float64
    np.testing.assert_array_equal(ek.linspace(3.0, 9.0, 1).numpy(), [3.0])
    assert ek.linspace(0.0, 1.0, 0).shape == (0,)
    batched = ek.linspace(ek.constant([0.0, 1.0]), ek.constant([1.0, 3.0]), 3, axis=1)
    np.testing.assert_allclose(batched, [[0, 0.5, 1], [1, 2, 3]])
    assert ek.linspace(ek.constant([0.0, 1.0]), 2.0, 3, axis=0).shape == (3, 2)
    with pytest.raises(ek.errors.InvalidArgumentError, match="axis 2 is out of range"):
        ek.linspace(0.0, 1.0, 3, axis=2)
    # d/dstart = sum(g * (1 - t)), d/dstop = sum(g * t), t = i / (num - 1): TensorFlow 2.21
    # gives [3.3333333, 1.1666666] and 9.5 for this program.
    start, stop = ek.Variable([0.0, 1.0]), ek.Variable(2.0)
    g = ek.constant([[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 1.0, 2.0]])
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(ek.linspace(start, stop, 4, axis=-1) * g)
    d_start, d_stop = tape.gradient(loss, [start, stop])
    np.testing.assert_allclose(d_start, [10 / 3, 7 / 6], rtol=1e-6)
    assert float(d_stop) == pytest.approx(9.5)


def test_zeta_values_and_gradient_in_q():
    x, q = ek.constant(2.0, ek.float64), ek.constant(1.0, ek.float64)
    assert float(ek.math.zeta(x, q)) == pytest.approx(np.pi**2 / 6, rel=1e-12)
    qs = np.array([0.5, 1.5, 3.0])
    xs = np.array([2.5, 3.0, 4.0])
    with ek.GradientTape() as tape:
        qv, xv = ek.constant(qs), ek.constant(xs)
        tape.watch([qv, xv])
        value = ek.reduce_sum(ek.math.zeta(xv, qv))
    gx, gq = tape.gradient(value, [xv, qv])
    assert gx is None  # TensorFlow's ZetaGrad: none in x
    fd = _fd(lambda v: float(ek.reduce_sum(ek.math.zeta(ek.constant(xs), ek.constant(v)))), qs)
    np.testing.assert_allclose(gq.numpy(), fd, rtol=1e-6)


@pytest.mark.parametrize("op", ["expm", "sqrtm"])
def test_matrix_functions_match_scipy_and_finite_differences(op):
    rng = np.random.default_rng(2)
    m = rng.normal(size=(2, 3, 3))
    a = m * 0.3 if op == "expm" else m @ np.swapaxes(m, -1, -2) + 3 * np.eye(3)
    fn = getattr(ek.linalg, op)
    reference = getattr(scipy.linalg, op)
    out = fn(ek.constant(a)).numpy()
    np.testing.assert_allclose(out, np.stack([reference(x) for x in a]), rtol=1e-10)
    w = _weights((2, 3, 3))

    def loss(t):
        return ek.reduce_sum(fn(t) * w)

    np.testing.assert_allclose(
        _grad(loss, a), _fd(lambda v: float(loss(ek.constant(v))), a), rtol=1e-5, atol=1e-8
    )
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{op}: input must be square"):
        fn(ek.ones([2, 3]))
