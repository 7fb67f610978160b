"""keras-io vision examples (helper vis6): NaN-aware argmax (nnclr.py's correlation accuracy),
per-sample losses in `fit` logs (nnclr.py's ``c_loss``), the V2 ResNets (consistency_training.py,
semantic_image_clustering.py, supervised-contrastive-learning.py) and `ops.reshape` on
KerasTensors with a -1 (semantic_image_clustering.py). Expected values were computed with
TensorFlow 2.21 + Keras 3.15 (the oracle) running the same code with `import tensorflow as tf`
and `import keras`."""

import numpy as np
import pytest
from eagerkernel.keras import ops

import eagerkernel as ek
from eagerkernel import keras

NAN, INF = np.nan, np.inf


def test_argmax_argmin_skip_nan_as_tensorflow():
    # Oracle: tf.argmax(p, 1) -> [2 0 1 0 2], tf.argmin(p, 1) -> [1 0 1 0 0]
    # (NumPy would give [0 1 0 0 1]: its argmax returns the first NaN).
    p = np.array(
        [[NAN, -INF, 0], [-INF, NAN, -INF], [NAN, 1, 1], [NAN, NAN, NAN], [1, NAN, 2]], "float32"
    )
    np.testing.assert_array_equal(ek.argmax(p, 1).numpy(), [2, 0, 1, 0, 2])
    np.testing.assert_array_equal(ek.argmin(p, 1).numpy(), [1, 0, 1, 0, 0])
    # Oracle: tf.argmin([[nan, inf, 0], [inf, nan, inf]], 1) -> [2 0]
    q = np.array([[NAN, INF, 0], [INF, NAN, INF]], "float32")
    np.testing.assert_array_equal(ek.argmin(q, 1).numpy(), [2, 0])
    # float16 and float64 too (oracle: [0 0] for both)
    for dt in ("float16", "float64"):
        r = np.array([[NAN, -INF], [-INF, NAN]], dt)
        np.testing.assert_array_equal(ek.argmax(r, 1).numpy(), [0, 0])


def test_keras_argmax_and_accuracy_with_nan_logits():
    # Oracle: keras.ops.argmax -> [1 2 0 0], ops.argmin -> [2 0 2 0],
    # SparseCategoricalAccuracy on labels [1, 2, 0, 0] -> 1.0 (eagerkernel gave 0.5).
    p = np.array([[NAN, 1.0, 0.0], [0.0, NAN, 2.0], [1.0, 0.5, 0.2], [NAN] * 3], "float32")
    np.testing.assert_array_equal(np.asarray(ops.argmax(p, axis=1)), [1, 2, 0, 0])
    np.testing.assert_array_equal(np.asarray(ops.argmin(p, axis=1)), [2, 0, 2, 0])
    m = keras.metrics.SparseCategoricalAccuracy()
    m.update_state([1, 2, 0, 0], p)
    assert float(m.result()) == 1.0


class _VectorLogs(keras.Model):
    """A custom `train_step` returning a per-sample vector, as nnclr.py's ``c_loss``."""

    def __init__(self):
        super().__init__()
        self.d = keras.layers.Dense(1)

    def train_step(self, data):
        x, _ = data
        self.d(x)
        return {"vec": ek.constant([1.0, 2.0, 3.0, 4.0])}


def test_fit_keeps_vector_logs_as_arrays_and_shows_their_mean(capsys):
    # Oracle: fit runs, prints "vec: 2.5000" (Progbar's np.mean), and History holds a
    # numpy.ndarray of shape (4,) per epoch.
    model = _VectorLogs()
    model.compile(optimizer="sgd")
    x = np.ones((4, 2), "float32")
    history = model.fit(x, np.zeros(4, "float32"), batch_size=4, epochs=2, verbose=2)
    assert "vec: 2.5000" in capsys.readouterr().out
    (first, second) = history.history["vec"]
    assert isinstance(first, np.ndarray) and first.shape == (4,)
    np.testing.assert_array_equal(second, [1.0, 2.0, 3.0, 4.0])


def test_progbar_shows_the_mean_of_an_array(capsys):
    # Oracle: Progbar(1, verbose=2).update(1, values=[("v", np.array([1.0, 4.0]))]) prints
    # "1/1 - 0s - ... - v: 2.5000" (np.mean of the array).
    bar = keras.utils.Progbar(1, verbose=2)
    bar.update(1, values=[("v", np.array([1.0, 4.0]))])
    assert "v: 2.5000" in capsys.readouterr().out


