"""The Keras loops: callback hooks of fit/evaluate/predict, steps, class and sample weights,
initial_epoch, validation_split/freq, return_dict, the *_on_batch methods and argument errors."""

import warnings

import numpy as np
import pytest

import eagerkernel as ek

layers = ek.keras.layers
callbacks = ek.keras.callbacks

HOOKS = [
    "on_train_begin",
    "on_train_end",
    "on_epoch_begin",
    "on_epoch_end",
    "on_train_batch_begin",
    "on_train_batch_end",
    "on_test_begin",
    "on_test_end",
    "on_test_batch_begin",
    "on_test_batch_end",
    "on_predict_begin",
    "on_predict_end",
    "on_predict_batch_begin",
    "on_predict_batch_end",
]


class Recorder(callbacks.Callback):
    """Records every hook as ``(name,)`` or ``(name, index)``, and the logs each one got."""

    def __init__(self):
        super().__init__()
        self.calls = []
        self.logs = []

    def names(self, prefix=""):
        return [c for c in self.calls if c[0].startswith(prefix)]


def _recording(name):
    def hook(self, *args):
        *index, logs = args
        self.calls.append((name, *index))
        self.logs.append(logs)

    return hook


for _name in HOOKS:
    setattr(Recorder, _name, _recording(_name))


class Spy(ek.keras.Sequential):
    """A one-input linear model that records the x values of every batch of each loop."""

    def __init__(self):
        super().__init__([layers.Dense(1, input_shape=(1,), kernel_initializer="ones")])
        self.seen = {"train": [], "test": [], "predict": []}

    def _record(self, kind, data):
        x = data[0] if isinstance(data, tuple) else data
        self.seen[kind].append([int(v) for v in np.asarray(x).ravel()])

    def train_step(self, data):
        self._record("train", data)
        return super().train_step(data)

    def test_step(self, data):
        self._record("test", data)
        return super().test_step(data)

    def predict_step(self, data):
        self._record("predict", data)
        return super().predict_step(data)


def spy(lr=0.0, **compile_kwargs):
    model = Spy()
    model.compile(optimizer=ek.keras.optimizers.SGD(lr), loss="mse", **compile_kwargs)
    return model


X10 = np.arange(10, dtype=np.float32).reshape(10, 1)
Y10 = 2.0 * X10


def batches_ds(n=10, batch=2):
    x = np.arange(n, dtype=np.float32).reshape(n, 1)
    return ek.data.Dataset.from_tensor_slices((x, 2.0 * x)).batch(batch)


# -- callback hooks -------------------------------------------------------------------------


def test_fit_calls_every_hook_in_keras_order_with_validation():
    model = spy()
    rec = Recorder()
    history = model.fit(
        X10,
        Y10,
        batch_size=4,
        epochs=2,
        verbose=0,
        shuffle=False,
        validation_data=(X10[:3], Y10[:3]),
        validation_batch_size=2,
        callbacks=[rec],
    )
    epoch = []
    for e in range(2):
        epoch += [("on_epoch_begin", e)]
        for b in range(3):
            epoch += [("on_train_batch_begin", b), ("on_train_batch_end", b)]
        epoch += [("on_test_begin",)]
        for b in range(2):
            epoch += [("on_test_batch_begin", b), ("on_test_batch_end", b)]
        epoch += [("on_test_end",), ("on_epoch_end", e)]
    assert rec.calls == [("on_train_begin",), *epoch, ("on_train_end",)]
    assert rec.model is model
    assert rec.params == {"verbose": 0, "epochs": 2, "steps": 3}
    assert model.history is history
    # on_test_end gets the validation results, on_epoch_end them with a val_ prefix, and
    # on_train_end the last epoch's logs
    test_end = rec.logs[rec.calls.index(("on_test_end",))]
    epoch_end = rec.logs[rec.calls.index(("on_epoch_end", 0))]
    assert epoch_end["val_loss"] == test_end["loss"] == history.history["val_loss"][0]
    assert rec.logs[-1] == {k: v[-1] for k, v in history.history.items()}
    assert all(isinstance(v, float) for v in rec.logs[-1].values())


