"""`TFConfigClusterResolver`: the cluster described by the ``TF_CONFIG`` environment variable
(follows `tf.distribute.cluster_resolver.TFConfigClusterResolver`).

``TF_CONFIG`` is JSON: ``{"cluster": {job: [address, ...]}, "task": {"type": job, "index":
i}, "rpc_layer": ..., "environment": ...}``. It is read at each call, as TensorFlow reads it,
so a resolver made before ``TF_CONFIG`` is set sees it later. This resolver only describes the
cluster: `MultiWorkerMirroredStrategy` here runs over MPI (`MPIClusterResolver`), and there is
no parameter-server runtime.

>>> import json, os
>>> os.environ["TF_CONFIG"] = json.dumps(
...     {"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 1}})
>>> r = TFConfigClusterResolver()
>>> r.task_type, r.task_id, r.cluster_spec().as_dict(), r.master()
('worker', 1, {'worker': ['a:1', 'b:2']}, 'b:2')
>>> del os.environ["TF_CONFIG"]
>>> r.task_type, r.task_id, r.cluster_spec().as_dict(), r.master()
(None, None, {}, '')
"""

from __future__ import annotations

from .multi_worker import ClusterSpec, read_tf_config

__all__ = ["TFConfigClusterResolver"]


class TFConfigClusterResolver:
    """The cluster, task and RPC layer that ``TF_CONFIG`` names (follows
    `tf.distribute.cluster_resolver.TFConfigClusterResolver`).

    Args:
        task_type, task_id, rpc_layer, environment: override ``TF_CONFIG``'s ``task.type``,
            ``task.index``, ``rpc_layer`` and ``environment`` (None: read from it; each is
            None when ``TF_CONFIG`` is unset or lacks it).

    Raises:
        ValueError: ``TF_CONFIG`` is not a JSON object (when a property is read).
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @staticmethod
    def _config() -> dict:
        return read_tf_config()

    @property
    def task_type(self) -> str | None:
        """This task's job name (``TF_CONFIG``'s ``task.type`` unless given)."""
        if self._task_type is not None:
            return self._task_type
        return self._config().get("task", {}).get("type")

    @task_type.setter
    def task_type(self, value) -> None:
        self._task_type = value

    @property
    def task_id(self) -> int | None:
        """This task's index in its job (``TF_CONFIG``'s ``task.index`` unless given)."""
        if self._task_id is not None:
            return self._task_id
        index = self._config().get("task", {}).get("index")
        return None if index is None else int(index)

    @task_id.setter
    def task_id(self, value) -> None:
        self._task_id = value

    @property
    def rpc_layer(self) -> str | None:
        """The RPC protocol (``"grpc"``), prefixed to `master`'s address when set."""
        return self._rpc_layer if self._rpc_layer is not None else self._config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, value) -> None:
        self._rpc_layer = value

    @property
    def environment(self) -> str | None:
        """``TF_CONFIG``'s ``environment`` (``"cloud"``, ``"google"``) unless given."""
        if self._environment is not None:
            return self._environment
        return self._config().get("environment")

    def cluster_spec(self) -> ClusterSpec:
        """A `ClusterSpec` of ``TF_CONFIG``'s ``cluster`` (empty when unset)."""
        return ClusterSpec(self._config().get("cluster", {}))

    def master(self, task_type=None, task_id=None, rpc_layer=None) -> str:
        """The address of a task (this one by default), ``rpc_layer://`` prefixed when there is
        an RPC layer; ``""`` when the cluster or the task is unknown."""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        rpc_layer = self.rpc_layer if rpc_layer is None else rpc_layer
        addresses = self.cluster_spec().as_dict().get(task_type) if task_type else None
        if not addresses or task_id is None or not 0 <= task_id < len(addresses):
            return ""
        address = addresses[task_id]
        return f"{rpc_layer}://{address}" if rpc_layer else address

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None) -> dict:
        """``{device type: count}`` of this machine's accelerators (``{"GPU": n}`` with GPUs,
        else empty), as TensorFlow counts the local devices."""
        from ..config import list_physical_devices

        gpus = len(list_physical_devices("GPU"))
        return {"GPU": gpus} if gpus else {}
