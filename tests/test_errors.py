"""`ek.errors`: TensorFlow's error classes, raised where TensorFlow raises them.

Each op call below asserts the exact class and what the message names (the op, the shapes).
Where TensorFlow is importable, the oracle tests run the same calls on it and compare the
classes; they skip otherwise (TensorFlow is not a dependency).
"""

from __future__ import annotations

import pickle
import time
import tracemalloc

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core import allocation
from eagerkernel.runtime.io.checkpoint import (
    CheckpointError,
    list_variables,
    load_checkpoint_arrays,
)

E = ek.errors
IAE = E.InvalidArgumentError

# -- the classes --------------------------------------------------------------------------------

CLASSES = [
    ("CancelledError", 1, None),
    ("UnknownError", 2, None),
    ("InvalidArgumentError", 3, ValueError),
    ("DeadlineExceededError", 4, TimeoutError),
    ("NotFoundError", 5, FileNotFoundError),
    ("AlreadyExistsError", 6, FileExistsError),
    ("PermissionDeniedError", 7, PermissionError),
    ("ResourceExhaustedError", 8, MemoryError),
    ("FailedPreconditionError", 9, RuntimeError),
    ("AbortedError", 10, None),
    ("OutOfRangeError", 11, StopIteration),
    ("UnimplementedError", 12, NotImplementedError),
    ("InternalError", 13, None),
    ("UnavailableError", 14, None),
    ("DataLossError", 15, None),
    ("UnauthenticatedError", 16, None),
]
CODES = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
]


@pytest.mark.parametrize("name, code, builtin", CLASSES)
def test_class_code_base_and_constructors(name, code, builtin):
    cls = getattr(ek.errors, name)
    assert issubclass(cls, E.OpError) and cls.error_code == code
    assert getattr(ek.errors, CODES[code]) == code
    if builtin is not None:
        assert issubclass(cls, builtin)
    # TensorFlow's constructor (node_def, op, message) and the runtime's (message).
    e = cls(None, "MatMul", "shapes (2, 3) and (2, 3)")
    assert (e.message, e.op, e.node_def, e.error_code) == (
        "shapes (2, 3) and (2, 3)",
        "MatMul",
        None,
        code,
    )
    assert str(e) == "shapes (2, 3) and (2, 3)" and e.experimental_payloads == {}
    assert cls("just a message").message == "just a message"
    with pytest.raises(E.OpError, match="boom"):
        raise cls(None, None, "boom")


@pytest.mark.parametrize("name, code, builtin", CLASSES)
def test_errors_pickle_with_class_message_and_op(name, code, builtin):
    e = getattr(ek.errors, name)(None, "Reshape", f"{name} happened")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e)
    assert (back.message, back.op, back.error_code, str(back)) == (
        e.message,
        "Reshape",
        code,
        e.message,
    )


def test_op_error_keeps_its_code_through_pickle():
    e = E.OpError(None, None, "custom", E.ABORTED)
    assert e.error_code == E.ABORTED == 10
    assert pickle.loads(pickle.dumps(e)).error_code == E.ABORTED


def test_namespace_has_tensorflows_names():
    names = {n for n, _, _ in CLASSES} | set(CODES) | {"OpError", "OperatorNotAllowedInGraphError"}
    assert names <= set(dir(ek.errors))
    assert issubclass(E.OperatorNotAllowedInGraphError, TypeError)
    assert not issubclass(E.OperatorNotAllowedInGraphError, E.OpError)  # as in TensorFlow


def test_builtins_still_catch_the_new_classes():
    with pytest.raises(ValueError):
        ek.reshape(ek.zeros(6), [4])
    with pytest.raises(MemoryError):
        ek.zeros([10**6, 10**6, 10])
    with pytest.raises(StopIteration):
        iter(ek.data.Dataset.range(0)).get_next()
    with pytest.raises(FileNotFoundError):
        ek.train.Checkpoint().restore("/nonexistent/ckpt-1")


# -- ops: exact class and message ---------------------------------------------------------------