def test_evaluate_calls_test_hooks_and_its_end_logs_are_the_result():
    model = spy()
    rec = Recorder()
    result = model.evaluate(X10, Y10, batch_size=4, verbose=0, callbacks=[rec], return_dict=True)
    assert rec.calls == [
        ("on_test_begin",),
        ("on_test_batch_begin", 0),
        ("on_test_batch_end", 0),
        ("on_test_batch_begin", 1),
        ("on_test_batch_end", 1),
        ("on_test_batch_begin", 2),
        ("on_test_batch_end", 2),
        ("on_test_end",),
    ]
    assert rec.logs[-1] == result
    assert rec.params["steps"] == 3
    np.testing.assert_allclose(result["loss"], _epoch_loss((X10 - Y10)[:, 0] ** 2, 4), rtol=1e-6)


def test_predict_calls_predict_hooks_with_the_batch_outputs():
    model = spy()
    rec = Recorder()
    out = model.predict(X10, batch_size=4, callbacks=[rec])
    assert rec.calls == [
        ("on_predict_begin",),
        ("on_predict_batch_begin", 0),
        ("on_predict_batch_end", 0),
        ("on_predict_batch_begin", 1),
        ("on_predict_batch_end", 1),
        ("on_predict_batch_begin", 2),
        ("on_predict_batch_end", 2),
        ("on_predict_end",),
    ]
    outputs = [logs["outputs"] for c, logs in zip(rec.calls, rec.logs) if c[0] == HOOKS[-1]]
    assert [o.shape for o in outputs] == [(4, 1), (4, 1), (2, 1)]
    assert all(isinstance(o, np.ndarray) for o in outputs)
    np.testing.assert_array_equal(np.concatenate(outputs), out)
    np.testing.assert_array_equal(out, X10)  # kernel 1, bias 0


def test_legacy_on_batch_hooks_run_for_training_batches_only():
    model = spy()
    seen = []

    class Legacy(callbacks.Callback):
        def on_batch_begin(self, batch, logs=None):
            seen.append(("begin", batch))

        def on_batch_end(self, batch, logs=None):
            seen.append(("end", batch, sorted(logs)))

    model.fit(X10, Y10, batch_size=5, verbose=0, validation_split=0.5, callbacks=[Legacy()])
    assert seen == [("begin", 0), ("end", 0, ["loss"])]  # 5 training examples: one batch


def test_lambda_callback_takes_keras_arguments():
    model = spy()
    seen = []
    cb = callbacks.LambdaCallback(
        on_train_begin=lambda logs: seen.append("train_begin"),
        on_train_batch_end=lambda batch, logs: seen.append(("train_batch", batch)),
        on_batch_begin=lambda batch, logs: seen.append(("batch_begin", batch)),
        on_epoch_end=lambda epoch, logs: seen.append(("epoch", epoch, round(logs["loss"], 4))),
        on_test_batch_end=lambda batch, logs: seen.append(("test_batch", batch)),
        on_predict_end=lambda logs: seen.append("predict_end"),
    )
    model.fit(X10, Y10, batch_size=10, verbose=0, callbacks=[cb])
    model.evaluate(X10, Y10, verbose=0, callbacks=[cb])
    model.predict(X10, callbacks=[cb])
    loss = round(float(np.mean((X10 - Y10) ** 2)), 4)
    assert seen == [
        "train_begin",
        ("batch_begin", 0),
        ("train_batch", 0),
        ("epoch", 0, loss),
        ("test_batch", 0),
        "predict_end",
    ]
    with pytest.raises(TypeError, match="on_epoch_ends"):
        callbacks.LambdaCallback(on_epoch_ends=print)
    with pytest.raises(TypeError, match="on_test_end must be a function"):
        callbacks.LambdaCallback(on_test_end=3)


def test_callback_base_has_every_keras_hook_and_the_list_dispatches_them():
    base = callbacks.Callback()
    assert base.model is None
    for name in [*HOOKS, "on_batch_begin", "on_batch_end", "set_model", "set_params"]:
        assert callable(getattr(base, name)), name
    rec = Recorder()
    cbl = callbacks.CallbackList([rec], model="m", verbose=0, epochs=1, steps=2)
    assert rec.model == "m" and rec.params == {"verbose": 0, "epochs": 1, "steps": 2}
    for name in HOOKS:
        if "batch" in name or "epoch" in name:
            getattr(cbl, name)(7, {"x": np.float32(1.5)})
        else:
            getattr(cbl, name)(None)
    assert [c[0] for c in rec.calls] == HOOKS
    assert {"x": 1.5} in rec.logs and {} in rec.logs
    assert type(rec.logs[rec.calls.index(("on_epoch_begin", 7))]["x"]) is float
    with pytest.raises(TypeError, match="Callback objects"):
        callbacks.CallbackList([print])


