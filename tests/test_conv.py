"""conv2d, max_pool2d, avg_pool2d: values against direct loops and PyTorch, gradients against
finite differences (to second order), TensorFlow's padding rules, and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - torch is an optional oracle
    torch = None

rng = np.random.default_rng(0)


# -- direct references (loops over output pixels; slow but obviously right) --------------------


def same_pads(n, k, s, d=1):
    out = math.ceil(n / s)
    total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
    return total // 2, total - total // 2


def ref_pads(padding, x_shape, ksize, strides, dilations=(1, 1)):
    if padding == "VALID":
        return (0, 0), (0, 0)
    if padding == "SAME":
        return tuple(
            same_pads(n, k, s, d) for n, k, s, d in zip(x_shape[1:3], ksize, strides, dilations)
        )
    return tuple(padding[1]), tuple(padding[2])


def ref_conv(x, w, strides, padding, dilations=(1, 1)):
    (pt, pb), (pl, pr) = ref_pads(padding, x.shape, w.shape[:2], strides, dilations)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    kh, kw, _, cout = w.shape
    (sh, sw), (dh, dw) = strides, dilations
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((x.shape[0], oh, ow, cout))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    out[:, i, j] += xp[:, i * sh + a * dh, j * sw + b * dw] @ w[a, b]
    return out


def ref_pool(x, ksize, strides, padding, kind):
    (pt, pb), (pl, pr) = ref_pads(padding, x.shape, ksize, strides)
    n, h, w, c = x.shape
    oh = (h + pt + pb - ksize[0]) // strides[0] + 1
    ow = (w + pl + pr - ksize[1]) // strides[1] + 1
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * strides[0] - pt, j * strides[1] - pl
            win = x[:, max(r0, 0) : r0 + ksize[0], max(c0, 0) : c0 + ksize[1]]
            out[:, i, j] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


CONV_CASES = [
    # (input shape, kernel, strides, padding, dilations)
    ((2, 7, 7, 3), (3, 3), (1, 1), "SAME", (1, 1)),
    ((2, 7, 8, 3), (3, 3), (2, 2), "SAME", (1, 1)),
    ((1, 8, 8, 2), (2, 2), (2, 2), "SAME", (1, 1)),
    ((1, 6, 9, 2), (4, 3), (3, 2), "SAME", (1, 1)),
    ((2, 9, 7, 3), (3, 3), (2, 1), "VALID", (1, 1)),
    ((1, 5, 5, 2), (5, 5), (3, 3), "VALID", (1, 1)),
    ((1, 9, 9, 2), (3, 3), (1, 1), "SAME", (2, 2)),
    ((1, 10, 8, 2), (3, 2), (1, 1), "VALID", (2, 3)),
    ((1, 6, 6, 1), (3, 3), (2, 2), [[0, 0], [1, 2], [0, 1], [0, 0]], (1, 1)),
    ((3, 6, 6, 1), (5, 5), (1, 1), "SAME", (1, 1)),  # one channel: the grayscale im2col path
]


@pytest.mark.parametrize(("shape", "ksize", "strides", "padding", "dilations"), CONV_CASES)
def test_conv2d_matches_direct_loop(shape, ksize, strides, padding, dilations):
    x = rng.standard_normal(shape)
    w = rng.standard_normal((*ksize, shape[3], 4))
    y = ek.nn.conv2d(x, w, strides, padding, dilations=dilations)
    np.testing.assert_allclose(y.numpy(), ref_conv(x, w, strides, padding, dilations), atol=1e-10)
    assert y.dtype == ek.float64


def test_conv2d_float32_output_shapes_and_argument_forms():
    x = ek.ones((2, 28, 28, 1))
    w = ek.ones((5, 5, 1, 32))
    assert ek.nn.conv2d(x, w, 1, "SAME").shape == (2, 28, 28, 32)
    assert ek.nn.conv2d(x, w, [1, 2, 2, 1], "SAME").shape == (2, 14, 14, 32)
    assert ek.nn.conv2d(x, w, [3], "VALID").shape == (2, 8, 8, 32)
    assert ek.nn.conv2d(x, w, (2, 1), "same", dilations=[1, 1, 1, 1]).shape == (2, 14, 28, 32)
    assert ek.nn.conv2d(x, w, 1, "SAME").dtype == ek.float32


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
@pytest.mark.parametrize(("shape", "ksize", "strides", "padding", "dilations"), CONV_CASES[:8])
def test_conv2d_and_its_gradients_match_torch(shape, ksize, strides, padding, dilations):
    x = rng.standard_normal(shape)
    w = rng.standard_normal((*ksize, shape[3], 4))
    (pt, pb), (pl, pr) = ref_pads(padding, shape, ksize, strides, dilations)
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    yt = F.conv2d(
        F.pad(xt.permute(0, 3, 1, 2), (pl, pr, pt, pb)),
        wt.permute(3, 2, 0, 1),
        stride=strides,
        dilation=dilations,
    ).permute(0, 2, 3, 1)
    (yt**2).sum().backward()

    xe, we = ek.constant(x), ek.Variable(w)
    with ek.GradientTape() as tape:
        tape.watch(xe)
        y = ek.nn.conv2d(xe, we, strides, padding, dilations=dilations)
        loss = ek.reduce_sum(y * y)
    gx, gw = tape.gradient(loss, [xe, we])
    np.testing.assert_allclose(y.numpy(), yt.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(gx.numpy(), xt.grad.numpy(), atol=1e-9)
    np.testing.assert_allclose(gw.numpy(), wt.grad.numpy(), atol=1e-9)


@pytest.mark.parametrize(
    ("shape", "ksize", "strides", "padding", "dilations"),
    [
        ((1, 4, 4, 2), (3, 3), (1, 1), "SAME", (1, 1)),
        ((1, 5, 4, 1), (2, 2), (2, 2), "SAME", (1, 1)),
        ((2, 5, 5, 2), (3, 2), (2, 1), "VALID", (1, 1)),
        ((1, 5, 5, 1), (2, 2), (1, 1), "VALID", (2, 2)),
    ],
)
def test_conv2d_gradients_to_second_order(shape, ksize, strides, padding, dilations):
    x = rng.standard_normal(shape)
    w = rng.standard_normal((*ksize, shape[3], 2))
    check_gradients(
        lambda a, b: ek.nn.conv2d(a, b, strides, padding, dilations=dilations), x, w, order=2
    )


def test_conv2d_third_derivative_through_the_backprop_ops():
    # (conv(x, w)**2) has a nonzero third derivative only through products of the two
    # backprop ops with each other and conv: all three ops' VJPs are exercised.
    x = rng.standard_normal((1, 3, 3, 1))
    w = rng.standard_normal((2, 2, 1, 1))
    check_gradients(lambda a, b: ek.nn.conv2d(a, b, 1, "SAME") ** 2, x, w, order=3, atol=1e-5)


# Fewer output than input channels at stride 1 take other kernels (conv.py): the forward as
# one GEMM over the channels then a sum of shifted planes (cout * 4 <= cin), the input gradient
# as the "full" convolution of g, the filter gradient from g's columns; 1x1 without padding
# (to any number of channels) uses the pixels as they are.
FEW_OUTPUT_CASES = [
    # (input shape, kernel, padding, dilations, cout)
    ((2, 7, 6, 8), (3, 3), "SAME", (1, 1), 1),
    ((2, 7, 6, 8), (3, 3), "SAME", (1, 1), 3),
    ((1, 9, 8, 8), (3, 2), "VALID", (2, 1), 2),
    ((2, 6, 7, 6), (2, 3), [[0, 0], [2, 0], [1, 1], [0, 0]], (1, 1), 1),
    ((2, 5, 5, 6), (1, 1), "VALID", (1, 1), 2),
    ((2, 5, 5, 6), (1, 1), [[0, 0], [1, 0], [0, 1], [0, 0]], (1, 1), 4),
    ((1, 6, 6, 8), (5, 5), "SAME", (1, 1), 2),
    ((2, 5, 5, 3), (1, 1), "VALID", (1, 1), 5),  # 1x1 to more channels: the pixels' GEMMs
]


@pytest.mark.parametrize(("shape", "ksize", "padding", "dilations", "cout"), FEW_OUTPUT_CASES)
def test_convolutions_to_fewer_channels_match_direct_loops(shape, ksize, padding, dilations, cout):
    x = rng.standard_normal(shape)
    w = rng.standard_normal((*ksize, shape[3], cout))
    xe, we = ek.constant(x), ek.Variable(w)
    with ek.GradientTape() as tape:
        tape.watch(xe)
        y = ek.nn.conv2d(xe, we, 1, padding, dilations=dilations)
    np.testing.assert_allclose(y.numpy(), ref_conv(x, w, (1, 1), padding, dilations), atol=1e-10)
    # The gradients against the adjoint identities of the linear map (x, w) -> y.
    g = rng.standard_normal(y.shape)
    gx, gw = tape.gradient(y, [xe, we], output_gradients=ek.constant(g))
    h = rng.standard_normal(w.shape)
    np.testing.assert_allclose((x * gx.numpy()).sum(), (y.numpy() * g).sum(), rtol=1e-10)
    expected = (ref_conv(x, h, (1, 1), padding, dilations) * g).sum()
    np.testing.assert_allclose((h * gw.numpy()).sum(), expected, rtol=1e-10)


@pytest.mark.parametrize(("shape", "ksize", "padding", "dilations", "cout"), FEW_OUTPUT_CASES[:4])
def test_convolutions_to_fewer_channels_to_second_order(shape, ksize, padding, dilations, cout):
    x = rng.standard_normal((1, *shape[1:3], shape[3]))
    w = rng.standard_normal((*ksize, shape[3], cout))
    check_gradients(
        lambda a, b: ek.nn.conv2d(a, b, 1, padding, dilations=dilations) ** 2, x, w, order=2
    )


def _windows_and_ones(x):
    """The 3x3 SAME windows of ``x`` as (N, H, W, 27) and ones of the output's shape."""
    n, h, w, _ = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = np.stack(
        [padded[:, i : i + h, j : j + w, :] for i in range(3) for j in range(3)], axis=3
    ).reshape(n, h, w, 27)
    return windows, np.ones((n, h, w, 2))


