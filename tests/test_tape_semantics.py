"""Tape behaviours where TensorFlow's documented semantics are the specification."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek


def test_a_target_that_is_a_source_gets_its_seed():
    v0, v1 = ek.Variable(2.0), ek.Variable(3.0)
    with ek.GradientTape() as tape:
        result = v0
    g0, g1 = tape.gradient(result, [v0, v1])  # TF: [1.0, None]
    assert float(g0) == 1.0 and g1 is None


def test_a_target_source_pair_of_a_plain_tensor_and_a_sum_of_contributions():
    x = ek.constant([1.0, 2.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = x * 3.0
    gx, gy = tape.gradient([y, x], [x, y])  # d(sum y + sum x)/dx = 3 + 1; /dy = 1
    np.testing.assert_array_equal(gx.numpy(), [4.0, 4.0])
    np.testing.assert_array_equal(gy.numpy(), [1.0, 1.0])


def test_watched_variables_survive_the_gradient_call_of_a_non_persistent_tape():
    v, u = ek.Variable(1.0), ek.Variable(2.0)
    with ek.GradientTape() as tape:
        y = v * u
    tape.gradient(y, [v, u])
    assert tape.watched_variables() == (v, u)


@pytest.mark.parametrize(
    ("target", "sources", "arg"),
    [("Y", "w", "sources"), (None, "W", "target"), ("Y", None, "sources"), ("Y", [3.0], "sources")],
)
def test_non_tensor_targets_and_sources_raise_type_error_naming_the_argument(target, sources, arg):
    w = ek.Variable(1.0)
    with ek.GradientTape() as tape:
        y = w * 2.0
    target = y if target == "Y" else target  # "Y", "W": the tensors; anything else as is
    sources = w if sources == "W" else sources
    with pytest.raises(TypeError, match=f"argument `{arg}`"):
        tape.gradient(target, sources)
    assert float(tape.gradient(y, w)) == 2.0  # the failed call used nothing up


def test_unknown_unconnected_gradients_value_raises():
    x = ek.constant(1.0)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="sometimes")


def test_numpy_is_a_copy_writes_change_nothing():
    v = ek.Variable([1.0, 2.0])
    a = v.numpy()
    a += 100
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    x = ek.constant([1.0, 2.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = ek.reduce_sum(y * y)  # dz/dx = 4 x^3, computed from y's recorded value
    y.numpy()[:] = 1000.0
    np.testing.assert_array_equal(y.numpy(), [1.0, 4.0])
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), [4.0, 32.0])


def test_numpy_arrays_of_tensors_are_read_only_views():
    t = ek.constant(np.arange(6.0))
    a = np.asarray(t)
    assert not a.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 5.0
    assert np.shares_memory(a, t._value)
    b = np.array(t)  # an explicit copy is writable
    b[0] = 5.0
    assert float(t[0]) == 0.0


def test_a_variable_read_by_every_op_sums_every_contribution():
    """The RNN-shaped chain: one Variable feeding 2000 ops, y = y * w + w."""
    w = ek.Variable(np.full(3, 0.9, np.float32))
    with ek.GradientTape() as tape:
        y = ek.constant(np.ones(3, np.float32))
        for _ in range(1000):
            y = y * w + w
        total = ek.reduce_sum(y)
    g = tape.gradient(total, w)
    # y_n = w^n + sum_{k=1..n} w^k, so dy_n/dw = n w^(n-1) + sum_k k w^(k-1)
    n, wv = 1000, 0.9
    want = n * wv ** (n - 1) + sum(k * wv ** (k - 1) for k in range(1, n + 1))
    np.testing.assert_allclose(g.numpy(), [want] * 3, rtol=1e-3)


def test_ops_after_the_tape_exits_are_not_recorded():
    x = ek.constant(2.0)
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    z = y * 3.0  # after exit
    assert [r.prim.name for r in tape.records] == ["Mul"]
    assert tape.gradient(z, x) is None
    assert float(tape.gradient(y, x)) == 4.0


def test_numpy_of_a_rank_0_tensor_is_a_numpy_scalar_whatever_made_it():
    # TF: .numpy() of a scalar is np.float32(...), also for a gradient (a 0-d array inside)
    x = ek.Variable(0.0)
    with ek.GradientTape() as tape:
        y = ek.sigmoid(x)
    for t in (tape.gradient(y, x), y, x, ek.constant(3), ek.reduce_sum(ek.ones([2, 2]))):
        value = t.numpy()
        assert isinstance(value, np.generic) and not isinstance(value, np.ndarray), type(value)
    assert isinstance(ek.constant("a").numpy(), bytes)
