"""Divergences from TensorFlow 2.21 found by differential fuzzing of autodiff and graph-function
programs (random op compositions under tapes and `ek.function`). Expected values were computed
with TensorFlow 2.21 (tensorflow-cpu) on the same programs."""

import numpy as np
import pytest

import eagerkernel as ek


def _grad(f, x):
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def test_stop_gradient_in_function_replayed_under_tape():
    # TF 2.21: [1. 2.] for d/dx sum(x * stop_gradient(x)), whether or not the function ran
    # before outside a tape.
    x = ek.constant([1.0, 2.0])
    f = ek.function(lambda a: a * ek.stop_gradient(a))
    f(x)
    f(x * 2.0)
    np.testing.assert_allclose(_grad(f, x).numpy(), [1.0, 2.0])
    g = ek.function(lambda a: ek.stop_gradient(a) * 3.0 + a)
    g(x)
    np.testing.assert_allclose(_grad(g, x).numpy(), [1.0, 1.0])
    assert f.experimental_get_tracing_count() == 1


def test_stop_gradient_in_function_keeps_values_fresh():
    f = ek.function(lambda a: a * ek.stop_gradient(a) + ek.stop_gradient(a * 3.0))
    np.testing.assert_allclose(f(ek.constant([1.0, 2.0])).numpy(), [4.0, 10.0])
    np.testing.assert_allclose(f(ek.constant([2.0, 3.0])).numpy(), [10.0, 18.0])
    x = ek.constant([1.0, 2.0])
    np.testing.assert_allclose(_grad(f, x).numpy(), [1.0, 2.0])  # TF 2.21


def test_stop_gradient_op_values():
    x = ek.Variable([1.0, 2.0])
    s = ek.stop_gradient(x)
    assert type(s) is ek.Tensor and s.dtype == ek.float32
    np.testing.assert_array_equal(s.numpy(), [1.0, 2.0])
    assert ek.stop_gradient(3).dtype == ek.int32
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.stop_gradient(x) * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 2.0])


def test_function_traces_argument_structures_apart():
    # TF 2.21: a dict, a tuple and a list of one tensor are three trace types; each call returns
    # its own structure.
    @ek.function
    def f(x):
        return ek.nest.map_structure(lambda a: a * 2, x)

    t = ek.constant(1.0)
    out = f({"a": t})
    assert isinstance(out, dict) and float(out["a"]) == 2.0
    out = f((t,))
    assert isinstance(out, tuple) and len(out) == 1 and float(out[0]) == 2.0
    out = f([t])
    assert isinstance(out, list) and float(out[0]) == 2.0
    out = f({"b": t})
    assert list(out) == ["b"]
    assert f.experimental_get_tracing_count() == 4
    f({"a": ek.constant(5.0)})
    assert f.experimental_get_tracing_count() == 4


def test_concrete_function_binds_python_values_to_spec_dtype():
    @ek.function
    def f(x, y):
        return x * 2, y

    cf = f.get_concrete_function(ek.TensorSpec([None], ek.float32), ek.TensorSpec([], ek.int64))
    # TF 2.21: float32 [2. 4.] and int64 3 for each of these.
    for args in (([1, 2], 3), ([1.0, 2.0], 3), (np.array([1.0, 2.0]), 3)):
        a, b = cf(*args)
        assert a.dtype == ek.float32 and b.dtype == ek.int64
        np.testing.assert_array_equal(a.numpy(), [2.0, 4.0])
        assert int(b) == 3
    with pytest.raises(TypeError, match=r"Binding inputs to tf\.function f") as info:
        cf([1.5], 2.5)
    assert "2.5" in str(info.value)
    with pytest.raises(TypeError, match="Binding inputs"):
        cf(["a"], 1)
    # A tensor of another dtype is not converted: InvalidArgumentError, as in TF.
    with pytest.raises(ek.errors.InvalidArgumentError, match="int64 tensor but is a int32"):
        cf(ek.ones([2]), ek.constant(3))
