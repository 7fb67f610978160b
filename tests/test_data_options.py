"""`ek.data.Options` (follows `tf.data.Options`), `Dataset.with_options`, and the
distributed-input names of TensorFlow's distributed input tutorial."""

from __future__ import annotations

import logging
import threading
import time
import types

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core.device import CPU
from eagerkernel.runtime.distribute.input_lib import PerReplicaSpec, split_batch

AutoShardPolicy = ek.data.experimental.AutoShardPolicy


def test_options_are_typed_and_have_tensorflows_defaults():
    o = ek.data.Options()
    assert o.deterministic is None and o.experimental_deterministic is None
    assert o.threading.private_threadpool_size is None
    assert o.experimental_threading is o.threading
    assert o.experimental_distribute.auto_shard_policy == AutoShardPolicy.AUTO
    o.experimental_deterministic = False  # TF 2.x's old name
    assert o.deterministic is False
    o.threading.private_threadpool_size = 4
    o.experimental_optimization.map_and_batch_fusion = True
    with pytest.raises(AttributeError, match="Cannot set the property foo on Options"):
        o.foo = 1
    with pytest.raises(TypeError, match='Property "deterministic" must be of type'):
        o.deterministic = "yes"
    with pytest.raises(TypeError, match='Property "private_threadpool_size" must be of type'):
        o.threading.private_threadpool_size = True
    with pytest.raises(TypeError, match='Property "auto_shard_policy" must be of type'):
        o.experimental_distribute.auto_shard_policy = 2
    assert o != ek.data.Options() and ek.data.Options() == ek.data.Options()


def test_pipeline_options_merge_in_order_later_ones_winning(caplog):
    a, b = ek.data.Options(), ek.data.Options()
    a.deterministic = False
    a.threading.private_threadpool_size = 2
    b.deterministic = True
    b.experimental_distribute.auto_shard_policy = AutoShardPolicy.OFF
    ds = ek.data.Dataset.range(5).with_options(a).map(lambda x: x * 2)
    with caplog.at_level(logging.WARNING, logger="eagerkernel"):
        merged = ds.with_options(b).options()
    assert merged.deterministic is True and merged.threading.private_threadpool_size == 2
    assert merged.experimental_distribute.auto_shard_policy == AutoShardPolicy.OFF
    assert "Changing the value of option deterministic from False to True" in caplog.text
    assert ek.data.Dataset.range(3).options() == ek.data.Options()
    with pytest.raises(TypeError, match=r"with_options: options must be an ek\.data\.Options"):
        ds.with_options({"deterministic": False})


def test_with_options_keeps_elements_cardinality_and_spec():
    ds = ek.data.Dataset.from_tensor_slices(np.arange(6.0, dtype=np.float32)).batch(4)
    wo = ds.with_options(ek.data.Options())
    assert [x.numpy().tolist() for x in wo] == [[0, 1, 2, 3], [4, 5]]
    assert int(wo.cardinality()) == 2 and wo.element_spec == ds.element_spec


def _finish_order(options):
    # Element 0 is slow: an unordered map hands out the others first.
    def work(x):
        if int(x) == 0:
            time.sleep(0.3)
        return x

    ds = ek.data.Dataset.range(6).map(
        lambda x: ek.py_function(work, [x], ek.int64), num_parallel_calls=3
    )
    if options is not None:
        ds = ds.with_options(options)
    return [int(x) for x in ds]


def test_deterministic_option_governs_parallel_map():
    unordered = ek.data.Options()
    unordered.deterministic = False
    assert _finish_order(None) == list(range(6))
    got = _finish_order(unordered)
    assert sorted(got) == list(range(6)) and got[0] != 0
    assert threading.active_count() < 50


def _stub_strategy(worker_index):
    ext = types.SimpleNamespace(
        num_replicas_in_sync=2, worker_index=worker_index, num_local_replicas=1, devices=[CPU]
    )
    return types.SimpleNamespace(extended=ext)


def test_auto_shard_policy_off_keeps_whole_batches_on_each_worker():
    batch = ek.constant(np.arange(8).reshape(4, 2))
    sharded = split_batch(_stub_strategy(1), batch)
    np.testing.assert_array_equal(sharded.numpy(), [[4, 5], [6, 7]])  # worker 1's half
    whole = split_batch(_stub_strategy(1), batch, shard=False)
    np.testing.assert_array_equal(whole.numpy(), batch.numpy())
    off = ek.data.Options()
    off.experimental_distribute.auto_shard_policy = AutoShardPolicy.OFF
    strategy = ek.distribute.MirroredStrategy()
    dist = strategy.experimental_distribute_dataset(
        ek.data.Dataset.from_tensor_slices(np.arange(8)).batch(4).with_options(off)
    )
    assert [x.numpy().tolist() for x in dist] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    file_ = ek.data.Options()
    file_.experimental_distribute.auto_shard_policy = AutoShardPolicy.FILE
    with pytest.raises(NotImplementedError, match="auto_shard_policy FILE is not supported"):
        strategy.experimental_distribute_dataset(
            ek.data.Dataset.range(4).batch(2).with_options(file_)
        )


def test_values_from_function_and_element_spec_on_virtual_gpus(monkeypatch):
    strategy = ek.distribute.MirroredStrategy()
    value = strategy.experimental_distribute_values_from_function(
        lambda ctx: ek.constant(ctx.replica_id_in_sync_group * 10 + ctx.num_replicas_in_sync)
    )
    assert int(value) == 1  # one replica: the value itself
    dist = strategy.experimental_distribute_dataset(
        ek.data.Dataset.from_tensors(([1.0], [1.0])).repeat(8).batch(4)
    )
    spec = dist.element_spec
    assert spec[0].shape.as_list() == [None, 1] and spec[0].dtype == ek.float32

    @ek.function(input_signature=[spec])
    def step(inputs):
        return strategy.run(lambda x: 2 * x[0], args=(inputs,))

    assert step(next(iter(dist))).numpy().tolist() == [[2.0]] * 4


def test_per_replica_spec_for_several_replicas():
    gpus = [d for d in ek.config.list_logical_devices("GPU")]
    if len(gpus) < 2:
        pytest.skip("needs two (virtual) GPUs: EAGERKERNEL_VIRTUAL_GPUS=2")
    strategy = ek.distribute.MirroredStrategy([g.name for g in gpus[:2]])
    values = strategy.experimental_distribute_values_from_function(
        lambda ctx: ek.constant(ctx.replica_id_in_sync_group)
    )
    assert [int(v) for v in strategy.experimental_local_results(values)] == [0, 1]
    dist = strategy.experimental_distribute_dataset(ek.data.Dataset.range(8).batch(4))
    assert dist.element_spec == PerReplicaSpec(*[ek.TensorSpec([None], ek.int64)] * 2)