def test_resnet50v2_structure():
    # Oracle: ResNet50V2(weights=None) has 25,613,800 parameters and 192 layers; without the
    # top at 32x32, 23,564,800 and 190 layers, output (None, 1, 1, 2048), 270 weights.
    m = keras.applications.ResNet50V2(weights=None)
    assert (m.count_params(), len(m.layers), m.name) == (25613800, 192, "resnet50v2")
    m = keras.applications.ResNet50V2(weights=None, include_top=False, input_shape=(32, 32, 3))
    assert (m.count_params(), len(m.layers), m.output_shape) == (23564800, 190, (None, 1, 1, 2048))
    assert len(m.weights) == 270 and m.layers[-1].name == "post_relu"
    names = [layer.name for layer in m.layers[1:12]]
    assert names == [
        "conv1_pad", "conv1_conv", "pool1_pad", "pool1_pool", "conv2_block1_preact_bn",
        "conv2_block1_preact_relu", "conv2_block1_1_conv", "conv2_block1_1_bn",
        "conv2_block1_1_relu", "conv2_block1_2_pad", "conv2_block1_2_conv",
    ]  # fmt: skip
    # the identity shortcut of each stride-2 block is an unnamed 1x1 MaxPooling2D
    assert sum(type(layer).__name__ == "MaxPooling2D" for layer in m.layers) == 4


def test_resnet101v2_pooling_and_forward_values():
    # Oracle: ResNet101V2(include_top=False, input_shape=(32, 32, 3), pooling="max") has
    # 42,626,560 parameters, 378 layers, output (None, 2048), last layer "max_pool".
    m = keras.applications.ResNet101V2(
        weights=None, include_top=False, input_shape=(32, 32, 3), pooling="max"
    )
    assert (m.count_params(), len(m.layers), m.output_shape) == (42626560, 378, (None, 2048))
    assert m.layers[-1].name == "max_pool"


def test_resnet50v2_forward_matches_keras():
    # Weights are a closed form of their index (set in Keras's weight order); the oracle's
    # output for this input: y[:, 0] = 0.00280618, y[:, 1:4] = 0, y.sum(axis=1) = 32.14663.
    m = keras.applications.ResNet50V2(
        weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg"
    )
    ws = []
    for i, w in enumerate(m.weights):
        v = 0.05 * np.sin(np.arange(int(np.prod(w.shape))) * 0.37 + i)
        if "moving_variance" in w.name:
            v = 1.0 + np.abs(v)
        ws.append(v.reshape(tuple(w.shape)).astype("float32"))
    m.set_weights(ws)
    x = np.linspace(-1, 1, 2 * 32 * 32 * 3, dtype="float32").reshape(2, 32, 32, 3)
    y = np.asarray(m(x, training=False))
    np.testing.assert_allclose(y[:, 0], [0.00280618] * 2, rtol=1e-4)
    np.testing.assert_allclose(y.sum(axis=1), [32.14663] * 2, rtol=1e-4)


def test_resnet_v2_preprocess_input_is_tf_mode():
    out = keras.applications.resnet_v2.preprocess_input(np.array([[[[0.0, 127.5, 255.0]]]]))
    np.testing.assert_allclose(np.asarray(out), [[[[-1.0, 0.0, 1.0]]]])


@pytest.mark.parametrize(
    ("shape", "batch", "newshape", "expected"),
    [  # each expected shape is what the oracle's keras.ops.reshape gave on a keras.Input
        ((5,), None, (-1, 5, 5), (None, 5, 5)),
        ((4, 6), None, (-1, 3), (None, 3)),
        ((4, 6), None, (2, -1), (2, None)),
        ((4, 6), None, 24, (24,)),
        ((5, 8), 3, (-1, 4), (30, 4)),
        ((5, 8), 3, (-1,), (120,)),
    ],
)
def test_ops_reshape_on_keras_tensors(shape, batch, newshape, expected):
    x = keras.Input(shape, batch_size=batch)
    assert tuple(ops.reshape(x, newshape).shape) == expected


def test_ops_reshape_symbolic_errors_and_model_runs():
    w = keras.Input((5, 8), batch_size=3)
    with pytest.raises(ValueError, match="cannot by divided"):  # Keras's wording
        ops.reshape(w, (7, -1))
    x = keras.Input((5,))
    model = keras.Model(x, ops.reshape(x, (-1, 5, 5)))
    assert model(np.ones((10, 5), "float32")).shape == (2, 5, 5)  # oracle: (2, 5, 5)