X = ek.reshape(ek.range(12.0), (3, 4))

OPS = [
    (
        lambda: ek.reshape(X, [5, 2]),
        IAE,
        r"reshape: .*shape \(3, 4\) \(12 elements\) into shape \(5, 2\)",
    ),
    (lambda: ek.reshape(X, [-1, -1]), IAE, r"reshape: .*only one dimension may be -1"),
    (
        lambda: ek.matmul(X, X),
        IAE,
        r"matmul: inner dimensions differ: a has shape \(3, 4\) and b has shape \(3, 4\)",
    ),
    (
        lambda: ek.matmul(ek.zeros((2, 3, 4)), ek.zeros((5, 4, 2))),
        IAE,
        r"matmul: batch dimensions \(2,\) and \(5,\)",
    ),
    (lambda: ek.matmul(ek.zeros(3), X), IAE, r"matmul: .*rank >= 2.*a: \(3,\)"),
    (lambda: ek.concat([X, ek.zeros((3, 5))], 0), IAE, r"concat: .*shapes \(3, 4\) and \(3, 5\)"),
    (lambda: ek.concat([X, X], 2), IAE, r"concat: axis 2 is out of range \[-2, 2\)"),
    (lambda: ek.stack([X, ek.zeros((4, 3))]), IAE, r"stack: .*\(3, 4\) and values\[1\]: \(4, 3\)"),
    (lambda: ek.tensordot(X, X, 1), IAE, r"tensordot: contracted dimensions differ: a\[3, 4\]"),
    (
        lambda: ek.einsum("ij,jk->ik", X, X),
        IAE,
        r"einsum: index 'j' has sizes 4 and 3 .*\(3, 4\), \(3, 4\)",
    ),
    (
        lambda: ek.gather(X, [0, 3]),
        IAE,
        r"gather: index 3 is out of range \[0, 3\) for axis 0 of shape \(3, 4\)",
    ),
    (lambda: X[5], IAE, r"getitem: index 5 is out of range \[-3, 3\) for axis 0 of shape \(3, 4\)"),
    (lambda: X[0, 0, 0], IAE, r"getitem: 3 indices for a tensor of rank 2 \(shape \(3, 4\)\)"),
    (lambda: ek.one_hot([1, 2], -1), IAE, r"one_hot: depth must be non-negative, got depth=-1"),
    (
        lambda: ek.split(X, 3, axis=1),
        IAE,
        r"split: cannot split axis 1 of length 4 \(shape \(3, 4\)\) into 3",
    ),
    (
        lambda: ek.split(X, [1, 2], axis=1),
        IAE,
        r"split: size splits \[1, 2\] .* length 4 of axis 1",
    ),
    (lambda: ek.transpose(X, [0, 0]), IAE, r"transpose: perm \[0, 0\] .* shape \(3, 4\)"),
    (lambda: ek.tile(X, [2]), IAE, r"tile: multiples must be 2 .* shape \(3, 4\), got \[2\]"),
    (
        lambda: ek.reduce_sum(X, axis=2),
        IAE,
        r"reduce_sum: axis 2 is out of range for a tensor of rank 2",
    ),
    (lambda: ek.argmax(ek.zeros((0, 2))), IAE, r"argmax: axis 0 of shape \(0, 2\) is empty"),
    (lambda: ek.nn.softmax(ek.constant(1.0)), IAE, r"softmax: input must have rank >= 1"),
    (
        lambda: ek.squeeze(X, [0]),
        IAE,
        r"squeeze: cannot squeeze axis 0 of a tensor of shape \(3, 4\)",
    ),
    (lambda: ek.broadcast_to(X, [4, 4]), IAE, r"broadcast_to: .*shape \(3, 4\) to shape \(4, 4\)"),
    (
        lambda: ek.where(ek.constant([True, False]), X, X),
        IAE,
        r"where: .*condition: \(2,\), x: \(3, 4\), y: \(3, 4\)",
    ),
    (
        lambda: ek.pow(ek.constant([2]), ek.constant([-1])),
        IAE,
        r"pow: integers to negative integer powers",
    ),
    (
        lambda: ek.range(5, 1),
        IAE,
        r"range: requires start <= limit when delta > 0, got start=5, limit=1",
    ),
    (lambda: ek.range(0, 5, 0), IAE, r"range: requires delta != 0"),
    (
        lambda: ek.fill([2], ek.constant([1, 2])),
        IAE,
        r"fill: value must be a scalar, got shape \(2,\)",
    ),
    (lambda: ek.zeros([2, -1]), IAE, r"zeros: shape must be non-negative, got \(2, -1\)"),
    (
        lambda: ek.nn.conv2d(ek.zeros((1, 5, 5, 3)), ek.zeros((3, 3, 2, 4)), 1, "SAME"),
        IAE,
        r"conv2d: input has 3 channels but filters expect 2 \(input shape \(1, 5, 5, 3\)",
    ),
    (
        lambda: ek.nn.conv2d(ek.zeros((1, 5, 5, 4)), ek.zeros((3, 3, 2, 4)), 1, "SAME"),
        E.UnimplementedError,
        r"conv2d: input has 4 channels .* Grouped convolutions",
    ),
    (
        lambda: ek.nn.conv2d(
            ek.zeros((1, 3, 5, 5)), ek.zeros((3, 3, 3, 2)), 1, "SAME", data_format="NCHW"
        ),
        E.UnimplementedError,
        r"conv2d: data_format='NCHW' is not supported",
    ),
    (
        lambda: ek.nn.sparse_softmax_cross_entropy_with_logits(
            labels=[0, 3], logits=ek.zeros((2, 3))
        ),
        IAE,
        r"label value of 3 .* \[0, 3\) .*\(2, 3\)",
    ),
    (
        lambda: ek.nn.softmax_cross_entropy_with_logits(
            labels=ek.zeros((2, 4)), logits=ek.zeros((2, 3))
        ),
        IAE,
        r"labels of shape \(2, 4\) .* logits of shape \(2, 3\)",
    ),
    (
        lambda: ek.nn.bias_add(X, ek.zeros(3)),
        IAE,
        r"bias_add: bias of shape \(3,\) .* value of shape \(3, 4\)",
    ),
    (
        lambda: ek.keras.losses.sparse_categorical_crossentropy([5], [[0.5, 0.5]]),
        IAE,
        r"label value of 5 .* \[0, 2\)",
    ),
    (
        lambda: ek.keras.layers.Embedding(4, 2)(np.array([4])),
        IAE,
        r"gather: index 4 is out of range \[0, 4\)",
    ),
    (
        lambda: ek.clip_by_value(X, ek.zeros([2, 3, 4]), 1.0),
        IAE,
        r"clip_by_value: the bounds \(shapes \(2, 3, 4\) and \(\)\) would broadcast t of shape",
    ),
    (
        lambda: ek.random.uniform([2], 5, 1, dtype=ek.int32),
        IAE,
        r"random.uniform: need minval < maxval, got minval=5, maxval=1",
    ),
    # TensorFlow checks these in Python, with plain ValueError or TypeError.
    (lambda: ek.stack([X, X], axis=3), ValueError, r"stack: axis 3 is out of range"),
    (lambda: ek.unstack(ek.constant(1.0)), ValueError, r"unstack: cannot unstack a scalar"),
    (lambda: ek.pad(X, [[0, 0], [0, 0]], "EDGE"), ValueError, r"pad: mode must be"),
    (lambda: ek.cast(X, None), TypeError, r"cast: dtype must be a dtype .*got None"),
    # TF: InvalidArgumentError ("Value for attr 'TI' of float"); also a TypeError here
    (
        lambda: ek.one_hot([0.5], 2),
        E.UnsupportedDTypeError,
        r"one_hot: indices must be integers, got float32",
    ),
]


