"""Conv1DTranspose, SeparableConv1D and DepthwiseConv1D: values against NumPy loops and
numbers from TensorFlow 2.21, gradients against finite differences, Keras's errors, configs and
a .keras round trip."""

import numpy as np
import pytest
from keras_layer_refs import (
    check_layer_gradients,
    cos_weights,
    np_conv,
    np_conv_transpose,
    rand,
    roundtrip,
    sin_input,
)

import eagerkernel as ek

keras = ek.keras
layers = keras.layers


def np_depthwise(x, dw, strides, padding, dilation=None):
    """Depthwise convolution: channel ``k`` convolved with ``dw[..., k, q]`` gives output
    channel ``k * m + q``."""
    c = dw.shape[-2]
    outs = [
        np_conv(x[..., k : k + 1], dw[..., k : k + 1, :], strides, padding, dilation)
        for k in range(c)
    ]
    return np.concatenate(outs, axis=-1)


# -- Conv1DTranspose ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({"kernel_size": 3}, (2, 4, 2)),
        ({"kernel_size": 3, "strides": 2}, (1, 3, 1)),
        ({"kernel_size": 4, "strides": 2, "padding": "same"}, (1, 5, 3)),
        ({"kernel_size": 1, "strides": 3}, (1, 3, 2)),
        ({"kernel_size": 3, "strides": 3, "output_padding": 2}, (1, 3, 2)),
        ({"kernel_size": 3, "padding": "same", "dilation_rate": 2}, (1, 5, 1)),
    ],
)
def test_conv1d_transpose_against_numpy_loop(kwargs, shape):
    layer = layers.Conv1DTranspose(2, **kwargs, bias_initializer="glorot_uniform")
    x = rand(*shape)
    y = layer(x).numpy()
    kernel, bias = (w.numpy() for w in layer.weights)
    assert kernel.shape == (kwargs["kernel_size"], 2, shape[-1])
    assert y.shape == layer.compute_output_shape(shape)
    ref = np_conv_transpose(
        x, kernel, y.shape[1:2], layer.strides, layer.padding, layer.dilation_rate
    )
    np.testing.assert_allclose(y, ref + bias, rtol=1e-5, atol=1e-5)


def test_conv1d_transpose_matches_tensorflow():
    # TensorFlow 2.21 (tf.keras) with sin_input / cos_weights from keras_layer_refs.
    layer = layers.Conv1DTranspose(2, 3, strides=2)
    layer.build((1, 3, 2))
    cos_weights(layer)
    tf_valid = [
        0.871859,
        0.404705,
        0.505039,
        -0.067436,
        1.605977,
        0.722891,
        0.891692,
        -0.187743,
        1.247895,
        -0.038602,
        1.00147,
        -0.188516,
        -0.687686,
        -1.611702,
    ]
    y = layer(sin_input((1, 3, 2)))
    assert y.shape == (1, 7, 2)
    np.testing.assert_allclose(y.numpy().ravel(), tf_valid, atol=2e-6)
    layer = layers.Conv1DTranspose(1, 3, strides=2, padding="same", output_padding=1)
    layer.build((1, 3, 2))
    cos_weights(layer)
    tf_same = [0.871859, 0.726278, 2.085281, 1.539508, 2.71611, 1.737015]
    np.testing.assert_allclose(layer(sin_input((1, 3, 2))).numpy().ravel(), tf_same, atol=2e-6)


def test_conv1d_transpose_gradients_finite_differences():
    layer = layers.Conv1DTranspose(
        2, 3, strides=2, padding="same", dtype="float64", bias_initializer="glorot_uniform"
    )
    check_layer_gradients(layer, rand(2, 3, 2))


