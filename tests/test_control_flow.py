"""Control flow with TF 2's eager semantics (ek.cond, case, switch_case, while_loop, scan,
foldl, foldr, vectorized_map), the graph-only names as TF runs them eagerly, recompute_grad
and grad_pass_through. Values against closed forms and NumPy, gradients through the branches
and loops against closed forms and finite differences, errors by type and message
(TensorFlow's, checked against TF 2.21 by hand)."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

IAE = ek.errors.InvalidArgumentError


def grad(f, *xs):
    """The tape's gradients of the scalar ``f(*xs)`` with respect to the tensors ``xs``."""
    xs = [ek.constant(np.asarray(x, np.float64)) for x in xs]
    with ek.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return y, tape.gradient(y, xs)


# -- cond -------------------------------------------------------------------------------------


def test_cond_runs_only_the_chosen_branch():
    ran = []

    def branch(tag, value):
        def fn():
            ran.append(tag)
            return ek.constant(value)

        return fn

    assert int(ek.cond(ek.constant(True), branch("t", 1), branch("f", 2))) == 1
    assert int(ek.cond(ek.constant(False), branch("t", 1), branch("f", 2))) == 2
    assert int(ek.cond(False, branch("t", 1), branch("f", 2))) == 2  # a Python bool
    assert int(ek.cond(np.bool_(True), branch("t", 1), branch("f", 2))) == 1
    assert int(ek.cond(ek.constant([True]), branch("t", 1), branch("f", 2))) == 1  # one element
    assert ran == ["t", "f", "f", "t", "t"]


def test_cond_returns_structures_unchanged():
    out = ek.cond(ek.constant(True), lambda: (ek.constant(1),), lambda: (ek.constant(2),))
    assert isinstance(out, tuple) and len(out) == 1 and int(out[0]) == 1
    out = ek.cond(ek.constant(False), lambda: None, lambda: {"a": ek.constant(3.0)})
    assert float(out["a"]) == 3.0


def test_cond_gradient_follows_the_branch_taken():
    def f(x):
        return ek.cond(x > 0, lambda: x**3, lambda: ek.sin(x))

    _, (g,) = grad(f, 2.0)
    assert float(g) == pytest.approx(12.0)
    _, (g,) = grad(f, -1.0)
    assert float(g) == pytest.approx(np.cos(-1.0))
    check_gradients(f, np.array(0.7))


def test_cond_errors():
    with pytest.raises(TypeError, match=r"cond\(\): 'true_fn' argument required"):
        ek.cond(True, None, lambda: 1)
    with pytest.raises(TypeError, match=r"cond\(\): 'false_fn' argument required"):
        ek.cond(True, lambda: 1)
    with pytest.raises(TypeError, match="'true_fn' must be callable"):
        ek.cond(True, 1, lambda: 1)
    with pytest.raises(ValueError, match=r"cond: pred must be a scalar.*shape \(2,\).*ambiguous"):
        ek.cond(ek.constant([True, False]), lambda: 1, lambda: 2)


