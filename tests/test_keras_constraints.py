"""`ek.keras.constraints`: Keras 3's formulas (values from TensorFlow 2.21), names, configs,
layers that take them, and training that keeps the weights inside them."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

C = ek.keras.constraints
layers = ek.keras.layers

M = np.array([[3.0, 0.5, -1.0], [4.0, -0.5, 2.0]], np.float32)

# tf.keras.constraints in TensorFlow 2.21 on M (columns are the slices for axis=0).
TF_VALUES = [
    (
        C.MaxNorm(2.0),
        [[1.2, 0.49999991, -0.8944272], [1.6, -0.49999991, 1.7888544]],
    ),
    (
        C.MaxNorm(1.0, axis=1),
        [[0.9370426, 0.15617377, -0.31234753], [0.8888889, -0.11111111, 0.44444445]],
    ),
    (
        C.UnitNorm(axis=1),
        [[0.9370425, 0.15617377, -0.31234753], [0.8888889, -0.11111111, 0.44444445]],
    ),
    (
        C.MinMaxNorm(1.0, 2.0, rate=0.5),
        [[2.1, 0.6035533, -0.9472135], [2.8, -0.6035533, 1.8944271]],
    ),
    (C.NonNeg(), [[3.0, 0.5, 0.0], [4.0, 0.0, 2.0]]),
]


@pytest.mark.parametrize("constraint, want", TF_VALUES, ids=lambda c: type(c).__name__)
def test_values_match_tensorflow(constraint, want):
    out = constraint(ek.constant(M))
    assert out.dtype == ek.float32
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-6, atol=1e-7)


def test_norms_over_several_axes_and_a_zero_weight():
    w = np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3) - 5  # a Conv2D kernel, 3 filters
    out = C.MaxNorm(3.0, axis=[0, 1, 2])(w).numpy()
    norms = np.sqrt((w**2).sum(axis=(0, 1, 2)))
    np.testing.assert_allclose(out, w * np.minimum(norms, 3.0) / (1e-7 + norms), rtol=1e-6)
    assert out[0, 1, 1, 2] == pytest.approx(2.4494896)  # TensorFlow 2.21
    np.testing.assert_array_equal(C.UnitNorm()(np.zeros((2, 2), np.float32)).numpy(), 0.0)


def test_names_configs_and_errors_follow_keras():
    for name, cls, config in [
        ("max_norm", C.MaxNorm, {"max_value": 2, "axis": 0}),
        ("MaxNorm", C.MaxNorm, {"max_value": 2, "axis": 0}),
        ("non_neg", C.NonNeg, {}),
        ("unit_norm", C.UnitNorm, {"axis": 0}),
        (
            "min_max_norm",
            C.MinMaxNorm,
            {"min_value": 0.0, "max_value": 1.0, "rate": 1.0, "axis": 0},
        ),
    ]:
        got = C.get(name)
        assert type(got) is cls and got.get_config() == config
    assert C.max_norm is C.MaxNorm and C.non_neg is C.NonNeg
    assert C.get(None) is None and isinstance(C.get(C.UnitNorm), C.UnitNorm)
    fn = lambda w: w
    assert C.get(fn) is fn
    again = C.deserialize(C.serialize(C.MaxNorm(3.0, axis=1)))
    assert type(again) is C.MaxNorm and again.get_config() == {"max_value": 3.0, "axis": 1}
    for bad in ("nonneg", "l2"):
        with pytest.raises(ValueError, match="Could not interpret constraint identifier"):
            C.get(bad)


@pytest.mark.parametrize(
    "make, keys",
    [
        (lambda: layers.Embedding(5, 2, embeddings_constraint="non_neg"), ["embeddings"]),
        (lambda: layers.BatchNormalization(beta_constraint="non_neg"), ["beta"]),
        (
            lambda: layers.LSTM(2, kernel_constraint="non_neg", recurrent_constraint="unit_norm"),
            ["kernel", "recurrent"],
        ),
        (lambda: layers.Conv2D(2, 1, kernel_constraint="non_neg"), ["kernel"]),
        (lambda: layers.DepthwiseConv2D(1, depthwise_constraint="non_neg"), ["depthwise"]),
        (lambda: layers.Dense(2, bias_constraint=C.MaxNorm(1.0)), ["bias"]),
    ],
    ids=["Embedding", "BatchNormalization", "LSTM", "Conv2D", "DepthwiseConv2D", "Dense"],
)
def test_layers_keep_their_constraints_in_the_config(make, keys):
    layer = make()
    config = layer.get_config()
    assert sorted(k for k in config if k.endswith("_constraint")) == [
        f"{k}_constraint" for k in keys
    ]
    clone = type(layer).from_config(config)
    for k in keys:
        restored = C.get(getattr(clone, f"{k}_constraint"))
        assert type(restored) is type(C.get(getattr(layer, f"{k}_constraint")))


def test_training_keeps_the_weights_inside_their_constraints():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = -3.0 * x.sum(1, keepdims=True).astype(np.float32)  # pulls the kernel negative
    dense = layers.Dense(1, kernel_constraint="non_neg", bias_constraint=C.MaxNorm(0.1))
    model = ek.keras.Sequential([ek.keras.Input((4,)), dense])
    model.compile(optimizer=ek.keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y + 5.0, epochs=3, batch_size=8, verbose=0)
    assert dense.kernel.numpy().min() >= 0.0
    assert abs(float(dense.bias.numpy()[0])) <= 0.1 + 1e-6
    assert isinstance(dense.kernel.constraint, C.NonNeg)  # the name became the object
