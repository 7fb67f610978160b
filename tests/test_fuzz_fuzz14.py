"""Seeded random numbers that are TensorFlow's bit for bit (fuzz14): `ek.nn.dropout` (its mask
is ``random.uniform(noise_shape, dtype=x.dtype, seed) >= rate``, its rate-0 fast path, NaN and
tensor rates), float16 uniforms (10 bits per Philox word), float64 truncated normals (128
blocks per output group), `Generator.binomial`/`stateless_binomial` (TF's inversion and BTRS
samplers and state skip), `ek.random.gamma`/`stateless_gamma` and `ek.random.poisson`/
`stateless_poisson` (TF's float64 kernels, `random_samplers`), and the errors TF raises.

EXPECTED holds what TensorFlow 2.21 printed for the very same calls (computed with the oracle
/tmp/tfvenv/bin/python, hard-coded here); the checks are exact.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import eagerkernel as tf

# fmt: off
EXPECTED = {'after_rate0': [0.7017074823379517, 0.043367862701416016],
 'drop': [[0.0, 4.0, 6.0, 0.0], [0.0, 12.0, 14.0, 16.0]],
 'drop_f16': [[1.4287109375, 0.0, 0.0, 5.71484375], [7.14453125, 8.5703125, 0.0, 0.0]],
 'drop_glob': [[1.4285714626312256, 2.857142925262451, 4.285714149475098, 5.714285850524902],
               [7.142857551574707, 8.571428298950195, 10.0, 0.0]],
 'drop_nan': [0.0, math.inf, -2.0, 4.0],
 'drop_ns': [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
 'drop_trate': [[0.0, 2.857142925262451, 4.285714149475098, 5.714285850524902],
                [7.142857074737549, 0.0, 10.0, 11.428571701049805]],
 'g_binom': [[5, 180, 2540], [2, 183, 2509]],
 'g_state': [193031, 0, 0],
 'g_u16': [0.2978515625, 0.1123046875, 0.7421875, 0.591796875],
 'gamma': [[0.0951399952173233, 0.28259557485580444, 3.43168568611145],
           [0.858607828617096, 0.12950456142425537, 1.2463315725326538]],
 'gamma_beta64': [[0.04756999779229202, 5.5312734240807275],
                  [0.429303929106648, 7.324303235579056]],
 'gamma_glob': [8.266549110412598, 0.6550279259681702, 0.8868449330329895],
 'poisson': [[0.0, 2.0, 49.0], [1.0, 4.0, 54.0], [0.0, 2.0, 56.0]],
 'poisson_i64': [[0, 6], [0, 3]],
 'sbinom': [[5, 174, 2467], [5, 169, 2521]],
 'sbinom_edge': [0, 5, 2, 0],
 'sgamma': [[0.0669536143541336, 2.248735189437866, 4.520267009735107],
            [0.6282354593276978, 1.8935091495513916, 3.4091506004333496]],
 'sgamma_beta': [[2.8172736167907715, 1.1120022535324097], [1.9241365194320679, 0.739426851272583]],
 'spoisson': [[3, 6, 50], [2, 4, 49], [1, 7, 41]],
 'stn64': [-0.1423118100189212, 0.7406072461585091, -0.552387756244845, -0.734450092480207,
           -0.39842023956588357],
 'su16': [0.54296875, 0.2353515625, 0.060546875, 0.8935546875, 0.1435546875],
 'tn64': [1.5277172595988109, 1.3924121202880069, -1.7737835285890824, -0.9518005180682476,
          1.021776883971959],
 'u16': [0.9169921875, 0.6220703125, 0.5458984375, 0.3984375, 0.4599609375]}
# fmt: on


def _run() -> dict:
    out = {}

    def r(name, v):
        out[name] = np.asarray(v).tolist()

    x = np.arange(1, 9, dtype=np.float32).reshape(2, 4)
    tf.random.set_seed(5)
    r("drop", tf.nn.dropout(x, 0.5, seed=3))
    r("drop_ns", tf.nn.dropout(x, 0.5, noise_shape=[2, 1], seed=3))
    r("drop_glob", tf.nn.dropout(x, 0.3))
    r("drop_f16", tf.nn.dropout(x.astype(np.float16), 0.3, seed=1))
    tf.random.set_seed(5)
    tf.nn.dropout(x, 0.0)  # takes the op seed a draw would take
    r("after_rate0", tf.random.uniform([2]))
    tf.random.set_seed(5)
    r("drop_nan", tf.nn.dropout(np.array([np.nan, np.inf, -1.0, 2.0], np.float32), 0.5, seed=1))
    r("drop_trate", tf.nn.dropout(x, tf.constant(0.3), seed=1))
    tf.random.set_seed(5)
    r("u16", tf.random.uniform([5], dtype=tf.float16, seed=2))
    r("tn64", tf.random.truncated_normal([5], dtype=tf.float64, seed=2))
    r("stn64", tf.random.stateless_truncated_normal([5], [1, 2], dtype=tf.float64))
    r("su16", tf.random.stateless_uniform([5], [1, 2], dtype=tf.float16))
    g = tf.random.Generator.from_seed(7)
    r("g_u16", g.uniform([4], dtype=tf.float16))
    r("g_binom", g.binomial([2, 3], counts=[10.0, 200.0, 5000.0], probs=[0.3, 0.9, 0.5]))
    r("g_state", g.state)
    r(
        "sbinom",
        tf.random.stateless_binomial([2, 3], [1, 2], [10.0, 200.0, 5000.0], [0.3, 0.9, 0.5]),
    )
    r(
        "sbinom_edge",
        tf.random.stateless_binomial([4], [1, 2], [-1.0, 5.0, 2.5, 5.0], [0.5, 1.5, 0.5, -0.2]),
    )
    tf.random.set_seed(5)
    r("gamma", tf.random.gamma([2], [0.5, 1.0, 4.0], seed=3))
    r("gamma_beta64", tf.random.gamma([2], [0.5, 3.0], [2.0, 0.5], dtype=tf.float64, seed=3))
    r("gamma_glob", tf.random.gamma([3], 2.0))
    r("sgamma", tf.random.stateless_gamma([2, 3], [1, 2], [0.5, 1.0, 4.0]))
    r("sgamma_beta", tf.random.stateless_gamma([2, 2], [1, 2], 2.0, beta=[1.0, 3.0]))
    tf.random.set_seed(5)
    r("poisson", tf.random.poisson([3], [0.5, 4.0, 50.0], seed=3))
    r("poisson_i64", tf.random.poisson([2], [-1.0, 7.0], dtype=tf.int64, seed=3))
    r("spoisson", tf.random.stateless_poisson([3, 3], [1, 2], [0.5, 4.0, 50.0]))
    tf.random.set_seed(None)
    return out


@pytest.fixture(scope="module")
def got() -> dict:
    return _run()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_tensorflow(got, name):
    np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(EXPECTED[name]))


def test_dropout_errors_are_tensorflows():
    x = tf.ones([2])
    with pytest.raises(ValueError, match=r"dropout: x must be a floating-point.*int32"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)
    with pytest.raises(ValueError, match=r"dropout: rate must be a scalar in \[0, 1\), got 1"):
        tf.nn.dropout(x, 1.0)
    with pytest.raises(ValueError, match=r"dropout: x\.dtype must be compatible with rate"):
        tf.nn.dropout(x, tf.constant(0.3, tf.float64))
    with pytest.raises(ValueError, match="dropout: rate must be a scalar or scalar tensor"):
        tf.nn.dropout(x, tf.constant([0.3]))
    with pytest.raises(ValueError, match="stateless_dropout: x must be a floating-point"):
        tf.nn.experimental.stateless_dropout(tf.constant([1, 2]), 0.5, seed=[1, 2])
    # a tensor rate is not range-checked (TF: x / (1 - rate), kept where uniform >= rate)
    np.testing.assert_array_equal(tf.nn.dropout(x, tf.constant(1.0), seed=1).numpy(), [0, 0])


def test_unsigned_bounded_uniform_errors_are_tensorflows():
    with pytest.raises(ValueError, match=r"stateless_random_uniform: .*unsigned"):
        tf.random.stateless_uniform([2], [1, 2], minval=1, maxval=5, dtype=tf.uint32)
    with pytest.raises(tf.errors.NotFoundError, match=r"Generator\.uniform: no Stateless"):
        tf.random.Generator.from_seed(1).uniform([2], minval=1, maxval=5, dtype=tf.uint64)
