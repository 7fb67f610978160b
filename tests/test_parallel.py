"""The runtime's thread pool (`native.parallel`): parts in order, errors after every part,
nested splits inline, the caller's NumPy error state, and conv2d's split im2col and col2im
giving the unsplit results bit for bit."""

from __future__ import annotations

import itertools
import threading
import time

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.native import kernels, parallel
from eagerkernel.runtime.ops import conv


@pytest.fixture
def three_cores(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 3)


@pytest.fixture
def pool_calls(monkeypatch, three_cores):
    """The ``parts`` of every `run_parts` call, on three cores."""
    calls = []
    original = parallel.run_parts
    monkeypatch.setattr(
        parallel, "run_parts", lambda fn, parts=None: calls.append(parts) or original(fn, parts)
    )
    return calls


def test_parts_run_in_order_part_zero_on_the_calling_thread(three_cores):
    names = {}

    def part(k, parts):
        names[k] = threading.current_thread().name
        return (k, parts)

    assert parallel.run_parts(part) == [(0, 3), (1, 3), (2, 3)]
    assert names[0] == threading.current_thread().name
    assert all(names[k].startswith("eagerkernel-worker") for k in (1, 2))


def test_a_parts_error_is_raised_after_every_part_stopped(three_cores):
    finished = []

    def part(k, parts):
        if k == 1:
            raise ValueError("part 1 failed")
        time.sleep(0.05)
        finished.append(k)

    with pytest.raises(ValueError, match="part 1 failed"):
        parallel.run_parts(part)
    assert sorted(finished) == [0, 2]  # nobody still running when the caller sees the error


def test_a_split_inside_a_part_runs_inline_without_waiting_on_the_pool(three_cores):
    def inner(k, parts):
        return threading.current_thread().name

    def outer(k, parts):
        names = parallel.run_parts(inner)
        assert len(set(names)) == 1  # all on this part's thread
        return names[0]

    outer_names = parallel.run_parts(outer)
    assert len(outer_names) == 3


def test_parts_use_the_callers_numpy_error_state(three_cores):
    def part(k, parts):
        return np.geterr()["over"]

    with np.errstate(over="raise"):
        assert parallel.run_parts(part) == ["raise"] * 3
    with np.errstate(over="ignore"):
        assert parallel.run_parts(part) == ["ignore"] * 3


def test_run_rows_covers_the_rows_once_in_contiguous_ranges(three_cores, monkeypatch):
    monkeypatch.setattr(parallel, "ROWS_SPLIT_MIN", 100)
    for n in (2, 3, 10, 50):
        got = parallel.run_rows(lambda lo, hi: (lo, hi), n, 100)
        assert got[0][0] == 0 and got[-1][1] == n
        assert all(a[1] == b[0] and a[0] < a[1] for a, b in itertools.pairwise(got))
        assert len(got) >= min(n, 3)  # at least one range per part
    assert parallel.run_rows(lambda lo, hi: (lo, hi), 10, 99) == [(0, 10)]  # small: one call
    assert parallel.run_rows(lambda lo, hi: (lo, hi), 1, 100) == [(0, 1)]


