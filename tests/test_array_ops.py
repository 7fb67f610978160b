"""Shape and indexing ops: values against NumPy, gradients against finite differences, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerkernel as ek
from eagerkernel.testing import check_gradients

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
IAE = ek.errors.InvalidArgumentError  # TensorFlow's class for a bad op argument
Y = RNG.standard_normal((2, 3, 4))


def _np(t):
    return np.asarray(t.numpy())


# -- values ---------------------------------------------------------------------------------------

VALUES = [
    ("reshape", lambda t: ek.reshape(t, [4, -1]), lambda a: a.reshape(4, -1)),
    ("reshape_tensor", lambda t: ek.reshape(t, ek.constant([2, 6])), lambda a: a.reshape(2, 6)),
    ("expand_dims", lambda t: ek.expand_dims(t, -1), lambda a: a[..., None]),
    ("squeeze_all", lambda t: ek.squeeze(ek.reshape(t, [1, 3, 1, 4])), lambda a: a),
    ("squeeze_axis", lambda t: ek.squeeze(t[None, :, None], [2]), lambda a: a[None]),
    ("transpose", lambda t: ek.transpose(t), lambda a: a.T),
    ("transpose_neg", lambda t: ek.transpose(t, [-1, 0]), lambda a: a.T),
    ("concat", lambda t: ek.concat([t, 2 * t[:, :1]], axis=-1), lambda a: np.c_[a, 2 * a[:, :1]]),
    ("stack", lambda t: ek.stack([t, t + 1], axis=1), lambda a: np.stack([a, a + 1], 1)),
    ("tile", lambda t: ek.tile(t, [2, 3]), lambda a: np.tile(a, (2, 3))),
    (
        "pad",
        lambda t: ek.pad(t, [[1, 0], [2, 3]], constant_values=7.0),
        lambda a: np.pad(a, [[1, 0], [2, 3]], constant_values=7.0),
    ),
    (
        "pad_reflect",
        lambda t: ek.pad(t, [[2, 2], [3, 1]], "reflect"),
        lambda a: np.pad(a, [[2, 2], [3, 1]], "reflect"),
    ),
    (
        "pad_symmetric",
        lambda t: ek.pad(t, [[3, 1], [0, 4]], "SYMMETRIC"),
        lambda a: np.pad(a, [[3, 1], [0, 4]], "symmetric"),
    ),
    ("gather", lambda t: ek.gather(t, [2, 0, 2]), lambda a: a[[2, 0, 2]]),
    ("gather_axis", lambda t: ek.gather(t, [[3, 1]], axis=-1), lambda a: a[:, [[3, 1]]]),
    ("gather_nd", lambda t: ek.gather_nd(t, [[2, 3], [0, 0]]), lambda a: a[[2, 0], [3, 0]]),
    ("gather_nd_rows", lambda t: ek.gather_nd(t, [[1], [1]]), lambda a: a[[1, 1]]),
    ("boolean_mask", lambda t: ek.boolean_mask(t, t > 0), lambda a: a[a > 0]),
    (
        "boolean_mask_axis",
        lambda t: ek.boolean_mask(t, [True, False, True, True], axis=1),
        lambda a: a[:, [0, 2, 3]],
    ),
    (
        "broadcast_to",
        lambda t: ek.broadcast_to(t[:1], [2, 3, 4]),
        lambda a: np.broadcast_to(a[:1], (2, 3, 4)),
    ),
    ("reverse", lambda t: ek.reverse(t, [0, -1]), lambda a: a[::-1, ::-1]),
    ("identity", ek.identity, lambda a: a),
    ("slice", lambda t: ek.slice(t, [1, 0], [-1, 3]), lambda a: a[1:, :3]),
    ("getitem_basic", lambda t: t[1:, ::-2], lambda a: a[1:, ::-2]),
    ("getitem_int", lambda t: t[-1], lambda a: a[-1]),
    ("getitem_scalar", lambda t: t[2, 1], lambda a: a[2, 1]),
    ("getitem_newaxis", lambda t: t[None, ..., ek.newaxis, 0], lambda a: a[None, ..., None, 0]),
    ("getitem_list", lambda t: t[[0, 0, 2], 1:], lambda a: a[[0, 0, 2], 1:]),
    ("getitem_tensor", lambda t: t[:, ek.constant([3, 3])], lambda a: a[:, [3, 3]]),
    ("getitem_2arrays", lambda t: t[[0, 2], [1, 1]], lambda a: a[[0, 2], [1, 1]]),
    ("getitem_mask", lambda t: t[t > 0.5], lambda a: a[a > 0.5]),
    ("getitem_int_tensor_scalar", lambda t: t[ek.constant(1)], lambda a: a[1]),
]


@pytest.mark.parametrize("name, op, ref", VALUES, ids=[v[0] for v in VALUES])
def test_values_match_numpy(name, op, ref):
    out = op(ek.constant(X))
    np.testing.assert_array_equal(_np(out), ref(X))
    assert out.dtype == ek.float64


@pytest.mark.parametrize("name, op, ref", VALUES, ids=[v[0] for v in VALUES])
def test_values_on_int_tensors(name, op, ref):
    if name in ("pad", "getitem_mask"):
        pytest.skip("float-specific (7.0 fill, masks built from float comparisons)")
    a = (X * 10).astype(np.int64)
    out = op(ek.constant(a))
    np.testing.assert_array_equal(_np(out), ref(a))
    assert out.dtype == ek.int64


def test_split_unstack_values():
    parts = ek.split(ek.constant(X), [1, -1, 2], axis=1)
    assert isinstance(parts, list)
    for p, r in zip(parts, np.split(X, [1, 2], axis=1)):
        np.testing.assert_array_equal(_np(p), r)
    assert [p.shape for p in ek.split(ek.constant(X), 2, axis=-1)] == [(3, 2), (3, 2)]
    assert [p.shape for p in ek.split(ek.constant(X), ek.constant(3))] == [(1, 4)] * 3
    rows = ek.unstack(ek.constant(Y), axis=1)
    assert len(rows) == 3
    np.testing.assert_array_equal(_np(rows[2]), Y[:, 2])
    assert [t.shape for t in ek.constant(X)] == [(4,)] * 3  # iteration over axis 0


def test_gather_batch_dims_matches_loop():
    idx = RNG.integers(0, 4, (2, 3, 5))
    out = ek.gather(ek.constant(Y), idx, axis=2, batch_dims=1)
    ref = np.stack([np.take(Y[b], idx[b], axis=1) for b in range(2)])
    assert out.shape == (2, 3, 3, 5)
    np.testing.assert_array_equal(_np(out), ref)
    idx2 = RNG.integers(0, 4, (2, 3, 6))
    out = ek.gather(ek.constant(Y), idx2, batch_dims=-1)  # axis defaults to batch_dims = 2
    ref = np.take_along_axis(Y, idx2, axis=2)
    np.testing.assert_array_equal(_np(out), ref)


def test_gather_nd_batch_dims():
    idx = RNG.integers(0, 3, (2, 5, 2))
    out = ek.gather_nd(ek.constant(Y), idx, batch_dims=1)
    ref = np.stack([Y[b][idx[b, :, 0], idx[b, :, 1]] for b in range(2)])
    np.testing.assert_array_equal(_np(out), ref)


def test_scatter_nd_adds_duplicates():
    out = ek.scatter_nd([[0, 1], [0, 1], [2, 0]], ek.constant([1.0, 2.0, 5.0]), [3, 2])
    np.testing.assert_array_equal(_np(out), [[0, 3], [0, 0], [5, 0]])


def test_shape_size_rank():
    t = ek.zeros((2, 3, 4))
    s = ek.shape(t)
    assert s.dtype == ek.int32 and _np(s).tolist() == [2, 3, 4]
    assert ek.shape(t, out_type=ek.int64).dtype == ek.int64
    assert int(ek.size(t)) == 24 and ek.size(t).dtype == ek.int32 and ek.size(t).shape == ()
    assert int(ek.rank(t)) == 3 and int(ek.rank(5.0)) == 0
    assert ek.reshape(t, ek.shape(t)[::-1]).shape == (4, 3, 2)


def test_identity_reads_a_variable_and_passes_its_gradient():
    v = ek.Variable([1.0, 2.0])
    with ek.GradientTape() as tape:
        y = ek.identity(v) * 3.0
    assert type(ek.identity(v)) is ek.Tensor
    np.testing.assert_array_equal(_np(tape.gradient(y, v)), [3.0, 3.0])


# -- gradients ------------------------------------------------------------------------------------

GRADS = [
    ("reshape", lambda t: ek.reshape(t, [2, -1, 3]), (X,), 2),
    ("expand_squeeze", lambda t: ek.squeeze(ek.expand_dims(t, 1), [1]) * t, (X,), 1),
    ("transpose", lambda t: ek.transpose(t, [2, 0, 1]), (Y,), 2),
    ("concat", lambda a, b: ek.concat([a, b, a], axis=0) ** 2, (X, X[:1]), 2),
    ("split", lambda t: [p * p for p in ek.split(t, [1, 3], axis=1)], (X,), 2),
    ("split_partial", lambda t: ek.split(t, 3)[1] * 2.0, (X,), 1),
    ("stack", lambda a, b: ek.stack([a, b * b], axis=-1), (X, X), 2),
    ("unstack", lambda t: ek.unstack(t, axis=2)[1] ** 2, (Y,), 2),
    ("tile", lambda t: ek.tile(t, [2, 1, 3]) ** 2, (Y,), 2),
    ("pad_constant", lambda t: ek.pad(t, [[1, 2], [0, 3]], constant_values=1.5) ** 2, (X,), 2),
    ("pad_reflect", lambda t: ek.pad(t, [[2, 2], [3, 3]], "REFLECT") ** 2, (X,), 2),
    ("pad_symmetric", lambda t: ek.pad(t, [[3, 0], [1, 4]], "SYMMETRIC") ** 2, (X,), 2),
    ("gather_repeats", lambda t: ek.gather(t, [[0, 0], [2, 0]]) ** 2, (X,), 2),
    ("gather_axis", lambda t: ek.gather(t, [3, 3, 1], axis=-1) ** 2, (Y,), 1),
    (
        "gather_batch",
        lambda t: ek.gather(t, [[0, 0, 3], [1, 2, 1]], axis=2, batch_dims=1) ** 2,
        (Y,),
        2,
    ),
    ("gather_nd", lambda t: ek.gather_nd(t, [[0, 1], [0, 1], [2, 3]]) ** 2, (X,), 2),
    ("gather_nd_batch", lambda t: ek.gather_nd(t, [[[1]], [[1]]], batch_dims=1) ** 2, (Y,), 1),
    ("scatter_nd", lambda u: ek.scatter_nd([[1], [1], [0]], u, [4, 4]) ** 2, (X,), 2),
    ("boolean_mask", lambda t: ek.boolean_mask(t, X > 0) ** 2, (X,), 2),
    ("broadcast_to", lambda t: ek.broadcast_to(t, [2, 3, 4]) ** 2, (X[:, :1],), 2),
    ("reverse", lambda t: ek.reverse(t, [1]) * t, (X,), 2),
    ("slice", lambda t: ek.slice(t, [1, 1], [2, -1]) ** 2, (X,), 1),
    ("getitem_basic", lambda t: t[1:, None, ::-2] ** 2, (X,), 2),
    ("getitem_repeats", lambda t: t[[0, 0, 2, 0], 1:] ** 2, (X,), 2),
    ("getitem_two_arrays", lambda t: t[[0, 0, 2], [1, 1, 3]] ** 2, (X,), 2),
    ("getitem_mask", lambda t: t[X > 0] ** 2, (X,), 1),
    ("getitem_scalar", lambda t: t[2, 1] * t, (X,), 2),
    ("identity", lambda t: ek.identity(t) * t, (X,), 1),
]


@pytest.mark.parametrize("name, f, args, order", GRADS, ids=[g[0] for g in GRADS])
def test_gradients(name, f, args, order):
    check_gradients(f, *args, order=order)


def test_getitem_repeated_indices_accumulate():
    x = ek.constant([1.0, 2.0, 3.0])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(x[[0, 0, 2, 0]])
    np.testing.assert_array_equal(_np(tape.gradient(y, x)), [3.0, 0.0, 1.0])


def test_gather_from_a_variable_accumulates_repeats():
    emb = ek.Variable(np.arange(6.0).reshape(3, 2))
    with ek.GradientTape() as tape:
        y = ek.reduce_sum(ek.gather(emb, ek.constant([2, 2, 0])))
    np.testing.assert_array_equal(_np(tape.gradient(y, emb)), [[1, 1], [0, 0], [2, 2]])


def test_getitem_on_a_variable_records_on_the_tape():
    v = ek.Variable([[1.0, 2.0], [3.0, 4.0]])
    with ek.GradientTape() as tape:
        y = v[0] * v[:, 1]
    np.testing.assert_array_equal(_np(tape.gradient(y, v)), [[2.0, 5.0], [0.0, 2.0]])


def test_squeeze_empty_axis_and_conjugate_transpose():
    assert ek.squeeze(ek.zeros((1, 2, 1)), []).shape == (2,)  # TF: [] squeezes all
    z = np.array([[1 + 2j, 3j]])
    np.testing.assert_array_equal(_np(ek.transpose(z, conjugate=True)), z.conj().T)
    np.testing.assert_array_equal(_np(ek.transpose(X, conjugate=True)), X.T)


def test_int_results_are_not_differentiated():
    x = ek.constant([[1, 2], [3, 4]])
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.gather(x, [1, 1])[:, ::-1]
    np.testing.assert_array_equal(_np(y), [[4, 3], [4, 3]])
    assert tape.gradient(y, x) is None


# -- property tests -------------------------------------------------------------------------------

shapes = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, data=st.data())
def test_reshape_and_transpose_round_trip(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    flat = ek.reshape(a, [-1])
    back = ek.reshape(flat, shape)
    np.testing.assert_array_equal(_np(back), a)
    perm = data.draw(st.permutations(range(len(shape))))
    t = ek.transpose(a, perm)
    np.testing.assert_array_equal(_np(t), np.transpose(a, perm))
    np.testing.assert_array_equal(_np(ek.transpose(t, np.argsort(perm))), a)


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), data=st.data())
def test_reshape_and_transpose_gradients(shape, data):
    a = np.random.default_rng(len(shape)).standard_normal(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    new = data.draw(st.permutations(shape))
    check_gradients(lambda t: ek.reshape(ek.transpose(t, perm), new) ** 2, a)


# -- errors ---------------------------------------------------------------------------------------

ERRORS = [
    (lambda: ek.reshape(X, [5, -1]), ValueError, r"reshape: .*shape \(3, 4\).*\(5, -1\)"),
    (lambda: ek.reshape(X, [-1, -1]), ValueError, "reshape"),
    (lambda: ek.reshape(X, [2.0, 6]), TypeError, "reshape: shape"),
    (
        lambda: ek.expand_dims(X, 3),
        IAE,
        r"expand_dims: axis 3 is out of range \[-3, 2\] for a tensor of rank 2 \(shape \(3, 4\)\)",
    ),
    (lambda: ek.expand_dims(X, 1.0), TypeError, "expand_dims: axis must be an int"),
    (lambda: ek.squeeze(X, 1), ValueError, r"squeeze: cannot squeeze axis 1 .*\(3, 4\)"),
    (lambda: ek.transpose(X, [0, 0]), ValueError, r"transpose: perm \[0, 0\].*\(3, 4\)"),
    (
        lambda: ek.concat([X[:2], X], axis=1),
        ValueError,
        r"concat: .* got shapes \(2, 4\) and \(3, 4\)",
    ),
    (lambda: ek.concat([X, X.astype(np.float32)], 0), TypeError, "concat: .*float32"),
    (lambda: ek.concat([], 0), ValueError, "concat: values must be a non-empty"),
    (lambda: ek.concat([1.0, 2.0], 0), ValueError, "concat: cannot concatenate scalars"),
    (lambda: ek.stack([X, X[:2]]), ValueError, r"stack: .*\(3, 4\).*\(2, 4\)"),
    (lambda: ek.stack([X, X], axis=3), ValueError, "stack: axis 3"),
    (lambda: ek.unstack(X, num=2), ValueError, "unstack: num=2"),
    (lambda: ek.split(X, 3, axis=1), ValueError, r"split: cannot split axis 1 of length 4"),
    (lambda: ek.split(X, [1, 1], axis=1), ValueError, r"split: size splits \[1, 1\]"),
    (lambda: ek.split(X, 2, num=3, axis=1), ValueError, "split: num=3"),
    (lambda: ek.tile(X, [2]), ValueError, r"tile: multiples .*\(3, 4\)"),
    (lambda: ek.pad(X, [[1, 1]]), ValueError, r"pad: paddings .*\(3, 4\)"),
    (lambda: ek.pad(X, [[1, 1], [-1, 0]]), ValueError, r"pad: .* >= 0 .*\[-1, 0\]"),
    (lambda: ek.pad(X, [[3, 0], [0, 0]], "REFLECT"), ValueError, "pad: .*< the axis lengths"),
    (lambda: ek.pad(X, [[4, 0], [0, 0]], "SYMMETRIC"), ValueError, "pad: .*<= them"),
    (lambda: ek.pad(X, [[0, 0], [0, 0]], "EDGE"), ValueError, "pad: mode must be"),
    (lambda: ek.pad(X, [[0.5, 0], [0, 0]]), TypeError, r"pad: paddings must be ints.*0\.5"),
    (lambda: ek.gather(X, [0, 3]), IAE, r"gather: index 3 is out of range \[0, 3\)"),
    (lambda: ek.gather(X, [-1]), IAE, r"gather: index -1 is out of range"),
    (lambda: ek.gather(X, [4], axis=1), IAE, r"\[0, 4\) for axis 1 of shape \(3, 4\)"),
    (lambda: ek.gather(X, [0.0]), TypeError, "gather: indices must be an integer"),
    (lambda: ek.gather(X, [0], axis=2), ValueError, "gather: axis 2 is out of range"),
    (lambda: ek.gather(Y, [[0]], axis=1, batch_dims=1), ValueError, r"gather: batch_dims=1"),
    (lambda: ek.gather_nd(X, [[0, 4]]), IAE, r"gather_nd: index 4 .* axis 1 of shape"),
    (lambda: ek.gather_nd(X, [[0, 1, 0]]), ValueError, r"gather_nd: indices must have shape"),
    (lambda: ek.scatter_nd([[0]], [1.0, 2.0], [3]), ValueError, "scatter_nd: updates"),
    (lambda: ek.boolean_mask(X, [1, 0, 1]), TypeError, "boolean_mask: mask must be bool"),
    (lambda: ek.boolean_mask(X, [True, False]), ValueError, r"boolean_mask: mask shape \(2,\)"),
    (lambda: ek.broadcast_to(X, [4, 4]), ValueError, r"broadcast_to: .*\(3, 4\) to .*\(4, 4\)"),
    (lambda: ek.reverse(X, [1, -1]), ValueError, "reverse: axis .* twice"),
    (lambda: ek.slice(X, [2, 0], [2, 1]), ValueError, r"slice: .*\(3, 4\)"),
    (lambda: ek.shape(X, out_type=ek.float32), TypeError, "shape: out_type"),
    (lambda: ek.constant(X)[3], IAE, r"getitem: index 3 is out of range \[-3, 3\) for axis 0"),
    (lambda: ek.constant(X)[0, [0, 4]], IAE, r"getitem: index 4 .* axis 1 of shape \(3, 4\)"),
    (lambda: ek.constant(X)[1.0], TypeError, "getitem: invalid index"),
    (lambda: ek.constant(X)[ek.constant([0.0])], TypeError, "getitem: index arrays must be"),
]


@pytest.mark.parametrize("f, exc, match", ERRORS)
def test_errors(f, exc, match):
    with pytest.raises(exc, match=match):
        f()
