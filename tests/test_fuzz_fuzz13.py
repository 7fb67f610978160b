"""Model training API against Keras 3.15 (TF 2.21), found by differential fuzzing.

Every expected number below was computed with TensorFlow 2.21 / Keras 3.15 on the same
script (run with ``import keras``), as the comments say.
"""

import warnings

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras
X = np.arange(10, dtype=np.float32).reshape(10, 1) / 10
Y = 2 * X


def model(lr=0.0, **compile_kwargs):
    m = keras.Sequential(
        [keras.Input((1,)), keras.layers.Dense(1, kernel_initializer="ones", name="out")]
    )
    m.compile(keras.optimizers.SGD(lr), "mse", **compile_kwargs)
    return m


@pytest.mark.parametrize(
    "start, epochs, stopped, best_epoch", [(0, [0, 1], 1, 0), (2, [0, 1, 2, 3], 3, 2)]
)
def test_early_stopping_start_from_epoch_skips_the_warm_up(start, epochs, stopped, best_epoch):
    es = keras.callbacks.EarlyStopping(monitor="loss", patience=0, start_from_epoch=start)
    history = model().fit(X, Y, epochs=6, verbose=0, callbacks=[es], shuffle=False)
    # TF 2.21: epochs [0, 1] / [0, 1, 2, 3], stopped_epoch 1 / 3, best_epoch 0 / 2
    assert history.epoch == epochs
    assert (es.stopped_epoch, es.best_epoch) == (stopped, best_epoch)
    assert es.best == pytest.approx(0.285)  # TF 2.21: 0.2849999964237213


def test_early_stopping_best_is_none_until_a_value_is_monitored():
    es = keras.callbacks.EarlyStopping(monitor="val_loss")  # no validation: never seen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model().fit(X, Y, epochs=2, verbose=0, callbacks=[es])
    assert es.best is None and es.stopped_epoch == 0  # TF 2.21: None, 0


def test_class_weight_with_a_generator_raises_value_error():
    def gen():
        yield X, Y

    with pytest.raises(ValueError, match=r"fit: argument `class_weight` .*generator"):
        model().fit(gen(), class_weight={0: 1.0}, verbose=0)


def test_steps_per_execution_runs_whole_executions():
    m = model(0.1, steps_per_execution=2)
    seen = []
    cb = keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.append(("train", batch)),
        on_test_batch_end=lambda batch, logs: seen.append(("test", batch)),
    )
    # steps=1 with steps_per_execution=2: one execution of two batches (TF 2.21: 0.035, the
    # loss of the first four examples, and test batch index 1)
    assert m.evaluate(X, Y, batch_size=2, steps=1, verbose=0, callbacks=[cb]) == pytest.approx(
        0.035
    )
    assert seen == [("test", 1)]
    assert m.predict(X, batch_size=2, steps=3, verbose=0).shape == (8, 1)  # TF 2.21: (8, 1)
    seen.clear()
    m.fit(X, Y, batch_size=2, verbose=0, shuffle=False, callbacks=[cb])
    # the last execution has one batch; its end index is still begin + 2 - 1 (TF 2.21)
    assert seen == [("train", 1), ("train", 3), ("train", 5)]


@pytest.mark.parametrize("spe", [1, 2])
def test_arrays_that_run_out_before_steps_per_epoch_start_again(spe):
    m = model(0.1, steps_per_execution=spe)
    with pytest.warns(UserWarning, match="ran out of data"):
        h = m.fit(X, Y, batch_size=4, epochs=3, steps_per_epoch=2, verbose=0, shuffle=False)
    # TF 2.21 (both spe): epochs [0, 1, 2], losses [0.156868, 0.438374, 0.041856],
    # 5 iterations, kernel 1.2025945
    assert h.epoch == [0, 1, 2]
    np.testing.assert_allclose(h.history["loss"], [0.156868, 0.438374, 0.041856], atol=1e-6)
    assert int(m.optimizer.iterations) == 5
    np.testing.assert_allclose(m.get_weights()[0].ravel(), [1.2025945], rtol=1e-6)


def test_single_output_metrics_may_be_a_dict():
    m = model(metrics={"anything": ["mae", "mse"]})  # Keras 3 flattens it, keys unused
    logs = m.evaluate(X, Y, verbose=0, return_dict=True)
    # TF 2.21: {'loss': 0.285, 'mae': 0.45, 'mse': 0.285}
    assert list(logs) == ["loss", "mae", "mse"]
    np.testing.assert_allclose(list(logs.values()), [0.285, 0.45, 0.285], rtol=1e-6)
    with pytest.raises(ValueError, match="metrics must be a list or dict"):
        model(metrics="mae")


def test_evaluate_list_order_with_several_outputs_puts_compiled_metrics_last_sorted():
    layers = keras.layers
    a = keras.Input((2,), name="a")
    h = layers.Dense(3, name="h")(a)
    outputs = {
        "reg": layers.Dense(1, name="reg")(h),
        "cls": layers.Dense(3, activation="softmax", name="cls")(h),
    }
    m = keras.Model(a, outputs)
    m.set_weights([np.full(w.shape, 0.1 * (i + 1), "float32") for i, w in enumerate(m.weights)])
    m.compile(
        "sgd",
        {"reg": "mse", "cls": "sparse_categorical_crossentropy"},
        metrics={"reg": ["mse", keras.metrics.RootMeanSquaredError()]},
        weighted_metrics={"reg": ["mae"]},
    )
    x = np.linspace(-1, 1, 8, dtype="float32").reshape(4, 2)
    y = {"reg": np.ones((4, 1), "float32"), "cls": np.array([0, 1, 2, 1])}
    # TF 2.21: [loss, reg_loss, cls_loss, reg_mae, reg_mse, reg_root_mean_squared_error]
    expected = [1.1453, 0.0467, 1.0986, 0.1786, 0.0467, 0.2162]
    np.testing.assert_allclose(m.evaluate(x, y, verbose=0), expected, atol=1e-4)
    np.testing.assert_allclose(m.test_on_batch(x, y), expected, atol=1e-4)
