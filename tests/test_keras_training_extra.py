"""Keras training surface: AdamW, Nadam, Adamax, Adadelta, Ftrl, Lion; callbacks; losses;
metrics; `ek.keras.backend`. Values against NumPy re-implementations of Keras's formulas."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.keras import optimizers

X0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
GRADS = [
    np.array([[0.1, -0.2, 0.3], [0.4, -0.5, 0.6]], dtype=np.float32),
    np.array([[-0.3, 0.1, 0.2], [0.05, 0.7, -0.4]], dtype=np.float32),
    np.array([[0.2, 0.2, -0.1], [-0.6, 0.3, 0.9]], dtype=np.float32),
    np.array([[0.0, -0.1, 0.4], [0.3, -0.2, 0.1]], dtype=np.float32),
]


def run(opt, grads=GRADS, x0=X0, var=None):
    v = var if var is not None else ek.Variable(x0, name="dense/kernel")
    out = []
    for g in grads:
        opt.apply_gradients([(ek.constant(g), v)])
        out.append(v.numpy().copy())
    return v, out


# -- float64 NumPy re-implementations of Keras 3's update_step ------------------------------------


def adamw_ref(lr=0.01, wd=0.004, b1=0.9, b2=0.999, eps=1e-7):
    x, m, v, out = X0.astype(np.float64), 0.0, 0.0, []
    for t, g in enumerate(GRADS, 1):
        x = x - x * wd * lr
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        x = x - alpha * m / (np.sqrt(v) + eps)
        out.append(x)
    return out


def nadam_ref(lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    x, m, v, u_product, out = X0.astype(np.float64), 0.0, 0.0, 1.0, []
    for t, g in enumerate(GRADS, 1):
        u_t = b1 * (1 - 0.5 * 0.96**t)
        u_t1 = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        u_product = u_product * u_t  # Keras's _backend_update_step, before update_step
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        m_hat = u_t1 * m / (1 - u_product * u_t1) + (1 - u_t) * g / (1 - u_product)
        v_hat = v / (1 - b2**t)
        x = x - m_hat * lr / (np.sqrt(v_hat) + eps)
        out.append(x)
    return out


def adamax_ref(lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    x, m, u, out = X0.astype(np.float64), 0.0, 0.0, []
    for t, g in enumerate(GRADS, 1):
        m = m + (g - m) * (1 - b1)
        u = np.maximum(b2 * u, np.abs(g))
        x = x - lr * m / ((1 - b1**t) * (u + eps))
        out.append(x)
    return out


def adadelta_ref(lr=1.0, rho=0.95, eps=1e-7):
    x, ag, ad, out = X0.astype(np.float64), 0.0, 0.0, []
    for g in GRADS:
        ag = rho * ag + (1 - rho) * g * g
        delta = -np.sqrt(ad + eps) * g / np.sqrt(ag + eps)
        ad = rho * ad + (1 - rho) * delta * delta
        x = x + lr * delta
        out.append(x)
    return out


def ftrl_ref(lr=0.1, power=-0.5, init=0.1, l1=0.0, l2=0.0, shrink=0.0, beta=0.0):
    x, acc, lin, out = X0.astype(np.float64), np.full(X0.shape, init), 0.0, []
    for g in GRADS:
        l2_reg = l2 + beta / (2.0 * lr)
        grad_to_use = g + 2 * shrink * x
        new_acc = acc + g * g
        lin = lin + grad_to_use - (new_acc**-power - acc**-power) / lr * x
        quadratic = new_acc**-power / lr + 2 * l2_reg
        x = (np.clip(lin, -l1, l1) - lin) / quadratic
        acc = new_acc
        out.append(x)
    return out


def lion_ref(lr=0.01, b1=0.9, b2=0.99):
    x, m, out = X0.astype(np.float64), 0.0, []
    for g in GRADS:
        x = x - lr * np.sign(m * b1 + g * (1 - b1))
        m = m * b2 + g * (1 - b2)
        out.append(x)
    return out


CASES = [
    ("AdamW default wd", lambda: optimizers.AdamW(0.01), lambda: adamw_ref()),
    ("AdamW wd=0.1", lambda: optimizers.AdamW(0.01, weight_decay=0.1), lambda: adamw_ref(wd=0.1)),
    ("Nadam", lambda: optimizers.Nadam(0.01), lambda: nadam_ref()),
    ("Nadam betas", lambda: optimizers.Nadam(0.02, 0.8, 0.9), lambda: nadam_ref(0.02, 0.8, 0.9)),
    ("Adamax", lambda: optimizers.Adamax(0.01), lambda: adamax_ref()),
    ("Adamax betas", lambda: optimizers.Adamax(0.05, 0.5, 0.7), lambda: adamax_ref(0.05, 0.5, 0.7)),
    ("Adadelta", lambda: optimizers.Adadelta(1.0), lambda: adadelta_ref()),
    (
        "Adadelta rho eps",
        lambda: optimizers.Adadelta(0.5, rho=0.8, epsilon=1e-3),
        lambda: adadelta_ref(0.5, 0.8, 1e-3),
    ),
    ("Ftrl", lambda: optimizers.Ftrl(0.1), lambda: ftrl_ref()),
    (
        "Ftrl regularized",
        lambda: optimizers.Ftrl(
            0.1,
            learning_rate_power=-0.7,
            initial_accumulator_value=0.3,
            l1_regularization_strength=0.05,
            l2_regularization_strength=0.2,
            l2_shrinkage_regularization_strength=0.1,
            beta=0.5,
        ),
        lambda: ftrl_ref(0.1, -0.7, 0.3, 0.05, 0.2, 0.1, 0.5),
    ),
    ("Lion", lambda: optimizers.Lion(0.01), lambda: lion_ref()),
    ("Lion betas", lambda: optimizers.Lion(0.03, 0.5, 0.8), lambda: lion_ref(0.03, 0.5, 0.8)),
]


@pytest.mark.parametrize("make, ref", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_update_matches_keras_formula(make, ref):
    _, got = run(make())
    for step, (a, b) in enumerate(zip(got, ref())):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6, err_msg=f"step {step + 1}")


def test_large_variable_split_over_cores_matches_the_formula():
    # Past PARALLEL_MIN elements the update runs in chunks over the cores: same arithmetic.
    rng = np.random.default_rng(0)
    x0 = rng.normal(size=(1 << 19) + 7).astype(np.float32)
    grads = [rng.normal(size=x0.shape).astype(np.float32) for _ in range(2)]
    for cls in (optimizers.Nadam, optimizers.Ftrl, optimizers.Adadelta, optimizers.Lion):
        v_big, _ = run(cls(0.1), grads=grads, x0=x0)
        v_small = [ek.Variable(x0[i : i + 64]) for i in range(0, 256, 64)]
        opt = cls(0.1)
        for g in grads:
            opt.apply_gradients(
                [(ek.constant(g[i * 64 : i * 64 + 64]), v) for i, v in enumerate(v_small)]
            )
        np.testing.assert_allclose(
            v_big.numpy()[:256], np.concatenate([v.numpy() for v in v_small]), rtol=1e-6, atol=1e-7
        )


SLOTS = {
    optimizers.AdamW: ["m", "v"],
    optimizers.Nadam: ["m", "v"],
    optimizers.Adamax: ["m", "u"],
    optimizers.Adadelta: ["accumulated_grad", "accumulated_delta_var"],
    optimizers.Ftrl: ["accumulator", "linear"],
    optimizers.Lion: ["m"],
}


@pytest.mark.parametrize("cls", list(SLOTS), ids=lambda c: c.__name__)
def test_slot_names_config_round_trip_and_get(cls):
    opt = cls(0.01)
    run(opt, grads=GRADS[:1])
    assert opt.get_slot_names() == SLOTS[cls]
    assert [s.name for s in opt.variables[1:]] == [f"dense/kernel/{n}:0" for n in SLOTS[cls]]
    config = opt.get_config()
    again = cls.from_config(config)
    assert type(again) is cls and again.get_config() == config
    by_name = optimizers.get(cls.__name__.lower())
    assert type(by_name) is cls
    assert type(optimizers.get({"class_name": cls.__name__, "config": config})) is cls


@pytest.mark.parametrize("cls", list(SLOTS), ids=lambda c: c.__name__)
def test_checkpoint_round_trip_restores_slots_and_the_next_steps(cls, tmp_path):
    opt = cls(0.05)
    v, _ = run(opt, grads=GRADS[:2])
    path = ek.train.Checkpoint(v=v, optimizer=opt).save(str(tmp_path / "ckpt"))
    saved_slots = [s.numpy().copy() for s in opt.variables[1:]]
    _, expected = run(opt, grads=GRADS[2:], var=v)

    v2 = ek.Variable(np.zeros_like(X0), name="dense/kernel")
    opt2 = cls(0.05)
    ek.train.Checkpoint(v=v2, optimizer=opt2).restore(path)
    assert int(opt2.iterations.numpy()) == 2
    _, got = run(opt2, grads=GRADS[2:3], var=v2)  # creates the slots: the saved values land
    for a, b in zip(got, expected[:1]):
        np.testing.assert_array_equal(a, b)
    opt3 = cls(0.05)
    v3 = ek.Variable(np.zeros_like(X0), name="dense/kernel")
    opt3.build([v3])
    ek.train.Checkpoint(v=v3, optimizer=opt3).restore(path).assert_consumed()
    for a, b in zip(saved_slots, [s.numpy() for s in opt3.variables[1:]]):
        np.testing.assert_array_equal(a, b)


def test_adamw_defaults_and_errors():
    opt = optimizers.AdamW()
    assert opt.weight_decay == 0.004 and opt.get_config()["weight_decay"] == 0.004
    with pytest.raises(ValueError, match="weight_decay"):
        optimizers.AdamW(weight_decay=None)
    with pytest.raises(ValueError, match=r"Lion.*beta_1"):
        optimizers.Lion(beta_1=0.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        optimizers.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        optimizers.Ftrl(l1_regularization_strength=-1.0)


def test_a_failed_step_changes_nothing():
    v = ek.Variable(X0)
    opt = optimizers.Nadam(0.1)
    run(opt, grads=GRADS[:1], var=v)
    before = [v.numpy().copy(), *[s.numpy().copy() for s in opt.variables]]
    with pytest.raises(ValueError, match="shape"):
        opt.apply_gradients([(ek.constant([1.0]), v)])
    after = [v.numpy(), *[s.numpy() for s in opt.variables]]
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)


# -- callbacks ------------------------------------------------------------------------------------

callbacks = ek.keras.callbacks


def linear_model(lr=0.1, optimizer=None):
    model = ek.keras.Sequential([ek.keras.layers.Dense(1, input_shape=(2,))])
    model.compile(optimizer=optimizer or optimizers.SGD(lr), loss="mse")
    return model


XS = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0], [-1.0, 1.0]], np.float32)
YS = np.array([[1.0], [0.0], [2.0], [-1.0]], np.float32)


def test_learning_rate_scheduler_sets_the_rate_each_epoch():
    model = linear_model(0.1)
    seen = []
    cb = callbacks.LearningRateScheduler(lambda epoch, lr: seen.append((epoch, lr)) or lr * 0.5)
    h = model.fit(XS, YS, epochs=3, verbose=0, callbacks=[cb])
    assert [e for e, _ in seen] == [0, 1, 2]
    np.testing.assert_allclose([lr for _, lr in seen], [0.1, 0.05, 0.025], rtol=1e-6)
    np.testing.assert_allclose(h.history["learning_rate"], [0.05, 0.025, 0.0125], rtol=1e-6)
    np.testing.assert_allclose(float(model.optimizer.learning_rate.numpy()), 0.0125, rtol=1e-6)
    # the old one-argument API
    model = linear_model(0.1)
    old = callbacks.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))
    model.fit(XS, YS, epochs=2, verbose=0, callbacks=[old])
    np.testing.assert_allclose(float(model.optimizer.learning_rate.numpy()), 0.02, rtol=1e-6)


def test_learning_rate_scheduler_errors():
    model = linear_model(0.1)
    bad = callbacks.LearningRateScheduler(lambda epoch, lr: "fast")
    with pytest.raises(ValueError, match=r"should be a float\. Got: fast"):
        model.fit(XS, YS, epochs=1, verbose=0, callbacks=[bad])
    np.testing.assert_allclose(float(model.optimizer.learning_rate.numpy()), 0.1, rtol=1e-6)
    schedule = optimizers.schedules.ExponentialDecay(0.1, 10, 0.5)
    model = linear_model(optimizer=optimizers.SGD(schedule))
    cb = callbacks.LearningRateScheduler(lambda epoch, lr: lr)
    with pytest.raises(TypeError, match="learning rate is not settable"):
        model.fit(XS, YS, epochs=1, verbose=0, callbacks=[cb])
    with pytest.raises(TypeError, match="schedule must be a function"):
        callbacks.LearningRateScheduler(0.1)


class FakeModel:
    def __init__(self, lr):
        self.optimizer = optimizers.SGD(lr)
        self.stop_training = False


def reduce_lr_ref(values, lr, factor, patience, min_delta, cooldown, min_lr, maximize=False):
    """Keras's ReduceLROnPlateau.on_epoch_end, step by step: the rate after each epoch."""
    best, wait, cool, out = (-np.inf if maximize else np.inf), 0, 0, []
    for v in values:
        if cool > 0:
            cool -= 1
            wait = 0
        better = v > best + min_delta if maximize else v < best - min_delta
        if better:
            best, wait = v, 0
        elif cool == 0:
            wait += 1
            if wait >= patience and lr > min_lr:
                lr, cool, wait = max(lr * factor, min_lr), cooldown, 0
        out.append(lr)
    return out