def test_saved_im2col_columns_travel_on_the_record_to_the_filter_gradient():
    from eagerkernel.runtime.core.profiling_tape import ProfilingTape

    x = rng.standard_normal((2, 6, 6, 3))
    w1 = rng.standard_normal((3, 3, 3, 2))
    w2 = rng.standard_normal((3, 3, 3, 2))
    # Two convolutions of the same input, with different windows: each filter gradient must
    # get its own columns (or recompute them), never the other one's.
    check_gradients(
        lambda a, b, c: ek.nn.conv2d(a, b, 1, "SAME") ** 2 + ek.nn.conv2d(a, c, 1, "SAME"),
        x,
        w1,
        w2,
    )
    check_gradients(
        lambda a, b, c: (
            ek.reduce_sum(ek.nn.conv2d(a, b, 1, "SAME"))
            + ek.reduce_sum(ek.nn.conv2d(a, c, 2, "VALID"))
        ),
        x,
        w1,
        w2,
    )
    # The forward's im2col columns travel on the tape's record to the filter gradient.
    xe, we = ek.constant(x), ek.Variable(w1)
    with ek.GradientTape() as tape:
        y = ek.nn.conv2d(xe, we, 1, "SAME")
    (record,) = tape.records
    assert record.prim.name == "Conv2D"
    assert record.saved.shape == (2 * 6 * 6, 3 * 3 * 3)
    with ProfilingTape() as outer:  # sees the ops the backward pass runs
        gw = tape.gradient(y, we)
    (backprop_filter,) = [r for r in outer.records if r.prim.name == "Conv2DBackpropFilter"]
    assert backprop_filter.params["cols"] is record.saved
    expected = np.einsum("nhwc,nhwo->co", *_windows_and_ones(x))  # sum of each window
    np.testing.assert_allclose(gw.numpy().reshape(27, 2), expected, rtol=1e-6)
    # A profiling tape (never differentiated, as under %%tape) keeps no columns.
    with ProfilingTape() as profiled:
        ek.nn.conv2d(xe, we, 1, "SAME")
    assert profiled.records[0].saved is None


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize(
    ("shape", "ksize", "strides", "padding"),
    [
        ((2, 6, 6, 3), (2, 2), (2, 2), "VALID"),
        ((1, 7, 5, 2), (2, 2), (2, 2), "SAME"),
        ((1, 7, 7, 2), (3, 3), (2, 2), "SAME"),
        ((1, 6, 7, 2), (3, 2), (1, 2), "VALID"),
        ((1, 5, 5, 1), (3, 3), (1, 1), "SAME"),
        ((1, 4, 4, 1), (4, 4), (3, 3), "SAME"),
    ],
)
def test_pools_match_direct_loop(kind, shape, ksize, strides, padding):
    x = rng.standard_normal(shape)
    op = ek.nn.max_pool2d if kind == "max" else ek.nn.avg_pool2d
    y = op(x, ksize, strides, padding)
    np.testing.assert_allclose(y.numpy(), ref_pool(x, ksize, strides, padding, kind), atol=1e-12)


