"""`ek.experimental.ExtensionType` against TensorFlow's guide (site/en/guide/extension_type):
fields, conversion, validation, immutability, equality, specs, dispatch, ek.function, Dataset."""

from __future__ import annotations

from typing import List, Mapping, Optional, Tuple, Union  # noqa: UP035 (the guide's spelling)

import numpy as np
import pytest

import eagerkernel as ek

ET = ek.experimental.ExtensionType


class MaskedTensor(ek.experimental.BatchableExtensionType):
    values: ek.Tensor
    mask: ek.Tensor

    def __validate__(self):
        self.values.shape.assert_is_compatible_with(self.mask.shape)
        assert self.mask.dtype.is_bool, "mask.dtype must be bool"

    def with_default(self, default):
        return ek.where(self.mask, self.values, default)


class Node(ET):
    value: ek.Tensor
    children: Tuple[Node, ...] = ()  # noqa: UP006


class Pencil(ET):
    color: str = "black"
    has_eraser: bool = True
    length: ek.Tensor = 1.0


def test_fields_are_converted_to_their_declared_types():
    mt = MaskedTensor([[1, 2, 3], [4, 5, 6]], [[True, True, False], [True, False, True]])
    assert isinstance(mt.values, ek.Tensor) and mt.values.dtype == ek.int32
    np.testing.assert_array_equal(mt.values.numpy(), [[1, 2, 3], [4, 5, 6]])
    p = Pencil()
    assert (p.color, p.has_eraser, float(p.length)) == ("black", True, 1.0)
    q = Pencil(length=0.5, color="blue")
    assert q.color == "blue" and q.length.dtype == ek.float32
    tree = Node(3, [Node(5), Node(2)])
    assert isinstance(tree.children, tuple) and [int(c.value) for c in tree.children] == [5, 2]


def test_bad_field_values_raise_type_errors_naming_the_field():
    with pytest.raises(TypeError, match=r"MaskedTensor\.mask: expected a Tensor, got None"):
        MaskedTensor([1, 2, 3], None)
    with pytest.raises(TypeError, match=r"Pencil\.color: expected str, got 3"):
        Pencil(color=3)
    with pytest.raises(TypeError, match=r"Node\.children\[0\]: expected Node"):
        Node(1, [2])
    with pytest.raises(TypeError, match="missing a required argument: 'mask'"):
        MaskedTensor([1])
    with pytest.raises(AssertionError, match=r"mask\.dtype must be bool"):
        MaskedTensor([1, 2, 3], [0, 1, 0])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        MaskedTensor([1, 2, 3], [True, False])


def test_unsupported_annotations_are_rejected_when_the_class_is_defined():
    with pytest.raises(TypeError, match=r"Bad\.items: unsupported type annotation"):

        class Bad(ET):
            items: List[int]  # noqa: UP006 (TensorFlow takes Tuple, not List)


def test_fields_are_immutable_outside_the_constructor():
    mt = MaskedTensor([1, 2, 3], [True, False, True])
    with pytest.raises(AttributeError, match="Cannot mutate attribute `mask` outside"):
        mt.mask = [True, True, True]
    with pytest.raises(AttributeError, match="Cannot mutate attribute `mask` outside"):
        del mt.mask
    with pytest.raises(TypeError, match="does not support item assignment"):
        mt.mask[0] = False

    class Player(ET):
        name: ek.Tensor
        attributes: Mapping[str, ek.Tensor]

    anne = Player("Anne", {"height": 8.3})
    with pytest.raises(TypeError):
        anne.attributes["height"] = 1.0
    with pytest.raises(TypeError):
        hash(anne)


def test_a_custom_constructor_sets_the_fields_then_they_are_checked():
    class Toy(ET):
        name: str
        price: ek.Tensor

        def __init__(self, name, price, discount=0):
            self.name = name
            self.price = price * (1 - discount)

    toy = Toy("ball", 5.0, discount=0.2)
    assert toy.name == "ball" and toy.price.dtype == ek.float32
    assert float(toy.price) == pytest.approx(4.0)
    assert repr(toy).startswith("Toy(name='ball', price=")


