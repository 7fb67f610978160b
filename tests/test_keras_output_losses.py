"""The loss of each output (Keras 3's ``CompileLoss`` trackers), `compile` again without a loss,
and `Model.loss` - checked against values computed by hand from the model's own outputs.

The expected values were compared with TensorFlow 2.21 / Keras 3.15 (same weights,
``learning_rate=0``, ``run_eagerly=True``): e.g. the two-output model below gives loss 3.064394,
score_output_loss 1.944102, class_output_loss 1.120293 there and here."""

import numpy as np
import pytest

from eagerkernel import keras

RNG = np.random.default_rng(0)
X = RNG.normal(size=(10, 4)).astype(np.float32)
YS = RNG.normal(size=(10, 1)).astype(np.float32)
YC = np.eye(3, dtype=np.float32)[RNG.integers(0, 3, 10)]
WEIGHTS = [
    RNG.normal(size=(4, 1)).astype(np.float32) * 0.3,
    np.full((1,), 0.1, np.float32),
    RNG.normal(size=(4, 3)).astype(np.float32) * 0.3,
    np.full((3,), -0.1, np.float32),
]


def two_outputs():
    inp = keras.Input(shape=(4,), name="inp")
    score = keras.layers.Dense(1, name="score_output")(inp)
    cls = keras.layers.Dense(3, activation="softmax", name="class_output")(inp)
    model = keras.Model(inp, [score, cls])
    model.set_weights(WEIGHTS)
    return model


def per_example(model, x=X, ys=YS, yc=YC):
    """Per-example squared error of the score and crossentropy of the classes."""
    score, cls = model.predict(x, verbose=0)
    se = np.mean((score - ys) ** 2, axis=1)
    ce = -np.sum(yc * np.log(np.clip(cls, 1e-7, 1.0)), axis=1)
    return se, ce


def frozen(model, **kwargs):
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0), **kwargs)
    return model


def test_the_repro_logs_one_loss_per_output_of_a_dict_model():
    a = keras.Input(shape=(4,), name="a")
    model = keras.Model(
        a,
        {
            "priority": keras.layers.Dense(1, name="priority")(a),
            "department": keras.layers.Dense(3, name="department")(a),
        },
    )
    frozen(model, loss={"priority": "mse", "department": "mse"})
    x = RNG.normal(size=(8, 4)).astype(np.float32)
    y = {"priority": np.ones((8, 1)), "department": np.ones((8, 3))}
    history = model.fit(x, y, epochs=1, verbose=0)
    assert sorted(history.history) == ["department_loss", "loss", "priority_loss"]
    out = model.predict(x, verbose=0)
    p = np.mean((out["priority"] - 1.0) ** 2)
    d = np.mean((out["department"] - 1.0) ** 2)
    result = model.evaluate(x, y, verbose=0)
    assert model.metrics_names == ["loss", "priority_loss", "department_loss"]
    np.testing.assert_allclose(result, [p + d, p, d], rtol=1e-5)
    np.testing.assert_allclose(history.history["priority_loss"], [p], rtol=1e-5)
    # the order is the loss dict's, as Keras 3 (for a model with a dict of outputs)
    frozen(model, loss={"department": "mse", "priority": "mse"})
    assert model.metrics_names == ["loss", "department_loss", "priority_loss"]
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), [p + d, d, p], rtol=1e-5)


@pytest.mark.parametrize(
    "loss",
    [
        ["mse", "categorical_crossentropy"],
        {"class_output": "categorical_crossentropy", "score_output": "mse"},
    ],
)
def test_list_outputs_log_each_loss_mean_over_examples_in_fit_and_validation(loss):
    model = frozen(two_outputs(), loss=loss)
    se, ce = per_example(model)
    history = model.fit(
        X, [YS, YC], batch_size=4, epochs=2, verbose=0, validation_data=(X[:6], [YS[:6], YC[:6]])
    )
    h = history.history
    assert sorted(h) == [
        "class_output_loss",
        "loss",
        "score_output_loss",
        "val_class_output_loss",
        "val_loss",
        "val_score_output_loss",
    ]
    # batches of 4, 4 and 2: each weighs by its size, so the epoch value is the mean over the
    # examples, whatever the shuffle (Keras 3 run eagerly; loss 3.064394 there)
    np.testing.assert_allclose(h["loss"], [se.mean() + ce.mean()] * 2, rtol=1e-5)
    np.testing.assert_allclose(h["score_output_loss"], [se.mean()] * 2, rtol=1e-5)
    np.testing.assert_allclose(h["class_output_loss"], [ce.mean()] * 2, rtol=1e-5)
    np.testing.assert_allclose(h["val_score_output_loss"], [se[:6].mean()] * 2, rtol=1e-5)
    np.testing.assert_allclose(h["val_class_output_loss"], [ce[:6].mean()] * 2, rtol=1e-5)
    np.testing.assert_allclose(h["val_loss"], [se[:6].mean() + ce[:6].mean()] * 2, rtol=1e-5)
    result = model.evaluate(X, [YS, YC], batch_size=4, verbose=0)
    assert model.metrics_names == ["loss", "score_output_loss", "class_output_loss"]
    assert len(result) == 3
    np.testing.assert_allclose(result, [se.mean() + ce.mean(), se.mean(), ce.mean()], rtol=1e-5)
    logs = model.evaluate(X, [YS, YC], verbose=0, return_dict=True)
    assert list(logs) == sorted(model.metrics_names)  # Keras 3 sorts the logs' keys
    np.testing.assert_allclose([logs[k] for k in model.metrics_names], result, rtol=1e-5)