def test_cond_under_function_is_guarded():
    traces = []

    @ek.function
    def f(x):
        traces.append(1)
        return ek.cond(ek.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)

    np.testing.assert_allclose(f(ek.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(f(ek.constant([-1.0, -2.0])).numpy(), [1.0, 2.0])
    np.testing.assert_allclose(f(ek.constant([3.0, 1.0])).numpy(), [6.0, 2.0])
    np.testing.assert_allclose(f(ek.constant([-3.0, 1.0])).numpy(), [3.0, -1.0])


# -- case, switch_case ------------------------------------------------------------------------


def c(v):
    return lambda: ek.constant(v)


def test_case_picks_the_first_true_predicate():
    x = ek.constant(5)
    pairs = [(x < 0, c(-1)), (x > 2, c(1)), (x > 4, c(2))]
    assert int(ek.case(pairs, default=c(0))) == 1
    assert int(ek.case([(x < 0, c(-1))], default=c(0))) == 0
    # no default: the last pair is the default, and its predicate is true here
    assert int(ek.case([(x < 0, c(-1)), (x > 4, c(2))])) == 2


def test_case_singletons_and_strict():
    t = ek.constant(True)
    out = ek.case([(t, lambda: [ek.constant(1)])])
    assert isinstance(out, ek.Tensor) and int(out) == 1
    out = ek.case([(t, lambda: [ek.constant(1)])], strict=True)
    assert isinstance(out, list) and int(out[0]) == 1


def test_case_gradient():
    def f(x):
        return ek.case(
            [(x < 0, lambda: x * x), (x < 1, lambda: 3.0 * x)], default=lambda: ek.exp(x)
        )

    assert float(grad(f, -2.0)[1][0]) == pytest.approx(-4.0)
    assert float(grad(f, 0.5)[1][0]) == pytest.approx(3.0)
    assert float(grad(f, 2.0)[1][0]) == pytest.approx(np.exp(2.0))


def test_case_errors():
    f, t = ek.constant(False), ek.constant(True)
    with pytest.raises(IAE, match="None of conditions evaluated as True"):
        ek.case([(f, c(1)), (f, c(2))])
    with pytest.raises(IAE, match="exclusive=True and more than one predicate"):
        ek.case([(t, c(1)), (t, c(2))], exclusive=True)
    with pytest.raises(TypeError, match="pred must be a Tensor, got: True"):
        ek.case([(True, c(1))])
    with pytest.raises(TypeError, match="pred must be Tensor of type bool"):
        ek.case([(ek.constant(1), c(1))])
    with pytest.raises(TypeError, match="must be a 2-tuple"):
        ek.case([(t, c(1), 3)])
    with pytest.raises(TypeError, match="must be callable"):
        ek.case([(t, 3)])
    with pytest.raises(TypeError, match="'pred_fn_pairs' must be a list, tuple, or dict"):
        ek.case(t)
    with pytest.raises(ValueError, match="Unordered dictionaries are not supported"):
        ek.case({True: c(1)})  # (tensors are unhashable, so such dicts are rare)


def test_switch_case_values_and_fallbacks():
    fns = [c(17), c(31)]
    assert [int(ek.switch_case(ek.constant(i), fns, default=c(-1))) for i in (0, 1, 2, -1)] == [
        17,
        31,
        -1,
        -1,
    ]
    # without a default, the largest key's branch is the fallback (TF's rule)
    assert int(ek.switch_case(ek.constant(5), fns)) == 31
    assert int(ek.switch_case(ek.constant(-3, ek.int64), fns)) == 31
    assert int(ek.switch_case(ek.constant(0), [(1, c(31)), (0, c(17))])) == 17
    assert int(ek.switch_case(ek.constant(1), {0: c(17), 1: c(31)})) == 31


def test_switch_case_gradient():
    def f(x):
        return ek.switch_case(ek.constant(1), [lambda: x, lambda: x * x * x])

    assert float(grad(f, 2.0)[1][0]) == pytest.approx(12.0)


def test_switch_case_errors():
    with pytest.raises(TypeError, match="'branch_index' must be a Tensor"):
        ek.switch_case(1, [c(1)])
    with pytest.raises(TypeError, match="'branch_index' must be an integer Tensor"):
        ek.switch_case(ek.constant(1.0), [c(1)])
    with pytest.raises(ValueError, match="Must provide at least one item"):
        ek.switch_case(ek.constant(0), [])
    with pytest.raises(ValueError, match=r"contiguous range of \[0 to 2\) but found \{0,2\}"):
        ek.switch_case(ek.constant(0), [(0, c(1)), (2, c(2))])
    with pytest.raises(TypeError, match="key must be a Python `int`"):
        ek.switch_case(ek.constant(0), [("a", c(1))])
    with pytest.raises(ValueError, match="branch_index must be a scalar"):
        ek.switch_case(ek.constant([0, 1]), [c(1)])


# -- while_loop -------------------------------------------------------------------------------


def test_while_loop_values():
    i, total = ek.while_loop(
        lambda i, s: i < 10, lambda i, s: (i + 1, s + i), (ek.constant(0), ek.constant(0))
    )
    assert (int(i), int(total)) == (10, 45)
    # TF's doc example: a 1-tuple body, a list of loop variables
    (r,) = ek.while_loop(lambda i: ek.less(i, 10), lambda i: (ek.add(i, 1),), [ek.constant(0)])
    assert int(r) == 10
    # Python numbers are converted; the result has the body's structure
    out = ek.while_loop(lambda i: i < 3, lambda i: [i + 1], [0])
    assert isinstance(out, list) and isinstance(out[0], ek.Tensor) and int(out[0]) == 3
    # one loop variable, a bare body result
    assert int(ek.while_loop(lambda i: i < 3, lambda i: i + 1, [ek.constant(0)])[0]) == 3


def test_while_loop_nested_structures():
    Pair = collections.namedtuple("Pair", ["a", "b"])
    i0 = ek.constant(0)
    ijk = (i0, Pair(ek.constant(1), ek.constant(2)))
    out = ek.while_loop(lambda i, p: i < 10, lambda i, p: (i + 1, Pair(p.a + p.b, p.a - p.b)), ijk)
    a, b = 1, 2
    for _ in range(10):
        a, b = a + b, a - b
    assert int(out[0]) == 10 and isinstance(out[1], Pair)
    assert (int(out[1].a), int(out[1].b)) == (a, b)
    d = ek.while_loop(
        lambda s: s["n"] < 4,
        lambda s: {"n": s["n"] + 1, "x": s["x"] * 2},
        [{"n": ek.constant(0), "x": ek.constant(1.0)}],
    )
    assert float(d[0]["x"]) == 16.0


def test_while_loop_maximum_iterations_and_empty_loops():
    calls = []

    def cond(i):
        calls.append(int(i))
        return i < 100

    (r,) = ek.while_loop(cond, lambda i: (i + 1,), [ek.constant(0)], maximum_iterations=4)
    assert int(r) == 4
    (r,) = ek.while_loop(
        lambda i: i < 2, lambda i: (i + 1,), [ek.constant(0)], maximum_iterations=ek.constant(9)
    )
    assert int(r) == 2
    (r,) = ek.while_loop(lambda i: i < 0, lambda i: (i + 1,), [ek.constant(5)])
    assert int(r) == 5
    (r,) = ek.while_loop(lambda i: True, lambda i: (i + 1,), [ek.constant(0)], maximum_iterations=0)
    assert int(r) == 0


def test_while_loop_gradient_closed_form():
    # squaring n times gives x ** (2 ** n); d/dx = 2**n * x ** (2**n - 1)
    def f(x):
        _, y = ek.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * y), (ek.constant(0), x))
        return y

    y, (g,) = grad(f, 1.1)
    assert float(y) == pytest.approx(1.1**8)
    assert float(g) == pytest.approx(8 * 1.1**7)
    check_gradients(f, np.array(0.9))
    check_gradients(f, np.array(0.9), order=2)