@pytest.mark.parametrize("call, cls, match", OPS)
def test_ops_raise_tensorflows_class_with_a_message_naming_op_and_shapes(call, cls, match):
    with pytest.raises(cls, match=match) as info:
        call()
    assert type(info.value) is cls  # exactly that class, not a subclass or a sibling
    assert "Traceback" not in str(info.value)
    if isinstance(info.value, E.OpError):
        assert info.value.message == str(info.value)


def test_mixed_dtypes_raise_invalid_argument_that_is_a_type_error():
    # TensorFlow's kernels raise InvalidArgumentError for float32 + int32 (its guides catch
    # tf.errors.InvalidArgumentError); code written for eagerkernel catches TypeError.
    calls = [
        lambda: ek.add(X, ek.zeros((3, 4), ek.int32)),
        lambda: X + ek.zeros((3, 4), ek.int32),  # the C fast path's fallback
        lambda: ek.matmul(X, ek.zeros((4, 3), ek.float64)),
        lambda: ek.add(np.array(1, np.int8), ek.constant(1)),  # TF's type promotion guide
    ]
    for call in calls:
        with pytest.raises(
            E.InvalidArgumentError, match=r"inputs must have the same dtype"
        ) as info:
            call()
        assert type(info.value) is E.DTypeMismatchError
        assert isinstance(info.value, TypeError)
        assert info.value.error_code == E.INVALID_ARGUMENT
        assert info.value.message == str(info.value)