def test_equality_compares_type_spec_and_values():
    a = MaskedTensor([1, 2], [True, False])
    b = MaskedTensor([[3, 4], [5, 6]], [[False, True], [True, True]])
    assert bool(a == a) is True and isinstance(a == a, ek.Tensor)
    assert (a == b) is False  # another spec (shape)
    assert (a == a.values) is False
    c = MaskedTensor([1, 3], [True, False])
    assert bool(a == c) is False and bool(a != c) is True


def test_specs_describe_values_without_their_contents():
    class Player(ET):
        name: ek.Tensor
        attributes: Mapping[str, ek.Tensor]

    anne = Player("Anne", {"height": 8.3, "speed": 28.1})
    spec = ek.type_spec_from_value(anne)
    assert isinstance(spec, Player.Spec) and spec.value_type is Player
    assert spec.name == ek.TensorSpec([], ek.string)
    assert dict(spec.attributes) == {
        "height": ek.TensorSpec([], ek.float32),
        "speed": ek.TensorSpec([], ek.float32),
    }
    assert spec == ek.type_spec_from_value(Player("Bart", {"height": 8.1, "speed": 25.3}))
    assert hash(spec) == hash(
        ek.type_spec_from_value(Player("Bart", {"height": 1.0, "speed": 2.0}))
    )
    assert spec != ek.type_spec_from_value(Player("Chuck", {"height": 11.0, "jump": 5.3}))
    general = Player.Spec(name=ek.TensorSpec(None, ek.string), attributes={})
    assert general.is_compatible_with(Player("Dee", {}))
    assert not general.is_compatible_with(anne)  # other keys
    assert ek.type_spec_from_value(ek.constant([1.0, 2.0])) == ek.TensorSpec([2], ek.float32)


def test_a_user_spec_class_customizes_the_generated_one():
    class Masked(ET):
        values: ek.Tensor
        mask: ek.Tensor

        class Spec:
            def __init__(self, shape, dtype=ek.float32):
                self.values = ek.TensorSpec(shape, dtype)
                self.mask = ek.TensorSpec(shape, ek.bool)

            shape = property(lambda self: self.values.shape)

    spec = Masked.Spec([None, 2])
    assert spec.shape.as_list() == [None, 2] and spec.mask.dtype == ek.bool
    assert spec.is_compatible_with(Masked([[1.0, 2.0]], [[True, False]]))
    assert not spec.is_compatible_with(Masked([[1.0, 2.0, 3.0]], [[True, False, True]]))


def test_elementwise_dispatch_runs_the_registered_handlers():
    @ek.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)

    @ek.experimental.dispatch_for_binary_elementwise_apis(
        Union[MaskedTensor, ek.Tensor],  # noqa: UP007 (the guide's spelling)
        MaskedTensor | ek.Tensor,
    )
    def binary(api_func, x, y):
        x = x if isinstance(x, MaskedTensor) else MaskedTensor(x, ek.ones_like(x, ek.bool))
        y = y if isinstance(y, MaskedTensor) else MaskedTensor(y, ek.ones_like(y, ek.bool))
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)

    try:
        x = MaskedTensor([1, -2, -3], [True, False, True])
        np.testing.assert_array_equal(ek.abs(x).values.numpy(), [1, 2, 3])
        ones = ek.ones_like(x, dtype=ek.float32)
        assert ones.values.dtype == ek.float32 and ones.mask is x.mask
        y = MaskedTensor([[4], [5]], [[True], [False]])
        total = ek.math.add(x, y)
        np.testing.assert_array_equal(total.values.numpy(), [[5, 2, 1], [6, 3, 2]])
        np.testing.assert_array_equal(total.mask.numpy(), [[True, False, True], [False] * 3])
        mixed = ek.math.maximum(x, ek.constant([0, 0, 0]))
        np.testing.assert_array_equal(mixed.values.numpy(), [1, 0, 0])
    finally:
        ek.experimental.unregister_dispatch_for(unary)
        ek.experimental.unregister_dispatch_for(binary)
    with pytest.raises(TypeError, match="not supported for a MaskedTensor"):
        ek.abs(x)
    with pytest.raises(ValueError, match="was not registered"):
        ek.experimental.unregister_dispatch_for(unary)


