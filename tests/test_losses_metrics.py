"""Keras losses and metrics, and the TF 1.x ``ek.losses`` functions."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.compat import v1 as compat_v1
from eagerkernel.runtime.keras import losses, metrics

tf1_losses = compat_v1.losses

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # torch is an optional oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

rng = np.random.default_rng(0)
LOGITS = rng.normal(size=(6, 4)).astype(np.float32) * 3
LABELS = np.array([0, 3, 1, 2, 3, 0], dtype=np.int64)
ONEHOT = np.eye(4, dtype=np.float32)[LABELS]
Y = rng.normal(size=(6, 3)).astype(np.float32)
P = rng.normal(size=(6, 3)).astype(np.float32)


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def close(tensor, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(tensor), expected, rtol=rtol, atol=atol)


# -- regression losses --------------------------------------------------------------------------


def test_mse_and_mae_closed_forms_and_reductions():
    close(losses.mean_squared_error(Y, P), ((Y - P) ** 2).mean(-1))
    close(losses.mse(Y, P), ((Y - P) ** 2).mean(-1))
    close(losses.mean_absolute_error(Y, P), np.abs(Y - P).mean(-1))
    close(losses.MeanSquaredError()(Y, P), ((Y - P) ** 2).mean())
    close(losses.MeanAbsoluteError()(Y, P), np.abs(Y - P).mean())
    per = ((Y - P) ** 2).mean(-1)
    close(losses.MeanSquaredError(reduction="sum")(Y, P), per.sum())
    close(losses.MeanSquaredError(reduction="none")(Y, P), per)
    close(losses.MeanSquaredError(reduction=losses.Reduction.AUTO)(Y, P), per.mean())
    with pytest.raises(ValueError, match="Invalid loss reduction"):
        losses.MeanSquaredError(reduction="average")


def test_sample_weight_scales_each_sample_and_divides_by_the_batch_size():
    w = np.array([1.0, 0.0, 2.0, 1.0, 0.5, 0.0], np.float32)
    per = ((Y - P) ** 2).mean(-1)
    expected = (per * w).sum() / len(per)  # SUM_OVER_BATCH_SIZE: not by the weights' sum
    mse = losses.MeanSquaredError()
    close(mse(Y, P, sample_weight=w), expected)
    close(mse(Y, P, sample_weight=w[:, None]), expected)
    close(mse(Y, P, sample_weight=2.0), 2 * per.mean())
    with pytest.raises(ValueError, match="does not broadcast"):
        mse(Y, P, sample_weight=np.ones(5, np.float32))


def test_rank_alignment_never_broadcasts_n_by_n():
    y = np.arange(5, dtype=np.float32)
    pred = (y + 1.0)[:, None]  # [N, 1] against [N]
    out = losses.MeanSquaredError()(y, pred)
    assert float(out) == pytest.approx(1.0)
    assert tuple(losses.mean_squared_error(y, pred).shape) == (5,)
    with pytest.raises(ValueError, match=r"y_true \(5, 2\), y_pred \(5, 3\)"):
        losses.mean_squared_error(np.zeros((5, 2)), np.zeros((5, 3), np.float32))


def test_integer_inputs_are_cast_to_float32():
    out = losses.MeanSquaredError()([1, 2], [1, 4])
    assert out.dtype == ek.float32 and float(out) == 2.0


def test_huber_closed_form():
    err = P - Y
    a = np.abs(err)
    per = np.where(a <= 1.0, 0.5 * err**2, a - 0.5).mean(-1)
    close(losses.huber(Y, P), per)
    close(losses.Huber(delta=1.0)(Y, P), per.mean())
    d = 0.3
    per = np.where(a <= d, 0.5 * err**2, d * a - 0.5 * d * d).mean(-1)
    close(losses.Huber(delta=d)(Y, P), per.mean())


# -- cross-entropies ------------------------------------------------------------------------------


def test_binary_crossentropy_probabilities_are_clipped_like_keras():
    y = np.array([[1.0, 0.0, 1.0, 0.0]], np.float32)
    p = np.array([[0.9, 0.2, 1.0, 0.0]], np.float32)
    # The clip happens in float32, as in Keras: 1 - 1e-7 rounds to 1 - 1.19e-7.
    q = np.clip(p, np.float32(1e-7), np.float32(1 - 1e-7)).astype(np.float64)
    expected = -(y * np.log(q) + (1 - y) * np.log(1 - q)).mean(-1)
    close(losses.binary_crossentropy(y, p), expected, rtol=1e-4)
    bad = np.array([[0.0, 1.0]], np.float32)  # confidently wrong, yet finite
    expected = (-np.log(1e-7) - np.log1p(-np.float64(np.float32(1 - 1e-7)))) / 2
    close(losses.binary_crossentropy([[1.0, 0.0]], bad), [expected], rtol=1e-4)


def test_binary_crossentropy_from_logits_is_stable_and_equivalent():
    z = np.array([[-3.0, 0.5, 2.0], [1.0, -0.25, 4.0]], np.float32)
    y = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], np.float32)
    with_logits = losses.BinaryCrossentropy(from_logits=True)(y, z)
    with_probs = losses.BinaryCrossentropy()(y, sigmoid(z).astype(np.float32))
    close(with_logits, float(with_probs), rtol=1e-5)
    huge = losses.BinaryCrossentropy(from_logits=True)([[1.0, 0.0]], [[1000.0, -1000.0]])
    assert float(huge) == 0.0
    smooth = losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.2)(y, z)
    ys = y * 0.8 + 0.1
    expected = (np.maximum(z, 0) - z * ys + np.log1p(np.exp(-np.abs(z)))).mean()
    close(smooth, expected)


@needs_torch
def test_binary_crossentropy_matches_torch():
    z = rng.normal(size=(8, 3)).astype(np.float32)
    y = (rng.random((8, 3)) > 0.5).astype(np.float32)
    ref = F.binary_cross_entropy_with_logits(torch.tensor(z), torch.tensor(y)).item()
    close(losses.BinaryCrossentropy(from_logits=True)(y, z), ref, rtol=1e-5)
    p = sigmoid(z).astype(np.float32)
    ref = F.binary_cross_entropy(torch.tensor(p), torch.tensor(y)).item()
    close(losses.BinaryCrossentropy()(y, p), ref, rtol=1e-4)


def test_categorical_crossentropy_closed_form_and_logits():
    p = softmax(LOGITS.astype(np.float64))
    expected = -(ONEHOT * np.log(p)).sum(-1)
    close(losses.categorical_crossentropy(ONEHOT, LOGITS, from_logits=True), expected)
    close(losses.categorical_crossentropy(ONEHOT, p.astype(np.float32)), expected, rtol=1e-4)
    # Probabilities are renormalized first, as Keras does.
    close(losses.categorical_crossentropy(ONEHOT, 3 * p.astype(np.float32)), expected, rtol=1e-4)
    close(losses.CategoricalCrossentropy(from_logits=True)(ONEHOT, LOGITS), expected.mean())
    with pytest.raises(ValueError, match=r"same shape .* y_true \(6, 4\) and y_pred \(6, 3\)"):
        losses.categorical_crossentropy(ONEHOT, LOGITS[:, :3])


@needs_torch
def test_categorical_label_smoothing_matches_torch():
    ref = F.cross_entropy(torch.tensor(LOGITS), torch.tensor(LABELS), label_smoothing=0.1).item()
    cce = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)
    close(cce(ONEHOT, LOGITS), ref, rtol=1e-5)


@needs_torch
def test_sparse_categorical_crossentropy_matches_torch():
    ref = F.cross_entropy(torch.tensor(LOGITS), torch.tensor(LABELS)).item()
    scce = losses.SparseCategoricalCrossentropy(from_logits=True)
    close(scce(LABELS, LOGITS), ref, rtol=1e-5)
    probs = softmax(LOGITS).astype(np.float32)
    close(losses.SparseCategoricalCrossentropy()(LABELS, probs), ref, rtol=1e-4)


def test_sparse_categorical_crossentropy_label_shapes_and_errors():
    expected = -np.log(softmax(LOGITS.astype(np.float64))[np.arange(6), LABELS])
    f = losses.sparse_categorical_crossentropy
    close(f(LABELS, LOGITS, from_logits=True), expected)
    close(f(LABELS[:, None], LOGITS, from_logits=True), expected)
    close(f(LABELS.astype(np.float32), LOGITS, from_logits=True), expected)
    close(f(LABELS, softmax(LOGITS).astype(np.float32)), expected, rtol=1e-4)
    for from_logits in (False, True):
        with pytest.raises(ValueError, match="label value of 4"):
            f([0, 4], np.full((2, 4), 0.25, np.float32), from_logits=from_logits)
    with pytest.raises(ValueError, match="up to the last axis"):
        f(LABELS[:5], LOGITS)


def test_cross_entropy_gradients_flow_to_the_logits():
    z = ek.Variable(LOGITS)
    with ek.GradientTape() as tape:
        loss = losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, z)
    g = tape.gradient(loss, z)
    close(g, (softmax(LOGITS) - ONEHOT) / len(LABELS), rtol=1e-4)
    with ek.GradientTape() as tape:
        p = ek.nn.softmax(z)
        loss = losses.SparseCategoricalCrossentropy()(LABELS, p)
    close(tape.gradient(loss, z), (softmax(LOGITS) - ONEHOT) / len(LABELS), rtol=1e-3, atol=1e-5)


# -- get ------------------------------------------------------------------------------------------


def test_get_returns_keras_objects_and_to_loss_wraps_functions():
    for name, fn in [
        ("mse", losses.mean_squared_error),
        ("mean_squared_error", losses.mean_squared_error),
        ("mae", losses.mean_absolute_error),
        ("binary_crossentropy", losses.binary_crossentropy),
        ("categorical_crossentropy", losses.categorical_crossentropy),
        ("sparse_categorical_crossentropy", losses.sparse_categorical_crossentropy),
    ]:
        assert losses.get(name) is fn  # Keras's get: a function name gives the function
        loss = losses.to_loss(name)  # what compile uses: a Loss that reduces
        assert isinstance(loss, losses.Loss) and loss.fn is fn
    close(losses.get("mse")(Y, P), ((Y - P) ** 2).mean(-1))  # per sample, as Keras's
    close(losses.to_loss("mse")(Y, P), ((Y - P) ** 2).mean())
    assert losses.get(None) is None
    obj = losses.SparseCategoricalCrossentropy(from_logits=True)
    assert losses.get(obj) is obj
    assert isinstance(
        losses.get("SparseCategoricalCrossentropy"), losses.SparseCategoricalCrossentropy
    )
    assert isinstance(losses.get(losses.Huber), losses.Huber)
    per_sample = lambda yt, yp: ek.reduce_sum(yp - yt, axis=-1)
    assert losses.get(per_sample) is per_sample
    custom = losses.to_loss(per_sample)
    close(custom(Y, P), (P - Y).sum(-1).mean())
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        losses.get("cross_entropy")


# -- TF 1.x losses --------------------------------------------------------------------------------


def test_tf1_losses_are_weighted_means():
    expected = -np.log(softmax(LOGITS.astype(np.float64))[np.arange(6), LABELS])
    close(tf1_losses.sparse_softmax_cross_entropy(labels=LABELS, logits=LOGITS), expected.mean())
    close(tf1_losses.sparse_softmax_cross_entropy(LABELS[:, None], LOGITS), expected.mean())
    close(tf1_losses.softmax_cross_entropy(onehot_labels=ONEHOT, logits=LOGITS), expected.mean())
    close(tf1_losses.mean_squared_error(labels=Y, predictions=P), ((Y - P) ** 2).mean())
    close(tf1_losses.absolute_difference(Y, P), np.abs(Y - P).mean())
    # SUM_BY_NONZERO_WEIGHTS (the default) divides by the number of nonzero weights.
    w = np.array([1.0, 0.0, 2.0, 0.0, 1.0, 1.0], np.float32)
    out = tf1_losses.sparse_softmax_cross_entropy(LABELS, LOGITS, weights=w)
    close(out, (expected * w).sum() / 4)
    R = tf1_losses.Reduction
    close(tf1_losses.compute_weighted_loss(expected, w, reduction=R.MEAN), (expected * w).sum() / 5)
    close(tf1_losses.compute_weighted_loss(expected, w, reduction=R.SUM), (expected * w).sum())
    close(tf1_losses.compute_weighted_loss(expected, w, reduction=R.NONE), expected * w)
    close(
        tf1_losses.compute_weighted_loss(expected, w, reduction=R.SUM_OVER_BATCH_SIZE),
        (expected * w).sum() / 6,
    )
    assert float(tf1_losses.compute_weighted_loss(expected, 0.0)) == 0.0
    with pytest.raises(ValueError, match=r"\(6, 3\) and predictions of shape \(6, 2\)"):
        tf1_losses.mean_squared_error(Y, P[:, :2])


def test_tf1_losses_namespace_also_holds_keras_names():
    assert tf1_losses.SparseCategoricalCrossentropy is losses.SparseCategoricalCrossentropy
    assert tf1_losses.mean_squared_error is compat_v1.mean_squared_error  # TF 1.x wins
    assert tf1_losses.categorical_crossentropy is losses.categorical_crossentropy
    smooth = tf1_losses.softmax_cross_entropy(ONEHOT, LOGITS, label_smoothing=0.1)
    keras = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)(ONEHOT, LOGITS)
    close(smooth, float(keras))


# -- metrics --------------------------------------------------------------------------------------


def test_mean_streams_and_resets():
    m = metrics.Mean()
    m.update_state([1.0, 2.0, 3.0])
    m.update_state(np.array([10.0], np.float32))
    assert float(m.result()) == 4.0
    assert m.result().dtype == ek.float32
    assert float(m(5.0)) == pytest.approx(4.2)  # __call__: update, then result
    m.reset_state()
    assert float(m.result()) == 0.0  # no values: 0, not NaN
    m.update_state([1.0, 3.0], sample_weight=[3.0, 1.0])
    assert float(m.result()) == 1.5
    m.reset_states()
    assert [float(v) for v in m.variables] == [0.0, 0.0]
    assert [v.name for v in m.variables] == ["mean/total:0", "mean/count:0"]
    assert all(not v.trainable for v in m.variables) and m.trainable_weights == []


def test_sum():
    s = metrics.Sum()
    s.update_state([1.0, 2.0])
    s.update_state([[3.0]], sample_weight=2.0)
    assert float(s.result()) == 9.0


def test_accuracy_metrics():
    acc = metrics.Accuracy()
    acc.update_state([1, 2, 3, 4], [1, 2, 0, 0])
    acc.update_state([5], [5])
    assert float(acc.result()) == pytest.approx(0.6)  # 3 of 5 samples, not a batch average
    sca = metrics.SparseCategoricalAccuracy()
    probs = softmax(LOGITS)
    hits = (probs.argmax(-1) == LABELS).astype(np.float32)
    sca.update_state(LABELS[:3], probs[:3])
    sca.update_state(LABELS[3:, None], probs[3:])  # [N, 1] labels
    assert float(sca.result()) == pytest.approx(hits.mean())
    sca.reset_state()
    sca.update_state(LABELS.astype(np.float32), LOGITS)  # float labels, logits
    assert float(sca.result()) == pytest.approx(hits.mean())
    cat = metrics.CategoricalAccuracy()
    assert float(cat(ONEHOT, LOGITS)) == pytest.approx(hits.mean())
    bin_acc = metrics.BinaryAccuracy()
    assert float(bin_acc([[1.0], [0.0], [1.0]], [[0.7], [0.6], [0.2]])) == pytest.approx(1 / 3)
    assert float(metrics.BinaryAccuracy(threshold=0.65)([1, 0, 1], [0.7, 0.6, 0.2])) == (
        pytest.approx(2 / 3)
    )


def test_top_k_accuracy():
    probs = softmax(LOGITS)
    top2 = np.argsort(-probs, -1)[:, :2]
    hits = np.array([LABELS[i] in top2[i] for i in range(6)], np.float32)
    m = metrics.SparseTopKCategoricalAccuracy(k=2)
    assert float(m(LABELS, probs)) == pytest.approx(hits.mean())
    m = metrics.TopKCategoricalAccuracy(k=2)
    assert float(m(ONEHOT, probs)) == pytest.approx(hits.mean())


def test_weighted_accuracy():
    acc = metrics.SparseCategoricalAccuracy()
    acc.update_state([0, 1], [[0.9, 0.1], [0.8, 0.2]], sample_weight=[3.0, 1.0])
    assert float(acc.result()) == pytest.approx(0.75)


def test_regression_metrics():
    mse = metrics.MeanSquaredError()
    mse.update_state(Y[:2], P[:2])
    mse.update_state(Y[2:], P[2:])
    assert float(mse.result()) == pytest.approx(((Y - P) ** 2).mean(), rel=1e-5)
    rmse = metrics.RootMeanSquaredError()
    assert float(rmse(Y, P)) == pytest.approx(np.sqrt(((Y - P) ** 2).mean()), rel=1e-5)
    mae = metrics.MeanAbsoluteError()
    assert float(mae(Y, P)) == pytest.approx(np.abs(Y - P).mean(), rel=1e-5)
    xent = metrics.SparseCategoricalCrossentropy(from_logits=True)
    expected = -np.log(softmax(LOGITS.astype(np.float64))[np.arange(6), LABELS]).mean()
    assert float(xent(LABELS, LOGITS)) == pytest.approx(expected, rel=1e-5)


def test_metrics_are_not_recorded_on_tapes():
    z = ek.Variable(LOGITS)
    m = metrics.SparseCategoricalAccuracy()
    mean = metrics.Mean()
    with ek.GradientTape() as tape:
        loss = losses.SparseCategoricalCrossentropy(from_logits=True)(LABELS, z)
        n = len(tape.entries)
        m.update_state(LABELS, z)
        mean.update_state(loss)
        assert len(tape.entries) == n
    assert tape.gradient(loss, z) is not None


def test_metrics_get_and_names():
    assert isinstance(metrics.get("accuracy"), metrics.Accuracy)
    acc = metrics.get("acc")
    assert isinstance(acc, metrics.Accuracy) and acc.name == "acc"
    assert isinstance(metrics.get("sparse_categorical_accuracy"), metrics.SparseCategoricalAccuracy)
    mse = metrics.get("mse")
    assert isinstance(mse, metrics.MeanSquaredError) and mse.name == "mse"
    assert isinstance(metrics.get("MeanAbsoluteError"), metrics.MeanAbsoluteError)
    assert isinstance(metrics.get(metrics.Mean), metrics.Mean)
    m = metrics.Sum()
    assert metrics.get(m) is m

    def my_metric(y_true, y_pred):
        return ek.reduce_mean(ek.abs(y_true - y_pred), axis=-1)

    wrapped = metrics.get(my_metric)
    assert wrapped.name == "my_metric"
    assert float(wrapped(Y, P)) == pytest.approx(np.abs(Y - P).mean(), rel=1e-5)
    with pytest.raises(ValueError, match="Could not interpret metric identifier"):
        metrics.get("f1")


def test_resolve_accuracy_like_keras():
    r = metrics.resolve_accuracy
    assert type(r("sparse_categorical_crossentropy")) is metrics.SparseCategoricalAccuracy
    assert type(r("categorical_crossentropy")) is metrics.CategoricalAccuracy
    assert type(r("binary_crossentropy")) is metrics.BinaryAccuracy
    assert type(r("mse")) is metrics.Accuracy
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    assert type(r(loss)) is metrics.SparseCategoricalAccuracy
    assert type(r(losses.get("categorical_crossentropy"))) is metrics.CategoricalAccuracy
    assert type(r(losses.binary_crossentropy)) is metrics.BinaryAccuracy
    assert type(r(None, LABELS, LOGITS)) is metrics.SparseCategoricalAccuracy
    assert type(r(None, LABELS[:, None], LOGITS)) is metrics.SparseCategoricalAccuracy
    assert type(r(None, ONEHOT, LOGITS)) is metrics.CategoricalAccuracy
    assert type(r(None, (8, 1), (8, 1))) is metrics.BinaryAccuracy
    assert r("sparse_categorical_crossentropy", name="acc").name == "acc"


def test_ek_metrics_namespace_is_keras_metrics():
    assert compat_v1.metrics is metrics
    m = compat_v1.metrics.Mean()
    m(2.0)
    assert float(m.result()) == 2.0


def test_sparse_categorical_crossentropy_ignore_class_matches_tensorflow():
    """Keras's ``ignore_class``: those entries lose 0 and a mean averages over the others;
    the numbers are TensorFlow 2.21's for the same call."""
    y = np.array([0, 1, 2, 1])
    logits = np.array([[1.0, 2, 3], [0.5, 0.1, -1], [2, 2, 2], [0, 1, 0]], "float32")
    sw = np.array([1.0, 2, 0.5, 1], "float32")
    loss = ek.keras.losses.SparseCategoricalCrossentropy
    per_entry = loss(from_logits=True, ignore_class=1, reduction=None)(y, logits)
    np.testing.assert_allclose(per_entry.numpy(), [2.407606, 0.0, 1.0986123, 0.0], rtol=1e-6)
    assert float(loss(from_logits=True, ignore_class=1)(y, logits)) == pytest.approx(1.7531091)
    weighted = loss(from_logits=True, ignore_class=1)(y, logits, sample_weight=sw)
    assert float(weighted) == pytest.approx(1.478456)
    summed = loss(from_logits=True, ignore_class=1, reduction="sum")(y, logits)
    assert float(summed) == pytest.approx(3.5062182)
    assert loss(ignore_class=1).get_config()["ignore_class"] == 1


