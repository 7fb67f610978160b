"""Max pooling with NaN and -inf inputs, as TensorFlow 2.21's MaxPool kernel computes it
(every expected value below is the oracle's output for the same call): NaNs never win, and a
window's maximum starts from the dtype's lowest finite value, so a window of NaNs and -infs
gives that value. The gradient and `max_pool_with_argmax` go to the first element equal to
that maximum (TF's go to a window's first element when it is NaN: not reproduced)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

NAN = np.nan


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(
    "window,expected",
    [
        ([NAN, NAN, NAN, NAN], "lowest"),
        ([NAN, 1, NAN, NAN], 1.0),
        ([1, NAN, NAN, NAN], 1.0),
        ([-np.inf, NAN, NAN, NAN], "lowest"),
        ([-np.inf, -np.inf, -np.inf, -np.inf], "lowest"),
        ([NAN, -5, NAN, -7], -5.0),
    ],
)
def test_a_2x2_window(window, expected, dtype):
    x = ek.constant(np.array(window, dtype).reshape(1, 2, 2, 1))
    want = np.finfo(dtype).min if expected == "lowest" else expected
    for padding in ("VALID", "SAME"):
        got = ek.nn.max_pool2d(x, 2, 2, padding).numpy()
        assert got.dtype == dtype and got.ravel().tolist() == [want]


def test_nans_lose_in_every_window_of_a_strided_pool():
    x = np.array(
        [[1, NAN, 3, 4], [5, 6, NAN, 8], [9, 10, 11, 12], [NAN, 14, 15, 16]], np.float32
    ).reshape(1, 4, 4, 1)
    np.testing.assert_array_equal(
        ek.nn.max_pool2d(x, 2, 2, "VALID").numpy().ravel(), [6, 8, 14, 16]
    )
    np.testing.assert_array_equal(
        ek.nn.max_pool2d(x, 2, 1, "VALID").numpy().ravel(), [6, 6, 8, 10, 11, 12, 14, 15, 16]
    )
    np.testing.assert_array_equal(
        ek.nn.max_pool1d(x.reshape(1, 16, 1), 3, 2, "VALID").numpy().ravel(),
        [3, 5, 6, 9, 11, 12, 15],
    )
    np.testing.assert_array_equal(
        ek.keras.layers.MaxPooling2D(2, 2)(x).numpy().ravel(), [6, 8, 14, 16]
    )
    # TF's argmax and gradient for these windows (no NaN first in any): the maxima's positions
    argmax = ek.nn.max_pool_with_argmax(x, 2, 2, "VALID")[1].numpy().ravel()
    np.testing.assert_array_equal(argmax, [5, 7, 13, 15])
    xt = ek.constant(x)
    with ek.GradientTape() as tape:
        tape.watch(xt)
        y = ek.reduce_sum(ek.nn.max_pool2d(xt, 2, 2, "VALID"))
    grad = np.zeros(16, np.float32)
    grad[[5, 7, 13, 15]] = 1
    np.testing.assert_array_equal(tape.gradient(y, xt).numpy().ravel(), grad)
    # reductions and global pooling keep NaN, as TF's
    assert np.isnan(ek.reduce_max(x).numpy())
    assert np.isnan(ek.keras.layers.GlobalMaxPooling2D()(x).numpy()).all()


def test_same_padding_windows():
    x = np.array([NAN, 2, 3, NAN, 5, 6, NAN, NAN, 9], np.float32).reshape(1, 3, 3, 1)
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(
        ek.nn.max_pool2d(x, 2, 2, "SAME").numpy().ravel(), [5, 6, lowest, 9]
    )
    np.testing.assert_array_equal(
        ek.nn.max_pool2d(x, 3, 1, "SAME").numpy().ravel(), [5, 6, 6, 5, 9, 9, 5, 9, 9]
    )
