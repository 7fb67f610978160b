"""Keras masks carried on tensors (`_keras_mask`), as Keras 3 carries them: eager calls,
functional graphs, Sequential, layers with several masked arguments. The expected values were
checked against Keras 3.15 on TensorFlow 2.21 (its guide "Understanding masking and padding")."""

import numpy as np
import pytest
from eagerkernel.keras import layers

import eagerkernel as ek
from eagerkernel import keras

IDS = np.array([[3, 5, 2, 0, 0], [0, 0, 4, 1, 6]])
KEEP = IDS != 0


def test_an_embedding_attaches_its_mask_and_supporting_layers_pass_it_on():
    y = layers.Embedding(8, 4, mask_zero=True)(IDS)
    np.testing.assert_array_equal(y._keras_mask.numpy(), KEEP)
    assert y._keras_mask.dtype == ek.bool
    d = layers.Dense(3)(y)  # supports_masking: the same mask
    np.testing.assert_array_equal(d._keras_mask.numpy(), KEEP)
    # TimeDistributed passes it on too (tf_keras 2; documented where Keras 3 differs).
    td = layers.TimeDistributed(layers.Dense(2))(y)
    np.testing.assert_array_equal(td._keras_mask.numpy(), KEEP)
    # A layer that does not support masking drops it; an op's output never has one.
    with pytest.warns(UserWarning, match="'reshape.*' .* does not support masking"):
        assert getattr(layers.Reshape((5, 4))(y), "_keras_mask", None) is None
    assert not hasattr(ek.identity(y), "_keras_mask")
    with pytest.raises(AttributeError, match="_keras_mask"):
        _ = ek.ones((2,))._keras_mask
    # Without mask_zero, no mask (and the layer does not support masking, as in Keras 3).
    plain = layers.Embedding(8, 4)
    assert not plain.supports_masking
    assert getattr(plain(IDS), "_keras_mask", None) is None


def test_masking_layer_mask_is_the_steps_not_all_equal_to_mask_value():
    x = np.ones((2, 3, 2), np.float32)
    x[0, 1] = 0.0
    x[1, 2, 0] = 0.0  # one feature only: the step is kept
    y = layers.Masking(0.0)(x)
    np.testing.assert_array_equal(y._keras_mask.numpy(), [[True, False, True], [True, True, True]])
    np.testing.assert_array_equal(y.numpy(), x)


def test_supports_masking_defaults_to_overriding_compute_mask():
    class Split(layers.Layer):
        def call(self, inputs):
            return ek.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            return None if mask is None else ek.split(mask, 2, axis=1)

    class Plain(layers.Layer):
        pass

    assert Split().supports_masking and not Plain().supports_masking
    layer = Plain()
    layer.supports_masking = True
    assert layer.supports_masking
    ids = np.array([[3, 5, 2, 0, 0, 0], [0, 0, 4, 1, 6, 1]])
    first, second = Split()(layers.Embedding(8, 4, mask_zero=True)(ids))
    np.testing.assert_array_equal(first._keras_mask.numpy(), [[1, 1, 1], [0, 0, 1]])
    np.testing.assert_array_equal(second._keras_mask.numpy(), [[0, 0, 0], [1, 1, 1]])
    # A layer that supports masking by the flag passes its input's mask on.
    out = layer(layers.Embedding(8, 4, mask_zero=True)(IDS))
    np.testing.assert_array_equal(out._keras_mask.numpy(), KEEP)


class MaskedMean(layers.Layer):
    """The mean over the unmasked steps; its call requires a mask. Its output has none (a
    layer that only consumes a mask says so with compute_mask, or Keras 3 warns)."""

    def call(self, inputs, mask=None):
        assert mask is not None
        w = ek.cast(mask, inputs.dtype)[..., None]
        return ek.reduce_sum(inputs * w, axis=1) / ek.reduce_sum(w, axis=1)

    def compute_mask(self, inputs, mask=None):
        return None


def test_a_layer_called_directly_gets_the_mask_its_input_carries():
    emb = layers.Embedding(8, 4, mask_zero=True)
    y = emb(IDS)
    expected = [y.numpy()[i][KEEP[i]].mean(0) for i in range(2)]
    np.testing.assert_allclose(MaskedMean()(y).numpy(), expected, rtol=1e-6)
    # An explicit mask wins over the attached one.
    every = np.ones_like(KEEP)
    np.testing.assert_allclose(MaskedMean()(y, mask=every).numpy(), y.numpy().mean(1), rtol=1e-6)


def test_functional_graph_masks_are_keras_tensors_and_reach_the_call():
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(8, 4, mask_zero=True)(inputs)
    assert tuple(x._keras_mask.shape) == (None, None)
    assert x._keras_mask.dtype == ek.bool
    x = layers.Dense(4)(x)
    assert tuple(x._keras_mask.shape) == (None, None)
    # MaskedMean asserts a mask: the shape inference ran it with a stand-in one.
    outputs = MaskedMean()(x)
    assert getattr(outputs, "_keras_mask", None) is None  # does not support masking
    model = keras.Model(inputs, outputs)
    got = model(IDS).numpy()
    emb, dense = model.layers[1], model.layers[2]
    h = dense(emb(IDS)).numpy()
    np.testing.assert_allclose(got, [h[i][KEEP[i]].mean(0) for i in range(2)], rtol=1e-5)


