"""Keras layers, initializers, activations, and the TF 1.x `ek.layers` / `ek.Network` names."""

from __future__ import annotations

import math

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.compat import layers as compat_layers
from eagerkernel.runtime.keras import activations, initializers
from eagerkernel.runtime.keras import layers as L

rng = np.random.default_rng(0)


# -- Dense --------------------------------------------------------------------------------------


def test_dense_builds_lazily_with_keras_names_and_shapes():
    layer = L.Dense(4, name="fc")
    assert not layer.built and layer.variables == []
    y = layer(np.ones((2, 3)))
    assert layer.built and y.shape == (2, 4) and y.dtype == ek.float32
    assert [(v.name, tuple(v.shape), v.trainable) for v in layer.variables] == [
        ("fc/kernel:0", (3, 4), True),
        ("fc/bias:0", (4,), True),
    ]
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(4))  # zeros bias by default
    x = rng.standard_normal((5, 7, 3)).astype(np.float32)
    y3 = layer(x)  # rank 3: the kernel multiplies the last axis
    np.testing.assert_allclose(y3.numpy(), x @ layer.kernel.numpy(), rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape((None, 7, 3)) == (None, 7, 4)
    assert layer.count_params() == 16


def test_dense_options_and_gradients():
    layer = L.Dense(2, activation="relu", use_bias=False, kernel_initializer="ones")
    x = ek.constant([[1.0, -3.0], [2.0, 1.0]])
    np.testing.assert_array_equal(layer(x).numpy(), [[0, 0], [3, 3]])
    assert len(layer.variables) == 1
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(layer(x))
    (g,) = tape.gradient(loss, layer.trainable_variables)
    np.testing.assert_array_equal(g.numpy(), [[2, 2], [1, 1]])  # only the second row is active
    # integer inputs are cast to the layer's dtype, as in Keras
    assert L.Dense(1)(np.ones((1, 2), np.int32)).dtype == ek.float32


def test_dense_errors():
    with pytest.raises(ValueError, match="Received: units=-1"):
        L.Dense(-1)
    layer = L.Dense(3)
    layer(ek.ones((2, 4)))
    with pytest.raises(ValueError, match=r"expected axis -1.*value 4.*\(2, 4\).*\(2, 5\)"):
        layer(ek.ones((2, 5)))
    with pytest.raises(ValueError, match="min_ndim=2"):
        L.Dense(3)(ek.ones((4,)))
    with pytest.raises(TypeError, match="Unrecognized keyword arguments passed to Dense"):
        L.Dense(3, bogus=1)
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: 5"):
        L.Dense(3, activity_regularizer=5)


def test_dense_rank3_bias_and_gradients_against_numpy():
    layer = L.Dense(4, bias_initializer="glorot_uniform")
    x = rng.standard_normal((5, 7, 3)).astype(np.float32)
    with ek.GradientTape() as tape:
        y = layer(x)
        loss = ek.reduce_sum(y * y)
    k, b = layer.kernel.numpy(), layer.bias.numpy()
    assert np.abs(b).max() > 0
    want = x @ k + b
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)
    gk, gb = tape.gradient(loss, [layer.kernel, layer.bias])
    np.testing.assert_allclose(gk.numpy(), np.einsum("abi,abj->ij", x, 2 * want), rtol=1e-4)
    np.testing.assert_allclose(gb.numpy(), (2 * want).sum(axis=(0, 1)), rtol=1e-4)


def test_dense_weights_of_another_dtype_raise_the_matmul_error():
    layer = L.Dense(2)
    layer(ek.ones((1, 3)))
    layer.kernel = ek.Variable(np.ones((3, 2)))  # float64, while the layer computes in float32
    with pytest.raises(TypeError, match=r"matmul.*float32.*float64"):
        layer(ek.ones((1, 3)))
    layer.kernel = ek.Variable(np.ones((3, 2), np.float32))
    layer.bias = ek.Variable(np.ones(2))
    with pytest.raises(TypeError, match=r"bias_add.*float32.*float64"):
        layer(ek.ones((1, 3)))


def test_regularizer_losses_are_collected():
    layer = L.Dense(
        2, kernel_initializer="ones", kernel_regularizer=lambda w: 0.5 * ek.reduce_sum(w)
    )
    layer(ek.ones((1, 3)))
    assert [float(v) for v in layer.losses] == [3.0]


