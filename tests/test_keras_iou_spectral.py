"""The IoU metric family against hand-computed confusion matrices; keras.layers.Wrapper and
SpectralNormalization (power iteration, vector_u, configs)."""

import numpy as np
import pytest

import eagerkernel as ek

layers = ek.keras.layers
metrics = ek.keras.metrics


def np_iou(yt, yp, n, ids, w=None):
    """Mean IoU of classes ``ids`` from a confusion matrix built by hand."""
    w = np.ones(np.shape(yt)) if w is None else np.broadcast_to(w, np.shape(yt))
    yt, yp, w = np.ravel(yt), np.ravel(yp), np.ravel(w)
    cm = np.zeros((n, n))
    for t, p, wi in zip(yt, yp, w):
        cm[int(t), int(p)] += wi
    tp = np.diag(cm)
    den = cm.sum(0) + cm.sum(1) - tp
    vals = [tp[i] / den[i] for i in ids if den[i] > 1e-9]
    return float(np.mean(vals)) if vals else 0.0


# -- IoU metrics -------------------------------------------------------------------------------


def test_iou_target_classes_and_weights():
    m = metrics.IoU(num_classes=2, target_class_ids=[0])
    m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
    assert float(m.result()) == pytest.approx(1 / 3, rel=1e-6)
    m.reset_state()
    m.update_state([0, 0, 1, 1], [0, 1, 0, 1], sample_weight=[0.3, 0.3, 0.3, 0.1])
    assert float(m.result()) == pytest.approx(0.3 / 0.9, rel=1e-6)  # Keras's docstring value
    rng = np.random.default_rng(0)
    yt, yp = rng.integers(0, 4, (5, 6)), rng.integers(0, 4, (5, 6))
    w = rng.random((5, 6))
    m = metrics.IoU(4, target_class_ids=(1, 3))
    m.update_state(yt[:2], yp[:2], sample_weight=w[:2])
    m.update_state(yt[2:], yp[2:], sample_weight=w[2:])
    assert float(m.result()) == pytest.approx(np_iou(yt, yp, 4, [1, 3], w), rel=1e-6)
    assert m.name == "io_u" and m.result().dtype == ek.float32


def test_iou_ignore_class_absent_targets_and_errors():
    yt = np.array([0, 1, 2, 255, 255, 1])
    yp = np.array([0, 2, 2, 1, 0, 1])
    m = metrics.IoU(3, [0, 1, 2], ignore_class=255)
    m.update_state(yt, yp)
    keep = yt != 255
    assert float(m.result()) == pytest.approx(np_iou(yt[keep], yp[keep], 3, [0, 1, 2]))
    absent = metrics.IoU(4, [3])  # class 3 never seen: no valid entry, result 0
    absent.update_state([0, 1], [0, 1])
    assert float(absent.result()) == 0.0
    with pytest.raises(ValueError, match=r"outside \[0, 3\)"):
        m.update_state([5], [0])
    with pytest.raises(ValueError, match="target_class_ids"):
        metrics.IoU(2, [2])
    with pytest.raises(ValueError, match="num_classes"):
        metrics.IoU(0, [0])
    with pytest.raises(ValueError, match="sample_weight"):
        m.update_state([0, 1], [0, 1], sample_weight=[1.0, 2.0, 3.0])


def test_iou_dense_inputs_and_axis():
    rng = np.random.default_rng(1)
    yt, yp = rng.integers(0, 3, 8), rng.integers(0, 3, 8)
    scores = np.eye(3)[yp] * 0.8 + 0.05
    m = metrics.IoU(3, [0, 2], sparse_y_true=False, sparse_y_pred=False)
    m.update_state(np.eye(3)[yt], scores)
    assert float(m.result()) == pytest.approx(np_iou(yt, yp, 3, [0, 2]))
    first = metrics.IoU(3, [0, 1, 2], sparse_y_pred=False, axis=0)
    first.update_state(yt, scores.T)
    assert float(first.result()) == pytest.approx(np_iou(yt, yp, 3, [0, 1, 2]))


