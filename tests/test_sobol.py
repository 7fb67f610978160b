"""`ek.math.sobol_sample` against TensorFlow 2.21's numbers, its properties and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

pytest.importorskip("scipy")


def test_matches_tensorflow_2_21():
    np.testing.assert_array_equal(
        ek.math.sobol_sample(2, 3).numpy(), [[0.5, 0.5], [0.75, 0.25], [0.25, 0.75]]
    )
    got = ek.math.sobol_sample(5, 10, skip=3)
    assert got.dtype == ek.float32 and got.shape == (10, 5)
    np.testing.assert_array_equal(
        got.numpy()[:3],
        [
            [0.375, 0.375, 0.625, 0.875, 0.375],
            [0.875, 0.875, 0.125, 0.375, 0.875],
            [0.625, 0.125, 0.875, 0.625, 0.625],
        ],
    )
    one = ek.math.sobol_sample(1, 4, dtype=ek.float64)
    assert one.dtype == ek.float64
    np.testing.assert_array_equal(one.numpy().ravel(), [0.5, 0.75, 0.25, 0.375])


def test_points_fill_the_cube_evenly():
    # With the origin, the first 2^k points of each coordinate are i / 2^k in some order;
    # TensorFlow's sequence leaves the origin out, so the first 1023 are those without 0.
    points = ek.math.sobol_sample(8, 1023).numpy()
    for column in points.T:
        np.testing.assert_array_equal(np.sort(column), np.arange(1, 1024) / 1024)
    skipped = ek.math.sobol_sample(8, 5, skip=1018).numpy()
    np.testing.assert_array_equal(skipped, points[1018:])


def test_bad_arguments_raise_tensorflows_errors():
    for args, message in [
        ((0, 3), "dim must be at least one"),
        ((21201, 1), "dim must be at most 21200"),
        ((2, 0), "num_results must be at least one"),
        ((2, 3, -1), "skip must be non-negative"),
    ]:
        with pytest.raises(ek.errors.InvalidArgumentError, match=message):
            ek.math.sobol_sample(*args)
    with pytest.raises(TypeError, match=r"dim must be an integer, got float 2\.5"):
        ek.math.sobol_sample(2.5, 3)
    with pytest.raises(ek.errors.InvalidArgumentError, match="float32 or float64, got int32"):
        ek.math.sobol_sample(2, 3, dtype=ek.int32)