def test_conv1d_transpose_errors_and_config():
    with pytest.raises(ValueError, match=r'layer "t".*expected ndim=3, found ndim=4'):
        layers.Conv1DTranspose(2, 3, name="t")(ek.ones((1, 4, 4, 1)))
    with pytest.raises(ValueError, match="`output_padding` is 2 but `strides` is 2"):
        layers.Conv1DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="padding"):
        layers.Conv1DTranspose(2, 3, padding="causal")
    with pytest.raises(ValueError, match=r"tuple of 1 integers. Received: kernel_size=\(3, 3\)"):
        layers.Conv1DTranspose(2, (3, 3))
    for make in (
        lambda: layers.Conv1DTranspose(2, 3, data_format="channels_first"),
        lambda: layers.SeparableConv1D(2, 3, data_format="channels_first"),
        lambda: layers.DepthwiseConv1D(3, data_format="channels_first"),
    ):
        with pytest.raises(ValueError, match=r"channels_first.*\(NWC\).*\[0, 2, 1\]"):
            make()
    layer = layers.Conv1DTranspose(2, 3)
    layer(ek.ones((1, 4, 3)))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        layer(ek.ones((1, 4, 2)))
    config = layers.Conv1DTranspose(4, 3, strides=2, output_padding=1).get_config()
    assert config["kernel_size"] == (3,) and config["strides"] == (2,)
    assert config["output_padding"] == (1,) and config["dilation_rate"] == (1,)
    assert roundtrip(layers.Conv1DTranspose(4, 3, strides=2, output_padding=1)).strides == (2,)
    assert layers.Convolution1DTranspose is layers.Conv1DTranspose


# -- DepthwiseConv1D ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({"kernel_size": 3}, (2, 6, 2)),
        ({"kernel_size": 2, "strides": 2, "depth_multiplier": 3}, (1, 7, 2)),
        (
            {"kernel_size": 3, "padding": "same", "dilation_rate": 2, "depth_multiplier": 2},
            (1, 5, 3),
        ),
    ],
)
def test_depthwise_conv1d_against_numpy_loop(kwargs, shape):
    layer = layers.DepthwiseConv1D(**kwargs, bias_initializer="glorot_uniform")
    x = rand(*shape)
    y = layer(x).numpy()
    dw, bias = (w.numpy() for w in layer.weights)
    m = kwargs.get("depth_multiplier", 1)
    assert dw.shape == (kwargs["kernel_size"], shape[-1], m) and bias.shape == (shape[-1] * m,)
    assert y.shape == layer.compute_output_shape(shape)
    ref = np_depthwise(x, dw, layer.strides, layer.padding, layer.dilation_rate)
    np.testing.assert_allclose(y, ref + bias, rtol=1e-5, atol=1e-5)


def test_depthwise_conv1d_matches_tensorflow():
    # TensorFlow 2.21 (tf.keras) with sin_input / cos_weights from keras_layer_refs.
    layer = layers.DepthwiseConv1D(3, strides=2, depth_multiplier=2)
    layer.build((1, 6, 2))
    cos_weights(layer)
    tf_out = [0.332472, -0.348969, -0.680254, -1.368387, 1.62455, 1.05762, 0.672531, 0.161588]
    np.testing.assert_allclose(layer(sin_input((1, 6, 2))).numpy().ravel(), tf_out, atol=2e-6)


def test_depthwise_conv1d_gradients_finite_differences():
    layer = layers.DepthwiseConv1D(
        3,
        strides=2,
        padding="same",
        depth_multiplier=2,
        dtype="float64",
        bias_initializer="glorot_uniform",
    )
    check_layer_gradients(layer, rand(1, 5, 2))


def test_depthwise_conv1d_errors_and_config():
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=4"):
        layers.DepthwiseConv1D(3)(ek.ones((1, 4, 4, 1)))
    with pytest.raises(ValueError, match="depth_multiplier"):
        layers.DepthwiseConv1D(3, depth_multiplier=0)
    with pytest.raises(ValueError, match="padding"):
        layers.DepthwiseConv1D(3, padding="causal")
    layer = layers.DepthwiseConv1D(2)
    layer(ek.ones((1, 4, 3)))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        layer(ek.ones((1, 4, 2)))
    config = layers.DepthwiseConv1D(3, strides=2, depth_multiplier=2).get_config()
    assert config["kernel_size"] == (3,) and config["depth_multiplier"] == 2
    assert "filters" not in config and "kernel_initializer" not in config
    assert roundtrip(layers.DepthwiseConv1D(3, depth_multiplier=2)).depth_multiplier == 2


