"""`keras.utils.PyDataset` in fit/evaluate/predict (Keras 3's training guide), and
`ModelCheckpoint` writing whole models to ``.keras`` paths."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from eagerkernel import keras

RNG = np.random.default_rng(0)
X = RNG.random((40, 3)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)


class Batches(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size
        self.events, self.threads = [], set()

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, i):
        self.threads.add(threading.get_ident())
        lo = i * self.batch_size
        self.events.append(i)
        return self.x[lo : lo + self.batch_size], self.y[lo : lo + self.batch_size]

    def on_epoch_end(self):
        self.events.append("end")


def _model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return model


def test_fit_takes_batches_by_index_and_calls_the_epoch_hooks():
    ds = Batches(X, Y, 16)
    ref = _model()
    ref.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    model = _model()
    history = model.fit(ds, epochs=2, shuffle=False, verbose=0, validation_data=Batches(X, Y, 20))
    assert ds.events == [0, 1, 2, "end", 0, 1, 2, "end"]
    for a, b in zip(model.get_weights(), ref.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert "val_loss" in history.history
    assert model.predict(Batches(X, Y, 16), verbose=0).shape == (40, 1)


def test_shuffle_reorders_batches_and_workers_fetch_in_order():
    ds = Batches(X, Y, 4)
    _model().fit(ds, epochs=1, shuffle=True, verbose=0)
    assert sorted(ds.events[:-1]) == list(range(10)) and ds.events[:-1] != list(range(10))
    threaded = Batches(X, Y, 4, workers=3, max_queue_size=4)
    model = _model()
    model.fit(threaded, epochs=1, shuffle=False, verbose=0)
    assert threading.get_ident() not in threaded.threads  # fetched by the worker threads
    ref = _model()
    ref.fit(X, Y, batch_size=4, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(model.get_weights(), ref.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)  # in order despite the threads


def test_py_dataset_arguments_are_checked():
    with pytest.raises(NotImplementedError, match="use_multiprocessing=True is not supported"):
        Batches(X, Y, 4, use_multiprocessing=True)
    with pytest.raises(ValueError, match="`y` must not be given when x is a PyDataset"):
        _model().fit(Batches(X, Y, 4), Y, verbose=0)
    with pytest.warns(UserWarning, match="batch_size=8 is not used: x gives batches"):
        _model().fit(Batches(X, Y, 4), batch_size=8, verbose=0)
    assert keras.utils.Sequence is keras.utils.PyDataset


def test_model_checkpoint_writes_whole_models_to_keras_paths(tmp_path):
    model = _model()
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}.keras"))
    model.fit(X, Y, batch_size=20, epochs=2, verbose=0, callbacks=[cb])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-1.keras", "m-2.keras"]
    loaded = keras.models.load_model(tmp_path / "m-2.keras")
    np.testing.assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    with pytest.raises(ValueError, match=r"filepath must end in `\.keras`"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "w.ckpt"), save_weights_only=False)
    weights = keras.callbacks.ModelCheckpoint(str(tmp_path / "w.ckpt"))
    assert weights.save_weights_only  # not a .keras path: the weights


def test_fit_takes_a_torch_dataloader():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=16)
    ref = _model()
    ref.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    model = _model()
    model.fit(loader, epochs=2, verbose=0, validation_data=loader)
    for a, b in zip(model.get_weights(), ref.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5)
    assert model.evaluate(loader, verbose=0) == pytest.approx(
        ref.evaluate(X, Y, verbose=0), rel=1e-5
    )
    with pytest.raises(ValueError, match="`y` must not be given when x is a DataLoader"):
        model.fit(loader, Y, verbose=0)
    with pytest.raises(ValueError, match="`validation_split` is only supported for arrays"):
        model.fit(loader, validation_split=0.2, verbose=0)

    class Stream(torch.utils.data.IterableDataset):  # no length
        def __iter__(self):
            return iter(zip(torch.from_numpy(X), torch.from_numpy(Y)))

    history = _model().fit(DataLoader(Stream(), batch_size=16), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