def test_while_loop_gradient_to_a_variable_read_in_body():
    w = ek.Variable(0.5, dtype=ek.float64)
    with ek.GradientTape() as tape:
        _, y = ek.while_loop(
            lambda i, y: i < 4,
            lambda i, y: (i + 1, y * w),
            (ek.constant(0), ek.constant(3.0, ek.float64)),
        )
    assert float(y) == pytest.approx(3 * 0.5**4)
    assert float(tape.gradient(y, w)) == pytest.approx(3 * 4 * 0.5**3)


def test_while_loop_with_a_tensor_array():
    # y = x + x**2 + x**3 written into a TensorArray; dy/dx = 1 + 2x + 3x**2
    x = ek.constant(2.0)
    with ek.GradientTape() as tape:
        tape.watch(x)
        ta = ek.TensorArray(ek.float32, size=3)
        i, ta = ek.while_loop(
            lambda i, ta: i < 3,
            lambda i, ta: (i + 1, ta.write(i, x ** ek.cast(i + 1, ek.float32))),
            [0, ta],
        )
        y = ek.reduce_sum(ta.stack())
    assert int(i) == 3 and isinstance(ta, ek.TensorArray)
    np.testing.assert_allclose(ta.stack().numpy(), [2.0, 4.0, 8.0])
    assert float(tape.gradient(y, x)) == pytest.approx(1 + 4 + 12)


