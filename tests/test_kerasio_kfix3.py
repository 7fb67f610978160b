"""keras-io divergences fixed by kfix3: ``layer.output`` of a shared layer, the
SparseCategoricalCrossentropy metric's ``ignore_class`` with sample weights, the default name
of an unnamed ``add_weight``, and Keras 3's ``"shapes_dict"`` build config.

Expected values were computed with TensorFlow 2.21 / Keras 3.15 (the oracle) unless a closed
form is given."""

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras
layers = keras.layers


def test_shared_layer_output_and_input_are_the_first_calls():
    # Keras 3's Operation.output/input: the first inbound node's, however many calls
    shared = layers.Dense(2)
    a, b = keras.Input(shape=(2,)), keras.Input(shape=(2,))
    out_a, out_b = shared(a), shared(b)
    assert shared.output is out_a and shared.input is a
    assert shared.get_output_at(1) is out_b and shared.get_input_at(1) is b
    # a feature-extraction model over every layer's output (movielens example's pattern)
    lookup = layers.Dense(3, name="shared3")
    x1, x2 = keras.Input((4,)), keras.Input((4,))
    model = keras.Model([x1, x2], layers.Add()([lookup(x1), lookup(x2)]))
    sub = keras.Model(model.inputs, [layer.output for layer in model.layers[2:]])
    v1, v2 = np.ones((1, 4), "float32"), np.full((1, 4), 2.0, "float32")
    first, total = sub([v1, v2])
    np.testing.assert_allclose(first.numpy(), lookup(v1).numpy(), rtol=1e-6)
    np.testing.assert_allclose(total.numpy(), model([v1, v2]).numpy(), rtol=1e-6)


LOGITS = [[0.1, -0.3], [1.5, 1.6], [-0.6, 0.7], [1.4, 2.0]]


def test_sparse_ce_metric_ignore_class_weighs_ignored_zero_only_with_weights():
    m = keras.metrics.SparseCategoricalCrossentropy(from_logits=True, ignore_class=1)
    m.update_state([0, 1, 0, 1], LOGITS, sample_weight=[1.0, 2.0, 3.0, 4.0])
    # oracle: 1.2840100526809692 = (1 * l0 + 3 * l2) / (1 + 3)
    l0, l2 = np.log1p(np.exp(-0.4)), np.log1p(np.exp(1.3))
    np.testing.assert_allclose(float(m.result()), (l0 + 3 * l2) / 4, rtol=1e-5)
    np.testing.assert_allclose(float(m.result()), 1.2840100526809692, rtol=1e-5)
    m2 = keras.metrics.SparseCategoricalCrossentropy(from_logits=True, ignore_class=1)
    m2.update_state([0, 1, 0, 1], LOGITS)  # unweighted: the ignored still count (oracle)
    np.testing.assert_allclose(float(m2.result()), 0.5135059356689453, rtol=1e-5)
    m3 = keras.metrics.SparseCategoricalCrossentropy(from_logits=True, ignore_class=1)
    m3.update_state([[0], [1], [0], [1]], LOGITS, sample_weight=[[1.0], [2.0], [3.0], [4.0]])
    np.testing.assert_allclose(float(m3.result()), 1.2840100526809692, rtol=1e-5)
    m4 = keras.metrics.SparseCategoricalCrossentropy(from_logits=True)  # no ignore_class
    m4.update_state([0, 1, 0, 1], LOGITS, sample_weight=[1.0, 2.0, 3.0, 4.0])
    losses = keras.losses.sparse_categorical_crossentropy([0, 1, 0, 1], LOGITS, True).numpy()
    np.testing.assert_allclose(float(m4.result()), losses @ [1, 2, 3, 4] / 10, rtol=1e-5)
    assert isinstance(keras.metrics.get("sparse_categorical_crossentropy"), type(m))
    assert m.get_config()["ignore_class"] == 1


