"""`ek.data.experimental`'s functional forms (TF 2.0-2.5 code: ``ds.apply(unique())`` and the
like): the elements each produces, checked against lists worked out by hand, and the errors
they raise by type and message."""

import logging

import numpy as np
import pytest

import eagerkernel as ek

D = ek.data.Dataset
X = ek.data.experimental


def values(ds):
    return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


def test_the_names_exist():
    for name in (
        "unique", "scan", "take_while", "group_by_window", "bucket_by_sequence_length",
        "enumerate_dataset", "shuffle_and_repeat", "map_and_batch", "parallel_interleave",
        "ignore_errors", "assert_cardinality", "get_single_element", "sample_from_datasets",
        "choose_from_datasets",
    ):  # fmt: skip
        assert callable(getattr(X, name)), name
        assert name in X.__all__


def test_unique_scan_take_while():
    assert values(D.from_tensor_slices([3, 1, 3, 2, 1]).apply(X.unique())) == [3, 1, 2]
    words = D.from_tensor_slices(["b", "a", "b"]).apply(X.unique())
    assert values(words) == [b"b", b"a"]
    running = D.range(1, 5).apply(X.scan(ek.constant(1, ek.int64), lambda s, x: (s * x, s)))
    assert values(running) == [1, 1, 2, 6]
    assert values(D.range(10).apply(X.take_while(lambda x: x * x < 10))) == [0, 1, 2, 3]


def test_group_by_window_and_bucketing():
    ds = D.range(7).apply(X.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2), 2))
    assert values(ds) == [[0, 3], [1, 4], [2, 5], [6]]
    by_func = D.range(6).apply(
        X.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), window_size_func=lambda k: 3)
    )
    assert values(by_func) == [[0, 2, 4], [1, 3, 5]]
    with pytest.raises(ValueError):
        D.range(3).apply(X.group_by_window(lambda x: x, lambda k, w: w))
    seqs = D.from_tensor_slices([1, 4, 2, 5]).map(lambda n: ek.fill([n], n))
    buckets = seqs.apply(X.bucket_by_sequence_length(lambda x: ek.shape(x)[0], [3], [2, 2]))
    assert values(buckets) == [[[1, 0], [2, 2]], [[4, 4, 4, 4, 0], [5, 5, 5, 5, 5]]]
    with pytest.raises(ValueError):
        seqs.apply(X.bucket_by_sequence_length(lambda x: ek.shape(x)[0], [3], [2]))


def test_enumerate_and_shuffle_and_repeat():
    pairs = D.from_tensor_slices([5, 6]).apply(X.enumerate_dataset(3))
    assert [(int(i), int(x)) for i, x in pairs] == [(3, 5), (4, 6)]
    assert [int(i) for i, _ in D.range(2).apply(X.enumerate_dataset())] == [0, 1]
    ds = D.range(4).apply(X.shuffle_and_repeat(4, count=3, seed=7))
    out = values(ds)
    assert len(out) == 12 and all(sorted(out[k : k + 4]) == [0, 1, 2, 3] for k in (0, 4, 8))
    assert values(D.range(4).apply(X.shuffle_and_repeat(1, count=2))) == [0, 1, 2, 3] * 2
    forever = D.range(2).apply(X.shuffle_and_repeat(2, seed=1))
    assert int(forever.cardinality()) == ek.data.INFINITE_CARDINALITY


def test_map_and_batch():
    ds = D.range(7).apply(X.map_and_batch(lambda x: x + 1, 3))
    assert values(ds) == [[1, 2, 3], [4, 5, 6], [7]]
    dropped = D.range(7).apply(X.map_and_batch(lambda x: x + 1, 3, 2, drop_remainder=True))
    assert values(dropped) == [[1, 2, 3], [4, 5, 6]]
    calls = D.range(4).apply(X.map_and_batch(lambda x: -x, 2, num_parallel_calls=ek.data.AUTOTUNE))
    assert values(calls) == [[0, -1], [-2, -3]]
    with pytest.raises(ValueError, match="arguments are mutually exclusive"):
        X.map_and_batch(lambda x: x, 2, num_parallel_batches=1, num_parallel_calls=2)
    with pytest.raises(ValueError, match="num_parallel_batches must be positive"):
        X.map_and_batch(lambda x: x, 2, num_parallel_batches=0)


def test_parallel_interleave():
    def open_(x):
        return D.from_tensors(x).repeat(x)

    ds = D.range(1, 4).apply(X.parallel_interleave(open_, cycle_length=2))
    assert values(ds) == [1, 2, 2, 3, 3, 3]  # as Dataset.interleave(cycle_length=2)
    blocks = D.range(1, 4).apply(X.parallel_interleave(open_, 2, block_length=2))
    assert values(blocks) == [1, 2, 2, 3, 3, 3]
    sloppy = D.range(1, 4).apply(X.parallel_interleave(open_, 2, sloppy=True))
    assert sorted(values(sloppy)) == [1, 2, 2, 3, 3, 3]
    tuned = X.parallel_interleave(open_, 2, buffer_output_elements=4, prefetch_input_elements=0)
    assert values(D.range(1, 3).apply(tuned)) == [1, 2, 2]
    with pytest.raises(ValueError, match="buffer_output_elements must be positive"):
        X.parallel_interleave(open_, 2, buffer_output_elements=0)
    with pytest.raises(ValueError, match="prefetch_input_elements must be non-negative"):
        X.parallel_interleave(open_, 2, prefetch_input_elements=-1)


