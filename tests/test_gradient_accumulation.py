"""Keras 3's `gradient_accumulation_steps` and `loss_scale_factor` on the Keras optimizers:
TensorFlow 2.21's trajectories, the step counts, the accumulators, `fit`, checkpoints and the
all-or-nothing step."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

K = ek.keras.optimizers


def trajectory(make, steps=7):
    """Applies seven steps of fixed gradients to ``w`` (3 entries) and the scalar ``b``; returns
    the optimizer and, per step, ``(w, b, iterations, what apply_gradients returned)``."""
    w, b = ek.Variable([1.0, -2.0, 3.0]), ek.Variable(0.5)
    opt = make()
    rows = []
    for k in range(steps):
        g1 = ek.constant([0.1 * (k + 1), -0.3, 0.2 * k])
        g2 = ek.constant(0.05 * k - 0.1)
        returned = opt.apply_gradients([(g1, w), (g2, b)])
        rows.append((w.numpy(), float(b.numpy()), int(opt.iterations), int(returned)))
    return opt, rows


ACCUMULATING = [0, 1, 1, 2, 2, 3, 3]  # `iterations` after each step with n = 2: updates made

# TensorFlow 2.21's tf.keras optimizers on the same seven steps (`trajectory` run with
# `import tensorflow as tf`, tensorflow-cpu 2.21.0): w and b after steps 4 and 7, and
# `iterations` after each step.
TF_TRAJECTORIES = [
    (
        "sgd-3",
        lambda: K.SGD(0.1, gradient_accumulation_steps=3),
        ([0.98, -1.97, 2.98], 0.505),
        ([0.93, -1.94, 2.9], 0.495),
        [0, 0, 1, 1, 1, 2, 2],
    ),
    (
        "adam-2",
        lambda: K.Adam(0.1, gradient_accumulation_steps=2),
        ([0.8052185, -1.800004, 2.813901], 0.640015),
        ([0.7109965, -1.700004, 2.725517], 0.602537),
        ACCUMULATING,
    ),
    (
        "adam-2-global-clipnorm",
        lambda: K.Adam(0.1, gradient_accumulation_steps=2, global_clipnorm=0.1),
        ([0.8000013, -1.806058, 2.806653], 0.6531171),
        ([0.6998236, -1.718621, 2.710578], 0.6593236),
        ACCUMULATING,
    ),
    (
        "sgd-momentum-weight-decay-2",
        lambda: K.SGD(0.1, momentum=0.9, weight_decay=0.01, gradient_accumulation_steps=2),
        ([0.934516, -1.909032, 2.925013], 0.510743),
        ([0.8349315, -1.825823, 2.778988], 0.5015573),
        ACCUMULATING,
    ),
    (
        "adam-2-ema",
        lambda: K.Adam(
            0.1,
            gradient_accumulation_steps=2,
            use_ema=True,
            ema_momentum=0.5,
            ema_overwrite_frequency=2,
        ),
        ([0.8526106, -1.850003, 2.856952], 0.6200051),
        ([0.7819442, -1.775003, 2.790664], 0.5918965),
        ACCUMULATING,
    ),
    (
        "schedule-sees-every-step",
        lambda: K.SGD(K.schedules.ExponentialDecay(0.1, 1, 0.5), gradient_accumulation_steps=2),
        ([0.988125, -1.98125, 2.98875], 0.5034375),
        ([0.9864063, -1.980313, 2.985938], 0.5030469),
        ACCUMULATING,
    ),
    (
        "loss-scale-factor",
        lambda: K.SGD(0.1, loss_scale_factor=4.0),
        ([0.975, -1.97, 2.97], 0.5025),
        ([0.9300001, -1.9475, 2.895], 0.49125),
        [1, 2, 3, 4, 5, 6, 7],
    ),
    (
        "loss-scale-factor-adam-2",
        lambda: K.Adam(0.1, loss_scale_factor=8.0, gradient_accumulation_steps=2),
        ([0.8052387, -1.800016, 2.813926], 0.6399743),
        ([0.7110198, -1.700021, 2.725544], 0.6025019),
        ACCUMULATING,
    ),
]


@pytest.mark.parametrize(
    "make, after_4, after_7, iterations",
    [row[1:] for row in TF_TRAJECTORIES],
    ids=[row[0] for row in TF_TRAJECTORIES],
)
def test_matches_tensorflow_2_21(make, after_4, after_7, iterations):
    _, rows = trajectory(make)
    for (w, b, _, _), (want_w, want_b) in ((rows[3], after_4), (rows[6], after_7)):
        np.testing.assert_allclose(w, want_w, rtol=2e-6, atol=1e-6)
        assert b == pytest.approx(want_b, rel=2e-6, abs=1e-6)
    assert [r[2] for r in rows] == iterations
    assert [r[3] for r in rows] == [1, 2, 3, 4, 5, 6, 7]  # apply_gradients counts every step


def test_variables_wait_and_accumulators_hold_the_sum_until_the_update():
    w = ek.Variable([1.0, 2.0])
    opt = K.SGD(0.5, gradient_accumulation_steps=3)
    grads = [np.array([1.0, -1.0], np.float32), np.array([2.0, 0.5], np.float32)]
    for g in grads:
        opt.apply_gradients([(g, w)])
        np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    acc = opt.get_slot(w, "gradient_accumulator")
    np.testing.assert_allclose(acc.numpy(), grads[0] + grads[1])
    assert acc.name == "Variable/gradient_accumulator:0"
    last = np.array([0.0, 2.0], np.float32)
    opt.apply_gradients([(last, w)])
    mean = (grads[0] + grads[1] + last) / 3
    np.testing.assert_allclose(w.numpy(), np.array([1.0, 2.0]) - 0.5 * mean, rtol=1e-6)
    np.testing.assert_array_equal(acc.numpy(), [0.0, 0.0])  # cleared for the next round
    assert isinstance(opt.iterations, ek.Tensor) and opt.iterations.dtype == ek.int64
    assert int(opt.iterations) == 1


def test_arguments_are_checked_as_keras_checks_them():
    for bad in (1, -1, 2.5):
        with pytest.raises(ValueError, match="`gradient_accumulation_steps` must be an integer"):
            K.SGD(0.1, gradient_accumulation_steps=bad)
    with pytest.raises(TypeError, match="gradient_accumulation_steps='2' of type str"):
        K.SGD(0.1, gradient_accumulation_steps="2")
    assert K.SGD(0.1, gradient_accumulation_steps=0).gradient_accumulation_steps is None
    for bad in (0, -2.0, float("inf"), "x"):
        with pytest.raises(ValueError, match="`loss_scale_factor` must be a finite positive"):
            K.Adam(loss_scale_factor=bad)


def test_config_round_trips_and_scale_loss_multiplies():
    opt = K.Adam(0.01, gradient_accumulation_steps=4, loss_scale_factor=128.0)
    config = opt.get_config()
    assert config["gradient_accumulation_steps"] == 4 and config["loss_scale_factor"] == 128.0
    again = K.Adam.from_config(config)
    assert again.gradient_accumulation_steps == 4 and again.loss_scale_factor == 128.0
    assert float(opt.scale_loss(ek.constant(0.5))) == 64.0
    plain = K.Adam()
    loss = ek.constant(0.5)
    assert plain.scale_loss(loss) is loss
    assert plain.get_config()["gradient_accumulation_steps"] is None  # Keras 3.15: always a key


def test_minimize_with_a_loss_scale_factor_takes_the_unscaled_step():
    # minimize scales the loss and apply divides the gradients: w -= 0.25 * 2w, as without it.
    for factor in (None, 1024.0):
        w = ek.Variable(3.0)
        K.SGD(0.25, loss_scale_factor=factor).minimize(lambda w=w: w * w, var_list=[w])
        assert float(w.numpy()) == 1.5
        v = ek.Variable([1.0, -2.0])
        opt = K.SGD(0.5, loss_scale_factor=factor)
        with ek.GradientTape() as tape:
            loss = v * v  # not a scalar: the cotangent is ones, scaled
        opt.minimize(loss, var_list=[v], tape=tape)
        np.testing.assert_allclose(v.numpy(), [0.0, 0.0])


def regression_model():
    model = ek.keras.Sequential([ek.keras.layers.Dense(1, kernel_initializer="zeros")])
    model.build((None, 2))
    return model


def test_fit_with_accumulation_applies_the_mean_gradient_of_each_pair_of_batches():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 2)).astype(np.float32)
    y = (x @ np.array([[1.5], [-2.0]], np.float32) + 0.25).astype(np.float32)
    model = regression_model()
    model.compile(optimizer=K.SGD(0.1, gradient_accumulation_steps=2), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    # By hand: mean squared error gradients of each batch of 4, averaged over pairs.
    kernel, bias = np.zeros((2, 1), np.float32), np.zeros(1, np.float32)
    for pair in range(2):
        gk, gb = np.zeros_like(kernel), np.zeros_like(bias)
        for batch in range(2):
            rows = slice(8 * pair + 4 * batch, 8 * pair + 4 * batch + 4)
            err = x[rows] @ kernel + bias - y[rows]
            gk += x[rows].T @ err * 2 / 4
            gb += err.sum(0) * 2 / 4
        kernel -= 0.1 * gk / 2
        bias -= 0.1 * gb / 2
    np.testing.assert_allclose(model.layers[0].kernel.numpy(), kernel, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.layers[0].bias.numpy(), bias, rtol=1e-5, atol=1e-6)
    assert int(model.optimizer.iterations) == 2


def test_fit_scales_the_loss_so_a_loss_scale_factor_changes_nothing():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(12, 2)).astype(np.float32)
    y = rng.normal(size=(12, 1)).astype(np.float32)
    weights = []
    for factor in (None, 256.0):
        model = regression_model()
        model.compile(optimizer=K.Adam(0.05, loss_scale_factor=factor), loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        weights.append((model.layers[0].kernel.numpy(), history.history["loss"]))
    np.testing.assert_allclose(weights[0][0], weights[1][0], rtol=1e-5)
    np.testing.assert_allclose(weights[0][1], weights[1][1], rtol=1e-6)  # logs: unscaled


def test_checkpoint_saves_the_accumulators_and_every_step(tmp_path):
    w = ek.Variable([1.0, 2.0])
    opt = K.Adam(0.1, gradient_accumulation_steps=2)
    opt.apply_gradients([(ek.constant([0.5, -0.5]), w)])  # accumulated, not applied
    path = ek.train.Checkpoint(w=w, opt=opt).save(str(tmp_path / "ckpt"))
    w2 = ek.Variable([1.0, 2.0])
    opt2 = K.Adam(0.1, gradient_accumulation_steps=2)
    ek.train.Checkpoint(w=w2, opt=opt2).restore(path)
    for o, v in ((opt, w), (opt2, w2)):
        o.apply_gradients([(ek.constant([1.5, 0.5]), v)])  # the update step
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    assert not np.allclose(w.numpy(), [1.0, 2.0])
    assert int(opt2.iterations) == 1


def test_a_failed_step_leaves_the_accumulators_as_they_were():
    w, u = ek.Variable([1.0, 2.0]), ek.Variable(0.0)
    opt = K.SGD(0.1, gradient_accumulation_steps=2)
    opt.apply_gradients([(ek.constant([1.0, 1.0]), w), (ek.constant(2.0), u)])
    with pytest.raises(ValueError, match="has shape \\(3,\\), the variable has shape \\(2,\\)"):
        opt.apply_gradients([(ek.constant(1.0), u), (ek.constant([1.0, 1.0, 1.0]), w)])
    np.testing.assert_array_equal(opt.get_slot(w, "gradient_accumulator").numpy(), [1.0, 1.0])
    assert float(opt.get_slot(u, "gradient_accumulator").numpy()) == 2.0
    assert int(opt.iterations) == 0 and float(u.numpy()) == 0.0