def test_mean_metrics_weigh_samples_with_lower_rank_weights():
    """Keras's ``reduce_to_samplewise_values``: weights of shape [N] for values [N, k] weigh
    each sample's mean; the RMSE below is TensorFlow 2.21's."""
    rng = np.random.default_rng(5)
    # The comparison script's draws, in its order (the first four are its other inputs).
    for draw in (lambda: rng.integers(0, 2, (4, 3)), lambda: rng.uniform(0.05, 0.95, (4, 3))):
        draw()
    rng.normal(size=(4, 3))
    rng.integers(0, 3, (4,))
    y_true = rng.normal(size=(4, 3)).astype("float32")
    y_pred = rng.normal(size=(4, 3)).astype("float32")
    sw = np.array([1.0, 0.5, 0.0, 2.0], "float32")
    m = ek.keras.metrics.RootMeanSquaredError()
    m.update_state(y_true, y_pred, sample_weight=sw)
    assert float(m.result()) == pytest.approx(1.35576, rel=1e-5)
    expected = np.sqrt(np.sum(sw * np.mean((y_pred - y_true) ** 2, axis=1)) / np.sum(sw))
    assert float(m.result()) == pytest.approx(expected, rel=1e-6)
    # A square batch: the weights weigh rows (samples), not columns.
    values = np.arange(9.0, dtype="float32").reshape(3, 3)
    mean = ek.keras.metrics.Mean()
    mean.update_state(values, sample_weight=[1.0, 0.0, 0.0])
    assert float(mean.result()) == pytest.approx(1.0)
    total = ek.keras.metrics.Sum()
    total.update_state(values, sample_weight=[0.0, 1.0, 0.0])
    assert float(total.result()) == pytest.approx(12.0)


def test_metric_add_variable_follows_keras_3():
    class TruePositives(ek.keras.metrics.Metric):
        def __init__(self, name="tp", **kwargs):
            super().__init__(name=name, **kwargs)
            self.count = self.add_variable(shape=(), initializer="zeros", name="count")
            self.ones = self.add_variable(shape=(2,), initializer=ek.keras.initializers.Ones())

        def update_state(self, y_true, y_pred, sample_weight=None):
            hit = ek.cast(ek.equal(ek.argmax(y_pred, axis=1), ek.cast(y_true, "int64")), "float32")
            self.count.assign_add(ek.reduce_sum(hit))

        def result(self):
            return self.count

    m = TruePositives()
    m.update_state(ek.constant([1, 0, 1]), ek.constant([[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]]))
    assert float(m.result()) == 2.0 and m.count.name == "tp/count:0"
    assert m.ones.numpy().tolist() == [1.0, 1.0] and not m.count.trainable
    with pytest.raises(ValueError, match="aggregation must be 'sum' or 'mean'"):
        m.add_variable((), "zeros", aggregation="max")
