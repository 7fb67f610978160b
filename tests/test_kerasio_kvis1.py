"""keras-io vision examples (helper kvis1): grouped convolutions (convmixer.py) and
`to_categorical`'s dtype (mnist_convnet.py), against numbers computed with TensorFlow 2.21 +
Keras 3.15."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import keras


def _grouped_case(cls, shape, groups, filters):
    # The input and kernel are closed-form ramps, so the oracle run (same script with
    # `import keras, tensorflow as tf`) sees the same values.
    x = (np.arange(128, dtype="float32").reshape(shape) % 7) / 7
    layer = cls(filters, 3, padding="same", groups=groups)
    layer.build(shape)
    n = int(np.prod(layer.kernel.shape))
    k = (np.arange(n, dtype="float32").reshape(layer.kernel.shape) % 5 - 2) / 4
    layer.set_weights([k, np.zeros(filters, "float32")])
    xv = ek.constant(x)
    with ek.GradientTape() as tape:
        tape.watch(xv)
        y = layer(xv)
        loss = ek.reduce_sum(y * y)
    gx, gk = tape.gradient(loss, [xv, layer.kernel])
    return layer, y.numpy(), gx.numpy(), gk.numpy()


# (layer, input shape, groups, filters) -> kernel shape, output shape, sum(y), sum(y**2),
# sum|dloss/dx|, sum|dloss/dkernel| as printed by TF 2.21 / Keras 3.15.
GROUPED = [
    (
        keras.layers.Conv2D,
        (2, 4, 4, 4),
        4,
        8,
        (3, 3, 1, 8),
        (2, 4, 4, 8),
        -2.5000014,
        27.647961,
        159.08929,
        160.02042,
    ),
    (
        keras.layers.Conv2D,
        (2, 4, 4, 4),
        2,
        6,
        (3, 3, 2, 6),
        (2, 4, 4, 6),
        -3.8571436,
        51.806122,
        364.42856,
        367.76532,
    ),
    (
        keras.layers.Conv1D,
        (2, 16, 4),
        2,
        4,
        (3, 2, 4),
        (2, 16, 4),
        -6.6071429,
        12.353316,
        76.392853,
        99.357147,
    ),
    (
        keras.layers.Conv3D,
        (2, 1, 4, 4, 4),
        2,
        2,
        (3, 3, 3, 2, 2),
        (2, 1, 4, 4, 2),
        -0.60714293,
        13.358419,
        100.66071,
        100.57143,
    ),
]


@pytest.mark.parametrize("case", GROUPED, ids=["conv2d_depthwise", "conv2d_g2", "conv1d", "conv3d"])
def test_grouped_convolution_matches_keras(case):
    cls, shape, groups, filters, kshape, yshape, ysum, ysq, gxabs, gkabs = case
    layer, y, gx, gk = _grouped_case(cls, shape, groups, filters)
    assert tuple(layer.kernel.shape) == kshape
    assert y.shape == yshape
    np.testing.assert_allclose(
        [y.sum(), (y * y).sum(), np.abs(gx).sum(), np.abs(gk).sum()],
        [ysum, ysq, gxabs, gkabs],
        rtol=1e-5,
        atol=1e-5,
    )
    assert layer.get_config()["groups"] == groups


def test_grouped_convolution_equals_per_group_convolutions():
    # Closed form: group g of the output is the ungrouped convolution of input slice g with
    # kernel slice g.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 5, 5, 6)).astype("float32")
    layer = keras.layers.Conv2D(4, 3, groups=2, use_bias=False)
    y = layer(x).numpy()
    k = layer.kernel.numpy()
    for g in range(2):
        ref = ek.nn.conv2d(x[..., 3 * g : 3 * g + 3], k[..., 2 * g : 2 * g + 2], 1, "VALID")
        np.testing.assert_allclose(y[..., 2 * g : 2 * g + 2], ref.numpy(), rtol=1e-5, atol=1e-6)


def test_grouped_convolution_errors_are_keras_messages():
    with pytest.raises(ValueError, match=r"evenly divisible.*Received: groups=2, filters=3\."):
        keras.layers.Conv2D(3, 3, groups=2)
    with pytest.raises(ValueError, match=r"positive integer\. Received: groups=0\."):
        keras.layers.Conv2D(4, 3, groups=0)
    with pytest.raises(ValueError, match=r"input channels.*groups=4.*has 6 channels"):
        keras.layers.Conv2D(4, 3, groups=4).build((None, 5, 5, 6))


def test_convmixer_block_trains():
    # keras-io convmixer.py: Conv2D(filters, groups=filters) as the depthwise mixer, in fit.
    inputs = keras.Input((8, 8, 3))
    x = keras.layers.Conv2D(4, 2, strides=2)(inputs)
    x = keras.layers.Conv2D(4, 3, groups=4, padding="same")(x)
    outputs = keras.layers.Dense(2, activation="softmax")(keras.layers.GlobalAvgPool2D()(x))
    model = keras.Model(inputs, outputs)
    model.compile("adam", "sparse_categorical_crossentropy")
    rng = np.random.default_rng(0)
    h = model.fit(rng.random((8, 8, 8, 3)), rng.integers(0, 2, 8), epochs=2, verbose=0)
    assert len(h.history["loss"]) == 2 and np.isfinite(h.history["loss"]).all()


def test_to_categorical_of_numpy_labels_is_float64():
    # Keras 3.15: to_categorical(np.array([0, 2, 1]), 3).dtype == float64 (np.zeros default);
    # a Tensor input stays float32 (ops.one_hot).
    out = keras.utils.to_categorical(np.array([0, 2, 1]), 3)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    np.testing.assert_array_equal(out, np.eye(3)[[0, 2, 1]])
    assert keras.utils.to_categorical(ek.constant([0, 2, 1]), 3).dtype == ek.float32


def test_activation_set_to_none_after_build_is_linear():
    # keras-io grad_cam.py: `model.layers[-1].activation = None`; Keras 3's Dense and Conv
    # call skip a None activation (closed form: x @ kernel + bias, negatives kept).
    dense = keras.layers.Dense(2, activation="relu")
    dense.build((None, 2))
    dense.set_weights([np.array([[1.0, -1.0], [2.0, -3.0]], "float32"), np.zeros(2, "float32")])
    dense.activation = None
    np.testing.assert_allclose(dense(np.array([[1.0, 1.0]], "float32")).numpy(), [[3.0, -4.0]])
    conv = keras.layers.Conv2D(1, 1, activation="relu", use_bias=False)
    conv.build((None, 1, 1, 1))
    conv.set_weights([np.full((1, 1, 1, 1), -2.0, "float32")])
    conv.activation = None
    np.testing.assert_allclose(conv(np.ones((1, 1, 1, 1), "float32")).numpy(), [[[[-2.0]]]])
