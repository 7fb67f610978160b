"""Differences between `ek.experimental.numpy` and TensorFlow 2.21's `tf.experimental.numpy`
found by differential fuzzing (with and without NumPy behavior). The expected values, dtypes
and error classes were computed with TensorFlow 2.21 (tensorflow-cpu) unless a closed form is
given."""

from __future__ import annotations

import eagerkernel.experimental.numpy as tnp
import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import numpy_behavior


@pytest.fixture
def numpy_mode():
    """NumPy behavior on for one test (process-wide in TensorFlow; restored afterwards)."""
    state = numpy_behavior.STATE
    saved = (state.enabled, state.prefer_float32, state.promotion)
    tnp.experimental_enable_numpy_behavior()
    yield
    state.enabled, state.prefer_float32, state.promotion = saved


def check(t, value, dtype):
    assert isinstance(t, ek.Tensor)
    assert t.dtype == dtype, t.dtype
    np.testing.assert_allclose(t.numpy(), value)


# -- creation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [tnp.zeros, tnp.ones, tnp.empty])
def test_creation_dtype_none_is_the_default_float(fn):
    # TF: tnp.zeros((4, 0), dtype=None) and tnp.empty((2,), dtype=None) are float64 (TF's own
    # tnp.ones raises for dtype=None; NumPy's gives float64 as well).
    assert fn((2,), dtype=None).dtype == ek.float64
    assert fn((4, 0), dtype=None).shape == (4, 0)


def test_negative_dimension_is_invalid_argument():
    # TF: tnp.zeros((-1, 2)) raises InvalidArgumentError.
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"zeros: negative dimensions"):
        tnp.zeros((-1, 2))


# -- division ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [None, "numpy"])
def test_true_divide_follows_truediv_table(mode, request):
    if mode:
        request.getfixturevalue("numpy_mode")
    i16 = ek.constant([1], ek.int16)
    # TF: int16 / int16 and int16 / uint8 give float32 (truediv's table), uint8 / 2 float32.
    check(tnp.true_divide(i16, ek.constant([2], ek.int16)), [0.5], ek.float32)
    check(tnp.divide(i16, ek.constant([2], ek.uint8)), [0.5], ek.float32)
    check(tnp.true_divide(ek.constant([1], ek.uint8), 2), [0.5], ek.float32)
    # TF: uint8 / int8 promotes to int16, so float32 ([20, 8, 3] / [15, 17, -7]).
    q = tnp.divide(ek.constant([20, 8, 3], ek.uint8), ek.constant([15, 17, -7], ek.int8))
    check(q, np.float32([20 / 15, 8 / 17, 3 / -7]), ek.float32)
    # int32 / int32 and Python ints stay float64; bools divide as float64.
    check(tnp.true_divide(ek.constant([1]), ek.constant([2])), [0.5], ek.float64)
    check(tnp.divide(3, 2), 1.5, ek.float64)
    check(tnp.true_divide(ek.constant([True]), ek.constant([True])), [1.0], ek.float64)
    check(tnp.divide(ek.constant([1.0], ek.float16), 2), [0.5], ek.float16)


def test_true_divide_ints_stay_float64_under_prefer_float32():
    state = numpy_behavior.STATE
    saved = (state.enabled, state.prefer_float32, state.promotion)
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    try:
        # TF 2.21 with prefer_float32=True: int32 / int32 and 3 / 2 are still float64.
        check(tnp.true_divide(ek.constant([1]), ek.constant([2])), [0.5], ek.float64)
        check(tnp.divide(3, 2), 1.5, ek.float64)
        check(tnp.true_divide(ek.constant([True]), ek.constant([True])), [1.0], ek.float64)
    finally:
        state.enabled, state.prefer_float32, state.promotion = saved


# -- reductions -------------------------------------------------------------------------------


def test_bool_max_min_keep_bool():
    # TF: tnp.max/min of bools are reduce_any/reduce_all (bool results).
    b = ek.constant([True, False])
    check(tnp.max(b), True, ek.bool)
    check(tnp.amin(b, axis=0), False, ek.bool)
    check(tnp.min(ek.constant(True), keepdims=True), True, ek.bool)
    check(
        tnp.amax(ek.constant([[True], [False]]), axis=1, keepdims=True), [[True], [False]], ek.bool
    )
    # Bool sums still count, as int64.
    check(tnp.sum(b), 1, ek.int64)


def test_sum_prod_with_bool_dtype_are_any_all():
    # TF: tnp.sum(x, dtype=bool) is reduce_any of x != 0, tnp.prod reduce_all.
    x = ek.constant([1, 0])
    check(tnp.sum(x, dtype=tnp.bool_), True, ek.bool)
    check(tnp.prod(x, dtype=tnp.bool_), False, ek.bool)
    check(tnp.sum(ek.constant([18, -19]), keepdims=True, dtype=bool), [True], ek.bool)
    # Other dtypes are unchanged: int32 stays int32 (no int64 promotion).
    check(tnp.sum(ek.constant([1, 2], ek.int8), dtype="int32"), 3, ek.int32)


def test_reduction_axis_out_of_range_is_invalid_argument():
    # TF: InvalidArgumentError ("Invalid reduction dimension"), a ValueError here too.
    x = ek.constant([1.0, 2.0])
    for fn in (tnp.sum, tnp.amax, tnp.argmax, tnp.cumsum, tnp.mean, tnp.any):
        with pytest.raises(ek.errors.InvalidArgumentError, match=r"axis 3 is out of bounds"):
            fn(x, axis=3)
    with pytest.raises(ek.errors.InvalidArgumentError, match="expand_dims: axis 3"):
        tnp.expand_dims(ek.constant([1.0]), 3)


