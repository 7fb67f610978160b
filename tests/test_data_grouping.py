"""`Dataset.scan`, `take_while`, `unique`, `group_by_window` and `bucket_by_sequence_length`:
the same pipelines run under TensorFlow 2.21 gave the expected lists written here."""

import numpy as np
import pytest

import eagerkernel as ek

D = ek.data.Dataset


def values(ds):
    return [np.asarray(x).tolist() for x in ds]


def test_scan_folds_and_yields_each_output():
    ds = D.range(5).scan(ek.constant(0, ek.int64), lambda s, x: (s + x, s * x))
    assert values(ds) == [0, 0, 2, 9, 24]  # TensorFlow 2.21
    pairs = D.from_tensor_slices(([1, 2, 3], [10, 20, 30])).scan(
        ek.constant(0), lambda s, a, b: (s + a, s + b)
    )
    assert values(pairs) == [10, 21, 33]
    assert values(ds) == [0, 0, 2, 9, 24]  # a second pass starts from initial_state again
    with pytest.raises(ValueError, match="new_state, output"):
        list(D.range(2).scan(ek.constant(0, ek.int64), lambda s, x: s + x))
    with pytest.raises(TypeError, match="scan_func must be callable"):
        D.range(2).scan(0, 3)


def test_take_while_and_unique():
    assert values(D.range(10).take_while(lambda x: x < 4)) == [0, 1, 2, 3]
    assert values(D.range(3).take_while(lambda x: x > 5)) == []
    assert values(D.from_tensor_slices([1, 2, 2, 3, 1]).unique()) == [1, 2, 3]
    words = D.from_tensor_slices(["b", "a", "b"]).unique()
    assert [w.numpy() for w in words] == [b"b", b"a"]
    with pytest.raises(TypeError, match=r"unique: .*float32"):  # as TF: when the dataset is made
        list(D.from_tensor_slices([1.0, 2.0]).unique())
    with pytest.raises(ValueError, match="bool scalar"):
        list(D.range(3).take_while(lambda x: x))


def test_group_by_window_full_windows_then_the_rest_by_key():
    ds = D.range(10).group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), window_size=3)
    assert values(ds) == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]  # TensorFlow 2.21
    sized = D.range(9).group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(5), window_size_func=lambda k: k + 1
    )
    assert values(sized) == [[0], [3], [1, 4], [6], [2, 5, 8], [7]]
    keyed = D.range(4).group_by_window(
        lambda x: x // 2, lambda k, w: w.map(lambda x: x * 0 + k), window_size=2
    )
    assert values(keyed) == [0, 0, 1, 1]
    with pytest.raises(ValueError, match="exactly one of window_size and window_size_func"):
        D.range(3).group_by_window(lambda x: x, lambda k, w: w)
    with pytest.raises(ValueError, match="window_size must be positive"):
        D.range(3).group_by_window(lambda x: x, lambda k, w: w, window_size=0)
    with pytest.raises(TypeError, match="reduce_func must return a Dataset"):
        list(D.range(3).group_by_window(lambda x: x, lambda k, w: 1, window_size=1))


def test_bucket_by_sequence_length_pads_each_bucket():
    ds = D.range(1, 8).map(lambda x: ek.fill([x], x))
    buckets = ds.bucket_by_sequence_length(lambda x: ek.shape(x)[0], [3, 5], [2, 2, 2])
    assert values(buckets) == [  # TensorFlow 2.21
        [[1, 0], [2, 2]],
        [[3, 3, 3, 0], [4, 4, 4, 4]],
        [[5, 5, 5, 5, 5, 0], [6, 6, 6, 6, 6, 6]],
        [[7, 7, 7, 7, 7, 7, 7]],
    ]
    to_boundary = D.range(1, 5).map(lambda x: ek.fill([x], x))
    padded = to_boundary.bucket_by_sequence_length(
        lambda x: ek.shape(x)[0], [3, 6], [2, 2, 2], [None], pad_to_bucket_boundary=True
    )
    assert [b.shape for b in padded] == [(2, 2), (2, 5)]
    with pytest.raises(NotImplementedError, match="give padded_shapes"):
        list(
            to_boundary.bucket_by_sequence_length(
                lambda x: ek.shape(x)[0], [3, 6], [2, 2, 2], pad_to_bucket_boundary=True
            )
        )
    unpadded = D.range(6).bucket_by_sequence_length(lambda x: x, [3], [2, 5], no_padding=True)
    assert values(unpadded) == [[0, 1], [2], [3, 4, 5]]
    with pytest.raises(ValueError, match="len\\(bucket_batch_sizes\\) must equal"):
        ds.bucket_by_sequence_length(lambda x: ek.shape(x)[0], [3], [2])
