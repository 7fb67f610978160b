"""The device tests against real CUDA GPUs through CuPy (marker ``cuda``).

Skipped, with the reason, unless ``cupy`` imports and finds a CUDA device; the same logic is
tested on every machine with virtual GPUs (tests/test_devices.py, tests/test_virtual_gpu_ops.py).
Run in a fresh process without ``EAGERKERNEL_VIRTUAL_GPUS`` (virtual GPUs replace real ones).
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import device as device_mod


def _cuda_reason() -> str:
    try:
        import cupy
    except Exception as exc:
        return f"cupy does not import ({type(exc).__name__}: {exc})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return f"cupy finds no CUDA device ({type(exc).__name__}: {exc})"
    return "" if n else "cupy finds no CUDA device"


_REASON = _cuda_reason()
KDL_CPU, KDL_CUDA = 1, 2  # DLPack's device types, as `Tensor.__dlpack_device__` gives them
pytestmark = [pytest.mark.cuda, pytest.mark.skipif(bool(_REASON), reason=_REASON or "ok")]


@pytest.fixture(autouse=True)
def real_gpus():
    gpus = [d for d in device_mod.list_devices() if d.device_type == "GPU"]
    if not gpus or any(d.virtual for d in gpus):
        pytest.skip("virtual GPUs are enabled in this process; run tests/test_cuda.py alone")
    yield
    ek.config.set_default_device(None)


def test_gpu_is_real_and_cupy_backed():
    import cupy

    d = device_mod.get_device("/gpu:0")
    assert d.xp is cupy and not d.virtual and "CUDA" in d.describe()
    assert not ek.config.list_physical_devices("GPU")[0].virtual


def test_placement_copies_and_results():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with ek.device("/gpu:0"):
        t = ek.constant(x)
        y = ek.matmul(t, ek.transpose(t)) + 1.0
    assert (
        y.__dlpack_device__() == (KDL_CUDA, 0)
        and y.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    )
    np.testing.assert_allclose(y.numpy(), x @ x.T + 1, rtol=1e-5)
    assert (
        y.cpu().__dlpack_device__() == (KDL_CPU, 0)
        and y.cpu().device == "/job:localhost/replica:0/task:0/device:CPU:0"
    )
    with pytest.raises(ValueError, match="/cpu:0, /gpu:0"):
        ek.constant(x) + t


def test_gradient_returns_to_cpu():
    x = ek.constant([0.5, 1.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        with ek.device("/gpu:0"):
            y = ek.reduce_sum(ek.sin(x))
    g = tape.gradient(y, x)
    assert g.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    np.testing.assert_allclose(g.numpy(), np.cos([0.5, 1.0]), rtol=1e-6)


def test_optimizer_and_conv_on_gpu():
    rng = np.random.default_rng(0)
    with ek.device("/gpu:0"):
        w = ek.Variable(rng.normal(size=(3, 3, 1, 4)).astype(np.float32))
        x = ek.constant(rng.normal(size=(2, 8, 8, 1)).astype(np.float32))
        opt = ek.keras.optimizers.Adam(0.01)
        with ek.GradientTape() as tape:
            loss = ek.reduce_mean(ek.nn.max_pool2d(ek.nn.conv2d(x, w, 1, "SAME"), 2, 2, "VALID"))
        opt.apply_gradients([(tape.gradient(loss, w), w)])
    assert (
        w.device == "/job:localhost/replica:0/task:0/device:GPU:0"
        and loss.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    )


def test_random_uses_cupy_generator_and_seed():
    with ek.device("/gpu:0"):
        ek.random.set_seed(3)
        a = ek.random.normal([4])
        ek.random.set_seed(3)
        b = ek.random.normal([4])
    assert a.__dlpack_device__() == (KDL_CUDA, 0)  # drawn on the GPU, not copied there
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_dlpack_with_cupy_zero_copy():
    import cupy

    t = ek.constant([1.0, 2.0]).gpu()
    c = cupy.from_dlpack(t)
    assert c.data.ptr == cupy.from_dlpack(t).data.ptr  # each export is the same memory
    back = ek.experimental.dlpack.from_dlpack(c)
    assert (
        back.device == "/job:localhost/replica:0/task:0/device:GPU:0"
        and cupy.from_dlpack(back).data.ptr == c.data.ptr
    )
    np.testing.assert_array_equal(back.numpy(), [1.0, 2.0])


def test_free_gpu_memory_returns_the_cached_blocks_to_the_driver():
    import cupy

    pool = cupy.get_default_memory_pool()
    t = ek.constant(np.ones((1000, 1000), np.float32)).gpu()
    assert (
        t.device == "/job:localhost/replica:0/task:0/device:GPU:0"
        and float(ek.reduce_sum(t)) == 1e6
    )
    del t  # its 4 MB block goes back to CuPy's pool, which keeps it cached
    assert pool.free_bytes() >= 4_000_000
    live = pool.used_bytes()
    ek.config.experimental.free_gpu_memory()
    assert pool.free_bytes() == 0 and pool.total_bytes() == pool.used_bytes() == live
    assert cupy.get_default_pinned_memory_pool().n_free_blocks() == 0
    kept = ek.constant([1.0, 2.0]).gpu()  # live tensors are untouched
    ek.config.experimental.free_gpu_memory()
    np.testing.assert_array_equal(kept.numpy(), [1.0, 2.0])


# -- the cuDNN path (ops/cudnn.py) against the im2col / tap path, both on the GPU ---------------

CUDNN_CONV_CASES = {  # (input NHWC, filter HWIO, strides, dilations, padding)
    "same-3x2": ((2, 15, 14, 3), (3, 2, 3, 8), (1, 1), (1, 1), "SAME"),
    "valid-stride2x1": ((2, 15, 14, 3), (3, 3, 3, 8), (2, 1), (1, 1), "VALID"),
    "same-even-stride2-1ch": ((4, 16, 17, 1), (4, 4, 1, 8), (2, 2), (1, 1), "SAME"),
    "same-dilation2": ((2, 17, 16, 3), (3, 3, 3, 4), (1, 1), (2, 2), "SAME"),
    "valid-dilation2-1ch": ((2, 17, 16, 1), (3, 3, 1, 4), (1, 1), (2, 2), "VALID"),
}
CUDNN_POOL_CASES = {  # (input NHWC, ksize, strides, padding)
    "same-2x2-stride2-odd": ((2, 15, 14, 3), (2, 2), (2, 2), "SAME"),
    "same-3x3-stride2-even-1ch": ((2, 16, 16, 1), (3, 3), (2, 2), "SAME"),
    "same-3x3-symmetric": ((2, 15, 15, 8), (3, 3), (1, 1), "SAME"),
    "valid-tiles": ((2, 16, 16, 8), (2, 2), (2, 2), "VALID"),
}


def _tf_pads(padding, in_hw, ksize, strides, dilations):
    """TensorFlow's SAME / VALID padding as ((top, bottom), (left, right))."""
    if padding == "VALID":
        return ((0, 0), (0, 0))
    pads = []
    for n, k, s, d in zip(in_hw, ksize, strides, dilations):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return tuple(pads)


