"""`ek.ragged.row_splits_to_segment_ids` and `segment_ids_to_row_splits` against TensorFlow
2.21's results, round trips and errors."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek


def test_tensorflow_2_21_results():
    ids = ek.ragged.row_splits_to_segment_ids([0, 3, 3, 5, 6, 9])
    assert ids.dtype == ek.int64
    np.testing.assert_array_equal(ids.numpy(), [0, 0, 0, 2, 2, 3, 4, 4, 4])
    splits = ek.ragged.segment_ids_to_row_splits([0, 0, 0, 2, 2, 3, 4, 4, 4])
    np.testing.assert_array_equal(splits.numpy(), [0, 3, 3, 5, 6, 9])
    fixed = ek.ragged.segment_ids_to_row_splits(ek.constant([0, 0, 2]), 4, out_type=ek.int32)
    assert fixed.dtype == ek.int32
    np.testing.assert_array_equal(fixed.numpy(), [0, 2, 2, 3, 3])
    wide = ek.ragged.row_splits_to_segment_ids(ek.constant([0, 2, 3]), out_type=ek.int64)
    assert wide.dtype == ek.int64 and wide.numpy().tolist() == [0, 0, 1]


def test_round_trip_matches_a_ragged_tensors_own_partition():
    rt = ek.ragged.constant([[1, 2], [], [3, 4, 5], [6]])
    ids = ek.ragged.row_splits_to_segment_ids(rt.row_splits)
    np.testing.assert_array_equal(ids.numpy(), rt.value_rowids().numpy())
    back = ek.ragged.segment_ids_to_row_splits(ids, num_segments=rt.nrows())
    np.testing.assert_array_equal(back.numpy(), rt.row_splits.numpy())


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="splits must have rank 1, got shape \\(1, 2\\)"):
        ek.ragged.row_splits_to_segment_ids([[0, 1]])
    with pytest.raises(TypeError, match="segment_ids must be integers, got float32"):
        ek.ragged.segment_ids_to_row_splits(ek.constant([0.0, 1.0]))
