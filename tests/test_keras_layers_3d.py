"""The 3-D Keras layers (Conv3D, Conv3DTranspose, the 3-D pools, UpSampling3D, ZeroPadding3D,
Cropping3D, SpatialDropout3D): values against NumPy loops and numbers from TensorFlow 2.21,
gradients against finite differences, Keras's errors, configs, training and .keras files."""

import numpy as np
import pytest
from keras_layer_refs import (
    check_layer_gradients,
    cos_weights,
    np_conv,
    np_conv_transpose,
    np_pool,
    rand,
    roundtrip,
    sin_input,
)

import eagerkernel as ek

keras = ek.keras
layers = keras.layers


# -- Conv3D ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({"kernel_size": 2}, (2, 3, 4, 3, 2)),
        ({"kernel_size": (3, 2, 1), "padding": "same"}, (1, 4, 3, 3, 2)),
        ({"kernel_size": 2, "strides": (2, 1, 2), "padding": "same"}, (1, 5, 3, 4, 1)),
        ({"kernel_size": (2, 2, 1), "strides": 2}, (1, 5, 4, 3, 2)),
        ({"kernel_size": 2, "dilation_rate": (2, 1, 1), "padding": "same"}, (1, 4, 3, 2, 1)),
    ],
)
def test_conv3d_against_numpy_loop(kwargs, shape):
    layer = layers.Conv3D(3, **kwargs, bias_initializer="glorot_uniform")
    x = rand(*shape)
    y = layer(x).numpy()
    kernel, bias = (w.numpy() for w in layer.weights)
    ref = np_conv(x, kernel, layer.strides, layer.padding, layer.dilation_rate) + bias.astype(
        np.float64
    )
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    assert y.shape == layer.compute_output_shape(shape)
    assert kernel.shape == (*layer.kernel_size, shape[-1], 3)


def test_conv3d_matches_tensorflow():
    # Computed with TensorFlow 2.21 (tf.keras, Keras 3) in a scratch venv: inputs
    # sin_input(shape), weights set with cos_weights (see keras_layer_refs).
    layer = layers.Conv3D(2, (2, 2, 2))
    layer.build((1, 3, 3, 3, 2))
    cos_weights(layer)
    tf_valid = [
        0.380019,
        0.211478,
        0.936133,
        0.902505,
        1.014098,
        0.80667,
        0.495169,
        0.069935,
        0.684774,
        0.600959,
        1.117463,
        1.09616,
        0.778208,
        0.460204,
        0.183716,
        -0.338308,
    ]
    np.testing.assert_allclose(
        layer(sin_input((1, 3, 3, 3, 2))).numpy().ravel(), tf_valid, atol=2e-6
    )
    layer = layers.Conv3D(2, 3, strides=2, padding="same")
    layer.build((1, 3, 4, 3, 1))
    cos_weights(layer)
    tf_same = [
        5.877516,
        5.30022,
        4.633162,
        5.110974,
        -2.181042,
        -1.81116,
        -3.722492,
        -3.939478,
        -2.850684,
        -1.880548,
        -5.454718,
        -5.305902,
        -0.811726,
        -2.050735,
        2.312644,
        1.128852,
    ]
    np.testing.assert_allclose(
        layer(sin_input((1, 3, 4, 3, 1))).numpy().ravel(), tf_same, atol=1e-5
    )
    layer = layers.Conv3D(1, 2, dilation_rate=(2, 1, 1))
    layer.build((1, 3, 2, 2, 1))
    cos_weights(layer)
    np.testing.assert_allclose(
        layer(sin_input((1, 3, 2, 2, 1))).numpy().ravel(), [2.230783], atol=1e-5
    )


def test_conv3d_weights_names_activation_and_dtype():
    conv = layers.Conv3D(4, 3, activation="relu", name="c3", use_bias=False)
    y = conv(ek.ones((1, 3, 3, 3, 2), dtype="float64"))  # cast to the layer's float32
    assert y.dtype == ek.float32 and [v.name for v in conv.variables] == ["c3/kernel:0"]
    assert (y.numpy() >= 0).all()
    assert layers.Convolution3D is layers.Conv3D


def test_conv3d_gradients_finite_differences():
    layer = layers.Conv3D(
        2, 2, strides=(1, 2, 1), padding="same", dtype="float64", bias_initializer="glorot_uniform"
    )
    check_layer_gradients(layer, rand(1, 3, 3, 2, 2))


