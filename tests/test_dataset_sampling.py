"""`Dataset.sample_from_datasets`, `choose_from_datasets` and `list_files` (tf.data's
documented behaviour: proportions, exhaustion rules, seeds, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

Dataset = ek.data.Dataset


def test_sample_from_datasets_follows_the_weights_and_the_seed():
    a = Dataset.from_tensors(0).repeat()
    b = Dataset.from_tensors(1).repeat()
    ds = Dataset.sample_from_datasets([a, b], [0.8, 0.2], seed=7).take(4000)
    xs = np.array([int(x) for x in ds])
    assert abs(xs.mean() - 0.2) < 0.03  # binomial sd ~ 0.006
    again = np.array(
        [int(x) for x in Dataset.sample_from_datasets([a, b], [0.8, 0.2], seed=7).take(4000)]
    )
    np.testing.assert_array_equal(xs, again)  # same seed, same order
    # the same order on every pass by default; rerandomize_each_iteration=True changes it
    ds = Dataset.sample_from_datasets([a, b], seed=3).take(50)
    assert [int(x) for x in ds] == [int(x) for x in ds]
    ds = Dataset.sample_from_datasets([a, b], seed=3, rerandomize_each_iteration=True).take(50)
    assert [int(x) for x in ds] != [int(x) for x in ds]


def test_sample_from_datasets_exhaustion_rules():
    a, b = Dataset.range(0, 3), Dataset.range(10, 20)
    every = sorted(int(x) for x in Dataset.sample_from_datasets([a, b], seed=1))
    assert every == [0, 1, 2, *range(10, 20)]  # an exhausted input drops out
    stopped = [
        int(x) for x in Dataset.sample_from_datasets([a, b], seed=1, stop_on_empty_dataset=True)
    ]
    assert len(stopped) < 13 and sum(x < 10 for x in stopped) == 3


def test_sample_from_datasets_errors():
    a, b = Dataset.range(3), Dataset.range(3)
    with pytest.raises(ValueError, match=r"weights must have one entry per dataset \(2\)"):
        Dataset.sample_from_datasets([a, b], [1.0])
    with pytest.raises(ValueError, match=r"weights must be >= 0"):
        Dataset.sample_from_datasets([a, b], [1.0, -1.0])
    with pytest.raises(TypeError, match=r"sample_from_datasets: incompatible dataset elements"):
        Dataset.sample_from_datasets([a, Dataset.from_tensor_slices([1.0])])
    with pytest.raises(NotImplementedError, match=r"weights as a Dataset"):
        Dataset.sample_from_datasets([a, b], Dataset.from_tensors([0.5, 0.5]))
    with pytest.raises(ValueError, match=r"non-empty list"):
        Dataset.sample_from_datasets([])


def test_choose_from_datasets_as_documented():
    datasets = [
        Dataset.from_tensors("foo").repeat(),
        Dataset.from_tensors("bar").repeat(),
        Dataset.from_tensors("baz").repeat(),
    ]
    choice = Dataset.range(3).repeat(3)
    out = [x.numpy() for x in Dataset.choose_from_datasets(datasets, choice)]
    assert out == [b"foo", b"bar", b"baz"] * 3
    short = [Dataset.range(0, 2), Dataset.range(10, 15)]
    pick = Dataset.from_tensor_slices(np.array([0, 1, 0, 0, 1], np.int64))
    assert [int(x) for x in Dataset.choose_from_datasets(short, pick)] == [0, 10, 1]
    keep = Dataset.choose_from_datasets(short, pick, stop_on_empty_dataset=False)
    assert [int(x) for x in keep] == [0, 10, 1, 11]
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"selector index 5 is out of range"):
        list(Dataset.choose_from_datasets(short, Dataset.from_tensors(np.int64(5))))
    with pytest.raises(TypeError, match=r"dataset of scalar integers"):
        Dataset.choose_from_datasets(short, Dataset.from_tensors(1.0))


def test_list_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text(name)
    ordered = Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False)
    assert [x.numpy() for x in ordered] == [str(tmp_path / n).encode() for n in ("a.txt", "b.txt")]
    both = Dataset.list_files([str(tmp_path / "*.txt"), str(tmp_path / "*.csv")], seed=1)
    assert sorted(x.numpy() for x in both) == sorted(
        str(tmp_path / n).encode() for n in ("a.txt", "b.txt", "c.csv")
    )
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"No files matched pattern"):
        Dataset.list_files(str(tmp_path / "*.png"))
