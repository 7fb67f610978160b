"""Window ops whose window does not fit in the padded input: TensorFlow 2.21's kernels return
an empty output (checked on the oracle: every shape below is TF's for the same call), Keras's
convolution layers refuse at build time with Keras 3.15's message, its pooling layers do not."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

X = np.ones((1, 2, 2, 3), np.float32)

CASES = [  # (name, call, TensorFlow 2.21's output shape)
    (
        "conv2d",
        lambda: ek.nn.conv2d(X, np.ones((3, 3, 3, 4), np.float32), 1, "VALID"),
        (1, 0, 0, 4),
    ),
    (
        "conv2d strided",
        lambda: ek.nn.conv2d(
            np.ones((1, 2, 7, 3), np.float32), np.ones((3, 3, 3, 4), np.float32), 2, "VALID"
        ),
        (1, 0, 3, 4),
    ),
    (
        "conv2d dilated",
        lambda: ek.nn.conv2d(
            np.ones((1, 4, 4, 3), np.float32),
            np.ones((3, 3, 3, 4), np.float32),
            1,
            "VALID",
            dilations=2,
        ),
        (1, 0, 0, 4),
    ),
    (
        "conv1d",
        lambda: ek.nn.conv1d(
            np.ones((1, 2, 3), np.float32), np.ones((3, 3, 4), np.float32), 1, "VALID"
        ),
        (1, 0, 4),
    ),
    (
        "conv3d",
        lambda: ek.nn.conv3d(
            np.ones((1, 2, 5, 5, 3), np.float32),
            np.ones((3, 3, 3, 3, 4), np.float32),
            [1] * 5,
            "VALID",
        ),
        (1, 0, 3, 3, 4),
    ),
    (
        "depthwise",
        lambda: ek.nn.depthwise_conv2d(X, np.ones((3, 3, 3, 2), np.float32), [1, 1, 1, 1], "VALID"),
        (1, 0, 0, 6),
    ),
    (
        "separable",
        lambda: ek.nn.separable_conv2d(
            X,
            np.ones((3, 3, 3, 2), np.float32),
            np.ones((1, 1, 6, 5), np.float32),
            [1, 1, 1, 1],
            "VALID",
        ),
        (1, 0, 0, 5),
    ),
    ("max_pool2d", lambda: ek.nn.max_pool2d(X, 3, 1, "VALID"), (1, 0, 0, 3)),
    ("avg_pool2d", lambda: ek.nn.avg_pool2d(X, 3, 1, "VALID"), (1, 0, 0, 3)),
    ("max_pool2d int", lambda: ek.nn.max_pool2d(X.astype(np.int32), 3, 1, "VALID"), (1, 0, 0, 3)),
    (
        "max_pool1d",
        lambda: ek.nn.max_pool1d(np.ones((1, 2, 1), np.float32), 3, 1, "VALID"),
        (1, 0, 1),
    ),
    (
        "max_pool3d",
        lambda: ek.nn.max_pool3d(np.ones((1, 2, 4, 4, 1), np.float32), 3, 1, "VALID"),
        (1, 0, 2, 2, 1),
    ),
    (
        "pool dilated",
        lambda: ek.nn.pool(np.ones((1, 4, 4, 1), np.float32), [3, 3], "AVG", dilations=[2, 2]),
        (1, 0, 0, 1),
    ),
    ("argmax", lambda: ek.nn.max_pool_with_argmax(X, 3, 1, "VALID")[1], (1, 0, 0, 3)),
]


@pytest.mark.parametrize("name,call,shape", CASES, ids=[c[0] for c in CASES])
def test_a_window_larger_than_the_input_gives_tensorflows_empty_output(name, call, shape):
    y = call()
    assert tuple(y.shape) == shape
    assert y.numpy().size == 0


@pytest.mark.parametrize(
    "op",
    [
        lambda x, w: ek.nn.conv2d(x, w, 1, "VALID"),
        lambda x, w: ek.nn.depthwise_conv2d(x, w[..., :1], [1, 1, 1, 1], "VALID"),
    ],
)
def test_the_gradients_of_an_empty_output_are_zeros(op):
    # TensorFlow's backprop kernels return zeros-shaped tensors here (their values are
    # uninitialized memory in TF 2.21); ours are zeros of each input's shape and dtype.
    x = ek.constant(X)
    w = ek.constant(np.ones((3, 3, 3, 4), np.float32))
    with ek.GradientTape() as tape:
        tape.watch([x, w])
        y = op(x, w)
        loss = ek.reduce_sum(y * 2.0)
    gx, gw = tape.gradient(loss, [x, w])
    assert float(loss) == 0.0
    np.testing.assert_array_equal(gx.numpy(), np.zeros_like(X))
    np.testing.assert_array_equal(gw.numpy(), np.zeros((3, 3, 3, 4), np.float32))
    with ek.GradientTape() as tape:
        tape.watch(x)
        loss = ek.reduce_sum(ek.nn.max_pool2d(x, 3, 1, "VALID"))
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), np.zeros_like(X))


def test_keras_convolutions_refuse_at_build_and_pooling_does_not():
    L = ek.keras.layers
    message = (
        "Computed output size would be zero or negative. Received `inputs shape=(1, 2, 2, 3)`, "
        "`kernel shape=(3, 3, 3, 4)`, `dilation_rate=[1 1]`, `strides=(1, 1)`, `padding=valid`."
    )
    layer = L.Conv2D(4, 3)
    with pytest.raises(ValueError) as info:
        layer(X)
    assert str(info.value) == message  # Keras 3.15's text
    assert not layer.built and layer.weights == []  # nothing half-built
    with pytest.raises(ValueError, match=r"`kernel shape=\(3, 3, 3, 6\)`"):
        L.DepthwiseConv2D(3, depth_multiplier=2)(X)
    with pytest.raises(ValueError, match=r"`kernel shape=\(3, 3, 3, 5\)`"):
        L.SeparableConv2D(5, 3)(X)
    with pytest.raises(ValueError, match="zero or negative"):  # at build, from the Input
        ek.keras.Sequential([ek.keras.Input((2, 2, 3)), L.Conv2D(4, 3)])
    assert L.Conv2D(4, 3, padding="same")(X).shape == (1, 2, 2, 4)
    assert L.Conv1D(4, 3, padding="causal")(np.ones((1, 2, 3), np.float32)).shape == (1, 2, 4)
    assert L.Conv2DTranspose(4, 3)(X).shape == (1, 4, 4, 4)
    assert L.MaxPooling2D(3, 1)(X).shape == (1, 0, 0, 3)  # Keras's pooling: the op's output
    assert L.AveragePooling2D(3, 1)(X).shape == (1, 0, 0, 3)
    with pytest.raises(ValueError, match="zero or negative"):  # a known width of 2 is checked
        ek.keras.Sequential([ek.keras.Input((None, 2, 3)), L.Conv2D(4, 3)])
    model = ek.keras.Sequential([ek.keras.Input((None, None, 3)), L.Conv2D(4, 3)])
    assert model.output_shape == (None, None, None, 4)  # unknown sizes: no check
