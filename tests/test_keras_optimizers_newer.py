"""Keras 3's newer optimizers (Muon, ScheduleFreeAdamW), Optimizer.exclude_from_weight_decay and
Variable.path, against closed forms and (where TensorFlow's Keras is installed) Keras 3."""

from __future__ import annotations

import math

import numpy as np
import pytest

import eagerkernel as ek

RNG = np.random.default_rng(3)


def newton_schulz(x, steps=5, a=3.4445, b=-4.7750, c=2.0315):
    tall = x.shape[0] > x.shape[1]
    x = x.T if tall else x
    x = x / (np.linalg.norm(x) + 1e-7)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if tall else x


def reference(values, grads, lr, adamw, momentum=0.95, wd=0.004, adam_wd=0.004, rms=0.2):
    """Keras 3's Muon written out in NumPy (float64): ``adamw[i]`` tells the AdamW variables."""
    values = [v.astype(np.float64) for v in values]
    m = [np.zeros_like(v) for v in values]
    vel = [np.zeros_like(v) for v in values]
    for t, step in enumerate(grads, start=1):
        for i, g in enumerate(step):
            values[i] *= 1.0 - (adam_wd if adamw[i] else wd) * lr
            if adamw[i]:
                alpha = lr * math.sqrt(1 - 0.999**t) / (1 - 0.9**t)
                m[i] += (g - m[i]) * 0.1
                vel[i] += (g * g - vel[i]) * 0.001
                values[i] -= m[i] * alpha / (np.sqrt(vel[i]) + 1e-7)
            else:
                m[i] = momentum * m[i] + g
                u = g + momentum * m[i]
                scale = math.sqrt(max(g.shape)) * rms
                values[i] -= lr * newton_schulz(u) * scale
    return values


def test_muon_steps_match_the_closed_form():
    dense = ek.keras.layers.Dense(4, name="hidden")
    dense.build((None, 3))
    emb = ek.keras.layers.Embedding(5, 3, name="embedding")
    emb.build((None,))
    head = ek.keras.layers.Dense(2, name="head")
    head.build((None, 6))  # a tall kernel: Newton-Schulz on its transpose
    variables = [dense.kernel, dense.bias, emb.embeddings, head.kernel]
    assert [v.path for v in variables] == [
        "hidden/kernel",
        "hidden/bias",
        "embedding/embeddings",
        "head/kernel",
    ]
    start = [v.numpy().copy() for v in variables]
    grads = [[RNG.standard_normal(v.shape).astype(np.float32) for v in start] for _ in range(3)]
    opt = ek.keras.optimizers.Muon(learning_rate=0.05, exclude_layers=["head"])
    for step in grads:
        opt.apply_gradients(zip([ek.constant(g) for g in step], variables))
    want = reference(start, grads, 0.05, adamw=[False, True, True, True])
    for v, w in zip(variables, want):
        np.testing.assert_allclose(v.numpy(), w, rtol=2e-5, atol=2e-6)
    # Slots: momentum everywhere, velocity for the AdamW variables only.
    assert opt.get_slot_names() == ["momentum", "velocity"]
    with pytest.raises(KeyError):
        opt.get_slot(dense.kernel, "velocity")
    assert opt.get_slot(head.kernel, "velocity").shape == (6, 2)


