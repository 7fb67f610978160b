"""TensorFlow's guides "Better performance with tf.function" (site/en/guide/function.ipynb) and
"Introduction to graphs and tf.function" (intro_to_graphs.ipynb), run with eagerkernel: the
cells that failed, as tests against the guides' printed outputs and TensorFlow's documented
behaviour."""

import numpy as np
import pytest

import eagerkernel as ek


def _double():
    @ek.function
    def double(a):
        print("Tracing with", a)
        return a + a

    return double


# -- polymorphism and strings (guide cells 7, 8, 16, 17) --------------------------------------


def test_string_scalars_add_to_a_string_scalar():
    a = ek.constant("a")
    out = a + ek.constant("b")
    assert out.dtype == ek.string and out.shape == ()
    assert out.numpy() == b"ab"
    assert str(out) == "Tensor(b'ab', shape=(), dtype=string)"
    assert list(ek.add(ek.constant(["x", "y"]), a).numpy()) == [b"xa", b"ya"]
    assert (a + "c").numpy() == b"ac" and ("c" + a).numpy() == b"ca"
    with ek.GradientTape():  # a recorder active: the dispatcher's observed path
        observed = a + a
    assert observed.numpy() == b"aa" and observed.shape == ()


def test_double_traces_once_per_dtype_and_adds_strings(capsys):
    double = _double()
    assert int(double(ek.constant(1))) == 2
    assert np.isclose(float(double(ek.constant(1.1))), 2.2)
    out = double(ek.constant("a"))
    assert out.dtype == ek.string and out.numpy() == b"aa"
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        "Tracing with Tensor(1, shape=(), dtype=int32)",
        "Tracing with Tensor(1.1, shape=(), dtype=float32)",
        "Tracing with Tensor(b'a', shape=(), dtype=string)",
    ]
    # Same signature: replayed, nothing printed (printing a tensor while tracing is no guard).
    assert double(ek.constant("b")).numpy() == b"bb"
    assert double(ek.constant(7)).numpy() == 14
    assert capsys.readouterr().out == ""
    assert double.experimental_get_tracing_count() == 3


def test_string_concrete_functions(capsys):
    double = _double()
    double_strings = double.get_concrete_function(ek.constant("a"))
    assert double_strings(ek.constant("a")).numpy() == b"aa"
    assert double_strings(a=ek.constant("b")).numpy() == b"bb"
    from_spec = double.get_concrete_function(ek.TensorSpec(shape=[], dtype=ek.string))
    assert from_spec(ek.constant("c")).numpy() == b"cc"
    spec = ek.TensorSpec(shape=(), dtype=ek.string)
    assert double_strings.structured_outputs == spec
    # guide cell 19
    assert str(double_strings.function_type) == f"(a: {spec!r}) -> {spec!r}"
    # guide cell 20: TensorFlow checks the flat inputs' dtypes when the function runs
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=r"cannot compute __inference_double_\d+ as input #0\(zero-based\) was expected "
        r"to be a string tensor but is a int32 tensor",
    ):
        double_strings(ek.constant(1))
    # guide cell 24
    atomic_fn = double_strings.inference_fn
    assert atomic_fn.name.startswith("__inference_double_")
    assert atomic_fn(ek.constant("z")).numpy() == b"zz"
    with pytest.raises(TypeError, match="takes 1 tensor input"):
        atomic_fn()


def test_function_type_shows_fixed_python_values():
    @ek.function
    def power(a, b):
        return a**b

    square = power.get_concrete_function(ek.constant([1.0, 2.0]), 2)
    assert str(square.function_type) == (
        "(a: TensorSpec(shape=(2,), dtype=ek.float32, name=None), b: Literal[2]) -> "
        "TensorSpec(shape=(2,), dtype=ek.float32, name=None)"
    )
    assert square.function_type.parameters["b"] == 2


# -- the graph view (guide cells 23, 28; intro_to_graphs cell 6) ----------------------------


