"""The cuDNN path (eagerkernel/runtime/ops/cudnn.py) against eagerkernel's own kernels, on CPU.

There is no GPU here, so ``cudnn.backend`` is replaced by a NumPy fake of ``cupyx.cudnn`` and
``cupy.cuda.cudnn``. The fake is written from cuDNN's documented semantics and cupyx's source
(cupyx/cudnn.pyx, cupy_backends/cuda/libs/cudnn.pxd), not from eagerkernel's kernels: it works
in NCHW / NCDHW, reads the layout arguments, pads symmetrically, and checks its arguments as
cupyx and cuDNN do (tuples of ints, dtypes, C-contiguous outputs, output shapes), so a wrapper
that passes a wrong layout, shape or padding fails these tests instead of agreeing by accident.
The real-GPU comparison is in tests/test_cuda.py.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import types

import numpy as np
import pytest

from eagerkernel.runtime.ops import conv, cudnn, pool2d

rng = np.random.default_rng(0)


# -- the fake: cuDNN's semantics in NumPy -------------------------------------------------------


class FakeLib:
    """``cupy.cuda.cudnn``: the constants' values from cupy_backends/cuda/libs/cudnn.pxd."""

    CUDNN_TENSOR_NCHW = 0
    CUDNN_TENSOR_NHWC = 1
    CUDNN_POOLING_MAX = 0
    CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1
    CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2
    CUDNN_POOLING_MAX_DETERMINISTIC = 3

    class CuDNNError(RuntimeError):
        pass

    @staticmethod
    def getVersion() -> int:
        return 8902


_FLOATS = (np.float16, np.float32, np.float64)


def _bad_param(msg: str):
    return FakeLib.CuDNNError(f"CUDNN_STATUS_BAD_PARAM: {msg}")


def _dtype(*arrays) -> None:
    """cupyx's get_data_type raises TypeError; cuDNN rejects descriptors of different types."""
    for a in arrays:
        if a.dtype not in _FLOATS:
            raise TypeError(f"Dtype {a.dtype} is not supported in cuDNN")
    if len({a.dtype for a in arrays}) != 1:
        raise _bad_param(f"dtypes differ: {[a.dtype for a in arrays]}")


def _dense(out) -> None:
    """cupyx describes an output array as dense C order (ValueError, as its check for y)."""
    if not out.flags.c_contiguous:
        raise ValueError("cupyx.cudnn supports c-contiguous arrays only")


def _tuple(values, n: int, minimum: int, what: str) -> None:
    """cupyx's arguments are typed ``tuple`` and cast to C ints, one per spatial dimension."""
    if not isinstance(values, tuple):
        raise TypeError(f"{what} must be a tuple, got {type(values).__name__}")
    if len(values) != n or not all(type(v) is int and v >= minimum for v in values):
        raise _bad_param(f"{what}={values!r}")


def _nchw(a, layout: int):
    """A 4-D data tensor (or NHWC filter, KRSC) seen as NCHW (KCRS): a view of ``a``."""
    if a.ndim != 4:
        raise _bad_param(f"4-D tensor expected, got shape {a.shape}")
    if layout == FakeLib.CUDNN_TENSOR_NCHW:
        return a
    if layout == FakeLib.CUDNN_TENSOR_NHWC:
        return a.transpose(0, 3, 1, 2)
    raise ValueError(f"unknown cudnnTensorFormat: {layout}")


def _conv_out(hw, rs, pad, stride, dilation) -> tuple[int, ...]:
    """cudnnGetConvolution2dForwardOutputDim: 1 + (in + 2 pad - ((f - 1) dil + 1)) / stride."""
    out = tuple(
        1 + (n + 2 * p - ((f - 1) * d + 1)) // s
        for n, f, p, s, d in zip(hw, rs, pad, stride, dilation)
    )
    if min(out) < 1:
        raise _bad_param(f"empty output {out}")
    return out


def _tap(a, r: int, s: int, out_hw, stride, dilation):
    """The (N, C, OH, OW) slice of padded NCHW ``a`` that filter tap (r, s) reads."""
    (oh, ow), (sh, sw), (dh, dw) = out_hw, stride, dilation
    return a[
        :, :, r * dh : r * dh + (oh - 1) * sh + 1 : sh, s * dw : s * dw + (ow - 1) * sw + 1 : sw
    ]