def test_stop_training_from_a_batch_ends_the_epoch_and_training():
    model = spy()

    class StopAtBatch1(callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 1:
                self.model.stop_training = True

    rec = Recorder()
    history = model.fit(
        X10, Y10, batch_size=2, epochs=3, verbose=0, callbacks=[StopAtBatch1(), rec]
    )
    assert rec.names("on_train_batch_end") == [("on_train_batch_end", 0), ("on_train_batch_end", 1)]
    assert history.epoch == [0]
    assert rec.calls[-2:] == [("on_epoch_end", 0), ("on_train_end",)]


def test_steps_per_execution_groups_batches_between_batch_hooks():
    model = spy(steps_per_execution=2)
    rec = Recorder()
    model.fit(X10, Y10, batch_size=2, verbose=0, shuffle=False, callbacks=[rec])
    assert rec.names("on_train_batch") == [
        ("on_train_batch_begin", 0),
        ("on_train_batch_end", 1),
        ("on_train_batch_begin", 2),
        ("on_train_batch_end", 3),
        ("on_train_batch_begin", 4),
        ("on_train_batch_end", 5),  # begin + steps_per_execution - 1, as TF 2.21 reports
    ]
    assert len(model.seen["train"]) == 5  # every batch still trains
    out = model.predict(X10, batch_size=2, callbacks=[rec])
    ends = [lg["outputs"] for c, lg in zip(rec.calls, rec.logs) if c[0] == "on_predict_batch_end"]
    assert [o.shape[0] for o in ends] == [4, 4, 2]
    np.testing.assert_array_equal(out, X10)


# -- steps ----------------------------------------------------------------------------------


def test_steps_limit_batches_for_arrays():
    model = spy()
    model.evaluate(X10, Y10, batch_size=2, steps=2, verbose=0)
    assert model.seen["test"] == [[0, 1], [2, 3]]
    assert model.predict(X10, batch_size=2, steps=3).shape == (6, 1)
    assert model.seen["predict"] == [[0, 1], [2, 3], [4, 5]]
    # without batch_size, Keras splits the arrays in `steps` batches
    model.evaluate(X10, Y10, steps=2, verbose=0)
    assert model.seen["test"][2:] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]


def test_steps_per_epoch_continues_through_the_arrays_across_epochs():
    model = spy()
    rec = Recorder()
    history = model.fit(
        X10, Y10, batch_size=2, epochs=2, steps_per_epoch=2, shuffle=False, verbose=0,
        callbacks=[rec],
    )  # fmt: skip
    assert model.seen["train"] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert rec.params["steps"] == 2
    assert history.epoch == [0, 1]


def test_steps_limit_batches_for_datasets():
    model = spy()
    ds = batches_ds()  # 5 batches of 2
    model.fit(ds, epochs=2, steps_per_epoch=2, verbose=0)
    assert model.seen["train"] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    model.evaluate(ds, steps=2, verbose=0)
    assert model.seen["test"] == [[0, 1], [2, 3]]
    out = model.predict(ds, steps=2)
    np.testing.assert_array_equal(out, X10[:4])


def test_a_dataset_that_ends_at_an_epoch_boundary_starts_again():
    model = spy()
    model.fit(batches_ds(8), epochs=3, steps_per_epoch=2, verbose=0)  # 4 batches
    assert model.seen["train"] == [[0, 1], [2, 3], [4, 5], [6, 7], [0, 1], [2, 3]]


def test_infinite_dataset_needs_steps_and_uses_exactly_them():
    model = spy()
    ds = batches_ds(6).repeat()
    rec = Recorder()
    history = model.fit(ds, epochs=3, steps_per_epoch=4, verbose=0, callbacks=[rec])
    assert len(rec.names("on_train_batch_end")) == 12
    assert model.seen["train"][3:5] == [[0, 1], [2, 3]]  # continues through the repeats
    assert rec.params["steps"] == 4 and history.epoch == [0, 1, 2]
    model.evaluate(ds, steps=5, verbose=0)
    assert len(model.seen["test"]) == 5
    assert model.predict(ds, steps=4).shape == (8, 1)
    with pytest.raises(ValueError, match="steps_per_epoch"):
        model.fit(ds, epochs=1, verbose=0)
    with pytest.raises(ValueError, match="Received: steps=None"):
        model.evaluate(ds, verbose=0)
    with pytest.raises(ValueError, match="Received: steps=None"):
        model.predict(ds)
    with pytest.raises(ValueError, match="validation_steps"):
        model.fit(ds, steps_per_epoch=1, validation_data=ds, verbose=0)
    assert len(model.seen["train"]) == 12  # the errors came before any training