def test_graph_nodes_of_double_strings():
    double_strings = _double().get_concrete_function(ek.constant("a"))
    graph = double_strings.graph
    lines = [f"{node.input} -> {node.name}" for node in graph.as_graph_def().node]
    assert lines == ["[] -> a", "['a', 'a'] -> AddV2", "['AddV2'] -> Identity"]
    ops = graph.get_operations()
    assert [(op.name, op.type) for op in ops] == [
        ("a", "Placeholder"),
        ("AddV2", "AddV2"),
        ("Identity", "Identity"),
    ]
    assert [t.name for t in ops[1].inputs] == ["a:0", "a:0"]
    assert ops[1].outputs[0].dtype == ek.string and ops[1].outputs[0].shape == ()
    assert graph.get_operation_by_name("AddV2") is ops[1]
    assert [t.name for t in graph.inputs] == ["a:0"]
    assert [t.name for t in graph.outputs] == ["Identity:0"]
    text = str(graph.as_graph_def())
    assert text.count("node {") == 3 and 'op: "AddV2"' in text and "DT_STRING" in text
    with pytest.raises(KeyError, match="no operation named 'Mul'"):
        graph.get_operation_by_name("Mul")
    with pytest.raises(NotImplementedError, match="add_shapes"):
        graph.as_graph_def(add_shapes=True)


def test_graph_names_repeated_ops_captures_and_constants():
    v = ek.Variable(2.0, name="scale")

    @ek.function
    def f(x):
        v.assign_add(1.0)
        return x * v + 1.0, x * x

    concrete = f.get_concrete_function(ek.constant([1.0, 2.0]))
    nodes = {n.name: n for n in concrete.graph.as_graph_def().node}
    assert nodes["x"].op == "Placeholder" and nodes["x"].attr["dtype"] == ek.float32
    assert nodes["ReadVariableOp"].input == ["scale"]
    assert nodes["Mul"].input == ["x", "ReadVariableOp"]
    assert nodes["Mul_1"].input == ["x", "x"]
    assert nodes["AddV2"].input == ["Mul", "Const"]
    assert nodes["AssignAdd"].input == ["scale"]
    assert sorted(n for n in nodes if n.startswith("Identity")) == ["Identity", "Identity_1"]


def test_graph_size_grows_with_an_unrolled_python_loop():
    @ek.function
    def train(dataset):
        loss = ek.constant(0)
        for x, y in dataset:
            loss += ek.abs(y - x)
        return loss

    def size(data):
        return len(train.get_concrete_function(data).graph.as_graph_def().node)

    def pairs(n):
        return [(ek.constant(i), ek.constant(2 * i)) for i in range(n)]

    small, big = size(pairs(3)), size(pairs(10))
    # each element: two inputs, Sub, Abs and AddV2 (the first AddV2 adds a Const)
    assert big - small == 7 * 5


def test_graph_of_a_concrete_function_not_traced_yet():
    concrete = _double().get_concrete_function(ek.TensorSpec([], ek.int32))
    with pytest.raises(ValueError, match="not traced yet"):
        _ = concrete.graph


# -- tf.types.experimental and TraceType (guide cell 15) --------------------------------------


def test_a_trace_type_makes_objects_share_a_trace():
    @ek.function
    def get_mixed_flavor(fruit_a, fruit_b):
        return fruit_a.flavor + fruit_b.flavor

    class Fruit:
        flavor = ek.constant([0, 0])

    class Apple(Fruit):
        flavor = ek.constant([1, 2])

    class Mango(Fruit):
        flavor = ek.constant([3, 4])

    get_mixed_flavor(Apple(), Mango())
    get_mixed_flavor(Apple(), Mango())
    assert get_mixed_flavor.experimental_get_tracing_count() == 2  # by identity

    class FruitTraceType(ek.types.experimental.TraceType):
        def __init__(self, fruit):
            self.fruit_type = type(fruit)
            self.fruit_value = fruit

        def is_subtype_of(self, other):
            return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

        def most_specific_common_supertype(self, others):
            return self if all(self == other for other in others) else None

        def placeholder_value(self, placeholder_context=None):
            return self.fruit_value

        def __eq__(self, other):
            return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

        def __hash__(self):
            return hash(self.fruit_type)

    class FruitWithTraceType:
        def __tf_tracing_type__(self, context):
            return FruitTraceType(self)

    class AppleWithTraceType(FruitWithTraceType):
        flavor = ek.constant([1, 2])

    class MangoWithTraceType(FruitWithTraceType):
        flavor = ek.constant([3, 4])

    out = get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType())
    assert get_mixed_flavor.experimental_get_tracing_count() == 3
    again = get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType())
    assert get_mixed_flavor.experimental_get_tracing_count() == 3  # re-used
    assert list(out.numpy()) == list(again.numpy()) == [4, 6]
    with pytest.raises(TypeError, match="abstract"):
        ek.types.experimental.TraceType()