def test_unnamed_add_weight_is_named_variable_as_keras_3():
    class Two(layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight(shape=(2,))
            self.b = self.add_weight(shape=(3,))
            self.c = self.add_weight(shape=(1,), name="k")

        def call(self, x):
            return x

    keras.backend.clear_session()
    layer = Two(name="two")
    layer(np.ones((1, 2), "float32"))
    # oracle (fresh session): ['two/variable', 'two/variable_1', 'two/k']
    assert [w.path for w in layer.weights] == ["two/variable", "two/variable_1", "two/k"]


def test_unnamed_weights_still_restore_from_checkpoints(tmp_path):
    class Two(layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight(shape=(2,), initializer="ones")
            self.b = self.add_weight(shape=(2,), initializer="ones")

        def call(self, x):
            return x * self.a + self.b

    first = Two()
    first(np.ones((1, 2), "float32"))
    first.a.assign([2.0, 3.0])
    first.b.assign([4.0, 5.0])
    prefix = ek.train.Checkpoint(layer=first).save(str(tmp_path / "ck"))
    second = Two()
    second(np.ones((1, 2), "float32"))  # other global names (variable_2, ...), same keys
    ek.train.Checkpoint(layer=second).restore(prefix).assert_existing_objects_matched()
    np.testing.assert_array_equal(second.a.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(second.b.numpy(), [4.0, 5.0])


class PairSum(layers.Layer):
    """A layer whose build takes two shapes by name (Keras 3 records a shapes_dict)."""

    def build(self, a_shape, b_shape):
        self.w = self.add_weight(shape=(a_shape[-1], b_shape[-1]), name="w")

    def call(self, a, b):
        return ek.matmul(a, self.w) + b


def test_build_config_records_shapes_dict_as_keras_3():
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    mha(np.ones((2, 4, 5), "float32"), np.ones((2, 6, 7), "float32"))
    # oracle: {'shapes_dict': {'query_shape': (2, 4, 5), 'value_shape': (2, 6, 7)}}
    assert mha.get_build_config() == {
        "shapes_dict": {"query_shape": (2, 4, 5), "value_shape": (2, 6, 7)}
    }
    gqa = layers.GroupedQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2)
    q, v = keras.Input((3, 8)), keras.Input((5, 8))
    gqa(q, v)  # oracle (GroupQueryAttention): only the shapes passed, no key_shape
    assert gqa.get_build_config() == {
        "shapes_dict": {"query_shape": (None, 3, 8), "value_shape": (None, 5, 8)}
    }
    mha3 = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    mha3(q, v, v)  # a key passed: recorded (oracle)
    assert mha3.get_build_config()["shapes_dict"]["key_shape"] == (None, 5, 8)
    pair = PairSum()
    pair(np.ones((2, 3), "float32"), np.ones((2, 4), "float32"))  # eager first call
    assert pair.get_build_config() == {"shapes_dict": {"a_shape": (2, 3), "b_shape": (2, 4)}}
    again = PairSum()
    again.build_from_config({"shapes_dict": {"a_shape": [2, 3], "b_shape": [2, 4]}})
    assert again.built and tuple(again.w.shape) == (3, 4)
    assert again.get_build_config() == pair.get_build_config()

    class DictIn(layers.Layer):  # one build parameter, dict input: still "input_shape"
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape["x"][-1], 1), name="w")

        def call(self, inputs):
            return ek.matmul(inputs["x"], self.w)

    d = DictIn()
    d({"x": np.ones((2, 3), "float32"), "y": np.ones((2, 5), "float32")})
    assert d.get_build_config() == {"input_shape": {"x": (2, 3), "y": (2, 5)}}


def test_build_from_config_reads_shapes_dict_and_the_old_input_shape_form():
    new = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    new.build_from_config({"shapes_dict": {"query_shape": [2, 4, 5], "value_shape": [2, 6, 7]}})
    assert [tuple(w.shape) for w in new.weights][:3] == [(5, 2, 3), (2, 3), (7, 2, 3)]
    old = layers.MultiHeadAttention(num_heads=2, key_dim=3)  # files written before
    old.build_from_config(
        {"input_shape": {"query_shape": [2, 4, 5], "value_shape": [2, 6, 7], "key_shape": None}}
    )
    assert [tuple(w.shape) for w in old.weights] == [tuple(w.shape) for w in new.weights]


def test_keras_file_round_trip_with_shapes_dict(tmp_path):
    q, v = keras.Input((4, 5)), keras.Input((6, 7))
    model = keras.Model([q, v], layers.MultiHeadAttention(num_heads=2, key_dim=3)(q, v))
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    xq = np.random.default_rng(0).normal(size=(2, 4, 5)).astype("float32")
    xv = np.random.default_rng(1).normal(size=(2, 6, 7)).astype("float32")
    np.testing.assert_allclose(loaded([xq, xv]).numpy(), model([xq, xv]).numpy(), rtol=1e-5)
    mha = next(layer for layer in loaded.layers if isinstance(layer, layers.MultiHeadAttention))
    assert set(mha.get_build_config()["shapes_dict"]) == {"query_shape", "value_shape"}


@pytest.mark.parametrize("bad", [{}, {"shapes_dict": None}])
def test_build_from_config_without_shapes_does_nothing(bad):
    pair = PairSum()
    pair.build_from_config(bad)
    assert not pair.built