@pytest.mark.parametrize(
    "kwargs, maximize",
    [
        ({"factor": 0.5, "patience": 2}, False),
        ({"factor": 0.5, "patience": 1, "cooldown": 2, "min_lr": 0.03}, False),
        ({"factor": 0.2, "patience": 2, "min_delta": 0.05, "monitor": "val_accuracy"}, True),
        ({"factor": 0.5, "patience": 1, "mode": "max", "monitor": "score"}, True),
    ],
)
def test_reduce_lr_on_plateau_follows_keras_rule(kwargs, maximize):
    values = [1.0, 0.9, 0.95, 0.92, 0.91, 0.89, 0.89, 0.95, 0.96, 0.5, 0.6, 0.6, 0.6]
    monitor = kwargs.get("monitor", "val_loss")
    model = FakeModel(0.4)
    cb = callbacks.ReduceLROnPlateau(**kwargs)
    cb.set_model(model)
    cb.on_train_begin()
    got = []
    for epoch, v in enumerate(values):
        logs = {monitor: v}
        cb.on_epoch_end(epoch, logs)
        assert logs["learning_rate"] == pytest.approx(got[-1] if got else 0.4, rel=1e-6)
        got.append(float(model.optimizer.learning_rate.numpy()))
    expected = reduce_lr_ref(
        values,
        0.4,
        kwargs["factor"],
        kwargs["patience"],
        kwargs.get("min_delta", 1e-4),
        kwargs.get("cooldown", 0),
        kwargs.get("min_lr", 0.0),
        maximize,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert expected[-1] < 0.4  # the sequence does trigger reductions


def test_reduce_lr_on_plateau_in_fit_and_errors():
    model = linear_model(0.1)
    cb = callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=100.0)
    h = model.fit(XS, YS, epochs=3, verbose=0, callbacks=[cb])  # improves by 100 only once
    # the logs hold the rate the epoch used; the reduction applies from the next epoch
    np.testing.assert_allclose(h.history["learning_rate"], [0.1, 0.1, 0.05], rtol=1e-6)
    np.testing.assert_allclose(float(model.optimizer.learning_rate.numpy()), 0.025, rtol=1e-6)
    with pytest.raises(ValueError, match=r"factor >= 1\.0"):
        callbacks.ReduceLROnPlateau(factor=1.0)
    with pytest.raises(ValueError, match="mode"):
        callbacks.ReduceLROnPlateau(mode="up")
    with pytest.raises(TypeError, match="patiense"):
        callbacks.ReduceLROnPlateau(patiense=3)