def test_conv3d_errors():
    with pytest.raises(ValueError, match=r'layer "c".*expected ndim=5, found ndim=4'):
        layers.Conv3D(2, 3, name="c")(ek.ones((1, 4, 4, 1)))
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=4"):
        layers.Conv3D(2, 3).compute_output_shape((None, 4, 4, 1))
    conv = layers.Conv3D(2, 1)
    conv(ek.ones((1, 2, 2, 2, 3)))
    with pytest.raises(ValueError, match=r"expected axis -1 of input shape to have value 3"):
        conv(ek.ones((1, 2, 2, 2, 4)))
    with pytest.raises(ValueError, match=r"Received filters=0"):
        layers.Conv3D(0, 3)
    with pytest.raises(ValueError, match=r"tuple of 3 integers. Received: kernel_size=\(3, 3\)"):
        layers.Conv3D(2, (3, 3))
    with pytest.raises(ValueError, match="padding"):
        layers.Conv3D(2, 3, padding="causal")
    with pytest.raises(ValueError, match=r"evenly divisible.*groups=2, filters=3"):
        layers.Conv3D(3, 3, groups=2)
    with pytest.raises(ValueError, match=r"dilation_rate > 1"):
        layers.Conv3D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match=r"channels_first.*NDHWC.*\[0, 2, 3, 4, 1\]"):
        layers.Conv3D(2, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="channel dimension of the inputs should be defined"):
        layers.Conv3D(2, 3).build((None, 4, 4, 4, None))


def test_conv3d_config_round_trip():
    conv = layers.Conv3D(
        5, (1, 2, 3), strides=(1, 1, 2), padding="same", activation="tanh", kernel_regularizer="l2"
    )
    clone = roundtrip(conv)
    assert clone.kernel_size == (1, 2, 3) and clone.strides == (1, 1, 2)
    assert conv.get_config()["groups"] == 1


# -- Conv3DTranspose --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({"kernel_size": 2}, (1, 2, 3, 2, 2)),
        ({"kernel_size": (3, 2, 2), "strides": (2, 1, 2)}, (2, 2, 2, 3, 1)),
        ({"kernel_size": 3, "strides": 2, "padding": "same"}, (1, 2, 3, 2, 2)),
        ({"kernel_size": 1, "strides": 3}, (1, 2, 2, 1, 1)),  # kernel < stride: zeros between
        ({"kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1}, (1, 2, 2, 1, 1)),
        ({"kernel_size": 2, "strides": (3, 2, 2), "output_padding": (2, 0, 1)}, (1, 2, 1, 2, 1)),
    ],
)
def test_conv3d_transpose_against_numpy_loop(kwargs, shape):
    layer = layers.Conv3DTranspose(2, **kwargs, bias_initializer="glorot_uniform")
    x = rand(*shape)
    y = layer(x).numpy()
    kernel, bias = (w.numpy() for w in layer.weights)
    assert kernel.shape == (*layer.kernel_size, 2, shape[-1])
    assert y.shape == layer.compute_output_shape(shape)
    ref = np_conv_transpose(x, kernel, y.shape[1:4], layer.strides, layer.padding) + bias
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_conv3d_transpose_output_lengths():
    # Keras's deconv_output_length: n * s + max(k - s, 0) (valid), n * s (same)
    assert layers.Conv3DTranspose(1, (3, 2, 1), strides=2).compute_output_shape(
        (None, 4, 4, 4, 1)
    ) == (None, 9, 8, 8, 1)
    assert layers.Conv3DTranspose(1, 3, strides=2, padding="same").compute_output_shape(
        (None, 4, None, 2, 1)
    ) == (None, 8, None, 4, 1)
    # with output_padding: (n - 1) * s + k - 2 * pad + output_padding
    assert layers.Conv3DTranspose(
        1, 3, strides=2, padding="same", output_padding=1
    ).compute_output_shape((None, 4, 4, 4, 1)) == (None, 8, 8, 8, 1)