def _conv_checks(pad, stride, dilation, groups, options) -> None:
    _tuple(pad, 2, 0, "pad")
    _tuple(stride, 2, 1, "stride")
    _tuple(dilation, 2, 1, "dilation")
    if groups != 1:
        raise NotImplementedError("the fake has no grouped convolution")
    if options["tensor_core"] not in ("auto", "always", "never"):
        raise ValueError('tensor_code_mode must be either of "always", "auto", or "never".')
    if not isinstance(options["auto_tune"], bool):
        raise TypeError("auto_tune must be a bool")
    if "deterministic" in options and not isinstance(options["deterministic"], bool):
        raise TypeError("deterministic must be a bool")


class FakeCudnn:
    """``cupyx.cudnn``'s convolution and pooling functions, NumPy, float64 accumulation."""

    def __init__(self):
        self.calls: list[str] = []

    def convolution_forward(
        self, x, W, b, y, pad, stride, dilation, groups, *, auto_tune, tensor_core,
        d_layout=FakeLib.CUDNN_TENSOR_NCHW, w_layout=FakeLib.CUDNN_TENSOR_NCHW,
    ):  # fmt: skip
        self.calls.append("convolution_forward")
        _conv_checks(pad, stride, dilation, groups, locals())
        _dtype(x, W, y)
        _dense(y)
        if b is not None:
            raise NotImplementedError("the fake has no bias")
        xs, ws, ys = _nchw(x, d_layout), _nchw(W, w_layout), _nchw(y, d_layout)
        (n, c, h, w), (k, c_w, r, s) = xs.shape, ws.shape
        out_hw = _conv_out((h, w), (r, s), pad, stride, dilation)
        if c_w != c or ys.shape != (n, k, *out_hw):
            raise _bad_param(f"x {xs.shape}, W {ws.shape}, y {ys.shape} (NCHW / KCRS)")
        xpad = np.pad(xs.astype(np.float64), ((0, 0), (0, 0), (pad[0],) * 2, (pad[1],) * 2))
        out = np.zeros(ys.shape)
        for i, j in itertools.product(range(r), range(s)):
            tap = _tap(xpad, i, j, out_hw, stride, dilation)
            out += np.einsum("nchw,kc->nkhw", tap, ws[:, :, i, j].astype(np.float64))
        ys[...] = out

    def convolution_backward_data(
        self, W, x, b, y, pad, stride, dilation, groups, *, deterministic, auto_tune,
        tensor_core, d_layout=FakeLib.CUDNN_TENSOR_NCHW, w_layout=FakeLib.CUDNN_TENSOR_NCHW,
    ):  # fmt: skip
        """cupyx's names: ``x`` is dy (the output's gradient), ``y`` receives dx."""
        self.calls.append("convolution_backward_data")
        _conv_checks(pad, stride, dilation, groups, locals())
        _dtype(W, x, y)
        _dense(y)
        if b is not None:
            raise NotImplementedError("the fake has no bias")
        dy, ws, dx = _nchw(x, d_layout), _nchw(W, w_layout), _nchw(y, d_layout)
        (n, c, h, w), (k, c_w, r, s) = dx.shape, ws.shape
        out_hw = _conv_out((h, w), (r, s), pad, stride, dilation)
        if c_w != c or dy.shape != (n, k, *out_hw):
            raise _bad_param(f"W {ws.shape}, dy {dy.shape}, dx {dx.shape} (NCHW / KCRS)")
        grad = np.zeros((n, c, h + 2 * pad[0], w + 2 * pad[1]))
        for i, j in itertools.product(range(r), range(s)):
            tap = _tap(grad, i, j, out_hw, stride, dilation)
            tap += np.einsum("nkhw,kc->nchw", dy.astype(np.float64), ws[:, :, i, j])
        dx[...] = grad[:, :, pad[0] : pad[0] + h, pad[1] : pad[1] + w]

    def convolution_backward_filter(
        self, x, gy, gW, pad, stride, dilation, groups, *, deterministic, auto_tune,
        tensor_core, d_layout=FakeLib.CUDNN_TENSOR_NCHW, w_layout=FakeLib.CUDNN_TENSOR_NCHW,
    ):  # fmt: skip
        self.calls.append("convolution_backward_filter")
        _conv_checks(pad, stride, dilation, groups, locals())
        _dtype(x, gy, gW)
        _dense(gW)  # cupyx does not copy gW: cuDNN writes it densely in the given layout
        xs, dy, dw = _nchw(x, d_layout), _nchw(gy, d_layout), _nchw(gW, w_layout)
        (n, c, h, w), (k, c_w, r, s) = xs.shape, dw.shape
        out_hw = _conv_out((h, w), (r, s), pad, stride, dilation)
        if c_w != c or dy.shape != (n, k, *out_hw):
            raise _bad_param(f"x {xs.shape}, dy {dy.shape}, dW {dw.shape} (NCHW / KCRS)")
        xpad = np.pad(xs.astype(np.float64), ((0, 0), (0, 0), (pad[0],) * 2, (pad[1],) * 2))
        grad = np.empty(dw.shape)
        for i, j in itertools.product(range(r), range(s)):
            tap = _tap(xpad, i, j, out_hw, stride, dilation)
            grad[:, :, i, j] = np.einsum("nchw,nkhw->kc", tap, dy.astype(np.float64))
        dw[...] = grad

    def pooling_forward(self, x, y, ksize, stride, pad, mode):
        self.calls.append("pooling_forward")
        _dtype(x, y)
        if not y.flags.c_contiguous:
            raise ValueError("pooling_forward supports c-contiguous y only")
        total, count = _pool_windows(np.ascontiguousarray(x), ksize, stride, pad, mode)
        if y.shape != total.shape:
            raise _bad_param(f"x {x.shape}, y {y.shape}: expected y {total.shape}")
        y[...] = total / count
        return y

    def pooling_backward(self, x, y, gy, ksize, stride, pad, mode):
        """Average modes only (the max modes need x and y, which the wrappers never use)."""
        self.calls.append("pooling_backward")
        _dtype(x, y, gy)
        total, count = _pool_windows(np.ascontiguousarray(x), ksize, stride, pad, mode)
        if not y.shape == gy.shape == total.shape:  # one descriptor serves y and dy
            raise _bad_param(f"x {x.shape}, y {y.shape}, dy {gy.shape}: expected {total.shape}")
        share = np.ascontiguousarray(gy).astype(np.float64) / count
        spatial = x.shape[2:]
        grad = np.zeros(x.shape[:2] + tuple(n + 2 * p for n, p in zip(spatial, pad)))
        for window in _pool_slices(ksize, stride, total.shape[2:]):
            grad[(..., *window)] += share
        inner = tuple(slice(p, p + n) for n, p in zip(spatial, pad))
        return grad[(..., *inner)].astype(x.dtype)