def test_a_slow_part_takes_fewer_ranges(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    monkeypatch.setattr(parallel, "ROWS_SPLIT_MIN", 1)
    caller = threading.current_thread().name
    mine = []

    def rows(lo, hi):
        if threading.current_thread().name == caller:
            mine.append(hi - lo)
        else:
            time.sleep(0.05)  # the worker's core is busy elsewhere
        return hi - lo

    assert sum(parallel.run_rows(rows, 40, 1)) == 40
    assert sum(mine) > 30  # the caller did most of the rows instead of waiting for half


@pytest.mark.parametrize("strides, padding", [(1, "SAME"), (2, "VALID")])
def test_conv_layers_ops_split_over_images_match_the_whole_batch(
    monkeypatch, pool_calls, strides, padding
):
    # conv2d (im2col's copy), its input gradient (col2im), bias_add and a tiling max pool's
    # gradient split the batch over the cores when large: the same bits as whole.
    rng = np.random.default_rng(5)
    x = ek.constant(rng.standard_normal((5, 10, 10, 6)).astype(np.float32))
    w = ek.constant(rng.standard_normal((3, 3, 6, 8)).astype(np.float32))
    b = ek.constant(rng.standard_normal(8).astype(np.float32))

    def run():
        with ek.GradientTape() as tape:
            tape.watch([x, w, b])
            h = ek.nn.bias_add(ek.nn.conv2d(x, w, strides, padding), b)
            y = ek.nn.max_pool2d(h, 2, 2, "VALID")
        grads = tape.gradient(y, [x, w, b], output_gradients=ek.ones_like(y) * 0.5 + y)
        return [y.numpy()] + [g.numpy() for g in grads]

    calls = pool_calls
    monkeypatch.setattr(parallel, "ROWS_SPLIT_MIN", 1)
    split = run()
    assert len(calls) >= (4 if kernels.available() else 2)  # im2col, bias_add (+ C kernels)
    monkeypatch.setattr(parallel, "ROWS_SPLIT_MIN", 1 << 62)
    calls.clear()
    whole = run()
    assert not calls
    for a, b in zip(split, whole):
        np.testing.assert_array_equal(a, b)


@pytest.mark.skipif(not kernels.available(), reason="the C extension is not built")
def test_col2im_split_raises_the_callers_floating_point_errors(monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    monkeypatch.setattr(parallel, "ROWS_SPLIT_MIN", 1)
    cols = np.full((2, 4, 4, 3, 3, 1), 3e38, np.float32)  # sums of nine overflow float32
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        conv.col2im(np, cols, (2, 6, 6, 1), (1, 1), (1, 1), ((0, 0), (0, 0)))
    with np.errstate(over="ignore"):
        out = conv.col2im(np, cols, (2, 6, 6, 1), (1, 1), (1, 1), ((0, 0), (0, 0)))
    assert np.isinf(out).any()


@pytest.mark.skipif(not kernels.available(), reason="the C extension is not built")
def test_adams_c_kernel_split_over_the_cores_matches_the_whole_update(monkeypatch, pool_calls):
    rng = np.random.default_rng(8)
    arrays = [rng.standard_normal(3001).astype(np.float32) for _ in range(4)]
    arrays[3] = np.abs(arrays[3])  # v >= 0

    def update():
        g, var, m, v = (a.copy() for a in arrays)
        for _ in range(3):
            assert kernels.adam(g, var, m, v, b1=0.9, b2=0.999, epsilon=1e-7, lr_t=0.01)
        return var, m, v

    calls = pool_calls
    monkeypatch.setattr(parallel, "ROWS_SPLIT_MIN", 1000)
    split = update()
    assert calls == [3, 3, 3]
    monkeypatch.setattr(parallel, "ROWS_SPLIT_MIN", 1 << 62)
    whole = update()
    for a, b in zip(split, whole):
        np.testing.assert_array_equal(a, b)


def test_im2col_on_another_array_module_copies_every_image_on_the_calling_thread(
    monkeypatch, pool_calls
):
    # CuPy's copies run on the GPU's stream, never through the pool: a stand-in module that
    # is not NumPy (delegating to it) must still get every image's windows.
    class OtherModule:
        def __getattr__(self, name):
            return getattr(np, name)

    monkeypatch.setattr(parallel, "ROWS_SPLIT_MIN", 1)
    x = np.random.default_rng(9).standard_normal((4, 6, 6, 3)).astype(np.float32)
    args = ((3, 3), (4, 4), (1, 1), (1, 1), ((0, 0), (0, 0)))
    got = conv._im2col(OtherModule(), x, *args)
    assert not pool_calls
    np.testing.assert_array_equal(got, conv._im2col(np, x, *args))
    assert pool_calls  # NumPy's own copy did split