def test_validation_steps_start_the_validation_data_again_each_epoch():
    model = spy()
    model.fit(
        X10, Y10, epochs=2, verbose=0, validation_data=batches_ds(), validation_steps=2
    )  # fmt: skip
    assert model.seen["test"] == [[0, 1], [2, 3], [0, 1], [2, 3]]


def test_data_running_out_before_steps_warns_and_starts_again():
    model = spy()
    rec = Recorder()
    with pytest.warns(UserWarning, match="Your input ran out of data"):
        history = model.fit(
            batches_ds(), epochs=3, steps_per_epoch=3, verbose=0, callbacks=[rec]
        )  # fmt: skip
    # epoch 0: batches 0-2; epoch 1: batches 3-4, then the data ends; epoch 2: batches 0-2
    # (a Dataset of known length starts again, as TF 2.21's Keras 3: 8 steps, 3 epochs)
    assert [len(b) for b in model.seen["train"]] == [2] * 8
    assert history.epoch == [0, 1, 2]
    assert rec.calls[-2:] == [("on_epoch_end", 2), ("on_train_end",)]
    with pytest.warns(UserWarning, match="interrupting evaluation"):
        model.evaluate(batches_ds(), steps=8, verbose=0)
    assert len(model.seen["test"]) == 5
    with pytest.warns(UserWarning, match="interrupting prediction"):
        assert model.predict(X10, batch_size=4, steps=4).shape == (10, 1)


def test_a_generator_is_read_once():
    model = spy()

    def gen():
        for i in range(0, 6, 2):
            yield X10[i : i + 2], Y10[i : i + 2]

    with pytest.warns(UserWarning, match="read once"):
        history = model.fit(gen(), epochs=3, verbose=0)
    assert history.epoch == [0] and len(model.seen["train"]) == 3
    model.fit(gen(), epochs=3, steps_per_epoch=1, verbose=0)
    assert model.seen["train"][3:] == [[0, 1], [2, 3], [4, 5]]
    # Empty data: Keras 3.15 warns and gives no results (fit: no epoch; evaluate: [] or {}).
    with pytest.warns(UserWarning, match="ran out of data; interrupting evaluation"):
        assert model.evaluate(iter([]), verbose=0) == []
    with pytest.warns(UserWarning, match="ran out of data; interrupting training"):
        assert model.fit(iter([]), epochs=2, verbose=0).history == {}
    empty = ek.data.Dataset.range(0).map(lambda i: (ek.zeros([1, 1]), ek.zeros([1, 1])))
    with pytest.warns(UserWarning, match="generate at least `validation_steps` batches"):
        history = model.fit(X10[:2], Y10[:2], validation_data=empty, epochs=1, verbose=0)
    assert not any(k.startswith("val_") for k in history.history)
    with pytest.warns(UserWarning, match="ran out"):
        assert model.evaluate(empty, verbose=0, return_dict=True) == {}
    with pytest.raises(ValueError, match="The data for prediction is empty"):
        model.predict(empty, verbose=0)


# -- class and sample weights ---------------------------------------------------------------


def _logit_model():
    ek.random.set_seed(3)
    model = ek.keras.Sequential([layers.Dense(3, input_shape=(4,))])
    model.compile(
        optimizer=ek.keras.optimizers.SGD(0.0),  # lr 0: every batch sees the same weights
        loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        weighted_metrics=["accuracy"],
    )
    return model


def _per_example_loss(model, x, y):
    z = model.predict(x).astype(np.float64)
    m = z.max(axis=1, keepdims=True)
    logsumexp = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))
    return logsumexp - z[np.arange(len(y)), y], z.argmax(axis=1) == y


def _data(n=10):
    rng = np.random.default_rng(1)
    return rng.normal(size=(n, 4)).astype(np.float32), np.array([0, 1, 2, 0, 0, 1, 2, 2, 0, 1])


