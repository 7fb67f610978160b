"""The device tests against real CUDA GPUs through CuPy (marker ``cuda``).

Skipped, with the reason, unless ``cupy`` imports and finds a CUDA device; the same logic is
tested on every machine with virtual GPUs (tests/test_devices.py, tests/test_virtual_gpu_ops.py).
Run in a fresh process without ``EAGERKERNEL_VIRTUAL_GPUS`` (virtual GPUs replace real ones).
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime import device as device_mod


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
    import cupy

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with ek.device("/gpu:0"):
        t = ek.constant(x)
        y = ek.matmul(t, ek.transpose(t)) + 1.0
    assert isinstance(y._value, cupy.ndarray) and y.device == "/gpu:0"
    np.testing.assert_allclose(y.numpy(), x @ x.T + 1, rtol=1e-5)
    assert isinstance(y.cpu()._value, np.ndarray)
    with pytest.raises(ValueError, match="/cpu:0, /gpu:0"):
        ek.constant(x) + t


def test_gradient_returns_to_cpu():
    x = ek.constant([0.5, 1.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        with ek.device("/gpu:0"):
            y = ek.reduce_sum(ek.sin(x))
    g = tape.gradient(y, x)
    assert g.device == "/cpu:0"
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
    assert w.device == "/gpu:0" and loss.device == "/gpu:0"


def test_random_uses_cupy_generator_and_seed():
    import cupy

    with ek.device("/gpu:0"):
        ek.random.set_seed(3)
        a = ek.random.normal([4])
        ek.random.set_seed(3)
        b = ek.random.normal([4])
    assert isinstance(a._value, cupy.ndarray)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_dlpack_with_cupy_zero_copy():
    import cupy

    t = ek.constant([1.0, 2.0]).gpu()
    c = cupy.from_dlpack(t)
    assert c.data.ptr == t._value.data.ptr
    back = ek.experimental.dlpack.from_dlpack(c)
    assert back.device == "/gpu:0" and back._value.data.ptr == c.data.ptr


def test_free_gpu_memory():
    ek.constant(np.ones((1000, 1000), np.float32)).gpu()
    ek.config.experimental.free_gpu_memory()