# -- Conv2D and pooling -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "in_shape"),
    [
        ({"filters": 8, "kernel_size": 3}, (2, 10, 9, 3)),
        ({"filters": 4, "kernel_size": (3, 2), "strides": 2, "padding": "same"}, (1, 9, 8, 2)),
        ({"filters": 4, "kernel_size": 5, "strides": (2, 3), "padding": "valid"}, (1, 12, 13, 1)),
        ({"filters": 2, "kernel_size": 3, "dilation_rate": 2, "padding": "same"}, (1, 7, 7, 2)),
        ({"filters": 2, "kernel_size": 3, "dilation_rate": (2, 1)}, (1, 9, 7, 2)),
    ],
)
def test_conv2d_output_shape_matches_compute_output_shape(kwargs, in_shape):
    layer = L.Conv2D(**kwargs)
    y = layer(ek.ones(in_shape))
    assert layer.compute_output_shape((None, *in_shape[1:])) == (None, *y.shape[1:])
    kh, kw = layer.kernel_size
    assert tuple(layer.kernel.shape) == (kh, kw, in_shape[3], kwargs["filters"])


def test_conv2d_layer_matches_the_op_plus_bias():
    layer = L.Conv2D(3, 3, padding="same", bias_initializer="ones", activation="relu", name="cv")
    x = rng.standard_normal((2, 5, 5, 2)).astype(np.float32)
    y = layer(x)
    expected = np.maximum(ek.nn.conv2d(x, layer.kernel, 1, "SAME").numpy() + 1, 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)
    assert [v.name for v in layer.trainable_variables] == ["cv/kernel:0", "cv/bias:0"]


def test_conv2d_errors_name_both_shapes():
    layer = L.Conv2D(4, 3, name="conv_err")
    layer(ek.ones((1, 6, 6, 3)))
    with pytest.raises(ValueError) as info:
        layer(ek.ones((1, 6, 6, 2)))
    msg = str(info.value)
    assert "conv_err" in msg and "(1, 6, 6, 3)" in msg and "(1, 6, 6, 2)" in msg
    with pytest.raises(ValueError, match=r"expected ndim=4, found ndim=3.*\(6, 6, 3\)"):
        L.Conv2D(4, 3)(ek.ones((6, 6, 3)))
    with pytest.raises(ValueError, match="dilation_rate > 1"):
        L.Conv2D(4, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="channels_first"):
        L.Conv2D(4, 3, data_format="channels_first")
    with pytest.raises(ValueError, match="Received: padding='full'"):
        L.Conv2D(4, 3, padding="full")
    with pytest.raises(ValueError, match="Received: kernel_size=0"):
        L.Conv2D(4, 0)
    with pytest.raises(ValueError, match="filters"):
        L.Conv2D(0, 3)


@pytest.mark.parametrize("cls", [L.MaxPooling2D, L.AveragePooling2D])
@pytest.mark.parametrize(
    ("kwargs", "in_shape"),
    [
        ({}, (2, 8, 8, 3)),
        ({"pool_size": 3, "strides": 2, "padding": "same"}, (1, 7, 6, 2)),
        ({"pool_size": (2, 3), "strides": 1}, (1, 5, 6, 1)),
        ({"pool_size": 2, "padding": "valid"}, (1, 7, 7, 1)),
    ],
)
def test_pool_layers(cls, kwargs, in_shape):
    layer = cls(**kwargs)
    y = layer(ek.ones(in_shape))
    assert layer.compute_output_shape((None, *in_shape[1:])) == (None, *y.shape[1:])
    np.testing.assert_allclose(y.numpy(), 1.0)  # SAME average pools count only real elements


def test_global_pooling_and_flatten_and_reshape():
    x = ek.constant(rng.standard_normal((2, 3, 4, 5)).astype(np.float32))
    gap = L.GlobalAveragePooling2D()
    np.testing.assert_allclose(gap(x).numpy(), x.numpy().mean(axis=(1, 2)), rtol=1e-6)
    assert gap.compute_output_shape((None, 3, 4, 5)) == (None, 5)
    assert L.GlobalAveragePooling2D(keepdims=True)(x).shape == (2, 1, 1, 5)
    np.testing.assert_allclose(L.GlobalMaxPooling2D()(x).numpy(), x.numpy().max(axis=(1, 2)))
    assert L.Flatten()(x).shape == (2, 60)
    assert L.Flatten().compute_output_shape((None, 3, 4, 5)) == (None, 60)
    assert L.Flatten()(ek.ones((3,))).shape == (3, 1)
    assert L.Reshape((4, -1))(x).shape == (2, 4, 15)
    assert L.Reshape((4, -1)).compute_output_shape((None, 3, 4, 5)) == (None, 4, 15)
    with pytest.raises(ValueError, match=r"input_shape = \(3, 4, 5\), output_shape = \(7, -1\)"):
        L.Reshape((7, -1))(x)
    with pytest.raises(ValueError, match="one -1"):
        L.Reshape((-1, -1))