def test_std_var_ddof_at_least_n():
    # NumPy's closed form: the sum of squares over max(n - ddof, 0); TF's std has no ddof.
    check(tnp.std(ek.constant([19], ek.uint8), ddof=1), np.nan, ek.float64)
    check(tnp.var(ek.constant([1.0, 2.0]), ddof=2), np.inf, ek.float32)


def test_trace_keeps_dtype_on_the_main_diagonal():
    # TF: tnp.trace of the main diagonal of the last two axes is tf.linalg.trace (int32
    # stays int32, int8 int8); another offset sums the diagonal as int64.
    m = [[9, 3, 6], [-1, 5, 2]]
    check(tnp.trace(ek.constant(m)), 14, ek.int32)
    check(tnp.trace(ek.constant([[1, 2], [3, 4]], ek.int8)), 5, ek.int8)
    check(tnp.trace(ek.constant(m), 1), 5, ek.int64)
    check(tnp.trace(ek.constant(m), dtype="float32"), 14, ek.float32)


# -- indexing, linear algebra -----------------------------------------------------------------


def test_nonzero_of_a_scalar_is_one_vector():
    # TF: tnp.nonzero(5) is [array([0])], of 0 [array([], int64)]; tnp.where(True) likewise.
    (i,) = tnp.nonzero(ek.constant(5))
    check(i, [0], ek.int64)
    (i,) = tnp.nonzero(ek.constant(0))
    assert i.shape == (0,) and i.dtype == ek.int64
    (i,) = tnp.where(ek.constant(True))
    check(i, [0], ek.int64)


def test_cross_of_2_vectors():
    # TF: 2-vectors have a zero z; two 2-vectors give the scalar z component.
    a2, b2 = ek.constant([1.0, 2.0]), ek.constant([3.0, 4.0])
    b3 = ek.constant([3.0, 4.0, 5.0])
    check(tnp.cross(a2, b2), -2.0, ek.float32)
    check(tnp.cross(a2, b3), [10.0, -5.0, -2.0], ek.float32)
    check(tnp.cross(ek.constant([1.0, 2.0, 3.0]), b2), [-12.0, 9.0, -2.0], ek.float32)
    batch = tnp.cross(ek.constant([[1.0, 2.0], [0.0, 1.0]]), ek.constant([[3.0, 4.0], [1.0, 0.0]]))
    check(batch, [-2.0, -1.0], ek.float32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="cross: incompatible dimensions"):
        tnp.cross(ek.constant([1.0, 2.0, 3.0, 4.0]), b3)


def test_cross_of_2_vectors_gradient():
    a, b = ek.constant([1.0, 2.0]), ek.constant([3.0, 4.0])
    with ek.GradientTape() as tape:
        tape.watch([a, b])
        z = tnp.cross(a, b)
    ga, gb = tape.gradient(z, [a, b])
    # d(a0*b1 - a1*b0): closed form.
    np.testing.assert_allclose(ga.numpy(), [4.0, -3.0])
    np.testing.assert_allclose(gb.numpy(), [-2.0, 1.0])


def test_split_unequal_is_invalid_argument():
    # TF: tnp.split of 3 rows into 2 raises InvalidArgumentError.
    with pytest.raises(ek.errors.InvalidArgumentError, match="split: array split"):
        tnp.split(ek.constant(np.zeros((3, 4))), 2, axis=0)


# -- operators under NumPy behavior -----------------------------------------------------------


def test_matmul_operator_takes_vectors(numpy_mode):
    # TF 2.21 under NumPy behavior: `@` is tnp.matmul.
    check(ek.constant([1.0, 2.0]) @ ek.constant([3.0, 4.0]), 11.0, ek.float32)
    check(ek.constant([[1.0, 2.0]]) @ ek.constant([3.0, 4.0]), [11.0], ek.float32)
    check(ek.constant([1, 2], ek.int8) @ ek.constant([0.5, 2.0]), 4.5, ek.float32)
    check(np.array([[1.0, 2.0]]) @ ek.constant([1.0, 1.0]), [3.0], ek.float64)


def test_matmul_operator_without_numpy_behavior_is_tf_matmul():
    with pytest.raises(ek.errors.InvalidArgumentError, match="rank >= 2"):
        ek.constant([1.0, 2.0]) @ ek.constant([3.0, 4.0])


def test_bitwise_operators_promote(numpy_mode):
    # TF 2.21 under NumPy behavior: int32 & int8 is int32, int32 ^ int64 int64.
    check(ek.constant([1, 2]) & ek.constant([3, 3], ek.int8), [1, 2], ek.int32)
    check(ek.constant([1, 2]) ^ ek.constant([3, 3], ek.int64), [2, 1], ek.int64)
    check(ek.constant([1, 2], ek.uint8) | ek.constant([4, 4], ek.int16), [5, 6], ek.int16)


def test_bitwise_operators_without_numpy_behavior_refuse_mixed_dtypes():
    with pytest.raises(TypeError, match="BitwiseAnd"):
        ek.constant([1, 2]) & ek.constant([3, 3], ek.int8)


def test_int_tensor_to_float_tensor_power_promotes(numpy_mode):
    # TF 2.21 under NumPy behavior: int64 ** float32 is float64, negative exponents included.
    check(ek.constant([5], ek.int64) ** ek.constant([-0.5]), [5**-0.5], ek.float64)


def test_int_tensor_to_float_tensor_power_is_a_dtype_mismatch():
    # Without NumPy behavior TF refuses the mixed dtypes (not the negative integer power).
    with pytest.raises(TypeError, match="Pow: inputs must have the same dtype"):
        ek.constant([5], ek.int64) ** ek.constant([-0.5])
    with pytest.raises(ek.errors.InvalidArgumentError, match="negative integer powers"):
        ek.pow(ek.constant([5], ek.int64), ek.constant([-1], ek.int64))