def test_while_loop_back_prop_false_stops_gradients():
    x = ek.constant(2.0)
    with ek.GradientTape() as tape:
        tape.watch(x)
        (y,) = ek.while_loop(lambda y: y < 10, lambda y: (y * y,), [x], back_prop=False)
    assert float(y) == 16.0
    assert tape.gradient(y, x) is None


def test_while_loop_shape_invariants():
    def body(x):
        return (ek.concat([x, x], 0),)

    (r,) = ek.while_loop(lambda x: ek.size(x) < 8, body, [ek.constant([1])])  # shapes may change
    assert r.shape == (8,)
    (r,) = ek.while_loop(
        lambda x: ek.size(x) < 8, body, [ek.constant([1])], shape_invariants=[[None]]
    )
    assert r.shape == (8,)
    with pytest.raises(ValueError, match=r"shape \(2,\).*not compatible with its shape invariant"):
        ek.while_loop(lambda x: ek.size(x) < 8, body, [ek.constant([1])], shape_invariants=[[1]])


def test_while_loop_errors():
    two = [ek.constant(0), ek.constant(1)]
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        ek.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,), two)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        ek.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1, (j, j)), two)
    with pytest.raises(TypeError, match="'cond' must be callable"):
        ek.while_loop(True, lambda i: (i,), [1])
    with pytest.raises(TypeError, match="'body' must be callable"):
        ek.while_loop(lambda i: i < 1, None, [1])
    with pytest.raises(TypeError, match="'parallel_iterations' must be a positive integer"):
        ek.while_loop(lambda i: i < 1, lambda i: (i,), [0], parallel_iterations=0)
    with pytest.raises(ValueError, match="'loop_vars' must be provided"):
        ek.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(TypeError, match=r"loop_vars must be a .*tuple, namedtuple or list"):
        ek.while_loop(lambda i: i < 3, lambda i: i + 1, ek.constant(0))
    with pytest.raises(ValueError, match="'maximum_iterations' must be a scalar"):
        ek.while_loop(lambda i: i < 3, lambda i: (i + 1,), [0], maximum_iterations=[3])
    with pytest.raises(ValueError, match="cond's result must be a scalar"):
        ek.while_loop(lambda i: ek.constant([True, True]), lambda i: (i,), [0])


def test_while_loop_under_function_follows_the_values():
    @ek.function
    def count(n):
        return ek.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 2 * i), [0, 0])[1]

    for n in (3, 5, 0, 3):
        assert int(count(ek.constant(n))) == n * (n - 1)


# -- scan, foldl, foldr -----------------------------------------------------------------------


def test_scan_values():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    np.testing.assert_allclose(ek.scan(lambda a, v: a + v, ek.constant(x)).numpy(), np.cumsum(x))
    np.testing.assert_allclose(
        ek.scan(lambda a, v: a + v, ek.constant(x), reverse=True).numpy(), np.cumsum(x[::-1])[::-1]
    )
    np.testing.assert_allclose(
        ek.scan(lambda a, v: a * v, ek.constant([1.0, 2.0, 3.0]), initializer=ek.constant(2.0)),
        [2.0, 4.0, 12.0],
    )
    # TF's doc example: a nested initializer (Fibonacci)
    fib = ek.scan(
        lambda a, _: (a[1], a[0] + a[1]), ek.constant([0, 0, 0, 0, 0, 0]), initializer=(0, 1)
    )
    np.testing.assert_array_equal(fib[0].numpy(), [1, 1, 2, 3, 5, 8])
    np.testing.assert_array_equal(fib[1].numpy(), [1, 2, 3, 5, 8, 13])
    # nested elems, no initializer: the first element is the first row
    elems = (ek.constant([1, 2, 3]), ek.constant([-1, 1, -1]))
    out = ek.scan(lambda a, e: (a[0] + e[0], a[1] * e[1]), elems)
    np.testing.assert_array_equal(out[0].numpy(), [1, 3, 6])
    np.testing.assert_array_equal(out[1].numpy(), [-1, -1, 1])