def _pool_slices(ksize, stride, out_dims):
    """Per window offset, the strided slices of the padded input it reads."""
    for offset in itertools.product(*(range(k) for k in ksize)):
        yield tuple(slice(o, o + (m - 1) * s + 1, s) for o, m, s in zip(offset, out_dims, stride))


def _pool_windows(x, ksize, stride, pad, mode):
    """(window sums (N, C, *out) in float64, divisor) for cuDNN's average modes, N-D."""
    nd = x.ndim - 2
    if x.ndim not in (4, 5):
        raise _bad_param(f"pooling takes 4-D or 5-D tensors, got shape {x.shape}")
    _tuple(ksize, nd, 1, "ksize")
    _tuple(stride, nd, 1, "stride")
    _tuple(pad, nd, 0, "pad")
    spatial = x.shape[2:]
    # cudnnGetPoolingNdForwardOutputDim: 1 + (in + 2 pad - window) / stride
    out_dims = tuple(1 + (n + 2 * p - k) // s for n, p, k, s in zip(spatial, pad, ksize, stride))
    widths = ((0, 0), (0, 0), *((p, p) for p in pad))
    xpad = np.pad(x.astype(np.float64), widths)
    real = np.pad(np.ones(spatial), widths[2:])
    total = np.zeros(x.shape[:2] + out_dims)
    count = np.zeros(out_dims)
    for window in _pool_slices(ksize, stride, out_dims):
        total += xpad[(..., *window)]
        count += real[window]
    if mode == FakeLib.CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING:
        return total, count
    if mode == FakeLib.CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING:
        return total, np.prod(ksize)
    raise NotImplementedError(f"the fake pools averages only, got mode {mode}")


@pytest.fixture
def fake(monkeypatch) -> FakeCudnn:
    impl = FakeCudnn()
    monkeypatch.setattr(cudnn, "backend", lambda: cudnn.Backend(impl, FakeLib))
    return impl


# -- the fake itself: a direct reference and cuDNN's argument checks ----------------------------


def test_fake_convolution_matches_a_direct_loop():
    x = rng.normal(size=(2, 3, 6, 5))  # NCHW
    w = rng.normal(size=(4, 3, 3, 2))  # KCRS
    y = np.empty((2, 4, 3, 5))
    FakeCudnn().convolution_forward(
        x, w, None, y, (1, 1), (2, 1), (1, 2), 1, auto_tune=False, tensor_core="never"
    )
    xpad = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros_like(y)
    for n, k, p, q, c, r, s in itertools.product(*map(range, (2, 4, 3, 5, 3, 3, 2))):
        ref[n, k, p, q] += xpad[n, c, 2 * p + r, q + 2 * s] * w[k, c, r, s]
    np.testing.assert_allclose(y, ref, rtol=1e-12)


def conv_call(x, w, y, **changes):
    kwargs = {
        "auto_tune": False,
        "tensor_core": "auto",
        "d_layout": FakeLib.CUDNN_TENSOR_NHWC,
        "w_layout": FakeLib.CUDNN_TENSOR_NHWC,
    }
    args = {"pad": (1, 1), "stride": (1, 1), "dilation": (1, 1)}
    for key in list(changes):
        if key in args:
            args[key] = changes.pop(key)
    kwargs.update(changes)
    FakeCudnn().convolution_forward(x, w, None, y, *args.values(), 1, **kwargs)


def test_fake_checks_its_arguments_as_cudnn_does():
    x = rng.normal(size=(2, 5, 5, 3))  # NHWC
    w_krsc = rng.normal(size=(4, 3, 3, 3))
    conv_call(x, w_krsc, np.empty((2, 5, 5, 4)))  # the right call
    with pytest.raises(FakeLib.CuDNNError):  # an HWIO filter declared NHWC (KRSC)
        conv_call(x, np.ascontiguousarray(w_krsc.transpose(1, 2, 3, 0)), np.empty((2, 5, 5, 4)))
    with pytest.raises(FakeLib.CuDNNError):  # NHWC data declared NCHW
        conv_call(x, w_krsc, np.empty((2, 5, 5, 4)), d_layout=FakeLib.CUDNN_TENSOR_NCHW)
    with pytest.raises(FakeLib.CuDNNError):  # wrong output shape
        conv_call(x, w_krsc, np.empty((2, 4, 4, 4)))
    with pytest.raises(ValueError, match="c-contiguous"):
        conv_call(x, w_krsc, np.empty((2, 4, 5, 5)).transpose(0, 2, 3, 1))
    with pytest.raises(TypeError, match="tuple"):
        conv_call(x, w_krsc, np.empty((2, 5, 5, 4)), pad=[1, 1])
    with pytest.raises(FakeLib.CuDNNError):  # asymmetric padding has no cuDNN spelling
        conv_call(x, w_krsc, np.empty((2, 5, 5, 4)), pad=(1, 1, 0))
    with pytest.raises(FakeLib.CuDNNError):  # stricter than cupyx: Python ints only
        conv_call(x, w_krsc, np.empty((2, 5, 5, 4)), pad=(np.int64(1), 1))
    with pytest.raises(TypeError, match="not supported"):
        conv_call(x.astype(np.int32), w_krsc, np.empty((2, 5, 5, 4)))
    y = np.empty((2, 1, 2, 2, 3))
    with pytest.raises(FakeLib.CuDNNError):  # pad of the wrong rank for a 3-D pool
        FakeCudnn().pooling_forward(x[:, None], y, (2, 2, 1), (2, 2, 1), (0, 0), 2)


# -- the wrappers against eagerkernel's kernels -------------------------------------------------

# (input NHWC, filter HWIO, strides, dilations, padding)
CONV_CASES = {
    "same-3x2": ((2, 7, 6, 3), (3, 2, 3, 4), (1, 1), (1, 1), "SAME"),
    "valid-stride2x1": ((2, 7, 6, 3), (3, 2, 3, 4), (2, 1), (1, 1), "VALID"),
    "same-even-stride2-1ch": ((2, 8, 9, 1), (4, 4, 1, 5), (2, 2), (1, 1), "SAME"),
    "same-2x2-stride2-only-bottom-right": ((1, 7, 7, 3), (2, 2, 3, 2), (2, 2), (1, 1), "SAME"),
    "same-dilation2": ((2, 9, 8, 3), (3, 3, 3, 2), (1, 1), (2, 2), "SAME"),
    "same-dilation2x1-even": ((2, 9, 8, 1), (3, 2, 1, 2), (1, 1), (2, 1), "SAME"),
    "valid-dilation2-1ch": ((2, 9, 8, 1), (3, 3, 1, 2), (1, 1), (2, 2), "VALID"),
    "explicit": ((2, 6, 6, 3), (3, 3, 3, 2), (1, 1), (1, 1), [[0, 0], [2, 0], [1, 3], [0, 0]]),
}


def tf_pads(padding, in_hw, ksize, strides, dilations=(1, 1)):
    """TensorFlow's padding as ((top, bottom), (left, right)); SAME's odd one bottom/right."""
    if padding == "VALID":
        return ((0, 0), (0, 0))
    if padding != "SAME":
        return tuple(tuple(p) for p in padding[1:3])
    pads = []
    for n, k, s, d in zip(in_hw, ksize, strides, dilations):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return tuple(pads)


def conv_pads(x_shape, w_shape, strides, dilations, padding):
    return tf_pads(padding, x_shape[1:3], w_shape[:2], strides, dilations)


def close(actual, expected, dtype) -> None:
    assert actual is not None, "the cuDNN wrapper fell back (returned None)"
    assert actual.dtype == dtype and actual.shape == expected.shape
    tol = {np.float64: 1e-12, np.float32: 2e-5, np.float16: 2e-2}[dtype]
    scale = max(float(np.abs(expected).max()), 1.0)
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale)