def test_terminate_on_nan_stops_after_the_bad_batch():
    model = linear_model(0.1)
    ys = YS.copy()
    ys[1, 0] = np.nan
    h = model.fit(
        XS,
        ys,
        batch_size=1,
        epochs=3,
        shuffle=False,
        verbose=0,
        callbacks=[callbacks.TerminateOnNaN()],
    )
    assert int(model.optimizer.iterations.numpy()) == 2  # the second batch's loss is NaN
    assert len(h.history["loss"]) == 1
    ended = []
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 1"):
        linear_model(0.1).fit(
            XS,
            ys,
            batch_size=1,
            epochs=3,
            shuffle=False,
            verbose=0,
            callbacks=[
                callbacks.TerminateOnNaN(raise_error=True),
                callbacks.LambdaCallback(on_train_end=lambda logs: ended.append(logs)),
            ],
        )
    assert ended == []  # raised through: no on_train_end


def test_csv_logger_writes_rows_appends_and_uses_the_separator(tmp_path):
    import csv

    path = tmp_path / "log.csv"
    model = linear_model(0.05)
    h = model.fit(
        XS, YS, epochs=3, verbose=0, validation_data=(XS, YS), callbacks=[callbacks.CSVLogger(path)]
    )
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["epoch", "loss", "val_loss"]
    assert [int(r["epoch"]) for r in rows] == [0, 1, 2]
    np.testing.assert_allclose([float(r["loss"]) for r in rows], h.history["loss"], rtol=1e-6)
    np.testing.assert_allclose(
        [float(r["val_loss"]) for r in rows], h.history["val_loss"], rtol=1e-6
    )

    model.fit(XS, YS, epochs=2, verbose=0, callbacks=[callbacks.CSVLogger(path, append=True)])
    lines = path.read_text().splitlines()
    assert len(lines) == 6 and lines[0] == "epoch,loss,val_loss"  # no second header
    assert lines[4].startswith("0,") and lines[4].endswith(",NA")  # no validation: NA

    semi = tmp_path / "semi.csv"
    model.fit(XS, YS, epochs=1, verbose=0, callbacks=[callbacks.CSVLogger(semi, separator=";")])
    assert semi.read_text().splitlines()[0] == "epoch;loss;val_loss"
    model.fit(XS, YS, epochs=1, verbose=0, callbacks=[callbacks.CSVLogger(semi)])
    assert len(semi.read_text().splitlines()) == 2  # append=False overwrites


def read_events(logdir):
    """``{tag: [(step, value)]}`` from the event files in ``logdir``: scalars as floats,
    histograms as their count, text as its string (TFRecord framing, tensorboardX's Event)."""
    import glob
    import struct

    from tensorboardX.proto.event_pb2 import Event

    out: dict = {}
    for path in sorted(glob.glob(f"{logdir}/events.out.tfevents.*")):
        data = open(path, "rb").read()  # noqa: SIM115
        pos = 0
        while pos < len(data):
            (n,) = struct.unpack("<Q", data[pos : pos + 8])
            event = Event.FromString(data[pos + 12 : pos + 12 + n])
            pos += 12 + n + 4
            for v in event.summary.value:
                if v.HasField("simple_value"):
                    value = v.simple_value
                elif v.HasField("histo"):
                    value = v.histo.num
                else:
                    value = v.tensor.string_val[0].decode()
                out.setdefault(v.tag, []).append((event.step, value))
    return out


def test_tensorboard_writes_epoch_batch_validation_and_histograms(tmp_path):
    pytest.importorskip("tensorboardX")
    model = linear_model(0.05)
    tb = callbacks.TensorBoard(log_dir=tmp_path, histogram_freq=2, update_freq=3)
    h = model.fit(
        XS,
        YS,
        batch_size=1,
        epochs=3,
        shuffle=False,
        verbose=0,
        validation_data=(XS, YS),
        callbacks=[tb],
    )
    train = read_events(tmp_path / "train")
    val = read_events(tmp_path / "validation")
    assert [s for s, _ in train["epoch_loss"]] == [0, 1, 2]
    np.testing.assert_allclose([v for _, v in train["epoch_loss"]], h.history["loss"], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in val["epoch_loss"]], h.history["val_loss"], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in train["epoch_learning_rate"]], [0.05] * 3, rtol=1e-6)
    assert [s for s, _ in train["batch_loss"]] == [3, 6, 9, 12]  # 12 batches, every third
    kernel = [t for t in train if t.endswith("/histogram") and "kernel" in t]
    assert len(kernel) == 1 and train[kernel[0]] == [(0, 2.0), (2, 2.0)]  # 2 weights, epochs 0, 2
    import json

    assert json.loads(train["keras"][0][1])["class_name"] == "Sequential"
    assert sorted(val) == ["epoch_loss", "evaluation_loss_vs_iterations"]  # no val_ prefix
    assert [s for s, _ in val["evaluation_loss_vs_iterations"]] == [4, 8, 12]
    np.testing.assert_allclose(
        [v for _, v in val["evaluation_loss_vs_iterations"]], h.history["val_loss"], rtol=1e-6
    )
    assert not any(t.endswith("_0/histogram") for t in train)  # tagged by path, as Keras 3
    model.evaluate(XS, YS, verbose=0, callbacks=[tb])  # alone: written and closed
    again = read_events(tmp_path / "validation")["evaluation_loss_vs_iterations"]
    assert [s for s, _ in again] == [4, 8, 12, 12]
    assert "epoch_val_loss" not in train


def test_tensorboard_rejects_what_it_does_not_implement(tmp_path):
    for kwargs in ({"write_images": True}, {"profile_batch": 2}, {"embeddings_freq": 1}):
        with pytest.raises(NotImplementedError, match=next(iter(kwargs))):
            callbacks.TensorBoard(log_dir=tmp_path, **kwargs)
    with pytest.raises(ValueError, match="update_freq"):
        callbacks.TensorBoard(log_dir=tmp_path, update_freq=0)


