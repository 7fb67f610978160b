"""keras-io examples (kgen3 helper): GANs, packaging models, near-duplicate search.

Expected values were checked against TensorFlow 2.21 / Keras 3.15 (`/tmp/tfvenv`), running the
same calls with ``import keras`` (scripts under /tmp/probe/kgen3/).
"""

import logging

import numpy as np

import eagerkernel as tf
from eagerkernel import keras

layers = keras.layers


def _mnist_like_model():
    inputs = keras.Input(shape=(None, None, 1), dtype="uint8")
    y = layers.Rescaling(1 / 255.0)(inputs)
    y = layers.Conv2D(4, 3, padding="same", activation="relu")(y)
    y = layers.GlobalAveragePooling2D()(y)
    outputs = layers.Dense(3, activation="softmax", name="classification_head")(y)
    return keras.Model(inputs, outputs)


def test_only_models_have_layers_so_walk_layers_reaches_the_leaves():
    # packaging_keras_models_for_wide_distribution: `walk_layers` recurses while
    # `hasattr(layer, "layers")`; Keras 3 layers have no `layers` (oracle: hasattr(Dense(3),
    # "layers") is False), so the walk prints the leaf names.
    def walk(layer, out):
        if hasattr(layer, "layers"):
            for sub in layer.layers:
                walk(sub, out)
        else:
            out.append(type(layer).__name__)
        return out

    model = _mnist_like_model()
    assert not hasattr(layers.Dense(3), "layers")
    assert not hasattr(layers.InputLayer(shape=(3,)), "layers")
    assert walk(model, []) == [
        "InputLayer",
        "Rescaling",
        "Conv2D",
        "GlobalAveragePooling2D",
        "Dense",
    ]
    nested = keras.Sequential([keras.Input((4,)), keras.Sequential([layers.Dense(2)])])
    assert walk(nested, []) == ["Dense"]


def test_subclassed_model_layers_are_its_direct_sublayers():
    # Keras 3 `Model.layers` of a subclassed model: its tracked sublayers, in attribute order.
    class Two(keras.Model):
        def __init__(self):
            super().__init__()
            self.a = layers.Dense(2, name="a")
            self.block = [layers.Dense(3, name="b")]

        def call(self, x):
            return self.block[0](self.a(x))

    assert [la.name for la in Two().layers] == ["a", "b"]


def test_export_of_nested_model_does_not_log_retracing(tmp_path, caplog):
    # near_dup_search: `embedding_model.export(...)` of a Sequential holding a Sequential;
    # the exporter's own re-traces must not log TF's "... triggered tf.function retracing"
    # (TensorFlow's export logs nothing of the kind).
    inner = keras.Sequential(
        [keras.Input((8, 8, 3)), layers.Conv2D(2, 3), layers.GlobalAveragePooling2D()],
        name="inner",
    )
    model = keras.Sequential(
        [
            keras.Input((8, 8, 3)),
            layers.Rescaling(1 / 255.0),
            inner,
            layers.Normalization(mean=0, variance=1),
        ]
    )
    with caplog.at_level(logging.WARNING, logger="eagerkernel"):
        model.export(str(tmp_path / "m"), verbose=False)
    assert not [r for r in caplog.records if "retracing" in r.getMessage()]
    fn = tf.saved_model.load(str(tmp_path / "m")).signatures["serving_default"]
    x = np.random.default_rng(0).uniform(0, 255, (2, 8, 8, 3)).astype("float32")
    out = fn(tf.constant(x))
    np.testing.assert_allclose(out["output_0"].numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)


def test_user_retracing_is_still_reported(caplog):
    # The exporter's exemption is scoped: a user function traced for 5 new shapes still logs
    # TensorFlow's warning ("5 out of the last 5 calls ... triggered tf.function retracing").
    @tf.function
    def f(x):
        return x * 2

    with caplog.at_level(logging.WARNING, logger="eagerkernel"):
        for n in range(1, 6):
            f(tf.ones((n,)))
    assert any("5 out of the last 5 calls" in r.getMessage() for r in caplog.records)


def test_loss_call_maps_over_a_list_of_differently_shaped_outputs():
    # gaugan: FeatureMatchingLoss()(real_d_output, fake_d_output) receives the discriminator's
    # list of feature maps; Keras 3's Loss.__call__ converts each leaf, it does not stack them.
    class FeatureMatching(keras.losses.Loss):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.mae = keras.losses.MeanAbsoluteError()

        def call(self, y_true, y_pred):
            return sum(self.mae(t, p) for t, p in zip(y_true, y_pred))

    a = [np.full((2, 4, 4, 3), 1.0, "float32"), np.full((2, 2, 2, 5), 2.0, "float32")]
    b = [tf.constant(np.full((2, 4, 4, 3), 1.5, "float32")), tf.zeros((2, 2, 2, 5))]
    # closed form: |1 - 1.5| + |2 - 0| = 2.5
    assert float(FeatureMatching()(a, b)) == 2.5
    # a list of same-shaped predictions still reaches built-in losses as one tensor
    mse = keras.losses.MeanSquaredError()
    assert float(mse([[1.0], [3.0]], [tf.constant([0.0]), tf.constant([1.0])])) == 2.5


def test_ops_reductions_accept_a_tensor_of_axes():
    # stylegan's gradient_loss: keras.ops.sum(x, axis=keras.ops.arange(1, ndim)); the oracle
    # (TensorFlow backend) gives [66., 210.] and the mean over axis=tensor(1) below.
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        keras.ops.sum(x, axis=keras.ops.arange(1, 3)).numpy(), [66.0, 210.0]
    )
    np.testing.assert_array_equal(
        keras.ops.mean(x, axis=keras.ops.convert_to_tensor(1)).numpy(),
        [[4.0, 5.0, 6.0, 7.0], [16.0, 17.0, 18.0, 19.0]],
    )
    np.testing.assert_array_equal(keras.ops.max(x, axis=np.array([0, 2])).numpy(), [15, 19, 23])


def test_metric_variables_include_those_of_metrics_it_holds():
    # gan_ada's KID metric holds `self.kid_tracker = keras.metrics.Mean()`; Keras 3 tracks it,
    # so `kid.variables` has the tracker's total and count (oracle: len(kid.variables) == 2).
    class KID(keras.metrics.Metric):
        def __init__(self, **kwargs):
            super().__init__(name="kid", **kwargs)
            self.kid_tracker = keras.metrics.Mean()
            self.encoder = keras.Sequential([layers.Dense(2)])  # layers are not tracked

        def update_state(self, value):
            self.kid_tracker.update_state(value)

        def result(self):
            return self.kid_tracker.result()

    kid = KID()
    kid.update_state(3.0)
    kid.update_state(5.0)
    assert [float(v.numpy()) for v in kid.variables] == [8.0, 2.0]
    assert len(keras.metrics.Mean().variables) == 2


def test_quantize_raises_clear_errors_instead_of_computing_something_else():
    # float8_training_and_inference_with_transformer: `model.quantize("float8")`. Keras 3
    # rewrites the Dense/EinsumDense kernels in float8; eagerkernel has no float8 dtype, so
    # it refuses; an unknown mode gets Keras's own ValueError message.
    import pytest

    model = _mnist_like_model()
    with pytest.raises(NotImplementedError, match="mode='float8'"):
        model.quantize("float8")
    with pytest.raises(ValueError, match="Invalid quantization mode"):
        model.quantize("float4")
    with pytest.raises(ValueError, match="either `mode` or `config`"):
        model.quantize()
    with pytest.raises(NotImplementedError, match="bfloat16"):
        keras.mixed_precision.Policy("mixed_bfloat16")