def test_conv3d_transpose_matches_tensorflow():
    # TensorFlow 2.21 (tf.keras) with sin_input / cos_weights from keras_layer_refs.
    layer = layers.Conv3DTranspose(1, (2, 2, 2), strides=(2, 1, 1))
    layer.build((1, 2, 2, 2, 1))
    cos_weights(layer)
    tf_valid = [
        0.460201,
        0.896962,
        0.774016,
        1.171025,
        2.376792,
        1.497853,
        0.95062,
        1.570174,
        0.951246,
        0.405853,
        0.581537,
        0.461543,
        0.685867,
        0.90525,
        0.459962,
        0.355504,
        0.177319,
        0.140683,
        1.342383,
        2.181728,
        1.20675,
        1.869952,
        2.818888,
        1.343728,
        0.940815,
        1.167985,
        0.637033,
        0.798022,
        0.986087,
        0.565806,
        0.672175,
        0.467384,
        0.237835,
        0.355619,
        0.184854,
        0.258962,
    ]
    y = layer(sin_input((1, 2, 2, 2, 1)))
    assert y.shape == (1, 4, 3, 3, 1)
    np.testing.assert_allclose(y.numpy().ravel(), tf_valid, atol=2e-6)
    layer = layers.Conv3DTranspose(1, 3, strides=2, padding="same", output_padding=1)
    layer.build((1, 1, 2, 1, 1))
    cos_weights(layer)
    tf_same = [
        0.460201,
        0.453103,
        0.425194,
        0.405853,
        0.805298,
        0.750362,
        0.64741,
        0.559672,
        0.298104,
        0.282377,
        0.264166,
        0.262641,
        -0.01633,
        -0.0743,
        -0.083082,
        -0.089998,
    ]
    y = layer(sin_input((1, 1, 2, 1, 1)))
    assert y.shape == (1, 2, 4, 2, 1)
    np.testing.assert_allclose(y.numpy().ravel(), tf_same, atol=2e-6)


def test_conv3d_transpose_gradients_finite_differences():
    layer = layers.Conv3DTranspose(
        2, 2, strides=(2, 1, 1), padding="same", dtype="float64", bias_initializer="glorot_uniform"
    )
    check_layer_gradients(layer, rand(1, 2, 2, 2, 2))


def test_conv3d_transpose_errors_and_config():
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=3"):
        layers.Conv3DTranspose(2, 3)(ek.ones((1, 4, 1)))
    with pytest.raises(
        ValueError, match=r"At dimension 0, `output_padding` is 2 but `strides` is 2"
    ):
        layers.Conv3DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="output_padding"):
        layers.Conv3DTranspose(2, 3, output_padding=(1, 1))
    layer = layers.Conv3DTranspose(2, 1)
    layer(ek.ones((1, 1, 1, 1, 3)))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        layer(ek.ones((1, 1, 1, 1, 2)))
    clone = roundtrip(layers.Conv3DTranspose(3, 2, strides=2, output_padding=(1, 0, 1)))
    assert clone.output_padding == (1, 0, 1)
    assert "groups" not in clone.get_config()
    assert layers.Convolution3DTranspose is layers.Conv3DTranspose


# -- pooling -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize(
    "pool, strides, padding, shape",
    [
        (2, None, "valid", (2, 4, 4, 4, 2)),
        ((2, 3, 1), (1, 2, 1), "valid", (1, 3, 5, 2, 1)),
        (2, None, "same", (1, 3, 5, 3, 2)),
        ((3, 2, 2), (2, 1, 3), "same", (1, 4, 3, 5, 1)),
    ],
)
def test_pooling3d_against_numpy_loop(kind, pool, strides, padding, shape):
    cls = layers.MaxPooling3D if kind == "max" else layers.AveragePooling3D
    layer = cls(pool, strides=strides, padding=padding)
    x = rand(*shape)
    y = layer(x).numpy()
    ref = np_pool(x, layer.pool_size, layer.strides, padding, "max" if kind == "max" else "mean")
    np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-6)
    assert y.shape == layer.compute_output_shape(shape)


def test_pooling3d_matches_tensorflow():
    # TensorFlow 2.21 (tf.keras), inputs sin_input(shape) from keras_layer_refs.
    x = sin_input((1, 3, 3, 3, 1))
    tf_max = [0.999958, 0.92896, 0.732231, 0.106612, 0.999872, 0.938, 0.430257, -0.290952]
    tf_avg = [-0.046713, -0.006516, 0.079189, 0.094057, 0.783603, 0.832787, 0.252483, -0.290952]
    np.testing.assert_allclose(
        layers.MaxPooling3D(2, padding="same")(x).numpy().ravel(), tf_max, atol=1e-6
    )
    np.testing.assert_allclose(
        layers.AveragePooling3D(2, padding="same")(x).numpy().ravel(), tf_avg, atol=1e-6
    )
    tf_avg_s1 = [0.430338, 0.428858, 0.259822, 0.115145, -0.199271, -0.326456, -0.437039, -0.40547]
    y = layers.AveragePooling3D((2, 1, 2), strides=1)(sin_input((1, 3, 2, 3, 1)))
    np.testing.assert_allclose(y.numpy().ravel(), tf_avg_s1, atol=1e-6)


@pytest.mark.parametrize("cls", [layers.MaxPooling3D, layers.AveragePooling3D])
def test_pooling3d_gradients_finite_differences(cls):
    x = rand(1, 3, 4, 3, 2).astype(np.float64)  # distinct values: max pooling is smooth there
    check_layer_gradients(cls(2, strides=(1, 2, 2), padding="same", dtype="float64"), x)


