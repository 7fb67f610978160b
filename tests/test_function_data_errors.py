"""Errors that depend on values inside graph functions, as TensorFlow gives them.

- Every call checks its own values: an index out of range raises TensorFlow's
  InvalidArgumentError on any call of an `ek.function`, not only on the call it was traced
  with (the checks are made by the ops' forwards, which a replay runs). Before, a replay ran
  NumPy's indexing unchecked: a negative index silently took an element from the end, a large
  one raised NumPy's IndexError.
- An op whose result the function never uses cannot fail the call: TensorFlow runs only the
  ops the outputs and stateful ops need (the guide "Introduction to graphs",
  ``tf.gather(x, [1])  # unused``). One whose result is used, returned or read by Python code
  raises its own error.
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

IAE = ek.errors.InvalidArgumentError
X = [1.0, 2.0, 3.0]
E = np.eye(3, dtype=np.float32)

# (name, function, arguments it is traced with, arguments with a bad value, message)
CASES = [
    ("gather", lambda x, i: ek.gather(x, i), (X, [1]), (X, [-1]), r"gather: index -1"),
    ("gather, large", lambda x, i: ek.gather(x, i), (X, [1]), (X, [7]), r"gather: index 7"),
    (
        "gather, batch_dims",
        lambda x, i: ek.gather(x, i, batch_dims=1),
        (E, [[0], [1], [2]]),
        (E, [[0], [1], [-1]]),
        r"gather: index -1 is out of range \[0, 3\) for axis 1",
    ),
    ("gather_nd", lambda x, i: ek.gather_nd(x, i), (X, [[1]]), (X, [[-1]]), r"gather_nd: index"),
    (
        "scatter_nd",
        lambda u, i: ek.scatter_nd(i, u, [3]),
        (X, [[0], [1], [2]]),
        (X, [[0], [1], [5]]),
        r"scatter_nd: index 5",
    ),
    (
        "tensor_scatter_nd_update",
        lambda u, i: ek.tensor_scatter_nd_update(ek.zeros([3]), i, u),
        (X, [[0], [1], [2]]),
        (X, [[0], [1], [-1]]),
        r"tensor_scatter_nd_update: index -1",
    ),
    (
        "tensor_scatter_nd_add",
        lambda u, i: ek.tensor_scatter_nd_add(ek.zeros([3]), i, u),
        (X, [[0], [1], [2]]),
        (X, [[0], [1], [3]]),
        r"tensor_scatter_nd_add: index 3",
    ),
    ("embedding_lookup", lambda e, i: ek.nn.embedding_lookup(e, i), (E, [0]), (E, [-1]), "-1"),
    (
        "unsorted_segment_max",
        lambda x, i: ek.math.unsorted_segment_max(x, i, 2),
        (X, [0, 1, 1]),
        (X, [0, 1, 3]),
        r"segment_ids must be < num_segments = 2, got 3",
    ),
    (
        "segment_sum, unsorted ids",
        lambda x, i: ek.math.segment_sum(x, i),
        (X, [0, 1, 1]),
        (X, [1, 0, 1]),
        r"segment_sum: segment ids must be non-negative and sorted",
    ),
    (
        "sparse softmax cross-entropy",
        lambda z, y: ek.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z),
        (E, [0, 1, 2]),
        (E, [0, 1, 3]),
        r"label value of 3 which is outside the valid range of \[0, 3\)",
    ),
    (
        "dynamic_stitch",
        lambda i, x: ek.dynamic_stitch([i], [x]),
        ([0, 1, 2], X),
        ([0, 1, -2], X),
        r"dynamic_stitch: .*indices\[0\] has a negative index -2",
    ),
    ("tensor index", lambda x, i: x[i], (X, 1), (X, 5), r"getitem: index 5 is out of range"),
]


@pytest.mark.parametrize(
    "fn, good, bad, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_every_call_checks_its_own_values(fn, good, bad, message):
    traced = ek.function(fn)
    good = [ek.constant(v) for v in good]
    bad = [ek.constant(v) for v in bad]
    np.testing.assert_array_equal(traced(*good).numpy(), fn(*good).numpy())
    with pytest.raises(IAE, match=message):  # eager: the reference
        fn(*bad)
    with pytest.raises(IAE, match=message):  # the traced program, replayed on new values
        traced(*bad)
    assert traced.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(traced(*good).numpy(), fn(*good).numpy())


def test_an_unused_op_that_fails_does_not_fail_the_call():
    # The guide "Introduction to graphs", word for word but for the import.
    def unused_return_eager(x):
        ek.gather(x, [1])  # unused
        return x

    with pytest.raises(IAE, match=r"gather: index 1 is out of range \[0, 1\)"):
        unused_return_eager(ek.constant([0.0]))

    @ek.function
    def unused_return_graph(x):
        ek.gather(x, [1])  # unused
        return x

    for _ in range(2):  # the trace, then a replay of its program
        np.testing.assert_array_equal(unused_return_graph(ek.constant([0.0])).numpy(), [0.0])
    np.testing.assert_array_equal(unused_return_graph(ek.constant([4.0, 5.0])).numpy(), [4, 5])
    # Under a tape, the gradient flows through the ops that are used.
    v = ek.Variable([1.0])
    with ek.GradientTape() as tape:
        y = unused_return_graph(v * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [3.0])


@pytest.mark.parametrize(
    "use",
    [
        pytest.param(lambda x, y: x + y, id="read by an op"),
        pytest.param(lambda x, y: y, id="returned"),
        pytest.param(lambda x, y: x if bool(y[0] > 0) else -x, id="read by Python"),
        pytest.param(lambda x, y: (ek.print(y), x)[1], id="read by a stateful op"),
    ],
)
def test_an_op_that_fails_raises_where_its_result_is_used(use):
    @ek.function
    def f(x):
        return use(x, ek.gather(x, [1]))

    with pytest.raises(IAE, match=r"gather: index 1 is out of range \[0, 1\) for axis 0"):
        f(ek.constant([0.0]))
    # The function works once its values do: a new trace for the new shape.
    x = ek.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), use(x, ek.gather(x, [1])).numpy())


def test_errors_are_deferred_only_while_tracing():
    # Eagerly, and in functions run eagerly, the op raises where it runs, as in TensorFlow.
    with pytest.raises(IAE):
        ek.gather(ek.constant([0.0]), [1])
    ek.config.run_functions_eagerly(True)
    try:

        @ek.function
        def f(x):
            ek.gather(x, [1])
            return x

        with pytest.raises(IAE):
            f(ek.constant([0.0]))
    finally:
        ek.config.run_functions_eagerly(False)


@pytest.mark.parametrize(
    "check, bad",
    [
        pytest.param(
            lambda x: ek.debugging.check_numerics(x, "bad x"), np.nan, id="check_numerics"
        ),
        pytest.param(
            lambda x: ek.debugging.assert_positive(x, message="bad x"), -1.0, id="assert_positive"
        ),
        pytest.param(
            lambda x: ek.debugging.assert_equal(x, 1.0, message="bad x"), 2.0, id="assert_equal"
        ),
        pytest.param(
            lambda x: ek.debugging.assert_less(x, 1.5, message="bad x"), 2.0, id="assert_less"
        ),
        pytest.param(
            lambda x: ek.debugging.assert_near(x, 1.0, message="bad x"), 2.0, id="assert_near"
        ),
    ],
)
def test_checks_run_on_every_call_even_when_their_result_is_unused(check, bad):
    # TensorFlow's CheckNumerics and Assert ops are stateful: a function runs them although
    # nothing reads their output, on every call. Before, an assertion was decided while
    # tracing (a replay skipped it) and an unused check_numerics could be dropped.
    def f(x):
        check(x)  # result unused
        return x * 2.0

    traced = ek.function(f)
    np.testing.assert_array_equal(traced(ek.constant([1.0])).numpy(), [2.0])
    with pytest.raises(IAE, match="bad x"):  # the program, replayed
        traced(ek.constant([bad]))
    with pytest.raises(IAE, match="bad x"):  # the first trace
        ek.function(f)(ek.constant([bad]))
    np.testing.assert_array_equal(traced(ek.constant([1.0])).numpy(), [2.0])