@pytest.mark.parametrize(
    "weights", [[0.5, 2.0], {"score_output": 0.5, "class_output": 2.0}], ids=["list", "dict"]
)
def test_loss_weights_scale_the_total_but_not_the_logged_output_losses(weights):
    model = frozen(two_outputs(), loss=["mse", "categorical_crossentropy"], loss_weights=weights)
    se, ce = per_example(model)
    result = model.evaluate(X, [YS, YC], batch_size=5, verbose=0)
    # Keras 3 records each output's loss before its weight: 3.212636, 1.944102, 1.120293
    np.testing.assert_allclose(
        result, [0.5 * se.mean() + 2.0 * ce.mean(), se.mean(), ce.mean()], rtol=1e-5
    )
    np.testing.assert_allclose(result, [3.212636, 1.944102, 1.120293], rtol=1e-5)


def test_one_loss_for_every_output_is_logged_per_output():
    model = frozen(two_outputs(), loss="mse", loss_weights=2.0)
    score, cls = model.predict(X, verbose=0)
    s, c = np.mean((score - YS) ** 2), np.mean((cls - YC) ** 2)
    result = model.evaluate(X, [YS, YC], verbose=0)
    np.testing.assert_allclose(result, [2 * (s + c), s, c], rtol=1e-5)
    assert model.metrics_names == ["loss", "score_output_loss", "class_output_loss"]


def test_a_single_loss_among_outputs_logs_only_the_total():
    model = frozen(two_outputs(), loss=[None, "categorical_crossentropy"])
    _, ce = per_example(model)
    history = model.fit(X, [YS, YC], epochs=1, verbose=0, validation_data=(X, [YS, YC]))
    assert sorted(history.history) == ["loss", "val_loss"]  # as Keras 3
    assert model.metrics_names == ["loss"]
    np.testing.assert_allclose(model.evaluate(X, [YS, YC], verbose=0), ce.mean(), rtol=1e-5)


@pytest.mark.parametrize("loss", ["mse", ["mse"], {"out": "mse"}])
def test_a_single_output_model_logs_only_loss(loss):
    inp = keras.Input(shape=(4,))
    model = keras.Model(inp, keras.layers.Dense(1, name="out")(inp))
    frozen(model, loss=loss, metrics=["mae"])
    history = model.fit(X, YS, epochs=1, verbose=0, validation_data=(X, YS))
    assert sorted(history.history) == ["loss", "mae", "val_loss", "val_mae"]
    assert model.metrics_names == ["loss", "mae"]
    pred = model.predict(X, verbose=0)
    expected = [np.mean((pred - YS) ** 2), np.mean(np.abs(pred - YS))]
    np.testing.assert_allclose(model.evaluate(X, YS, verbose=0), expected, rtol=1e-5)


def test_metrics_come_after_the_output_losses():
    model = frozen(
        two_outputs(),
        loss={"score_output": "mse", "class_output": "categorical_crossentropy"},
        metrics={"class_output": ["categorical_accuracy"]},
    )
    se, ce = per_example(model)
    _, cls = model.predict(X, verbose=0)
    acc = np.mean(cls.argmax(-1) == YC.argmax(-1))
    history = model.fit(X, [YS, YC], epochs=1, verbose=0, validation_data=(X, [YS, YC]))
    assert sorted(history.history) == sorted(
        f"{p}{k}"
        for p in ("", "val_")
        for k in (
            "loss",
            "score_output_loss",
            "class_output_loss",
            "class_output_categorical_accuracy",
        )
    )
    logs = model.evaluate(X, [YS, YC], verbose=0, return_dict=True)
    names = ["loss", "score_output_loss", "class_output_loss", "class_output_categorical_accuracy"]
    assert list(logs) == sorted(names)  # Keras 3 sorts the logs' keys
    np.testing.assert_allclose(
        [logs[k] for k in names], [se.mean() + ce.mean(), se.mean(), ce.mean(), acc], rtol=1e-5
    )
    assert model.evaluate(X, [YS, YC], verbose=0)[3] == pytest.approx(acc)
    with pytest.raises(ValueError, match="two metrics are named 'class_output_loss'"):
        model.compile(
            loss=["mse", "categorical_crossentropy"],
            metrics={"class_output": [keras.metrics.Mean(name="loss")]},
        )