def test_pooling3d_defaults_errors_and_config():
    assert layers.MaxPooling3D().pool_size == (2, 2, 2) and layers.MaxPooling3D().strides == (
        2,
        2,
        2,
    )
    with pytest.raises(TypeError):
        layers.AveragePooling3D()  # pool_size is required in Keras 3
    with pytest.raises(ValueError, match=r'layer "p".*expected ndim=5, found ndim=4'):
        layers.MaxPooling3D(name="p")(ek.ones((1, 4, 4, 1)))
    with pytest.raises(ValueError, match="pool_size"):
        layers.MaxPooling3D((2, 2))
    with pytest.raises(ValueError, match="padding"):
        layers.AveragePooling3D(2, padding="full")
    with pytest.raises(ValueError, match="channels_first"):
        layers.MaxPooling3D(data_format="channels_first")
    clone = roundtrip(layers.AveragePooling3D((1, 2, 3), strides=1, padding="same"))
    assert clone.strides == (1, 1, 1) and clone.padding == "same"
    assert layers.MaxPool3D is layers.MaxPooling3D and layers.AvgPool3D is layers.AveragePooling3D


@pytest.mark.parametrize("keepdims", [False, True])
def test_global_pooling3d(keepdims):
    x = rand(2, 3, 4, 2, 5)
    avg = layers.GlobalAveragePooling3D(keepdims=keepdims)
    mx = layers.GlobalMaxPooling3D(keepdims=keepdims)
    np.testing.assert_allclose(avg(x).numpy(), x.mean((1, 2, 3), keepdims=keepdims), rtol=1e-5)
    np.testing.assert_allclose(mx(x).numpy(), x.max((1, 2, 3), keepdims=keepdims))
    expected = (None, 1, 1, 1, 5) if keepdims else (None, 5)
    assert avg.compute_output_shape((None, 3, 4, 2, 5)) == expected
    assert roundtrip(mx).keepdims is keepdims
    layer = layers.GlobalAveragePooling3D(dtype="float64")
    check_layer_gradients(layer, rand(1, 2, 2, 3, 2))
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=4"):
        mx(ek.ones((1, 2, 2, 2)))
    assert layers.GlobalAvgPool3D is layers.GlobalAveragePooling3D
    assert layers.GlobalMaxPool3D is layers.GlobalMaxPooling3D


# -- shape layers ------------------------------------------------------------------------------
def test_upsampling3d_is_repeat():
    x = rand(2, 2, 3, 1, 2)
    layer = layers.UpSampling3D((2, 1, 3))
    ref = np.repeat(np.repeat(x, 2, axis=1), 3, axis=3)
    np.testing.assert_array_equal(layer(x).numpy(), ref)
    assert layer.compute_output_shape((None, 2, None, 1, 2)) == (None, 4, None, 3, 2)
    np.testing.assert_array_equal(
        layers.UpSampling3D()(x).numpy(),
        np.repeat(np.repeat(np.repeat(x, 2, 1), 2, 2), 2, 3),
    )
    # the gradient sums the copies
    xt = ek.constant(x)
    with ek.GradientTape() as tape:
        tape.watch(xt)
        y = ek.reduce_sum(layer(xt))
    np.testing.assert_array_equal(tape.gradient(y, xt).numpy(), np.full(x.shape, 6.0))
    assert roundtrip(layer).size == (2, 1, 3)
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=4"):
        layer(ek.ones((1, 2, 2, 2)))
    with pytest.raises(ValueError, match="size"):
        layers.UpSampling3D((2, 2))


def test_zero_padding3d_is_np_pad():
    x = rand(1, 2, 3, 2, 2)
    np.testing.assert_array_equal(
        layers.ZeroPadding3D()(x).numpy(), np.pad(x, [(0, 0), (1, 1), (1, 1), (1, 1), (0, 0)])
    )
    layer = layers.ZeroPadding3D(((1, 0), (0, 2), (3, 1)))
    np.testing.assert_array_equal(
        layer(x).numpy(), np.pad(x, [(0, 0), (1, 0), (0, 2), (3, 1), (0, 0)])
    )
    np.testing.assert_array_equal(
        layers.ZeroPadding3D((1, 0, 2))(x).numpy(),
        np.pad(x, [(0, 0), (1, 1), (0, 0), (2, 2), (0, 0)]),
    )
    assert layer.compute_output_shape((None, 2, None, 2, 2)) == (None, 3, None, 6, 2)
    assert roundtrip(layer).padding == ((1, 0), (0, 2), (3, 1))
    with pytest.raises(ValueError, match="non-negative"):
        layers.ZeroPadding3D(-1)
    with pytest.raises(ValueError, match="padding"):
        layers.ZeroPadding3D((1, 2))
    with pytest.raises(ValueError, match="expected ndim=5"):
        layer(ek.ones((2, 2)))


