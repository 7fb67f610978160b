"""TensorFlow's migration guides (guide/migrate/tf1_vs_tf2, model_mapping, validate_correctness,
migration_debugging): the TF 1.x names they use that run eagerly in TensorFlow 2.

Expected values were printed by TensorFlow 2.21 (tensorflow-cpu, eager mode) running the same
code with ``import tensorflow as tf``, unless a comment gives a closed form.
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
import eagerkernel.compat.v1 as v1


@pytest.fixture(autouse=True)
def _fresh_collections():
    v1.reset_default_graph()
    yield
    v1.reset_default_graph()


def test_variable_scope_prefixes_get_variable_and_tf_variable_names():
    # TF 2.21: 'model/w:0', 'model/x:0' (the scope opens a name scope of the same name).
    with v1.variable_scope("model") as scope:
        w = v1.get_variable("w", shape=[2], initializer=v1.zeros_initializer())
        x = ek.Variable(1.0, name="x")
        assert v1.get_variable_scope() is scope
    assert (w.name, x.name) == ("model/w:0", "model/x:0")
    assert (scope.name, scope.original_name_scope) == ("model", "model/")
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
    assert v1.get_variable_scope().name == ""


def test_get_variable_creates_a_new_variable_each_call_eagerly():
    # TF 2.21 eager: no variable store outside templates, so nothing is shared; reuse is
    # AUTO_REUSE whatever is passed.
    with v1.variable_scope("m"):
        a = v1.get_variable("w", shape=[2])
        b = v1.get_variable("w", shape=[2])
    with v1.variable_scope("m", reuse=True) as scope:
        c = v1.get_variable("w", shape=[2])
    assert a is not b and a is not c and a.name == b.name == c.name == "m/w:0"
    assert scope.reuse is v1.AUTO_REUSE
    assert v1.global_variables() == [] and v1.trainable_variables() == []


def test_default_names_are_made_unique_per_parent_scope():
    # TF 2.21 printed: x x_1 x_3 top/x top/x_1 top/x (opening "x_2" by name counts too; a
    # scope's sub-scope counts restart when it is left).
    names = []
    for _ in range(2):
        with v1.variable_scope(None, default_name="x") as s:
            names.append(s.name)
    with v1.variable_scope("x_2"):
        pass
    with v1.variable_scope(None, default_name="x") as s:
        names.append(s.name)
    for _ in range(2):
        with v1.variable_scope("top"):
            with v1.variable_scope(None, default_name="x") as s:
                names.append(s.name)
            if len(names) == 4:
                with v1.variable_scope(None, default_name="x") as s:
                    names.append(s.name)
    assert names == ["x", "x_1", "x_3", "top/x", "top/x_1", "top/x"]


def test_nested_scopes_and_reentering_a_scope_object():
    # TF 2.21: 'a/b', 'a/b/', 'a/x:0'; re-entering scope object `m` inside `m` opens the name
    # scope 'm/m/' (the last part of its name), while get_variable keeps the scope's name 'm'.
    with v1.variable_scope("a"):
        with v1.variable_scope("b") as s:
            pass
        assert ek.Variable(1.0, name="x").name == "a/x:0"
    assert (s.name, s.original_name_scope) == ("a/b", "a/b/")
    with v1.variable_scope("m") as m, v1.variable_scope(m):
        assert v1.get_variable_scope().name == "m"
        assert ek.Variable(1.0, name="q").name == "m/m/q:0"
        assert v1.get_variable("v", shape=[]).name == "m/v:0"


def test_scope_defaults_initializer_regularizer_and_dtype():
    # TF 2.21: [2. 2.], a regularization loss of 0.13 = 0.01 * (2**2 + 3**2) for the constant
    # initializer [2, 3], float64 from the scope's dtype, int32 zeros by default.
    with v1.variable_scope("m", initializer=v1.constant_initializer(2.0)) as scope:
        a = v1.get_variable("w", shape=[2])
    np.testing.assert_array_equal(a.numpy(), [2.0, 2.0])
    assert scope.dtype == ek.float32 and scope.initializer is not None
    with v1.variable_scope("r", regularizer=ek.keras.regularizers.L2(0.01)):
        v1.get_variable("w", initializer=ek.constant([2.0, 3.0]))
    (loss,) = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
    assert float(loss) == pytest.approx(0.13, rel=1e-6)
    with v1.variable_scope("sc", dtype=ek.float64):
        s = v1.get_variable("s", shape=[2, 2], initializer=v1.initializers.glorot_normal)
    assert s.dtype == ek.float64
    i = v1.get_variable("i", shape=[2], dtype=ek.int32)
    assert i.dtype == ek.int32 and i.numpy().tolist() == [0, 0] and i.trainable
    assert not v1.get_variable("nt", shape=[1], trainable=False).trainable


def test_get_variable_default_initializer_is_glorot_uniform():
    # Closed form: Glorot uniform on a vector of 1000 has limit sqrt(6 / 2000) = 0.0548 and
    # standard deviation limit / sqrt(3) = 0.0316 (TF 2.21 printed 0.0317).
    ek.random.set_seed(0)
    w = v1.get_variable("glob", shape=[1000])
    assert np.abs(w.numpy()).max() <= np.sqrt(6 / 2000)
    assert w.numpy().std() == pytest.approx(np.sqrt(6 / 2000) / np.sqrt(3), rel=0.1)


def test_get_variable_and_variable_scope_errors():
    # TF 2.21's messages.
    with pytest.raises(ValueError, match=r"If initializer is a constant, do not specify shape\."):
        v1.get_variable("d", shape=[2], initializer=ek.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="The initializer passed is not valid"):
        v1.get_variable("e")
    with pytest.raises(TypeError, match="If default_name is None then name_or_scope is required"):
        v1.variable_scope(None)
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        v1.variable_scope(None, default_name="x", reuse=True)


def test_make_template_shares_variables_across_calls():
    # TF 2.21: [1.5 2.5], then [2.5 6.5] after assigning w = [2, 3]; variables sorted by name.
    def f(x):
        w = v1.get_variable("w", shape=[2], initializer=v1.ones_initializer())
        with v1.variable_scope("inner"):
            b = v1.get_variable("b", shape=[], initializer=v1.constant_initializer(0.5))
        return x * w + b

    t = v1.make_template("net", f)
    assert t.variable_scope_name is None
    np.testing.assert_allclose(t(ek.constant([1.0, 2.0])).numpy(), [1.5, 2.5])
    t.variables[1].assign([2.0, 3.0])
    np.testing.assert_allclose(t(ek.constant([1.0, 2.0])).numpy(), [2.5, 6.5])
    assert [v.name for v in t.variables] == ["net/inner/b:0", "net/w:0"]
    assert t.variable_scope_name == "net/"
    assert [v.name for v in v1.global_variables()] == ["net/w:0", "net/inner/b:0"]
    # A second template of the same name gets a unique scope (TF 2.21: 'net_1/w:0').
    t2 = v1.make_template("net", f)
    t2(1.0)
    assert t2.variables[1].name == "net_1/w:0"


def test_make_template_keyword_arguments_and_new_variables_after_first_call():
    # The model_mapping guide's CompatV1TemplateScaleByY: scalar_name="y", 1.5 * ones.
    def my_op(x, scalar_name):
        var1 = v1.get_variable(scalar_name, shape=[], initializer=v1.constant_initializer(1.5))
        return x * var1

    scale_by_y = v1.make_template("scale_by_y", my_op, scalar_name="y")
    with v1.variable_scope("layer"):
        out = scale_by_y(ek.ones((2, 3)))
    np.testing.assert_allclose(out.numpy(), np.full((2, 3), 1.5))
    assert [v.name for v in scale_by_y.variables] == ["layer/scale_by_y/y:0"]
    g = v1.make_template("g", lambda n: v1.get_variable(n, shape=[]))
    g("a")
    with pytest.raises(ValueError, match="Trainable variable created when calling a template"):
        g("b")


def test_collections():
    v1.add_to_collection("things", 1)
    v1.add_to_collections(["things", "more"], 2)
    assert v1.get_collection("things") == [1, 2] and v1.get_collection("more") == [2]
    ref = v1.get_collection_ref("things")
    ref.append(3)
    assert v1.get_collection("things") == [1, 2, 3] and v1.get_collection("none") == []
    assert v1.GraphKeys.GLOBAL_VARIABLES == "variables"
    assert v1.GraphKeys.REGULARIZATION_LOSSES == "regularization_losses"
    v1.reset_default_graph()
    assert v1.get_collection("things") == []


@pytest.mark.parametrize(
    "power, end, cycle, step, expected",
    # TF 2.21's values of polynomial_decay(0.5, step, 10, ...)().
    [(2.0, 0.1, False, 3, 0.296), (1.0, 0.0, True, 15, 0.125), (0.5, 0.01, False, 50, 0.01)],
)
def test_train_polynomial_decay(power, end, cycle, step, expected):
    global_step = ek.Variable(step, dtype=ek.int64)
    lr = v1.train.polynomial_decay(
        0.5, global_step, 10, end_learning_rate=end, power=power, cycle=cycle
    )
    assert float(lr()) == pytest.approx(expected, rel=1e-6)


def test_polynomial_decay_follows_the_global_step():
    # migration_debugging's learning rates: 1e-3 * (1 - step / 1000) for steps 0, 1, 2.
    step = ek.Variable(0, dtype=ek.int64)
    lr = v1.train.polynomial_decay(1e-3, step, 1000, end_learning_rate=0.0, power=1.0)
    got = []
    for _ in range(3):
        got.append(float(lr()))
        step.assign_add(1)
    np.testing.assert_allclose(got, [1e-3, 0.999e-3, 0.998e-3], rtol=1e-6)
    with pytest.raises(ValueError, match="global_step is required"):
        v1.train.polynomial_decay(0.1, None, 10)


def test_keras_layers_called_inside_a_variable_scope():
    # model_mapping's FullyNativeKerasLayersModel: variable_scope inside a Keras call runs and
    # the layer owns its three Conv2Ds' six weights, output (10, 1, 1, 5) for (10, 10, 10, 10).
    class FullyNativeKerasLayersModel(ek.keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.conv_1 = ek.keras.layers.Conv2D(3, 3, kernel_regularizer="l2")
            self.conv_2 = ek.keras.layers.Conv2D(4, 4, kernel_regularizer="l2")
            self.conv_3 = ek.keras.layers.Conv2D(5, 5, kernel_regularizer="l2")

        def call(self, inputs, training=None):
            with v1.variable_scope("model"):
                return self.conv_3(self.conv_2(self.conv_1(inputs)))

    layer = FullyNativeKerasLayersModel()
    out = layer(ek.ones(shape=(10, 10, 10, 10)))
    assert out.shape == (10, 1, 1, 5) and len(layer.weights) == 6


def test_custom_getter_templates_sharing_errors_and_auxiliary_name_scope():
    # TF 2.21 printed: 's/a' passed to the custom getter, the share errors below, 'w/' and
    # 'w/a:0' for create_scope_now_, and ('outer', '', 'q:0') without an auxiliary name scope.
    seen = []

    def getter(next_getter, name, *args, **kwargs):
        seen.append(name)
        return next_getter(name, *args, **kwargs)

    with v1.variable_scope("s", custom_getter=getter):
        v = v1.get_variable("a", shape=[2])
    assert seen == ["s/a"] and v.name == "s/a:0"

    def two_shapes():
        v1.get_variable("a", shape=[2])
        return v1.get_variable("a", shape=[3])

    with pytest.raises(ValueError, match=r"share variable t/a, but specified shape \(3,\) and "):
        v1.make_template("t", two_shapes)()
    with pytest.raises(ValueError, match="specified dtype float64 and found dtype float32"):
        v1.make_template(
            "u",
            lambda: [v1.get_variable("a", shape=[2], dtype=d) for d in (ek.float32, ek.float64)],
        )()
    t = v1.make_template("w", lambda: v1.get_variable("a", shape=[2]), create_scope_now_=True)
    assert t.variable_scope_name == "w/"
    assert t() is t() and t().name == "w/a:0"
    with v1.variable_scope("outer", auxiliary_name_scope=False) as s:
        assert (s.name, s.original_name_scope) == ("outer", "")
        assert ek.Variable(1.0, name="q").name == "q:0"
