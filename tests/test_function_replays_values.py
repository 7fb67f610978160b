"""Graph functions replay ops whose results depend on their inputs' values (sorting, unique,
masks, counts, ragged row partitions, sparse indices): each call of an `ek.function` must give
what the eager call gives, not the values of the call it was traced on (an op computed outside
the dispatcher would be captured as a constant; a function that builds ragged or sparse
tensors runs eagerly)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

F1 = [[0.3, 0.6, 0.2], [0.5, 0.1, 0.9]]
F2 = [[0.7, 0.2, 0.4], [0.15, 0.8, 0.35]]

CASES = [
    ("sort", lambda x: ek.sort(x), (F1,), (F2,)),
    ("argsort", lambda x: ek.argsort(x, direction="DESCENDING"), (F1,), (F2,)),
    ("top_k", lambda x: tuple(ek.math.top_k(x, 2)), (F1,), (F2,)),
    ("unique", lambda x: tuple(ek.unique(x)), ([1, 1, 2],), ([3, 4, 3],)),
    ("unique_with_counts", lambda x: tuple(ek.unique_with_counts(x)), ([1, 1, 2],), ([5, 5, 5],)),
    (
        "boolean_mask",
        lambda x, m: ek.boolean_mask(x, m),
        ([1.0, 2.0, 3.0], [True, False, True]),
        ([1.0, 2.0, 3.0], [False, True, True]),
    ),
    (
        "bool index",
        lambda x, m: x[m],
        ([1.0, 2.0, 3.0], [True, False, True]),
        ([1.0, 2.0, 3.0], [False, True, False]),
    ),
    (
        "bincount",
        lambda a, w: ek.math.bincount(a, weights=w),
        ([0, 1, 1], [1.0, 2.0, 3.0]),
        ([2, 2, 0], [1.0, 2.0, 3.0]),
    ),
    (
        "confusion_matrix",
        lambda a, b: ek.math.confusion_matrix(a, b, num_classes=3),
        ([0, 1, 2], [0, 1, 2]),
        ([0, 0, 2], [1, 1, 2]),
    ),
    (
        "segment_mean",
        lambda d, i: ek.math.segment_mean(d, i),
        ([1.0, 2.0, 3.0], [0, 0, 1]),
        ([1.0, 2.0, 3.0], [0, 1, 1]),
    ),
    (
        "unsorted_segment_sqrt_n",
        lambda d, i: ek.math.unsorted_segment_sqrt_n(d, i, 3),
        ([1.0, 2.0, 3.0], [0, 0, 1]),
        ([1.0, 2.0, 3.0], [2, 1, 1]),
    ),
    # The sorted segment ops size their output by the last id; an id that does not occur
    # gives 0 (not the lowest float a maximum starts from).
    (
        "segment_sum: its size",
        lambda d, i: ek.math.segment_sum(d, i),
        ([1.0, 2.0, 3.0], [0, 1, 2]),
        ([1.0, 2.0, 3.0], [0, 0, 1]),
    ),
    (
        "segment_max: an empty segment",
        lambda d, i: ek.math.segment_max(d, i),
        ([1.0, 2.0, 3.0], [0, 1, 2]),
        ([1.0, 2.0, 3.0], [0, 0, 2]),
    ),
    # tf.shape and tf.size of a tensor whose shape depends on the values: ops, replayed.
    (
        "shape of boolean_mask",
        lambda x: ek.shape(ek.boolean_mask(x, x > 1.5)),
        ([1.0, 2.0, 3.0],),
        ([3.0, 2.0, 3.0],),
    ),
    ("size of unique", lambda x: ek.size(ek.unique(x)[0]), ([1, 2, 3],), ([3, 3, 3],)),
    ("shape of a draw", lambda s: ek.shape(ek.random.uniform(s)), ([2],), ([3],)),
    ("in_top_k", lambda p: ek.math.in_top_k([1], p, 1), ([[0.1, 0.9]],), ([[0.9, 0.1]],)),
    (
        "ragged from_row_lengths",
        lambda t, n: ek.RaggedTensor.from_row_lengths(t, n).to_tensor(),
        ([1, 2, 3], [1, 2]),
        ([1, 2, 3], [2, 1]),
    ),
    (
        "ragged reduce_sum",
        lambda t, r: ek.reduce_sum(ek.RaggedTensor.from_value_rowids(t, r), axis=1),
        ([1, 2, 3], [0, 1, 1]),
        ([1, 2, 3], [0, 0, 1]),
    ),
    (
        "ragged boolean_mask",
        lambda t, m: ek.ragged.boolean_mask(t, m).to_tensor(),
        ([[1, 2], [3, 4]], [[True, False], [True, True]]),
        ([[1, 2], [3, 4]], [[False, True], [False, False]]),
    ),
    (
        "sparse from_dense",
        lambda t: ek.sparse.reduce_sum(ek.sparse.from_dense(t)),
        ([0, 1, 0],),
        ([2, 0, 3],),
    ),
    (
        "max_pool_with_argmax",
        lambda x: tuple(ek.nn.max_pool_with_argmax(x, 2, 2, "SAME")),
        ([[[[1.0], [5.0], [0.0]], [[7.0], [2.0], [3.0]]]],),
        ([[[[9.0], [5.0], [4.0]], [[7.0], [2.0], [3.0]]]],),
    ),
]


def _arrays(out):
    return [np.asarray(t.numpy()) for t in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("fn, first, second", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_traced_function_gives_each_calls_own_values(fn, first, second):
    traced = ek.function(fn)
    first = [ek.constant(v) for v in first]
    second = [ek.constant(v) for v in second]
    for args in (first, second, first):
        got, want = _arrays(traced(*args)), _arrays(fn(*args))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    a, b = _arrays(fn(*first)), _arrays(fn(*second))  # the case tells the calls apart
    assert any(x.shape != y.shape or not np.array_equal(x, y) for x, y in zip(a, b))


def test_ops_without_a_gradient_raise_as_tensorflows_and_sort_differentiates():
    x = ek.constant([1.0, 2.0, 2.0])
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(x)
        by_sort = ek.reduce_sum(ek.sort(x) * [1.0, 2.0, 3.0])
        by_top_k = ek.reduce_sum(ek.math.top_k(x, 2).values * [1.0, 2.0])
        by_unique = ek.reduce_sum(ek.unique(x).y)
    np.testing.assert_array_equal(tape.gradient(by_sort, x).numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tape.gradient(by_top_k, x).numpy(), [0.0, 1.0, 2.0])
    with pytest.raises(LookupError, match="'Unique'"):  # TensorFlow 2.21: no gradient either
        tape.gradient(by_unique, x)


def test_scalar_comparisons_are_told_apart():
    # NumPy gives the one np.True_ for every 0-d comparison that holds; a trace tells values
    # apart by identity, so two conditions true while tracing were one value: a replay in which
    # only one holds took both from the second.
    @ek.function
    def two_conditions(x, y):
        return ek.where(x > 0.0, 1.0, 0.0) + ek.where(y > 0.0, 10.0, 0.0)

    for x, y, want in [(1.0, 1.0, 11.0), (1.0, -1.0, 1.0), (-1.0, 1.0, 10.0), (-1.0, -1.0, 0.0)]:
        assert float(two_conditions(ek.constant(x), ek.constant(y))) == want
    assert two_conditions.experimental_get_tracing_count() == 1

    # The same in library code: rgb_to_hsv of one pixel compares scalars to pick the hue.
    hsv = ek.function(ek.image.rgb_to_hsv)
    for pixel in ([0.5, 0.2, 0.1], [0.3, 0.9, 0.4], [0.1, 0.2, 0.8]):
        want = ek.image.rgb_to_hsv(ek.constant(pixel)).numpy()
        np.testing.assert_allclose(hsv(ek.constant(pixel)).numpy(), want, rtol=1e-6)
