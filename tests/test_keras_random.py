"""`ek.keras.random` (Keras 3's ``keras.random``): distributions checked on large samples
(fixed seeds, so the checks are deterministic), Keras's seed semantics, errors."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import keras

R = keras.random


def test_int_seed_repeats_and_seed_generator_advances():
    a, b = R.normal((4,), seed=3), R.normal((4,), seed=3)
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # an int seed: the same values
    gen = R.SeedGenerator(1337)
    c, d = R.normal((4,), seed=gen), R.normal((4,), seed=gen)
    assert not np.array_equal(c.numpy(), d.numpy())
    gen2 = R.SeedGenerator(1337)  # the same seed: the same sequence
    np.testing.assert_array_equal(R.normal((4,), seed=gen2).numpy(), c.numpy())
    assert R.SeedGenerator(5).next().shape == (2,)
    # unseeded draws: Keras's global SeedGenerator, which keras.utils.set_random_seed resets
    # (ek.random.set_seed, like tf.random.set_seed, does not)
    keras.utils.set_random_seed(7)
    e = R.uniform((3,))
    keras.utils.set_random_seed(7)
    np.testing.assert_array_equal(R.uniform((3,)).numpy(), e.numpy())


def test_distributions_have_their_moments():
    n = 200_000
    x = R.normal((n,), mean=2.0, stddev=3.0, seed=1).numpy()
    assert abs(x.mean() - 2.0) < 0.03 and abs(x.std() - 3.0) < 0.03
    u = R.uniform((n,), minval=-1.0, maxval=3.0, seed=2, dtype="float64").numpy()
    assert u.dtype == np.float64 and u.min() >= -1.0 and u.max() < 3.0
    assert abs(u.mean() - 1.0) < 0.02
    t = R.truncated_normal((n,), seed=3).numpy()
    assert np.abs(t).max() <= 2.0 and abs(t.std() - 0.88) < 0.01  # std of N(0,1) cut at ±2
    k = R.randint((n,), 0, 5, seed=4).numpy()
    assert k.dtype == np.int32 and set(np.unique(k)) == {0, 1, 2, 3, 4}
    np.testing.assert_allclose(np.bincount(k) / n, 0.2, atol=0.005)


def test_dropout_shuffle_and_categorical():
    x = ek.ones((400, 500))
    y = R.dropout(x, 0.3, seed=5).numpy()
    assert set(np.unique(y)) == {0.0, np.float32(1 / 0.7)}
    assert abs((y == 0).mean() - 0.3) < 0.01
    rows = R.dropout(x, 0.5, noise_shape=(400, 1), seed=6).numpy()
    assert all(len(set(r)) == 1 for r in rows)  # one draw per row, broadcast
    perm = R.shuffle(ek.range(10), seed=R.SeedGenerator(2)).numpy()
    assert sorted(perm) == list(range(10)) and list(perm) != list(range(10))
    logits = ek.math.log(ek.constant([[0.2, 0.8], [0.9, 0.1]]))
    s = R.categorical(logits, 20_000, seed=8).numpy()
    assert s.shape == (2, 20_000) and s.dtype == np.int32
    np.testing.assert_allclose(s.mean(axis=1), [0.8, 0.1], atol=0.01)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match=r"use keras\.random\.randint for integers"):
        R.uniform((2,), dtype="int32")
    with pytest.raises(ValueError, match=r"seed must be None, an int or a keras\.random"):
        R.normal((2,), seed="x")
    with pytest.raises(ValueError, match=r"rate must be in \[0, 1\)"):
        R.dropout(ek.ones((2,)), 1.0)
    with pytest.raises(ValueError, match="logits must be 2-D"):
        R.categorical(ek.ones((3,)), 2)
