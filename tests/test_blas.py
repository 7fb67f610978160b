"""Small matrix products run on one BLAS thread (`eagerkernel.runtime.native.blas`)."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import numpy as np
import pytest

from eagerkernel.runtime.native import blas

rng = np.random.default_rng(0)


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((64, 784), (784, 256)), ((3, 64, 100), (100, 50)), ((100,), (100, 300)), ((5, 7), (7,))],
)
def test_products_equal_numpy(a_shape, b_shape):
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    # One thread or several sum in different orders: equal to rounding, not bitwise.
    np.testing.assert_allclose(blas.matmul(a, b), np.matmul(a, b), rtol=1e-5, atol=1e-4)


def test_shape_errors_are_numpys():
    with pytest.raises(ValueError, match="matmul"):
        blas.matmul(np.ones((2, 3)), np.ones((4, 5)))


@pytest.fixture
def threads_seen(monkeypatch):
    """The BLAS thread count at the moment each product runs."""
    controller = blas._controller()
    if controller is None:
        pytest.skip("threadpoolctl finds no multi-threaded BLAS here")
    seen = []

    def spy(a, b, out=None):
        seen.append(controller.num_threads)
        return np.matmul(a, b, out=out)

    monkeypatch.setattr(blas, "np", types.SimpleNamespace(matmul=spy))
    return controller, seen


def test_a_small_product_runs_on_one_thread_and_restores_the_count(threads_seen):
    controller, seen = threads_seen
    before = controller.num_threads
    blas.matmul(np.ones((64, 256), np.float32), np.ones((256, 100), np.float32))  # 3.3 MFLOP
    assert seen == [1]
    assert controller.num_threads == before > 1


def test_large_and_tiny_products_keep_the_threads(threads_seen):
    controller, seen = threads_seen
    before = controller.num_threads
    blas.matmul(np.ones((512, 512), np.float32), np.ones((512, 512), np.float32))  # 268 MFLOP
    blas.matmul(np.ones((4, 4)), np.ones((4, 4)))
    assert seen == [before, before]


def test_an_error_restores_the_count(threads_seen, monkeypatch):
    controller, _ = threads_seen
    before = controller.num_threads

    def failing(a, b, out=None):
        raise FloatingPointError("boom")

    monkeypatch.setattr(blas, "np", types.SimpleNamespace(matmul=failing))
    with pytest.raises(FloatingPointError):
        blas.matmul(np.ones((64, 256)), np.ones((256, 100)))
    assert controller.num_threads == before


@pytest.mark.parametrize(
    "preset, first, want",
    [(None, "", "18"), ("7", "", "7"), (None, "import numpy; ", "None")],
)
def test_openblas_idle_threads_spin_briefly_when_eagerkernel_loads_numpy(preset, first, want):
    # OpenBLAS reads OPENBLAS_THREAD_TIMEOUT when NumPy loads it: eagerkernel sets it only
    # if it is imported first and the user has not set it.
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if preset is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = preset
    code = first + "import os, eagerkernel; print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split()[-1] == want
