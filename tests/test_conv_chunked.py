"""A convolution whose im2col columns would pass `COLS_MAX_BYTES` runs on slices of the batch
through one reused buffer: the same outputs and gradients as one im2col."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.ops import conv

RNG = np.random.default_rng(0)


def _run(x, w, strides, padding, dilations):
    x, w = ek.constant(x), ek.constant(w)
    with ek.GradientTape() as tape:
        tape.watch([x, w])
        y = ek.nn.conv2d(x, w, strides, padding, dilations=dilations)
        loss = ek.reduce_sum(y * y)
    gx, gw = tape.gradient(loss, [x, w])
    return y.numpy(), gx.numpy(), gw.numpy()


@pytest.mark.parametrize(
    "shape, kernel, strides, padding, dilations",
    [
        ((5, 9, 9, 3), (3, 3, 3, 2), 1, "SAME", 1),
        ((4, 10, 8, 1), (7, 7, 1, 1), 1, "SAME", 1),  # one channel: the transposed layout
        ((3, 11, 11, 4), (3, 3, 4, 5), 2, "VALID", 1),
        ((6, 12, 12, 2), (3, 3, 2, 3), 1, "SAME", 2),
        ((5, 9, 8, 8), (3, 3, 8, 1), 1, "SAME", 1),  # to fewer channels: z and g's columns
        ((4, 9, 9, 8), (3, 3, 8, 3), 1, "VALID", 1),
    ],
)
def test_sliced_batch_gives_the_one_buffer_results(
    monkeypatch, shape, kernel, strides, padding, dilations
):
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal(kernel).astype(np.float32)
    whole = _run(x, w, strides, padding, dilations)
    monkeypatch.setattr(conv, "COLS_MAX_BYTES", 1)  # one example per slice
    sliced = _run(x, w, strides, padding, dilations)
    monkeypatch.setattr(conv, "COLS_MAX_BYTES", 3 * np.prod(shape[1:]) * 4 * 9)  # uneven slices
    some = _run(x, w, strides, padding, dilations)
    for a, b, c in zip(whole, sliced, some):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(c, a, rtol=1e-5, atol=1e-4)


def test_slices_hold_at_most_the_bound(monkeypatch):
    assert conv._batch_chunks(64, 20 << 20) == 3  # 64 MiB of 20 MiB examples
    assert conv._batch_chunks(2, 1 << 20) == 2  # fits: one slice
    assert conv._batch_chunks(10, 1 << 30) == 1  # an example alone past the bound
