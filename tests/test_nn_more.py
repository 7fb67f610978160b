"""tf.nn.atrous_conv2d, atrous_conv2d_transpose, max_pool_with_argmax and tf.math.approx_max_k /
approx_min_k. Expected arrays are TensorFlow 2.21's on the same inputs."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

# 1 x 4 x 5 x 2, with ties inside windows (the first maximum in row-major order wins)
X = np.array(
    [
        [
            [[1, 0], [3, 3], [2, 1], [0, 5], [4, 4]],
            [[3, 2], [1, 1], [3, 0], [5, 2], [0, 1]],
            [[0, 0], [2, 6], [2, 6], [1, 1], [4, 2]],
            [[1, 7], [0, 0], [3, 3], [2, 2], [4, 1]],
        ]
    ],
    np.float32,
)
X2 = np.concatenate([X, X[:, ::-1] * 2], 0)  # a second batch entry, flipped and scaled

ARGMAX = {  # (padding, ksize, strides, include_batch_in_index): TensorFlow's argmax
    ("VALID", 2, 2, False): [
        [[[2, 3], [16, 7]], [[22, 31], [34, 25]]],
        [[[12, 1], [4, 15]], [[20, 33], [26, 37]]],
    ],
    ("SAME", 3, 2, False): [
        [[[2, 23], [16, 23], [16, 7]], [[22, 31], [34, 23], [28, 29]]],
        [[[20, 1], [26, 13], [26, 7]], [[20, 33], [26, 37], [26, 37]]],
    ],
    ("SAME", 2, (1, 2), True): [
        [
            [[2, 3], [16, 7], [8, 9]],
            [[10, 23], [16, 25], [28, 29]],
            [[22, 31], [34, 25], [28, 29]],
            [[30, 31], [34, 35], [38, 39]],
        ],
        [
            [[52, 41], [44, 55], [48, 59]],
            [[60, 53], [66, 55], [58, 59]],
            [[60, 73], [66, 77], [78, 79]],
            [[72, 73], [74, 77], [78, 79]],
        ],
    ],
}


@pytest.mark.parametrize("case", list(ARGMAX))
def test_max_pool_with_argmax_matches_tensorflow(case):
    padding, ksize, strides, include_batch = case
    out, argmax = ek.nn.max_pool_with_argmax(
        ek.constant(X2), ksize, strides, padding, include_batch_in_index=include_batch
    )
    assert argmax.dtype == ek.int64
    np.testing.assert_array_equal(argmax.numpy(), ARGMAX[case])
    np.testing.assert_array_equal(out.numpy(), ek.nn.max_pool2d(X2, ksize, strides, padding))
    # every maximum is the input's value at its index
    flat = X2.reshape(-1) if include_batch else X2.reshape(2, -1)
    picked = (
        flat[argmax.numpy()]
        if include_batch
        else np.stack([flat[b][argmax.numpy()[b]] for b in range(2)])
    )
    np.testing.assert_array_equal(picked, out.numpy())


def test_max_pool_with_argmax_gradient_and_index_dtype():
    x = ek.constant(X2)
    with ek.GradientTape() as tape:
        tape.watch(x)
        out, _ = ek.nn.max_pool_with_argmax(x, 3, 2, "SAME")
        total = ek.reduce_sum(out * out)
    grad = tape.gradient(total, x).numpy()
    expected = np.zeros_like(X2)  # TensorFlow's: 2 * max at each window's first maximum
    expected[0, 0, 1, 0], expected[0, 0, 3, 1] = 6, 10
    expected[0, 1, 3, 0] = 20
    expected[0, 2, 1] = [4, 36]
    expected[0, 2, 4] = [8, 4]
    expected[0, 3, 0, 1], expected[0, 3, 2, 0] = 14, 6
    expected[1, 0, 0, 1], expected[1, 0, 3, 1] = 28, 8
    expected[1, 1, 1, 1] = 24
    expected[1, 2, 0, 0], expected[1, 2, 3, 0] = 24, 80
    expected[1, 3, 1, 1], expected[1, 3, 3, 1] = 12, 40
    np.testing.assert_array_equal(grad, expected)
    _, argmax = ek.nn.max_pool_with_argmax(x, 2, 2, "VALID", output_dtype=ek.int32)
    assert argmax.dtype == ek.int32
    with pytest.raises(TypeError, match="output_dtype must be int32 or int64, got float32"):
        ek.nn.max_pool_with_argmax(x, 2, 2, "VALID", output_dtype=ek.float32)


def test_atrous_conv2d_and_its_transpose_match_tensorflow():
    r = ek.reshape(ek.range(36.0), (1, 6, 6, 1))
    valid = ek.nn.atrous_conv2d(r, ek.ones((2, 2, 1, 1)), 2, "VALID")[0, :, :, 0]
    np.testing.assert_array_equal(
        valid.numpy(),
        [[28, 32, 36, 40], [52, 56, 60, 64], [76, 80, 84, 88], [100, 104, 108, 112]],
    )
    same = ek.nn.atrous_conv2d(r, ek.ones((2, 2, 1, 1)), 2, "SAME")[0, :, :, 0]
    np.testing.assert_array_equal(
        same.numpy()[[0, 5]], [[7, 14, 16, 18, 20, 10], [25, 50, 52, 54, 56, 28]]
    )
    filters = ek.reshape(ek.range(4.0), (2, 2, 1, 1))
    up = ek.nn.atrous_conv2d_transpose(ek.ones((1, 3, 3, 1)), filters, [1, 5, 5, 1], 2, "VALID")
    np.testing.assert_array_equal(
        up.numpy()[0, :, :, 0],
        [[0, 0, 1, 1, 1], [0, 0, 1, 1, 1], [2, 2, 6, 4, 4], [2, 2, 5, 3, 3], [2, 2, 5, 3, 3]],
    )
    with pytest.raises(ValueError, match="rate 0 cannot be less than one"):
        ek.nn.atrous_conv2d(r, ek.ones((2, 2, 1, 1)), 0, "SAME")


def test_atrous_conv2d_gradient_against_finite_differences():
    rng = np.random.default_rng(0)
    x = ek.constant(rng.standard_normal((1, 5, 5, 1)))
    w = ek.constant(rng.standard_normal((2, 2, 1, 1)))
    with ek.GradientTape() as tape:
        tape.watch(w)
        y = ek.reduce_sum(ek.nn.atrous_conv2d(x, w, 2, "SAME") ** 2)
    grad = tape.gradient(y, w).numpy()
    eps, fd = 1e-6, np.zeros((2, 2, 1, 1))
    for i in np.ndindex(fd.shape):
        d = np.zeros_like(fd)
        d[i] = eps
        up = ek.reduce_sum(ek.nn.atrous_conv2d(x, ek.constant(w.numpy() + d), 2, "SAME") ** 2)
        dn = ek.reduce_sum(ek.nn.atrous_conv2d(x, ek.constant(w.numpy() - d), 2, "SAME") ** 2)
        fd[i] = (float(up) - float(dn)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-6)


def test_approx_max_k_and_min_k_are_exact_top_k_along_any_axis():
    a = np.array([[1.0, 9.0, 3.0, 7.0], [4.0, 2.0, 8.0, 6.0], [5.0, 0.0, 11.0, 10.0]], np.float32)
    values, indices = ek.math.approx_max_k(a, 2)
    np.testing.assert_array_equal(values.numpy(), [[9, 7], [8, 6], [11, 10]])
    np.testing.assert_array_equal(indices.numpy(), [[1, 3], [2, 3], [2, 3]])
    values, indices = ek.nn.approx_min_k(a, 1, reduction_dimension=0)
    np.testing.assert_array_equal(values.numpy(), [[1, 0, 3, 6]])
    np.testing.assert_array_equal(indices.numpy(), [[0, 2, 0, 1]])
    x = ek.constant(a)
    with ek.GradientTape() as tape:
        tape.watch(x)
        v, _ = ek.math.approx_max_k(x, 1, reduction_dimension=0)
    np.testing.assert_array_equal(
        tape.gradient(v, x).numpy(), [[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 1, 1]]
    )
    with pytest.raises(ValueError, match=r"recall_target must be in \(0, 1\]"):
        ek.math.approx_max_k(a, 1, recall_target=0.0)
    with pytest.raises(ek.errors.InvalidArgumentError, match="reduction_dimension 2 is out"):
        ek.math.approx_max_k(a, 1, reduction_dimension=2)
    with pytest.raises(ek.errors.InvalidArgumentError, match="k must be in"):
        ek.math.approx_max_k(a, 5)
