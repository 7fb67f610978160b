"""`ek.keras.losses.CTC` / `ctc` (Keras 3's) against TensorFlow 2.21's values."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

LOGITS = np.random.default_rng(0).normal(size=(2, 5, 4)).astype(np.float32)
LABELS = np.array([[1, 2, 0], [3, 3, 1]], np.int64)  # 0: blank / padding


def test_values_match_tensorflow_2_21():
    per_item = ek.keras.losses.ctc(LABELS, LOGITS)
    assert per_item.dtype == ek.float32
    np.testing.assert_allclose(per_item.numpy(), [5.0291209, 5.4798975], rtol=1e-6)
    loss = ek.keras.losses.CTC()
    assert float(loss(LABELS, LOGITS)) == pytest.approx(5.2545090, rel=1e-6)
    assert loss.get_config() == {"name": "ctc", "reduction": "sum_over_batch_size"}


def test_names_serialization_and_errors():
    assert ek.keras.losses.get("ctc") is ek.keras.losses.ctc
    assert isinstance(ek.keras.losses.get("CTC"), ek.keras.losses.CTC)
    again = ek.keras.losses.deserialize(ek.keras.losses.serialize(ek.keras.losses.CTC()))
    assert isinstance(again, ek.keras.losses.CTC)
    with pytest.raises(ValueError, match=r"y_true.shape=\(2,\)"):
        ek.keras.losses.ctc([1, 2], LOGITS)
    with pytest.raises(ValueError, match=r"y_pred.shape=\(2, 5\)"):
        ek.keras.losses.ctc(LABELS, LOGITS[:, :, 0])


def test_a_model_trains_on_it():
    inputs = ek.keras.Input((5, 3))
    model = ek.keras.Model(inputs, ek.keras.layers.Dense(4)(inputs))
    model.compile(optimizer=ek.keras.optimizers.Adam(0.05), loss=ek.keras.losses.CTC())
    x = np.random.default_rng(1).normal(size=(2, 5, 3)).astype(np.float32)
    history = model.fit(x, LABELS, epochs=20, batch_size=2, verbose=0)
    assert history.history["loss"][-1] < 0.85 * history.history["loss"][0]  # it learns