def test_errors_leave_no_half_made_state():
    v = ek.Variable([1.0, 2.0])
    with pytest.raises(IAE):
        v.assign_add(ek.reshape(ek.zeros(6), [4]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_errors_raised_on_a_tape_are_the_same():
    x = ek.Variable(X)
    with ek.GradientTape() as tape:
        with pytest.raises(IAE, match=r"reshape: .*\(3, 4\)"):
            ek.reshape(x, [5, 2])
        with pytest.raises(IAE, match=r"getitem: index 7"):
            x[:, 7]
        y = ek.reduce_sum(x * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.full((3, 4), 2.0))


# -- huge allocations ---------------------------------------------------------------------------

HUGE = [10**6, 10**6, 10]

ALLOCATIONS = [
    ("zeros", lambda: ek.zeros(HUGE), "float32"),
    ("ones", lambda: ek.ones(HUGE, dtype=ek.int64), "int64"),
    ("fill", lambda: ek.fill(HUGE, 1.5), "float32"),
    ("eye", lambda: ek.eye(10**7, dtype=ek.float64), "float64"),
    ("range", lambda: ek.range(10**13), "int64"),  # past int32: an int64 limit, as in TF
    ("one_hot", lambda: ek.one_hot([1, 2], 10**13), "float32"),
    ("tile", lambda: ek.tile(ek.zeros((2, 2)), [10**6, 10**6]), "float32"),
    ("random.normal", lambda: ek.random.normal(HUGE), "float32"),
    ("random.uniform", lambda: ek.random.uniform(HUGE, dtype=ek.float64), "float64"),
    ("random.truncated_normal", lambda: ek.random.truncated_normal(HUGE), "float32"),
]


@pytest.mark.parametrize("op, call, dtype", ALLOCATIONS, ids=[a[0] for a in ALLOCATIONS])
def test_huge_allocations_fail_fast_without_allocating(op, call, dtype):
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(E.ResourceExhaustedError) as info:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - t0
    msg = str(info.value)
    assert msg.startswith(f"{op}: OOM when allocating tensor with shape (")
    assert f"and type {dtype} on /cpu:0" in msg
    assert " bytes (" in msg and "requested" in msg and "available" in msg
    assert peak < 1 << 20, f"{op} allocated {peak} bytes before failing"
    assert elapsed < 5  # a sanity bound, far above the milliseconds it takes


def test_oom_message_names_the_exact_byte_count():
    with pytest.raises(E.ResourceExhaustedError) as info:
        ek.zeros(HUGE)
    assert "shape (1000000, 1000000, 10) and type float32" in str(info.value)
    assert f"{4 * 10**13} bytes (36.4 TiB) requested" in str(info.value)
    assert info.value.op == "zeros" and info.value.error_code == E.RESOURCE_EXHAUSTED


def test_the_allocators_own_failure_becomes_resource_exhausted(monkeypatch):
    # With free memory unknown, the request reaches NumPy, which refuses it ("array is too
    # big"): that refusal is reported as TensorFlow's OOM, not as NumPy's ValueError.
    monkeypatch.setattr(allocation, "available_bytes", lambda device=None: None)
    with pytest.raises(E.ResourceExhaustedError, match=r"zeros: OOM .*\(10000000000, 10000000000"):
        ek.zeros([10**10, 10**10, 10**10])
    with pytest.raises(E.ResourceExhaustedError, match=r"random.normal: OOM"):
        ek.random.normal([10**10, 10**10, 10**10])
    assert allocation.is_oom(MemoryError()) and not allocation.is_oom(ValueError("bad value"))


def test_small_and_moderate_allocations_are_untouched():
    assert ek.zeros([1000, 1000]).shape == (1000, 1000)
    assert ek.random.normal([3], seed=1).shape == (3,)
    free = allocation.available_bytes()
    assert free is None or free > 0


# -- Dataset iterators --------------------------------------------------------------------------


def test_get_next_raises_out_of_range_at_the_end():
    it = iter(ek.data.Dataset.range(2))
    assert int(it.get_next()) == 0 and int(it.get_next()) == 1
    with pytest.raises(E.OutOfRangeError, match=r"^End of sequence$") as info:
        it.get_next()
    assert type(info.value) is E.OutOfRangeError and info.value.error_code == E.OUT_OF_RANGE
    with pytest.raises(E.OutOfRangeError):  # and again
        it.get_next()


def test_next_and_for_loops_still_end_with_stop_iteration():
    it = ek.Iterator(ek.data.Dataset.range(1))
    assert int(next(it)) == 0
    with pytest.raises(StopIteration) as info:
        next(it)
    assert type(info.value) is StopIteration
    assert [int(x) for x in ek.data.Dataset.range(3)] == [0, 1, 2]
    it = iter(ek.data.Dataset.range(3))
    it.get_next()
    assert [int(x) for x in it] == [1, 2]


def test_get_next_as_optional():
    it = iter(ek.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0])).take(1))
    opt = it.get_next_as_optional()
    assert bool(opt.has_value()) and opt.has_value().dtype == ek.bool
    a, b = opt.get_value()
    assert (int(a), float(b)) == (1, 3.0)
    empty = it.get_next_as_optional()
    assert not bool(empty.has_value())
    with pytest.raises(IAE, match="does not have a value"):
        empty.get_value()
    assert ek.experimental.Optional.from_value(ek.constant(1)).has_value()
    assert not ek.experimental.Optional.empty(None).has_value()


