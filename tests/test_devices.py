"""Devices on CPU with two virtual (NumPy-backed) GPUs: names, placement, copies, gradients
across devices, variables and optimizers on a GPU, Dataset batches, %device, DLPack.

Virtual GPUs prove the device logic (placement, copies, errors, labels); they do not exercise
CuPy. tests/test_cuda.py runs the CuPy path where a CUDA device exists.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import device as device_mod


@pytest.fixture(autouse=True)
def two_virtual_gpus():
    ek.config.experimental.set_virtual_gpus(2)
    yield
    ek.config.set_default_device(None)


def _run(code: str, **env) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "EAGERKERNEL_VIRTUAL_GPUS"}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=60
    )


# -- names and listings -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["/gpu:0", "gpu:0", "/device:GPU:0", "GPU:0", "GPU", "/job:localhost/device:GPU:0"]
)
def test_tensorflow_gpu_names(name):
    assert device_mod.get_device(name).name == "/gpu:0"
    with ek.device(name):
        assert ek.constant(1.0).device == "/job:localhost/replica:0/task:0/device:GPU:0"


@pytest.mark.parametrize("name", ["/cpu:0", "cpu:0", "CPU:0", "/device:CPU:0"])
def test_tensorflow_cpu_names(name):
    with ek.device(name):
        assert ek.constant(1.0).device == "/job:localhost/replica:0/task:0/device:CPU:0"


def test_bad_name_is_value_error():
    with pytest.raises(ValueError, match="cannot parse"):
        ek.device("/tpu:0")


def test_listings_label_virtual_gpus():
    gpus = ek.config.list_physical_devices("GPU")
    assert [g.name for g in gpus] == ["/physical_device:GPU:0", "/physical_device:GPU:1"]
    assert all(g.virtual for g in gpus)
    assert not ek.config.list_physical_devices("CPU")[0].virtual
    assert ek.num_gpus() == 2
    for d in device_mod.list_devices()[1:]:
        assert "virtual" in d.describe() and "virtual" in repr(d)
    with ek.device("/gpu:1"):
        t = ek.constant([1.0])
        v = ek.Variable([1.0])
    assert "device=/gpu:1 (virtual)" in repr(t)
    assert "(virtual)" in repr(v)
    from eagerkernel.kernel import banner

    assert "/gpu:0 (virtual GPU, NumPy-backed)" in banner()
    from eagerkernel.magics.device_magic import DeviceListing

    listing = DeviceListing()
    assert "virtual" in repr(listing) and "virtual" in listing._repr_html_()


@pytest.fixture
def strict_placement():
    ek.config.set_soft_device_placement(False)
    yield
    ek.config.set_soft_device_placement(True)


def test_absent_gpu_lists_devices_and_reason(strict_placement):
    assert ek.config.get_soft_device_placement() is False
    with pytest.raises(RuntimeError) as info:
        ek.device("/gpu:5")
    msg = str(info.value)
    assert "/cpu:0" in msg and "/gpu:1 (virtual" in msg and "EAGERKERNEL_VIRTUAL_GPUS" in msg


def test_no_gpu_reason_in_fresh_process():
    code = (
        "import eagerkernel as ek\n"
        "try:\n    ek.constant(1.0).gpu()\n"
        "except RuntimeError as e:\n    print(e)\n"
        "print('GPUS', ek.num_gpus())\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    try:
        import cupy
    except Exception:
        cupy = None
    reason = "CuPy is not installed" if cupy is None else "CuPy found no CUDA device"
    try:
        real_gpus = cupy.cuda.runtime.getDeviceCount() if cupy is not None else 0
    except Exception:  # no driver, an insufficient driver, ...
        real_gpus = 0
    if real_gpus == 0:
        assert out.splitlines()[-1] == "GPUS 0", out
        assert "/gpu:0" in out and "is not present" in out and reason in out
        assert "/cpu:0" in out and "EAGERKERNEL_VIRTUAL_GPUS" in out
    else:  # a machine with a real GPU: the copy works and the GPUs are counted
        assert out.startswith("GPUS ") and int(out.split()[1]) >= 1, out


def test_environment_variable_makes_virtual_gpus():
    code = "import eagerkernel as ek; print(ek.num_gpus(), ek.config.list_physical_devices('GPU'))"
    out = _run(code, EAGERKERNEL_VIRTUAL_GPUS="3").stdout
    assert out.startswith("3 ") and out.count("virtual=True") == 3


def test_set_virtual_gpus_after_use_rejects_a_new_count():
    ek.constant(1.0).gpu()
    ek.config.experimental.set_virtual_gpus(2)  # same count: fine
    with pytest.raises(RuntimeError, match="after one has been used"):
        ek.config.experimental.set_virtual_gpus(3)


def test_set_virtual_gpus_before_first_use_recreates_devices():
    code = (
        "import eagerkernel as ek\n"
        "ek.config.list_physical_devices()\n"  # the kernel banner lists devices first
        "ek.config.experimental.set_virtual_gpus(2)\n"
        "print(ek.num_gpus(), ek.constant(1.0).gpu(1).device)\n"
    )
    assert _run(code).stdout.split() == ["2", "/job:localhost/replica:0/task:0/device:GPU:1"]


# -- placement ------------------------------------------------------------------------------------
def test_ops_in_scope_run_there_and_copy_inputs():
    x = ek.constant([1.0, 2.0])
    with ek.device("/gpu:0"):
        y = x * 2.0
        z = ek.matmul(ek.reshape(x, (1, 2)), ek.ones((2, 1)))
    assert (
        y.device == "/job:localhost/replica:0/task:0/device:GPU:0"
        and z.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    )
    assert x.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    np.testing.assert_allclose(y.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(z.numpy(), [[3.0]])


def test_outside_scope_ops_run_where_inputs_are():
    a = ek.constant([1.0, 2.0]).gpu(1)
    b = ek.exp(a) + a
    assert b.device == "/job:localhost/replica:0/task:0/device:GPU:1"
    assert ek.reduce_sum(b).device == "/job:localhost/replica:0/task:0/device:GPU:1"
    assert (
        (1.0 + a).device == "/job:localhost/replica:0/task:0/device:GPU:1"
    )  # the Python number joins the tensor's device


@pytest.mark.parametrize("recording", [False, True])
def test_mismatched_devices_name_both(recording):
    a = ek.constant([1.0, 2.0])
    b = a.gpu(0)
    with ek.GradientTape() if recording else _null():
        with pytest.raises(ValueError, match=r"/cpu:0, /gpu:0"):
            a + b
        with pytest.raises(ValueError, match=r"/gpu:0, /cpu:0"):
            ek.concat([b, a], axis=0)


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_gpu_and_cpu_copies_do_not_share_memory():
    a = ek.constant([1.0, 2.0, 3.0])
    g = a.gpu()
    assert (
        g.device == "/job:localhost/replica:0/task:0/device:GPU:0"
        and g.gpu(1).device == "/job:localhost/replica:0/task:0/device:GPU:1"
    )
    assert g.gpu() is g
    assert not np.shares_memory(np.asarray(a), np.asarray(g))  # asarray: a view of the tensor
    back = g.cpu()
    assert back.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    np.testing.assert_array_equal(back.numpy(), a.numpy())


def test_scope_is_per_thread():
    seen = []
    with ek.device("/gpu:0"):
        t = threading.Thread(target=lambda: seen.append(ek.constant(1.0).device))
        t.start()
        t.join()
        assert ek.constant(1.0).device == "/job:localhost/replica:0/task:0/device:GPU:0"
    assert seen == ["/job:localhost/replica:0/task:0/device:CPU:0"]


def test_set_default_device():
    ek.config.set_default_device("GPU:1")
    assert ek.config.get_default_device() == "/gpu:1"
    assert ek.constant(1.0).device == "/job:localhost/replica:0/task:0/device:GPU:1"
    assert ek.zeros((2,)).device == "/job:localhost/replica:0/task:0/device:GPU:1"
    with ek.device("/cpu:0"):
        assert ek.constant(1.0).device == "/job:localhost/replica:0/task:0/device:CPU:0"
    ek.config.set_default_device(None)
    assert ek.constant(1.0).device == "/job:localhost/replica:0/task:0/device:CPU:0"


# -- gradients across devices ---------------------------------------------------------------------
def test_gradient_returns_to_source_device_through_scope():
    x = ek.constant([0.5, 1.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        with ek.device("/gpu:0"):
            y = ek.reduce_sum(ek.sin(x) * 3.0)
    assert y.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    (g,) = tape.gradient(y, [x])
    assert g.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    np.testing.assert_allclose(g.numpy(), 3 * np.cos([0.5, 1.0]), rtol=1e-6)


def test_gradient_through_explicit_copies_and_second_order():
    x = ek.constant(2.0, dtype=ek.float64)
    with ek.GradientTape() as outer:
        outer.watch(x)
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = (x.gpu(1) ** 3).cpu()
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    assert (
        dy.device == "/job:localhost/replica:0/task:0/device:CPU:0"
        and d2y.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    )
    assert float(dy) == pytest.approx(12.0) and float(d2y) == pytest.approx(12.0)


def test_gradient_from_gpu_variable_stays_on_gpu():
    with ek.device("/gpu:0"):
        w = ek.Variable([1.0, 2.0])
    x = ek.constant([3.0, 4.0])
    with ek.GradientTape() as tape, ek.device("/gpu:0"):
        loss = ek.reduce_sum(w * x)
    (g,) = tape.gradient(loss, [w])
    assert g.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    np.testing.assert_allclose(g.numpy(), [3.0, 4.0])


# -- variables and optimizers ---------------------------------------------------------------------
def test_variable_stays_on_its_device_through_assign():
    with ek.device("/gpu:1"):
        v = ek.Variable([1.0, 2.0])
    assert v.device == "/job:localhost/replica:0/task:0/device:GPU:1"
    v.assign(ek.constant([5.0, 6.0]))  # a CPU value
    assert (
        v.device == "/job:localhost/replica:0/task:0/device:GPU:1"
        and v.read_value().device == "/job:localhost/replica:0/task:0/device:GPU:1"
    )
    v.assign_add(np.array([1.0, 1.0], np.float32))
    v.assign_sub(ek.constant([2.0, 2.0]).gpu(0))
    assert v.device == "/job:localhost/replica:0/task:0/device:GPU:1"
    np.testing.assert_allclose(v.numpy(), [4.0, 5.0])


@pytest.mark.parametrize("make_opt", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_optimizer_updates_gpu_variables_like_cpu_ones(make_opt):
    def train(device):
        with ek.device(device):
            w = ek.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32))
            opt = getattr(ek.keras.optimizers, make_opt)(learning_rate=0.1)
            x = ek.constant([[1.0, 2.0]])
            for _ in range(3):
                with ek.GradientTape() as tape:
                    loss = ek.reduce_sum(ek.square(ek.matmul(x, w)))
                opt.apply_gradients([(tape.gradient(loss, w), w)])
        return w

    cpu, gpu = train("/cpu:0"), train("/gpu:0")
    assert gpu.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    np.testing.assert_allclose(gpu.numpy(), cpu.numpy(), rtol=1e-6)


def test_optimizer_slots_live_with_the_variable():
    with ek.device("/gpu:1"):
        w = ek.Variable([1.0, 2.0])
    opt = ek.keras.optimizers.Adam(0.1)
    opt.apply_gradients([(ek.constant([1.0, 1.0]), w)])  # a CPU gradient is copied over
    assert w.device == "/job:localhost/replica:0/task:0/device:GPU:1"
    slots = [opt.get_slot(w, n) for n in opt.get_slot_names()]
    assert slots and all(s.device == "/job:localhost/replica:0/task:0/device:GPU:1" for s in slots)


def test_keras_model_trains_on_virtual_gpu():
    ek.random.set_seed(0)
    x = np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32)
    y = (x.sum(axis=1) > 0).astype(np.int32)
    with ek.device("/gpu:0"):
        model = ek.keras.Sequential(
            [ek.keras.layers.Dense(8, activation="relu"), ek.keras.layers.Dense(2)]
        )
        opt = ek.keras.optimizers.SGD(0.1)
        loss_fn = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        for _ in range(3):
            with ek.GradientTape() as tape:
                loss = loss_fn(y, model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
    assert loss.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    assert all(v.device == "/job:localhost/replica:0/task:0/device:GPU:0" for v in model.variables)


# -- data, random, memory, timing -----------------------------------------------------------------
def test_dataset_batches_moved_to_gpu():
    ds = ek.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32)).batch(4)
    batches = list(ds.map(lambda b: b.gpu(1)))
    assert [b.device for b in batches] == ["/job:localhost/replica:0/task:0/device:GPU:1"] * 3
    np.testing.assert_array_equal(np.concatenate([b.numpy() for b in batches]), np.arange(10))
    parallel = ds.map(lambda b: b.gpu(0), num_parallel_calls=2).prefetch(2)
    assert {b.device for b in parallel} == {"/job:localhost/replica:0/task:0/device:GPU:0"}


def test_random_on_virtual_gpu_matches_cpu_for_a_seed():
    ek.random.set_seed(7)
    cpu = ek.random.normal([3]).numpy()
    ek.random.set_seed(7)
    with ek.device("/gpu:0"):
        gpu = ek.random.normal([3])
        u = ek.random.uniform([2], maxval=5, dtype=ek.int32)
    assert (
        gpu.device == "/job:localhost/replica:0/task:0/device:GPU:0"
        and u.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    )
    np.testing.assert_array_equal(gpu.numpy(), cpu)


def test_free_gpu_memory_and_synchronize_are_no_ops_without_cupy(monkeypatch):
    # This process has virtual GPUs only, and CuPy is absent (or not imported): both calls
    # return without importing it, and the tensors on every device keep their values.
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` now raises ImportError
    tensors = [ek.constant([1.0, 2.0]), ek.constant([3.0]).gpu(0), ek.constant([4.0]).gpu(1)]
    assert ek.config.experimental.free_gpu_memory() is None
    devices = device_mod.list_devices()
    assert [d.name for d in devices] == ["/cpu:0", "/gpu:0", "/gpu:1"]
    assert all(d.xp is np for d in devices)
    assert [d.synchronize() for d in devices] == [None, None, None]
    assert sys.modules["cupy"] is None
    assert [t.numpy().tolist() for t in tensors] == [[1.0, 2.0], [3.0], [4.0]]


# -- %device --------------------------------------------------------------------------------------
def test_device_magic_in_interactive_shell():
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.testing.globalipapp import start_ipython
    from IPython.utils.capture import capture_output

    start_ipython()
    ip = InteractiveShell.instance()
    ip.extension_manager.load_extension("eagerkernel")
    ip.user_ns.update(ek=ek)
    try:
        with capture_output():
            listing = ip.run_cell("%device gpu:1").result
        assert "* /gpu:1" in repr(listing) and "virtual" in repr(listing)
        assert (
            ip.run_cell("ek.constant(1.0).device").result
            == "/job:localhost/replica:0/task:0/device:GPU:1"
        )
        with capture_output() as cap:
            result = ip.run_cell("%device gpu:9")
        assert result.error_in_exec is not None or "is not present" in cap.stderr + cap.stdout
        assert ek.config.get_default_device() == "/gpu:1"
        with capture_output():
            ip.run_cell("%device /cpu:0")
        assert (
            ip.run_cell("ek.constant(1.0).device").result
            == "/job:localhost/replica:0/task:0/device:CPU:0"
        )
    finally:
        ek.config.set_default_device(None)


# -- DLPack ---------------------------------------------------------------------------------------
def test_dlpack_numpy_zero_copy():
    t = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    a = np.from_dlpack(t)
    assert np.shares_memory(a, np.asarray(t))
    assert t.__dlpack_device__() == (1, 0)
    back = ek.experimental.dlpack.from_dlpack(a)
    assert back.device == "/job:localhost/replica:0/task:0/device:CPU:0" and np.shares_memory(
        np.asarray(back), a
    )
    s = ek.constant(3.0)
    assert float(np.from_dlpack(s)) == 3.0


def test_dlpack_torch_zero_copy_both_ways():
    torch = pytest.importorskip("torch")
    t = ek.constant([1.0, 2.0, 3.0])
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == np.asarray(t).ctypes.data
    src = torch.arange(4, dtype=torch.float32)
    e = ek.experimental.dlpack.from_dlpack(src)
    assert np.asarray(e).ctypes.data == src.data_ptr() and e.dtype == ek.float32
    capsule = torch.utils.dlpack.to_dlpack(src)
    e2 = ek.experimental.dlpack.from_dlpack(capsule)
    assert np.asarray(e2).ctypes.data == src.data_ptr()
    back = torch.utils.dlpack.from_dlpack(ek.experimental.dlpack.to_dlpack(t))
    assert back.data_ptr() == np.asarray(t).ctypes.data


def test_dlpack_virtual_gpu_exports_host_memory():
    g = ek.constant([1.0, 2.0]).gpu(0)
    assert g.__dlpack_device__() == (1, 0)  # virtual: the data is in host memory
    np.testing.assert_array_equal(np.from_dlpack(g), [1.0, 2.0])


def test_dlpack_rejects_other_objects():
    with pytest.raises(TypeError, match="DLPack"):
        ek.experimental.dlpack.from_dlpack([1, 2])


def test_prefetch_to_device_moves_batches_to_a_virtual_gpu():
    ds = ek.data.Dataset.from_tensor_slices((np.arange(6.0), np.arange(6))).batch(4)
    ds = ds.apply(ek.data.experimental.prefetch_to_device("/gpu:0", buffer_size=2))
    batches = list(ds)
    assert [(x.device, y.device) for x, y in batches] == [
        (
            "/job:localhost/replica:0/task:0/device:GPU:0",
            "/job:localhost/replica:0/task:0/device:GPU:0",
        )
    ] * 2
    np.testing.assert_array_equal(batches[1][0].numpy(), [4.0, 5.0])
    with pytest.raises(RuntimeError, match="not present"):
        ek.data.experimental.prefetch_to_device("/gpu:9")


# -- soft device placement and TensorFlow's full device names ------------------------------------
FULL_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_soft_placement_without_gpus_runs_on_cpu_and_warns_once_per_name():
    code = (
        "import warnings\n"
        "import eagerkernel as ek\n"
        "print(ek.config.get_soft_device_placement())\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    for name in ('GPU:0', '/gpu:0', '/device:GPU:0', 'GPU:1'):\n"
        "        with ek.device(name):\n"
        "            x = ek.constant([1.0, 2.0]) * 3.0\n"
        "        print(x.device, x.numpy().tolist())\n"
        "print(len(w), [str(m.message).split(' is not')[0] for m in w])\n"
        "print({m.category.__name__ for m in w}, 'soft device placement' in str(w[0].message))\n"
        "ek.config.set_soft_device_placement(False)\n"
        "print(ek.config.get_soft_device_placement())\n"
        "try:\n    ek.device('GPU:0')\n"
        "except RuntimeError as e:\n    print('RuntimeError', 'is not present' in str(e))\n"
    )
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount():
            pytest.skip("this machine has a CUDA GPU")
    except Exception:
        pass
    lines = proc.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1:5] == [f"{FULL_CPU} [3.0, 6.0]"] * 4
    # one warning per device: GPU:0, /gpu:0 and /device:GPU:0 name the same one
    assert lines[5] == "2 [\"device 'GPU:0'\", \"device 'GPU:1'\"]"
    assert lines[6] == "{'RuntimeWarning'} True"
    assert lines[7:] == ["False", "RuntimeError True"]


def test_soft_placement_with_virtual_gpus_uses_them_and_falls_back_only_for_absent_ones():
    device_mod._soft_warned.discard("/gpu:7")  # warned once per process
    warned = pytest.warns(
        RuntimeWarning, match=r"'/gpu:7' is not present \(2 virtual GPUs present\)"
    )
    with warned, ek.device("/gpu:7"):
        x = ek.constant(1.0)
    assert x.device == FULL_CPU
    with ek.device("/gpu:1"):
        y = ek.constant(1.0)
    assert y.device == "/job:localhost/replica:0/task:0/device:GPU:1"
    assert "(virtual)" in repr(y)  # still labelled virtual, never a real GPU
    assert all(g.virtual for g in ek.config.list_physical_devices("GPU"))


def test_strict_placement_error_names_devices(strict_placement):
    with pytest.raises(RuntimeError, match=r"device 'GPU:3' is not present\. Devices: /cpu:0"):
        ek.device("GPU:3")
    ek.config.set_soft_device_placement(True)
    assert ek.config.get_soft_device_placement() is True


def test_full_device_names_from_tensors_and_variables_are_accepted_everywhere():
    with ek.device("/job:localhost/replica:0/task:0/device:GPU:1"):
        t = ek.constant([1.0])
        v = ek.Variable([2.0])
    full = "/job:localhost/replica:0/task:0/device:GPU:1"
    assert t.device == full and v.device == full and v.read_value().device == full
    assert device_mod.get_device(t.device).name == "/gpu:1"
    with ek.device(t.device):  # a tensor's device name places ops back there
        assert ek.constant(0.0).device == full
    ek.config.set_default_device(v.device)
    assert ek.zeros((1,)).device == full and ek.config.get_default_device() == "/gpu:1"
    ek.config.set_default_device(None)
    ds = ek.data.Dataset.from_tensor_slices(np.arange(2.0)).batch(2)
    (batch,) = ds.apply(ek.data.experimental.prefetch_to_device(full))
    assert batch.device == full
    assert ek.constant(1.0).device == FULL_CPU and ek.Variable(1.0).device == FULL_CPU


def test_a_tuple_key_reads_index_tensors_of_another_device(two_virtual_gpus):
    """``x[1, i]`` with ``i`` made on the CPU indexes a tensor on a GPU (TensorFlow reads
    indices from host memory); the result stays on the GPU."""
    i = ek.constant(2)
    with ek.device("/gpu:0"):
        x = ek.constant(np.arange(12.0).reshape(3, 4))
    out = x[1, i]
    assert float(out) == 6.0 and out.device == x.device
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(x[i, 1:3])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy()[2], [0.0, 1.0, 1.0, 0.0])
