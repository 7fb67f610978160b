"""The specs of distributed iterators and their optionals (follows TensorFlow 2.21: the reprs
below are what it prints for the same calls on two logical CPUs)."""

from __future__ import annotations

import pytest

import eagerkernel as ek
from eagerkernel.runtime.distribute.input_lib import PerReplicaSpec


@pytest.fixture(autouse=True)
def virtual_gpus():
    ek.config.experimental.set_virtual_gpus(2)


def strategy():
    return ek.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])


def test_get_next_as_optional_holds_a_per_replica_spec():
    it = iter(strategy().experimental_distribute_dataset(ek.data.Dataset.range(8).batch(4)))
    full = ek.TensorSpec([2], ek.int64)
    optional = it.get_next_as_optional()
    assert bool(optional.has_value())
    assert optional.element_spec == PerReplicaSpec(full, full)  # each replica's part, (2,)
    assert [v.numpy().tolist() for v in optional.get_value().values] == [[0, 1], [2, 3]]
    unbatched = ek.TensorSpec([None], ek.int64)
    assert it.element_spec == PerReplicaSpec(unbatched, unbatched)
    next(it)
    empty = it.get_next_as_optional()  # the end: the dataset's spec
    assert not bool(empty.has_value())
    assert empty.element_spec == PerReplicaSpec(unbatched, unbatched)


def test_datasets_from_function_have_an_element_spec():
    dist = strategy().distribute_datasets_from_function(
        lambda ctx: ek.data.Dataset.from_tensor_slices({"x": [1.0, 2.0, 3.0, 4.0]}).batch(2)
    )
    spec = ek.TensorSpec([None], ek.float32)
    assert dist.element_spec == {"x": PerReplicaSpec(spec, spec)}
    assert iter(dist).element_spec == dist.element_spec
    first = iter(dist).get_next_as_optional()
    two = ek.TensorSpec([2], ek.float32)
    assert first.element_spec == {"x": PerReplicaSpec(two, two)}


def test_a_plain_iterable_of_batches_has_no_spec():
    it = iter(strategy().experimental_distribute_dataset([ek.constant([1.0, 2.0])]))
    with pytest.raises(TypeError, match="element_spec: the dataset has no element_spec"):
        it.element_spec  # noqa: B018
    next(it)
    assert it.get_next_as_optional().element_spec is None
