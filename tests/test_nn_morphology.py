"""ek.nn.dilation2d and ek.nn.erosion2d (TensorFlow 2's signatures): values, the gradients of
TensorFlow's Dilation2DBackpropInput / BackpropFilter (first maximum wins), finite
differences, edge values (NaN, -inf, integers), errors, and graph functions replaying them.
Expected literals were checked against TensorFlow 2.21."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

ONES = [1, 1, 1, 1]
LOWEST32 = float(np.finfo(np.float32).min)


def dilation(x, f, strides=ONES, padding="SAME", rates=ONES):
    return ek.nn.dilation2d(x, f, strides, padding, "NHWC", rates)


def erosion(x, f, strides=ONES, padding="SAME", rates=ONES):
    return ek.nn.erosion2d(x, f, strides, padding, "NHWC", rates)


def ramp():
    return ek.reshape(ek.range(16.0), [1, 4, 4, 1])


def half_steps():
    return ek.constant(np.arange(4.0).reshape(2, 2, 1) * 0.5, ek.float32)


def reference_dilation(x, f, strides, rates, padding):
    """Direct loops over the definition, padding with -inf (for the values only)."""
    n, h, w, c = x.shape
    kh, kw = f.shape[:2]
    (sh, sw), (rh, rw) = strides, rates
    eh, ew = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    if padding == "VALID":
        oh, ow, pt, pl = (h - eh) // sh + 1, (w - ew) // sw + 1, 0, 0
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        pt = max((oh - 1) * sh + eh - h, 0) // 2
        pl = max((ow - 1) * sw + ew - w, 0) // 2
    out = np.full((n, oh, ow, c), -np.inf)
    for i in range(oh):
        for j in range(ow):
            for dy in range(kh):
                for dx in range(kw):
                    r, q = i * sh + dy * rh - pt, j * sw + dx * rw - pl
                    if 0 <= r < h and 0 <= q < w:
                        out[:, i, j] = np.maximum(out[:, i, j], x[:, r, q] + f[dy, dx])
    return out


# -- values ----------------------------------------------------------------------------------


def test_the_briefs_examples_and_erosions_negative_zero():
    # checked against TF 2.21
    y = dilation(ramp(), ek.zeros([2, 2, 1]), padding="VALID")
    np.testing.assert_array_equal(y.numpy()[0, :, :, 0], [[5, 6, 7], [9, 10, 11], [13, 14, 15]])
    e = erosion(ramp(), ek.zeros([2, 2, 1]), padding="VALID").numpy()[0, :, :, 0]
    np.testing.assert_array_equal(e, [[0, 1, 2], [4, 5, 6], [8, 9, 10]])
    assert np.signbit(e[0, 0])  # -dilation2d(-value, ...) of 0 is -0.0, as in TensorFlow
    assert y.dtype == ek.float32 and y.shape == (1, 3, 3, 1)


def test_same_padding_strides_and_rates_match_tensorflow():
    # checked against TF 2.21
    np.testing.assert_array_equal(
        dilation(ramp(), half_steps()).numpy()[0, :, :, 0],
        [
            [6.5, 7.5, 8.5, 8],
            [10.5, 11.5, 12.5, 12],
            [14.5, 15.5, 16.5, 16],
            [13.5, 14.5, 15.5, 15],
        ],
    )
    np.testing.assert_array_equal(
        erosion(ramp(), half_steps()).numpy()[0, :, :, 0],
        [
            [-1.5, -0.5, 0.5, 1.5],
            [2.5, 3.5, 4.5, 5.5],
            [6.5, 7.5, 8.5, 9.5],
            [10.5, 11.5, 12.5, 13.5],
        ],
    )
    s2 = [1, 2, 2, 1]
    np.testing.assert_array_equal(
        dilation(ramp(), half_steps(), s2, "SAME", s2).numpy()[0, :, :, 0], [[11.5, 11], [10.5, 10]]
    )
    np.testing.assert_array_equal(
        erosion(ramp(), half_steps(), s2, "SAME", s2).numpy()[0, :, :, 0], [[-1.5, 0.5], [6.5, 8.5]]
    )


@pytest.mark.parametrize(
    "strides, rates, padding",
    [
        ((1, 1), (1, 1), "SAME"),
        ((2, 1), (1, 2), "SAME"),
        ((1, 3), (2, 1), "VALID"),
        ((2, 2), (1, 1), "VALID"),
    ],
)
def test_dilation_matches_the_definition_and_erosion_its_dual(strides, rates, padding):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 7, 6, 3))
    f = rng.normal(size=(3, 2, 3))
    st, rt = [1, *strides, 1], [1, *rates, 1]
    got = dilation(ek.constant(x), ek.constant(f), st, padding, rt).numpy()
    np.testing.assert_allclose(got, reference_dilation(x, f, strides, rates, padding), rtol=1e-12)
    dual = -reference_dilation(-x, f[::-1, ::-1], strides, rates, padding)
    got = erosion(ek.constant(x), ek.constant(f), st, padding, rt).numpy()
    np.testing.assert_allclose(got, dual, rtol=1e-12)


def test_integer_dtypes_wrap_and_keep_their_dtype():
    # checked against TF 2.21
    y = dilation(ek.cast(ramp(), ek.int32), ek.cast(half_steps(), ek.int32))
    assert y.dtype == ek.int32
    np.testing.assert_array_equal(
        y.numpy()[0, :, :, 0], [[6, 7, 8, 8], [10, 11, 12, 12], [14, 15, 16, 16], [13, 14, 15, 15]]
    )
    e = erosion(ek.cast(ramp(), ek.int8), ek.cast(half_steps(), ek.int8))
    np.testing.assert_array_equal(e.numpy()[0, 0, :, 0], [-1, 0, 1, 2])
    big = dilation(
        ek.constant([[[[127]]]], ek.int8), ek.constant([[[1]]], ek.int8), padding="VALID"
    )
    assert big.numpy().item() == -128  # wraps, as TensorFlow's kernel
    for dt in (ek.float16, ek.float64, ek.uint8, ek.int64):
        assert dilation(ek.cast(ramp(), dt), ek.cast(half_steps(), dt)).dtype == dt


def test_nan_is_skipped_and_empty_windows_give_the_lowest_value():
    # checked against TF 2.21: NaN never wins; all-NaN or all -inf windows give float32's min
    x = ek.constant([[[[np.nan], [1.0]], [[2.0], [np.nan]]]])
    np.testing.assert_array_equal(
        dilation(x, ek.zeros([2, 2, 1])).numpy()[0, :, :, 0], [[2, 1], [2, LOWEST32]]
    )
    minus_inf = ek.fill([1, 2, 2, 1], -np.inf)
    assert dilation(minus_inf, ek.zeros([2, 2, 1]), padding="VALID").numpy().item() == LOWEST32
    plus_inf = ek.fill([1, 2, 2, 1], np.inf)
    assert erosion(plus_inf, ek.zeros([2, 2, 1]), padding="VALID").numpy().item() == -LOWEST32


def test_output_sizes_follow_tensorflows_windowed_sizes():
    x = ek.zeros([1, 4, 4, 1])
    assert dilation(x, ek.zeros([5, 5, 1]), padding="VALID").shape == (1, 0, 0, 1)
    assert dilation(x, ek.zeros([2, 2, 1]), padding="VALID", rates=[1, 4, 4, 1]).shape == (
        1,
        0,
        0,
        1,
    )
    # (4 - 7 + 2) / 2 truncates to 0 in C++: an empty output, not an error
    assert dilation(x, ek.zeros([7, 1, 1]), [1, 2, 2, 1], "VALID").shape == (1, 0, 2, 1)
    assert dilation(ek.zeros([0, 4, 4, 1]), ek.zeros([2, 2, 1]), padding="VALID").shape == (
        0,
        3,
        3,
        1,
    )
    assert dilation(ek.zeros([1, 3, 3, 0]), ek.zeros([1, 1, 0])).shape == (1, 3, 3, 0)
    assert dilation(x, [[[0.0]]], (1, 1, 1, 1), b"SAME", [1, True, 1, 1]).shape == (1, 4, 4, 1)
    empty_filter = dilation(x, ek.zeros([0, 2, 1]))
    assert empty_filter.shape == (1, 4, 4, 1)
    assert np.all(empty_filter.numpy() == LOWEST32)


# -- gradients -------------------------------------------------------------------------------


def gradients(fn, x, f):
    x, f = ek.constant(x), ek.constant(f)
    with ek.GradientTape() as tape:
        tape.watch([x, f])
        y = fn(x, f)
        weights = np.arange(1, y.shape.num_elements() + 1, dtype=np.float32).reshape(y.shape)
        loss = ek.reduce_sum(y * weights)
    gx, gf = tape.gradient(loss, [x, f])
    return gx.numpy(), gf.numpy()


def test_ties_send_the_gradient_to_the_first_tap_as_tensorflow():
    # checked against TF 2.21: every window of ones ties; the first tap in row-major order wins
    x, f = np.ones((1, 3, 3, 1), np.float32), np.zeros((2, 2, 1), np.float32)
    gx, gf = gradients(dilation, x, f)
    np.testing.assert_array_equal(gx[0, :, :, 0], [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    np.testing.assert_array_equal(gf[:, :, 0], [[45, 0], [0, 0]])
    gx, gf = gradients(erosion, x, f)
    np.testing.assert_array_equal(gx[0, :, :, 0], [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    np.testing.assert_array_equal(gf[:, :, 0], [[0, 0], [0, -45]])


X_INT = [  # small integers: many ties
    [[4, 3], [2, 1], [1, 0], [0, 0], [0, 4]],
    [[3, 4], [2, 3], [4, 3], [3, 2], [2, 4]],
    [[1, 4], [3, 0], [1, 4], [2, 0], [3, 3]],
    [[4, 0], [0, 4], [0, 2], [0, 1], [2, 2]],
]
F_INT = [[[1, 0], [0, 0], [0, 2]], [[1, 1], [0, 1], [2, 1]]]


def test_strided_dilated_gradients_with_ties_match_tensorflow():
    # checked against TF 2.21 (strides [1, 2, 1, 1], dilations [1, 1, 2, 1], SAME)
    x = np.array([X_INT], np.float32)
    f = np.array(F_INT, np.float32)

    def dil(a, b):
        return dilation(a, b, [1, 2, 1, 1], "SAME", [1, 1, 2, 1])

    def ero(a, b):
        return erosion(a, b, [1, 2, 1, 1], "SAME", [1, 1, 2, 1])

    gx, gf = gradients(dil, x, f)
    np.testing.assert_array_equal(
        gx[0],
        [
            [[5, 0], [7, 0], [0, 0], [0, 0], [0, 6]],
            [[0, 2], [0, 12], [10, 0], [3, 0], [0, 10]],
            [[0, 0], [30, 0], [0, 32], [0, 0], [19, 16]],
            [[26, 0], [0, 32], [0, 0], [0, 0], [0, 0]],
        ],
    )
    np.testing.assert_array_equal(gf, [[[29, 20], [32, 0], [0, 34]], [[24, 26], [11, 30], [4, 0]]])
    gx, gf = gradients(ero, x, f)
    np.testing.assert_array_equal(
        gx[0],
        [
            [[0, 0], [7, 0], [10, 18], [3, 12], [5, 0]],
            [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]],
            [[15, 0], [0, 32], [19, 0], [0, 0], [0, 0]],
            [[0, 28], [17, 0], [11, 20], [13, 0], [0, 0]],
        ],
    )
    np.testing.assert_array_equal(
        gf, [[[-24, 0], [0, -12], [-17, -36]], [[-9, -6], [0, -28], [-50, -28]]]
    )


def test_windows_without_a_maximum_route_to_tensorflows_default_positions():
    # checked against TF 2.21: the window's first position inside the input, filter tap (0, 0)
    minus_inf = np.full((1, 3, 3, 1), -np.inf, np.float32)
    x, f = ek.constant(minus_inf), ek.zeros([2, 2, 1])
    weights = np.arange(1.0, 10.0).reshape(1, 3, 3, 1)
    with ek.GradientTape() as tape:
        tape.watch([x, f])
        y = dilation(x, f, rates=[1, 2, 2, 1])  # every output is float32's lowest value
        loss = ek.reduce_sum(ek.cast(y, ek.float64) * weights)  # float64: no overflow
    gx, gf = tape.gradient(loss, [x, f])
    np.testing.assert_array_equal(gx.numpy()[0, :, :, 0], [[12, 9, 0], [15, 9, 0], [0, 0, 0]])
    np.testing.assert_array_equal(gf.numpy()[:, :, 0], [[45, 0], [0, 0]])
    nan_x = ek.constant([[[[np.nan], [1.0]], [[2.0], [np.nan]]]])
    with ek.GradientTape() as tape:
        tape.watch([nan_x, f])
        y = ek.cast(dilation(nan_x, f), ek.float64)  # one output is float32's lowest value
        loss = ek.reduce_sum(y * np.arange(1.0, 5.0).reshape(1, 2, 2, 1))
    gx, gf = tape.gradient(loss, [nan_x, f])
    np.testing.assert_array_equal(gx.numpy()[0, :, :, 0], [[0, 2], [4, 4]])
    np.testing.assert_array_equal(gf.numpy()[:, :, 0], [[9, 0], [1, 0]])


@pytest.mark.parametrize("op", [dilation, erosion])
@pytest.mark.parametrize(
    "strides, rates, padding",
    [(ONES, ONES, "SAME"), ([1, 2, 1, 1], [1, 1, 2, 1], "SAME"), ([1, 1, 2, 1], ONES, "VALID")],
)
def test_gradients_match_finite_differences_to_second_order(op, strides, rates, padding):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 5, 5, 2))  # distinct values: no ties near the point
    f = rng.normal(size=(2, 3, 2))
    check_gradients(lambda a, b: op(a, b, strides, padding, rates), x, f, rtol=1e-6, atol=1e-8)
    check_gradients(
        lambda a, b: op(a, b, strides, padding, rates) ** 2, x, f, order=2, rtol=1e-5, atol=1e-7
    )


def test_integer_inputs_have_no_gradient():
    x = ek.ones([1, 2, 2, 1], ek.int32)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = dilation(x, ek.zeros([1, 1, 1], ek.int32))
    assert tape.gradient(y, x) is None


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op, name, arg", [(dilation, "dilation2d", "input"), (erosion, "erosion2d", "value")]
)
def test_errors_name_the_op_and_the_argument(op, name, arg):
    x, f = ek.zeros([1, 4, 4, 1]), ek.zeros([2, 2, 1])
    raw = ek.nn.dilation2d if name == "dilation2d" else ek.nn.erosion2d
    for fmt in ("NCHW", None, b"NHWC", "channels_last"):
        with pytest.raises(ValueError, match=rf"{name}: data_format values other than 'NHWC'"):
            raw(x, f, ONES, "SAME", fmt, ONES)
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=rf"{name}: {arg} must be 4-dimensional"
    ):
        op(x[0], f)
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=rf"{name}: filters must be 3-dimensional"
    ):
        op(x, f[..., 0])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"same depth: 1 vs 2"):
        op(x, ek.zeros([2, 2, 2]))
    with pytest.raises(TypeError, match=rf"{name}: strides must be a list of 4 ints"):
        op(x, f, strides=1)
    with pytest.raises(TypeError, match=rf"{name}: strides must be a list of 4 ints"):
        op(x, f, strides=np.array(ONES))
    with pytest.raises(TypeError, match=rf"{name}: dilations must be a list of 4 ints"):
        op(x, f, rates=[1, 1.5, 1, 1])
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}: strides must have 4"):
        op(x, f, strides=[1, 1, 1])
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}: dilations must have 4"):
        op(x, f, rates=[1, 1, 1, 1, 1])
    with pytest.raises(ek.errors.UnimplementedError, match=rf"{name}: strides \[2, 1, 1, 1\]"):
        op(x, f, strides=[2, 1, 1, 1])
    with pytest.raises(ek.errors.UnimplementedError, match=rf"{name}: dilations \[1, 1, 1, 2\]"):
        op(x, f, rates=[1, 1, 1, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}: strides must be > 0"):
        op(x, f, strides=[1, 0, 1, 1])
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}: dilations must be > 0"):
        op(x, f, rates=[1, -1, 1, 1])
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}: padding must be 'SAME'"):
        op(x, f, padding="same")
    with pytest.raises(TypeError, match=rf"{name}: padding must be the string"):
        op(x, f, padding=None)
    with pytest.raises(ek.errors.InvalidArgumentError, match="output size would be negative: -2"):
        op(x, ek.zeros([7, 1, 1]), padding="VALID")
    with pytest.raises(
        ek.errors.DTypeMismatchError, match=rf"{name}: .*{arg}: float32, filters: float64"
    ):
        op(x, ek.zeros([2, 2, 1], ek.float64))
    for dt in (ek.bool, ek.complex64):
        with pytest.raises(ek.errors.UnsupportedDTypeError, match=rf"{name}: {arg} must be"):
            op(ek.cast(x, dt), ek.cast(f, dt))
    with pytest.raises(ek.errors.UnsupportedDTypeError, match=rf"{name}: {arg} must be"):
        op(ek.constant([[[["a"]]]]), ek.constant([[["b"]]]))


def test_erosion_refuses_unsigned_integers_as_tensorflows_negation():
    x, f = ek.zeros([1, 2, 2, 1], ek.uint8), ek.zeros([1, 1, 1], ek.uint8)
    assert dilation(x, f).dtype == ek.uint8
    with pytest.raises(ek.errors.UnsupportedDTypeError, match="erosion2d: value must be a signed"):
        erosion(x, f)


# -- graph functions ---------------------------------------------------------------------------


def test_graph_functions_recompute_values_and_gradients_per_call():
    rng = np.random.default_rng(3)
    xs = [ek.constant(rng.normal(size=(1, 4, 5, 2)).astype(np.float32)) for _ in range(2)]
    f = ek.constant(rng.normal(size=(2, 2, 2)).astype(np.float32))

    def step(x, w):
        with ek.GradientTape() as tape:
            tape.watch([x, w])
            y = dilation(x, w, [1, 2, 1, 1])[:, :, :4] + erosion(x, w, padding="VALID")[:, :2]
            loss = ek.reduce_sum(y**2)
        return (y, *tape.gradient(loss, [x, w]))

    traced = ek.function(step)
    for x in (*xs, xs[0]):
        for got, want in zip(traced(x, f), step(x, f)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert not np.array_equal(traced(xs[0], f)[0].numpy(), traced(xs[1], f)[0].numpy())
