"""`ek.saved_model`: variables and traced programs saved, loaded without the Python class,
bit for bit the same results; damaged files raise errors naming the file."""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

import eagerkernel as ek


class Affine:
    """A plain class with variables and graph functions (no ek.Module needed)."""

    def __init__(self):
        self.w = ek.Variable(np.float32([[1.0, -2.0], [3.0, 0.5]]), name="w")
        self.b = ek.Variable(np.float32([0.25, -0.5]), name="b")
        self.variables = [self.w, self.b]

    @ek.function
    def __call__(self, x):
        y = ek.matmul(x, self.w) + self.b
        if ek.reduce_sum(y) > 0:  # a guard: two branches
            return ek.nn.relu(y)
        return ek.tanh(-y)

    @ek.function
    def shift(self, k):
        self.b.assign_add(ek.ones_like(self.b) * k)
        return {"b": self.b.read_value(), "scale": 2}


def _traced():
    m = Affine()
    xs = [ek.constant([[1.0, 1.0]]), ek.constant([[-1.0, -1.0]])]
    outs = [m(x) for x in xs]
    m.shift(ek.constant(0.0))
    return m, xs, outs


def test_a_saved_function_runs_without_its_class_bit_for_bit(tmp_path):
    m, xs, outs = _traced()
    ek.saved_model.save(m, tmp_path / "affine")
    assert sorted(os.listdir(tmp_path / "affine")) == ["saved_model.json", "variables.safetensors"]
    loaded = ek.saved_model.load(tmp_path / "affine")
    assert not isinstance(loaded, Affine)
    for x, out in zip(xs, outs):
        got = loaded(x)
        assert got.numpy().dtype == out.numpy().dtype
        assert np.array_equal(got.numpy(), out.numpy())
    # other inputs of the same signature replay the right branch
    x = ek.constant([[0.3, -0.7]])
    assert np.array_equal(loaded(x).numpy(), m(x).numpy())
    assert [v.name for v in loaded.variables] == ["w:0", "b:0"]


def test_loaded_stateful_functions_update_the_loaded_variables(tmp_path):
    m, _, _ = _traced()
    ek.saved_model.save(m, tmp_path / "affine")
    loaded = ek.saved_model.load(tmp_path / "affine")
    out = loaded.shift(ek.constant(1.5))
    assert out["scale"] == 2
    np.testing.assert_array_equal(out["b"].numpy(), np.float32([1.75, 1.0]))
    np.testing.assert_array_equal(loaded.variables[1].numpy(), np.float32([1.75, 1.0]))
    np.testing.assert_array_equal(m.b.numpy(), np.float32([0.25, -0.5]))  # the original


def test_loaded_variables_train_through_a_tape(tmp_path):
    m, xs, _ = _traced()
    ek.saved_model.save(m, tmp_path / "affine")
    loaded = ek.saved_model.load(tmp_path / "affine")
    x = xs[0]
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(loaded(x))
    gw, gb = tape.gradient(y, loaded.trainable_variables)
    # y = sum(relu(x @ w + b)), x @ w + b = [4.25, -2]: relu passes the first column only
    np.testing.assert_array_equal(gw.numpy(), np.float32([[1.0, 0.0], [1.0, 0.0]]))
    np.testing.assert_array_equal(gb.numpy(), np.float32([1.0, 0.0]))
    opt = ek.keras.optimizers.SGD(0.1)
    opt.apply_gradients(zip([gw, gb], loaded.trainable_variables))
    np.testing.assert_allclose(loaded.variables[1].numpy(), np.float32([0.15, -0.5]))


def test_an_untraced_branch_or_signature_raises(tmp_path):
    m = Affine()
    m(ek.constant([[1.0, 1.0]]))  # only the relu branch is traced
    ek.saved_model.save(m, tmp_path / "one")
    loaded = ek.saved_model.load(tmp_path / "one")
    with pytest.raises(ek.errors.InvalidArgumentError, match="not traced before saving"):
        loaded(ek.constant([[-5.0, -5.0]]))
    with pytest.raises(ek.errors.InvalidArgumentError, match="no saved concrete function"):
        loaded(ek.constant([[1.0, 1.0, 1.0]]))