def test_function_classes_are_the_experimental_types():
    f = ek.function(lambda x: x + 1)
    assert isinstance(f, ek.types.experimental.GenericFunction)
    assert isinstance(f, ek.types.experimental.PolymorphicFunction)
    concrete = f.get_concrete_function(ek.constant(1.0))
    assert isinstance(concrete, ek.types.experimental.ConcreteFunction)
    assert isinstance(concrete.function_type, ek.types.experimental.FunctionType)


# -- tf.dtypes (intro_to_graphs cell 23) ------------------------------------------------------


def test_dtypes_module():
    assert ek.dtypes.int32 is ek.int32 and ek.dtypes.float32 is ek.float32
    assert ek.dtypes.string is ek.string and ek.dtypes.float64 is ek.double
    assert ek.dtypes.as_dtype(np.float32) is ek.float32
    assert isinstance(ek.dtypes.int64, ek.dtypes.DType)
    assert ek.dtypes.cast(ek.constant(1.7), ek.dtypes.int32).numpy() == 1
    x = ek.random.uniform(shape=[4, 4], minval=-1, maxval=2, dtype=ek.dtypes.int32)
    assert x.dtype == ek.int32


# -- autograph.to_code (guide cell 26, intro_to_graphs cell 5) --------------------------------


def _simple_relu(x):
    if ek.greater(x, 0):
        return x
    return 0


def test_to_code_is_the_functions_own_source_with_a_note():
    code = ek.autograph.to_code(ek.function(_simple_relu))
    note, source = code.split("\n", 2)[:2], code.split("\n", 2)[2]
    assert all(line.startswith("# ") for line in note) and "no AutoGraph" in note[0]
    assert source.startswith("def _simple_relu(x):\n    if ek.greater(x, 0):")
    assert ek.autograph.to_code(_simple_relu) == code


def test_to_code_of_exec_code_and_non_functions():
    namespace = {}
    exec(compile("def g(x):\n    return x\n", "cell4", "exec"), namespace)
    with pytest.raises(OSError, match="source of g is not available: it was defined in 'cell4'"):
        ek.autograph.to_code(namespace["g"])
    with pytest.raises(TypeError, match="expected a Python function"):
        ek.autograph.to_code(3)


# -- Python return values, leaks, recursion (guide cells 40, 42; intro_to_graphs cell 4) ----


def test_python_return_values_become_tensors():
    tf_simple_relu = ek.function(_simple_relu)
    first = tf_simple_relu(ek.constant(1))
    second = tf_simple_relu(ek.constant(-1))
    assert first.numpy() == 1
    assert isinstance(second, ek.Tensor) and second.numpy() == 0 and second.dtype == ek.int32
    assert tf_simple_relu(ek.constant(-5)).numpy() == 0  # replayed branch, same output


def test_a_leaked_tensor_cannot_be_captured_by_a_later_trace():
    leaked = {}

    @ek.function
    def leaky_function(a):
        leaked["x"] = a + 1
        return leaked["x"]

    correct_a = leaky_function(ek.constant(1))
    assert correct_a.numpy() == 2
    assert correct_a is not leaked["x"]

    @ek.function
    def captures_leaked_tensor(b):
        b += leaked["x"]
        return b

    with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
        captures_leaked_tensor(ek.constant(2))

    @ek.function
    def captures_returned_tensor(b):
        return b + correct_a  # a return value is the caller's, not leaked

    assert captures_returned_tensor(ek.constant(2)).numpy() == 4


def test_a_function_calling_itself_with_its_signature_raises():
    @ek.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        return 1

    with pytest.raises(RecursionError, match="recursive_fn calls itself, while being traced"):
        recursive_fn(ek.constant(5))
    out = recursive_fn(3)  # Python values: a new signature at each level, as in TensorFlow
    assert isinstance(out, ek.Tensor) and out.numpy() == 1
