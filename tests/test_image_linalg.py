"""`ek.linalg.solve` (values, TensorFlow's gradient against finite differences, errors) and the
`ek.image` basics against TensorFlow's documented examples and closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.ops import image as image_ops
from eagerkernel.testing import check_gradients

RNG = np.random.default_rng(0)
A = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
B = RNG.normal(size=(3, 2))


# -- linalg.solve -------------------------------------------------------------------------------
def test_solve_values_match_the_inverse():
    x = ek.linalg.solve(A, B)
    np.testing.assert_allclose(x.numpy(), np.linalg.inv(A) @ B, rtol=1e-10)
    xt = ek.linalg.solve(A, B, adjoint=True)
    np.testing.assert_allclose(xt.numpy(), np.linalg.inv(A.T) @ B, rtol=1e-10)
    batch = np.stack([A, A.T + np.eye(3)])
    rhs = np.stack([B, 2 * B])
    out = ek.linalg.solve(ek.constant(batch, ek.float32), ek.constant(rhs, ek.float32))
    assert out.dtype == ek.float32 and out.shape == (2, 3, 2)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(batch, rhs), rtol=1e-4)
    half = ek.linalg.solve(ek.constant(A, ek.float16), ek.constant(B, ek.float16))
    assert half.dtype == ek.float16
    np.testing.assert_allclose(half.numpy(), np.linalg.solve(A, B), rtol=2e-2, atol=2e-3)


@pytest.mark.parametrize("adjoint", [False, True])
def test_solve_gradient_matches_finite_differences(adjoint):
    check_gradients(lambda a, b: ek.linalg.solve(a, b, adjoint=adjoint), A, B, order=2)
    batch = np.stack([A, A + np.eye(3)])
    check_gradients(lambda a, b: ek.linalg.solve(a, b, adjoint=adjoint), batch, np.stack([B, B]))


def test_solve_errors():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"Input matrix is not invertible"):
        ek.linalg.solve([[1.0, 2.0], [2.0, 4.0]], [[1.0], [1.0]])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"solve: matrix must be square"):
        ek.linalg.solve(np.ones((2, 3)), np.ones((2, 1)))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"solve: rhs must have shape"):
        ek.linalg.solve(np.eye(3), np.ones((2, 1)))
    with pytest.raises(TypeError, match=r"solve: matrix must be a floating point tensor"):
        ek.linalg.solve([[1, 0], [0, 1]], [[1], [1]])


# -- image --------------------------------------------------------------------------------------
IDENTITY_5 = ek.eye(5, dtype=ek.int32)[ek.newaxis, ..., ek.newaxis]


def test_resize_bilinear_matches_tensorflows_documented_example():
    out = ek.image.resize(IDENTITY_5, [3, 5])
    assert out.dtype == ek.float32 and out.shape == (1, 3, 5, 1)
    np.testing.assert_allclose(
        out[0, ..., 0].numpy(),
        [
            [0.6666667, 0.3333333, 0.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.3333335, 0.6666665],
        ],
        atol=1e-6,
    )
    assert ek.image.resize(IDENTITY_5[0], [3, 5]).shape.as_list() == [3, 5, 1]
    # antialias has no effect when upsampling (TF's example)
    a = ek.image.resize(IDENTITY_5, [5, 10])
    b = ek.image.resize(IDENTITY_5, [5, 10], antialias=True)
    assert float(ek.reduce_max(abs(a - b))) == 0.0
    big = ek.image.resize(IDENTITY_5, [10, 20], preserve_aspect_ratio=True)
    assert big.shape.as_list() == [1, 10, 10, 1]


def test_resize_nearest_matches_tensorflows_documented_example():
    nn = ek.image.resize(IDENTITY_5, [5, 7], method="nearest")
    assert nn.dtype == ek.int32
    np.testing.assert_array_equal(
        nn[0, ..., 0].numpy(),
        [
            [1, 0, 0, 0, 0, 0, 0],
            [0, 1, 1, 0, 0, 0, 0],
            [0, 0, 0, 1, 0, 0, 0],
            [0, 0, 0, 0, 1, 1, 0],
            [0, 0, 0, 0, 0, 0, 1],
        ],
    )
    same = ek.image.resize(IDENTITY_5, [5, 5], method=ek.image.ResizeMethod.NEAREST_NEIGHBOR)
    np.testing.assert_array_equal(same.numpy(), IDENTITY_5.numpy())


def test_resize_bilinear_half_pixel_closed_form():
    # a ramp along the width: output column j samples x = (j + 0.5) * in/out - 0.5, clamped
    ramp = np.tile(np.arange(4.0, dtype=np.float32), (2, 1))[..., None]  # [2, 4, 1]
    out = ek.image.resize(ramp, [2, 8]).numpy()[0, :, 0]
    want = np.clip((np.arange(8) + 0.5) * 0.5 - 0.5, 0, 3)
    np.testing.assert_allclose(out, want, atol=1e-6)
    down = ek.image.resize(ramp, [2, 2]).numpy()[0, :, 0]  # samples 0.5 and 2.5
    np.testing.assert_allclose(down, [0.5, 2.5], atol=1e-6)


def test_resize_gradient_matches_finite_differences():
    x = RNG.normal(size=(1, 3, 4, 2))
    check_gradients(lambda t: image_ops._bilinear_axis(t, 1, 5), x)
    check_gradients(lambda t: image_ops._bilinear_axis(t, 2, 3), x)
    img = ek.Variable(np.ones((4, 4, 1), np.float32))
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.image.resize(img, [2, 2]))
    # downsampling 4 -> 2 samples rows 0.5 and 2.5: each input row gets weight 1/2
    np.testing.assert_allclose(tape.gradient(y, img).numpy()[..., 0], np.ones((4, 4)) / 4)


def test_resize_errors():
    with pytest.raises(ValueError, match=r"'images' must have 3 or 4 dimensions"):
        ek.image.resize(np.ones((4, 4)), [2, 2])
    with pytest.raises(ValueError, match=r"'size' must be a 1-D int32 Tensor of 2 elements"):
        ek.image.resize(np.ones((4, 4, 1)), [2])
    with pytest.raises(ValueError, match=r"Resize method is not implemented: cubic"):
        ek.image.resize(np.ones((4, 4, 1)), [2, 2], method="cubic")
    with pytest.raises(ValueError, match=r"'size' must be positive"):
        ek.image.resize(np.ones((4, 4, 1)), [0, 2], method="bicubic")


def test_flips():
    x = np.arange(12.0, dtype=np.float32).reshape(2, 3, 2)
    np.testing.assert_array_equal(ek.image.flip_left_right(x).numpy(), x[:, ::-1])
    np.testing.assert_array_equal(ek.image.flip_up_down(x).numpy(), x[::-1])
    batch = np.stack([x, x + 1])
    np.testing.assert_array_equal(ek.image.flip_left_right(batch).numpy(), batch[:, :, ::-1])
    np.testing.assert_array_equal(ek.image.flip_up_down(batch).numpy(), batch[:, ::-1])
    with pytest.raises(ValueError, match=r"flip_left_right: 'image' must have 3 or 4"):
        ek.image.flip_left_right(np.ones((2, 2)))


def test_random_flip_left_right_flips_about_half_of_a_batch():
    ek.random.set_seed(1)
    x = np.arange(6.0, dtype=np.float32).reshape(1, 3, 2)
    batch = np.repeat(x[None], 200, axis=0)
    out = ek.image.random_flip_left_right(batch).numpy()
    flipped = np.array([np.array_equal(o, x[:, ::-1]) for o in out])
    kept = np.array([np.array_equal(o, x) for o in out])
    assert np.all(flipped | kept) and 70 < flipped.sum() < 130
    single = ek.image.random_flip_left_right(x).numpy()
    assert np.array_equal(single, x) or np.array_equal(single, x[:, ::-1])


def test_convert_image_dtype_follows_tensorflows_scaling():
    u8 = ek.constant([[[0, 128, 255]]], ek.uint8)
    f = ek.image.convert_image_dtype(u8, ek.float32)
    np.testing.assert_allclose(f.numpy().ravel(), [0.0, 128 / 255, 1.0], rtol=1e-6)
    back = ek.image.convert_image_dtype(f, ek.uint8)
    np.testing.assert_array_equal(back.numpy().ravel(), [0, 128, 255])  # x * 255.5, truncated
    over = ek.image.convert_image_dtype(ek.constant([1.5, -0.2]), ek.uint8, saturate=True)
    np.testing.assert_array_equal(over.numpy(), [255, 0])
    i16 = ek.image.convert_image_dtype(u8, ek.int16)
    np.testing.assert_array_equal(i16.numpy().ravel(), [0, 128 * 128, 255 * 128])
    np.testing.assert_array_equal(
        ek.image.convert_image_dtype(i16, ek.uint8).numpy().ravel(), [0, 128, 255]
    )
    assert ek.image.convert_image_dtype(f, ek.float32) is f
    assert ek.image.convert_image_dtype(f, ek.float64).dtype == ek.float64
    with pytest.raises(TypeError, match=r"convert_image_dtype: both dtypes"):
        ek.image.convert_image_dtype(f, ek.bool)


def test_adjust_contrast_closed_form_and_uint8_round_trip():
    x = RNG.uniform(size=(2, 4, 4, 3)).astype(np.float32)
    mean = x.mean(axis=(1, 2), keepdims=True)
    out = ek.image.adjust_contrast(x, 2.0)
    np.testing.assert_allclose(out.numpy(), (x - mean) * 2.0 + mean, rtol=1e-5, atol=1e-6)
    u8 = ek.constant([[[10], [250]]], ek.uint8)
    got = ek.image.adjust_contrast(u8, 2.0)
    assert got.dtype == ek.uint8
    np.testing.assert_array_equal(got.numpy().ravel(), [0, 255])  # saturated, not wrapped
    with pytest.raises(ValueError, match=r"adjust_contrast: 'images' must be at least 3-D"):
        ek.image.adjust_contrast(np.ones((2, 2)), 2.0)
    with pytest.raises(ValueError, match=r"'contrast_factor' must be a scalar"):
        ek.image.adjust_contrast(x, [2.0, 3.0])


def test_adjust_contrast_has_no_gradient_as_in_tensorflow():
    # the autodiff guide's example: TensorFlow registers no gradient for AdjustContrastv2
    image = ek.Variable([[[0.5, 0.0, 0.0]]])
    delta = ek.Variable(0.1)
    with ek.GradientTape() as tape:
        new_image = ek.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError, match=r"AdjustContrastv2"):
        tape.gradient(new_image, [image, delta])


def test_rgb_to_grayscale():
    rgb = RNG.uniform(size=(2, 3, 3)).astype(np.float32)
    gray = ek.image.rgb_to_grayscale(rgb)
    assert gray.shape == (2, 3, 1)
    np.testing.assert_allclose(
        gray.numpy()[..., 0], rgb @ np.float32([0.2989, 0.5870, 0.1140]), rtol=1e-6
    )
    u8 = ek.image.rgb_to_grayscale(ek.constant([[[255, 255, 255]]], ek.uint8))
    assert u8.dtype == ek.uint8 and int(u8.numpy().ravel()[0]) == 255  # 0.9999 * 255.5, truncated
    with pytest.raises(ValueError, match=r"rgb_to_grayscale: 'images' must have 3 channels"):
        ek.image.rgb_to_grayscale(np.ones((2, 2, 4)))


# -- io -----------------------------------------------------------------------------------------
def test_decode_raw_follows_the_tensor_guide_and_byte_order():
    # the tensor guide: the bytes of "Duck"
    np.testing.assert_array_equal(
        ek.io.decode_raw(ek.constant("Duck"), ek.uint8).numpy(), [68, 117, 99, 107]
    )
    two = ek.io.decode_raw([b"\x01\x00\x00\x00", b"\x00\x00\x00\x02"], ek.int32)
    assert two.shape == (2, 1) and two.numpy().ravel().tolist() == [1, 2 << 24]
    big = ek.io.decode_raw(b"\x00\x00\x00\x02", ek.int32, little_endian=False)
    assert big.numpy().tolist() == [2]
    f = ek.io.decode_raw(np.float32([1.5, -2.0]).tobytes(), ek.float32)
    np.testing.assert_array_equal(f.numpy(), [1.5, -2.0])
    padded = ek.io.decode_raw([b"ab", b"abcd"], ek.uint8, fixed_length=3)
    np.testing.assert_array_equal(padded.numpy(), [[97, 98, 0], [97, 98, 99]])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"all be the same size"):
        ek.io.decode_raw([b"ab", b"abc"], ek.uint8)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"not a multiple of 4"):
        ek.io.decode_raw(b"abc", ek.int32)
    with pytest.raises(TypeError, match=r"decode_raw: input_bytes must be a string tensor"):
        ek.io.decode_raw([1, 2], ek.uint8)


def test_read_and_write_file(tmp_path):
    path = tmp_path / "blob.bin"
    ek.io.write_file(str(path), ek.constant(b"\x00abc"))
    assert path.read_bytes() == b"\x00abc"
    assert ek.io.read_file(str(path)).numpy() == b"\x00abc"
    assert ek.io.read_file(ek.constant(str(path))).numpy() == b"\x00abc"
    with pytest.raises(ek.errors.NotFoundError, match=r"No such file"):
        ek.io.read_file(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match=r"write_file: contents must be a scalar"):
        ek.io.write_file(str(path), ek.constant([b"a", b"b"]))
    assert path.read_bytes() == b"\x00abc"  # a failed write leaves the old file