def test_signatures_are_saved_by_name(tmp_path):
    @ek.function
    def double(x):
        return x * 2.0

    double(ek.constant([1.0, 2.0]))
    m = Affine()
    ek.saved_model.save(m, tmp_path / "s", signatures={"double": double})
    loaded = ek.saved_model.load(tmp_path / "s")
    # A signature returns a dict (TensorFlow's: output_0, ... for a result that is not one)
    # and takes its tensors positionally or by the Python parameters' names.
    double = loaded.signatures["double"]
    for out in (double(ek.constant([3.0, 4.0])), double(x=ek.constant([3.0, 4.0]))):
        assert list(out) == ["output_0"]
        np.testing.assert_array_equal(out["output_0"].numpy(), np.float32([6.0, 8.0]))
    assert list(double.structured_outputs) == ["output_0"]
    with pytest.raises(TypeError, match="unexpected keyword argument 'y'; its arguments are"):
        double(y=ek.constant([3.0, 4.0]))
    with pytest.raises(TypeError, match=r"missing required argument\(s\): x"):
        double()


def test_signatures_of_several_outputs_and_named_specs(tmp_path):
    class M(ek.Module):
        @ek.function(
            input_signature=[ek.TensorSpec([None], ek.float32), ek.TensorSpec([], name="s")]
        )
        def pair(self, x, scale):
            return x * scale, scale

    m = M()
    ek.saved_model.save(m, tmp_path / "p", signatures={"pair": m.pair})
    pair = ek.saved_model.load(tmp_path / "p").signatures["pair"]
    out = pair(x=ek.constant([1.0, 2.0]), s=ek.constant(3.0))  # a spec's name wins
    assert sorted(out) == ["output_0", "output_1"]
    assert out["output_0"].numpy().tolist() == [3.0, 6.0] and float(out["output_1"]) == 3.0


def test_functions_calling_an_optimizer_cannot_be_saved(tmp_path):
    v = ek.Variable(1.0)
    opt = ek.keras.optimizers.SGD(0.1)

    class Trainer:
        def __init__(self):
            self.variables = [v]

        @ek.function
        def step(self):
            with ek.GradientTape() as tape:
                loss = v * v
            opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
            return loss

    t = Trainer()
    t.step()
    with pytest.raises(ValueError, match="apply_gradients, a stateful op that a saved model"):
        ek.saved_model.save(t, tmp_path / "t")
    assert not (tmp_path / "t").exists()


def test_a_failed_save_leaves_the_old_saved_model(tmp_path):
    m, _, _ = _traced()
    ek.saved_model.save(m, tmp_path / "m")
    before = (tmp_path / "m" / "saved_model.json").read_bytes()

    v = ek.Variable(1.0)
    opt = ek.keras.optimizers.SGD(0.1)

    @ek.function
    def step():
        with ek.GradientTape() as tape:
            loss = v * v
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
        return loss

    step()
    b = Affine()
    b(ek.constant([[1.0, 1.0]]))
    b.train = step  # a function that cannot be saved: the save fails after others are written
    with pytest.raises(ValueError):
        ek.saved_model.save(b, tmp_path / "m")
    assert (tmp_path / "m" / "saved_model.json").read_bytes() == before
    assert np.array_equal(ek.saved_model.load(tmp_path / "m")(ek.constant([[1.0, 1.0]])).numpy(),
                          m(ek.constant([[1.0, 1.0]])).numpy())  # fmt: skip


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / "saved_model.json").write_text("{not json"), "saved_model.json is damaged"),
        (
            lambda d: _edit(d, lambda meta: meta.update(version=99)),
            "format version 99; this eagerkernel reads version 1",
        ),
        (
            lambda d: _edit(d, lambda meta: meta.update(format="something-else")),
            "is not an eagerkernel saved model",
        ),
        (
            lambda d: _edit(d, _rename_first_op),
            "unknown primitive 'os:system'",
        ),
        (
            lambda d: _edit(d, _evil_call),
            "unknown stateful op 'builtins:exec'",
        ),
        (
            lambda d: (d / "variables.safetensors").write_bytes(
                (d / "variables.safetensors").read_bytes()[:40]
            ),
            "variables.safetensors is damaged",
        ),
    ],
)
def test_damaged_files_raise_errors_naming_the_file(tmp_path, damage, message):
    m, _, _ = _traced()
    ek.saved_model.save(m, tmp_path / "m")
    damage(tmp_path / "m")
    with pytest.raises(ValueError, match=message) as info:
        ek.saved_model.load(tmp_path / "m")
    assert str(tmp_path / "m") in str(info.value)


