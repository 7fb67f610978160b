"""`ek.debugging.enable_check_numerics`: every op of the thread checked for Inf and NaN, with
TensorFlow 2.21's message, until `disable_check_numerics`."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import eagerkernel as ek

# TensorFlow 2.21's message for tf.math.log([-1.0, 1.0, 0.0]) under enable_check_numerics,
# its tensor printed as eagerkernel prints one (Tensor(...) for tf.Tensor(...)).
TF_LOG_MESSAGE = """
!!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" (# of outputs: 1) !!!
  dtype: <dtype: 'float32'>
  shape: (3,)
  # of -Inf elements: 1
  # of +NaN elements: 1

  Input tensor: Tensor([-1.  1.  0.], shape=(3,), dtype=float32)

 : Tensor had -Inf and NaN values"""


@pytest.fixture
def checking():
    ek.debugging.enable_check_numerics()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's own about log(-1)
            yield
    finally:
        ek.debugging.disable_check_numerics()


def test_an_op_with_an_inf_or_nan_output_raises_tensorflows_message(checking):
    with pytest.raises(ek.errors.InvalidArgumentError) as info:
        ek.math.log(ek.constant([-1.0, 1.0, 0.0]))
    assert str(info.value) == TF_LOG_MESSAGE
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"(?s)RealDiv.*Input tensors \(2\)"):
        ek.constant([1.0, 2.0]) / ek.constant([0.0, 1.0])
    # finite floats, integers and bools pass
    assert float(ek.reduce_sum(ek.constant([1.0, 2.0]) * 3.0)) == 9.0
    np.testing.assert_array_equal((ek.constant([7, 9]) // ek.constant([2, 4])).numpy(), [3, 2])
    assert bool(ek.reduce_any(ek.constant([True, False])))


def test_the_backward_pass_is_checked_where_a_gradient_turns_inf(checking):
    w = ek.Variable([0.0, 4.0])
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.sqrt(w))  # finite forward; d sqrt(w) / dw = inf at 0
    with pytest.raises(ek.errors.InvalidArgumentError, match="Detected Infinity or NaN"):
        tape.gradient(y, w)


def test_disable_ends_it_and_other_threads_are_not_checked():
    ek.debugging.enable_check_numerics()
    ek.debugging.enable_check_numerics()  # a second call changes nothing
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            thread = threading.Thread(
                target=lambda: seen.append(ek.math.log(ek.constant(-1.0)).numpy())
            )
            thread.start()
            thread.join()
        finally:
            ek.debugging.disable_check_numerics()
        assert np.isnan(seen[0])  # that thread's op ran unchecked
        assert np.isnan(ek.math.log(ek.constant(-1.0)).numpy())  # off again here


def test_bad_limits_raise():
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="stack_height_limit must be a positive int"):
            ek.debugging.enable_check_numerics(stack_height_limit=bad)
    with pytest.raises(ValueError, match="path_length_limit must be a positive int"):
        ek.debugging.enable_check_numerics(path_length_limit=None)