def test_cases_include_asymmetric_padding():
    assert conv_pads((1, 8, 9, 1), (4, 4, 1, 1), (2, 2), (1, 1), "SAME") == ((1, 1), (1, 2))
    asym = [n for n, c in CONV_CASES.items() if any(a != b for a, b in conv_pads(*c))]
    assert {"same-3x2", "same-even-stride2-1ch", "same-dilation2x1-even"} <= set(asym)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONV_CASES.values(), ids=CONV_CASES.keys())
def test_conv_and_gradients_match_the_im2col_kernels(fake, case, dtype):
    x_shape, w_shape, strides, dilations, _ = case
    pads = conv_pads(*case)
    x = rng.normal(size=x_shape).astype(dtype)
    w = rng.normal(size=w_shape).astype(dtype)
    args = (strides, dilations, pads)

    expected = conv._conv_fwd(np, x, w, *args)[0]
    close(cudnn.conv2d(np, x, w, *args), expected, dtype)
    g = rng.normal(size=expected.shape).astype(dtype)
    close(
        cudnn.conv2d_backprop_input(np, g, w, x.shape, *args),
        conv._backprop_input_fwd(np, g, w, x.shape, *args),
        dtype,
    )
    close(
        cudnn.conv2d_backprop_filter(np, x, g, w.shape, *args),
        conv._backprop_filter_fwd(np, x, g, w.shape, *args),
        dtype,
    )
    assert fake.calls == [
        "convolution_forward",
        "convolution_backward_data",
        "convolution_backward_filter",
    ]


