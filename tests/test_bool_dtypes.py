"""Bool tensors in math ops, as TensorFlow 2.21 takes them.

TensorFlow registers no bool kernel for arithmetic (AddV2, Mul, Pow, ...), ordering (Less,
...), Maximum/Minimum, Abs/Square/Round or the numeric reductions: each raises
InvalidArgumentError, where NumPy would compute with bools as integers. Equal, NotEqual, the
logical ops and the bool operators (``&``, ``|``, ``^``, ``~``, and ``*``, which TensorFlow's
operator computes as a product of int32 casts) do take them. The expected outcomes below were
checked with the oracle (tensorflow-cpu 2.21).
"""

import numpy as np
import pytest

import eagerkernel as tf

InvalidArgumentError = tf.errors.InvalidArgumentError

B = tf.constant([True, False, True])
C = tf.constant([True, True, False])

BINARY_REFUSED = [
    (tf.add, "AddV2"),
    (tf.subtract, "Sub"),
    (tf.multiply, "Mul"),
    (tf.math.floordiv, "FloorDiv"),
    (tf.math.floormod, "FloorMod"),
    (tf.maximum, "Maximum"),
    (tf.minimum, "Minimum"),
    (tf.pow, "Pow"),
    (tf.math.squared_difference, "SquaredDifference"),
    (tf.less, "Less"),
    (tf.greater_equal, "GreaterEqual"),
]


@pytest.mark.parametrize("op, prim", BINARY_REFUSED, ids=[p for _, p in BINARY_REFUSED])
def test_binary_math_ops_refuse_bools(op, prim):
    with pytest.raises(InvalidArgumentError, match=rf"{prim}: x must be a number, got a bool"):
        op(B, C)


@pytest.mark.parametrize("op", [tf.abs, tf.negative, tf.square, tf.round, tf.sign])
def test_unary_math_ops_refuse_bools(op):
    with pytest.raises(InvalidArgumentError, match="got a bool tensor"):
        op(B)


@pytest.mark.parametrize(
    "op", [tf.reduce_sum, tf.reduce_prod, tf.reduce_mean, tf.reduce_max, tf.reduce_min]
)
def test_numeric_reductions_refuse_bools(op):
    with pytest.raises(
        InvalidArgumentError, match=r"reduce_.*: input_tensor must be numeric, got a bool"
    ):
        op(B)


def test_cumulative_ops_refuse_bools():
    with pytest.raises(InvalidArgumentError, match="Cumsum"):
        tf.cumsum(B)
    with pytest.raises(InvalidArgumentError, match="cumprod: x must be numeric, got a bool"):
        tf.math.cumprod(B)


def test_refusals_are_also_type_errors_and_hold_under_a_tape():
    # The error class subclasses TypeError as well; the fast path (no recorder) and the
    # recorded path refuse alike.
    with pytest.raises(TypeError):
        B + C
    with tf.GradientTape(), pytest.raises(InvalidArgumentError, match="AddV2"):
        tf.add(B, C)


def test_bool_ops_that_tensorflow_takes():
    np.testing.assert_array_equal((B & C).numpy(), [True, False, False])
    np.testing.assert_array_equal((B | C).numpy(), [True, True, True])
    np.testing.assert_array_equal((B ^ C).numpy(), [False, True, True])
    np.testing.assert_array_equal((~B).numpy(), [False, True, False])
    np.testing.assert_array_equal(tf.equal(B, C).numpy(), [True, False, False])
    np.testing.assert_array_equal(tf.not_equal(B, C).numpy(), [False, True, True])
    assert bool(tf.reduce_any(B)) and not bool(tf.reduce_all(B))
    assert int(tf.reduce_sum(tf.cast(B, tf.int32))) == 2


def test_bool_operator_product_is_the_int32_product_cast_back():
    # TF's ``__mul__`` on a bool operand: cast(cast(x, int32) * cast(y, int32), bool).
    for got, want in [
        (B * C, [True, False, False]),
        (C * B, [True, False, False]),
        (B * 2, [True, False, True]),
        (3 * B, [True, False, True]),
        (B * 0.5, [False, False, False]),  # 0.5 casts to int32 0
    ]:
        assert got.dtype == tf.bool
        np.testing.assert_array_equal(got.numpy(), want)