def test_ignore_errors_drops_failed_map_and_filter_elements(caplog):
    text = D.from_tensor_slices(["1", "x", "3", "y"])
    parsed = text.map(ek.strings.to_number).apply(X.ignore_errors())
    assert values(parsed) == [1.0, 3.0]
    assert parsed.element_spec == ek.TensorSpec([], ek.float32)
    assert int(parsed.cardinality()) == ek.data.UNKNOWN_CARDINALITY

    def check(x):
        if x == 2:
            raise ValueError("two")
        return x > 0

    chain = D.range(5).map(lambda x: x * 1).filter(check).map(lambda x: x * 10)
    assert values(chain.apply(X.ignore_errors())) == [10, 30, 40]
    parallel = text.map(ek.strings.to_number, num_parallel_calls=2).apply(X.ignore_errors())
    assert values(parallel) == [1.0, 3.0]
    first_bad = D.from_tensor_slices(["z", "2"]).map(ek.strings.to_number)
    assert first_bad.apply(X.ignore_errors()).element_spec.dtype == ek.float32
    with caplog.at_level(logging.WARNING, logger="eagerkernel"):
        assert values(text.map(ek.strings.to_number).apply(X.ignore_errors(True))) == [1.0, 3.0]
    assert [r.getMessage().startswith("Ignoring error: InvalidArgumentError") for r in
            caplog.records].count(True) == 2  # fmt: skip
    with pytest.raises(ek.errors.InvalidArgumentError):  # unguarded: the error propagates
        list(text.map(ek.strings.to_number))


def test_ignore_errors_lets_errors_of_other_stages_through():
    batched = D.from_tensor_slices(["1", "x"]).map(ek.strings.to_number).batch(2)
    with pytest.raises(ek.errors.InvalidArgumentError):
        list(batched.apply(X.ignore_errors()))
    assert values(D.range(3).apply(X.ignore_errors())) == [0, 1, 2]
    assert int(D.range(3).repeat().apply(X.ignore_errors()).cardinality()) == -1


def test_assert_cardinality():
    ds = D.range(6).filter(lambda x: x % 2 == 0).apply(X.assert_cardinality(3))
    assert int(ds.cardinality()) == 3 and values(ds) == [0, 2, 4]
    with pytest.raises(
        ek.errors.FailedPreconditionError,
        match=r"^Input dataset was expected to contain 1 element but contained only 0 elements\.$",
    ):
        list(D.range(0).apply(X.assert_cardinality(1)))
    too_many = D.range(5).apply(X.assert_cardinality(ek.constant(2, ek.int64)))
    it = iter(too_many)
    assert [int(next(it)), int(next(it))] == [0, 1]
    with pytest.raises(
        ek.errors.FailedPreconditionError,
        match=r"^Input dataset was expected to contain 2 elements but contained at least "
        r"3 elements\.$",
    ):
        next(it)
    with pytest.raises(
        ek.errors.FailedPreconditionError,
        match="expected to contain an infinite number of elements but contained only 2 elements",
    ):
        list(D.range(2).apply(X.assert_cardinality(ek.data.INFINITE_CARDINALITY)))
    endless = D.range(2).repeat().apply(X.assert_cardinality(-1))
    assert values(endless.take(3)) == [0, 1, 0]
    with pytest.raises(TypeError, match="expected_cardinality must be an integer"):
        D.range(2).apply(X.assert_cardinality(2.5))


def test_get_single_element():
    assert int(X.get_single_element(D.from_tensors(4))) == 4
    x, y = X.get_single_element(D.from_tensors((1, 2)))
    assert (int(x), int(y)) == (1, 2)
    with pytest.raises(TypeError, match=r"`dataset` must be a `tf\.data\.Dataset` object"):
        X.get_single_element([1])
    with pytest.raises(ek.errors.InvalidArgumentError, match="more than one element"):
        X.get_single_element(D.range(2))
    with pytest.raises(ek.errors.InvalidArgumentError, match="empty"):
        X.get_single_element(D.range(0))


def test_sample_and_choose_from_datasets():
    a, b = D.range(3), D.range(10, 12)
    assert values(X.sample_from_datasets([a, b], weights=[1.0, 0.0], seed=3)) == [0, 1, 2]
    mixed = values(X.sample_from_datasets([a, b], seed=5))
    assert sorted(mixed) == [0, 1, 2, 10, 11]
    stopped = values(X.sample_from_datasets([D.range(0), b], stop_on_empty_dataset=True))
    assert len(stopped) <= 2 and set(stopped) <= {10, 11}
    choice = D.from_tensor_slices(ek.constant([0, 1, 1, 1, 0], ek.int64))
    assert values(X.choose_from_datasets([a, b], choice)) == [0, 10, 11, 1]  # skips the empty
    stop = X.choose_from_datasets([a, b], choice, stop_on_empty_dataset=True)
    assert values(stop) == [0, 10, 11]
    with pytest.raises(ek.errors.InvalidArgumentError):
        list(X.choose_from_datasets([a, b], D.from_tensor_slices(ek.constant([2], ek.int64))))