# -- Dropout and BatchNormalization: the training flag -----------------------------------------


class Block(L.Layer):
    """A layer holding sublayers in a list and a dict (tracking) that forwards no flag."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.stack = [L.Dense(3, name="block_dense"), L.BatchNormalization(name="block_bn")]
        self.extra = {"drop": L.Dropout(0.5, seed=3)}

    def call(self, inputs):  # no `training` argument: it propagates from the caller
        return self.extra["drop"](self.stack[1](self.stack[0](inputs)))


def test_dropout_is_active_only_in_training():
    layer = L.Dropout(0.5)
    x = ek.ones((200,))
    np.testing.assert_array_equal(layer(x).numpy(), 1.0)
    np.testing.assert_array_equal(layer(x, training=False).numpy(), 1.0)
    y = layer(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 40 < (y == 0).sum() < 160
    assert layer.compute_output_shape((None, 5)) == (None, 5)
    with pytest.raises(ValueError, match="Received: rate=1"):
        L.Dropout(1)
    # noise_shape drops whole features
    y = L.Dropout(0.5, noise_shape=(1, 50))(ek.ones((4, 50)), training=True).numpy()
    assert (y == y[:1]).all()


def test_dropout_seeding_is_reproducible_and_varies_between_calls():
    def masks(seed):
        ek.keras.utils.set_random_seed(7)  # Keras's unseeded layers seed from Python's random
        layer = L.Dropout(0.5, seed=seed)
        return [layer(ek.ones((64,)), training=True).numpy() for _ in range(2)]

    a, b = masks(1), masks(1)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])
    c, d = masks(None), masks(None)  # global seed only
    np.testing.assert_array_equal(c[0], d[0])


def test_training_propagates_into_nested_dropout_and_batchnorm():
    block = Block()
    x = ek.constant(rng.standard_normal((16, 4)).astype(np.float32))
    block(x)  # inference: no update, no dropout
    bn = block.stack[1]
    np.testing.assert_array_equal(bn.moving_mean.numpy(), 0.0)
    y = block(x, training=True).numpy()
    assert (y == 0).any()  # the dropout inside saw training=True
    assert not np.allclose(bn.moving_mean.numpy(), 0.0)  # and so did the batch norm
    names = [v.name for v in block.variables]
    assert names == [  # built inside block's call: Keras 2 nests the scopes
        "block/block_dense/kernel:0",
        "block/block_dense/bias:0",
        "block/block_bn/gamma:0",
        "block/block_bn/beta:0",
        "block/block_bn/moving_mean:0",
        "block/block_bn/moving_variance:0",
    ]
    assert [v.name for v in block.non_trainable_variables] == names[4:]
    sub = [type(x).__name__ for x in block._flatten_layers(include_self=False)]
    assert sub == ["Dense", "BatchNormalization", "Dropout"]
    assert not hasattr(block, "layers")  # Keras 3: only models have `layers`


def test_batchnorm_statistics_and_updates():
    bn = L.BatchNormalization(momentum=0.9, epsilon=1e-3)
    x = rng.standard_normal((32, 5)).astype(np.float32) * 3 + 2
    y = bn(x, training=True).numpy()
    mean, var = x.mean(axis=0), x.var(axis=0)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    before = bn.moving_mean.numpy().copy()
    y_inf = bn(x).numpy()  # inference uses the moving statistics and updates nothing
    mm, mv = bn.moving_mean.numpy(), bn.moving_variance.numpy()
    np.testing.assert_allclose(y_inf, (x - mm) / np.sqrt(mv + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)
    bn.trainable = False  # Keras: a frozen batch norm runs in inference mode
    bn(x, training=True)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)
    assert bn.trainable_variables == [] and len(bn.non_trainable_variables) == 4


def test_batchnorm_gradients_and_axis():
    bn = L.BatchNormalization(axis=1)
    x = ek.constant(rng.standard_normal((4, 3, 2, 2)).astype(np.float32))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = bn(x, training=True)
        loss = ek.reduce_sum(y * ek.constant(rng.standard_normal((4, 3, 2, 2)).astype(np.float32)))
    gx, gamma, beta = tape.gradient(loss, [x, bn.gamma, bn.beta])
    assert gamma.shape == (3,) and beta.shape == (3,)
    # normalized outputs are invariant to a per-channel shift of the input
    np.testing.assert_allclose(gx.numpy().sum(axis=(0, 2, 3)), 0.0, atol=1e-4)
    np.testing.assert_allclose(y.numpy().mean(axis=(0, 2, 3)), 0.0, atol=1e-5)
    with pytest.raises(
        ValueError, match=r"expected axis 1.*value 3.*\(4, 3, 2, 2\).*\(4, 5, 2, 2\)"
    ):
        bn(ek.ones((4, 5, 2, 2)))


# -- Activation, ReLU, Embedding ---------------------------------------------------------------


def test_activation_and_relu_layers():
    x = ek.constant([-2.0, -0.5, 0.5, 3.0, 8.0])
    np.testing.assert_allclose(L.Activation("tanh")(x).numpy(), np.tanh(x.numpy()), rtol=1e-6)
    np.testing.assert_allclose(
        L.ReLU(max_value=6.0, negative_slope=0.1, threshold=1.0)(x).numpy(),
        [-0.3, -0.15, -0.05, 3.0, 6.0],
        rtol=1e-6,
    )
    np.testing.assert_array_equal(L.ReLU()(x).numpy(), [0, 0, 0.5, 3, 8])
    with pytest.raises(ValueError, match="max_value"):
        L.ReLU(max_value=-1)
    assert L.ReLU().compute_output_shape((None, 5)) == (None, 5)


@pytest.mark.parametrize(
    ("name", "ref"),
    [
        ("relu", lambda x: np.maximum(x, 0)),
        ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
        ("tanh", np.tanh),
        ("softmax", lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
        ("log_softmax", lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
        ("linear", lambda x: x),
        ("elu", lambda x: np.where(x > 0, x, np.expm1(x))),
        (
            "selu",
            lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
        ),
        ("softplus", lambda x: np.log1p(np.exp(x))),
        ("leaky_relu", lambda x: np.where(x > 0, x, 0.2 * x)),
        ("gelu", lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))),
        ("swish", lambda x: x / (1 + np.exp(-x))),
        ("silu", lambda x: x / (1 + np.exp(-x))),
    ],
)
def test_activations_by_name(name, ref):
    x = rng.standard_normal((3, 4))
    np.testing.assert_allclose(activations.get(name)(ek.constant(x)).numpy(), ref(x), rtol=1e-6)


def test_activations_get():
    assert activations.get(None) is activations.linear
    assert activations.get(ek.nn.relu) is ek.nn.relu
    with pytest.raises(ValueError, match="Unknown activation"):
        activations.get("bogus")
    np.testing.assert_allclose(
        activations.elu(ek.constant([-1.0]), alpha=2.0).numpy(), [2 * np.expm1(-1)]
    )


def test_embedding_lookup_gradient_and_errors():
    emb = L.Embedding(6, 3, name="emb")
    ids = np.array([[1, 2, 1]])
    y = emb(ids)
    assert y.shape == (1, 3, 3)
    np.testing.assert_array_equal(y.numpy()[0, 0], emb.embeddings.numpy()[1])
    assert abs(emb.embeddings.numpy()).max() <= 0.05  # "uniform" is [-0.05, 0.05)
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(emb(ids))
    g = tape.gradient(loss, emb.embeddings)
    np.testing.assert_array_equal(ek.convert_to_tensor(g).numpy()[:, 0], [0, 2, 1, 0, 0, 0])
    assert emb(np.array([1.0, 2.0])).shape == (2, 3)  # float ids are cast
    assert emb.compute_output_shape((None, 7)) == (None, 7, 3)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"index 6 is out of range \[0, 6\)"):
        emb(np.array([6]))
    with pytest.raises(ValueError, match="positive"):
        L.Embedding(0, 3)
    np.testing.assert_array_equal(
        L.Embedding(3, 2, mask_zero=True).compute_mask(ek.constant([0, 2])).numpy(), [False, True]
    )


# -- base-class behaviour the layers rely on ----------------------------------------------------


def test_trainable_false_moves_weights_to_non_trainable():
    layer = L.Dense(2)
    layer(ek.ones((1, 3)))
    layer.trainable = False
    assert layer.trainable_variables == [] and len(layer.non_trainable_variables) == 2
    assert layer.kernel.trainable  # as in Keras, the Variable itself keeps its flag
    layer.trainable = True
    assert len(layer.trainable_variables) == 2


def test_set_and_get_weights_roundtrip():
    a, b = L.Conv2D(2, 3), L.Conv2D(2, 3)
    x = ek.constant(rng.standard_normal((1, 5, 5, 1)).astype(np.float32))
    a(x), b(x)
    b.set_weights(a.get_weights())
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def test_a_small_cnn_learns():
    ek.random.set_seed(1)
    x = ek.random.normal((32, 8, 8, 1))
    labels = ek.cast(ek.reduce_mean(x, axis=[1, 2, 3]) > 0, ek.int32)
    model = [
        L.Conv2D(4, 3, padding="same", activation="relu"),
        L.MaxPooling2D(),
        L.BatchNormalization(momentum=0.5),  # moving statistics that catch up within the test
        L.Flatten(),
        L.Dropout(0.1),
        L.Dense(2),
    ]

    def forward(training):
        h = x
        for layer in model:
            h = (
                layer(h, training=training)
                if isinstance(layer, (L.Dropout, L.BatchNormalization))
                else layer(h)
            )
        return ek.reduce_mean(
            ek.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=h)
        )

    first = float(forward(False))
    for _ in range(40):
        with ek.GradientTape() as tape:
            loss = forward(True)
        vars_ = [v for layer in model for v in layer.trainable_variables]
        for v, g in zip(vars_, tape.gradient(loss, vars_)):
            v.assign_sub(0.1 * g)
    assert float(forward(False)) < 0.2 * first


# -- initializers -------------------------------------------------------------------------------


def test_glorot_uniform_bounds_and_variance():
    w = initializers.get("glorot_uniform")((200, 300)).numpy()
    limit = math.sqrt(6 / 500)
    assert w.dtype == np.float32 and abs(w).max() <= limit
    assert abs(w.std() - limit / math.sqrt(3)) < 0.02 * limit


@pytest.mark.parametrize(
    ("name", "shape", "variance"),
    [
        ("he_normal", (400, 300), 2 / 400),
        ("he_normal", (5, 5, 16, 32), 2 / (25 * 16)),  # conv fans: receptive field * channels
        ("glorot_normal", (5, 5, 16, 32), 2 / (25 * 16 + 25 * 32)),
        ("lecun_normal", (300, 100), 1 / 300),
        ("he_uniform", (300, 100), 2 / 300),
    ],
)
def test_variance_scaling_statistics(name, shape, variance):
    ek.random.set_seed(0)
    w = initializers.get(name)(shape).numpy()
    assert abs(w.var() / variance - 1) < 0.06
    if "normal" in name:  # truncated at two (untruncated) standard deviations
        assert abs(w).max() <= 2 * math.sqrt(variance) / 0.87962566103423978 + 1e-6


def test_simple_initializers():
    assert initializers.Zeros()((2, 3)).shape == (2, 3)
    np.testing.assert_array_equal(initializers.get("ones")((2,), dtype=ek.float64).numpy(), [1, 1])
    assert initializers.get("ones")((2,), dtype=ek.float64).dtype == ek.float64
    np.testing.assert_array_equal(initializers.Constant([1, 2])((2, 2)).numpy(), [[1, 2], [1, 2]])
    ek.random.set_seed(0)
    w = initializers.get("random_normal")((100, 100)).numpy()
    assert abs(w.mean()) < 0.005 and abs(w.std() - 0.05) < 0.002
    u = initializers.RandomUniform(2, 5)((1000,)).numpy()
    assert u.min() >= 2 and u.max() < 5
    t = initializers.TruncatedNormal(mean=1.0, stddev=0.1)((1000,)).numpy()
    assert abs(t - 1).max() <= 0.2
    o = initializers.Orthogonal()((6, 3)).numpy()
    np.testing.assert_allclose(o.T @ o, np.eye(3), atol=1e-5)
    with pytest.raises(ValueError, match="does not broadcast"):
        initializers.Constant([1, 2, 3])((2, 2))
    with pytest.raises(TypeError, match="floating"):
        initializers.GlorotUniform()((2, 2), dtype="int32")


def test_initializer_seeding():
    # unseeded initializers draw their seed from Python's random (Keras 3), which
    # keras.utils.set_random_seed seeds
    ek.keras.utils.set_random_seed(42)
    a = L.Dense(5)
    a(ek.ones((1, 4)))
    ek.keras.utils.set_random_seed(42)
    b = L.Dense(5)
    b(ek.ones((1, 4)))
    np.testing.assert_array_equal(a.kernel.numpy(), b.kernel.numpy())
    c = L.Dense(5)
    c(ek.ones((1, 4)))
    assert not np.array_equal(a.kernel.numpy(), c.kernel.numpy())
    seeded = initializers.HeNormal(seed=3)
    np.testing.assert_array_equal(seeded((3, 3)).numpy(), seeded((3, 3)).numpy())


def test_initializers_get_accepts_names_classes_instances_callables_and_configs():
    assert isinstance(initializers.get("he_normal"), initializers.HeNormal)
    assert isinstance(initializers.get("GlorotUniform"), initializers.GlorotUniform)
    assert isinstance(initializers.get(initializers.Zeros), initializers.Zeros)
    inst = initializers.RandomNormal(stddev=2.0)
    assert initializers.get(inst) is inst
    fn = lambda shape, dtype=None: np.full(shape, 7.0, np.float32)
    assert initializers.get(fn) is fn
    cfg = initializers.serialize(initializers.VarianceScaling(2.0, "fan_out", "uniform"))
    again = initializers.get(cfg)
    assert isinstance(again, initializers.VarianceScaling) and again.mode == "fan_out"
    with pytest.raises(ValueError, match="Unknown initializer"):
        initializers.get("bogus")
    layer = L.Dense(2, kernel_initializer=fn)
    layer(ek.ones((1, 2)))
    np.testing.assert_array_equal(layer.kernel.numpy(), 7.0)


# -- TF 1.x names -------------------------------------------------------------------------------


def test_tf1_layers_and_network():
    tl = compat_layers
    assert tl.Dense is L.Dense and tl.Conv2D is L.Conv2D and tl.MaxPooling2D is L.MaxPooling2D
    assert tl.Dropout().rate == 0.5 and isinstance(tl.Dropout(), L.Dropout)
    assert tl.flatten(ek.ones((2, 3, 4))).shape == (2, 12)
    assert tl.max_pooling2d(ek.ones((1, 4, 4, 1)), (2, 2), (2, 2)).shape == (1, 2, 2, 1)
    np.testing.assert_array_equal(tl.dropout(ek.ones((3,)), 0.5).numpy(), 1.0)

    class MNISTModel(tl.Network):
        def __init__(self):
            super().__init__(name="mnist")
            self.conv = self.track_layer(tl.Conv2D(4, 3, padding="same", name="net_conv"))
            self.pool = self.track_layer(tl.MaxPooling2D((2, 2), (2, 2), padding="same"))
            self.fc = self.track_layer(tl.Dense(3, name="net_fc"))

        def call(self, x):
            return self.fc(tl.flatten(self.pool(self.conv(x))))

    net = MNISTModel()
    assert net(ek.ones((2, 6, 6, 1))).shape == (2, 3)
    assert [v.name for v in net.variables] == [  # built in the network's call: its scope
        "mnist/net_conv/kernel:0",
        "mnist/net_conv/bias:0",
        "mnist/net_fc/kernel:0",
        "mnist/net_fc/bias:0",
    ]
    assert net.get_layer("net_fc") is net.fc and net.get_layer(index=0) is net.conv
    with pytest.raises(TypeError, match="expected a Layer"):
        net.track_layer("not a layer")
    with pytest.raises(ValueError, match="no layer named"):
        net.get_layer("nope")


def test_keras_relu_options_as_tensorflow_2_21_computes_them():
    # tf.keras.activations.relu(x, max_value=6.0, threshold=0.5) is [0, 2, 6] with a +0 (not
    # -0) below the threshold; Keras 3 names the slope negative_slope, Keras 2 alpha.
    relu = ek.keras.activations.relu
    out = relu(ek.constant([-1.0, 2.0, 8.0]), max_value=6.0, threshold=0.5).numpy()
    np.testing.assert_array_equal(out, [0.0, 2.0, 6.0])
    assert not np.signbit(out[0])
    np.testing.assert_allclose(
        relu(ek.constant([-1.0, 2.0]), negative_slope=0.1).numpy(), [-0.1, 2]
    )
    np.testing.assert_allclose(relu(ek.constant([-1.0, 2.0]), alpha=0.1).numpy(), [-0.1, 2])
    with pytest.raises(
        TypeError, match=r"alpha \(Keras 2\) or negative_slope \(Keras 3\), not both"
    ):
        relu(ek.constant([1.0]), alpha=0.1, negative_slope=0.2)
    x = ek.constant([-1.0, 2.0, 0.7])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(relu(x, threshold=0.5))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 1.0, 1.0])
