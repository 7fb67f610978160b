"""`ek.distribute` on real CUDA GPUs (marker ``cuda``): NCCL all-reduces through
``cupy.cuda.nccl`` and MirroredStrategy training on the GPUs against one CPU.

Skipped, with the reason, without CuPy and CUDA devices (NCCL cases need two). Each case runs
in a fresh process without ``EAGERKERNEL_VIRTUAL_GPUS``, since virtual GPUs, which other tests
turn on in this process, replace the real ones. The same code paths but the reduction are
tested on every machine with virtual GPUs (tests/test_distribute.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _gpu_count() -> tuple[int, str]:
    try:
        import cupy
    except Exception as exc:
        return 0, f"cupy does not import ({type(exc).__name__}: {exc})"
    try:
        n = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as exc:
        return 0, f"cupy finds no CUDA device ({type(exc).__name__}: {exc})"
    return n, "" if n else "cupy finds no CUDA device"


GPUS, _REASON = _gpu_count()
pytestmark = [pytest.mark.cuda, pytest.mark.skipif(bool(_REASON), reason=_REASON or "ok")]


def run(code: str) -> str:
    env = dict(os.environ)
    env.pop("EAGERKERNEL_VIRTUAL_GPUS", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.skipif(GPUS < 2, reason=_REASON or "NCCL between GPUs needs two CUDA devices")
def test_nccl_all_reduce_sums_across_gpus():
    out = run(
        """
        import cupy, numpy as np
        from eagerkernel.runtime.core.device import get_device
        from eagerkernel.runtime.distribute.collectives import NcclReducer
        devices = [get_device("/gpu:0"), get_device("/gpu:1")]
        arrays = []
        for i, d in enumerate(devices):
            with cupy.cuda.Device(d.index):
                arrays.append(cupy.arange(5, dtype=cupy.float32) * (i + 1))
        sums = NcclReducer(devices).all_reduce_sum(arrays)
        for d, s in zip(devices, sums):
            assert s.device.id == d.index
            np.testing.assert_array_equal(s.get(), np.arange(5) * 3.0)
        print("ok")
        """
    )
    assert out.strip() == "ok"


def test_mirrored_strategy_on_gpus_matches_the_cpu():
    out = run(
        """
        import numpy as np
        import eagerkernel as ek
        from eagerkernel.runtime.distribute.collectives import NcclReducer
        rng = np.random.default_rng(0)
        x = rng.normal(size=(64, 5)).astype(np.float32)
        y = rng.integers(0, 3, size=64)

        def train(strategy):
            with strategy.scope():
                ek.random.set_seed(1)
                model = ek.keras.Sequential([ek.keras.layers.Dense(8, activation="relu"),
                                             ek.keras.layers.Dense(3)])
                model.compile(optimizer=ek.keras.optimizers.Adam(0.01),
                              loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
            return model

        cpu = train(ek.distribute.OneDeviceStrategy("/cpu:0"))
        strategy = ek.distribute.MirroredStrategy()
        assert all("CUDA" in d.describe() for d in strategy.extended.devices)
        if len(strategy.extended.devices) > 1:
            assert isinstance(strategy.extended.reducer, NcclReducer)
        gpu = train(strategy)
        for a, b in zip(cpu.get_weights(), gpu.get_weights()):
            np.testing.assert_allclose(a, b, atol=1e-5, rtol=1e-4)
        print("ok")
        """
    )
    assert out.strip().endswith("ok")


@pytest.mark.skipif(GPUS < 2, reason=_REASON or "NCCL between GPUs needs two CUDA devices")
def test_overlapped_nccl_all_reduce_equals_the_sequential_one():
    # The buckets' NCCL all-reduces run on the communication thread (after a CUDA event says
    # the fused buffers are written) while the backward pass goes on: the same sums.
    out = run(
        """
        import numpy as np
        import eagerkernel as ek
        rng = np.random.default_rng(0)
        x = rng.normal(size=(64, 5)).astype(np.float32)
        y = rng.integers(0, 3, size=64)

        def train(overlap):
            strategy = ek.distribute.MirroredStrategy()
            strategy.extended.overlap_gradients = overlap
            strategy.extended.bucket_bytes = 256
            with strategy.scope():
                ek.random.set_seed(1)
                model = ek.keras.Sequential([ek.keras.layers.Dense(32, activation="relu"),
                                             ek.keras.layers.Dense(16, activation="relu"),
                                             ek.keras.layers.Dense(3)])
                model.compile(optimizer=ek.keras.optimizers.SGD(0.1),
                              loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
            return model.get_weights(), strategy.extended.collective_stats

        on, on_stats = train(True)
        off, off_stats = train(False)
        for a, b in zip(on, off):
            np.testing.assert_allclose(a, b, atol=1e-6, rtol=1e-5)
        assert on_stats["overlapped_bytes"] > 0 and off_stats["overlapped_bytes"] == 0
        print("ok")
        """
    )
    assert out.strip().endswith("ok")
