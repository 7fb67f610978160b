"""`ek.config.set_visible_devices` / `get_visible_devices` and memory growth, as
`tf.config`: hidden GPUs get no logical device, the visible ones are renumbered from
``/gpu:0``, the physical listing keeps them all, and a change after a GPU was used raises.

Visibility is process state that sticks once a GPU is used, so the scenarios run in fresh
interpreters with NumPy-backed virtual GPUs (``EAGERKERNEL_VIRTUAL_GPUS``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import eagerkernel as ek


def _run(code: str, gpus: int = 3) -> str:
    env = {**os.environ, "EAGERKERNEL_VIRTUAL_GPUS": str(gpus)}
    proc = subprocess.run(
        [sys.executable, "-c", "import eagerkernel as tf\n" + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_hiding_the_first_gpu_renumbers_the_others():
    out = _run(
        """
        gpus = tf.config.list_physical_devices("GPU")
        tf.config.set_visible_devices(gpus[1:], "GPU")
        print(len(gpus), len(tf.config.list_logical_devices("GPU")))
        print([d.name for d in tf.config.get_visible_devices("GPU")])
        print(len(tf.config.list_physical_devices("GPU")))
        with tf.device("/gpu:1"):
            x = tf.constant([1.0, 2.0]) * 2.0
        print(x.device, x.numpy().tolist())
        """
    )
    lines = out.splitlines()
    assert lines[0] == "3 2"
    assert lines[1] == "['/physical_device:GPU:1', '/physical_device:GPU:2']"
    assert lines[2] == "3"  # the physical listing keeps the hidden GPU
    assert lines[3] == "/job:localhost/replica:0/task:0/device:GPU:1 [2.0, 4.0]"


def test_hiding_every_gpu_leaves_the_cpu():
    out = _run(
        """
        tf.config.set_visible_devices([], "GPU")
        print(tf.config.list_logical_devices("GPU"), tf.num_gpus())
        print([d.device_type for d in tf.config.get_visible_devices()])
        try:
            with tf.device("/gpu:0"):
                pass
            tf.config.set_soft_device_placement(False)
            with tf.device("/gpu:0"):
                tf.constant(1.0) + 1.0
        except RuntimeError as e:
            print("RuntimeError", "is not present" in str(e))
        """
    )
    assert out.splitlines() == ["[] 0", "['CPU']", "RuntimeError True"]


def test_visible_set_without_device_type_replaces_the_whole_set():
    out = _run(
        """
        cpu = tf.config.list_physical_devices("CPU")
        gpus = tf.config.list_physical_devices("GPU")
        tf.config.set_visible_devices(cpu + [gpus[2]])
        print([d.name for d in tf.config.get_visible_devices()])
        tf.config.set_visible_devices(gpus[0], "GPU")  # a single device, not a list
        print([d.name for d in tf.config.get_visible_devices("GPU")], tf.num_gpus())
        """
    )
    assert out.splitlines() == [
        "['/physical_device:CPU:0', '/physical_device:GPU:2']",
        "['/physical_device:GPU:0'] 1",
    ]


def test_changing_visibility_after_a_gpu_was_used_raises_tensorflows_error():
    out = _run(
        """
        gpus = tf.config.list_physical_devices("GPU")
        tf.constant(1.0).gpu(0)
        tf.config.set_visible_devices(gpus, "GPU")  # the same set: allowed
        try:
            tf.config.set_visible_devices(gpus[:1], "GPU")
        except RuntimeError as e:
            print(e)
        print(tf.num_gpus())
        """
    )
    assert out.splitlines() == ["Visible devices cannot be modified after being initialized", "3"]


def test_experimental_aliases_and_memory_growth():
    out = _run(
        """
        gpus = tf.config.experimental.list_physical_devices("GPU")
        tf.config.experimental.set_visible_devices(gpus[0], "GPU")
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
        print(tf.config.experimental.get_memory_growth(gpus[0]),
              len(tf.config.experimental.get_visible_devices("GPU")))
        """
    )
    assert out.split() == ["True", "1"]


def test_unrecognized_devices_and_a_hidden_cpu_are_value_errors():
    cpu = ek.config.list_physical_devices("CPU")[0]
    fake = ek.config.PhysicalDevice("/physical_device:GPU:7", "GPU")
    with pytest.raises(ValueError, match="Unrecognized device"):
        ek.config.set_visible_devices([fake], "GPU")
    with pytest.raises(ValueError, match="Unrecognized device"):
        ek.config.set_visible_devices([cpu], "GPU")  # not of device_type
    with pytest.raises(ValueError, match="CPU must stay visible"):
        ek.config.set_visible_devices([])
    with pytest.raises(ValueError, match="CPU must stay visible"):
        ek.config.set_visible_devices([], "CPU")
    assert cpu in ek.config.get_visible_devices()


def test_memory_growth_on_the_cpu_is_refused_as_in_tensorflow():
    cpu = ek.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU devices"):
        ek.config.experimental.set_memory_growth(cpu, True)
    with pytest.raises(ValueError, match="Unrecognized device"):
        ek.config.experimental.get_memory_growth("GPU:0")


def test_logical_devices_name_devices_for_scopes_and_strategies():
    out = _run(
        """
        gpus = tf.config.list_logical_devices("GPU")
        strategy = tf.distribute.MirroredStrategy(gpus)
        print(strategy.num_replicas_in_sync)
        with tf.device(gpus[1]):
            print(tf.constant(1.0).device)
        """,
        gpus=2,
    )
    assert out.splitlines() == ["2", "/job:localhost/replica:0/task:0/device:GPU:1"]


def test_mirrored_strategy_on_an_empty_device_list_uses_the_default_devices():
    # TensorFlow's GPU guide: MirroredStrategy(list_logical_devices("GPU")) on a machine
    # without GPUs runs one replica on the CPU.
    out = _run(
        """
        strategy = tf.distribute.MirroredStrategy(tf.config.list_logical_devices("GPU"))
        print(strategy.num_replicas_in_sync, strategy.extended.worker_devices)
        """,
        gpus=0,
    )
    assert out.splitlines()[0] == "1 ('/job:localhost/replica:0/task:0/device:CPU:0',)"