@pytest.fixture
def cudnn_path():
    import cupy

    from eagerkernel.runtime.ops import cudnn

    if not cudnn.available(cupy):
        pytest.skip("no cuDNN through cupyx.cudnn (CuPy 14 removed it; CuPy 13 needs libcudnn)")
    return cudnn


def _im2col_path(monkeypatch, kernel, *args):
    """``kernel`` on CuPy with cuDNN hidden from the dispatch: the im2col / tap path."""
    import cupy

    from eagerkernel.runtime.ops import cudnn

    with monkeypatch.context() as m:
        m.setattr(cudnn, "backend", lambda: None)
        return kernel(cupy, *args)


def _same_on_gpu(cudnn_out, im2col_out, dtype) -> None:
    import cupy

    assert cudnn_out is not None, "cuDNN refused the case: the wrapper returned None"
    assert isinstance(cudnn_out, cupy.ndarray) and cudnn_out.dtype == dtype
    expected = cupy.asnumpy(im2col_out)
    # float32 allows TF32 (cuDNN 8+ on Ampere and newer may use it for convolutions).
    tol = 1e-10 if dtype == np.float64 else 3e-3
    scale = max(float(np.abs(expected).max()), 1.0)
    np.testing.assert_allclose(cupy.asnumpy(cudnn_out), expected, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CUDNN_CONV_CASES.values(), ids=CUDNN_CONV_CASES.keys())