def test_avg_pool_same_divides_by_real_elements_at_the_edges():
    # All ones: every window's mean is 1 only if padded zeros are left out of the count.
    y = ek.nn.avg_pool2d(ek.ones((1, 5, 5, 1)), 3, 2, "SAME")
    np.testing.assert_array_equal(y.numpy(), np.ones((1, 3, 3, 1), np.float32))
    x = np.arange(9.0).reshape(1, 3, 3, 1)
    y = ek.nn.avg_pool2d(x, 2, 2, "SAME").numpy()[0, :, :, 0]
    np.testing.assert_allclose(y, [[2.0, 3.5], [6.5, 8.0]])  # 4, 2, 2 and 1 real elements


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_max_pool_matches_torch_with_same_padding():
    x = rng.standard_normal((2, 9, 8, 3)).astype(np.float32)
    (pt, pb), (pl, pr) = ref_pads("SAME", x.shape, (3, 3), (2, 2))
    xt = F.pad(torch.tensor(x).permute(0, 3, 1, 2), (pl, pr, pt, pb), value=-math.inf)
    yt = F.max_pool2d(xt, 3, 2).permute(0, 2, 3, 1).numpy()
    np.testing.assert_array_equal(ek.nn.max_pool2d(x, 3, 2, "SAME").numpy(), yt)