# -- confusion-matrix metrics ---------------------------------------------------------------------

metrics = ek.keras.metrics
RNG = np.random.default_rng(7)
LABELS = (RNG.random((3, 8, 4)) > 0.5).astype(np.float32)  # 3 batches of 8 samples, 4 classes
SCORES = RNG.random((3, 8, 4)).astype(np.float32)
SW = RNG.random((3, 8)).astype(np.float32)


def counts_ref(labels, scores, weights, thr):
    """Weighted (tp, fp, tn, fn) for ``scores > thr``, a direct NumPy count."""
    pos = scores > thr
    lab = labels.astype(bool)
    w = np.broadcast_to(weights, scores.shape).astype(np.float64)
    return (
        np.sum(w * (pos & lab)),
        np.sum(w * (pos & ~lab)),
        np.sum(w * (~pos & ~lab)),
        np.sum(w * (~pos & lab)),
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_condition_counts_precision_and_recall_match_numpy(weighted):
    thresholds = [0.2, 0.5, 0.8]
    ms = {
        "tp": metrics.TruePositives(thresholds),
        "fp": metrics.FalsePositives(thresholds),
        "tn": metrics.TrueNegatives(thresholds),
        "fn": metrics.FalseNegatives(thresholds),
        "p": metrics.Precision(thresholds),
        "r": metrics.Recall(thresholds),
        "p1": metrics.Precision(),
        "r1": metrics.Recall(thresholds=0.3),
    }
    for b in range(3):
        sw = SW[b][:, None] if weighted else None
        for m in ms.values():
            m.update_state(LABELS[b], SCORES[b], sample_weight=sw)
    w = SW[:, :, None] if weighted else np.ones((3, 8, 1))
    ref = {t: counts_ref(LABELS, SCORES, w, t) for t in (0.2, 0.3, 0.5, 0.8)}
    for key, i in (("tp", 0), ("fp", 1), ("tn", 2), ("fn", 3)):
        got = ms[key].result().numpy()
        assert got.shape == (3,)
        np.testing.assert_allclose(got, [ref[t][i] for t in thresholds], rtol=1e-5)
    prec = [ref[t][0] / (ref[t][0] + ref[t][1]) for t in thresholds]
    rec = [ref[t][0] / (ref[t][0] + ref[t][3]) for t in thresholds]
    np.testing.assert_allclose(ms["p"].result().numpy(), prec, rtol=1e-5)
    np.testing.assert_allclose(ms["r"].result().numpy(), rec, rtol=1e-5)
    assert ms["p1"].result().shape == ()  # a float threshold: a scalar result
    np.testing.assert_allclose(float(ms["p1"].result()), prec[1], rtol=1e-5)
    np.testing.assert_allclose(
        float(ms["r1"].result()), ref[0.3][0] / (ref[0.3][0] + ref[0.3][3]), rtol=1e-5
    )
    ms["p"].reset_state()
    np.testing.assert_array_equal(ms["p"].result().numpy(), [0.0, 0.0, 0.0])  # divide_no_nan


def test_precision_recall_class_id_and_top_k():
    y_true = np.array([[0, 0, 1, 1], [0, 1, 0, 0]], np.float32)
    y_pred = np.array([[0.9, 0.8, 0.7, 0.1], [0.2, 0.6, 0.95, 0.3]], np.float32)
    # Keras's documented example: top_k=2 keeps [0.9, 0.8] and [0.6, 0.95]
    p = metrics.Precision(top_k=2)
    p.update_state(y_true, y_pred)
    assert float(p.result()) == pytest.approx(1 / 4)  # only [1, 1] is a hit
    r = metrics.Recall(class_id=2)
    r.update_state(y_true, y_pred)
    assert float(r.result()) == pytest.approx(1.0)  # class 2: label 1 with 0.7
    p2 = metrics.Precision(class_id=2)
    p2.update_state(y_true, y_pred)
    assert float(p2.result()) == pytest.approx(0.5)  # class 2 predicted twice, right once
    with pytest.raises(ValueError, match="class_id=7"):
        metrics.Precision(class_id=7).update_state(y_true, y_pred)
    with pytest.raises(ValueError, match="threshold values must be in"):
        metrics.Precision(thresholds=[0.5, 1.5])


def roc_auc_exact(labels, scores, weights=None):
    """The Mann-Whitney statistic: P(score of a positive > score of a negative), ties 1/2."""
    labels, scores = labels.ravel().astype(bool), scores.ravel()
    w = np.ones_like(scores, np.float64) if weights is None else weights.ravel()
    sp, wp = scores[labels], w[labels]
    sn, wn = scores[~labels], w[~labels]
    gt = (sp[:, None] > sn[None]) + 0.5 * (sp[:, None] == sn[None])
    return float(np.sum(wp[:, None] * wn[None] * gt) / (wp.sum() * wn.sum()))


def auc_ref(labels, scores, weights, thresholds, curve, summation):
    """Keras's AUC.result from a direct count at each threshold (a Python loop)."""
    c = np.array([counts_ref(labels, scores, weights, t) for t in thresholds])
    tp, fp, tn, fn = c.T

    def div(a, b):
        return np.array([x / y if y else 0.0 for x, y in zip(a, b)])

    if curve == "PR" and summation == "interpolation":
        total = 0.0
        for i in range(len(thresholds) - 1):
            dtp = tp[i] - tp[i + 1]
            p0, p1 = tp[i] + fp[i], tp[i + 1] + fp[i + 1]
            dp = p0 - p1
            slope = dtp / dp if dp > 0 else 0.0
            intercept = tp[i + 1] - slope * p1
            ratio = p0 / p1 if p0 > 0 and p1 > 0 else 1.0
            denom = tp[i + 1] + fn[i + 1]
            total += slope * (dtp + intercept * np.log(ratio)) / denom if denom > 0 else 0.0
        return total
    recall = div(tp, tp + fn)
    x, y = (div(fp, fp + tn), recall) if curve == "ROC" else (recall, div(tp, tp + fp))
    pick = {"interpolation": lambda a, b: (a + b) / 2, "minoring": min, "majoring": max}
    return sum((x[i] - x[i + 1]) * pick[summation](y[i], y[i + 1]) for i in range(len(x) - 1))


def test_auc_keras_docstring_example_and_closed_form_roc():
    m = metrics.AUC(num_thresholds=3)
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    assert float(m.result()) == pytest.approx(0.75)  # Keras's documented value
    m.reset_state()
    # scores on a grid between the thresholds: the trapezoids are the exact ROC AUC
    scores = (np.floor(SCORES * 50) / 50 + 0.01).astype(np.float32)
    m = metrics.AUC(num_thresholds=101)
    for b in range(3):
        m.update_state(LABELS[b], scores[b], sample_weight=SW[b][:, None])
    w = np.broadcast_to(SW[:, :, None], SCORES.shape)
    assert float(m.result()) == pytest.approx(roc_auc_exact(LABELS, scores, w), rel=1e-5)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("summation", ["interpolation", "minoring", "majoring"])
def test_auc_matches_keras_formula(curve, summation):
    m = metrics.AUC(num_thresholds=20, curve=curve, summation_method=summation)
    for b in range(3):
        m.update_state(LABELS[b], SCORES[b], sample_weight=SW[b][:, None])
    thresholds = [-1e-7, *[(i + 1) / 19 for i in range(18)], 1 + 1e-7]
    w = SW[:, :, None]
    expected = auc_ref(LABELS, SCORES, w, np.float32(thresholds), curve, summation)
    assert float(m.result()) == pytest.approx(expected, rel=1e-5)


def test_auc_multi_label_label_weights_logits_and_errors():
    lw = [0.1, 0.2, 0.3, 0.4]
    m = metrics.AUC(num_thresholds=30, multi_label=True, label_weights=lw)
    logits = np.log(SCORES / (1 - SCORES))
    ml = metrics.AUC(num_thresholds=30, multi_label=True, from_logits=True)
    for b in range(3):
        m.update_state(LABELS[b], SCORES[b])
        ml.update_state(LABELS[b], logits[b])
    assert m.true_positives.shape == (30, 4)
    thresholds = np.float32([-1e-7, *[(i + 1) / 29 for i in range(28)], 1 + 1e-7])
    per_label = [
        auc_ref(LABELS[..., k], SCORES[..., k], np.ones((3, 8)), thresholds, "ROC", "interpolation")
        for k in range(4)
    ]
    assert float(m.result()) == pytest.approx(np.dot(per_label, lw) / sum(lw), rel=1e-5)
    assert float(ml.result()) == pytest.approx(np.mean(per_label), rel=1e-4)
    with pytest.raises(ValueError, match="labels"):
        m.update_state(LABELS[0][:, :3], SCORES[0][:, :3])
    with pytest.raises(ValueError, match="invalid curve"):
        metrics.AUC(curve="XYZ")
    with pytest.raises(ValueError, match="num_thresholds"):
        metrics.AUC(num_thresholds=1)
    config = metrics.AUC(curve="PR", thresholds=[0.3, 0.6]).get_config()
    again = metrics.AUC.from_config(config)
    assert again.thresholds == [-1e-7, 0.3, 0.6, 1 + 1e-7] and again.curve == "PR"


def test_metrics_by_name_in_compile_and_fit():
    x = RNG.normal(size=(32, 3)).astype(np.float32)
    y = (x[:, :1] + 0.3 * x[:, 1:2] > 0).astype(np.float32)
    model = ek.keras.Sequential([ek.keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile(
        optimizer=optimizers.Adam(0.05),
        loss="binary_crossentropy",
        metrics=["precision", "recall", "auc", metrics.TruePositives(name="tp")],
    )
    h = model.fit(x, y, batch_size=32, epochs=2, verbose=0)
    for key in ("precision", "recall", "auc", "tp"):
        assert len(h.history[key]) == 2
    result = model.evaluate(x, y, verbose=0, return_dict=True)
    scores = model.predict(x, verbose=0)
    tp, fp, _, fn = counts_ref(y, scores, np.ones_like(y), 0.5)
    assert result["tp"] == pytest.approx(tp)
    assert result["precision"] == pytest.approx(tp / (tp + fp), rel=1e-5)
    assert result["recall"] == pytest.approx(tp / (tp + fn), rel=1e-5)
    assert result["auc"] == pytest.approx(roc_auc_exact(y, scores), abs=0.02)  # 200 thresholds
    for name, cls in (("precision", metrics.Precision), ("auc", metrics.AUC)):
        assert type(metrics.get(name)) is cls
    assert type(metrics.get("false_negatives")) is metrics.FalseNegatives


# -- losses ---------------------------------------------------------------------------------------

losses = ek.keras.losses
EPS = 1e-7
YT = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], np.float32)
YP = np.array([[0.2, 0.7, 0.1], [0.6, 0.3, 0.1], [0.25, 0.25, 0.5]], np.float32)
REG_T = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
REG_P = np.array([[1.5, -1.0, 2.0], [0.0, 3.0, 1.0]], np.float32)


def bce_np(t, p):
    p = np.clip(p, EPS, 1 - EPS)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


def sigmoid_np(x):
    return 1 / (1 + np.exp(-x))


def focal_bce_np(t, p, balance=False, alpha=0.25, gamma=2.0):
    p_t = t * p + (1 - t) * (1 - p)
    out = (1 - p_t) ** gamma * bce_np(t, p)
    if balance:
        out = (t * alpha + (1 - t) * (1 - alpha)) * out
    return out.mean(-1)


def focal_cce_np(t, p, alpha=0.25, gamma=2.0):
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return (alpha * (1 - p) ** gamma * -t * np.log(p)).sum(-1)


def hinge_t(t):
    return 2 * t - 1 if np.isin(t, [0, 1]).all() else t


def unit(x):
    return x / np.sqrt(np.maximum((x * x).sum(-1, keepdims=True), 1e-12))


LOSS_CASES = [
    (
        "kl_divergence",
        losses.KLDivergence,
        YT,
        YP,
        lambda t, p: (np.clip(t, EPS, 1) * np.log(np.clip(t, EPS, 1) / np.clip(p, EPS, 1))).sum(-1),
    ),
    ("poisson", losses.Poisson, YT, YP, lambda t, p: (p - t * np.log(p + EPS)).mean(-1)),
    (
        "hinge",
        losses.Hinge,
        YT,
        YP * 3 - 1,
        lambda t, p: np.maximum(1 - hinge_t(t) * p, 0).mean(-1),
    ),
    (
        "squared_hinge",
        losses.SquaredHinge,
        np.sign(REG_T),
        REG_P,
        lambda t, p: (np.maximum(1 - t * p, 0) ** 2).mean(-1),
    ),
    (
        "categorical_hinge",
        losses.CategoricalHinge,
        YT,
        REG_P[:, :3].repeat(2, 0)[:3],
        lambda t, p: np.maximum(((1 - t) * p).max(-1) - (t * p).sum(-1) + 1, 0),
    ),
    ("log_cosh", losses.LogCosh, REG_T, REG_P, lambda t, p: np.log(np.cosh(p - t)).mean(-1)),
    (
        "cosine_similarity",
        losses.CosineSimilarity,
        REG_T,
        REG_P,
        lambda t, p: -(unit(t) * unit(p)).sum(-1),
    ),
    (
        "mean_absolute_percentage_error",
        losses.MeanAbsolutePercentageError,
        REG_T,
        REG_P,
        lambda t, p: 100 * np.abs((t - p) / np.maximum(np.abs(t), EPS)).mean(-1),
    ),
    (
        "mean_squared_logarithmic_error",
        losses.MeanSquaredLogarithmicError,
        np.abs(REG_T),
        np.abs(REG_P),
        lambda t, p: ((np.log(np.maximum(p, EPS) + 1) - np.log(np.maximum(t, EPS) + 1)) ** 2).mean(
            -1
        ),
    ),
    ("binary_focal_crossentropy", losses.BinaryFocalCrossentropy, YT, YP, focal_bce_np),
    ("categorical_focal_crossentropy", losses.CategoricalFocalCrossentropy, YT, YP, focal_cce_np),
]


@pytest.mark.parametrize("name, cls, yt, yp, ref", LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
def test_loss_functions_and_classes_match_numpy(name, cls, yt, yp, ref):
    fn = getattr(losses, name)
    expected = ref(yt.astype(np.float64), yp.astype(np.float64))
    np.testing.assert_allclose(fn(yt, yp).numpy(), expected, rtol=1e-5, atol=1e-6)
    obj = cls()
    assert obj.name == name
    np.testing.assert_allclose(float(obj(yt, yp)), expected.mean(), rtol=1e-5, atol=1e-6)
    sw = np.array([0.5, 2.0, 1.0][: len(yt)], np.float32)
    np.testing.assert_allclose(
        float(cls(reduction="sum")(yt, yp, sample_weight=sw)), (expected * sw).sum(), rtol=1e-5
    )
    again = cls.from_config(obj.get_config())
    assert type(again) is cls and again.get_config() == obj.get_config()
    assert losses.get(name) is fn and losses.to_loss(name).fn is fn
    assert type(losses.get(cls.__name__)) is cls


def test_focal_losses_arguments():
    logits = np.log(YP / (1 - YP))
    got = losses.binary_focal_crossentropy(
        YT, logits, apply_class_balancing=True, alpha=0.4, gamma=1.5, from_logits=True
    ).numpy()
    np.testing.assert_allclose(got, focal_bce_np(YT, YP, True, 0.4, 1.5), rtol=1e-5)
    smoothed = YT * 0.8 + 0.5 * 0.2
    got = losses.BinaryFocalCrossentropy(label_smoothing=0.2, reduction="none")(YT, YP).numpy()
    np.testing.assert_allclose(got, focal_bce_np(smoothed, YP), rtol=1e-5)
    z = np.log(YP) + 0.3
    got = losses.CategoricalFocalCrossentropy(alpha=0.5, gamma=1.0, from_logits=True)(YT, z)
    np.testing.assert_allclose(float(got), focal_cce_np(YT, YP, 0.5, 1.0).mean(), rtol=1e-5)
    with pytest.raises(ValueError, match="same shape"):
        losses.categorical_focal_crossentropy(YT, YP[:, :2])
    # gamma = 0 and no balancing: plain binary cross-entropy
    np.testing.assert_allclose(
        losses.binary_focal_crossentropy(YT, YP, gamma=0.0).numpy(),
        losses.binary_crossentropy(YT, YP).numpy(),
        rtol=1e-6,
    )


@pytest.mark.parametrize(
    "fn",
    [
        losses.log_cosh,
        losses.binary_focal_crossentropy,
        losses.categorical_focal_crossentropy,
        losses.cosine_similarity,
        losses.kl_divergence,
    ],
    ids=lambda f: f.__name__,
)
def test_loss_gradients_match_finite_differences(fn):
    yt = YT.astype(np.float64)
    yp = YP.astype(np.float64)
    x = ek.Variable(yp)
    with ek.GradientTape() as tape:
        total = ek.reduce_sum(fn(yt, x))
    grad = tape.gradient(total, x).numpy()
    h = 1e-6
    numeric = np.zeros_like(yp)
    for idx in np.ndindex(yp.shape):
        up, down = yp.copy(), yp.copy()
        up[idx] += h
        down[idx] -= h
        numeric[idx] = (float(ek.reduce_sum(fn(yt, up))) - float(ek.reduce_sum(fn(yt, down)))) / (
            2 * h
        )
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


def test_new_losses_train_through_compile():
    model = ek.keras.Sequential([ek.keras.layers.Dense(3, activation="softmax", input_shape=(3,))])
    model.compile(optimizer=optimizers.Nadam(0.05), loss="categorical_focal_crossentropy")
    h = model.fit(YP, YT, epochs=20, verbose=0)
    assert h.history["loss"][-1] < h.history["loss"][0]


# -- more metrics ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls, fn, yt, yp",
    [
        (metrics.CosineSimilarity, lambda t, p: (unit(t) * unit(p)).sum(-1), REG_T, REG_P),
        (metrics.LogCoshError, lambda t, p: np.log(np.cosh(p - t)).mean(-1), REG_T, REG_P),
        (metrics.Hinge, lambda t, p: np.maximum(1 - hinge_t(t) * p, 0).mean(-1), YT, YP * 3 - 1),
        (
            metrics.KLDivergence,
            lambda t, p: (np.clip(t, EPS, 1) * np.log(np.clip(t, EPS, 1) / np.clip(p, EPS, 1))).sum(
                -1
            ),
            YT,
            YP,
        ),
        (metrics.Poisson, lambda t, p: (p - t * np.log(p + EPS)).mean(-1), YT, YP),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_mean_metrics_are_weighted_running_means(cls, fn, yt, yp):
    m = cls()
    per_sample = fn(yt.astype(np.float64), yp.astype(np.float64))
    sw = np.arange(1, len(yt) + 1, dtype=np.float32)
    m.update_state(yt[:1], yp[:1], sample_weight=sw[:1])
    m.update_state(yt[1:], yp[1:], sample_weight=sw[1:])
    assert float(m.result()) == pytest.approx(np.sum(per_sample * sw) / sw.sum(), rel=1e-5)
    m.reset_state()
    assert float(m.result()) == 0.0
    assert type(metrics.get(m.name)) is cls


def fbeta_np(yt, pred, beta, w=None):
    w = np.ones((len(yt), 1)) if w is None else w[:, None]
    tp = (w * pred * yt).sum(0)
    fp = (w * pred * (1 - yt)).sum(0)
    fn = (w * (1 - pred) * yt).sum(0)
    return tp, fp, fn, (w * yt).sum(0)


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
@pytest.mark.parametrize("beta, threshold", [(1.0, None), (2.0, 0.5), (0.5, 0.3)])
def test_fbeta_score_matches_the_definition(average, beta, threshold):
    yt = LABELS.reshape(24, 4).astype(np.float64)
    yp = SCORES.reshape(24, 4).astype(np.float64)
    w = SW.reshape(24).astype(np.float64)
    m = metrics.FBetaScore(average=average, beta=beta, threshold=threshold)
    m.update_state(yt[:10], yp[:10], sample_weight=w[:10])
    m.update_state(yt[10:], yp[10:], sample_weight=w[10:])
    if threshold is None:
        pred = (yp == yp.max(-1, keepdims=True)).astype(np.float64)
    else:
        pred = (yp > threshold).astype(np.float64)
    tp, fp, fn, support = fbeta_np(yt, pred, beta, w)
    if average == "micro":
        tp, fp, fn = tp.sum(), fp.sum(), fn.sum()
    p, r = tp / (tp + fp), tp / (tp + fn)
    score = (1 + beta**2) * p * r / (beta**2 * p + r)
    if average == "macro":
        score = score.mean()
    elif average == "weighted":
        score = (score * support).sum() / support.sum()
    np.testing.assert_allclose(m.result().numpy(), score, rtol=1e-5)


def test_f1_score_errors_and_config():
    with pytest.raises(ValueError, match="average"):
        metrics.F1Score(average="mean")
    with pytest.raises(ValueError, match="threshold"):
        metrics.F1Score(threshold=1.5)
    with pytest.raises(ValueError, match="beta"):
        metrics.FBetaScore(beta=0)
    m = metrics.F1Score(average="macro", threshold=0.4)
    assert metrics.F1Score.from_config(m.get_config()).get_config() == m.get_config()
    with pytest.raises(ValueError, match="num_classes"):
        m.update_state([1.0, 0.0], [0.3, 0.9])


@pytest.mark.parametrize("aggregation", ["uniform_average", "variance_weighted_average", None])
def test_r2_score_matches_the_definition(aggregation):
    yt = REG_T.T.astype(np.float64)  # 3 samples, 2 outputs
    yp = REG_P.T.astype(np.float64)
    w = np.array([1.0, 2.0, 0.5])
    m = metrics.R2Score(class_aggregation=aggregation)
    m.update_state(yt[:2], yp[:2], sample_weight=w[:2])
    m.update_state(yt[2:], yp[2:], sample_weight=w[2:])
    mean = (w[:, None] * yt).sum(0) / w.sum()
    ss_tot = (w[:, None] * (yt - mean) ** 2).sum(0)
    ss_res = (w[:, None] * (yt - yp) ** 2).sum(0)
    raw = 1 - ss_res / ss_tot
    expected = {
        "uniform_average": raw.mean(),
        "variance_weighted_average": (ss_tot * raw).sum() / ss_tot.sum(),
        None: raw,
    }[aggregation]
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5)


def test_adjusted_r2_and_errors():
    rng = np.random.default_rng(3)
    yt = rng.normal(size=20)
    yp = yt + 0.3 * rng.normal(size=20)
    m = metrics.R2Score(num_regressors=3)
    m.update_state(yt, yp)
    r2 = 1 - np.sum((yt - yp) ** 2) / np.sum((yt - yt.mean()) ** 2)
    assert float(m.result()) == pytest.approx(1 - (1 - r2) * 19 / 16, rel=1e-5)
    with pytest.raises(ValueError, match="class_aggregation"):
        metrics.R2Score(class_aggregation="median")
    with pytest.raises(ValueError, match="num_regressors"):
        metrics.R2Score(num_regressors=-1)


def test_mean_iou_matches_the_confusion_matrix():
    rng = np.random.default_rng(5)
    yt = rng.integers(0, 4, size=(6, 5))
    yp = rng.integers(0, 4, size=(6, 5))
    yp[yp == 3] = 2  # class 3 never predicted; it still counts if labelled
    w = rng.random((6, 5))
    m = metrics.MeanIoU(num_classes=5)  # class 4 never occurs: left out of the mean
    m.update_state(yt[:3], yp[:3], sample_weight=w[:3])
    m.update_state(yt[3:], yp[3:], sample_weight=w[3:])
    ious = []
    for c in range(4):
        tp = w[(yt == c) & (yp == c)].sum()
        union = w[(yt == c) | (yp == c)].sum()
        ious.append(tp / union)
    assert float(m.result()) == pytest.approx(np.mean(ious), rel=1e-5)
    # one-hot inputs and an ignored class
    onehot = metrics.MeanIoU(
        num_classes=4, sparse_y_true=False, sparse_y_pred=False, ignore_class=None
    )
    onehot.update_state(np.eye(4)[yt], np.eye(4)[yp] * 0.7, sample_weight=w)
    assert float(onehot.result()) == pytest.approx(np.mean(ious), rel=1e-5)
    ignored = metrics.MeanIoU(num_classes=4, ignore_class=0)
    ignored.update_state(yt, yp)
    keep = yt != 0
    ious = [
        np.sum((yt == c) & (yp == c) & keep) / np.sum(((yt == c) | (yp == c)) & keep)
        for c in range(4)
        if np.sum(((yt == c) | (yp == c)) & keep)
    ]
    assert float(ignored.result()) == pytest.approx(np.mean(ious), rel=1e-5)
    with pytest.raises(ValueError, match="outside"):
        m.update_state([7], [0])


# -- backend --------------------------------------------------------------------------------------

backend = ek.keras.backend


def test_backend_settings():
    assert backend.floatx() == "float32"
    backend.set_floatx("float32")  # float64: tests/test_keras_floatx.py
    with pytest.raises(ValueError, match="floatx"):
        backend.set_floatx("float8")
    assert backend.image_data_format() == "channels_last"
    with pytest.raises(NotImplementedError, match="channels_first"):
        backend.set_image_data_format("channels_first")
    with pytest.raises(ValueError, match="data_format"):
        backend.set_image_data_format("nhwc")
    assert backend.is_keras_tensor(ek.keras.Input(shape=(2,)))
    assert not backend.is_keras_tensor(ek.constant([1.0]))
    assert not backend.is_keras_tensor(np.ones(2))


def test_set_epsilon_changes_the_losses_clipping():
    assert backend.epsilon() == 1e-7
    try:
        backend.set_epsilon(1e-3)
        assert backend.epsilon() == 1e-3
        got = float(ek.keras.losses.binary_crossentropy([1.0], [0.0]))
        assert got == pytest.approx(-np.log(1e-3), rel=1e-5)
        got = float(ek.keras.losses.categorical_crossentropy([[1.0, 0.0]], [[0.0, 1.0]]))
        assert got == pytest.approx(-np.log(1e-3), rel=1e-5)
    finally:
        backend.set_epsilon(1e-7)
    got = float(ek.keras.losses.binary_crossentropy([1.0], [0.0]))
    assert got == pytest.approx(-np.log(1e-7), rel=1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        backend.set_epsilon(-1.0)


def test_clear_session_restarts_layer_names():
    ek.keras.layers.Dense(1)
    ek.keras.layers.Dense(1)
    backend.clear_session()
    assert ek.keras.layers.Dense(1).name == "dense"
    assert ek.keras.layers.Dense(1).name == "dense_1"


# -- BackupAndRestore -----------------------------------------------------------------------------


class Interrupt(callbacks.Callback):
    def __init__(self, at_epoch):
        super().__init__()
        self.at_epoch = at_epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.at_epoch:
            raise KeyboardInterrupt("simulated preemption")


def test_backup_and_restore_resumes_where_training_stopped(tmp_path):
    backup = tmp_path / "backup"
    reference = linear_model(optimizer=optimizers.Adam(0.05))
    reference.build((None, 2))
    start = [w.copy() for w in reference.get_weights()]
    reference.fit(XS, YS, batch_size=2, epochs=4, shuffle=False, verbose=0)

    model = linear_model(optimizer=optimizers.Adam(0.05))
    model.build((None, 2))
    model.set_weights(start)
    with pytest.raises(KeyboardInterrupt):
        model.fit(
            XS,
            YS,
            batch_size=2,
            epochs=4,
            shuffle=False,
            verbose=0,
            callbacks=[callbacks.BackupAndRestore(backup), Interrupt(at_epoch=1)],
        )
    assert backup.is_dir()  # epochs 0 and 1 are backed up

    fresh = linear_model(optimizer=optimizers.Adam(0.05))
    fresh.build((None, 2))  # other initial weights: the backup must replace them
    seen = []
    h = fresh.fit(
        XS,
        YS,
        batch_size=2,
        epochs=4,
        shuffle=False,
        verbose=0,
        callbacks=[
            callbacks.BackupAndRestore(backup),
            callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: seen.append(e)),
        ],
    )
    assert seen == [2, 3] and len(h.history["loss"]) == 2
    assert int(fresh.optimizer.iterations.numpy()) == 8  # 4 from the backup, 4 after
    for a, b in zip(reference.get_weights(), fresh.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)  # Adam's slots were restored
    assert not backup.exists()  # a completed training deletes the backup

    again = linear_model()
    h = again.fit(XS, YS, epochs=2, verbose=0, callbacks=[callbacks.BackupAndRestore(backup)])
    assert len(h.history["loss"]) == 2  # no backup: from the start


def test_backup_and_restore_arguments(tmp_path):
    with pytest.raises(ValueError, match="backup_dir"):
        callbacks.BackupAndRestore("")
    with pytest.raises(
        ValueError,
        match=r"Invalid value for argument `save_freq`\. Received: save_freq=batch\. "
        r"Expected either 'epoch' or an integer value\.",
    ):
        callbacks.BackupAndRestore(tmp_path, save_freq="batch")
    model = linear_model()
    model.fit(
        XS,
        YS,
        epochs=1,
        verbose=0,
        callbacks=[callbacks.BackupAndRestore(tmp_path / "keep", delete_checkpoint=False)],
    )
    assert (tmp_path / "keep").is_dir()


class InterruptAtBatch(callbacks.Callback):
    def __init__(self, epoch, batch):
        super().__init__()
        self.at, self.epoch = (epoch, batch), None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.epoch, batch) == self.at:
            raise KeyboardInterrupt("simulated preemption")


class WeightsAt(callbacks.Callback):
    """The weights and optimizer step after each batch: {(epoch, batch): (weights, step)}."""

    def __init__(self):
        super().__init__()
        self.seen, self.epoch = {}, None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        step = int(self.model.optimizer.iterations.numpy())
        self.seen[(self.epoch, batch)] = ([w.copy() for w in self.model.get_weights()], step)


def test_backup_every_n_batches_restarts_the_interrupted_epoch(tmp_path):
    # 4 samples, batch 1: 4 batches an epoch; a backup every 3 batches (counted across epochs,
    # as Keras counts): after batches (0, 2), (1, 1), (1, 3), (2, 2), ...
    backup = tmp_path / "backup"
    model = linear_model(optimizer=optimizers.Adam(0.05))
    model.build((None, 2))
    start = [w.copy() for w in model.get_weights()]
    trace = WeightsAt()
    with pytest.raises(KeyboardInterrupt):
        model.fit(
            XS,
            YS,
            batch_size=1,
            epochs=4,
            shuffle=False,
            verbose=0,
            callbacks=[
                callbacks.BackupAndRestore(backup, save_freq=3),
                trace,
                InterruptAtBatch(1, 2),
            ],
        )
    saved_weights, saved_step = trace.seen[(1, 1)]  # the last backup before the interruption

    fresh = linear_model(optimizer=optimizers.Adam(0.05))
    fresh.build((None, 2))
    fresh.set_weights(start)
    seen = []

    class Probe(callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.append(
                (
                    [w.copy() for w in self.model.get_weights()],
                    int(self.model.optimizer.iterations.numpy()),
                )
            )

        def on_epoch_begin(self, epoch, logs=None):
            seen.append(epoch)

    h = fresh.fit(
        XS,
        YS,
        batch_size=1,
        epochs=4,
        shuffle=False,
        verbose=0,
        callbacks=[callbacks.BackupAndRestore(backup, save_freq=3), Probe()],
    )
    (weights, step), *epochs = seen
    assert step == saved_step == 6  # 4 batches of epoch 0 and 2 of epoch 1
    for a, b in zip(weights, saved_weights):
        np.testing.assert_array_equal(a, b)
    assert epochs == [1, 2, 3] and len(h.history["loss"]) == 3  # epoch 1 again, from its start
    assert not backup.exists()


def test_double_checkpoint_restores_the_previous_backup_when_the_latest_is_corrupt(tmp_path):
    backup = tmp_path / "backup"
    model = linear_model()
    model.build((None, 2))
    trace = WeightsAt()
    with pytest.raises(KeyboardInterrupt):
        model.fit(
            XS,
            YS,
            batch_size=2,
            epochs=5,
            shuffle=False,
            verbose=0,
            callbacks=[
                callbacks.BackupAndRestore(backup, double_checkpoint=True),
                trace,
                Interrupt(at_epoch=2),
            ],
        )
    latest, previous = backup / "backup.safetensors", backup / "backup.bkp.safetensors"
    assert latest.is_file() and previous.is_file()  # epochs 0-2 done; the one before: 0-1
    latest.write_bytes(b"\x00" * 64)  # a torn write on a filesystem without atomic renames

    fresh = linear_model()
    fresh.build((None, 2))
    seen = []
    fresh.fit(
        XS,
        YS,
        batch_size=2,
        epochs=5,
        shuffle=False,
        verbose=0,
        callbacks=[
            callbacks.BackupAndRestore(backup, double_checkpoint=True, delete_checkpoint=False),
            callbacks.LambdaCallback(
                on_train_begin=lambda logs: seen.append([w.copy() for w in fresh.get_weights()]),
                on_epoch_begin=lambda e, logs: seen.append(e),
            ),
        ],
    )
    for a, b in zip(seen[0], trace.seen[(1, 1)][0]):  # the state after epoch 1
        np.testing.assert_array_equal(a, b)
    assert seen[1:] == [2, 3, 4]

    # Without a previous backup, the corrupt one is an error, not a silent fresh start.
    (backup / "backup.safetensors").write_bytes(b"\x00" * 64)
    (backup / "backup.bkp.safetensors").unlink()
    with pytest.raises(ValueError, match="backup"):
        fresh.fit(XS, YS, epochs=1, verbose=0, callbacks=[callbacks.BackupAndRestore(backup)])


def test_nadam_momentum_product_after_a_jump_in_iterations():
    # u_product depends on the step only: setting iterations (as a restore does) recomputes it
    opt = optimizers.Nadam(0.01)
    v = ek.Variable(X0)
    opt.apply_gradients([(ek.constant(GRADS[0]), v)])
    opt.iterations = 3
    opt.apply_gradients([(ek.constant(GRADS[1]), v)])
    fresh = optimizers.Nadam(0.01)
    fresh.iterations = 3
    assert fresh._u_product(4) == pytest.approx(opt._u_product(4), rel=1e-15)
    expected = np.prod([0.9 * (1 - 0.5 * 0.96**k) for k in range(1, 5)])
    assert opt._u_product(4) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("cls", list(SLOTS), ids=lambda c: c.__name__)
def test_model_save_round_trip_keeps_the_optimizer_and_its_slots(cls, tmp_path):
    x = np.arange(8, dtype=np.float32).reshape(4, 2) / 8
    model = linear_model(optimizer=cls(0.05))
    model.fit(x, YS, epochs=2, verbose=0, shuffle=False)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = ek.keras.models.load_model(path)
    assert type(loaded.optimizer) is cls
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    model.fit(x, YS, epochs=1, verbose=0, shuffle=False)
    loaded.fit(x, YS, epochs=1, verbose=0, shuffle=False)  # uses the saved slots
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_confusion_metrics_take_per_sample_weights_of_rank_one():
    # Keras adds a trailing axis to sample_weight: (N,) weighs each sample's row of (N, C)
    for make in (lambda: metrics.AUC(num_thresholds=20), lambda: metrics.Precision()):
        row, col = make(), make()
        for b in range(3):
            row.update_state(LABELS[b], SCORES[b], sample_weight=SW[b])
            col.update_state(LABELS[b], SCORES[b], sample_weight=SW[b][:, None])
        assert float(row.result()) == pytest.approx(float(col.result()), rel=1e-6)
    full = metrics.TruePositives()
    full.update_state(LABELS[0], SCORES[0], sample_weight=np.ones((8, 4)) * 2)
    half = metrics.TruePositives()
    half.update_state(LABELS[0], SCORES[0])
    assert float(full.result()) == pytest.approx(2 * float(half.result()))