def test_cropping3d_is_slicing():
    x = rand(1, 4, 5, 6, 2)
    np.testing.assert_array_equal(layers.Cropping3D()(x).numpy(), x[:, 1:3, 1:4, 1:5])
    layer = layers.Cropping3D(((1, 0), (2, 1), (0, 3)))
    np.testing.assert_array_equal(layer(x).numpy(), x[:, 1:, 2:4, :3])
    np.testing.assert_array_equal(layers.Cropping3D((0, 1, 2))(x).numpy(), x[:, :, 1:4, 2:4])
    assert layer.compute_output_shape((None, 4, None, 6, 2)) == (None, 3, None, 3, 2)
    assert roundtrip(layer).cropping == ((1, 0), (2, 1), (0, 3))
    with pytest.raises(ValueError, match="must be smaller than the input length"):
        layers.Cropping3D(2)(ek.ones((1, 3, 5, 5, 1)))
    with pytest.raises(ValueError, match="expected ndim=5"):
        layer(ek.ones((1, 5, 5, 1)))
    with pytest.raises(ValueError, match="channels_first"):
        layers.Cropping3D(data_format="channels_first")


def test_spatial_dropout3d_drops_whole_channels():
    layer = layers.SpatialDropout3D(0.5, seed=3)
    x = np.ones((4, 3, 2, 3, 8), np.float32)
    y = layer(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0 < (y == 0).mean() < 1
    assert (y.std(axis=(1, 2, 3)) == 0).all()  # each (sample, channel) kept or dropped whole
    np.testing.assert_array_equal(layer(x).numpy(), x)  # inference: identity
    config = roundtrip(layer).get_config()
    assert config["rate"] == 0.5 and config["data_format"] == "channels_last"
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=4"):
        layer(np.ones((1, 2, 2, 2), np.float32), training=True)
    with pytest.raises(ValueError, match="channels_first"):
        layers.SpatialDropout3D(0.1, data_format="channels_first")


# -- models ------------------------------------------------------------------------------------
def test_conv3d_model_trains_and_round_trips(tmp_path):
    ek.random.set_seed(0)
    model = keras.Sequential(
        [
            keras.Input((4, 4, 4, 1)),
            layers.Conv3D(4, 3, padding="same", activation="relu"),
            layers.MaxPooling3D(2),
            layers.GlobalAveragePooling3D(),
            layers.Dense(1),
        ]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    x = rand(16, 4, 4, 4, 1)
    y = x.mean(axis=(1, 2, 3)) * 3.0 + 1.0
    history = model.fit(x, y, epochs=6, batch_size=8, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.5 * losses[0]
    model.save(tmp_path / "c3.keras")
    loaded = keras.models.load_model(tmp_path / "c3.keras")
    assert [type(la).__name__ for la in loaded.layers] == [
        "Conv3D",
        "MaxPooling3D",
        "GlobalAveragePooling3D",
        "Dense",
    ]
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5)


def test_all_3d_layers_in_a_saved_model(tmp_path):
    ek.random.set_seed(1)
    model = keras.Sequential(
        [
            keras.Input((4, 4, 4, 2)),
            layers.ZeroPadding3D(((1, 0), (0, 1), (1, 1))),
            layers.Cropping3D(((0, 1), (1, 0), (1, 1))),
            layers.Conv3DTranspose(3, 2, strides=2, output_padding=1),
            layers.SpatialDropout3D(0.2),
            layers.AveragePooling3D(3),
            layers.UpSampling3D((1, 2, 1)),
            layers.Conv3D(2, (1, 2, 1), activation="tanh"),
            layers.GlobalMaxPooling3D(),
        ]
    )
    x = rand(3, 4, 4, 4, 2)
    out = model.predict(x, verbose=0)
    assert out.shape == (3, 2)
    shape = (None, 4, 4, 4, 2)
    for layer in model.layers:  # each layer's compute_output_shape agrees with its call
        shape = layer.compute_output_shape(shape)
    assert shape == (None, 2)
    model.save(tmp_path / "all3d.keras")
    loaded = keras.models.load_model(tmp_path / "all3d.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), out, rtol=1e-5)
    for a, b in zip(model.layers, loaded.layers):
        assert a.get_config() == b.get_config()