@pytest.mark.parametrize(
    ("ksize", "strides", "padding"),
    [((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"), ((2, 3), (1, 1), "SAME")],
)
def test_pool_gradients(ksize, strides, padding):
    x = rng.standard_normal((2, 5, 6, 2))
    check_gradients(lambda a: ek.nn.max_pool2d(a, ksize, strides, padding), x)
    check_gradients(lambda a: ek.nn.avg_pool2d(a, ksize, strides, padding), x, order=2)


def test_max_pool_second_order_through_its_scatter_and_gather():
    x = rng.standard_normal((1, 4, 4, 2))
    # max_pool(x) * x... keeps a nonzero second derivative that routes through MaxPoolGrad.
    check_gradients(
        lambda a: ek.nn.max_pool2d(a * a, 2, 2, "VALID") ** 2, x, order=2, rtol=1e-4, atol=1e-5
    )


def test_max_pool_gradient_goes_to_the_first_maximum_as_in_tensorflow():
    x = ek.zeros((1, 2, 4, 1))  # every window is a tie
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.nn.max_pool2d(x, 2, 2, "VALID")
    g = tape.gradient(y, x).numpy()[0, :, :, 0]
    np.testing.assert_array_equal(g, [[1, 0, 1, 0], [0, 0, 0, 0]])


@pytest.mark.parametrize(
    ("shape", "ksize", "padding"),
    [
        ((3, 8, 6, 5), (2, 2), "SAME"),
        ((2, 6, 6, 3), (3, 2), "VALID"),
        ((2, 7, 6, 3), (2, 2), "SAME"),
    ],
)
def test_max_pool_gradient_with_ties_matches_a_direct_loop(shape, ksize, padding):
    # Tiling pools (stride = window) take a mask path, others the per-position loop; both must
    # send each window's cotangent to its first maximum, ties included (ReLU zeros, repeats).
    x = np.maximum(rng.integers(-2, 3, size=shape), 0).astype(np.float32)
    g = rng.standard_normal(ek.nn.max_pool2d(x, ksize, ksize, padding).shape).astype(np.float32)
    xt = ek.constant(x)
    with ek.GradientTape() as tape:
        tape.watch(xt)
        y = ek.nn.max_pool2d(xt, ksize, ksize, padding)
    got = tape.gradient(y, xt, output_gradients=ek.constant(g)).numpy()
    (pt, _), (pl, _) = ref_pads(padding, shape, ksize, ksize)
    want = np.zeros(shape, np.float32)
    for n, i, j, c in np.ndindex(g.shape):
        r0, c0 = i * ksize[0] - pt, j * ksize[1] - pl
        best = None
        for a in range(ksize[0]):
            for b in range(ksize[1]):
                r, q = r0 + a, c0 + b
                inside = 0 <= r < shape[1] and 0 <= q < shape[2]
                if inside and (best is None or x[n, r, q, c] > x[n, best[0], best[1], c]):
                    best = (r, q)
        want[n, best[0], best[1], c] += g[n, i, j, c]
    np.testing.assert_array_equal(got, want)


def test_overlapping_max_pool_gradient_accumulates():
    x = ek.constant(np.array([1.0, 5.0, 2.0, 0.0]).reshape(1, 1, 4, 1))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.nn.max_pool2d(x, [1, 3], 1, "SAME")  # windows: [1,5] [1,5,2] [5,2,0] [2,0]
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [0, 3, 1, 0])


def test_conv_with_variables_trains_on_a_tape():
    ek.random.set_seed(0)
    x = ek.random.normal((4, 6, 6, 2))
    target = ek.random.normal((4, 3, 3, 3))
    w = ek.Variable(ek.random.normal((3, 3, 2, 3), stddev=0.1))
    losses = []
    for _ in range(20):
        with ek.GradientTape() as tape:
            y = ek.nn.avg_pool2d(ek.nn.conv2d(x, w, 1, "SAME"), 2, 2, "VALID")
            loss = ek.reduce_mean((y - target) ** 2)
        w.assign_sub(0.5 * tape.gradient(loss, w))
        losses.append(float(loss))
    assert losses[-1] < 0.9 * losses[0]


# -- errors -------------------------------------------------------------------------------------


def test_channel_mismatch_names_both_shapes():
    with pytest.raises(ValueError) as info:
        ek.nn.conv2d(ek.ones((1, 5, 5, 3)), ek.ones((3, 3, 4, 8)), 1, "SAME")
    assert str(info.value) == (
        "conv2d: input has 3 channels but filters expect 4 (input shape (1, 5, 5, 3), "
        "filters shape (3, 3, 4, 8))."
    )


@pytest.mark.parametrize("op", ["conv2d", "max_pool2d", "avg_pool2d"])
def test_nchw_is_refused(op):
    # Not implemented here (TensorFlow's oneDNN CPU kernels run NCHW; its older ones raised
    # UnimplementedError for Conv2D).
    x = ek.ones((1, 3, 5, 5))
    with pytest.raises(ek.errors.UnimplementedError, match="NHWC"):
        if op == "conv2d":
            ek.nn.conv2d(x, ek.ones((3, 3, 3, 2)), 1, "SAME", data_format="NCHW")
        else:
            getattr(ek.nn, op)(x, 2, 2, "VALID", data_format="NCHW")


def test_argument_errors():
    x, w = ek.ones((1, 5, 5, 2)), ek.ones((3, 3, 2, 4))
    with pytest.raises(ValueError, match=r"rank 4.*\(5, 5, 2\)"):
        ek.nn.conv2d(ek.ones((5, 5, 2)), w, 1, "SAME")
    with pytest.raises(ValueError, match=r"filters must have rank 4.*\(3, 3, 2\)"):
        ek.nn.conv2d(x, ek.ones((3, 3, 2)), 1, "SAME")
    with pytest.raises(TypeError, match="float64"):
        ek.nn.conv2d(x, ek.ones((3, 3, 2, 4), dtype=ek.float64), 1, "SAME")
    with pytest.raises(TypeError, match="int32"):
        ek.nn.conv2d(ek.ones((1, 5, 5, 2), dtype=ek.int32), w, 1, "SAME")
    assert ek.nn.conv2d(x, ek.ones((7, 7, 2, 4)), 1, "VALID").shape == (1, 0, 0, 4)  # as TF
    with pytest.raises(ValueError, match="strides must be positive"):
        ek.nn.conv2d(x, w, 0, "SAME")
    with pytest.raises(ValueError, match="batch and channel"):
        ek.nn.conv2d(x, w, [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="1, 2 or 4 entries"):
        ek.nn.conv2d(x, w, [1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="padding must be 'SAME' or 'VALID'"):
        ek.nn.conv2d(x, w, 1, "FULL")
    with pytest.raises(ValueError, match="explicit padding"):
        ek.nn.conv2d(x, w, 1, [[1, 1], [1, 1], [0, 0], [0, 0]])
    with pytest.raises(ValueError, match="explicit padding"):
        ek.nn.conv2d(x, w, 1, [[0, 0], [1, -1], [0, 1], [0, 0]])
    assert ek.nn.max_pool2d(x, 6, 1, "VALID").shape == (1, 0, 0, 2)  # TF 2.21: empty output
    with pytest.raises(ValueError, match="avg_pool2d: padding must be"):  # max_pool2d takes it
        ek.nn.avg_pool2d(x, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]])