def test_binary_iou_threshold():
    m = metrics.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
    m.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7])
    assert float(m.result()) == pytest.approx(1 / 3, rel=1e-6)
    m.reset_state()
    m.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7], sample_weight=[0.2, 0.3, 0.4, 0.1])
    assert float(m.result()) == pytest.approx(0.17361112, rel=1e-6)  # Keras's docstring value
    rng = np.random.default_rng(2)
    yt, scores = rng.integers(0, 2, 20), rng.random(20)
    for threshold in (0.0, 0.5, 0.8):
        for ids in ([0], [1], [0, 1]):
            b = metrics.BinaryIoU(ids, threshold=threshold)
            b.update_state(yt, scores)
            ref = np_iou(yt, (scores >= threshold).astype(int), 2, ids)
            assert float(b.result()) == pytest.approx(ref, rel=1e-6), (threshold, ids)
    assert metrics.BinaryIoU().get_config() == {
        "name": "binary_io_u",
        "dtype": "float32",
        "target_class_ids": [0, 1],
        "threshold": 0.5,
    }
    with pytest.raises(ValueError, match="target_class_ids"):
        metrics.BinaryIoU([2])


def test_one_hot_iou_and_mean_iou():
    y_true = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]])
    y_pred = np.array([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]])
    w = [0.1, 0.2, 0.3, 0.4]
    m = metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2])
    m.update_state(y_true, y_pred, sample_weight=w)
    assert float(m.result()) == pytest.approx((0 / 0.9 + 0.1 / 0.7) / 2, rel=1e-5)
    mm = metrics.OneHotMeanIoU(num_classes=3)
    mm.update_state(y_true, y_pred, sample_weight=w)
    assert float(mm.result()) == pytest.approx(0.1 / 0.7 / 3, rel=1e-5)  # Keras's 0.048
    sparse = metrics.OneHotIoU(3, [0, 1, 2], sparse_y_pred=True)
    sparse.update_state(y_true, [2, 2, 0, 2])
    assert float(sparse.result()) == pytest.approx(np_iou([2, 0, 1, 0], [2, 2, 0, 2], 3, [0, 1, 2]))
    assert "sparse_y_true" not in m.get_config() and "sparse_y_true" not in mm.get_config()
    assert "target_class_ids" not in mm.get_config()


def test_mean_iou_shares_the_iou_code_and_configs_roundtrip():
    assert issubclass(metrics.MeanIoU, metrics.IoU)
    m = metrics.MeanIoU(3, ignore_class=0)
    m.update_state([0, 1, 2, 2], [1, 1, 2, 0])
    assert float(m.result()) == pytest.approx(np_iou([1, 2, 2], [1, 2, 0], 3, [0, 1, 2]))
    for metric in (
        metrics.IoU(3, [1, 2], ignore_class=-1, axis=1),
        metrics.BinaryIoU([1], threshold=0.7),
        metrics.MeanIoU(4, sparse_y_pred=False),
        metrics.OneHotIoU(3, [0]),
        metrics.OneHotMeanIoU(5, ignore_class=2),
    ):
        config = metric.get_config()
        assert type(metric).from_config(config).get_config() == config
        again = metrics.deserialize(metrics.serialize(metric))
        assert type(again) is type(metric) and again.get_config() == config


def test_iou_in_compile_and_fit():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    model = ek.keras.Sequential([ek.keras.Input((4,)), layers.Dense(2, activation="softmax")])
    model.compile(
        "adam",
        "sparse_categorical_crossentropy",
        metrics=[metrics.IoU(2, [1], sparse_y_pred=False, name="iou1")],
    )
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert 0.0 <= history.history["iou1"][-1] <= 1.0


# -- Wrapper and SpectralNormalization ----------------------------------------------------------


def test_wrapper_base_class():
    class Twice(layers.Wrapper):
        def call(self, inputs):
            return 2.0 * self.layer(inputs)

    w = Twice(layers.Dense(3, kernel_initializer="ones"))
    np.testing.assert_allclose(w(np.ones((1, 2), np.float32)).numpy(), [[4.0, 4.0, 4.0]])
    assert w.layer.built and len(w.trainable_weights) == 2
    assert w.compute_output_shape((None, 2)) == (None, 3)
    config = w.get_config()
    assert config["layer"]["class_name"] == "Dense"
    assert type(Twice.from_config(config).layer) is layers.Dense
    with pytest.raises(ValueError, match=r"supplied to Twice.*Received: layer='dense'"):
        Twice("dense")
    assert isinstance(layers.TimeDistributed(layers.Dense(2)), layers.Wrapper)


def np_power_iteration(kernel, u, iterations):
    w = kernel.reshape(-1, kernel.shape[-1]).astype(np.float64)
    u = u.astype(np.float64)
    for _ in range(iterations):
        v = u @ w.T
        v /= np.linalg.norm(v)
        u = v @ w
        u /= np.linalg.norm(u)
    sigma = (v @ w @ u.T)[0, 0]
    return u, kernel / sigma


