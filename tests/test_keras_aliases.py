"""Keras 3's exported aliases: the loss functions under `ek.keras.metrics`, the extra loss names,
the Dice and Tversky losses, and serialize/deserialize of losses, metrics and optimizers in
Keras's config-dict format."""

import json

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

keras = ek.keras
losses = keras.losses
metrics = keras.metrics


# What each name is bound to in TensorFlow 2.21's tf.keras (checked in a scratch venv: every
# tf.keras.metrics name below `is` the tf.keras.losses function of that name).
METRIC_ALIASES = {
    "mse": "mean_squared_error",
    "MSE": "mean_squared_error",
    "mae": "mean_absolute_error",
    "MAE": "mean_absolute_error",
    "mape": "mean_absolute_percentage_error",
    "MAPE": "mean_absolute_percentage_error",
    "msle": "mean_squared_logarithmic_error",
    "MSLE": "mean_squared_logarithmic_error",
    "kld": "kl_divergence",
    "KLD": "kl_divergence",
    "kullback_leibler_divergence": "kl_divergence",
    "binary_crossentropy": "binary_crossentropy",
    "categorical_crossentropy": "categorical_crossentropy",
    "sparse_categorical_crossentropy": "sparse_categorical_crossentropy",
    "binary_focal_crossentropy": "binary_focal_crossentropy",
    "categorical_focal_crossentropy": "categorical_focal_crossentropy",
    "hinge": "hinge",
    "squared_hinge": "squared_hinge",
    "categorical_hinge": "categorical_hinge",
    "poisson": "poisson",
    "logcosh": "log_cosh",
    "huber": "huber",
}


@pytest.mark.parametrize("name, canonical", sorted(METRIC_ALIASES.items()))
def test_metrics_exports_the_loss_functions(name, canonical):
    fn = getattr(metrics, name)
    assert fn is getattr(losses, canonical)
    assert name in metrics.__all__
    if hasattr(losses, name):
        assert getattr(losses, name) is fn


def test_metric_alias_values():
    y_true = np.array([[0.0, 1.0], [1.0, 1.0]], np.float32)
    y_pred = np.array([[0.5, 0.25], [2.0, 1.5]], np.float32)
    np.testing.assert_allclose(metrics.mse(y_true, y_pred).numpy(), [0.40625, 0.625])
    np.testing.assert_allclose(metrics.MAE(y_true, y_pred).numpy(), [0.625, 0.75])
    np.testing.assert_allclose(
        metrics.logcosh(y_true, y_pred).numpy(),
        np.log(np.cosh(y_pred - y_true)).mean(-1),
        rtol=1e-6,
    )


def test_extra_loss_names():
    assert losses.kullback_leibler_divergence is losses.kl_divergence
    assert losses.logcosh is losses.log_cosh
    for name in ("kullback_leibler_divergence", "logcosh", "serialize", "deserialize"):
        assert name in losses.__all__
    assert losses.get("kullback_leibler_divergence") is losses.kl_divergence
    assert losses.get("logcosh") is losses.log_cosh


# -- Dice and Tversky --------------------------------------------------------------------------
Y_TRUE = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]], np.float32)
Y_PRED = np.array([[0.9, 0.2, 0.6, 0.1], [0.3, 0.8, 0.4, 0.7]], np.float32)


def np_tversky(t, p, alpha, beta, axis):
    # Keras 3's terms (keras/src/losses/losses.py): fp = sum((1 - p) * t), fn = sum(p * (1 - t))
    tp = (t * p).sum(axis)
    fp = ((1 - p) * t).sum(axis)
    fn = (p * (1 - t)).sum(axis)
    return 1 - tp / (tp + alpha * fp + beta * fn + 1e-7)


def test_dice_and_tversky_match_tensorflow():
    # Values from TensorFlow 2.21's tf.keras.losses on Y_TRUE / Y_PRED.
    assert float(losses.dice(Y_TRUE, Y_PRED)) == pytest.approx(0.24444443, abs=1e-6)
    assert float(losses.Dice()(Y_TRUE, Y_PRED)) == pytest.approx(0.24444443, abs=1e-6)
    assert float(losses.Dice(axis=(1,))(Y_TRUE, Y_PRED)) == pytest.approx(0.23987854, abs=1e-6)
    assert float(losses.tversky(Y_TRUE, Y_PRED)) == pytest.approx(0.24444449, abs=1e-6)
    assert float(losses.tversky(Y_TRUE, Y_PRED, alpha=0.3, beta=0.7)) == pytest.approx(
        0.20930237, abs=1e-6
    )
    tv = losses.Tversky(alpha=0.2, beta=0.8)
    assert float(tv(Y_TRUE, Y_PRED)) == pytest.approx(0.19047612, abs=1e-6)
    assert float(losses.Tversky(axis=1)(Y_TRUE, Y_PRED)) == pytest.approx(0.23987857, abs=1e-6)
    # Keras's documented example
    y_true = [[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]]
    y_pred = [[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]]
    per_image = losses.Dice(axis=(1, 2, 3), reduction=None)(y_true, y_pred)
    np.testing.assert_allclose(per_image.numpy(), [0.5, 0.75757575], rtol=1e-6)
    assert float(losses.Dice()(y_true, y_pred)) == pytest.approx(0.6164384, abs=1e-6)