def test_dataset_runtime_errors_are_invalid_argument():
    with pytest.raises(IAE, match="get_single_element: the dataset is empty"):
        ek.data.Dataset.range(0).get_single_element()
    with pytest.raises(IAE, match="more than one element"):
        ek.data.Dataset.range(2).get_single_element()
    ds = ek.data.Dataset.from_tensor_slices([[1, 2, 3]]).padded_batch(1, padded_shapes=[2])
    with pytest.raises(E.DataLossError, match="pad to a smaller size"):  # TF's kernel: DataLoss
        list(ds)

    def gen():
        yield np.zeros(3, np.float32)

    spec = ek.TensorSpec(shape=(2,), dtype=ek.float32)
    ds = ek.data.Dataset.from_generator(gen, output_signature=spec)
    with pytest.raises(IAE, match=r"yielded an element of shape \(3,\) where .* \(2,\)"):
        list(ds)
    batched = ek.data.Dataset.from_tensors((ek.zeros((2, 1)), ek.zeros((3, 1)))).unbatch()
    with pytest.raises(IAE, match=r"same first dimension; got shapes \(2, 1\), \(3, 1\)"):
        list(batched)


# -- checkpoints --------------------------------------------------------------------------------


def test_missing_checkpoint_is_not_found_with_the_same_message(tmp_path):
    prefix = tmp_path / "nothing-here"
    for call in (
        lambda: ek.train.Checkpoint(v=ek.Variable(1.0)).restore(str(prefix)),
        lambda: ek.train.Checkpoint(v=ek.Variable(1.0)).read(str(prefix)),
        lambda: list_variables(str(prefix)),
        lambda: load_checkpoint_arrays(str(prefix)),
    ):
        with pytest.raises(
            E.NotFoundError, match=r"nothing-here\.safetensors does not exist"
        ) as info:
            call()
        assert isinstance(info.value, (CheckpointError, FileNotFoundError, ValueError))
        assert info.value.error_code == E.NOT_FOUND
        back = pickle.loads(pickle.dumps(info.value))
        assert type(back) is type(info.value) and str(back) == str(info.value)


