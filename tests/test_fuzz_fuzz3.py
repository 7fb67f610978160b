"""Regressions found by differential fuzzing of tf.nn and tf.image ops against TensorFlow 2.21.

Expected numbers were computed with TensorFlow 2.21 (CPU) on the same inputs, unless a comment
gives a closed form.
"""

import numpy as np
import pytest

import eagerkernel as ek

IAE = ek.errors.InvalidArgumentError


# -- convert_image_dtype(saturate=True) follows tf.dtypes.saturate_cast --------------------------


@pytest.mark.parametrize(
    "values, src, dst, expected",
    [
        # TensorFlow 2.21: uint8 -> int8 halves, then clamps only the side that can overflow.
        ([0, 100, 255], np.uint8, ek.int8, [0, 50, 127]),
        # signed -> unsigned: negatives saturate to 0 before the scale-up.
        ([-128, -5, 127], np.int8, ek.uint8, [0, 0, 254]),
        ([-40000, 5, 40000], np.int32, ek.int16, [-1, 0, 0]),
        # float32 cannot hold 2**31 - 1: TensorFlow nudges the limit to 2147483520.
        ([-0.5, 0.5, 1.5], np.float32, ek.int32, [-1073741824, 1073741824, 2147483520]),
        ([-0.5, 0.5, 1.5], np.float64, ek.int32, [-1073741823, 1073741823, 2147483647]),
        ([-0.5, 0.5, 1.5], np.float32, ek.uint8, [0, 127, 255]),
    ],
)
def test_convert_image_dtype_saturate_matches_tensorflow(values, src, dst, expected):
    image = ek.constant(np.asarray(values, src))
    out = ek.image.convert_image_dtype(image, dst, saturate=True)
    assert out.dtype == dst
    np.testing.assert_array_equal(out.numpy(), expected)


def test_convert_image_dtype_without_saturate_wraps_like_a_cast():
    # TensorFlow 2.21: int8 -> uint8 without saturation is cast (-5 -> 251) then times 2.
    out = ek.image.convert_image_dtype(ek.constant(np.int8([-128, -5, 127])), ek.uint8)
    np.testing.assert_array_equal(out.numpy(), [0, 246, 254])


def test_adjust_brightness_of_int32_images_saturates():
    # TensorFlow 2.21 returns 2147483520 (the largest float32 below 2**31) for both pixels.
    image = ek.constant(np.int32([[[5, 2**31 - 100]]]))
    out = ek.image.adjust_brightness(image, 2.0)
    np.testing.assert_array_equal(out.numpy(), [[[2147483520, 2147483520]]])


# -- in_top_k -----------------------------------------------------------------------------------


def test_in_top_k_out_of_range_targets_are_false():
    preds = ek.constant([[0.1, 0.3, 0.3], [0.5, 0.2, 0.2], [0.1, 0.1, 0.1]])
    # TensorFlow 2.21: [False, True, True] and [False, True, False].
    np.testing.assert_array_equal(
        ek.math.in_top_k([3, 0, 0], preds, k=1).numpy(), [False, True, True]
    )
    np.testing.assert_array_equal(
        ek.nn.in_top_k(targets=[-1, 0, 5], predictions=preds, k=3).numpy(), [False, True, False]
    )
    empty_classes = ek.math.in_top_k([1], ek.zeros([1, 0]), k=3)
    np.testing.assert_array_equal(empty_classes.numpy(), [False])


# -- embedding_lookup(max_norm) with 1-D params -------------------------------------------------


def test_embedding_lookup_max_norm_clips_scalar_rows():
    # TensorFlow 2.21 clips each looked-up scalar by its absolute value.
    params = ek.constant([0.7, -2.5, 3.0])
    out = ek.nn.embedding_lookup(params, [1, 2, 0], max_norm=1.0)
    np.testing.assert_allclose(out.numpy(), [-1.0, 1.0, 0.7])
    x = ek.constant([-0.7, 2.5])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.nn.embedding_lookup(x, [0, 1], max_norm=1.0)
    np.testing.assert_allclose(y.numpy(), [-0.7, 1.0])
    # TensorFlow 2.21: [1.0, 2.9802322e-08] (the clipped entry's derivative is ~0).
    np.testing.assert_allclose(
        ek.convert_to_tensor(tape.gradient(y, x)).numpy(), [1.0, 0.0], atol=1e-6
    )


def test_embedding_lookup_max_norm_on_rows_is_unchanged():
    # TensorFlow 2.21: [[0.6, 0.8], [0.26962993, -0.96296406]].
    params = ek.constant([[0.7, -2.5], [3.0, 4.0]])
    out = ek.nn.embedding_lookup(params, [1, 0], max_norm=1.0)
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8], [0.26962993, -0.96296406]], rtol=1e-6)


# -- transposed convolutions with an empty batch ------------------------------------------------


