"""Dataset iterators are checkpointable (as tf.data's): restoring resumes the pass at the
element after the saved one, shuffle order included, even for unseeded shuffles and across
`repeat` epochs (issue 15 section 4)."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.io.checkpoint_format import CheckpointError


def values(it, n):
    return [np.asarray(next(it)).tolist() for _ in range(n)]


def pipeline():
    return (
        ek.data.Dataset.range(40)
        .shuffle(16)  # no seed: fresh entropy, restored from the checkpoint
        .map(lambda x: x * 10, num_parallel_calls=2)
        .batch(3)
        .prefetch(2)
    )


def test_restore_resumes_the_same_iterator(tmp_path):
    it = iter(pipeline())
    values(it, 4)
    ckpt = ek.train.Checkpoint(step=ek.Variable(4), iterator=it)
    path = ckpt.save(str(tmp_path / "c"))
    want = values(it, 5)
    ckpt.restore(path).assert_consumed()
    assert values(it, 5) == want


def test_restore_into_a_new_pipeline_resumes_with_the_saved_shuffle_order(tmp_path):
    it = iter(pipeline())
    seen = values(it, 3)
    path = ek.train.Checkpoint(iterator=it).write(str(tmp_path / "c"))
    rest = [np.asarray(x).tolist() for x in it]
    fresh = iter(pipeline())  # another unseeded shuffle: another order, until restored
    ek.train.Checkpoint(iterator=fresh).restore(path).assert_consumed()
    assert [np.asarray(x).tolist() for x in fresh] == rest
    everything = sorted(v for batch in seen + rest for v in batch)
    assert everything == [10 * i for i in range(40)]


def test_restore_across_repeat_epochs_with_reshuffling(tmp_path):
    ds = ek.data.Dataset.range(10).shuffle(10, reshuffle_each_iteration=True).repeat(3)
    it = iter(ds)
    values(it, 14)  # inside the second epoch
    path = ek.train.Checkpoint(iterator=it).write(str(tmp_path / "c"))
    rest = [int(x) for x in it]
    assert len(rest) == 16
    again = iter(ek.data.Dataset.range(10).shuffle(10, reshuffle_each_iteration=True).repeat(3))
    ek.train.Checkpoint(iterator=again).restore(path)
    assert [int(x) for x in again] == rest


def test_a_different_pipeline_is_refused_and_the_iterator_unchanged(tmp_path):
    it = iter(ek.data.Dataset.range(10).shuffle(4))
    values(it, 2)
    path = ek.train.Checkpoint(iterator=it).write(str(tmp_path / "c"))
    other = iter(ek.data.Dataset.range(10).shuffle(4).shuffle(4, seed=1))
    first = values(other, 1)
    with pytest.raises(CheckpointError, match="iterator/shuffles"):
        ek.train.Checkpoint(iterator=other).restore(path)
    assert len(values(other, 9)) == 9 and first  # the pass went on where it was