def test_scan_gradient():
    # cumulative product: d(sum of cumprod)/dx_i closed form
    x = np.array([1.5, 0.5, 2.0, -1.0])

    def f(t):
        return ek.reduce_sum(ek.scan(lambda a, v: a * v, t))

    _, (g,) = grad(f, x)
    expected = [sum(np.prod(x[: k + 1]) / x[i] for k in range(i, len(x))) for i in range(len(x))]
    np.testing.assert_allclose(g.numpy(), expected)
    check_gradients(
        lambda t, s: ek.scan(lambda a, v: a * v + s, t, initializer=s), x, np.array(0.3)
    )


def test_scan_errors():
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        ek.scan(lambda a, x: (a, a), ek.constant([1, 2, 3]))
    with pytest.raises(ValueError, match="change shape"):
        ek.scan(lambda a, x: ek.concat([a, a], 0), ek.constant([[1], [2], [3]]))
    with pytest.raises(ValueError, match="not scalars"):
        ek.scan(lambda a, x: a, ek.constant(1))
    with pytest.raises(ek.errors.OutOfRangeError, match="array size is: 0"):
        ek.scan(lambda a, x: a, ek.zeros([0]))
    with pytest.raises(ValueError, match="same first dimension"):
        ek.scan(lambda a, x: a, (ek.zeros([2]), ek.zeros([3])))
    with pytest.raises(TypeError, match="fn must be callable"):
        ek.scan(3, ek.zeros([2]))


def test_foldl_foldr_values():
    x = ek.constant([1, 2, 3, 4, 5, 6])
    assert int(ek.foldl(lambda a, v: a + v, x)) == 21
    assert int(ek.foldl(lambda a, v: a - v, ek.constant([1, 2, 3]))) == 1 - 2 - 3
    assert int(ek.foldr(lambda a, v: a - v, ek.constant([1, 2, 3]))) == 3 - 2 - 1
    assert int(ek.foldl(lambda a, v: a * 10 + v, ek.constant([1, 2, 3]), initializer=0)) == 123
    assert int(ek.foldr(lambda a, v: a * 10 + v, ek.constant([1, 2, 3]), initializer=0)) == 321
    s, p = ek.foldl(lambda a, v: (a[0] + v, a[1] * v), x, initializer=(0, 1))
    assert (int(s), int(p)) == (21, 720)
    assert int(ek.foldl(lambda a, v: a + v, ek.zeros([0], ek.int32), initializer=7)) == 7


def test_fold_gradients():
    x = np.array([1.5, -0.5, 2.0, 3.0])
    _, (g,) = grad(lambda t: ek.foldl(lambda a, v: a * v, t), x)
    np.testing.assert_allclose(g.numpy(), np.prod(x) / x)
    check_gradients(lambda t: ek.foldr(lambda a, v: ek.sin(a) + v, t), x)
    check_gradients(
        lambda t, z: ek.foldl(lambda a, v: a * v + z, t, initializer=z), x, np.array(0.2)
    )


def test_fold_errors():
    with pytest.raises(ek.errors.OutOfRangeError, match="foldl: Tried to read from index 0"):
        ek.foldl(lambda a, x: a + x, ek.zeros([0]))
    with pytest.raises(ek.errors.OutOfRangeError, match="foldr: "):
        ek.foldr(lambda a, x: a + x, ek.zeros([0]))
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        ek.foldl(lambda a, x: a[0], ek.zeros([3]), initializer=(0.0, 1.0))


# -- vectorized_map, map_fn -------------------------------------------------------------------


def test_vectorized_map_values_and_gradient():
    m = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(
        ek.vectorized_map(lambda r: ek.reduce_sum(r * r), ek.constant(m)).numpy(), (m * m).sum(1)
    )
    a, b = ek.vectorized_map(lambda e: (e[0] + e[1], e[0] * 2), (ek.constant(m), ek.constant(m)))
    np.testing.assert_allclose(a.numpy(), 2 * m)
    np.testing.assert_allclose(b.numpy(), 2 * m)
    # TF's doc example: per-example gradients
    w = ek.Variable(np.array([1.0, -2.0, 0.5]))

    def per_example(x):
        with ek.GradientTape() as tape:
            loss = ek.reduce_sum(w * x) ** 2
        return tape.gradient(loss, w)

    g = ek.vectorized_map(per_example, ek.constant(m))
    expected = 2 * (m @ np.array([1.0, -2.0, 0.5]))[:, None] * m
    np.testing.assert_allclose(g.numpy(), expected)
    check_gradients(lambda t: ek.vectorized_map(lambda r: ek.sin(r) * r[0], t), m)
    with pytest.raises(ValueError, match="change shape"):
        ek.vectorized_map(lambda r: r[: int(r[0]) + 1], ek.constant([[0, 1], [1, 1]]))


