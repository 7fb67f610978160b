"""Property test: random small programs with Python branches on tensor values give, under
`ek.function`, the eager result bit for bit, with and without an outer tape, and trace once
per distinct path through their branches."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerkernel as ek

UNARY = {"tanh": ek.tanh, "sin": ek.sin, "square": ek.square, "neg": ek.negative}
BINARY = {"add": ek.add, "sub": ek.subtract, "mul": ek.multiply, "max": ek.maximum}


def _steps(depth: int):
    op = st.one_of(
        st.tuples(st.just("unary"), st.sampled_from(sorted(UNARY)), st.integers(0, 50)),
        st.tuples(
            st.just("binary"),
            st.sampled_from(sorted(BINARY)),
            st.integers(0, 50),
            st.integers(0, 50),
        ),
    )
    if depth == 0:
        return st.lists(op, min_size=1, max_size=5)
    branch = st.tuples(
        st.just("if"),
        st.integers(0, 50),
        st.floats(-1.0, 1.0, width=32),
        _steps(depth - 1),
        _steps(depth - 1),
    )
    return st.lists(st.one_of(op, branch), min_size=1, max_size=5)


def _run(steps, values: list, path: list):
    """Runs ``steps`` on ``values`` (a list of Tensors, grown in place); records branches."""
    for step in steps:
        kind = step[0]
        if kind == "unary":
            values.append(UNARY[step[1]](values[step[2] % len(values)]))
        elif kind == "binary":
            a, b = values[step[2] % len(values)], values[step[3] % len(values)]
            values.append(BINARY[step[1]](a, b))
        else:
            _, k, threshold, then, otherwise = step
            taken = bool(ek.reduce_sum(values[k % len(values)]) > threshold)  # a guard
            path.append(taken)
            _run(then if taken else otherwise, values, path)


def _program(steps, w):
    def f(x, y):
        with ek.GradientTape() as tape:
            tape.watch(x)
            path: list = []
            values = [x, y, w * 1.0]
            _run(steps, values, path)
            out = ek.reduce_sum(values[-1] * values[-1])
        gx, gw = tape.gradient(out, [x, w], unconnected_gradients="zero")
        return out, gx, gw, tuple(path)

    return f


def _same(a, b) -> bool:
    if isinstance(a, tuple) or a is None or b is None:
        return a == b
    a, b = a.numpy(), b.numpy()
    return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


@settings(max_examples=40, deadline=None)
@given(
    steps=_steps(2),
    inputs=st.lists(
        st.lists(st.floats(-2, 2, width=32), min_size=6, max_size=6), min_size=1, max_size=5
    ),
)
def test_random_programs_give_the_eager_result(steps, inputs):
    w = ek.Variable(np.float32([0.5, -0.25, 1.5]))
    eager = _program(steps, w)
    traced = ek.function(_program(steps, w))
    paths = set()
    for row in inputs:
        x = ek.constant(np.float32(row[:3]))
        y = ek.constant(np.float32(row[3:]))
        expected = eager(x, y)
        got = traced(x, y)
        paths.add(expected[3])
        assert all(_same(a, b) for a, b in zip(expected[:3], got[:3]))
        # an outer tape around the call: gradients of the function's first output
        with ek.GradientTape() as tape:
            tape.watch(y)
            out = traced(x, y)[0]
        with ek.GradientTape() as tape2:
            tape2.watch(y)
            ref = eager(x, y)[0]
        assert _same(tape.gradient(out, y), tape2.gradient(ref, y))
    # One trace per distinct path through the branches, and none after.
    assert traced.experimental_get_tracing_count() == len(paths)


def test_a_function_called_inside_another_trace_counts_its_own_traces():
    # The counts TensorFlow 2.21 gives for the same calls: outer(tf.constant(1.0)) traces
    # `inner` once as a function of its own; a signature of `inner` counts once, whether
    # first seen inside `outer`'s trace or at top level.
    @ek.function
    def inner(x):
        return x + 1

    @ek.function
    def outer(x):
        return inner(x) * 2

    def counts():
        return inner.experimental_get_tracing_count(), outer.experimental_get_tracing_count()

    assert float(outer(ek.constant(1.0))) == 4.0
    assert counts() == (1, 1)
    assert int(outer(ek.constant(1))) == 4  # int32: a new signature for both
    assert counts() == (2, 2)
    assert float(inner(ek.constant(5.0))) == 6.0  # top level: the nested trace's signature
    assert counts() == (2, 2)
    assert float(inner(ek.constant(5.0, ek.float64))) == 6.0  # top level, a new one
    assert counts() == (3, 2)
    outer(ek.constant(2.0, ek.float64))  # inner's float64 signature was traced at top level
    assert counts() == (3, 3)
    outer(ek.constant(2.0))  # no retrace of either
    assert counts() == (3, 3)