@pytest.mark.parametrize("axis", [None, -1, (1, 2)])
@pytest.mark.parametrize("alpha, beta", [(0.5, 0.5), (0.3, 0.7), (1.0, 0.0)])
def test_tversky_against_numpy(axis, alpha, beta):
    rng = np.random.default_rng(0)
    t = rng.integers(0, 2, size=(3, 4, 5)).astype(np.float32)
    p = rng.uniform(size=(3, 4, 5)).astype(np.float32)
    np_axis = axis if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    got = losses.tversky(t, p, alpha=alpha, beta=beta, axis=axis).numpy()
    np.testing.assert_allclose(got, np_tversky(t, p, alpha, beta, np_axis), rtol=1e-5)
    if alpha == beta == 0.5:
        dice = 1 - 2 * (t * p).sum(np_axis) / (t.sum(np_axis) + p.sum(np_axis) + 1e-7)
        np.testing.assert_allclose(losses.dice(t, p, axis=axis).numpy(), dice, rtol=1e-5)
    reduced = losses.Tversky(alpha, beta, axis=axis)(t, p)
    np.testing.assert_allclose(float(reduced), np.mean(got), rtol=1e-5)


def test_dice_and_tversky_gradients():
    t = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    p = np.array([[0.7, 0.2, 0.4], [0.1, 0.9, 0.6]])
    check_gradients(lambda y: losses.dice(t, y, axis=1), p)
    check_gradients(lambda y: losses.tversky(t, y, alpha=0.3, beta=0.7), p)


def test_dice_and_tversky_errors_config_and_training():
    with pytest.raises(ValueError, match=r"dice: y_true and y_pred shapes are incompatible"):
        losses.dice(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"Tversky: axis must be None.*Received: axis='x'"):
        losses.Tversky(axis="x")
    d = losses.Dice(axis=(1, 2), name="d")
    assert d.get_config() == {"name": "d", "reduction": "sum_over_batch_size", "axis": [1, 2]}
    tv = losses.Tversky(alpha=0.1, beta=0.9, reduction="sum")
    clone = losses.Tversky.from_config(json.loads(json.dumps(tv.get_config())))
    assert clone.get_config() == tv.get_config()
    assert float(clone(Y_TRUE, Y_PRED)) == pytest.approx(float(tv(Y_TRUE, Y_PRED)))
    # compile by name and train a tiny segmentation-style model
    ek.random.set_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="dice")
    x = np.random.default_rng(1).normal(size=(32, 4)).astype(np.float32)
    y = (x > 0).astype(np.float32)
    history = model.fit(x, y, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


# -- serialize / deserialize -------------------------------------------------------------------
def test_loss_serialize_is_keras_format():
    # The dicts TensorFlow 2.21's tf.keras.losses.serialize returns for these objects.
    assert losses.serialize(losses.Dice()) == {
        "module": "keras.losses",
        "class_name": "Dice",
        "config": {"name": "dice", "reduction": "sum_over_batch_size", "axis": None},
        "registered_name": None,
    }
    assert losses.serialize(losses.Tversky()) == {
        "module": "keras.losses",
        "class_name": "Tversky",
        "config": {
            "name": "tversky",
            "reduction": "sum_over_batch_size",
            "alpha": 0.5,
            "beta": 0.5,
            "axis": None,
        },
        "registered_name": None,
    }
    assert losses.serialize(losses.MeanSquaredError()) == {
        "module": "keras.losses",
        "class_name": "MeanSquaredError",
        "config": {"name": "mean_squared_error", "reduction": "sum_over_batch_size"},
        "registered_name": None,
    }
    function = {
        "module": "builtins",
        "class_name": "function",
        "config": "mean_squared_error",
        "registered_name": "function",
    }
    assert losses.serialize(losses.mse) == function
    assert metrics.serialize(metrics.mse) == function
    assert losses.serialize(None) is None


@pytest.mark.parametrize(
    "loss",
    [
        losses.Dice(axis=(1,)),
        losses.Tversky(0.2, 0.8, reduction="sum"),
        losses.Huber(delta=2.0),
        losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.1),
        losses.CategoricalFocalCrossentropy(gamma=3.0),
        losses.MeanSquaredError(),
    ],
)
def test_loss_round_trips(loss):
    config = json.loads(json.dumps(losses.serialize(loss)))
    clone = losses.deserialize(config)
    assert type(clone) is type(loss) and clone.get_config() == loss.get_config()
    y_true = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    y_pred = np.array([[0.8, 0.3], [0.4, 0.6]], np.float32)
    assert float(clone(y_true, y_pred)) == pytest.approx(float(loss(y_true, y_pred)))