def test_corrupt_checkpoint_is_still_a_checkpoint_error(tmp_path):
    (tmp_path / "bad.safetensors").write_bytes(b"1234")
    with pytest.raises(CheckpointError, match="corrupt or truncated") as info:
        ek.train.Checkpoint(v=ek.Variable(1.0)).restore(str(tmp_path / "bad"))
    assert not isinstance(info.value, E.NotFoundError)


# -- TensorFlow as an oracle (skipped unless it is installed) -----------------------------------


def _generated(m, elements, shape):
    """A dataset whose element shapes are known only at run time (``from_generator``)."""
    first = elements[0]
    if isinstance(first, tuple):
        spec = tuple(m.TensorSpec(shape, m.float64) for _ in first)
    else:
        spec = m.TensorSpec(shape, m.int32)
    return m.data.Dataset.from_generator(lambda: iter(elements), output_signature=spec)


ORACLE = [
    ("reshape", lambda m: m.reshape(m.zeros((3, 4)), [5, 2])),
    ("reshape -1 twice", lambda m: m.reshape(m.zeros((3, 4)), [-1, -1])),
    ("matmul", lambda m: m.matmul(m.zeros((3, 4)), m.zeros((3, 4)))),
    ("concat", lambda m: m.concat([m.zeros((3, 4)), m.zeros((3, 5))], 0)),
    ("concat axis", lambda m: m.concat([m.zeros((3, 4)), m.zeros((3, 4))], 2)),
    ("stack shapes", lambda m: m.stack([m.zeros((3, 4)), m.zeros((4, 3))])),
    ("stack axis", lambda m: m.stack([m.zeros((3, 4)), m.zeros((3, 4))], axis=3)),
    ("einsum", lambda m: m.einsum("ij,jk->ik", m.zeros((3, 4)), m.zeros((3, 4)))),
    ("gather", lambda m: m.gather(m.zeros((3, 4)), [0, 3])),
    ("getitem", lambda m: m.zeros((3, 4))[5]),
    ("split", lambda m: m.split(m.zeros((3, 4)), 3, axis=1)),
    ("split sizes", lambda m: m.split(m.zeros((3, 4)), [1, 2], axis=1)),
    ("transpose", lambda m: m.transpose(m.zeros((3, 4)), [0, 0])),
    ("tile", lambda m: m.tile(m.zeros((3, 4)), [2])),
    ("reduce_sum axis", lambda m: m.reduce_sum(m.zeros((3, 4)), axis=2)),
    ("squeeze", lambda m: m.squeeze(m.zeros((3, 4)), [0])),
    ("broadcast_to", lambda m: m.broadcast_to(m.zeros((3, 4)), [4, 4])),
    ("range", lambda m: m.range(5, 1)),
    ("zeros negative", lambda m: m.zeros([2, -1])),
    ("one_hot depth", lambda m: m.one_hot([1, 2], -1)),
    (
        "conv2d channels",
        lambda m: m.nn.conv2d(m.zeros((1, 5, 5, 3)), m.zeros((3, 3, 2, 4)), 1, "SAME"),
    ),
    (
        "sparse xent labels",
        lambda m: m.nn.sparse_softmax_cross_entropy_with_logits(
            labels=[0, 3], logits=m.zeros((2, 3))
        ),
    ),
    ("tensordot", lambda m: m.tensordot(m.zeros((3, 4)), m.zeros((3, 4)), 1)),
    ("einsum rank", lambda m: m.einsum("ij,jk->ik", m.zeros((3, 4, 1)), m.zeros((4, 2)))),
    ("gather_nd", lambda m: m.gather_nd(m.zeros((3, 4)), [[0, 4]])),
    ("scatter_nd", lambda m: m.scatter_nd([[0]], m.zeros(2), [3])),
    ("slice", lambda m: m.slice(m.zeros((3, 4)), [2, 0], [2, 1])),
    ("expand_dims", lambda m: m.expand_dims(m.zeros((3, 4)), 5)),
    ("unstack scalar", lambda m: m.unstack(m.zeros(()))),
    ("unstack num", lambda m: m.unstack(m.zeros((3, 4)), num=2)),
    ("pad paddings", lambda m: m.pad(m.zeros((3, 4)), [[1, 1]])),
    ("pad mode", lambda m: m.pad(m.zeros((3, 4)), [[0, 0], [0, 0]], "EDGE")),
    ("reverse twice", lambda m: m.reverse(m.zeros((3, 4)), [1, -1])),
    ("pow", lambda m: m.pow(m.constant([2]), m.constant([-1]))),
    ("cumsum axis", lambda m: m.cumsum(m.zeros((3, 4)), axis=2)),
    ("argmax empty", lambda m: m.argmax(m.zeros((0, 2)))),
    ("bias_add", lambda m: m.nn.bias_add(m.zeros((3, 4)), m.zeros(3))),
    ("fill value", lambda m: m.fill([2], m.constant([1, 2]))),
    ("linspace num", lambda m: m.linspace(0.0, 1.0, -1)),
    ("uniform bounds", lambda m: m.random.uniform([2], 5, 1, dtype=m.int32)),
    ("boolean_mask", lambda m: m.boolean_mask(m.zeros((3, 4)), [True, False])),
    (
        "xent labels",
        lambda m: m.nn.softmax_cross_entropy_with_logits(
            labels=m.zeros((2, 4)), logits=m.zeros((2, 3))
        ),
    ),
    ("padded_batch", lambda m: list(_generated(m, [[1, 2, 3]], (None,)).padded_batch(1, [2]))),
    (
        "unbatch sizes",
        lambda m: list(_generated(m, [(np.zeros((2, 1)), np.zeros((3, 1)))], (None, 1)).unbatch()),
    ),
    ("generator shape", lambda m: list(_generated(m, [[1, 2, 3]], (2,)))),
    ("single element 2", lambda m: m.data.Dataset.range(2).get_single_element()),
    ("zeros huge", lambda m: m.zeros([10**6, 10**6, 10])),
    ("random huge", lambda m: m.random.normal([10**6, 10**6, 10])),
    ("get_single_element", lambda m: m.data.Dataset.range(0).get_single_element()),
    ("get_next", lambda m: [iter(m.data.Dataset.range(0)).get_next()]),
]


# Not compared: NCHW and grouped convolutions (eagerkernel raises UnimplementedError;
# TensorFlow's oneDNN CPU kernels run them), mixed dtypes (DTypeMismatchError,
# an InvalidArgumentError of eagerkernel's name, tested above), softmax of a scalar (TensorFlow
# 2.21 says AbortedError), a pooling window larger than its input (TensorFlow 2.21's CPU kernel
# dies of a floating-point exception).


@pytest.mark.parametrize("what, call", ORACLE, ids=[o[0] for o in ORACLE])
def test_same_class_as_tensorflow(what, call):
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(Exception) as theirs:
        call(tf)
    with pytest.raises(Exception) as ours:
        call(ek)
    assert type(ours.value).__name__ == type(theirs.value).__name__, (
        f"{what}: TensorFlow raises {type(theirs.value).__name__}: {theirs.value}"
    )