def test_output_losses_see_sample_weight_and_the_batch_methods():
    model = frozen(two_outputs(), loss=["mse", "categorical_crossentropy"])
    se, ce = per_example(model)
    sw = np.linspace(0.0, 2.0, 10).astype(np.float32)
    result = model.evaluate(X, [YS, YC], sample_weight=sw, batch_size=10, verbose=0)
    s, c = np.mean(se * sw), np.mean(ce * sw)  # sum_over_batch_size: divided by 10
    np.testing.assert_allclose(result, [s + c, s, c], rtol=1e-5)
    logs = model.test_on_batch(X, [YS, YC], return_dict=True)
    np.testing.assert_allclose(
        [logs["loss"], logs["score_output_loss"], logs["class_output_loss"]],
        [se.mean() + ce.mean(), se.mean(), ce.mean()],
        rtol=1e-5,
    )
    assert len(model.train_on_batch(X, [YS, YC])) == 3


def test_compile_again_without_loss_keeps_the_loss_and_its_metrics():
    inp = keras.Input(shape=(4,))
    model = keras.Model(inp, keras.layers.Dense(1)(inp))
    assert model.loss is None  # as Keras 3, before compile
    model.compile(optimizer="adam", loss="mse", metrics=["mae"], loss_weights=3.0)
    assert model.loss == "mse"
    pred = model.predict(X, verbose=0)
    mse, mae = np.mean((pred - YS) ** 2), np.mean(np.abs(pred - YS))
    np.testing.assert_allclose(model.evaluate(X, YS, verbose=0), [3 * mse, mae], rtol=1e-5)
    model.compile(optimizer="adam")  # Keras 3: the loss (and its weight) and metrics stay
    assert model.loss == "mse"
    assert model.metrics_names == ["loss", "mae"]
    np.testing.assert_allclose(model.evaluate(X, YS, verbose=0), [3 * mse, mae], rtol=1e-5)
    assert model.get_compile_config() is not None
    model.compile(optimizer="adam", metrics=["mse"])  # new metrics replace the old ones
    np.testing.assert_allclose(model.evaluate(X, YS, verbose=0), [3 * mse, mse], rtol=1e-5)
    loss = keras.losses.MeanAbsoluteError()
    model.compile(optimizer="sgd", loss=loss)  # a new loss without metrics: none kept
    assert model.loss is loss and model.metrics_names == ["loss"]
    np.testing.assert_allclose(model.evaluate(X, YS, verbose=0), mae, rtol=1e-5)
    model.compile(optimizer="sgd", loss=["mse"])
    assert model.loss == ["mse"]


def test_compile_again_without_loss_keeps_the_output_losses():
    model = frozen(two_outputs(), loss=["mse", "categorical_crossentropy"], loss_weights=[0.5, 2])
    se, ce = per_example(model)
    expected = [0.5 * se.mean() + 2 * ce.mean(), se.mean(), ce.mean()]
    model.compile(optimizer="sgd")
    assert model.loss == ["mse", "categorical_crossentropy"]
    assert model.metrics_names == ["loss", "score_output_loss", "class_output_loss"]
    np.testing.assert_allclose(model.evaluate(X, [YS, YC], verbose=0), expected, rtol=1e-5)


def test_without_any_loss_compile_keeps_raising_at_evaluate():
    inp = keras.Input(shape=(4,))
    model = keras.Model(inp, keras.layers.Dense(1)(inp))
    model.compile(optimizer="sgd")
    model.compile(optimizer="adam")
    assert model.loss is None
    with pytest.raises(ValueError, match="No loss to compute"):
        model.evaluate(X, YS, verbose=0)


def test_loss_weights_of_the_wrong_length_raise():
    with pytest.raises(ValueError, match="has 3 entries but the model has 2 outputs"):
        two_outputs().compile(loss=["mse", "mse"], loss_weights=[1.0, 2.0, 3.0])