def test_filter_gradient_is_contiguous_hwio(fake):
    x = rng.normal(size=(1, 5, 5, 3)).astype(np.float32)
    g = rng.normal(size=(1, 5, 5, 2)).astype(np.float32)
    gw = cudnn.conv2d_backprop_filter(np, x, g, (3, 3, 3, 2), (1, 1), (1, 1), ((1, 1), (1, 1)))
    assert gw.shape == (3, 3, 3, 2) and gw.flags.c_contiguous


# (input NHWC, ksize, strides, padding)
POOL_CASES = {
    "same-2x2-stride2-odd-rows": ((2, 7, 6, 3), (2, 2), (2, 2), "SAME"),
    "same-3x3-stride2-even-1ch": ((2, 6, 6, 1), (3, 3), (2, 2), "SAME"),
    "same-3x3-symmetric": ((2, 7, 7, 3), (3, 3), (1, 1), "SAME"),
    "same-2x2-stride1": ((1, 5, 5, 2), (2, 2), (1, 1), "SAME"),
    "valid-3x2-stride2x1-1ch": ((2, 7, 6, 1), (3, 2), (2, 1), "VALID"),
    "valid-tiles": ((2, 8, 8, 3), (2, 2), (2, 2), "VALID"),
}


def pool_pads(x_shape, ksize, strides, padding):
    return tf_pads(padding, x_shape[1:3], ksize, strides)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", POOL_CASES.values(), ids=POOL_CASES.keys())