def test_a_missing_saved_model_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"saved_model\.json does not exist"):
        ek.saved_model.load(tmp_path / "nothing")


def _edit(directory, change) -> None:
    path = directory / "saved_model.json"
    meta = json.loads(path.read_text())
    change(meta)
    path.write_text(json.dumps(meta))


def _rename_first_op(meta) -> None:
    program = meta["functions"]["__call__"][0]["program"]
    op = next(o for o in program["ops"] if "op" in o)
    op["op"] = "os:system"


def _evil_call(meta) -> None:
    program = meta["functions"]["shift"][0]["program"]
    call = next(o for o in program["ops"] if "call" in o)
    call["call"] = "builtins:exec"


def test_custom_gradients_are_saved_unless_the_option_drops_them(tmp_path):
    @ek.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return ek.clip_by_norm(dy, 0.5)

        return y, backward

    class WithCustom:
        def __init__(self):
            self.variables = []

        @ek.function
        def f(self, x):
            return clip_gradients(x * x)

    m = WithCustom()
    m.f(ek.constant(2.0))
    ek.saved_model.save(m, tmp_path / "kept")  # TF's default: the custom gradient is kept
    loaded = ek.saved_model.load(tmp_path / "kept")
    x = ek.constant(2.0)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = loaded.f(x)
    assert float(y) == 4.0 and float(tape.gradient(y, x)) == 2.0  # clip(1) = 0.5, times 2x
    options = ek.saved_model.SaveOptions(experimental_custom_gradients=False)
    ek.saved_model.save(m, tmp_path / "c", options=options)
    loaded = ek.saved_model.load(tmp_path / "c")
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = loaded.f(x)
    assert float(y) == 4.0 and float(tape.gradient(y, x)) == 4.0  # through the ops: 2x
    with pytest.raises(NotImplementedError, match="save_debug_info=True"):
        ek.saved_model.SaveOptions(save_debug_info=True)


def test_an_input_signature_with_open_dimensions_is_saved_for_any_size(tmp_path):
    class M:
        variables: tuple = ()

        @ek.function(input_signature=[ek.TensorSpec([None], ek.float32)])
        def f(self, x):
            return x + 1.0

        @ek.function(input_signature=[ek.TensorSpec([None, None, 2], ek.float32)])
        def g(self, x):  # sizes in parameters: a product, an affine bound, a filled constant
            b, t = x.shape[0], x.shape[1]
            flat = ek.reshape(x, (b * t, 2)) + ek.zeros((b * t, 2))
            return ek.reshape(flat * 2.0, (b, t, 2))[: b - 1]

    m = M()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # never called, yet nothing to warn about
        ek.saved_model.save(m, tmp_path / "m")
    loaded = ek.saved_model.load(tmp_path / "m")
    for n in (0, 1, 2, 9):
        x = np.arange(n, dtype=np.float32)
        assert loaded.f(ek.constant(x)).numpy().tolist() == (x + 1).tolist()
    for b, t in ((1, 1), (2, 7), (6, 3)):
        x = np.random.default_rng(b).random((b, t, 2), dtype=np.float32)
        np.testing.assert_array_equal(loaded.g(x).numpy(), (2 * x)[: b - 1])
    assert loaded.f.structured_outputs == ek.TensorSpec([None], ek.float32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="no saved concrete function"):
        loaded.g(ek.zeros((2, 3, 4)))  # a fixed dimension differs


