"""The rest of tf.nn's everyday ops: depthwise/separable/1-D/3-D convolution, the rank-generic
convolution and pooling names, batch normalization, LRN, the moment helpers, crelu, the
weighted and Poisson losses and embedding_lookup_sparse.

Values are checked against NumPy loops that follow TensorFlow's documented formulas (padding:
``ceil(n / s)`` outputs for SAME, the extra padding at the end; SAME average pools divide by the
real elements of each window), gradients against central finite differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

rng = np.random.default_rng(0)


def rand(*shape):
    return rng.standard_normal(shape)


# -- NumPy references ----------------------------------------------------------------------------


def _pads(sizes, ksize, strides, dilations, padding):
    if padding == "VALID":
        return [(0, 0)] * len(sizes)
    pads = []
    for n, k, s, d in zip(sizes, ksize, strides, dilations):
        total = max((math.ceil(n / s) - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def ref_conv(x, w, strides, dilations, padding):
    """N-D channels-last cross-correlation: x [N, *S, C], w [*K, C, M]."""
    spatial = x.ndim - 2
    ksize = w.shape[:spatial]
    pads = _pads(x.shape[1:-1], ksize, strides, dilations, padding)
    xp = np.pad(x, [(0, 0), *pads, (0, 0)])
    out_sizes = [
        (n + p0 + p1 - (k - 1) * d - 1) // s + 1
        for n, (p0, p1), k, s, d in zip(x.shape[1:-1], pads, ksize, strides, dilations)
    ]
    out = np.zeros((x.shape[0], *out_sizes, w.shape[-1]))
    for kidx in np.ndindex(*ksize):
        sl = tuple(
            slice(k * d, k * d + (o - 1) * s + 1, s)
            for k, d, o, s in zip(kidx, dilations, out_sizes, strides)
        )
        out += np.tensordot(xp[(slice(None), *sl)], w[kidx], axes=([-1], [0]))
    return out


def ref_depthwise(x, w, strides, dilations, padding):
    c, m = w.shape[2], w.shape[3]
    parts = [
        ref_conv(x[..., i : i + 1], w[:, :, i : i + 1, j : j + 1], strides, dilations, padding)
        for i in range(c)
        for j in range(m)
    ]
    return np.concatenate(parts, axis=-1)


def ref_pool(x, ksize, strides, padding, kind):
    """N-D channels-last pool; padded positions are ignored (NaN), as in TensorFlow."""
    pads = _pads(x.shape[1:-1], ksize, strides, [1] * len(ksize), padding)
    xp = np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=np.nan)
    out_sizes = [
        (n + p0 + p1 - k) // s + 1 for n, (p0, p1), k, s in zip(x.shape[1:-1], pads, ksize, strides)
    ]
    out = np.empty((x.shape[0], *out_sizes, x.shape[-1]))
    reduce = np.nanmax if kind == "MAX" else np.nanmean
    for o in np.ndindex(*out_sizes):
        sl = tuple(slice(i * s, i * s + k) for i, s, k in zip(o, strides, ksize))
        window = xp[(slice(None), *sl)].reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None), *o)] = reduce(window, axis=1)
    return out


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), b, rtol=tol, atol=tol)


# -- depthwise and separable convolution ---------------------------------------------------------


@pytest.mark.parametrize(
    ("strides", "dilations", "padding"),
    [((1, 1), (1, 1), "VALID"), ((2, 2), (1, 1), "SAME"), ((1, 2), (1, 1), "SAME"),
     ((1, 1), (2, 2), "SAME"), ((1, 1), (2, 1), "VALID")],
)  # fmt: skip
def test_depthwise_conv2d_values(strides, dilations, padding):
    x, w = rand(2, 7, 6, 3), rand(3, 2, 3, 2)
    out = ek.nn.depthwise_conv2d(x, w, [1, *strides, 1], padding, dilations=dilations)
    assert out.shape == ref_depthwise(x, w, strides, dilations, padding).shape
    close(out, ref_depthwise(x, w, strides, dilations, padding), 1e-10)


def test_depthwise_conv2d_gradients_to_second_order():
    x, w = rand(1, 5, 4, 2), rand(2, 3, 2, 2)

    def f(x, w):
        return ek.nn.depthwise_conv2d(x, w, [1, 2, 1, 1], "SAME")

    check_gradients(f, x, w)
    check_gradients(f, x, w, order=2)
    x = rand(1, 5, 5, 2)
    check_gradients(lambda x, w: ek.nn.depthwise_conv2d(x, w, 1, "VALID", dilations=2), x, w)


def test_depthwise_conv2d_errors():
    x = np.ones((1, 4, 4, 3), np.float32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="depthwise_conv2d: filter"):
        ek.nn.depthwise_conv2d(x, np.ones((2, 2, 2, 1), np.float32), 1, "VALID")
    with pytest.raises(ek.errors.UnimplementedError, match="NCHW"):
        ek.nn.depthwise_conv2d(x, np.ones((2, 2, 3, 1), np.float32), 1, "VALID", "NCHW")
    with pytest.raises(ValueError, match=r"strides .* must all be 1 when dilations"):
        ek.nn.depthwise_conv2d(x, np.ones((2, 2, 3, 1), np.float32), 2, "VALID", dilations=2)
    # a filter larger than the input: TF 2.21's empty output
    assert ek.nn.depthwise_conv2d(x, np.ones((5, 5, 3, 2), np.float32), 1, "VALID").shape == (
        1,
        0,
        0,
        6,
    )


def test_separable_conv2d_values_and_gradients():
    x, dw, pw = rand(2, 6, 5, 3), rand(3, 3, 3, 2), rand(1, 1, 6, 4)
    out = ek.nn.separable_conv2d(x, dw, pw, [1, 2, 2, 1], "SAME")
    depth = ref_depthwise(x, dw, (2, 2), (1, 1), "SAME")
    close(out, ref_conv(depth, pw, (1, 1), (1, 1), "VALID"), 1e-10)
    check_gradients(
        lambda x, dw, pw: ek.nn.separable_conv2d(x, dw, pw, 1, "VALID"),
        rand(1, 4, 4, 2),
        rand(2, 2, 2, 1),
        rand(1, 1, 2, 3),
    )
    with pytest.raises(ValueError, match="pointwise_filter"):
        ek.nn.separable_conv2d(x, dw, rand(1, 1, 5, 4), 1, "SAME")


# -- 1-D and 3-D convolution; convolution / conv_transpose -------------------------------------


@pytest.mark.parametrize(
    ("stride", "dilation", "padding"),
    [(1, 1, "SAME"), (2, 1, "VALID"), (1, 2, "SAME"), (3, 1, "SAME")],
)
def test_conv1d_values(stride, dilation, padding):
    x, w = rand(2, 9, 3), rand(3, 3, 4)
    out = ek.nn.conv1d(x, w, stride, padding, dilations=dilation)
    close(out, ref_conv(x, w, (stride,), (dilation,), padding), 1e-10)


def test_conv1d_gradients_and_errors():
    check_gradients(lambda x, w: ek.nn.conv1d(x, w, 2, "SAME"), rand(2, 5, 2), rand(2, 2, 3))
    with pytest.raises(ek.errors.InvalidArgumentError, match="conv1d: input must have rank 3"):
        ek.nn.conv1d(np.ones((1, 2, 3, 4), np.float32), np.ones((1, 4, 1), np.float32), 1, "SAME")
    with pytest.raises(ek.errors.UnimplementedError, match="NCW"):
        ek.nn.conv1d(np.ones((1, 4, 1), np.float32), np.ones((1, 1, 1), np.float32), 1, "SAME",
                     data_format="NCW")  # fmt: skip
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"conv1d: filters .* in_channels = 2"):
        ek.nn.conv1d(np.ones((1, 4, 2), np.float32), np.ones((1, 3, 1), np.float32), 1, "SAME")
    with pytest.raises(TypeError, match="conv1d: input must be a floating-point tensor"):
        ek.nn.conv1d(np.ones((1, 4, 1), np.int32), np.ones((1, 1, 1), np.int32), 1, "SAME")
    with pytest.raises(TypeError, match="conv3d"):
        ek.nn.conv3d(rand(1, 2, 2, 2, 1), np.ones((1, 1, 1, 1, 1), np.float32), 1, "SAME")
    with pytest.raises(ValueError, match="conv1d: stride"):
        ek.nn.conv1d(np.ones((1, 4, 1), np.float32), np.ones((1, 1, 1), np.float32), [2, 2], "SAME")


def test_conv1d_transpose_is_the_adjoint_of_conv1d():
    x, w, g = rand(2, 8, 3), rand(3, 3, 4), rand(2, 4, 4)
    y = ek.nn.conv1d_transpose(g, w, [2, 8, 3], 2, "SAME")
    # <conv1d(x, w), g> = <x, conv1d_transpose(g, w)>
    lhs = np.sum(ek.nn.conv1d(x, w, 2, "SAME").numpy() * g)
    close(lhs, np.sum(x * y.numpy()), 1e-9)


@pytest.mark.parametrize(("strides", "padding"), [((1, 1, 1), "VALID"), ((2, 1, 2), "SAME")])
def test_conv3d_values_and_gradients(strides, padding):
    x, w = rand(2, 5, 4, 5, 2), rand(2, 3, 2, 2, 3)
    out = ek.nn.conv3d(x, w, [1, *strides, 1], padding)
    close(out, ref_conv(x, w, strides, (1, 1, 1), padding), 1e-10)
    check_gradients(
        lambda x, w: ek.nn.conv3d(x, w, [1, *strides, 1], padding),
        rand(1, 3, 3, 3, 1),
        rand(2, 2, 2, 1, 2),
    )


def test_conv3d_dilated():
    x, w = rand(1, 6, 5, 5, 1), rand(2, 2, 2, 1, 1)
    out = ek.nn.conv3d(x, w, [1] * 5, "SAME", dilations=[1, 2, 1, 2, 1])
    close(out, ref_conv(x, w, (1, 1, 1), (2, 1, 2), "SAME"), 1e-10)


def test_convolution_and_conv_transpose_dispatch_on_rank():
    x1, w1 = rand(1, 6, 2), rand(3, 2, 2)
    close(ek.nn.convolution(x1, w1, padding="SAME"), ref_conv(x1, w1, (1,), (1,), "SAME"), 1e-10)
    x2, w2 = rand(1, 5, 5, 2), rand(2, 2, 2, 3)
    close(ek.nn.convolution(x2, w2, strides=2), ref_conv(x2, w2, (2, 2), (1, 1), "VALID"), 1e-10)
    x3, w3 = rand(1, 3, 3, 3, 1), rand(2, 2, 2, 1, 1)
    close(ek.nn.convolution(x3, w3), ref_conv(x3, w3, (1,) * 3, (1,) * 3, "VALID"), 1e-10)
    g = rand(1, 3, 3, 3)
    y = ek.nn.conv_transpose(g, w2, [1, 5, 5, 2], 2, "SAME")
    close(y, ek.nn.conv2d_transpose(g, w2, [1, 5, 5, 2], 2, "SAME").numpy(), 0)
    with pytest.raises(ValueError, match="convolution: input must have rank 3, 4 or 5"):
        ek.nn.convolution(np.ones((2, 2), np.float32), np.ones((1, 1), np.float32))


# -- pools ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["MAX", "AVG"])
@pytest.mark.parametrize(("ksize", "strides", "padding"), [(2, 2, "VALID"), (3, 2, "SAME"),
                                                           (2, 1, "SAME")])  # fmt: skip
def test_pools_1d_3d_and_generic(kind, ksize, strides, padding):
    fn = ek.nn.max_pool if kind == "MAX" else ek.nn.avg_pool
    x1 = rand(2, 7, 3)
    close(fn(x1, ksize, strides, padding), ref_pool(x1, [ksize], [strides], padding, kind), 1e-10)
    x3 = rand(2, 5, 4, 5, 2)
    want = ref_pool(x3, [ksize] * 3, [strides] * 3, padding, kind)
    close(fn(x3, ksize, strides, padding), want, 1e-10)
    x2 = rand(1, 5, 6, 2)
    close(fn(x2, ksize, strides, padding), ref_pool(x2, [ksize] * 2, [strides] * 2, padding, kind))
    out = ek.nn.pool(x3, [ksize] * 3, kind, strides=[strides] * 3, padding=padding)
    close(out, want, 1e-10)


def test_pool_named_ops_and_gradients():
    x1 = rand(2, 6, 2)
    close(ek.nn.max_pool1d(x1, 2, 2, "VALID"), ref_pool(x1, [2], [2], "VALID", "MAX"), 0)
    close(ek.nn.avg_pool1d(x1, 3, 2, "SAME"), ref_pool(x1, [3], [2], "SAME", "AVG"), 1e-10)
    x3 = rand(1, 4, 3, 4, 1)
    close(ek.nn.max_pool3d(x3, [1, 2, 2, 2, 1], [1, 2, 1, 2, 1], "SAME"),
          ref_pool(x3, [2, 2, 2], [2, 1, 2], "SAME", "MAX"), 0)  # fmt: skip
    check_gradients(lambda x: ek.nn.avg_pool3d(x, 2, 1, "SAME"), rand(1, 3, 3, 2, 2))
    check_gradients(lambda x: ek.nn.max_pool3d(x, 2, 2, "VALID"), rand(1, 4, 4, 2, 1))
    check_gradients(lambda x: ek.nn.max_pool1d(x, 3, 2, "SAME"), rand(2, 7, 2))


def test_dilated_pool_takes_every_rate_th_element():
    # TensorFlow 2.21's values for the same calls.
    x = ek.reshape(ek.range(25.0), [1, 5, 5, 1])
    got = ek.nn.pool(x, [2, 2], "MAX", padding="VALID", dilations=[2, 2])
    assert got.numpy().squeeze().tolist() == [[12, 13, 14], [17, 18, 19], [22, 23, 24]]
    got = ek.nn.pool(x, [2, 2], "AVG", padding="VALID", dilations=[2, 1])
    np.testing.assert_allclose(got.numpy().squeeze()[0], [5.5, 6.5, 7.5, 8.5])
    # Against a direct loop, on random data, 1-D to 3-D, with the gradient by finite
    # differences (the taps are strided slices: ties have probability zero here).
    for shape, window, rate in [((2, 9, 3), [3], [2]), ((1, 6, 7, 2), [2, 3], [3, 2])]:
        data = rand(*shape)
        for kind, reduce in (("MAX", np.max), ("AVG", np.mean)):
            out = [n - (w - 1) * r for n, w, r in zip(shape[1:-1], window, rate)]
            want = np.empty((shape[0], *out, shape[-1]))
            for pos in np.ndindex(*out):
                taps = [
                    data[(slice(None), *(p + k * r for p, k, r in zip(pos, ks, rate)), slice(None))]
                    for ks in np.ndindex(*window)
                ]
                want[(slice(None), *pos, slice(None))] = reduce(np.stack(taps), axis=0)
            close(ek.nn.pool(data, window, kind, dilations=rate), want, 1e-12)
            xt = ek.constant(data)
            with ek.GradientTape() as tape:
                tape.watch(xt)
                y = ek.reduce_sum(ek.nn.pool(xt, window, kind, dilations=rate) ** 2)
            g = tape.gradient(y, xt).numpy()
            eps, flat = 1e-6, data.reshape(-1)

            def f(v, shape=shape, window=window, kind=kind, rate=rate):
                y = ek.nn.pool(v.reshape(shape), window, kind, dilations=rate)
                return float(np.sum(y.numpy() ** 2))

            for i in (0, 5, flat.size // 2, flat.size - 1):
                up, down = flat.copy(), flat.copy()
                up[i] += eps
                down[i] -= eps
                assert abs((f(up) - f(down)) / (2 * eps) - g.reshape(-1)[i]) < 1e-5


def test_pool_errors():
    x = np.ones((1, 4, 4, 1), np.float32)
    with pytest.raises(ValueError, match="pooling_type"):
        ek.nn.pool(x, [2, 2], "MIN")
    with pytest.raises(ValueError, match="one entry per spatial axis"):
        ek.nn.pool(x, [2], "MAX")
    with pytest.raises(ValueError, match="'SAME' padding is not implemented for `dilation_rate`"):
        ek.nn.pool(x, [2, 2], "MAX", padding="SAME", dilations=[2, 2])
    with pytest.raises(ValueError, match="`strides > 1` not supported in conjunction"):
        ek.nn.pool(x, [2, 2], "MAX", strides=[2, 2], dilations=[2, 2])
    # a dilated window larger than the input: TF 2.21's empty output
    assert ek.nn.pool(x, [3, 3], "MAX", dilations=[2, 2]).shape == (1, 0, 0, 1)
    with pytest.raises(ValueError, match="max_pool: input must have rank 3, 4 or 5"):
        ek.nn.max_pool(np.ones((4, 4), np.float32), 2, 2, "VALID")
    with pytest.raises(ek.errors.UnimplementedError, match="NCDHW"):
        ek.nn.max_pool3d(np.ones((1, 1, 2, 2, 2), np.float32), 1, 1, "VALID", "NCDHW")


# -- batch normalization ---------------------------------------------------------------------------


def test_batch_normalization_closed_form_and_gradients():
    x, mean, var, off, sc = rand(4, 3), rand(3), rng.uniform(0.5, 2, 3), rand(3), rand(3)
    out = ek.nn.batch_normalization(x, mean, var, off, sc, 1e-3)
    close(out, sc * (x - mean) / np.sqrt(var + 1e-3) + off, 1e-10)
    close(ek.nn.batch_normalization(x, mean, var, None, None, 0.0), (x - mean) / np.sqrt(var))
    check_gradients(
        lambda x, m, v, o, s: ek.nn.batch_normalization(x, m, v, o, s, 1e-3),
        x, mean, var, off, sc,
    )  # fmt: skip


def test_batch_normalization_with_moments():
    x = rand(8, 5, 5, 3)
    m, v = ek.nn.moments(x, [0, 1, 2])
    y = ek.nn.batch_normalization(x, m, v, None, None, 0.0).numpy()
    close(y.mean(axis=(0, 1, 2)), np.zeros(3), 1e-10)
    close(y.std(axis=(0, 1, 2)), np.ones(3), 1e-10)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_training(data_format):
    x_nhwc = rand(3, 4, 5, 2)
    x = x_nhwc if data_format == "NHWC" else x_nhwc.transpose(0, 3, 1, 2)
    scale, offset = np.array([1.5, -0.5]), np.array([0.1, 0.2])
    y, m, v = ek.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3, data_format=data_format)
    mu, var = x_nhwc.mean(axis=(0, 1, 2)), x_nhwc.var(axis=(0, 1, 2))
    want = scale * (x_nhwc - mu) / np.sqrt(var + 1e-3) + offset
    got = y.numpy() if data_format == "NHWC" else y.numpy().transpose(0, 2, 3, 1)
    close(got, want, 1e-10)
    close(m, mu, 1e-12)
    n = 3 * 4 * 5
    close(v, var * n / (n - 1), 1e-12)  # Bessel-corrected, as TF's kernel returns


def test_fused_batch_norm_inference_running_average_and_epsilon_floor():
    x, scale, offset = rand(2, 3, 3, 2), np.array([2.0, 1.0]), np.array([0.0, 1.0])
    mean, var = np.array([0.5, -0.5]), np.array([1.0, 4.0])
    y, m, v = ek.nn.fused_batch_norm(x, scale, offset, mean, var, 1e-3, is_training=False)
    close(y, scale * (x - mean) / np.sqrt(var + 1e-3) + offset, 1e-10)
    close(m, mean, 0)
    close(v, var, 0)
    _, m2, v2 = ek.nn.fused_batch_norm(x, scale, offset, mean, var, exponential_avg_factor=0.25)
    n = 2 * 3 * 3
    close(m2, 0.75 * mean + 0.25 * x.mean(axis=(0, 1, 2)), 1e-12)
    close(v2, 0.75 * var + 0.25 * x.var(axis=(0, 1, 2)) * n / (n - 1), 1e-12)
    y0, _, _ = ek.nn.fused_batch_norm(x, scale, offset, mean, var, 0.0, is_training=False)
    close(y0, scale * (x - mean) / np.sqrt(var + 1.001e-5) + offset, 1e-12)


def test_fused_batch_norm_gradients_and_errors():
    check_gradients(
        lambda x, s, o: ek.nn.fused_batch_norm(x, s, o)[0],
        rand(2, 2, 2, 2), rand(2), rand(2),
    )  # fmt: skip
    x = np.ones((2, 2, 2, 2), np.float32)
    with pytest.raises(ValueError, match="mean and variance must be given for inference"):
        ek.nn.fused_batch_norm(x, [1.0, 1.0], [0.0, 0.0], is_training=False)
    with pytest.raises(ek.errors.InvalidArgumentError, match="scale must be 1-D of length 2"):
        ek.nn.fused_batch_norm(x, [1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="rank 4 or 5"):
        ek.nn.fused_batch_norm(np.ones((2, 2), np.float32), [1.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="data_format"):
        ek.nn.fused_batch_norm(x, [1.0, 1.0], [0.0, 0.0], data_format="NWC")


# -- local response normalization ------------------------------------------------------------------


def ref_lrn(x, r, bias, alpha, beta):
    out = np.empty_like(x)
    c = x.shape[-1]
    for d in range(c):
        s = np.sum(x[..., max(0, d - r) : min(c, d + r + 1)] ** 2, axis=-1)
        out[..., d] = x[..., d] / (bias + alpha * s) ** beta
    return out


def test_lrn_values_gradients_errors():
    x = rand(2, 3, 2, 7)
    close(ek.nn.local_response_normalization(x), ref_lrn(x, 5, 1.0, 1.0, 0.5), 1e-10)
    close(ek.nn.lrn(x, 2, 2.0, 0.1, 0.75), ref_lrn(x, 2, 2.0, 0.1, 0.75), 1e-10)
    check_gradients(lambda x: ek.nn.lrn(x, 1, 1.0, 0.5, 0.75), rand(1, 2, 2, 4))
    with pytest.raises(ek.errors.InvalidArgumentError, match="4-D"):
        ek.nn.lrn(np.ones((2, 3), np.float32))


# -- moments ---------------------------------------------------------------------------------------


def test_sufficient_statistics_and_normalize_moments():
    x = rand(4, 5, 3)
    c, m_ss, v_ss, s = ek.nn.sufficient_statistics(x, [0, 1])
    assert float(c) == 20 and s is None
    close(m_ss, x.sum(axis=(0, 1)), 1e-12)
    close(v_ss, (x**2).sum(axis=(0, 1)), 1e-12)
    mean, var = ek.nn.normalize_moments(c, m_ss, v_ss, None)
    close(mean, x.mean(axis=(0, 1)), 1e-12)
    close(var, x.var(axis=(0, 1)), 1e-12)
    shift = np.array([0.5, -1.0, 2.0])
    c, m_ss, v_ss, s = ek.nn.sufficient_statistics(x, [0, 1], shift=shift, keepdims=True)
    assert m_ss.shape == (1, 1, 3)
    close(m_ss, (x - shift).sum(axis=(0, 1), keepdims=True), 1e-12)
    mean, var = ek.nn.normalize_moments(c, m_ss, v_ss, s)
    close(mean, x.mean(axis=(0, 1), keepdims=True), 1e-12)
    close(var, x.var(axis=(0, 1), keepdims=True), 1e-12)


def test_weighted_moments():
    x, w = rand(6, 4), rng.uniform(0.1, 2.0, (6, 1))
    mean, var = ek.nn.weighted_moments(x, [0], w)
    want_mean = np.average(x, axis=0, weights=np.broadcast_to(w, x.shape))
    close(mean, want_mean, 1e-12)
    close(var, np.sum(w * (x - want_mean) ** 2, axis=0) / (w.sum() * np.ones(4)), 1e-12)
    mean, var = ek.nn.weighted_moments(x, [0, 1], w, keepdims=True)
    assert mean.shape == (1, 1)
    check_gradients(lambda x, w: ek.nn.weighted_moments(x, [0], w), x, w)
    m16, _ = ek.nn.weighted_moments(x.astype(np.float16), [0], w.astype(np.float16))
    assert m16.dtype == ek.float16


# -- crelu and losses ------------------------------------------------------------------------------


def test_crelu():
    x = rand(3, 4)
    close(ek.nn.crelu(x), np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], -1), 0)
    close(ek.nn.crelu(x, axis=0), np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], 0), 0)


def test_weighted_cross_entropy_with_logits():
    z = rand(5, 3) * 4
    y = rng.uniform(0, 1, (5, 3))
    q = 3.0
    sig = 1 / (1 + np.exp(-z))
    want = -(y * np.log(sig) * q + (1 - y) * np.log(1 - sig))
    close(ek.nn.weighted_cross_entropy_with_logits(y, z, q), want, 1e-10)
    # Stable for large logits, where the naive formula overflows.
    big = ek.nn.weighted_cross_entropy_with_logits([1.0, 0.0], [-200.0, 200.0], 2.0).numpy()
    close(big, [400.0, 200.0], 1e-6)
    check_gradients(
        lambda y, z, q: ek.nn.weighted_cross_entropy_with_logits(y, z, q), y, z, rand(3) ** 2
    )
    with pytest.raises(ValueError, match="same shape"):
        ek.nn.weighted_cross_entropy_with_logits(np.ones(3), np.ones(2), 1.0)


def test_log_poisson_loss():
    t = np.array([0.0, 0.5, 1.0, 2.0, 20.0])
    li = rand(5)
    close(ek.nn.log_poisson_loss(t, li), np.exp(li) - li * t, 1e-12)
    full = ek.nn.log_poisson_loss(t, li, compute_full_loss=True).numpy()
    stirling = np.where(
        t > 1, t * np.log(np.maximum(t, 1)) - t + 0.5 * np.log(2 * np.pi * np.maximum(t, 1)), 0
    )
    close(full, np.exp(li) - li * t + stirling, 1e-12)
    # Stirling's approximation of log(20!) is within 1 / (12 * 20) of it.
    assert abs(full[4] - (np.exp(li[4]) - li[4] * 20 + math.lgamma(21))) < 1 / 240
    check_gradients(lambda li: ek.nn.log_poisson_loss(t, li, compute_full_loss=True), li)
    with pytest.raises(ValueError, match="same shape"):
        ek.nn.log_poisson_loss(np.ones(3), np.ones(2))


# -- embedding_lookup_sparse -----------------------------------------------------------------------


def test_embedding_lookup_sparse_combiners():
    params = rand(5, 3)
    ids = ek.sparse.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], [1, 4, 0, 0, 3], [4, 3])
    weights = ek.sparse.SparseTensor(ids.indices, [2.0, 1.0, 0.5, 1.5, 3.0], [4, 3])
    w = np.array([2.0, 1.0, 0.5, 1.5, 3.0])
    row0 = 2 * params[1] + 1 * params[4]
    row2 = 0.5 * params[0] + 1.5 * params[0] + 3 * params[3]
    out = ek.nn.embedding_lookup_sparse(params, ids, weights, combiner="sum")
    close(out, np.stack([row0, np.zeros(3), row2, np.zeros(3)]), 1e-12)
    out = ek.nn.embedding_lookup_sparse(params, ids, weights)  # mean
    close(out, np.stack([row0 / 3, np.zeros(3), row2 / 5, np.zeros(3)]), 1e-12)
    out = ek.nn.embedding_lookup_sparse(params, ids, weights, combiner="sqrtn")
    want = [row0 / np.sqrt(np.sum(w[:2] ** 2)), np.zeros(3), row2 / np.sqrt(np.sum(w[2:] ** 2))]
    close(out, np.stack([*want, np.zeros(3)]), 1e-12)
    out = ek.nn.embedding_lookup_sparse(params, ids, None, combiner="mean")
    close(out[0], (params[1] + params[4]) / 2, 1e-12)

    def f(p):
        return ek.nn.embedding_lookup_sparse(p, ids, weights, combiner="sqrtn")

    check_gradients(f, params)
    with pytest.raises(ValueError, match="combiner"):
        ek.nn.embedding_lookup_sparse(params, ids, None, combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be a SparseTensor"):
        ek.nn.embedding_lookup_sparse(params, [[0]], None)


# -- Keras layers on these ops ---------------------------------------------------------------


def test_depthwise_and_separable_conv2d_layers(tmp_path):
    x = rand(2, 6, 6, 3).astype(np.float32)
    dw = ek.keras.layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same", use_bias=False)
    y = dw(x)
    k = dw.depthwise_kernel.numpy().astype(np.float64)
    close(y, ref_depthwise(x.astype(np.float64), k, (1, 1), (1, 1), "SAME"), 1e-5)
    assert dw.compute_output_shape((None, 6, 6, 3)) == (None, 6, 6, 6)
    sep = ek.keras.layers.SeparableConv2D(4, 3, strides=2, name="sep")
    out = sep(x)
    assert [v.name for v in sep.weights] == [
        "sep/depthwise_kernel:0",
        "sep/pointwise_kernel:0",
        "sep/bias:0",
    ]
    depth = ref_depthwise(x.astype(np.float64), sep.depthwise_kernel.numpy(), (2, 2), (1, 1),
                          "VALID")  # fmt: skip
    want = ref_conv(depth, sep.pointwise_kernel.numpy(), (1, 1), (1, 1), "VALID")
    close(out, want + sep.bias.numpy(), 1e-5)
    assert out.shape == sep.compute_output_shape((2, 6, 6, 3))
    config = dw.get_config()
    assert config["depth_multiplier"] == 2 and "filters" not in config
    again = ek.keras.layers.DepthwiseConv2D.from_config(config)
    assert again.depth_multiplier == 2 and again.kernel_size == (3, 3)
    with pytest.raises(ValueError, match="depth_multiplier"):
        ek.keras.layers.DepthwiseConv2D(3, depth_multiplier=0)
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        dw(np.ones((1, 6, 6, 2), np.float32))
    # A model of them trains (the loss falls) and saves and loads with the same outputs.
    model = ek.keras.Sequential([
        ek.keras.Input((6, 6, 3)),
        ek.keras.layers.DepthwiseConv2D(3, padding="same"),
        ek.keras.layers.SeparableConv2D(2, 3),
        ek.keras.layers.Flatten(),
        ek.keras.layers.Dense(1),
    ])  # fmt: skip
    model.compile(ek.keras.optimizers.SGD(0.01), "mse")
    target = rng.standard_normal((2, 1)).astype(np.float32)
    history = model.fit(x, target, epochs=5, verbose=0).history["loss"]
    assert history[-1] < history[0]
    model.save(tmp_path / "m.keras")
    loaded = ek.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


@pytest.mark.parametrize(
    ("strides", "dilations", "padding", "out"),
    [
        ((2, 2, 2), (1, 1, 1), "SAME", (2, 5, 4, 6, 2)),
        ((1, 1, 1), (1, 1, 1), "VALID", (1, 4, 4, 4, 2)),
        ((3, 1, 2), (1, 1, 1), "VALID", (1, 7, 4, 5, 2)),
        ((1, 1, 1), (2, 1, 2), "SAME", (1, 5, 4, 5, 2)),
    ],
)
def test_conv3d_transpose_is_the_adjoint_of_conv3d(strides, dilations, padding, out):
    x, w = rand(*out), rand(2, 3, 2, 2, 3)
    y = ek.nn.conv3d(x, w, strides, padding, dilations=dilations)
    g = rand(*y.shape)
    t = ek.nn.conv3d_transpose(g, w, out, strides, padding, dilations=dilations)
    assert t.shape == out
    # <conv3d(x, w), g> = <x, conv3d_transpose(g, w)>
    close(np.sum(y.numpy() * g), np.sum(x * t.numpy()), 1e-9)
    same = ek.nn.conv_transpose(g, w, out, strides, padding, dilations=dilations)
    close(same, t.numpy(), 0)


def test_conv3d_transpose_gradients_and_errors():
    check_gradients(
        lambda g, w: ek.nn.conv3d_transpose(g, w, [1, 4, 3, 3, 1], [1, 2, 1, 1, 1], "SAME"),
        rand(1, 2, 3, 3, 2),
        rand(2, 2, 2, 1, 2),
    )
    with pytest.raises(ek.errors.InvalidArgumentError, match="do not match"):
        ek.nn.conv3d_transpose(rand(1, 2, 3, 3, 2), rand(2, 2, 2, 1, 2), [1, 9, 3, 3, 1], 1)


# -- on a (NumPy-backed) virtual GPU ---------------------------------------------------------


def test_new_ops_on_a_virtual_gpu_match_the_cpu():
    ek.config.experimental.set_virtual_gpus(2)
    x, w, pw = rand(1, 5, 5, 2), rand(3, 3, 2, 2), rand(1, 1, 4, 3)
    cases = [
        lambda x, w, pw: ek.nn.depthwise_conv2d(x, w, 1, "SAME"),
        lambda x, w, pw: ek.nn.separable_conv2d(x, w, pw, 2, "SAME"),
        lambda x, w, pw: ek.nn.lrn(x, 1),
        lambda x, w, pw: ek.nn.fused_batch_norm(x, [1.0, 2.0], [0.0, 1.0])[0],
        lambda x, w, pw: ek.nn.max_pool3d(ek.reshape(x, (1, 5, 5, 1, 2)), 2, 1, "SAME"),
    ]
    for fn in cases:
        want = fn(x, w, pw).numpy()
        with ek.device("/gpu:0"):
            got = fn(x, w, pw)
            assert got.device.endswith("GPU:0")
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
        with ek.device("/gpu:0"):
            check_gradients(lambda x, w, pw, fn=fn: fn(x, w, pw), x, w, pw)
    with ek.device("/gpu:0"):
        c = ek.random.categorical([[0.0, 1.0, 2.0]], 10, seed=1)
        g = ek.random.gamma([10], 2.0, seed=1)
        assert c.device.endswith("GPU:0") and g.device.endswith("GPU:0")
    # Virtual GPUs draw the CPU's numbers.
    np.testing.assert_array_equal(c.numpy(), ek.random.categorical([[0.0, 1.0, 2.0]], 10, seed=1))
    np.testing.assert_array_equal(g.numpy(), ek.random.gamma([10], 2.0, seed=1).numpy())
