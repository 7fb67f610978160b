"""`ek.distribute`: training on several devices and machines (follows `tf.distribute`).

- `MirroredStrategy`: one replica per local device (NCCL between CUDA GPUs, a NumPy
  reduction on the CPU and on virtual GPUs).
- `MultiWorkerMirroredStrategy`: one process per worker, launched by ``mpiexec``; collectives
  through mpi4py.
- `OneDeviceStrategy`, the default strategy and `get_strategy`.

See `strategy.py` for how replicas run and `keras_support.py` for ``model.fit`` under a scope.
"""

from __future__ import annotations

import types as _types

from .cluster_resolver import TFConfigClusterResolver
from .context import (
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from .input_lib import (
    AutoShardPolicy,
    DistributedDataset,
    DistributedDatasetsFromFunction,
    DistributedIterator,
    InputContext,
    InputOptions,
    ValueContext,
)
from .multi_worker import (
    ClusterSpec,
    CommunicationImplementation,
    CommunicationOptions,
    MPIClusterResolver,
    MultiWorkerMirroredStrategy,
)
from .strategies import (
    CentralStorageStrategy,
    HierarchicalCopyAllReduce,
    MirroredStrategy,
    NcclAllReduce,
    OneDeviceStrategy,
    ReductionToOneDevice,
)
from .strategy import ReplicaContext, Strategy, StrategyExtended
from .values import (
    DistributedValues,
    DistributedVariable,
    Mirrored,
    MirroredVariable,
    PerReplica,
    ReduceOp,
    SyncOnReadVariable,
)

__all__ = [
    "AutoShardPolicy",
    "ClusterSpec",
    "CommunicationOptions",
    "DistributedDataset",
    "DistributedDatasetsFromFunction",
    "DistributedIterator",
    "DistributedValues",
    "DistributedVariable",
    "HierarchicalCopyAllReduce",
    "InputContext",
    "InputOptions",
    "MPIClusterResolver",
    "Mirrored",
    "MirroredStrategy",
    "MirroredVariable",
    "MultiWorkerMirroredStrategy",
    "NcclAllReduce",
    "OneDeviceStrategy",
    "PerReplica",
    "ReduceOp",
    "ReductionToOneDevice",
    "ReplicaContext",
    "Strategy",
    "StrategyExtended",
    "SyncOnReadVariable",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]

# `tf.distribute.experimental.*` and `tf.distribute.cluster_resolver.*` names.
experimental = _types.SimpleNamespace(
    CentralStorageStrategy=CentralStorageStrategy,
    CommunicationImplementation=CommunicationImplementation,
    CommunicationOptions=CommunicationOptions,
    MultiWorkerMirroredStrategy=MultiWorkerMirroredStrategy,
    ValueContext=ValueContext,
)
cluster_resolver = _types.SimpleNamespace(
    ClusterSpec=ClusterSpec,
    MPIClusterResolver=MPIClusterResolver,
    TFConfigClusterResolver=TFConfigClusterResolver,
)