def test_muon_in_fit_and_its_config():
    x = RNG.standard_normal((64, 4)).astype(np.float32)
    y = (x @ RNG.standard_normal((4, 1))).astype(np.float32)
    model = ek.keras.Sequential(
        [ek.keras.Input((4,)), ek.keras.layers.Dense(8), ek.keras.layers.Dense(1, name="out")]
    )
    model.compile(ek.keras.optimizers.Muon(0.02, exclude_layers=["out"]), "mse")
    history = model.fit(x, y, epochs=20, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.2 * history.history["loss"][0]
    config = model.optimizer.get_config()
    again = ek.keras.optimizers.Muon.from_config(config)
    assert again.get_config() == config and config["exclude_layers"] == ["out"]
    assert isinstance(ek.keras.optimizers.get("muon"), ek.keras.optimizers.Muon)


def test_muon_bad_arguments():
    with pytest.raises(ValueError, match="ns_steps must be an int >= 0"):
        ek.keras.optimizers.Muon(ns_steps=2.5)
    with pytest.raises(ValueError, match=r"momentum must be in \[0.0, 1.0\]"):
        ek.keras.optimizers.Muon(momentum=1.5)


def test_exclude_from_weight_decay_by_name_and_by_variable():
    kernel = ek.Variable([2.0], name="dense/kernel")
    bias = ek.Variable([2.0], name="dense/bias")
    norm = ek.Variable([2.0], name="layer_norm/gamma")
    zero = [ek.constant([0.0])] * 3
    opt = ek.keras.optimizers.SGD(learning_rate=0.1, weight_decay=0.5)
    opt.exclude_from_weight_decay(var_list=[norm], var_names=["bias"])
    opt.apply_gradients(zip(zero, [kernel, bias, norm]))
    assert [float(v[0]) for v in (kernel, bias, norm)] == pytest.approx([1.9, 2.0, 2.0])
    with pytest.raises(ValueError, match="can only be configured before the optimizer is built"):
        opt.exclude_from_weight_decay(var_names=["kernel"])


def test_same_numbers_as_keras_3():
    keras = pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    theirs = keras.layers.Dense(3, name="dense")
    theirs.build((None, 4))
    ours = ek.keras.layers.Dense(3, name="dense")
    ours.build((None, 4))
    ours.set_weights(theirs.get_weights())
    grads = [RNG.standard_normal(w.shape).astype(np.float32) for w in theirs.get_weights()]
    k_opt, e_opt = keras.optimizers.Muon(learning_rate=0.1), ek.keras.optimizers.Muon(0.1)
    for _ in range(2):
        k_opt.apply_gradients(zip([keras.ops.convert_to_tensor(g) for g in grads], theirs.weights))
        e_opt.apply_gradients(zip([ek.constant(g) for g in grads], ours.weights))
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# -- ScheduleFreeAdamW ----------------------------------------------------------------------------


def schedule_free(y, grads, lr, warmup=0, wd=0.0, b1=0.9, b2=0.999, eps=1e-8):
    """Keras 3's ScheduleFreeAdamW on TensorFlow, in NumPy (x from the updated z)."""
    y = y.astype(np.float64)
    z, v = y.copy(), np.zeros_like(y)
    for t, g in enumerate(grads, start=1):
        rate = lr * (min(t / warmup, 1.0) if warmup else 1.0)
        y = y * (1.0 - wd * lr)
        v += (g * g - v) * (1.0 - b2)
        z = z - rate * g / (np.sqrt(v / (1.0 - b2**t)) + eps)
        x = (y - (1.0 - b1) * z) / b1
        x = (1.0 - 1.0 / t) * x + z / t
        y = (1.0 - b1) * z + b1 * x
    return y


@pytest.mark.parametrize("kwargs", [{}, {"warmup_steps": 3, "weight_decay": 0.01}])
def test_schedule_free_adamw_matches_the_closed_form(kwargs):
    start = RNG.standard_normal((3, 2)).astype(np.float32)
    grads = [RNG.standard_normal((3, 2)).astype(np.float32) for _ in range(5)]
    v = ek.Variable(start)
    opt = ek.keras.optimizers.ScheduleFreeAdamW(learning_rate=0.1, **kwargs)
    for g in grads:
        opt.apply_gradients([(ek.constant(g), v)])
    want = schedule_free(
        start, grads, 0.1, warmup=kwargs.get("warmup_steps", 0), wd=kwargs.get("weight_decay", 0.0)
    )
    np.testing.assert_allclose(v.numpy(), want, rtol=1e-5, atol=1e-6)
    assert opt.get_config()["warmup_steps"] == kwargs.get("warmup_steps", 0)


def test_schedule_free_momentum_slot_starts_at_the_variable_also_after_a_restore(tmp_path):
    v = ek.Variable([1.0, 2.0])
    opt = ek.keras.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
    opt.apply_gradients([(ek.constant([1.0, -1.0]), v)])
    z = opt.get_slot(v, "momentum").numpy().copy()
    np.testing.assert_allclose(z, [0.9, 2.1], rtol=1e-6)  # one step of lr from the variable
    path = ek.train.Checkpoint(v=v, opt=opt).write(str(tmp_path / "ckpt"))
    v2 = ek.Variable([0.0, 0.0])
    opt2 = ek.keras.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
    ek.train.Checkpoint(v=v2, opt=opt2).read(path)
    opt2.apply_gradients([(ek.constant([0.0, 0.0]), v2)])  # builds the slots: the restored z
    np.testing.assert_allclose(opt2.get_slot(v2, "momentum").numpy(), z, rtol=1e-6)


def test_schedule_free_same_numbers_as_keras_3():
    keras = pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    start = RNG.standard_normal((4,)).astype(np.float32)
    grads = [RNG.standard_normal((4,)).astype(np.float32) for _ in range(3)]
    theirs, ours = keras.Variable(start), ek.Variable(start)
    k_opt = keras.optimizers.ScheduleFreeAdamW(learning_rate=0.05, warmup_steps=2)
    e_opt = ek.keras.optimizers.ScheduleFreeAdamW(learning_rate=0.05, warmup_steps=2)
    for g in grads:
        k_opt.apply_gradients([(keras.ops.convert_to_tensor(g), theirs)])
        e_opt.apply_gradients([(ek.constant(g), ours)])
    np.testing.assert_allclose(ours.numpy(), np.asarray(theirs.numpy()), rtol=1e-5, atol=1e-6)


# -- MultiOptimizer and OptimizerMap --------------------------------------------------------------


def _two_layer_model():
    model = ek.keras.Sequential(
        [
            ek.keras.Input((3,)),
            ek.keras.layers.Dense(4, name="body"),
            ek.keras.layers.Dense(1, name="head"),
        ]
    )
    return model


def test_multi_optimizer_steps_each_group_with_its_optimizer():
    model = _two_layer_model()
    start = [w.copy() for w in model.get_weights()]
    grads = [RNG.standard_normal(w.shape).astype(np.float32) for w in start]
    mapping = ek.keras.optimizers.OptimizerMap(
        ek.keras.optimizers.SGD(0.1), {"sequential.*/head/.*": ek.keras.optimizers.Adam(0.01)}
    )
    opt = ek.keras.optimizers.MultiOptimizer(mapping)
    variables = model.trainable_variables
    name = model.name  # Keras 3's paths: a Sequential's layers under its name
    assert [v.path for v in variables] == [
        f"{name}/body/kernel",
        f"{name}/body/bias",
        f"{name}/head/kernel",
        f"{name}/head/bias",
    ]
    for _ in range(2):
        opt.apply_gradients(zip([ek.constant(g) for g in grads], variables))
    # SGD on the body: two steps of 0.1 * g; Adam on the head: m/sqrt(v) is sign(g) while the
    # gradient is the same, so two steps of 0.01 (up to epsilon).
    for w, s, g in zip(model.get_weights()[:2], start[:2], grads[:2]):
        np.testing.assert_allclose(w, s - 0.2 * g, rtol=1e-5, atol=1e-6)
    for w, s, g in zip(model.get_weights()[2:], start[2:], grads[2:]):
        np.testing.assert_allclose(w, s - 0.02 * np.sign(g), rtol=1e-4, atol=1e-5)
    assert int(opt.iterations) == 2
    assert [int(o.iterations) for o in opt.optimizers] == [2, 2]
    assert [type(o).__name__ for o in opt.optimizers] == ["Adam", "SGD"]
    with pytest.raises(
        AttributeError, match="Learning rate cannot be accessed on a MultiOptimizer"
    ):
        _ = opt.learning_rate


def test_multi_optimizer_with_a_callable_in_fit_and_checkpoint(tmp_path):
    x = RNG.standard_normal((32, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    head_opt, body_opt = ek.keras.optimizers.Adam(0.05), ek.keras.optimizers.SGD(0.05)
    model = _two_layer_model()
    model.compile(
        ek.keras.optimizers.MultiOptimizer(lambda v: head_opt if "head" in v.path else body_opt),
        "mse",
    )
    history = model.fit(x, y, epochs=15, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.3 * history.history["loss"][0]
    assert int(model.optimizer.iterations) == 60 and int(head_opt.iterations) == 60
    path = ek.train.Checkpoint(model=model).write(str(tmp_path / "ckpt"))
    names = dict(ek.train.list_variables(path))
    # The step counts and each optimizer's slots, under the optimizer it came from (met first:
    # the body's SGD, then the head's Adam).
    assert "model/optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE" in names
    assert "model/optimizer/optimizer-1/iter/.ATTRIBUTES/VARIABLE_VALUE" in names
    slot = "model/layer-1/kernel/.OPTIMIZER_SLOT/model/optimizer/optimizer-1/m/.ATTRIBUTES/"
    assert names[slot + "VARIABLE_VALUE"] == [4, 1]
    m_head = head_opt.get_slot(model.layers[1].kernel, "m").numpy().copy()

    twin = _two_layer_model()
    twin_head, twin_body = ek.keras.optimizers.Adam(0.05), ek.keras.optimizers.SGD(0.05)
    twin.compile(
        ek.keras.optimizers.MultiOptimizer(lambda v: twin_head if "head" in v.path else twin_body),
        "mse",
    )
    twin.optimizer.build(twin.trainable_variables)  # meets both optimizers, then restores
    ek.train.Checkpoint(model=twin).read(path)
    for a, b in zip(twin.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert int(twin.optimizer.iterations) == 60
    np.testing.assert_array_equal(twin_head.get_slot(twin.layers[1].kernel, "m").numpy(), m_head)


def test_a_failing_group_leaves_every_variable_as_it_was():
    model = _two_layer_model()
    opt = ek.keras.optimizers.MultiOptimizer(
        ek.keras.optimizers.OptimizerMap(
            ek.keras.optimizers.Adam(0.1), {".*head.*": ek.keras.optimizers.SGD(0.1)}
        )
    )
    variables = model.trainable_variables
    before = [w.copy() for w in model.get_weights()]
    grads = [ek.ones_like(v) for v in variables]
    grads[3] = ek.ones([5])  # the head's bias gradient has the wrong shape
    with pytest.raises(ValueError, match="has shape"):
        opt.apply_gradients(zip(grads, variables))
    for a, b in zip(model.get_weights(), before):
        np.testing.assert_array_equal(a, b)
    assert int(opt.iterations) == 0 and all(int(o.iterations) == 0 for o in opt.optimizers)
    slots = [s.numpy() for o in opt.optimizers for s in o.variables[1:]]
    assert all(not np.any(s) for s in slots)  # Adam's moments: still zero


def test_optimizer_map_lookup_config_and_errors():
    sgd, adam = ek.keras.optimizers.SGD(name="sgd"), ek.keras.optimizers.Adam(name="adam")
    mapping = ek.keras.optimizers.OptimizerMap(ek.keras.optimizers.RMSprop(name="rmsprop"))
    mapping["encoder/layer_0/dense"] = adam
    mapping["encoder/.*"] = sgd
    mapping["decoder"] = adam
    assert mapping["decoder"].name == "adam" and mapping["encoder/layer_0/dense"].name == "adam"
    assert mapping["encoder/layer_0/attention/query"].name == "sgd"
    assert mapping["decoder/layer_0/dense"].name == "rmsprop"  # "decoder" is an exact path
    mapping["enc.*"] = adam
    with pytest.raises(ValueError, match="Multiple optimizers assigned to variable encoder/x"):
        mapping["encoder/x"]
    with pytest.raises(ValueError, match="'decoder' already exists in the OptimizerMap"):
        mapping["decoder"] = sgd
    with pytest.raises(ValueError, match="optimizer cannot be LossScaleOptimizer"):
        mapping["other"] = ek.keras.mixed_precision.LossScaleOptimizer(ek.keras.optimizers.SGD())
    with pytest.raises(TypeError, match="default_optimizer must be a Keras Optimizer instance"):
        ek.keras.optimizers.OptimizerMap("sgd")
    del mapping["enc.*"]
    opt = ek.keras.optimizers.MultiOptimizer(mapping, loss_scale_factor=4.0)
    assert all(o.loss_scale_factor == 4.0 for o in opt.optimizers)
    again = ek.keras.optimizers.MultiOptimizer.from_config(opt.get_config())
    # Each key's optimizer is serialized on its own (as Keras): two copies of the Adam.
    assert [type(o).__name__ for o in again.optimizers] == ["Adam", "SGD", "Adam", "RMSprop"]
    assert dict(again._optimizer_map).keys() == dict(mapping).keys()
    assert float(again.scale_loss(ek.constant(2.0))) == 8.0
    with pytest.raises(TypeError, match="optimizer_map must be an OptimizerMap or a callable"):
        ek.keras.optimizers.MultiOptimizer({"a": sgd})


def test_multi_optimizer_same_numbers_as_keras_3():
    keras = pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    start = [RNG.standard_normal((3, 2)).astype(np.float32), RNG.standard_normal((2,))]
    grads = [RNG.standard_normal(s.shape).astype(np.float32) for s in start]
    theirs = [keras.Variable(s, name=n) for s, n in zip(start, ("kernel", "bias"))]
    ours = [ek.Variable(s.astype(np.float32), name=n) for s, n in zip(start, ("kernel", "bias"))]

    def make(lib):
        return lib.optimizers.MultiOptimizer(
            lib.optimizers.OptimizerMap(lib.optimizers.SGD(0.1), {"bias": lib.optimizers.Adam(0.1)})
        )

    k_opt, e_opt = make(keras), make(ek.keras)
    for _ in range(3):
        k_opt.apply_gradients(zip([keras.ops.convert_to_tensor(g) for g in grads], theirs))
        e_opt.apply_gradients(zip([ek.constant(g) for g in grads], ours))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), np.asarray(b.numpy()), rtol=1e-5, atol=1e-6)


def test_multi_optimizer_in_a_keras_file(tmp_path):
    x = RNG.standard_normal((16, 3)).astype(np.float32)
    model = _two_layer_model()
    mapping = ek.keras.optimizers.OptimizerMap(
        ek.keras.optimizers.SGD(0.05, momentum=0.9), {".*head.*": ek.keras.optimizers.Adam(0.05)}
    )
    model.compile(ek.keras.optimizers.MultiOptimizer(mapping), "mse")
    model.fit(x, x[:, :1], epochs=2, batch_size=8, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = ek.keras.models.load_model(tmp_path / "m.keras")
    opt = loaded.optimizer
    assert isinstance(opt, ek.keras.optimizers.MultiOptimizer) and int(opt.iterations) == 4
    assert [type(o).__name__ for o in opt.optimizers] == ["Adam", "SGD"]
    opt.build(loaded.trainable_variables)  # the slots, restored as they are made
    head = loaded.layers[1].kernel
    want = model.optimizer.optimizers[0].get_slot(model.layers[1].kernel, "m").numpy()
    np.testing.assert_array_equal(opt.optimizers[0].get_slot(head, "m").numpy(), want)