def test_dispatch_for_api_runs_handlers_for_the_dispatchable_apis():
    @ek.experimental.dispatch_for_api(ek.stack)
    def masked_stack(values: List[MaskedTensor], axis=0):  # noqa: UP006
        return MaskedTensor(
            ek.stack([v.values for v in values], axis), ek.stack([v.mask for v in values], axis)
        )

    try:
        x = MaskedTensor([1, 2, 3], [True, True, False])
        y = MaskedTensor([4, 5, 6], [False, True, True])
        out = ek.stack([x, y])
        assert isinstance(out, MaskedTensor) and out.values.shape == (2, 3)
        np.testing.assert_array_equal(ek.stack([ek.constant(1), ek.constant(2)]).numpy(), [1, 2])
    finally:
        ek.experimental.unregister_dispatch_for(masked_stack)
    with pytest.raises(ValueError, match="'transpose' does not support dispatch"):
        ek.experimental.dispatch_for_api(ek.transpose)


def test_function_traces_by_spec_and_accepts_specs_as_signatures():
    class Pastry(ET):
        sweetness: ek.Tensor
        chewiness: ek.Tensor

    traces = []

    @ek.function
    def combine(x: Pastry):
        traces.append(1)
        return (x.sweetness + x.chewiness) / 2

    cookie = Pastry(sweetness=[1.2, 0.4], chewiness=[0.8, 0.2])
    np.testing.assert_allclose(combine(cookie).numpy(), [1.0, 0.3], rtol=1e-6)
    np.testing.assert_allclose(combine(Pastry([2.0, 0.0], [0.0, 2.0])).numpy(), [1.0, 1.0])
    assert len(traces) == 1  # new values, the same spec: no retrace
    combine(Pastry([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]))
    assert len(traces) == 2

    spec = Pastry.Spec(ek.TensorSpec([2]), ek.TensorSpec([2]))

    @ek.function(input_signature=[spec])
    def sweeter(x: Pastry, delta=1.0):
        return Pastry(x.sweetness + delta, x.chewiness)

    np.testing.assert_allclose(sweeter(cookie).sweetness.numpy(), [2.2, 1.4], rtol=1e-6)
    with pytest.raises(TypeError):
        sweeter(Pastry([1.0], [1.0]))


def test_batchable_values_slice_batch_and_unbatch_in_datasets_and_map_fn():
    mt = MaskedTensor(ek.reshape(range(12), [3, 4]), ek.ones([3, 4], ek.bool))
    rows = list(ek.data.Dataset.from_tensor_slices(mt))
    assert len(rows) == 3 and all(isinstance(r, MaskedTensor) for r in rows)
    np.testing.assert_array_equal(rows[2].values.numpy(), [8, 9, 10, 11])
    batched = list(ek.data.Dataset.from_tensor_slices(mt).batch(2))
    assert [b.values.shape.as_list() for b in batched] == [[2, 4], [1, 4]]
    again = list(ek.data.Dataset.from_tensor_slices(mt).batch(2).unbatch())
    assert [r.values.numpy().tolist() for r in again] == [r.values.numpy().tolist() for r in rows]
    doubled = ek.map_fn(lambda m: MaskedTensor(m.values * 2, m.mask), mt)
    np.testing.assert_array_equal(doubled.values.numpy(), mt.values.numpy() * 2)

    def gen():
        for i in range(2, 4):
            yield MaskedTensor(range(4), [j % i != 0 for j in range(4)])

    ds = ek.data.Dataset.from_generator(
        gen,
        output_signature=MaskedTensor.Spec(
            ek.TensorSpec([4], ek.int32), ek.TensorSpec([4], ek.bool)
        ),
    )
    masks = [m.mask.numpy().tolist() for m in ds]
    assert masks == [[False, True, False, True], [False, True, True, False]]