def _epoch_loss(weighted_losses, batch_size):
    """The logged loss: each batch's sum(w * l) / batch size (Keras's "sum_over_batch_size"
    reduction), averaged over the batches weighted by their sizes, as Keras's loss tracker
    (tf_keras 2.21 and Keras 3 log 3.1441 for losses whose batch means average to 3.2392):
    the mean of w * l over all examples."""
    n = len(weighted_losses)
    per_batch = [
        (
            weighted_losses[i : i + batch_size].sum() / len(weighted_losses[i : i + batch_size]),
            len(weighted_losses[i : i + batch_size]),
        )
        for i in range(0, n, batch_size)
    ]
    return sum(m * k for m, k in per_batch) / n


def test_class_weight_scales_each_examples_loss_by_its_class_weight():
    x, y = _data()
    model = _logit_model()
    loss, correct = _per_example_loss(model, x, y)
    class_weight = {0: 0.5, 1: 2.0, 2: 4.0}
    w = np.array([class_weight[c] for c in y])
    history = model.fit(x, y, batch_size=4, class_weight=class_weight, shuffle=False, verbose=0)
    logs = {k: v[0] for k, v in history.history.items()}
    np.testing.assert_allclose(logs["loss"], _epoch_loss(w * loss, 4), rtol=1e-5)
    assert not np.isclose(logs["loss"], _epoch_loss(loss, 4), rtol=1e-3)  # it did change
    np.testing.assert_allclose(logs["accuracy"], np.mean(correct), rtol=1e-6)  # unweighted
    np.testing.assert_allclose(logs["weighted_accuracy"], np.sum(w * correct) / w.sum(), rtol=1e-6)
    # one-hot targets give the same classes; classes missing from the dict weigh 1
    onehot = np.eye(3, dtype=np.float32)[y]
    model.compile(
        optimizer=ek.keras.optimizers.SGD(0.0),
        loss=ek.keras.losses.CategoricalCrossentropy(from_logits=True),
    )
    partial = model.fit(x, onehot, batch_size=5, class_weight={1: 3.0}, shuffle=False, verbose=0)
    w = np.where(y == 1, 3.0, 1.0)
    np.testing.assert_allclose(partial.history["loss"][0], _epoch_loss(w * loss, 5), rtol=1e-5)


def test_class_weight_on_a_dataset_and_not_on_validation():
    x, y = _data()
    model = _logit_model()
    loss, _ = _per_example_loss(model, x, y)
    class_weight = {0: 1.0, 1: 0.0, 2: 3.0}
    w = np.array([class_weight[c] for c in y])
    ds = ek.data.Dataset.from_tensor_slices((x, y)).batch(3)
    history = model.fit(ds, class_weight=class_weight, validation_data=(x, y), verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], _epoch_loss(w * loss, 3), rtol=1e-5)
    np.testing.assert_allclose(history.history["val_loss"][0], np.mean(loss), rtol=1e-5)


def test_sample_weight_in_fit_evaluate_and_dataset_elements():
    x, y = _data()
    model = _logit_model()
    loss, correct = _per_example_loss(model, x, y)
    sw = np.linspace(0.0, 2.0, 10).astype(np.float32)
    history = model.fit(x, y, sample_weight=sw, batch_size=4, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"][0], _epoch_loss(sw * loss, 4), rtol=1e-5)
    result = model.evaluate(x, y, sample_weight=sw, batch_size=5, verbose=0, return_dict=True)
    np.testing.assert_allclose(result["loss"], _epoch_loss(sw * loss, 5), rtol=1e-5)
    np.testing.assert_allclose(result["accuracy"], np.mean(correct), rtol=1e-6)
    np.testing.assert_allclose(result["weighted_accuracy"], np.sum(sw * correct) / sw.sum())
    ds = ek.data.Dataset.from_tensor_slices((x, y, sw)).batch(4)
    np.testing.assert_allclose(model.evaluate(ds, verbose=0)[0], _epoch_loss(sw * loss, 4))
    val = model.fit(x, y, validation_data=(x, y, sw), verbose=0).history["val_loss"][0]
    np.testing.assert_allclose(val, np.sum(sw * loss) / 10, rtol=1e-5)  # one batch of 10


def test_loss_weights_scale_the_loss():
    model = spy(loss_weights=[2.5])
    expected = 2.5 * np.mean((X10 - Y10) ** 2)
    np.testing.assert_allclose(model.evaluate(X10, Y10, verbose=0), expected, rtol=1e-6)


def test_weighted_training_moves_the_weights_by_the_weighted_gradient():
    """One full batch with SGD(1): the kernel moves by the gradient of sum(w * l) / n."""
    x = np.array([[1.0], [2.0], [3.0]], np.float32)
    y = np.zeros((3, 1), np.float32)
    sw = np.array([1.0, 0.0, 2.0], np.float32)
    model = spy(lr=1.0)
    model.fit(x, y, sample_weight=sw, batch_size=3, verbose=0)
    # loss = sum(w * (k x + b)^2) / 3 at k=1, b=0: d/dk = sum(w * 2 x^2) / 3, d/db = sum(w 2 x)/3
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel, [[1.0 - (2 * 1 + 2 * 2 * 9) / 3]], rtol=1e-6)
    np.testing.assert_allclose(bias, [-(2 * 1 + 2 * 2 * 3) / 3], rtol=1e-6)