def test_avg_pool_and_gradient_match_the_tap_kernels(fake, case, dtype):
    x_shape, ksize, strides, _ = case
    pads = pool_pads(*case)
    x = rng.normal(size=x_shape).astype(dtype)

    expected = pool2d._avg_pool_fwd(np, x, ksize, strides, pads)
    close(cudnn.avg_pool(np, x, ksize, strides, pads), expected, dtype)
    g = rng.normal(size=expected.shape).astype(dtype)
    close(
        cudnn.avg_pool_grad(np, g, x.shape, ksize, strides, pads),
        pool2d._avg_pool_grad_fwd(np, g, x.shape, ksize, strides, pads),
        dtype,
    )
    assert fake.calls == ["pooling_forward", "pooling_backward"]


def test_same_avg_pool_divides_by_real_elements(fake):
    """TensorFlow's documented example: 3x3 input, 2x2 SAME pool, stride 2."""
    x = np.arange(9.0).reshape(1, 3, 3, 1)
    out = cudnn.avg_pool(np, x, (2, 2), (2, 2), pool_pads(x.shape, (2, 2), (2, 2), "SAME"))
    np.testing.assert_allclose(out[0, :, :, 0], [[2.0, 3.5], [6.5, 8.0]])


def test_float16_conv_and_avg_pool_run_through_cudnn(fake):
    x = rng.normal(size=(2, 7, 6, 3)).astype(np.float16)
    w = rng.normal(size=(3, 2, 3, 4)).astype(np.float16)
    args = ((2, 1), (1, 1), conv_pads(x.shape, w.shape, (2, 1), (1, 1), "SAME"))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    close(cudnn.conv2d(np, x, w, *args), conv._conv_fwd(np, x64, w64, *args)[0], np.float16)
    pads = pool_pads(x.shape, (2, 2), (2, 2), "SAME")
    expected = pool2d._avg_pool_fwd(np, x64, (2, 2), (2, 2), pads)
    close(cudnn.avg_pool(np, x, (2, 2), (2, 2), pads), expected, np.float16)
    assert fake.calls == ["convolution_forward", "pooling_forward"]  # neither fell back


# -- what falls back: None, and the fake is never called ----------------------------------------

SYM = ((1, 1), (1, 1))


def all_wrappers(x, w, g, gp):
    """Every wrapper on 5x5 inputs, a 3x3 filter, SAME padding (g: conv cotangent, gp: pool's)."""
    return [
        cudnn.conv2d(np, x, w, (1, 1), (1, 1), SYM),
        cudnn.conv2d_backprop_input(np, g, w, x.shape, (1, 1), (1, 1), SYM),
        cudnn.conv2d_backprop_filter(np, x, g, w.shape, (1, 1), (1, 1), SYM),
        cudnn.avg_pool(np, x, (3, 3), (1, 1), SYM),
        cudnn.avg_pool_grad(np, gp, x.shape, (3, 3), (1, 1), SYM),
    ]


def arrays(x_dtype, w_dtype=None):
    x = rng.normal(size=(1, 5, 5, 2)).astype(x_dtype)
    w = rng.normal(size=(3, 3, 2, 2)).astype(w_dtype or x_dtype)
    g = rng.normal(size=(1, 5, 5, 2)).astype(x_dtype)
    return x, w, g, g


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.complex64, np.bool_])
def test_unsupported_dtype_returns_none(fake, dtype):
    assert all_wrappers(*arrays(dtype)) == [None] * 5
    assert fake.calls == []


def test_mixed_dtypes_return_none(fake):
    x, w, g, _ = arrays(np.float32, np.float64)
    args = ((1, 1), (1, 1), SYM)
    assert cudnn.conv2d(np, x, w, *args) is None
    assert cudnn.conv2d_backprop_input(np, g, w, x.shape, *args) is None
    assert cudnn.conv2d_backprop_filter(np, x.astype(np.float16), g, w.shape, *args) is None
    assert fake.calls == []