def test_recurrent_layers_in_a_sequential_skip_the_masked_steps():
    model = keras.Sequential(
        [layers.Embedding(8, 4, mask_zero=True), layers.LSTM(3, return_sequences=True)]
    )
    steps = model(IDS).numpy()
    np.testing.assert_array_equal(steps[0, 3], steps[0, 2])  # masked: the previous output
    np.testing.assert_array_equal(steps[1, 0], np.zeros(3))
    # A mask given to the model is attached to its input and used likewise.
    dense = keras.Sequential([layers.Dense(4), layers.LSTM(3, return_sequences=True)])
    x = np.random.default_rng(0).normal(size=(2, 5, 4)).astype(np.float32)
    with pytest.warns(UserWarning, match="'sequential.*' .* does not support masking"):
        masked = dense(x, mask=KEEP).numpy()  # the model's own output drops it, as Keras 3
    np.testing.assert_array_equal(masked[0, 4], masked[0, 2])
    assert not np.allclose(dense(x).numpy()[0, 4], masked[0, 2])


def test_multi_head_attention_takes_query_and_value_masks_from_its_arguments():
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=2)
    q = layers.Embedding(8, 4, mask_zero=True)(IDS)
    auto = mha(q, q).numpy()
    plain = ek.identity(q)  # the same values, no mask
    explicit = mha(plain, plain, query_mask=KEEP, value_mask=KEEP).numpy()
    np.testing.assert_allclose(auto, explicit, rtol=1e-6, atol=1e-7)
    assert not np.allclose(mha(plain, plain).numpy(), auto)


def test_pooling_and_merging_layers_use_and_combine_masks_as_keras_3():
    y = layers.Embedding(8, 4, mask_zero=True, embeddings_initializer="ones")(IDS)
    steps = y * ek.range(1.0, 6.0)[None, :, None]  # step t holds t; an op: no mask attached
    np.testing.assert_allclose(layers.GlobalAveragePooling1D()(steps).numpy(), 3.0)
    # The mean over the kept steps: row 0 keeps steps 1, 2, 3; row 1 steps 3, 4, 5.
    masked = layers.GlobalAveragePooling1D()(steps, mask=y._keras_mask).numpy()
    np.testing.assert_allclose(masked, [[2.0] * 4, [4.0] * 4])
    assert getattr(layers.GlobalAveragePooling1D()(y), "_keras_mask", None) is None
    other = layers.Embedding(8, 4, mask_zero=True)(np.array([[1, 0, 0, 0, 0], [1, 1, 1, 1, 0]]))
    added = layers.Add()([y, other])
    np.testing.assert_array_equal(added._keras_mask.numpy(), KEEP | [[1, 0, 0, 0, 0], [1] * 5])
    joined = layers.Concatenate(axis=1)([y, other])
    np.testing.assert_array_equal(
        joined._keras_mask.numpy(),
        np.concatenate([KEEP, [[1, 0, 0, 0, 0], [1, 1, 1, 1, 0]]], axis=1),
    )
    # An input without a mask counts as all kept.
    features = layers.Concatenate()([y, ek.ones((2, 5, 3))])
    np.testing.assert_array_equal(features._keras_mask.numpy(), np.ones((2, 5), bool))
    with pytest.raises(ValueError, match="should be a list as long as"):
        layers.Add().compute_mask([y, other], mask=KEEP)


def test_a_layer_without_mask_support_warns_that_it_drops_the_mask():
    y = layers.Embedding(8, 4, mask_zero=True)(IDS)
    with pytest.warns(UserWarning, match="'flatten.*' .* does not support masking"):  # Keras 3
        out = layers.Flatten()(y)
    assert getattr(out, "_keras_mask", None) is None


def test_softmax_rejects_a_mask_it_cannot_broadcast():
    y = layers.Embedding(8, 4, mask_zero=True)(IDS)
    with pytest.raises(ValueError, match=r"`mask` must be broadcastable .* mask.shape=\(2, 5\)"):
        layers.Softmax()(y)
    probs = layers.Softmax(axis=1)(ek.zeros((2, 5)), mask=KEEP).numpy()
    np.testing.assert_allclose(probs, KEEP / KEEP.sum(1, keepdims=True), rtol=1e-6)


def test_masking_compares_integer_inputs_as_floats():
    ids = np.array([[[1], [0], [2]]])
    masked = layers.Masking(0.0)(ids)
    np.testing.assert_array_equal(masked._keras_mask.numpy(), [[True, False, True]])
    np.testing.assert_array_equal(masked.numpy(), ids)


