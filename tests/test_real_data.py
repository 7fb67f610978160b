"""Small versions of the real-data results: models trained here reach real accuracies."""

import os

import numpy as np
import pytest

import eagerkernel as ek

L = ek.keras.layers
FASHION = "/usr/share/datasets/fashion-mnist"


def test_digits_mlp_reaches_96_percent():
    pytest.importorskip("sklearn")
    ek.random.set_seed(0)
    (xtr, ytr), (xte, yte) = ek.keras.datasets.digits.load_data()
    x = (xtr.reshape(-1, 64) / 16.0).astype(np.float32)
    xt = (xte.reshape(-1, 64) / 16.0).astype(np.float32)
    model = ek.keras.Sequential([L.Dense(64, activation="relu", input_shape=(64,)), L.Dense(10)])
    model.compile(
        optimizer=ek.keras.optimizers.Adam(1e-2),
        loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(x, ytr.astype(np.int32), batch_size=32, epochs=40, verbose=0)
    loss, acc = model.evaluate(xt, yte.astype(np.int32), verbose=0)
    assert acc >= 0.96, acc
    assert loss < 0.2


@pytest.mark.skipif(not os.path.isdir(FASHION), reason="dataset-fashion-mnist is not installed")
def test_fashion_mnist_cnn_on_a_subset_learns():
    """The eager guide's CNN shape, narrower, on 3000 images for one epoch: well above chance."""
    ek.random.set_seed(0)
    (xtr, ytr), (xte, yte) = ek.keras.datasets.fashion_mnist.load_data()
    x = (xtr[:3000, ..., None] / 255.0).astype(np.float32)
    xt = (xte[:1000, ..., None] / 255.0).astype(np.float32)
    ds = (
        ek.data.Dataset.from_tensor_slices((x, ytr[:3000].astype(np.int32)))
        .shuffle(3000, seed=0)
        .batch(64)
    )
    model = ek.keras.Sequential(
        [
            L.Conv2D(8, 5, padding="same", activation="relu", input_shape=(28, 28, 1)),
            L.MaxPooling2D(2),
            L.Conv2D(16, 5, padding="same", activation="relu"),
            L.MaxPooling2D(2),
            L.Flatten(),
            L.Dense(64, activation="relu"),
            L.Dropout(0.5),
            L.Dense(10),
        ]
    )
    model.compile(
        optimizer=ek.keras.optimizers.Adam(3e-3),
        loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(ds, epochs=2, verbose=0)
    _, acc = model.evaluate(xt, yte[:1000].astype(np.int32), batch_size=500, verbose=0)
    assert acc >= 0.70, acc