# -- SeparableConv1D ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({"kernel_size": 3}, (2, 6, 2)),
        ({"kernel_size": 2, "strides": 2, "depth_multiplier": 2}, (1, 7, 3)),
        ({"kernel_size": 3, "padding": "same", "dilation_rate": 2}, (1, 6, 2)),
    ],
)
def test_separable_conv1d_against_numpy_loop(kwargs, shape):
    layer = layers.SeparableConv1D(4, **kwargs, bias_initializer="glorot_uniform")
    x = rand(*shape)
    y = layer(x).numpy()
    dw, pw, bias = (w.numpy() for w in layer.weights)
    m = kwargs.get("depth_multiplier", 1)
    assert dw.shape == (kwargs["kernel_size"], shape[-1], m)
    assert pw.shape == (1, shape[-1] * m, 4)
    assert y.shape == layer.compute_output_shape(shape)
    depth = np_depthwise(x, dw, layer.strides, layer.padding, layer.dilation_rate)
    np.testing.assert_allclose(y, depth @ pw[0] + bias, rtol=1e-5, atol=1e-5)


def test_separable_conv1d_matches_tensorflow():
    # TensorFlow 2.21 (tf.keras) with sin_input / cos_weights from keras_layer_refs.
    layer = layers.SeparableConv1D(2, 3, depth_multiplier=2, padding="same")
    layer.build((1, 5, 2))
    cos_weights(layer)
    tf_out = [
        1.01251,
        1.0035,
        0.620411,
        0.466538,
        -0.685812,
        -1.420166,
        -1.941134,
        -3.020127,
        -1.134704,
        -1.889716,
    ]
    np.testing.assert_allclose(layer(sin_input((1, 5, 2))).numpy().ravel(), tf_out, atol=2e-6)


def test_separable_conv1d_gradients_finite_differences():
    layer = layers.SeparableConv1D(
        2, 2, strides=2, depth_multiplier=2, dtype="float64", bias_initializer="glorot_uniform"
    )
    check_layer_gradients(layer, rand(1, 5, 2))


def test_separable_conv1d_errors_and_config():
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        layers.SeparableConv1D(2, 3)(ek.ones((4, 4)))
    with pytest.raises(ValueError, match="Received filters=-1"):
        layers.SeparableConv1D(-1, 3)
    with pytest.raises(ValueError, match="dilation_rate > 1"):
        layers.SeparableConv1D(2, 3, strides=2, dilation_rate=2)
    config = layers.SeparableConv1D(2, 3, pointwise_regularizer="l1").get_config()
    assert config["kernel_size"] == (3,) and config["pointwise_regularizer"] is not None
    assert roundtrip(layers.SeparableConv1D(2, 3, depth_multiplier=3)).depth_multiplier == 3
    assert layers.SeparableConvolution1D is layers.SeparableConv1D


def test_conv1d_variants_train_and_round_trip(tmp_path):
    ek.random.set_seed(2)
    model = keras.Sequential(
        [
            keras.Input((8, 3)),
            layers.SeparableConv1D(4, 3, padding="same", activation="relu"),
            layers.DepthwiseConv1D(3, depth_multiplier=2),
            layers.Conv1DTranspose(2, 3, strides=2, output_padding=1),
            layers.GlobalAveragePooling1D(),
            layers.Dense(1),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    x = rand(16, 8, 3)
    y = x.sum(axis=(1, 2))[:, None] * 0.2
    history = model.fit(x, y, epochs=6, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    model.save(tmp_path / "c1.keras")
    loaded = keras.models.load_model(tmp_path / "c1.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5)
    for a, b in zip(model.layers, loaded.layers):
        assert a.get_config() == b.get_config()