def test_a_program_that_changes_with_the_size_falls_back_to_the_traced_shapes(tmp_path):
    class M:
        variables: tuple = ()

        @ek.function(input_signature=[ek.TensorSpec([None], ek.float32)])
        def f(self, x):
            total = ek.constant(0.0)
            for k in range(x.shape[0]):  # one op per element: no program fits every size
                total = total + x[k]
            return total

    m = M()
    with pytest.warns(UserWarning, match=r"saved for shapes \[\(1,\)\]"):
        ek.saved_model.save(m, tmp_path / "m")
    loaded = ek.saved_model.load(tmp_path / "m")
    assert loaded.f(ek.constant([3.0])).numpy() == 3.0
    with pytest.raises(ek.errors.InvalidArgumentError, match="no saved concrete function"):
        loaded.f(ek.constant([3.0, 4.0]))
    m = M()
    m.f(ek.constant([1.0, 2.0]))  # called first: its trace is saved, with a warning
    with pytest.warns(UserWarning, match="saved for the shapes it was called with only"):
        ek.saved_model.save(m, tmp_path / "m")
    loaded = ek.saved_model.load(tmp_path / "m")
    assert loaded.f(ek.constant([3.0, 4.0])).numpy() == 7.0


def test_scalar_variables_and_the_guides_custom_module(tmp_path):
    # TensorFlow's saved_model guide: a scalar Variable, a method with an input signature
    # that mutates it, the loaded object's attribute, and training it through the loaded call.
    class CustomModule(ek.Module):
        def __init__(self):
            super().__init__()
            self.v = ek.Variable(1.0)

        @ek.function
        def __call__(self, x):
            return x * self.v * 0.5 * 2.0  # a scalar constant in the program too

        @ek.function(input_signature=[ek.TensorSpec([], ek.float32)])
        def mutate(self, new_v):
            self.v.assign(new_v)

    module = CustomModule()
    module(ek.constant(0.0))
    ek.saved_model.save(module, str(tmp_path / "m"))
    imported = ek.saved_model.load(str(tmp_path / "m"))
    assert imported.v.shape == () and imported.variables[0] is imported.v
    assert imported(ek.constant(3.0)).shape == ()
    assert imported(ek.constant(3.0)).numpy() == 3.0
    imported.mutate(ek.constant(2.0))
    assert imported(ek.constant(3.0)).numpy() == 6.0
    opt = ek.keras.optimizers.SGD(0.05)
    for _ in range(30):
        with ek.GradientTape() as tape:
            loss = (10.0 - imported(ek.constant(2.0))) ** 2
        variables = tape.watched_variables()
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
    assert abs(imported.v.numpy() - 5.0) < 1e-3  # "v approaches 5", as the guide prints


def test_loaded_object_keeps_the_attribute_paths_of_its_variables(tmp_path):
    class Net(ek.Module):
        def __init__(self):
            super().__init__()
            self.dense = ek.keras.layers.Dense(2)
            self.blocks = [ek.Variable([1.0, 2.0]), {"a": ek.Variable(3.0)}]
            self.variables_seen = ek.Variable(0)  # any name, reserved ones excepted

        @ek.function
        def __call__(self, x):
            return self.dense(x) * self.blocks[1]["a"]

    net = Net()
    x = ek.ones((1, 3))
    expected = net(x).numpy()
    ek.saved_model.save(net, str(tmp_path / "n"))
    loaded = ek.saved_model.load(str(tmp_path / "n"))
    np.testing.assert_array_equal(loaded.dense.kernel.numpy(), net.dense.kernel.numpy())
    np.testing.assert_array_equal(loaded.blocks[0].numpy(), [1.0, 2.0])
    assert loaded.blocks[1]["a"].numpy() == 3.0 and loaded.blocks[1].a is loaded.blocks[1]["a"]
    assert loaded.variables_seen.numpy() == 0
    loaded.blocks[1]["a"].assign(6.0)  # the attribute is the Variable the function reads
    np.testing.assert_allclose(loaded(x).numpy(), 2 * expected, rtol=1e-6)
    with open(tmp_path / "n" / "saved_model.json") as f:
        paths = [v["path"] for v in json.load(f)["variables"]]
    assert ["dense", "kernel"] in paths and ["blocks", 1, "a"] in paths