@pytest.mark.parametrize(
    "inner,shape",
    [(lambda: layers.Dense(5), (3, 4)), (lambda: layers.Conv2D(3, 2), (2, 5, 5, 2))],
)
def test_spectral_normalization_unit_spectral_norm(inner, shape):
    x = np.random.default_rng(4).normal(size=shape).astype(np.float32)
    sn = layers.SpectralNormalization(inner(), power_iterations=1)
    sn(x)
    kernel0 = sn.layer.kernel.numpy().copy()
    u0 = sn.vector_u.numpy().copy()
    assert sn.vector_u.shape == (1, kernel0.shape[-1])
    assert not sn.vector_u.trainable
    assert sn.vector_u.name.endswith("vector_u:0")
    assert all(v is not sn.vector_u for v in sn.trainable_weights)
    assert any(v is sn.vector_u for v in sn.non_trainable_weights)
    # inference leaves the kernel alone
    sn(x, training=False)
    np.testing.assert_array_equal(sn.layer.kernel.numpy(), kernel0)
    # one training call: exactly one power-iteration step, assigned to kernel and vector_u
    y = sn(x, training=True)
    u1, k1 = np_power_iteration(kernel0, u0, 1)
    np.testing.assert_allclose(sn.vector_u.numpy(), u1, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sn.layer.kernel.numpy(), k1, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(y.numpy(), sn.layer(x).numpy(), rtol=1e-6)
    for _ in range(30):
        sn(x, training=True)
    matrix = sn.layer.kernel.numpy().reshape(-1, kernel0.shape[-1])
    assert np.linalg.svd(matrix, compute_uv=False)[0] == pytest.approx(1.0, abs=1e-3)


def test_spectral_normalization_many_iterations_in_one_call_and_zero_kernel():
    sn = layers.SpectralNormalization(layers.Dense(6), power_iterations=50)
    sn(np.ones((2, 4), np.float32), training=True)
    assert np.linalg.svd(sn.layer.kernel.numpy(), compute_uv=False)[0] == pytest.approx(
        1.0, abs=1e-4
    )
    zero = layers.SpectralNormalization(layers.Dense(3, kernel_initializer="zeros"))
    zero(np.ones((1, 2), np.float32), training=True)
    assert np.all(zero.layer.kernel.numpy() == 0) and np.all(np.isfinite(zero.vector_u.numpy()))
    emb = layers.SpectralNormalization(layers.Embedding(10, 4), power_iterations=40)
    out = emb(np.array([[1, 2, 3]]), training=True)
    assert tuple(out.shape) == (1, 3, 4) and out.dtype == ek.float32
    assert np.linalg.svd(emb.layer.embeddings.numpy(), compute_uv=False)[0] == pytest.approx(
        1.0, abs=1e-3
    )


def test_spectral_normalization_errors_config_and_fit(tmp_path):
    with pytest.raises(ValueError, match="power_iterations"):
        layers.SpectralNormalization(layers.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match=r"Flatten.*'kernel' nor 'embeddings'"):
        layers.SpectralNormalization(layers.Flatten())(np.ones((1, 2, 2), np.float32))
    with pytest.raises(ValueError, match="Received"):
        layers.SpectralNormalization("dense")
    sn = layers.SpectralNormalization(layers.Conv2D(2, 3), power_iterations=3, name="sn")
    config = sn.get_config()
    assert config["power_iterations"] == 3 and config["layer"]["class_name"] == "Conv2D"
    clone = layers.SpectralNormalization.from_config(config)
    assert clone.power_iterations == 3 and clone.get_config() == config
    rng = np.random.default_rng(5)
    x = rng.normal(size=(16, 6, 6, 1)).astype(np.float32)
    y = rng.normal(size=(16, 1)).astype(np.float32)
    model = ek.keras.Sequential(
        [
            ek.keras.Input((6, 6, 1)),
            layers.SpectralNormalization(layers.Conv2D(2, 3)),
            layers.Flatten(),
            layers.SpectralNormalization(layers.Dense(1)),
        ]
    )
    model.compile("adam", "mse")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    for layer in (model.layers[0], model.layers[2]):
        w = layer.layer.kernel.numpy().reshape(-1, layer.layer.kernel.shape[-1])
        assert np.linalg.svd(w, compute_uv=False)[0] < 1.5  # normalized every step
        assert len(layer.non_trainable_weights) == 1
    path = str(tmp_path / "sn.keras")
    model.save(path)
    loaded = ek.keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5)
    np.testing.assert_allclose(loaded.layers[0].vector_u.numpy(), model.layers[0].vector_u.numpy())
