"""`ek.train.ExponentialMovingAverage` against TensorFlow 2.21's values and errors."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek


def test_shadows_follow_tensorflows_formula():
    w, s = ek.Variable([1.0, 2.0], name="w"), ek.Variable(3.0, name="s")
    ema = ek.train.ExponentialMovingAverage(decay=0.9)
    assert ema.apply([w, s]) is None and ema.name == "ExponentialMovingAverage"
    shadow = ema.average(w)
    np.testing.assert_array_equal(shadow.numpy(), [1.0, 2.0])  # starts at the value
    assert shadow.name == "w/ExponentialMovingAverage:0" and not shadow.trainable
    assert ema.average_name(w) == "w/ExponentialMovingAverage"
    w.assign([2.0, 4.0])
    ema.apply([w])
    np.testing.assert_allclose(ema.average(w).numpy(), [1.1, 2.2], rtol=1e-6)  # TF 2.21
    assert float(ema.average(s)) == 3.0  # not in this apply: unchanged
    assert ema.average(ek.Variable(1.0)) is None
    assert set(ema.variables_to_restore()) == {
        "w/ExponentialMovingAverage",
        "s/ExponentialMovingAverage",
    }


def test_num_updates_caps_the_decay_and_graph_functions_replay_apply():
    step = ek.Variable(0)
    u = ek.Variable(0.0)
    ema = ek.train.ExponentialMovingAverage(decay=0.99, num_updates=step)
    ema.apply([u])
    u.assign(10.0)
    ema.apply([u])  # decay min(0.99, 1 / 10): TensorFlow 2.21 gives 9.0
    assert float(ema.average(u)) == pytest.approx(9.0)
    step.assign(90)  # decay min(0.99, 91 / 100) = 0.91
    update = ek.function(lambda: ema.apply([u]))
    u.assign(20.0)
    update()
    update()
    want = 9.0
    for _ in range(2):
        want = 0.91 * want + 0.09 * 20.0
    assert float(ema.average(u)) == pytest.approx(want, rel=1e-6)


def test_errors_are_tensorflows_and_change_nothing():
    ema = ek.train.ExponentialMovingAverage(0.5)
    w = ek.Variable(1.0)
    with pytest.raises(TypeError, match="does not support non-Variable tensors"):
        ema.apply([w, ek.constant(1.0)])
    with pytest.raises(TypeError, match="must be half, float, or double"):
        ema.apply([ek.Variable(1)])
    assert ema.average(w) is None  # the failed apply created no shadow