def test_map_fn_output_signature():
    out = ek.map_fn(
        lambda x: ek.cast(x, ek.float32) / 2, ek.constant([1, 2]), fn_output_signature=ek.float32
    )
    np.testing.assert_allclose(out.numpy(), [0.5, 1.0])
    assert out.dtype == ek.float32


# -- graph-only names -------------------------------------------------------------------------


def test_graph_only_names_in_eager():
    assert ek.no_op() is None
    assert ek.group(ek.constant(1), ek.constant(2)) is None
    ts = [ek.constant(1), ek.constant(2.0)]
    assert ek.tuple(ts) is ts
    with pytest.raises(TypeError, match="Unknown keyword arguments: foo"):
        ek.group(ek.constant(1), foo=1)
    called = []
    with ek.control_dependencies([ek.constant(1), lambda: called.append(1)]):
        x = ek.constant(2) + 1
    assert int(x) == 3 and called == [1]
    with ek.control_dependencies(None):
        pass
    msg = (
        r"tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
        r"instead."
    )
    with pytest.raises(RuntimeError, match=msg):
        ek.gradients(ek.constant(1.0), ek.constant(1.0))
    with pytest.raises(RuntimeError, match=msg):
        ek.hessians(ek.constant(1.0), ek.constant(1.0))
    import eagerkernel.runtime.ops as ops

    assert "tuple" not in vars(ops)  # star-imports of the ops do not shadow the builtin


# -- recompute_grad, grad_pass_through --------------------------------------------------------


def test_recompute_grad_recomputes_and_matches():
    calls = []
    w = ek.Variable(np.array([0.5, -1.0]))

    def block(x):
        calls.append(1)
        return ek.reduce_sum(ek.tanh(x * w) ** 2)

    x = ek.constant(np.array([0.3, 0.8]))
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y_direct = block(x)
        y = ek.recompute_grad(block)(x)
    assert float(y) == pytest.approx(float(y_direct))
    gx, gw = tape.gradient(y, [x, w])
    dx, dw = tape.gradient(y_direct, [x, w])
    np.testing.assert_allclose(gx.numpy(), dx.numpy())
    np.testing.assert_allclose(gw.numpy(), dw.numpy())
    assert len(calls) == 3  # direct, recomputed forward, recomputation in the backward pass
    check_gradients(ek.recompute_grad(lambda a, b: ek.sin(a) * b), np.array([0.2, 1.0]), np.ones(2))


def test_grad_pass_through():
    x = ek.constant([0.4, 1.6, -2.2])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.grad_pass_through(ek.round)(x) * ek.constant([1.0, 2.0, 3.0])
    np.testing.assert_allclose(y.numpy(), [0.0, 4.0, -6.0])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 2.0, 3.0])
    w = ek.Variable(2.0)
    with ek.GradientTape() as tape:
        y = ek.grad_pass_through(lambda v: v * w)(ek.constant(3.0))
    assert float(y) == 6.0 and tape.gradient(y, w) is None


# -- TensorFlow, when it is installed ---------------------------------------------------------


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = np.array([0.5, -1.0, 2.0, 3.0])
    for ours, theirs in [
        (ek.scan(lambda a, v: a * v + 1, ek.constant(x)), tf.scan(lambda a, v: a * v + 1, x)),
        (ek.foldr(lambda a, v: a * v + 1, ek.constant(x)), tf.foldr(lambda a, v: a * v + 1, x)),
        (
            ek.while_loop(
                lambda i, s: i < 4, lambda i, s: (i + 1, s * 2 + ek.cast(i, ek.float32)), [0, 1.0]
            )[1],
            tf.while_loop(
                lambda i, s: i < 4, lambda i, s: (i + 1, s * 2 + tf.cast(i, tf.float32)), [0, 1.0]
            )[1],
        ),
    ]:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