def test_cudnn_conv2d_and_gradients_match_im2col(cudnn_path, monkeypatch, case, dtype):
    import cupy

    from eagerkernel.runtime.ops import conv

    x_shape, w_shape, strides, dilations, padding = case
    pads = _tf_pads(padding, x_shape[1:3], w_shape[:2], strides, dilations)
    rng = np.random.default_rng(0)
    x = cupy.asarray(rng.normal(size=x_shape).astype(dtype))
    w = cupy.asarray(rng.normal(size=w_shape).astype(dtype))
    args = (strides, dilations, pads)

    y = _im2col_path(monkeypatch, conv._conv_fwd, x, w, *args)
    _same_on_gpu(cudnn_path.conv2d(cupy, x, w, *args), y, dtype)
    g = cupy.asarray(rng.normal(size=y.shape).astype(dtype))
    _same_on_gpu(
        cudnn_path.conv2d_backprop_input(cupy, g, w, x.shape, *args),
        _im2col_path(monkeypatch, conv._backprop_input_fwd, g, w, x.shape, *args),
        dtype,
    )
    _same_on_gpu(
        cudnn_path.conv2d_backprop_filter(cupy, x, g, w.shape, *args),
        _im2col_path(monkeypatch, conv._backprop_filter_fwd, x, g, w.shape, *args),
        dtype,
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CUDNN_POOL_CASES.values(), ids=CUDNN_POOL_CASES.keys())
def test_cudnn_avg_pool_and_gradient_match_the_tap_path(cudnn_path, monkeypatch, case, dtype):
    import cupy

    from eagerkernel.runtime.ops import pool2d

    x_shape, ksize, strides, padding = case
    pads = _tf_pads(padding, x_shape[1:3], ksize, strides, (1, 1))
    rng = np.random.default_rng(1)
    x = cupy.asarray(rng.normal(size=x_shape).astype(dtype))

    y = _im2col_path(monkeypatch, pool2d._avg_pool_fwd, x, ksize, strides, pads)
    _same_on_gpu(cudnn_path.avg_pool(cupy, x, ksize, strides, pads), y, dtype)
    g = cupy.asarray(rng.normal(size=y.shape).astype(dtype))
    _same_on_gpu(
        cudnn_path.avg_pool_grad(cupy, g, x.shape, ksize, strides, pads),
        _im2col_path(monkeypatch, pool2d._avg_pool_grad_fwd, g, x.shape, ksize, strides, pads),
        dtype,
    )


def test_conv_and_pools_with_gradients_on_gpu_match_cpu():
    """The whole ops (whichever path the GPU takes) against the CPU, values and gradients."""
    rng = np.random.default_rng(2)
    x_np = rng.normal(size=(2, 15, 14, 3)).astype(np.float64)
    w_np = rng.normal(size=(4, 4, 3, 8)).astype(np.float64)

    def run(device):
        with ek.device(device):
            x, w = ek.constant(x_np), ek.constant(w_np)
            with ek.GradientTape() as tape:
                tape.watch([x, w])
                h = ek.nn.conv2d(x, w, strides=2, padding="SAME")
                h = ek.nn.avg_pool2d(h, 3, 2, "SAME") + ek.nn.max_pool2d(h, 3, 2, "SAME")
                loss = ek.reduce_sum(h * h)
            grads = tape.gradient(loss, [x, w])
        return [t.numpy() for t in (h, *grads)]

    for gpu, cpu in zip(run("/gpu:0"), run("/cpu:0")):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-9, atol=1e-9)