def test_keras_variable_from_an_initializer_or_a_value():
    v = keras.Variable("ones", shape=(2, 3), name="w")
    np.testing.assert_array_equal(v.numpy(), np.ones((2, 3), np.float32))
    assert v.name == "w:0" and v.trainable
    assert isinstance(v, keras.Variable) and isinstance(v, ek.Variable)
    seeded = keras.Variable(keras.initializers.GlorotUniform(seed=3), shape=(4, 4))
    np.testing.assert_array_equal(
        seeded.numpy(), keras.initializers.GlorotUniform(seed=3)((4, 4)).numpy()
    )
    assert keras.Variable(np.zeros(3)).dtype == ek.float64  # the value's dtype, as Keras 3
    assert not keras.Variable(2.0, trainable=False).trainable
    dense = layers.Dense(2)
    dense(np.ones((1, 3), np.float32))
    assert isinstance(dense.kernel, keras.Variable)  # layer weights are Keras variables
    assert not isinstance(np.ones(2), keras.Variable)
    with pytest.raises(ValueError, match="the `shape` argument should be specified"):
        keras.Variable("zeros")
    with pytest.raises(ValueError, match="cannot contain character `/`"):
        keras.Variable(1.0, name="a/b")
    with pytest.raises(ValueError, match="invalid `aggregation`"):
        keras.Variable(1.0, aggregation="bogus")
    # aggregation and synchronization reach the variable creators (a strategy's, under one).
    seen = {}

    def creator(next_creator, **kwargs):
        seen.update(kwargs)
        return next_creator(**kwargs)

    with ek.variable_creator_scope(creator):
        keras.Variable(0.0, aggregation="sum", synchronization="on_read")
    assert seen["aggregation"] is ek.VariableAggregation.SUM
    assert seen["synchronization"] is ek.VariableSynchronization.ON_READ
    with pytest.raises(NotImplementedError, match="autocast=False"):
        keras.Variable(1.0, autocast=False)
    with pytest.raises(ValueError, match="shape"):
        keras.Variable([1.0, 2.0], shape=(3,))


def test_input_rejects_a_shape_that_is_not_sizes():
    with pytest.raises(ValueError, match="Input: cannot convert 'a' to a shape"):
        keras.Input(shape="a")
    with pytest.raises(ValueError, match=r"sizes are integers or None"):
        keras.Input(shape=(2, 2.5))
    assert tuple(keras.Input(shape=ek.ones((2, 3, 4)).shape.dims[1:]).shape) == (None, 3, 4)


def test_batch_normalization_statistics_over_the_kept_steps_as_keras_3():
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3) ** 1.5
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 0]], bool)
    bn = layers.BatchNormalization(momentum=0.5, epsilon=1e-3)
    y = bn(x, training=True, mask=mask).numpy()
    kept = x[mask]  # (5, 3): the steps the mask keeps
    mean, var = kept.mean(0), kept.var(0)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.5 + 0.5 * var, rtol=1e-5)
    # The mask an Embedding attached reaches it without mask=.
    emb = layers.Embedding(8, 3, mask_zero=True)
    h = emb(IDS)
    bn2 = layers.BatchNormalization(momentum=0.0)
    bn2(h, training=True)
    np.testing.assert_allclose(bn2.moving_mean.numpy(), h.numpy()[KEEP].mean(0), rtol=1e-4)


def test_a_mask_given_by_position_is_the_one_used():
    y = layers.Embedding(8, 4, mask_zero=True)(IDS)
    every = np.ones_like(KEEP)
    # Not given a second time by keyword (a TypeError for "multiple values").
    np.testing.assert_allclose(MaskedMean()(y, every).numpy(), y.numpy().mean(1), rtol=1e-6)


@pytest.mark.parametrize("cell", ["SimpleRNNCell", "GRUCell", "LSTMCell"])
def test_a_models_mask_reaches_an_rnn_of_a_cell(cell):
    # RNN(cell) after Embedding(mask_zero=True): masked steps carry the last state over, as
    # the layer forms (SimpleRNN, GRU, LSTM) do. Keras 3 gives for the SimpleRNNCell case
    # [0.964, 0.99469, 0.99469, 0.99469].
    layers = ek.keras.layers
    kw = {"kernel_initializer": "ones", "recurrent_initializer": "ones"}
    inp = ek.keras.Input((None,), dtype="int32")
    x = layers.Embedding(10, 2, mask_zero=True, embeddings_initializer="ones")(inp)
    out = layers.RNN(getattr(layers, cell)(1, **kw), return_sequences=True)(x)
    model = ek.keras.Model(inp, out)
    y = model(np.array([[5, 3, 0, 0]])).numpy().ravel()
    assert y[1] != y[0] and y[3] == y[2] == y[1]
    if cell == "SimpleRNNCell":
        h1 = np.tanh(2.0)
        np.testing.assert_allclose(y, [h1] + [np.tanh(2.0 + h1)] * 3, rtol=1e-6)
