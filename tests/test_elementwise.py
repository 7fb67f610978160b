"""Elementwise ops: values against NumPy, gradients against finite differences."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import eagerkernel as ek
from eagerkernel.testing import check_gradients

rng = np.random.default_rng(0)


def pos(*shape):
    return rng.uniform(0.5, 2.0, size=shape)


def anyv(*shape):
    return rng.uniform(-2.0, 2.0, size=shape)


UNARY = [
    (ek.negative, np.negative, anyv),
    (ek.abs, np.abs, anyv),
    (ek.exp, np.exp, anyv),
    (ek.log, np.log, pos),
    (ek.log1p, np.log1p, pos),
    (ek.sqrt, np.sqrt, pos),
    (ek.rsqrt, lambda x: 1 / np.sqrt(x), pos),
    (ek.reciprocal, np.reciprocal, pos),
    (ek.square, np.square, anyv),
    (ek.sin, np.sin, anyv),
    (ek.cos, np.cos, anyv),
    (ek.tan, np.tan, lambda *s: rng.uniform(-1, 1, size=s)),
    (ek.tanh, np.tanh, anyv),
    (ek.sigmoid, lambda x: 1 / (1 + np.exp(-x)), anyv),
]


@pytest.mark.parametrize(("op", "ref", "gen"), UNARY, ids=lambda v: getattr(v, "__name__", ""))
def test_unary_values_and_gradients(op, ref, gen):
    x = gen(3, 4)
    np.testing.assert_allclose(op(ek.constant(x)).numpy(), ref(x), rtol=1e-12)
    check_gradients(op, x, order=2)


BINARY = [
    (ek.add, np.add, anyv, anyv),
    (ek.subtract, np.subtract, anyv, anyv),
    (ek.multiply, np.multiply, anyv, anyv),
    (ek.divide, np.divide, anyv, pos),
    (ek.pow, np.power, pos, anyv),
    (ek.maximum, np.maximum, anyv, anyv),
    (ek.minimum, np.minimum, anyv, anyv),
    (ek.squared_difference, lambda a, b: (a - b) ** 2, anyv, anyv),
]


@pytest.mark.parametrize(
    ("op", "ref", "gx", "gy"), BINARY, ids=lambda v: getattr(v, "__name__", "")
)
def test_binary_values_and_broadcast_gradients(op, ref, gx, gy):
    x, y = gx(2, 3), gy(3)
    np.testing.assert_allclose(op(ek.constant(x), ek.constant(y)).numpy(), ref(x, y), rtol=1e-12)
    check_gradients(op, x, y, order=2)
    check_gradients(op, gx(4, 1), gy(1, 5))


def test_mod_gradient_and_values():
    x, y = anyv(5) * 3, pos(5)
    np.testing.assert_allclose(ek.mod(ek.constant(x), ek.constant(y)).numpy(), np.mod(x, y))
    check_gradients(ek.mod, x, y)


def test_pow_at_zero_base_has_finite_exponent_gradient():
    x = ek.constant([0.0, 2.0])
    y = ek.constant([2.0, 2.0])
    with ek.GradientTape() as t:
        t.watch([x, y])
        z = x**y
    gx, gy = t.gradient(z, [x, y])
    np.testing.assert_allclose(gx.numpy(), [0.0, 4.0])
    assert np.all(np.isfinite(gy.numpy()))


def test_sigmoid_is_stable():
    s = ek.sigmoid(ek.constant([-1000.0, 0.0, 1000.0])).numpy()
    np.testing.assert_array_equal(s, [0.0, 0.5, 1.0])


def test_non_differentiable_ops_give_none():
    x = ek.constant([1.5, -2.5])
    for op in (ek.floor, ek.ceil, ek.round):
        with ek.GradientTape() as t:
            t.watch(x)
            y = op(x)
        assert t.gradient(y, x) is None


def test_where_values_and_gradient():
    c = np.array([True, False, True])
    x, y = anyv(3), anyv(3)
    np.testing.assert_allclose(ek.where(c, x, y).numpy(), np.where(c, x, y))
    check_gradients(lambda a, b: ek.where(ek.constant(c), a, b), x, y, order=2)
    np.testing.assert_array_equal(ek.where(ek.constant(c)).numpy(), [[0], [2]])
    with pytest.raises(TypeError, match="condition must be bool"):
        ek.where(ek.constant([1, 0]), x, y)


def test_clip_by_value():
    x = ek.constant([-2.0, 0.5, 3.0])
    np.testing.assert_array_equal(ek.clip_by_value(x, -1.0, 1.0).numpy(), [-1.0, 0.5, 1.0])
    with ek.GradientTape() as t:
        t.watch(x)
        y = ek.clip_by_value(x, -1.0, 1.0)
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [0.0, 1.0, 0.0])
    # Bounds the wrong way round: TensorFlow 2.21 computes maximum(minimum(x, max), min), which
    # is min everywhere, and raises nothing.
    np.testing.assert_array_equal(ek.clip_by_value(x, 1.0, -1.0).numpy(), [1.0, 1.0, 1.0])


def test_cast_gradient():
    x = ek.constant([1.25, 2.5], dtype=ek.float64)
    with ek.GradientTape() as t:
        t.watch(x)
        y = ek.cast(x, ek.float32) * ek.constant([2.0, 3.0])
    g = t.gradient(y, x)
    assert g.dtype == ek.float64
    np.testing.assert_array_equal(g.numpy(), [2.0, 3.0])
    assert ek.cast(ek.constant([1.7, -1.7]), ek.int32).numpy().tolist() == [1, -1]


def test_logical_ops():
    a = ek.constant([True, False])
    b = ek.constant([True, True])
    assert ek.logical_and(a, b).numpy().tolist() == [True, False]
    assert ek.logical_or(a, b).numpy().tolist() == [True, True]
    assert ek.logical_not(a).numpy().tolist() == [False, True]
    with pytest.raises(TypeError, match="LogicalAnd: inputs must be bool"):
        ek.logical_and(ek.constant([1]), ek.constant([1]))


def test_integer_power_by_negative_integer_rejected():
    with pytest.raises(ValueError, match="negative integer powers"):
        ek.constant([2]) ** -1


@settings(max_examples=30, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=st.integers(0, 2**16),
)
def test_broadcast_gradients_property(shapes, seed):
    r = np.random.default_rng(seed)
    x = r.normal(size=shapes.input_shapes[0])
    y = r.normal(size=shapes.input_shapes[1])
    check_gradients(lambda a, b: a * b + a - b, x, y)