def test_a_signatures_structured_outputs(tmp_path):
    # TensorFlow's saved_model guide: a signature returning a dict names its outputs.
    class WithOutputName(ek.Module):
        def __init__(self):
            super().__init__()
            self.v = ek.Variable(1.0)

        @ek.function(input_signature=[ek.TensorSpec(None, ek.float32)])
        def __call__(self, x):
            return {"custom_output_name": x * self.v, "scale": 2}

    module = WithOutputName()
    call = module.__call__.get_concrete_function(ek.TensorSpec(None, ek.float32))
    module(ek.constant([1.0, 2.0]))
    ek.saved_model.save(module, str(tmp_path / "m"), signatures={"serving_default": call})
    loaded = ek.saved_model.load(str(tmp_path / "m"))
    outputs = loaded.signatures["serving_default"].structured_outputs
    assert sorted(outputs) == ["custom_output_name", "scale"]
    # a Python 2 returned: a tensor, as TF; each spec named by its key, as TF names them
    assert outputs["scale"] == ek.TensorSpec((), ek.int32, name="scale")
    spec = outputs["custom_output_name"]
    assert isinstance(spec, ek.TensorSpec) and spec.dtype == ek.float32
    traced = module.__call__.get_concrete_function(ek.constant([1.0, 2.0])).structured_outputs
    # the program traced on the call's values
    assert {k: (v.shape, v.dtype) for k, v in outputs.items()} == {
        k: (v.shape, v.dtype) for k, v in traced.items()
    }


def test_a_program_indexing_with_tensors_in_a_tuple_key_saves_and_loads(tmp_path):
    """``x[1, i]``: the index tensor is an input of the op, so the loaded program reads each
    call's index (the key's layout is stored with its tensor positions)."""

    class Picker(ek.Module):
        @ek.function(
            input_signature=[ek.TensorSpec([3, 4], ek.float32), ek.TensorSpec([], ek.int32)]
        )
        def pick(self, x, i):
            return x[1, i]

    x = ek.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    module = Picker()
    assert float(module.pick(x, ek.constant(2))) == 6.0
    ek.saved_model.save(module, str(tmp_path))
    loaded = ek.saved_model.load(str(tmp_path))
    assert [float(loaded.pick(x, ek.constant(k))) for k in (3, 0)] == [7.0, 4.0]


class Printer:
    def __init__(self):
        self.variables = []

    @ek.function
    def __call__(self, x):
        ek.print("x:", x * 2)
        return x + 1


def test_a_saved_print_prints_on_every_call_of_the_loaded_function(tmp_path, capsys):
    m = Printer()
    m(ek.constant([1, 2]))
    ek.saved_model.save(m, tmp_path / "p")
    assert capsys.readouterr().err == "x: [2 4]\n"
    text = (tmp_path / "p" / "saved_model.json").read_text()
    assert '"eagerkernel.runtime.function.api:print_"' in text
    loaded = ek.saved_model.load(tmp_path / "p")
    for k in (3, 4):
        assert loaded(ek.constant([k, 1])).numpy().tolist() == [k + 1, 2]
        assert capsys.readouterr().err == f"x: [{2 * k} 2]\n"
    # Saved models of the single-module function.py name print_ by its old key: they load.
    old = text.replace(
        "eagerkernel.runtime.function.api:print_", "eagerkernel.runtime.function:print_"
    )
    (tmp_path / "p" / "saved_model.json").write_text(old)
    loaded = ek.saved_model.load(tmp_path / "p")
    loaded(ek.constant([2, 1]))
    assert capsys.readouterr().err == "x: [4 2]\n"


def test_a_template_and_a_traced_shape_share_a_captured_variable(tmp_path):
    scale = ek.Variable(2.0)  # read by the function, not an attribute of the saved object

    class M:
        variables: tuple = ()

        @ek.function(input_signature=[ek.TensorSpec([None], ek.float32)])
        def f(self, x):
            return x * scale

    m = M()
    m.f(ek.constant([1.0, 2.0]))  # a traced shape, and the template for the others
    ek.saved_model.save(m, tmp_path / "m")
    loaded = ek.saved_model.load(tmp_path / "m")
    assert len(loaded.variables) == 1
    loaded.variables[0].assign(3.0)
    assert loaded.f(ek.constant([1.0, 2.0])).numpy().tolist() == [3.0, 6.0]  # traced shape
    assert loaded.f(ek.constant([1.0])).numpy().tolist() == [3.0]  # the template