# -- epochs, validation, return values ------------------------------------------------------


def test_initial_epoch_numbers_history_and_hooks(capsys):
    model = spy()
    rec = Recorder()
    history = model.fit(X10, Y10, epochs=4, initial_epoch=2, verbose=2, callbacks=[rec])
    assert history.epoch == [2, 3]
    assert len(history.history["loss"]) == 2
    assert rec.names("on_epoch_begin") == [("on_epoch_begin", 2), ("on_epoch_begin", 3)]
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" - ")[0] for line in out] == ["Epoch 3/4", "Epoch 4/4"]
    assert model.fit(X10, Y10, epochs=2, initial_epoch=2, verbose=0).epoch == []


def test_validation_split_holds_out_the_last_examples_unshuffled():
    model = spy()
    history = model.fit(X10, Y10, batch_size=2, epochs=2, validation_split=0.25, verbose=0)
    # Keras: the first floor(10 * 0.75) = 7 examples train, the last 3 validate
    trained = sorted(v for batch in model.seen["train"] for v in batch)
    assert trained == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert model.seen["test"] == [[7, 8], [9], [7, 8], [9]]
    np.testing.assert_allclose(
        history.history["val_loss"][-1],
        model.evaluate(X10[7:], Y10[7:], batch_size=2, verbose=0),
        rtol=1e-6,
    )
    # validation_data wins over validation_split, as in Keras
    model.fit(
        X10, Y10, epochs=1, validation_split=0.5, validation_data=(X10[:1], Y10[:1]), verbose=0
    )
    assert model.seen["test"][-1] == [0]


def test_validation_freq_int_and_list():
    model = spy()
    rec = Recorder()
    history = model.fit(
        X10, Y10, epochs=4, verbose=0, validation_data=(X10, Y10), validation_freq=2,
        callbacks=[rec],
    )  # fmt: skip
    assert len(history.history["val_loss"]) == 2 and len(history.history["loss"]) == 4
    order = [c for c in rec.calls if c[0] in ("on_epoch_end", "on_test_begin")]
    assert order == [
        ("on_epoch_end", 0),
        ("on_test_begin",),
        ("on_epoch_end", 1),
        ("on_epoch_end", 2),
        ("on_test_begin",),
        ("on_epoch_end", 3),
    ]
    rec2 = Recorder()
    model.fit(
        X10, Y10, epochs=3, verbose=0, validation_data=(X10, Y10), validation_freq=[1, 3],
        callbacks=[rec2],
    )  # fmt: skip
    order = [c for c in rec2.calls if c[0] in ("on_epoch_end", "on_test_begin")]
    assert order == [
        ("on_test_begin",),
        ("on_epoch_end", 0),
        ("on_epoch_end", 1),
        ("on_test_begin",),
        ("on_epoch_end", 2),
    ]


def test_return_dict_and_list_order():
    x, y = _data()
    model = _logit_model()
    as_dict = model.evaluate(x, y, verbose=0, return_dict=True)
    as_list = model.evaluate(x, y, verbose=0)
    # Keras 3 sorts the dict's keys; the list follows metrics_names
    assert model.metrics_names == ["loss", "accuracy", "weighted_accuracy"]
    assert list(as_dict) == sorted(model.metrics_names)
    assert as_list == [as_dict[k] for k in model.metrics_names]
    assert isinstance(spy().evaluate(X10, Y10, verbose=0), float)  # loss only: a float
    train = model.train_on_batch(x, y, return_dict=True)
    assert list(train) == sorted(model.metrics_names)
    test = model.test_on_batch(x, y, return_dict=True)
    np.testing.assert_allclose(test["loss"], as_dict["loss"], rtol=1e-6)  # lr 0
    assert model.test_on_batch(x, y) == [test[k] for k in model.metrics_names]