def test_loss_deserialize_names_and_errors():
    assert losses.deserialize("mse") is losses.mean_squared_error
    assert losses.deserialize("mean_squared_error") is losses.mean_squared_error
    assert losses.deserialize("logcosh") is losses.log_cosh
    assert isinstance(losses.deserialize("MeanSquaredError"), losses.MeanSquaredError)
    assert isinstance(losses.deserialize("Dice"), losses.Dice)
    assert losses.deserialize(losses.serialize(losses.kld)) is losses.kl_divergence
    # a dict Keras wrote
    keras_dict = {
        "module": "keras.losses",
        "class_name": "MeanSquaredError",
        "config": {"name": "mean_squared_error", "reduction": "sum_over_batch_size"},
        "registered_name": None,
    }
    assert isinstance(losses.deserialize(keras_dict), losses.MeanSquaredError)
    with pytest.raises(ValueError, match="Could not interpret loss identifier: 'nope'"):
        losses.deserialize("nope")
    with pytest.raises(TypeError, match="Could not locate class 'Nope'"):
        losses.deserialize({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="Could not interpret loss config: 3"):
        losses.deserialize(3)
    my_loss = lambda y_true, y_pred: y_pred
    assert losses.deserialize("mine", custom_objects={"mine": my_loss}) is my_loss


def test_registered_loss_round_trips():
    @keras.saving.register_keras_serializable(package="AliasTest")
    class Scaled(losses.Loss):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, y_true, y_pred):
            return ek.reduce_mean(ek.square(y_true - y_pred), axis=-1) * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    config = losses.serialize(Scaled(3.0))
    assert config["registered_name"] == "AliasTest>Scaled"
    clone = losses.deserialize(json.loads(json.dumps(config)))
    assert isinstance(clone, Scaled) and clone.factor == 3.0


@pytest.mark.parametrize(
    "metric",
    [
        metrics.MeanSquaredError(),
        metrics.AUC(num_thresholds=50),
        metrics.BinaryAccuracy(threshold=0.3),
        metrics.F1Score(average="macro"),
    ],
)
def test_metric_round_trips(metric):
    config = json.loads(json.dumps(metrics.serialize(metric)))
    assert config["module"] == "keras.metrics" and config["registered_name"] is None
    assert config["class_name"] == type(metric).__name__
    clone = metrics.deserialize(config)
    assert type(clone) is type(metric) and clone.get_config() == metric.get_config()


def test_metric_deserialize_names_and_keras_dicts():
    assert isinstance(metrics.deserialize("mse"), metrics.MeanSquaredError)
    assert isinstance(metrics.deserialize("accuracy"), metrics.Accuracy)
    assert isinstance(metrics.deserialize("AUC"), metrics.AUC)
    # a dict TensorFlow 2.21's tf.keras.metrics.serialize(tf.keras.metrics.AUC()) returns
    auc = {
        "module": "keras.metrics",
        "class_name": "AUC",
        "config": {
            "name": "auc",
            "dtype": "float32",
            "num_thresholds": 200,
            "curve": "ROC",
            "summation_method": "interpolation",
            "multi_label": False,
            "num_labels": None,
            "label_weights": None,
            "from_logits": False,
        },
        "registered_name": None,
    }
    assert metrics.deserialize(auc).num_thresholds == 200
    assert metrics.deserialize(metrics.serialize(metrics.mse)) is not None
    with pytest.raises(ValueError, match="Could not interpret metric identifier: 'nope'"):
        metrics.deserialize("nope")


@pytest.mark.parametrize(
    "optimizer",
    [
        keras.optimizers.Adam(0.01, beta_1=0.8),
        keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
        keras.optimizers.RMSprop(0.002),
    ],
)
def test_optimizer_round_trips(optimizer):
    config = json.loads(json.dumps(keras.optimizers.serialize(optimizer)))
    assert config["module"] == "keras.optimizers" and config["registered_name"] is None
    assert config["class_name"] == type(optimizer).__name__
    clone = keras.optimizers.deserialize(config)
    assert type(clone) is type(optimizer) and clone.get_config() == optimizer.get_config()


def test_optimizer_deserialize_names_and_errors():
    assert isinstance(keras.optimizers.deserialize("adam"), keras.optimizers.Adam)
    assert isinstance(keras.optimizers.deserialize("RMSprop"), keras.optimizers.RMSprop)
    sgd = keras.optimizers.deserialize({"class_name": "SGD", "config": {"learning_rate": 0.5}})
    assert float(sgd.learning_rate) == 0.5
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier: 'nope'"):
        keras.optimizers.deserialize("nope")
    with pytest.raises(ValueError, match="Could not interpret optimizer config"):
        keras.optimizers.deserialize(["adam"])