def test_without_cudnn_every_wrapper_returns_none(monkeypatch):
    monkeypatch.setattr(cudnn, "backend", lambda: None)
    assert all_wrappers(*arrays(np.float32)) == [None] * 5


def test_a_case_cudnn_refuses_returns_none(monkeypatch):
    class Refusing:
        def __getattr__(self, name):
            def refuse(*args, **kwargs):
                raise FakeLib.CuDNNError("CUDNN_STATUS_NOT_SUPPORTED")

            return refuse

    monkeypatch.setattr(cudnn, "backend", lambda: cudnn.Backend(Refusing(), FakeLib))
    assert all_wrappers(*arrays(np.float64)) == [None] * 5


# -- available ----------------------------------------------------------------------------------


def test_available_is_false_for_numpy_without_importing_cupy(monkeypatch):
    def no_lookup():
        raise AssertionError("available(numpy) must not look cuDNN up")

    had_cupy = "cupy" in sys.modules
    monkeypatch.setattr(cudnn, "backend", no_lookup)
    assert cudnn.available(np) is False
    assert ("cupy" in sys.modules) == had_cupy


def test_available_for_cupy_follows_the_backend(monkeypatch):
    fake_cupy = types.ModuleType("cupy")
    assert cudnn.available(types.ModuleType("not_cupy")) is False
    monkeypatch.setattr(cudnn, "backend", lambda: cudnn.Backend(FakeCudnn(), FakeLib))
    assert cudnn.available(fake_cupy) is True
    monkeypatch.setattr(cudnn, "backend", lambda: None)
    assert cudnn.available(fake_cupy) is False


def test_real_backend_lookup_never_raises_and_is_cached():
    cudnn.backend.cache_clear()
    try:
        found = cudnn.backend()
        assert cudnn.backend() is found
        if importlib.util.find_spec("cupy") is None:
            assert found is None
            assert cudnn.available(types.ModuleType("cupy")) is False
    finally:
        cudnn.backend.cache_clear()


class NumpyNamedCupy(types.ModuleType):
    """NumPy under the name ``cupy``: what the conv kernels see on a real GPU, minus the GPU."""

    def __init__(self):
        super().__init__("cupy")

    def __getattr__(self, name):
        return getattr(np, name)


def test_conv_kernels_dispatch_to_cudnn_on_cupy_and_fall_back_when_refused(fake, monkeypatch):
    xp = NumpyNamedCupy()
    x = rng.normal(size=(2, 7, 6, 3)).astype(np.float32)
    w = rng.normal(size=(3, 2, 3, 4)).astype(np.float32)
    args = ((2, 1), (1, 1), conv_pads(x.shape, w.shape, (2, 1), (1, 1), "SAME"))
    y = conv._conv_fwd(xp, x, w, *args)[0]
    g = rng.normal(size=y.shape).astype(np.float32)
    dx = conv._backprop_input_fwd(xp, g, w, x.shape, *args)
    dw = conv._backprop_filter_fwd(xp, x, g, w.shape, *args)
    pool_args = ((3, 3), (2, 2), pool_pads(x.shape, (3, 3), (2, 2), "SAME"))
    p = pool2d._avg_pool_fwd(xp, x, *pool_args)
    dp = pool2d._avg_pool_grad_fwd(xp, p, x.shape, *pool_args)
    assert fake.calls == [
        "convolution_forward",
        "convolution_backward_data",
        "convolution_backward_filter",
        "pooling_forward",
        "pooling_backward",
    ]
    close(y, conv._conv_fwd(np, x, w, *args)[0], np.float32)
    close(dx, conv._backprop_input_fwd(np, g, w, x.shape, *args), np.float32)
    close(dw, conv._backprop_filter_fwd(np, x, g, w.shape, *args), np.float32)
    close(p, pool2d._avg_pool_fwd(np, x, *pool_args), np.float32)
    close(dp, pool2d._avg_pool_grad_fwd(np, p, x.shape, *pool_args), np.float32)
    # Without cuDNN, the same kernels run their im2col and tap code on "cupy".
    monkeypatch.setattr(cudnn, "backend", lambda: None)
    fake.calls.clear()
    close(conv._conv_fwd(xp, x, w, *args)[0], y, np.float32)
    assert fake.calls == []