def test_on_batch_methods_follow_keras():
    x, y = _data()
    model = _logit_model()
    loss, _ = _per_example_loss(model, x, y)
    class_weight = {0: 2.0, 1: 1.0, 2: 0.5}
    w = np.array([class_weight[c] for c in y])
    logs = model.train_on_batch(x, y, class_weight=class_weight, return_dict=True)
    np.testing.assert_allclose(logs["loss"], np.sum(w * loss) / 10, rtol=1e-5)  # one batch
    # metrics are reset at every call, as in Keras
    again = model.train_on_batch(x, y, class_weight=class_weight, return_dict=True)
    np.testing.assert_allclose(again["loss"], logs["loss"], rtol=1e-6)
    np.testing.assert_allclose(model.predict_on_batch(x), model.predict(x), rtol=1e-6)
    with pytest.raises(ValueError, match="class_weight"):
        model.train_on_batch(x, y, sample_weight=w, class_weight=class_weight)
    with pytest.raises(RuntimeError, match="compile the model first"):
        Spy().test_on_batch(X10, Y10)


def test_custom_train_step_without_a_compiled_loss():
    class Custom(ek.keras.Sequential):
        def train_step(self, data):
            x, y = data[0], data[1]
            with ek.GradientTape() as tape:
                loss = ek.reduce_mean((self(x) - y) ** 2)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"mse": loss}

    model = Custom([layers.Dense(1, input_shape=(1,), kernel_initializer="zeros")])
    model.compile(optimizer=ek.keras.optimizers.SGD(0.01))
    history = model.fit(X10, Y10, batch_size=10, epochs=3, verbose=0)
    assert history.history["mse"][0] == pytest.approx(float(np.mean(Y10**2)))
    assert history.history["mse"][2] < history.history["mse"][0]
    plain = ek.keras.Sequential([layers.Dense(1, input_shape=(1,))])
    plain.compile(optimizer="sgd")
    with pytest.raises(ValueError, match="No loss to compute"):
        plain.fit(X10, Y10, verbose=0)


def test_verbose_output(capsys):
    model = spy()
    model.predict(X10)  # quiet by default
    model.evaluate(X10, Y10, verbose=0)
    assert capsys.readouterr() == ("", "")
    loss = model.evaluate(X10, Y10, batch_size=4, verbose=2)
    assert capsys.readouterr().out == f"3/3 - loss: {loss:.4f}\n"
    model.predict(X10, batch_size=5, verbose=2)
    assert capsys.readouterr().out == "2/2\n"
    model.evaluate(X10, Y10, verbose=1)
    # The tqdm bar: on stderr in a terminal; once a Jupyter kernel shell exists in this process
    # (other tests start in-process kernels), tqdm.auto picks the ipywidgets bar, whose text
    # form goes to stdout (the kernel test checks the widget and its "loss: ..." text).
    captured = capsys.readouterr()
    assert "step" in captured.err + captured.out


# -- argument errors ------------------------------------------------------------------------

DS = batches_ds()


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"verbose": 3}, "verbose"),
        ({"verbose": "loud"}, "verbose"),
        ({"epochs": -1}, "epochs"),
        ({"epochs": 2.0}, "epochs"),
        ({"initial_epoch": -1}, "initial_epoch"),
        ({"steps_per_epoch": 0}, "steps_per_epoch"),
        ({"steps_per_epoch": 1.5}, "steps_per_epoch"),
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": 2.5}, "batch_size"),
        ({"shuffle": "batch"}, "shuffle"),
        ({"validation_split": 1.0}, "validation_split"),
        ({"validation_split": -0.1}, "validation_split"),
        ({"validation_split": 0.95}, "validation_split"),  # no example left to train
        ({"validation_steps": 2}, "validation_steps"),  # without validation data
        ({"validation_batch_size": 2}, "validation_batch_size"),
        ({"validation_freq": 2}, "validation_freq"),
        ({"validation_data": (X10, Y10), "validation_freq": 0}, "validation_freq"),
        ({"validation_data": (X10, Y10), "validation_steps": -2}, "validation_steps"),
        ({"validation_data": X10}, "validation_data"),
        ({"class_weight": [1.0, 2.0]}, "class_weight"),
        ({"class_weight": {"a": 1.0}}, "class_weight"),
        ({"class_weight": {0: 1.0}, "sample_weight": np.ones(10)}, "class_weight"),
        ({"sample_weight": np.ones(9)}, "sample_weight has 9"),
    ],
)
def test_fit_bad_values_raise_value_error_naming_the_argument(kwargs, name):
    model = spy()
    with pytest.raises(ValueError, match=name):
        model.fit(X10, Y10, **kwargs)
    assert model.seen["train"] == []


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"y": Y10}, "`y`"),
        ({"sample_weight": np.ones(10)}, "sample_weight"),
        ({"validation_split": 0.2}, "validation_split"),
        ({"class_weight": {"a": 1.0}}, "class_weight"),
    ],
)
def test_fit_on_a_dataset_rejects_array_arguments(kwargs, name):
    model = spy()
    with pytest.raises(ValueError, match=name):
        model.fit(DS, verbose=0, **kwargs)
    assert model.seen["train"] == []


