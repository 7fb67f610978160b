"""`ek.Module` and `ek.name_scope` against TensorFlow's `tf.Module` and `tf.name_scope`.

Expected names, orders and messages are those TensorFlow 2.21 (and tf_keras 2.21 for the
Keras layers, i.e. TF 2's `tf.keras`) prints for the same code.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.module import camel_to_snake, current_name_scope

BAD_NAME = (
    "is not a valid module name. Module names must be valid Python identifiers (e.g. a valid "
    "class name)."
)


# -- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["a b", "1a", "a/b", "", "a-b", "é", "a.b"])
def test_invalid_module_names_raise_tensorflows_value_error(bad):
    with pytest.raises(ValueError) as info:
        ek.Module(name=bad)
    assert str(info.value) == f"{bad!r} {BAD_NAME}"


def test_non_string_module_name_is_a_type_error():
    with pytest.raises(TypeError, match=r"name must be a string.*name=3"):
        ek.Module(name=3)


def test_default_names_are_the_class_name_in_snake_case():
    class HTTPServerModel(ek.Module):
        pass

    class ResNet50V2(ek.Module):
        pass

    class ABCDef(ek.Module):
        pass

    assert ek.Module().name == "module"
    assert HTTPServerModel().name == "http_server_model"
    assert ResNet50V2().name == "res_net50_v2"
    assert ABCDef().name == "abc_def"
    assert camel_to_snake("SequentialModule") == "sequential_module"
    assert ek.Module(name="_private9").name == "_private9"


# -- name_scope ----------------------------------------------------------------------------------


def test_name_scope_prefixes_variable_names_as_tensorflow_does():
    with ek.name_scope("block") as block:
        assert block == "block/"
        assert ek.Variable(1.0, name="w").name == "block/w:0"
        assert ek.Variable(1.0).name == "block/Variable:0"
        assert ek.Variable(1.0, name="a/b").name == "block/a/b:0"
        assert ek.Variable(1.0, name="a/").name == "a:0"  # absolute
        assert ek.Variable(1.0, name="").name == ":0"
        assert ek.Variable(1.0, name="x y").name == "block/x y:0"
        with ek.name_scope("inner") as inner:
            assert inner == "block/inner/"
            assert ek.Variable(1.0, name="w").name == "block/inner/w:0"
            with ek.name_scope("/abs/"):
                assert ek.Variable(1.0, name="w").name == "/abs/w:0"
            with ek.name_scope("abs2/"):
                assert ek.Variable(1.0, name="w").name == "abs2/w:0"
            with ek.name_scope(""):
                assert ek.Variable(1.0, name="w").name == "w:0"
            assert current_name_scope() == "block/inner/"
            assert ek.get_current_name_scope() == "block/inner"
            with ek.name_scope("/abs/"):
                assert ek.get_current_name_scope() == "/abs"
    assert current_name_scope() == ""
    assert ek.Variable(1.0, name="w").name == "w:0"


def test_name_scope_is_reentrant_and_restored_after_an_exception():
    outer = ek.name_scope("outer")
    assert outer.name == "outer"
    with outer as a, outer as b:
        assert (a, b) == ("outer/", "outer/outer/")
        assert ek.Variable(1.0, name="v").name == "outer/outer/v:0"
    with pytest.raises(RuntimeError, match="boom"), ek.name_scope("failing"):
        raise RuntimeError("boom")
    assert current_name_scope() == ""


@pytest.mark.parametrize("bad", [None, 3, b"bytes"])
def test_name_scope_name_must_be_a_string(bad):
    with pytest.raises(ValueError, match=r"^name for name_scope must be a string\.$"):
        ek.name_scope(bad)


def test_name_scopes_are_per_thread():
    seen = {}

    def worker():
        seen["scope"] = current_name_scope()
        with ek.name_scope("worker"):
            seen["name"] = ek.Variable(1.0, name="w").name

    with ek.name_scope("main"):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert ek.Variable(1.0, name="w").name == "main/w:0"
    assert seen == {"scope": "", "name": "worker/w:0"}


def test_module_name_scope_is_captured_at_construction():
    with ek.name_scope("block"), ek.name_scope("inner"):
        m = ek.Module(name="mm")
    assert m.name == "mm"
    assert m.name_scope.name == "block/inner/mm/"
    # absolute: the enclosing scope does not matter
    with ek.name_scope("elsewhere"), m.name_scope as scope:
        assert scope == "block/inner/mm/"
        assert ek.Variable(1.0, name="q").name == "block/inner/mm/q:0"


def test_with_name_scope_enters_the_modules_scope():
    class MyModule(ek.Module):
        @ek.Module.with_name_scope
        def __call__(self, x):
            """Doc kept."""
            if not hasattr(self, "w"):
                self.w = ek.Variable(ek.random.normal([x.shape[1], 3]))
            return ek.matmul(x, self.w)

        @ek.Module.with_name_scope
        def make(self):
            return ek.Variable(1.0, name="q").name

    mod = MyModule()
    assert mod(ek.ones([1, 2])).shape == (1, 3)
    assert mod.w.name == "my_module/Variable:0"
    assert MyModule.__call__.__name__ == "__call__"
    assert MyModule.__call__.__doc__ == "Doc kept."
    outer = MyModule(name="outer")
    with ek.name_scope("other"):
        assert outer.make() == "outer/q:0"
        inner = MyModule()
    assert inner.make() == "other/my_module/q:0"


# -- collections ---------------------------------------------------------------------------------


class Dense(ek.Module):  # tf.Module's docstring example
    def __init__(self, input_dim, output_size, name=None):
        super().__init__(name=name)
        self.w = ek.Variable(ek.random.normal([input_dim, output_size]), name="w")
        self.b = ek.Variable(ek.zeros([output_size]), name="b")

    def __call__(self, x):
        return ek.nn.relu(ek.matmul(x, self.w) + self.b)


class MLP(ek.Module):
    def __init__(self, input_size, sizes, name=None):
        super().__init__(name=name)
        self.layers = []
        with self.name_scope:
            for size in sizes:
                self.layers.append(Dense(input_dim=input_size, output_size=size))
                input_size = size

    @ek.Module.with_name_scope
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_tf_module_docstring_mlp():
    module = MLP(input_size=5, sizes=[5, 5])
    assert isinstance(module.variables, tuple)
    assert [v.name for v in module.variables] == ["mlp/b:0", "mlp/w:0", "mlp/b:0", "mlp/w:0"]
    assert [m.name for m in module.submodules] == ["dense", "dense"]
    assert [m.name_scope.name for m in module.submodules] == ["mlp/dense/", "mlp/dense/"]
    x = np.ones((2, 5), np.float32)
    w0, w1 = module.layers[0].w.numpy(), module.layers[1].w.numpy()
    expected = np.maximum(np.maximum(x @ w0, 0) @ w1, 0)
    np.testing.assert_allclose(module(x).numpy(), expected, rtol=1e-6)


class NT(ek.Module):
    def __init__(self):
        super().__init__()
        self.a = [
            ek.Variable(1.0, name="l0"),
            (
                ek.Variable(2.0, name="t0", trainable=False),
                {"z": ek.Variable(3.0, name="dz"), "a": ek.Variable(4.0, name="da")},
            ),
        ]
        self.c = ek.Variable(5.0, name="c")
        self.b = ek.Variable(6.0, name="b")
        self.dup = self.c
        self.sub = ek.Module(name="s1")
        self.sub.v = ek.Variable(7.0, name="s1v")
        self.sub.deeper = ek.Module(name="s2")
        self.aa_other = ek.Module(name="s3")
        self.sub.deeper.x = self.c
        self._private = ek.Variable(8.0, name="priv")


def test_variables_follow_tensorflows_order_and_deduplication():
    # TensorFlow 2.21 prints these for the same class.
    nt = NT()
    names = ["priv:0", "l0:0", "t0:0", "da:0", "dz:0", "b:0", "c:0", "s1v:0"]
    assert [v.name for v in nt.variables] == names
    assert [v.name for v in nt.trainable_variables] == [n for n in names if n != "t0:0"]
    assert [v.name for v in nt.non_trainable_variables] == ["t0:0"]
    assert [m.name for m in nt.submodules] == ["s3", "s1", "s2"]
    assert [(p, v.name) for p, v in nt._flatten(with_path=True, predicate=_is_var)] == [
        (("_private",), "priv:0"),
        (("a", 0), "l0:0"),
        (("a", 1, 0), "t0:0"),
        (("a", 1, 1, "a"), "da:0"),
        (("a", 1, 1, "z"), "dz:0"),
        (("b",), "b:0"),
        (("c",), "c:0"),
        (("dup",), "c:0"),
        (("sub", "v"), "s1v:0"),
        (("sub", "deeper", "x"), "c:0"),
    ]


def _is_var(x):
    return isinstance(x, ek.Variable)


def test_flatten_options():
    nt = NT()
    top = list(nt._flatten(recursive=False, predicate=_is_var))
    assert [v.name for v in top] == ["priv:0", "l0:0", "t0:0", "da:0", "dz:0", "b:0", "c:0"]
    reverse = list(nt._flatten(predicate=_is_var, attribute_traversal_key=lambda k: -ord(k[0])))
    # "sub" comes first, but a submodule's leaves come after all of this module's
    assert [v.name for v in reverse][:3] == ["c:0", "b:0", "l0:0"]
    assert [v.name for v in reverse][-1] == "s1v:0"
    everything = list(nt._flatten(recursive=False))
    assert any(x is nt.sub for x in everything) and not any(x is nt.sub.v for x in everything)
    with pytest.raises(NotImplementedError, match="expand_composites"):
        nt._flatten(expand_composites=True)


def test_submodules_docstring_and_cycles():
    a, b, c = ek.Module(), ek.Module(), ek.Module()
    a.b = b
    b.c = c
    assert list(a.submodules) == [b, c]
    assert list(b.submodules) == [c]
    assert list(c.submodules) == []
    c.a = a  # a cycle
    assert list(a.submodules) == [b, c]
    assert list(c.submodules) == [a, b]
    paths = [p for p, _ in a._flatten(with_path=True, predicate=lambda x: isinstance(x, ek.Module))]
    assert paths == [("b",), ("b", "c"), ("b", "c", "a")]  # found, but not walked again


def test_dicts_with_unsortable_keys_keep_insertion_order():
    m = ek.Module()
    m.d = {1: ek.Variable(1.0, name="one"), "x": ek.Variable(2.0, name="x")}
    assert [v.name for v in m.variables] == ["one:0", "x:0"]


# -- Keras layers are Modules --------------------------------------------------------------------


class FlexibleDense(ek.keras.layers.Layer):
    def __init__(self, out_features, **kwargs):
        super().__init__(**kwargs)
        self.out_features = out_features

    def build(self, input_shape):
        self.w = ek.Variable(ek.random.normal([input_shape[-1], self.out_features]), name="w")
        self.b = ek.Variable(ek.zeros([self.out_features]), name="b")

    def call(self, inputs):
        return ek.matmul(inputs, self.w) + self.b


def _names(obj):
    return [v.name for v in obj.variables]


def test_layers_and_models_are_modules():
    dense = ek.keras.layers.Dense(2)
    assert isinstance(dense, ek.Module)
    assert isinstance(ek.keras.Sequential(), ek.Module)
    assert isinstance(ek.keras.Model(), ek.Module)
    assert isinstance(dense.variables, list)  # Keras's lists, not tf.Module's tuples
    assert dense.name_scope.name == dense.name


def test_layer_weights_are_named_in_keras_2s_nested_scopes():
    # tf.keras (Keras 2): a layer's call enters its scope; scopes nest inside model calls.
    d = ek.keras.layers.Dense(3)
    d(ek.ones((1, 2)))
    assert _names(d) == [f"{d.name}/kernel:0", f"{d.name}/bias:0"]

    class Outer(ek.keras.layers.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.inner = ek.keras.layers.Dense(2)

        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(1,))

        def call(self, x):
            return self.inner(x) * self.w

    with ek.name_scope("top"):
        outer = Outer(name="o2")  # the scope at construction does not matter
    outer(ek.ones((1, 2)))
    inner = outer.inner.name
    assert _names(outer) == ["o2/w:0", f"o2/{inner}/kernel:0", f"o2/{inner}/bias:0"]

    called = ek.keras.layers.Dense(2)
    with ek.name_scope("zz"):
        called(ek.ones((1, 3)))
    assert _names(called) == [f"zz/{called.name}/kernel:0", f"zz/{called.name}/bias:0"]

    explicit = ek.keras.layers.Dense(2)
    explicit.build((None, 3))  # outside a call: no layer scope, as in Keras 2
    assert _names(explicit) == ["kernel:0", "bias:0"]


def test_sequential_layers_are_named_outside_any_scope():
    class M(ek.keras.Model):
        def __init__(self):
            super().__init__()
            self.seq = ek.keras.Sequential([ek.keras.layers.Dense(2)])
            self.d = ek.keras.layers.Dense(1)

        def call(self, x):
            return self.d(self.seq(x))

    m = M()
    m(ek.ones((1, 3)))
    s, d = m.seq.layers[0].name, m.d.name
    top = m.name  # "m", or "m_1" once another test made an M
    assert _names(m) == [f"{s}/kernel:0", f"{s}/bias:0", f"{top}/{d}/kernel:0", f"{top}/{d}/bias:0"]
    seq = ek.keras.Sequential([ek.keras.layers.Dense(2)])
    with ek.name_scope("zz"):
        seq(ek.ones((1, 3)))
    assert _names(seq)[0] == f"{seq.layers[0].name}/kernel:0"
    built = ek.keras.Sequential([ek.keras.layers.Dense(2, input_shape=(3,))])
    assert _names(built)[0] == f"{built.layers[0].name}/kernel:0"


def test_layer_collects_plain_modules_and_lists_submodules():
    class Sub(ek.keras.Model):
        def __init__(self):
            super().__init__(name="sub")
            self.d = ek.keras.layers.Dense(2, name="d0")
            self.lst = [ek.keras.layers.Dense(2, name="d1"), ek.keras.layers.Dense(1, name="d2")]
            self.raw = ek.Variable(1.0, name="raw")
            self.m = ek.Module(name="rawmod")
            self.m.v = ek.Variable(2.0, name="inmod")

        def call(self, x):
            return self.lst[1](self.lst[0](self.d(x)))

    sub = Sub()
    sub(ek.ones((1, 3)))
    # Keras 3's order: the model's own weights first, then each sublayer's in turn (Keras
    # 3.15 leaves plain tf.Variables and Modules out; tf_keras listed them last). A layer's
    # list matches tf.Module's own walk.
    keras = [f"sub/d{i}/{w}:0" for i in range(3) for w in ("kernel", "bias")]
    assert _names(sub) == ["raw:0", *keras, "inmod:0"]
    assert [v.name for v in sub.trainable_variables] == ["raw:0", *keras, "inmod:0"]
    assert [v.name for v in ek.Module.trainable_variables.fget(sub)] == [
        "raw:0",
        *keras,
        "inmod:0",
    ]
    assert isinstance(sub.submodules, tuple)
    assert sub.submodules == (sub.d, sub.lst[0], sub.lst[1], sub.m)
    sub.trainable = False
    assert sub.trainable_variables == []
    assert len(sub.non_trainable_variables) == 8


class OwnWeightsModel(ek.keras.Model):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.d = ek.keras.layers.Dense(2, name="d")
        self.counter = ek.Variable(0.0, trainable=False, name="counter")

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(), trainable=True)
        self.stat = self.add_weight(name="stat", shape=(), trainable=False)

    def call(self, x):
        return self.d(x) * self.scale


class OwnWeightsLayer(ek.keras.layers.Layer):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.frozen = ek.Variable(1.0, trainable=False, name="frozen")
        self.bn = ek.keras.layers.BatchNormalization(name="bn")
        self.d = ek.keras.layers.Dense(2, name="dd")

    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=())

    def call(self, x):
        return self.d(self.bn(x)) * self.w * self.frozen


def _three(obj):
    return (
        _names(obj),
        [v.name for v in obj.trainable_variables],
        [v.name for v in obj.non_trainable_variables],
    )


def test_weight_order_follows_keras_3_for_layers_models_and_frozen_parts():
    # What Keras 3.15 prints for the same classes (with add_weight for the plain Variables):
    # a layer or model lists its own weights first, trainable before non-trainable, then each
    # sublayer's in turn; the trainable and non-trainable lists keep that order.
    m = OwnWeightsModel(name="m")
    m(ek.ones((1, 3)))
    assert _three(m) == (
        ["m/scale:0", "counter:0", "m/stat:0", "m/d/kernel:0", "m/d/bias:0"],
        ["m/scale:0", "m/d/kernel:0", "m/d/bias:0"],
        ["counter:0", "m/stat:0"],
    )
    layer = OwnWeightsLayer(name="l")
    layer(ek.ones((2, 3)))
    bn_t, bn_n = ["l/bn/gamma:0", "l/bn/beta:0"], ["l/bn/moving_mean:0", "l/bn/moving_variance:0"]
    dd = ["l/dd/kernel:0", "l/dd/bias:0"]
    everything = ["l/w:0", "frozen:0", *bn_t, *bn_n, *dd]
    assert _three(layer) == (everything, ["l/w:0", *bn_t, *dd], ["frozen:0", *bn_n])
    layer.d.trainable = False
    assert _three(layer) == (everything, ["l/w:0", *bn_t], ["frozen:0", *bn_n, *dd])
    layer.trainable = False
    assert _three(layer) == (everything, [], everything)
    m.trainable = False
    own_first = ["m/scale:0", "counter:0", "m/stat:0", "m/d/kernel:0", "m/d/bias:0"]
    assert _three(m) == (own_first, [], own_first)


# -- checkpoints ---------------------------------------------------------------------------------


class Lazy(ek.Module):
    def __init__(self, out_features, name=None):
        super().__init__(name=name)
        self.is_built = False
        self.out_features = out_features

    def __call__(self, x):
        if not self.is_built:
            self.w = ek.Variable(ek.random.normal([x.shape[-1], self.out_features]), name="w")
            self.b = ek.Variable(ek.random.normal([self.out_features]), name="b")
            self.is_built = True
        return ek.matmul(x, self.w) + self.b


class Net(ek.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Lazy(out_features=3)
        self.dense_2 = Lazy(out_features=2)
        self.blocks = [Lazy(2), {"a": Lazy(2)}]
        self.step = ek.Variable(0, name="step")

    def __call__(self, x):
        return self.blocks[1]["a"](self.blocks[0](self.dense_2(self.dense_1(x))))


# TensorFlow 2.21's tf.train.list_variables for the same model: these object paths, each
# followed by "/.ATTRIBUTES/VARIABLE_VALUE", and its object graph first.
NET_KEYS = [
    ("model/blocks/0/b", (2,)),
    ("model/blocks/0/w", (2, 2)),
    ("model/blocks/1/a/b", (2,)),
    ("model/blocks/1/a/w", (2, 2)),
    ("model/dense_1/b", (3,)),
    ("model/dense_1/w", (3, 3)),
    ("model/dense_2/b", (2,)),
    ("model/dense_2/w", (3, 2)),
    ("model/step", ()),
]


def test_module_checkpoint_round_trip_and_deferred_restore(tmp_path):
    x = ek.constant([[2.0, 2.0, 2.0]])
    net = Net()
    expected = net(x).numpy()
    net.step.assign(7)
    path = ek.train.Checkpoint(model=net).write(str(tmp_path / "ck"))
    assert ek.train.list_variables(path) == [("_CHECKPOINTABLE_OBJECT_GRAPH", [])] + [
        (f"{k}/.ATTRIBUTES/VARIABLE_VALUE", list(s)) for k, s in NET_KEYS
    ]  # TF: shapes as lists

    fresh = Net()  # its Lazy modules have no variables yet: the values wait for them
    status = ek.train.Checkpoint(model=fresh).restore(path)
    assert int(fresh.step) == 7
    np.testing.assert_array_equal(fresh(x).numpy(), expected)
    status.assert_consumed()
    for a, b in zip(net.variables, fresh.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not ek.Module.attribute_observers  # nothing waits any more

    built = Net()
    built(x)
    ek.train.Checkpoint(model=built).restore(path).assert_consumed()
    np.testing.assert_array_equal(built(x).numpy(), expected)


def test_module_checkpoint_with_save_counter_and_mismatch(tmp_path):
    net = Net()
    net(ek.ones((1, 3)))
    ckpt = ek.train.Checkpoint(model=net)
    path = ckpt.save(str(tmp_path / "ck"))
    other = Net()
    other(ek.ones((1, 4)))  # dense_1/w is (4, 3): another model
    before = [v.numpy() for v in other.variables]
    with pytest.raises(ValueError, match="model/dense_1/w"):
        ek.train.Checkpoint(model=other).restore(path)
    for v, b in zip(other.variables, before):  # all or nothing
        np.testing.assert_array_equal(v.numpy(), b)


def test_keras_weights_keep_short_checkpoint_keys_under_nested_scopes(tmp_path):
    class M(ek.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = ek.keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    m = M()
    m(ek.ones((1, 3)))
    assert m.dense.kernel.name == f"{m.name}/{m.dense.name}/kernel:0"
    path = ek.train.Checkpoint(model=m).write(str(tmp_path / "k"))
    assert [p for p, _ in ek.train.list_variables(path)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH",
        "model/dense/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE",
    ]


def test_internal_variables_are_named_outside_the_callers_scope(tmp_path):
    dense = ek.keras.layers.Dense(1)
    opt = ek.keras.optimizers.Adam()
    with ek.name_scope("train_step"):
        with ek.GradientTape() as tape:
            loss = ek.reduce_sum(dense(ek.ones((1, 2))))
        grads = tape.gradient(loss, dense.trainable_variables)
        opt.apply_gradients(zip(grads, dense.trainable_variables))
        ckpt = ek.train.Checkpoint(model=dense)
        ckpt.save(str(tmp_path / "ck"))
    kernel = dense.kernel.name[: -len(":0")]
    assert kernel == f"train_step/{dense.name}/kernel"
    assert f"{kernel}/m:0" in [v.name for v in opt.variables]
    assert ckpt.save_counter.name == "save_counter:0"