def test_control_flow_carries_extension_types():
    a = MaskedTensor([1.0, 2, 3], [True, False, True])
    b = MaskedTensor([22.0, 33, 108, 55], [True, True, True, False])
    assert ek.cond(ek.constant(True), lambda: a, lambda: b) is a
    _, out = ek.while_loop(
        lambda i, _: i < 3, lambda i, m: (i + 1, MaskedTensor(m.values + 1, m.mask)), [0, b]
    )
    np.testing.assert_allclose(out.values.numpy(), [25, 36, 111, 58])


def test_optional_fields_and_unions():
    class Maybe(ET):
        value: Optional[ek.Tensor] = None  # noqa: UP045
        label: Union[int, str] = 0  # noqa: UP007

    assert Maybe().value is None and Maybe(3.0).value.dtype == ek.float32
    assert Maybe(label="x").label == "x"
    with pytest.raises(TypeError, match=r"Maybe\.label: expected one of"):
        Maybe(label=1.5)


def test_function_returning_an_extension_type_replays_its_program():
    class Player(ET):
        name: ek.Tensor
        attributes: Mapping[str, ek.Tensor]

    traces = []

    @ek.function
    def anonymize(player):
        traces.append(1)
        return Player("<anonymous>", player.attributes)

    a = anonymize(Player("Anne", {"height": 8.3, "speed": 28.1}))
    b = anonymize(Player("Bart", {"height": 8.1, "speed": 25.3}))  # same spec: replayed
    assert len(traces) == 1
    assert isinstance(b, Player) and float(b.attributes["height"]) == pytest.approx(8.1)
    assert b.name.numpy() == b"<anonymous>" and float(a.attributes["speed"]) == pytest.approx(28.1)
    c = anonymize(Player("Chuck", {"height": 11.0, "jump": 5.3}))  # new keys: a new trace
    assert len(traces) == 2 and float(c.attributes["jump"]) == pytest.approx(5.3)
    spec = anonymize.get_concrete_function(b).structured_outputs
    assert isinstance(spec, Player.Spec) and spec.name == ek.TensorSpec([], ek.string)
    x = ek.Variable(2.0)

    @ek.function
    def scaled(m):
        return Player(m.name, {"v": m.attributes["v"] * x})

    with ek.GradientTape() as tape:
        out = scaled(Player("p", {"v": 3.0}))
    assert float(tape.gradient(out.attributes["v"], x)) == pytest.approx(3.0)


def test_saving_a_function_that_returns_an_extension_type_raises(tmp_path):
    class Pair(ET):
        a: ek.Tensor

    class Maker(ek.Module):
        @ek.function(input_signature=[ek.TensorSpec([2], ek.float32)])
        def make(self, x):
            return Pair(x * 2.0)

    module = Maker()
    np.testing.assert_array_equal(module.make(ek.constant([1.0, 2.0])).a.numpy(), [2.0, 4.0])
    with pytest.raises(NotImplementedError, match="function make returns an ExtensionType"):
        ek.saved_model.save(module, str(tmp_path))


def test_a_class_made_in_a_function_keeps_only_the_locals_its_annotations_name():
    import weakref

    class Big:
        pass

    def make(value):
        local_big = value  # noqa: F841 (a local the class must not keep alive)

        class Inner(ET):
            value: ek.Tensor
            child: Optional[Inner] = None  # noqa: UP045

        return Inner

    big = Big()
    ref = weakref.ref(big)
    inner = make(big)
    assert float(inner(1.0, inner(2.0)).child.value) == 2.0
    del big
    assert ref() is None