def test_evaluate_predict_compile_bad_values():
    model = spy()
    with pytest.raises(ValueError, match="steps"):
        model.evaluate(X10, Y10, steps=0)
    with pytest.raises(ValueError, match="verbose"):
        model.evaluate(X10, Y10, verbose=-1)
    with pytest.raises(ValueError, match="steps"):
        model.predict(X10, steps="2")
    with pytest.raises(ValueError, match="empty"):
        model.predict(np.zeros((0, 1), np.float32))
    for kwargs, name in [
        ({"metrics": "accuracy"}, "metrics"),
        ({"weighted_metrics": "mse"}, "weighted_metrics"),
        ({"metrics": ["mse", "mse"]}, "'mse'"),
        ({"loss_weights": [1.0, 2.0]}, "loss_weights"),
        ({"steps_per_execution": 0}, "steps_per_execution"),
        ({"jit_compile": "xla"}, "jit_compile"),
    ]:
        with pytest.raises(ValueError, match=name):
            model.compile(optimizer="sgd", loss="mse", **kwargs)
    with pytest.raises(TypeError, match="run_eagerly"):
        model.compile(optimizer="sgd", loss="mse", run_eagerly="yes")
    with pytest.warns(UserWarning, match="jit_compile=True"):
        model.compile(optimizer="sgd", loss="mse", jit_compile=True)


def test_keras2_queue_arguments_are_accepted_and_checked():
    model = spy()
    # Keras 2 ignores them for arrays and Datasets; so do we (documented).
    model.fit(X10, Y10, verbose=0, max_queue_size=3, workers=4, use_multiprocessing=True)
    model.evaluate(DS, verbose=0, workers=2)
    model.predict(X10, workers=0, use_multiprocessing=True)
    # A generator is read in the calling thread: more workers is refused, not ignored.
    for method in (model.fit, model.evaluate, model.predict):
        with pytest.raises(NotImplementedError, match="workers=2"):
            method(iter([(X10, Y10)]), workers=2)
        with pytest.raises(NotImplementedError, match="use_multiprocessing=True"):
            method(iter([(X10, Y10)]), use_multiprocessing=True)
    model.fit(iter([(X10, Y10)]), verbose=0, max_queue_size=1, workers=1)
    with pytest.raises(ValueError, match="max_queue_size=-1"):
        model.fit(X10, Y10, max_queue_size=-1)
    with pytest.raises(ValueError, match="use_multiprocessing='yes'"):
        model.predict(X10, use_multiprocessing="yes")
    with pytest.raises(TypeError, match="unexpected keyword argument 'epochz'"):
        model.fit(X10, Y10, epochz=2)


def test_no_warning_in_an_ordinary_fit():
    model = spy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(DS, epochs=2, verbose=0, validation_data=DS)
        model.fit(X10, Y10, epochs=2, steps_per_epoch=2, batch_size=5, verbose=0)
        model.fit(X10, Y10, batch_size=5, validation_data=DS, verbose=0)  # DS: its own batches
    assert model.seen["test"][-5:] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]


def test_model_checkpoint_save_freq_counts_batches_across_epochs(tmp_path):
    model = spy()
    path = tmp_path / "w-{epoch}-{batch}.safetensors"
    checkpoint = callbacks.ModelCheckpoint(str(path), save_freq=2)
    model.fit(X10, Y10, batch_size=2, epochs=2, verbose=0, callbacks=[checkpoint])  # 5 a epoch
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"w-{e}-{b}.safetensors" for e, b in [(1, 2), (1, 4), (2, 1), (2, 3), (2, 5)]]
    with pytest.raises(ValueError, match="save_freq"):
        callbacks.ModelCheckpoint(str(path), save_freq="batch")
