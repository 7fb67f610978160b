"""Where TensorFlow raises, eagerkernel raises too, with TensorFlow's error class and a message
naming the op and the argument, never a silent wrong answer or NumPy's raw message (issue 17
items 8 and 9)."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core.conversion import ConversionError


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "int16"])
@pytest.mark.parametrize(("fn", "op"), [(ek.math.floordiv, "floordiv"), (ek.math.mod, "floormod")])
def test_integer_division_by_zero_raises(fn, op, dtype):
    x = ek.constant([4, 5, 6], dtype=dtype)
    y = ek.constant([2, 0, 3], dtype=dtype)
    with pytest.raises(ek.errors.InvalidArgumentError, match=f"{op}: Integer division by zero"):
        fn(x, y)


def test_integer_division_by_zero_through_operators():
    with pytest.raises(ek.errors.InvalidArgumentError, match="Integer division by zero"):
        ek.constant(1) // ek.constant(0)
    with pytest.raises(ek.errors.InvalidArgumentError, match="Integer division by zero"):
        ek.constant(1) % 0
    # Nonzero divisors keep TensorFlow's floor semantics, and floats still give inf.
    assert (ek.constant(-7) // ek.constant(2)).numpy() == -4
    assert (ek.constant(-7) % ek.constant(2)).numpy() == 1
    with np.errstate(divide="ignore"):
        assert np.isinf((ek.constant(1.0) // ek.constant(0.0)).numpy())


def test_one_hot_negative_depth():
    with pytest.raises(ek.errors.InvalidArgumentError, match="depth"):
        ek.one_hot([1], depth=-1)


@pytest.mark.parametrize("make", [ek.zeros, ek.ones])
def test_fractional_shape_is_refused_not_truncated(make):
    with pytest.raises(TypeError, match=r"shape must be a sequence of ints, got \[2\.5\]"):
        make([2.5])
    assert make(np.array([2, 3])).shape == (2, 3)
    assert make(ek.constant([2])).shape == (2,)


@pytest.mark.parametrize("value", [{1, 2}, frozenset({1}), {"a": 1}])
def test_constant_of_a_set_or_dict_raises(value):
    # TensorFlow 2 raises ValueError; the class is also a TypeError (eagerkernel's before).
    name = type(value).__name__
    message = rf"Attempt to convert a value \(.*\) with an unsupported type \(<class '{name}'>\)"
    with pytest.raises(ValueError, match="constant: " + message + r".* has no order; use a list"):
        ek.constant(value)
    with pytest.raises(TypeError, match="convert_to_tensor: " + message):
        ek.convert_to_tensor(value)


@pytest.mark.parametrize(
    "value, message",
    [
        (
            object(),
            r"Attempt to convert a value \(<object object .*\) with an unsupported type "
            r"\(<class 'object'>\) to a Tensor\.",
        ),
        ([None, 1.0], r"Attempt to convert a value \(None\) with an unsupported type"),
        ([1, "a"], r"Can't convert Python sequence with mixed types to Tensor: \[1, 'a'\]"),
        ([[1.0, 2.0], ["a", "b"]], "Can't convert Python sequence with mixed types"),
    ],
)
def test_values_of_unsupported_types_raise_tensorflows_errors(value, message):
    """TensorFlow 2.21: ``ValueError: Attempt to convert a value (...) with an unsupported
    type (...) to a Tensor.`` and ``Can't convert Python sequence with mixed types to
    Tensor.``; raised as `ConversionError`, both a ValueError and a TypeError."""
    for convert in (ek.constant, ek.convert_to_tensor):
        with pytest.raises(ConversionError, match=message) as info:
            convert(value)
        assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
        assert str(info.value).startswith(convert.__name__ + ": ")
    with pytest.raises(ValueError, match="AddV2: " + message):
        ek.constant([1.0, 2.0]) + value
    assert ek.constant([1.0]).numpy().tolist() == [1.0]  # nothing else changed


def test_ragged_nested_list_says_so():
    with pytest.raises(ValueError, match=r"non-rectangular.*ek\.ragged\.constant") as info:
        ek.constant([[1, 2], [3]])
    assert "inhomogeneous" not in str(info.value)  # not NumPy's message
    with pytest.raises(ValueError, match="non-rectangular"):
        ek.constant([[1.0, 2.0], [3.0]], dtype="float32")


def test_constant_shape_checks():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"constant: shape must be non-neg"):
        ek.constant(0, shape=[-1])
    with pytest.raises(TypeError, match="constant: shape"):
        ek.constant(0, shape=[1.5])
    assert ek.constant(0, shape=ek.constant([2])).numpy().tolist() == [0, 0]


def test_matmul_batch_and_random_shape_messages():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"matmul: batch dimensions"):
        ek.matmul(ek.ones([2, 3, 4]), ek.ones([5, 4, 2]))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"random\.normal: shape"):
        ek.random.normal([-2])


@pytest.mark.parametrize("fn", [ek.reduce_mean, ek.reduce_max, ek.reduce_sum, ek.reduce_std])
@pytest.mark.parametrize("axis", [0, [0]])
def test_reducing_a_scalar_over_axis_0_gives_the_scalar(fn, axis):
    # Found by tests/fuzz: reduce_mean(scalar, axis=0) raised NumPy's raw AxisError.
    got = fn(ek.constant(2.0), axis=axis).numpy()
    assert got.shape == () and float(got) == (0.0 if fn is ek.reduce_std else 2.0)
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        fn(ek.constant(2.0), axis=1)
    with pytest.raises(ek.errors.InvalidArgumentError, match="out of range"):
        fn(ek.constant(2.0), axis=-1)
