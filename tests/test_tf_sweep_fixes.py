"""What a sweep calling every public function of `tf`, `tf.strings`, `tf.image` and `tf.bitwise`
under TensorFlow 2.21 and eagerkernel showed: string tensors that ops with no string kernel
took silently (comparisons, maximum, argmax, cumsum, add_n, searchsorted) or refused with
NumPy's message, unsigned integers that abs/negative/sign took, tf.where refusing a numeric
condition, assert_equal refusing strings, and TensorFlow names that were missing
(histogram_fixed_width_bins, required_space_to_batch_paddings, inside_function,
is_symbolic_tensor, guarantee_const, parallel_stack, register_tensor_conversion_function,
scalar_mul and the fftnd family). Expected values are TensorFlow 2.21's."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import eagerkernel as ek

UDE = ek.errors.UnsupportedDTypeError
S = ek.constant(["a", "b"])


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda: S - S, "Sub"),
        (lambda: S * S, "Mul"),
        (lambda: S < S, "Less"),
        (lambda: ek.maximum(S, S), "Maximum"),
        (lambda: -S, "Neg"),
        (lambda: ek.abs(S), "Abs"),
        (lambda: ek.square(S), "Square"),
        (lambda: ek.argmax(S), "argmax"),
        (lambda: ek.cumsum(S), "Cumsum"),
        (lambda: ek.add_n([S, S]), "AddN"),
        (lambda: ek.searchsorted(S, S), "LowerBound"),
    ],
)
def test_ops_without_a_string_kernel_refuse_strings(call, op):
    for recording in (False, True):  # the C fast path and the recorded path alike
        context = ek.GradientTape() if recording else contextlib.nullcontext()
        with context, pytest.raises(UDE, match=f"^{op}: .* got a string tensor") as info:
            call()
        assert isinstance(info.value, TypeError)
        assert isinstance(info.value, ek.errors.InvalidArgumentError)


def test_string_add_and_equality_still_work():
    np.testing.assert_array_equal((S + S).numpy(), [b"aa", b"bb"])
    np.testing.assert_array_equal(ek.equal(S, ek.constant(["a", "c"])).numpy(), [True, False])
    np.testing.assert_array_equal(ek.not_equal(S, S).numpy(), [False, False])


def test_abs_negative_and_sign_refuse_unsigned_integers():
    u = ek.constant([1, 2], ek.uint8)
    for call, op in ((ek.abs, "Abs"), (ek.negative, "Neg"), (ek.sign, "Sign")):
        with pytest.raises(UDE, match=f"{op}: x must be a signed number, got a uint8 tensor"):
            call(u)
    np.testing.assert_array_equal(ek.square(u).numpy(), [1, 4])  # TensorFlow's Square takes it
    np.testing.assert_array_equal(ek.abs(ek.constant([-2], ek.int8)).numpy(), [2])


def test_where_with_only_a_numeric_condition_gives_its_nonzero_coordinates():
    got = ek.where(ek.constant([[0.0, 1.5], [2.0, 0.0]]))
    assert got.dtype == ek.int64
    np.testing.assert_array_equal(got.numpy(), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(ek.where(ek.constant([0, 3, 0, 7])).numpy(), [[1], [3]])
    with pytest.raises(TypeError, match="condition must be bool, got string"):
        ek.where(ek.constant(["a", ""]))
    with pytest.raises(TypeError, match="condition must be bool, got float32"):
        ek.where(ek.constant([1.0]), 1.0, 2.0)  # with x and y it must be bool, as TF


def test_assert_equal_takes_strings_and_bools():
    ek.debugging.assert_equal(S, ek.constant(["a", "b"]))
    ek.debugging.assert_equal(ek.constant([True]), ek.constant([True]))
    with pytest.raises(ek.errors.InvalidArgumentError) as info:
        ek.debugging.assert_equal(S, ek.constant(["a", "c"]))
    assert str(info.value).splitlines() == [  # TensorFlow's message, line for line
        "Condition x == y did not hold.",
        "Indices of first 1 different values:",
        "[[1]]",
        "Corresponding x values:",
        "[b'b']",
        "Corresponding y values:",
        "[b'c']",
        "First 2 elements of x:",
        "[b'a' b'b']",
        "First 2 elements of y:",
        "[b'a' b'c']",
    ]
    ek.debugging.assert_none_equal(S, ek.constant(["x", "y"]))
    with pytest.raises(TypeError, match="assert_less: x must be a numeric tensor, got string"):
        ek.debugging.assert_less(S, S)


def test_histogram_fixed_width_bins():
    values = ek.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0])
    got = ek.histogram_fixed_width_bins(values, [0.0, 5.0], nbins=5)
    assert got.dtype == ek.int32
    np.testing.assert_array_equal(got.numpy(), [0, 0, 1, 2, 4, 4])
    got = ek.histogram_fixed_width_bins(ek.reshape(values, (2, 3)), [0.0, 5.0], nbins=5)
    np.testing.assert_array_equal(got.numpy(), [[0, 0, 1], [2, 4, 4]])
    got = ek.histogram_fixed_width_bins(ek.constant([1, 2, 3]), [0, 5], nbins=5)
    np.testing.assert_array_equal(got.numpy(), [1, 2, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="nbins must be positive"):
        ek.histogram_fixed_width_bins(values, [0.0, 5.0], nbins=0)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"must have shape \[2\]"):
        ek.histogram_fixed_width_bins(values, [0.0, 5.0, 6.0])


def test_required_space_to_batch_paddings():
    paddings, crops = ek.required_space_to_batch_paddings([5, 7], [2, 3])
    np.testing.assert_array_equal(paddings.numpy(), [[0, 1], [0, 2]])
    np.testing.assert_array_equal(crops.numpy(), [[0, 1], [0, 2]])
    paddings, crops = ek.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 2]])
    np.testing.assert_array_equal(paddings.numpy(), [[1, 0], [0, 2]])
    np.testing.assert_array_equal(crops.numpy(), [[0, 0], [0, 0]])
    x = ek.reshape(ek.range(35.0), (1, 5, 7, 1))  # the paddings make space_to_batch fit
    paddings, crops = ek.required_space_to_batch_paddings([5, 7], [2, 3])
    y = ek.space_to_batch(x, [2, 3], paddings)
    np.testing.assert_array_equal(ek.batch_to_space(y, [2, 3], crops).numpy(), x.numpy())
    with pytest.raises(ValueError, match=r"input_shape must have shape \[2\]"):
        ek.required_space_to_batch_paddings([5], [2, 3])


def test_inside_function_is_symbolic_tensor_guarantee_const_and_parallel_stack():
    assert ek.inside_function() is False
    assert bool(ek.function(lambda: ek.inside_function())())
    assert ek.is_symbolic_tensor(ek.constant(1.0)) is False
    np.testing.assert_array_equal(ek.guarantee_const([1.0, 2.0]).numpy(), [1.0, 2.0])
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        ek.parallel_stack([ek.constant(1.0)])
    stacked = ek.function(lambda a: ek.parallel_stack([a, a * 2]))(ek.constant([1.0, 2.0]))
    np.testing.assert_array_equal(stacked.numpy(), [[1, 2], [2, 4]])


class _Meters:
    def __init__(self, value):
        self.value = value


class _Feet:
    def __init__(self, value):
        self.value = value


def test_register_tensor_conversion_function():
    ek.register_tensor_conversion_function(
        _Meters, lambda v, dtype=None, name=None, as_ref=False: ek.constant(v.value, dtype)
    )
    assert float(ek.constant(1.0) + _Meters(2.0)) == 3.0  # an operator, either side
    assert float(_Meters(3.0) * ek.constant(2.0)) == 6.0
    assert float(ek.reduce_sum(_Meters([1.0, 2.0]))) == 3.0  # an op argument
    assert ek.convert_to_tensor(_Meters([1, 2])).dtype == ek.int32
    assert ek.convert_to_tensor(_Meters([1, 2]), dtype=ek.float32).dtype == ek.float32
    calls = []

    def declines(v, dtype=None, name=None, as_ref=False):
        calls.append("declines")
        return NotImplemented

    def converts(v, dtype=None, name=None, as_ref=False):
        calls.append("converts")
        return ek.constant(v.value * 0.3048)

    ek.register_tensor_conversion_function(_Feet, converts, priority=100)
    ek.register_tensor_conversion_function(_Feet, declines, priority=1)  # asked first
    assert float(ek.convert_to_tensor(_Feet(10.0))) == pytest.approx(3.048)
    assert calls == ["declines", "converts"]
    with pytest.raises(TypeError, match="gave dtype float32, requested float64"):
        ek.convert_to_tensor(_Feet(1.0), dtype=ek.float64)
    with pytest.raises(TypeError, match="Cannot register conversions for Python numeric types"):
        ek.register_tensor_conversion_function(int, converts)
    with pytest.raises(TypeError, match="conversion_func must be callable"):
        ek.register_tensor_conversion_function(_Feet, 42)
    with pytest.raises(ValueError, match="unsupported type"):  # other types: as before
        ek.convert_to_tensor(object())


def test_top_level_aliases():
    assert ek.scalar_mul is ek.math.scalar_mul
    assert ek.fftnd is ek.signal.fftnd and ek.irfftnd is ek.signal.irfftnd


def test_bincount_casts_floats_to_int32_as_tensorflow():
    got = ek.math.bincount(ek.constant([1.5, 2.0, 2.0]), minlength=4)
    np.testing.assert_array_equal(got.numpy(), [0, 1, 2, 0])  # TensorFlow's: 1.5 is 1
    with pytest.raises(ek.errors.InvalidArgumentError, match="non-negative"):
        ek.math.bincount(ek.constant([-1.5, 2.0]))
    with pytest.raises(TypeError, match="arr must be numbers, got string"):
        ek.math.bincount(ek.constant(["a"]))


def test_reshape_refuses_negative_sizes_other_than_minus_one():
    # NumPy reads any negative size as -1; TensorFlow refuses them (InvalidArgumentError).
    x = ek.reshape(ek.range(6), [2, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="dimensions must be >= 0, or -1"):
        ek.reshape(x, [-2, 3])
    assert ek.reshape(x, [-1, 3]).shape == (2, 3)


def test_list_arguments_refuse_dicts_and_sets():
    with pytest.raises(TypeError, match="stack: values must be a list or tuple of tensors"):
        ek.stack({"a": 1})
    with pytest.raises(TypeError, match="concat: values must be a list or tuple of tensors"):
        ek.concat({1, 2}, 0)
    with pytest.raises(TypeError, match="join: inputs must be a list of string tensors"):
        ek.strings.join({"a": "b"})
