"""`tf.config.experimental.enable_op_determinism`, `keras.version()` and Keras's seeded
initializers (the keras-io reproducibility recipe)."""

from __future__ import annotations

import time

import numpy as np

import eagerkernel as ek


def _slow_first(x):
    def wait(v):
        time.sleep(0.05 if int(v) == 0 else 0.0)  # the first element finishes last
        return v

    return ek.py_function(wait, [x], ek.int64)


def test_op_determinism_keeps_a_parallel_maps_order(monkeypatch):
    monkeypatch.setattr("eagerkernel.runtime.config._OP_DETERMINISM", [False])
    ds = ek.data.Dataset.range(6).map(_slow_first, num_parallel_calls=3, deterministic=False)
    unordered = [int(v) for v in ds]
    assert sorted(unordered) == list(range(6)) and unordered != list(range(6))
    ek.config.experimental.enable_op_determinism()
    assert [int(v) for v in ds] == list(range(6))


def test_keras_version_is_eagerkernels():
    assert ek.keras.version() == ek.keras.__version__


def test_a_seeded_initializer_ignores_the_global_seed():
    # Keras draws a seeded initializer statelessly: the global seed plays no part.
    init = ek.keras.initializers.RandomNormal(seed=42)
    first = init((3,)).numpy()
    for seed in (812, 1):
        ek.keras.utils.set_random_seed(seed)
        np.testing.assert_array_equal(init((3,)).numpy(), first)
    # Unseeded ones follow the global seed.
    ek.keras.utils.set_random_seed(5)
    a = ek.keras.initializers.RandomNormal()((3,)).numpy()
    ek.keras.utils.set_random_seed(5)
    np.testing.assert_array_equal(ek.keras.initializers.RandomNormal()((3,)).numpy(), a)