@pytest.mark.parametrize("one_d", [True, False])
def test_conv_transpose_gradients_with_empty_batch_are_zeros(one_d):
    # TensorFlow 2.21 gives zero gradients of the input's and filters' shapes.
    if one_d:
        x, w = ek.zeros([0, 3, 1]), ek.ones([3, 3, 1])
        op = lambda: ek.nn.conv1d_transpose(x, w, [0, 5, 3], 1, "VALID")
    else:
        x, w = ek.zeros([0, 3, 2, 1]), ek.ones([3, 2, 3, 1])
        op = lambda: ek.nn.conv2d_transpose(x, w, [0, 5, 3, 3], 1, "VALID")
    with ek.GradientTape() as tape:
        tape.watch([x, w])
        y = op()
    gx, gw = tape.gradient(y, [x, w])
    assert y.shape[0] == 0
    assert gx.shape == x.shape and gw.shape == w.shape
    assert not np.any(gw.numpy())


# -- resize errors ------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area", "lanczos3"])
def test_resize_of_an_empty_image_is_invalid_argument(method):
    # TensorFlow 2.21: InvalidArgumentError "input image must be of non-zero size".
    with pytest.raises(IAE, match=r"resize: input image must be of non-zero size"):
        ek.image.resize(np.zeros((1, 0, 3, 1), np.uint8), [4, 4], method=method)
    with pytest.raises(IAE, match=r"resize: input image must be of non-zero size"):
        ek.image.resize(np.zeros((2, 0, 1), np.float32), [2, 3], method=method, antialias=True)


@pytest.mark.parametrize("method", ["bilinear", "area", "gaussian"])
def test_resize_to_a_zero_size_is_invalid_argument(method):
    # TensorFlow 2.21: InvalidArgumentError "output dimensions must be positive", also when
    # preserve_aspect_ratio rounds a side to 0 (2x6 into [5, 1] gives 0x1).
    with pytest.raises(IAE, match=r"resize: 'size' must be positive, got \[0, 4\]"):
        ek.image.resize(np.zeros((1, 2, 3, 1), np.float32), [0, 4], method=method)
    with pytest.raises(IAE, match=r"resize: 'size' must be positive, got \[0, 1\]"):
        ek.image.resize(
            np.zeros((1, 2, 6, 1), np.float32), [5, 1], method=method, preserve_aspect_ratio=True
        )
    # zero images in the batch are fine, as in TensorFlow
    assert ek.image.resize(np.zeros((0, 2, 3, 1), np.float32), [4, 4], method=method).shape == (
        0,
        4,
        4,
        1,
    )


# -- colour ops: a wrong channel count is TensorFlow's kernel error ------------------------------


@pytest.mark.parametrize(
    "op, arg",
    [
        (lambda x: ek.image.adjust_hue(x, 0.1), "image"),
        (lambda x: ek.image.adjust_saturation(x, 0.5), "image"),
        (ek.image.rgb_to_yuv, "images"),
        (ek.image.rgb_to_grayscale, "images"),
    ],
)
def test_colour_ops_reject_a_channel_count_other_than_three(op, arg):
    # TensorFlow 2.21 raises InvalidArgumentError ("input must have 3 channels ...").
    with pytest.raises(IAE, match=rf"'{arg}' must have 3 channels in its last dimension"):
        op(np.zeros((2, 2, 1), np.float32))


# -- integer max pooling beyond max_pool2d ------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.int64])
def test_integer_max_pool1d_and_max_pool_with_argmax(dtype):
    # TensorFlow 2.21 pools every integer dtype on the CPU (values from it).
    x = np.asarray([3, 1, 4, 1, 5, 9, 2, 6], dtype)
    out = ek.nn.max_pool1d(x.reshape(1, 4, 2), 2, 2, "VALID")
    assert out.dtype.name == np.dtype(dtype).name
    np.testing.assert_array_equal(out.numpy().ravel(), [4, 1, 5, 9])
    np.testing.assert_array_equal(
        ek.nn.max_pool(x.reshape(1, 4, 2), 3, 1, "SAME").numpy().ravel(), [4, 1, 5, 9, 5, 9, 5, 9]
    )
    values, argmax = ek.nn.max_pool_with_argmax(x.reshape(1, 2, 2, 2), 2, 1, "SAME")
    np.testing.assert_array_equal(values.numpy().ravel(), [5, 9, 4, 6, 5, 9, 2, 6])
    np.testing.assert_array_equal(argmax.numpy().ravel(), [4, 5, 2, 7, 4, 5, 6, 7])


# -- extract_patches: TensorFlow's negative output size -----------------------------------------


@pytest.mark.parametrize(
    "height, k, stride, rate, out_rows",
    # TensorFlow 2.21: an empty output while (height - effective_k + stride) / stride, truncated
    # toward zero, is 0; InvalidArgumentError once it is negative.
    [
        (2, 3, 1, 1, 0),
        (1, 3, 2, 1, 0),
        (1, 4, 2, 1, 0),
        (2, 2, 1, 2, 0),
        (0, 1, 1, 1, 0),
        (1, 3, 1, 1, None),
        (1, 5, 2, 1, None),
        (1, 2, 1, 2, None),
        (0, 2, 1, 1, None),
    ],
)
def test_extract_patches_valid_output_size(height, k, stride, rate, out_rows):
    x = ek.zeros([1, height, 4, 1])
    call = lambda: ek.image.extract_patches(
        x, [1, k, 1, 1], [1, stride, 1, 1], [1, rate, 1, 1], "VALID"
    )
    if out_rows is None:
        with pytest.raises(IAE, match=r"extract_patches: computed output size would be negative"):
            call()
    else:
        assert call().shape == (1, out_rows, 4, k)
