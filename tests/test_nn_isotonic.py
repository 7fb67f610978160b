"""ek.nn.isotonic_regression: TensorFlow's pool-adjacent-violators solutions and segments (bit
for bit), output dtypes, axes, the segment-mean gradient (finite differences, second order),
errors, and graph functions replaying it. Expected literals were checked against TensorFlow
2.21."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

iso = ek.nn.isotonic_regression

A = [  # float32 inputs of TF 2.21's bit-exact comparison below
    [
        -0.8019314408302307,
        -1.3243589401245117,
        -0.24836161732673645,
        0.4204452335834503,
        1.1360465288162231,
        0.10970640182495117,
        -0.5526472926139832,
        -0.7847803831100464,
        0.7487457990646362,
    ],
    [
        1.6347830295562744,
        0.2727687656879425,
        -1.2333287000656128,
        -0.9582651853561401,
        1.600019097328186,
        0.20288243889808655,
        -1.7321348190307617,
        -0.08369619399309158,
        -1.1632260084152222,
    ],
]


def brute_force(x: np.ndarray, decreasing: bool) -> np.ndarray:
    """The least-squares monotone fit by the closed form min-max formula (float64)."""
    n = len(x)
    y = np.empty(n)
    for i in range(n):
        if decreasing:  # y_i = min over j <= i of max over k >= i of mean(x[j..k])
            y[i] = min(max(x[j : k + 1].mean() for k in range(i, n)) for j in range(i + 1))
        else:
            y[i] = max(min(x[j : k + 1].mean() for k in range(i, n)) for j in range(i + 1))
    return y


def test_tensorflows_examples():
    # checked against TF 2.21 (its docstring's example)
    y, segments = iso(ek.constant([[3, 1, 2], [1, 3, 4]], ek.float32), axis=1)
    np.testing.assert_allclose(y.numpy(), [[3, 1.5, 1.5], [8 / 3, 8 / 3, 8 / 3]], rtol=1e-7)
    np.testing.assert_array_equal(segments.numpy(), [[0, 1, 1], [0, 0, 0]])
    assert y.dtype == ek.float32 and segments.dtype == ek.int32
    np.testing.assert_array_equal(iso([[3.0, 1.0, 2.0]])[0].numpy(), [[3.0, 1.5, 1.5]])
    y, segments = iso([[3.0, 1.0, 2.0]], decreasing=False)
    np.testing.assert_array_equal(y.numpy(), [[2, 2, 2]])
    np.testing.assert_array_equal(segments.numpy(), [[0, 0, 1]])  # equal pools stay apart


def test_segments_merge_only_on_a_strict_violation():
    # checked against TF 2.21
    y, s = iso([3.0, 1.0, 2.0, 5.0, 4.0])
    np.testing.assert_array_equal(y.numpy(), [3, 3, 3, 3, 3])
    np.testing.assert_array_equal(s.numpy(), [0, 1, 1, 1, 1])
    y, s = iso([[2.0, 2.0, 2.0, 1.0, 1.0]])
    np.testing.assert_array_equal(s.numpy(), [[0, 1, 2, 3, 4]])
    y, s = iso([[1.0, 5.0, 2.0, 8.0, 3.0, 3.0, 9.0, 0.0]], decreasing=False)
    np.testing.assert_allclose(y.numpy(), [[1, 3.5, 3.5, 4.6, 4.6, 4.6, 4.6, 4.6]], rtol=1e-7)
    np.testing.assert_array_equal(s.numpy(), [[0, 1, 1, 2, 2, 2, 2, 2]])
    y, s = iso([[1.0, np.nan, 2.0, 0.0]])  # NaN compares false: no merge around it
    np.testing.assert_array_equal(y.numpy(), [[1, np.nan, 2, 0]])
    np.testing.assert_array_equal(s.numpy(), [[0, 1, 2, 3]])
    y, s = iso([[1.0, np.inf, 2.0, 0.0]])
    np.testing.assert_array_equal(y.numpy(), [[np.inf, np.inf, 2, 0]])
    np.testing.assert_array_equal(s.numpy(), [[0, 0, 1, 2]])


def test_float32_solutions_are_tensorflows_bit_for_bit():
    # checked against TF 2.21: sums and means in float32, in the kernel's merge order
    x = np.array(A, np.float32)
    y, s = iso(x)
    want = [[-0.11807563155889511] * 6 + [-0.1962272971868515] * 3]
    want += [[1.6347830295562744, 0.2727687656879425] + [-0.09717308729887009] * 4]
    want[1] += [-0.9079155325889587] * 2 + [-1.1632260084152222]
    np.testing.assert_array_equal(y.numpy(), np.array(want, np.float32))
    np.testing.assert_array_equal(s.numpy(), [[0] * 6 + [1] * 3, [0, 1, 2, 2, 2, 2, 3, 3, 4]])
    y, s = iso(x, decreasing=False)
    want = [[-1.0631451606750488] * 2 + [-0.24836161732673645] + [0.06575410068035126] * 5]
    want[0] += [0.7487457990646362]
    want += [[-0.16224418580532074] * 9]
    np.testing.assert_array_equal(y.numpy(), np.array(want, np.float32))
    np.testing.assert_array_equal(s.numpy(), [[0, 0, 1, 2, 2, 2, 2, 2, 3], [0] * 9])


@pytest.mark.parametrize("decreasing", [True, False])
def test_solutions_are_the_least_squares_monotone_fits(decreasing):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(6, 11))
    y, s = iso(x, decreasing=decreasing)
    for row, got, seg in zip(x, y.numpy(), s.numpy()):
        np.testing.assert_allclose(got, brute_force(row, decreasing), rtol=1e-12, atol=1e-12)
        assert seg[0] == 0 and set(np.diff(seg)) <= {0, 1}
        for k in range(seg[-1] + 1):  # each segment holds its inputs' mean
            np.testing.assert_allclose(got[seg == k], row[seg == k].mean(), rtol=1e-12)


@pytest.mark.parametrize(
    "dtype, out",
    [
        ("float16", "float16"),
        ("float32", "float32"),
        ("float64", "float64"),
        ("int8", "float32"),
        ("int16", "float32"),
        ("int32", "float64"),
        ("int64", "float64"),
    ],
)
def test_output_dtypes_follow_tensorflow(dtype, out):
    y, s = iso(ek.constant([[1, 2, 3]], dtype))
    assert y.dtype.name == out and s.dtype == ek.int32
    np.testing.assert_array_equal(y.numpy(), [[2, 2, 2]])


def test_integer_and_half_arithmetic_match_tensorflow():
    # checked against TF 2.21; -(-128) wraps in int8 before the solve, as TensorFlow's Neg
    b = ek.constant([[-128, 5, 100, -3, 7, 7, 127]], ek.int8)
    y, s = iso(b, decreasing=False)
    np.testing.assert_array_equal(y.numpy(), np.array([[40.66666793823242] * 6 + [127]], "f4"))
    np.testing.assert_array_equal(s.numpy(), [[0] * 6 + [1]])
    y, _ = iso(b)
    np.testing.assert_array_equal(y.numpy(), np.full((1, 7), 16.428571701049805, "f4"))
    y, s = iso(ek.constant([[0.1, 0.7, 0.3, 0.2, 0.9]], ek.float16))
    np.testing.assert_array_equal(y.numpy(), np.full((1, 5), 0.43994140625, "f2"))
    y, _ = iso(ek.constant([[1, 3, 2]], ek.int32), decreasing=False)
    np.testing.assert_array_equal(y.numpy(), [[1, 2.5, 2.5]])


def test_axes_ranks_and_empty_inputs():
    # checked against TF 2.21
    x = ek.reshape(ek.constant([3.0, 1, 2, 1, 3, 4, 5, 4, 6, 2, 2, 7]), [2, 2, 3])
    y, s = iso(x, axis=1)
    np.testing.assert_array_equal(y.numpy(), [[[3, 2, 3], [1, 2, 3]], [[5, 4, 6.5], [2, 2, 6.5]]])
    np.testing.assert_array_equal(s.numpy(), [[[0, 0, 0], [1, 0, 0]], [[0, 0, 0], [1, 1, 0]]])
    np.testing.assert_array_equal(iso(x, axis=-2)[0].numpy(), y.numpy())
    y, s = iso(x, axis=0)
    np.testing.assert_array_equal(
        y.numpy(), [[[4, 2.5, 4], [1.5, 3, 5.5]], [[4, 2.5, 4], [1.5, 2, 5.5]]]
    )
    np.testing.assert_array_equal(s.numpy(), [[[0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0]]])
    for axis in (-1, 2):
        np.testing.assert_array_equal(iso(x, axis=axis)[1].numpy(), [[[0, 1, 1], [0, 0, 0]]] * 2)
    y, s = iso(3.0)  # a scalar: one problem of size 1
    assert y.shape == () and float(y) == 3.0 and int(s) == 0
    for shape in ([2, 0], [0, 3]):
        y, s = iso(ek.zeros(shape))
        assert y.shape == shape and s.shape == shape
    np.testing.assert_array_equal(iso([[1.0, 5.0]], decreasing="no")[0].numpy(), [[3, 3]])
    np.testing.assert_array_equal(iso([[1.0, 5.0]], decreasing=None)[0].numpy(), [[1, 5]])


# -- gradients -------------------------------------------------------------------------------


def test_gradient_is_the_segment_mean_of_the_output_gradient():
    # checked against TF 2.21
    x = ek.constant([[3.0, 1.0, 2.0, 4.0, 0.5]])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y, _ = iso(x)
        loss = ek.reduce_sum(y * [[1.0, 2.0, 3.0, 4.0, 5.0]])
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), [[1, 3, 3, 3, 5]])
    x = ek.constant([[0.5, 2.0, 1.0, 3.0], [4.0, 1.0, 2.0, 2.5]])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y, _ = iso(x, decreasing=False)
        loss = ek.reduce_sum(y * [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), [[1, 2.5, 2.5, 4], [6, 6, 6, 8]])
    x = ek.constant([[3.0, 1.0, 2.0, 4.0, 0.5], [1.0, 2.0, 3.0, 4.0, 5.0]])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y, _ = iso(x, axis=0)
        loss = ek.reduce_sum(y * ek.reshape(ek.range(10.0), [2, 5]))
    np.testing.assert_array_equal(
        tape.gradient(loss, x).numpy(), [[0, 3.5, 4.5, 3, 6.5], [5, 3.5, 4.5, 8, 6.5]]
    )


def test_second_order_gradient_matches_tensorflow():
    # checked against TF 2.21: d/dx of the gradient of sum(y ** 2) is the segment-mean of 2
    x = ek.constant([[3.0, 1.0, 2.0]])
    with ek.GradientTape() as outer:
        outer.watch(x)
        with ek.GradientTape() as inner:
            inner.watch(x)
            loss = ek.reduce_sum(iso(x)[0] ** 2)
        g = inner.gradient(loss, x)
    np.testing.assert_array_equal(outer.gradient(g, x).numpy(), [[2, 2, 2]])


@pytest.mark.parametrize("decreasing, axis", list(itertools.product([True, False], [0, 1, -1])))
def test_gradients_match_finite_differences(decreasing, axis):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(4, 5, 3))  # generic values: the segments hold near the point
    check_gradients(lambda t: iso(t, decreasing, axis)[0], x, rtol=1e-6, atol=1e-8)
    check_gradients(lambda t: iso(t, decreasing, axis)[0] ** 3, x, order=2, rtol=1e-5, atol=1e-7)


def test_integer_inputs_have_no_gradient():
    x = ek.constant([[3, 1, 2]])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y, _ = iso(x)
    assert tape.gradient(y, x) is None


# -- errors and graph functions --------------------------------------------------------------


def test_errors():
    x = ek.zeros([2, 2, 3])
    for axis in (3, -4):
        with pytest.raises(
            ek.errors.InvalidArgumentError,
            match=rf"isotonic_regression: axis must be in the range \[-3, 3\).*axis={axis}",
        ):
            iso(x, axis=axis)
    with pytest.raises(TypeError, match="isotonic_regression: axis must be an int"):
        iso(x, axis="last")
    with pytest.raises(TypeError, match="isotonic_regression: axis must be an int"):
        iso(x, axis=1.5)
    for dtype in (ek.uint8, ek.uint16, ek.bool, ek.complex64):
        with pytest.raises(ek.errors.UnsupportedDTypeError, match=r"isotonic_regression: inputs"):
            iso(ek.zeros([1, 3], dtype))
    with pytest.raises(ek.errors.UnsupportedDTypeError, match=r"isotonic_regression: inputs"):
        iso(ek.constant([["a", "b"]]))


def test_graph_functions_recompute_segments_per_call():
    def step(x):
        with ek.GradientTape() as tape:
            tape.watch(x)
            y, s = iso(x, decreasing=False, axis=0)
            loss = ek.reduce_sum(y * ek.reshape(ek.range(6.0), [3, 2]))
        return y, s, tape.gradient(loss, x)

    traced = ek.function(step)
    first = ek.constant([[3.0, 1.0], [1.0, 2.0], [2.0, 3.0]])
    second = ek.constant([[1.0, 3.0], [2.0, 1.0], [3.0, 2.0]])
    for x in (first, second, first):
        for got, want in zip(traced(x), step(x)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert not np.array_equal(traced(first)[1].numpy(), traced(second)[1].numpy())
