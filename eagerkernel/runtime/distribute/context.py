"""The distribution context of each thread: the strategy in scope, the replica running, and
the two hooks other modules call (they import this module only, never the strategies).

- `get_strategy` / `has_strategy` / `in_cross_replica_context` / `get_replica_context` follow
  `tf.distribute`: a thread is in *cross-replica* context unless it runs a replica function of
  `Strategy.run`, in *replica* context there (and outside every strategy scope it is in the
  default strategy's single replica context).
- `MIRRORED`: non-empty once a strategy has made a mirrored variable in this process; the
  optimizer then calls `apply_gradients` here, which all-reduces gradients across replicas
  (in a replica context) and updates every component of mirrored variables.
- `non_chief_worker`: the multi-worker strategy of this process when it is not the chief;
  checkpoints then write to a temporary directory that is removed (`worker_save`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading

__all__ = [
    "MIRRORED",
    "apply_gradients",
    "current_replica",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
    "non_chief_worker",
]

_state = threading.local()
MIRRORED: list = []  # [True] once a strategy made a mirrored variable (checked by optimizers)
_process = {"multi_worker": None}  # the MultiWorkerMirroredStrategy of this process, if any
_default: dict = {}


def strategy_stack() -> list:
    """This thread's stack of entered strategy scopes, innermost last."""
    stack = getattr(_state, "strategies", None)
    if stack is None:
        stack = _state.strategies = []
    return stack


def push_strategy(strategy) -> None:
    strategy_stack().append(strategy)


def pop_strategy(strategy) -> None:
    stack = strategy_stack()
    if not stack or stack[-1] is not strategy:
        raise RuntimeError(
            "strategy.scope(): scopes must be exited in the reverse order they were entered."
        )
    stack.pop()


def current_replica():
    """This thread's `ReplicaContext` inside `Strategy.run`, else None (cross-replica)."""
    return getattr(_state, "replica", None)


def set_replica(replica) -> None:
    _state.replica = replica


def default_strategy():
    """The default strategy: one replica on the current device, no mirroring."""
    strategy = _default.get("strategy")
    if strategy is None:
        from .strategies import DefaultStrategy

        strategy = _default["strategy"] = DefaultStrategy()
    return strategy


def get_strategy():
    """The strategy in scope in this thread, else the default strategy (follows
    `tf.distribute.get_strategy`).

    >>> ek.distribute.get_strategy().num_replicas_in_sync
    1
    """
    replica = current_replica()
    if replica is not None:
        return replica.strategy
    stack = strategy_stack()
    return stack[-1] if stack else default_strategy()


def has_strategy() -> bool:
    """True inside a (non-default) strategy's scope or replica function (follows
    `tf.distribute.has_strategy`)."""
    return current_replica() is not None or bool(strategy_stack())


def in_cross_replica_context() -> bool:
    """True in a strategy's scope outside `Strategy.run` (follows
    `tf.distribute.in_cross_replica_context`)."""
    return current_replica() is None and bool(strategy_stack())


def get_replica_context():
    """The `ReplicaContext` of the replica running in this thread; None in cross-replica
    context (inside a strategy's scope, outside `run`); outside every scope, the default
    strategy's replica context (follows `tf.distribute.get_replica_context`).

    >>> ctx = ek.distribute.get_replica_context()
    >>> ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync
    (0, 1)
    """
    replica = current_replica()
    if replica is not None:
        return replica
    if strategy_stack():
        return None
    return default_strategy().extended.default_replica_context()


# -- the optimizer's hook -----------------------------------------------------------------------


def apply_gradients(optimizer, grads_and_vars):
    """`Optimizer.apply_gradients` once a strategy mirrors variables (see the module docstring).

    In a replica context of a strategy with more than one replica, the gradients are summed
    across replicas (and workers) first, as TensorFlow's optimizers do (`merge_call`); in
    cross-replica context each gradient is applied to every component of its variable.
    """
    from .values import MirroredVariable

    pairs = list(grads_and_vars)
    if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
        return optimizer._apply(pairs, ())  # raises the optimizer's own TypeError
    replica = current_replica()
    if replica is not None and replica.strategy.extended.replicated:
        ext = replica.strategy.extended

        def merged(per_replica: list) -> list:
            with replica.strategy.scope():
                return [ext.apply_reduced(optimizer, per_replica)] * len(per_replica)

        return replica._merge(merged, pairs)
    strategies = {id(v._strategy): v._strategy for _, v in pairs if isinstance(v, MirroredVariable)}
    if not strategies:
        return optimizer._apply(pairs, ())
    if len(strategies) > 1:
        raise ValueError(
            f"{type(optimizer).__name__}.apply_gradients: the variables belong to "
            f"{len(strategies)} different strategies; create them in one strategy's scope."
        )
    strategy = next(iter(strategies.values()))
    n = strategy.extended.num_local_replicas
    return strategy.extended.update_replicas(optimizer, [pairs] * n)


# -- checkpoints on workers that are not the chief ---------------------------------------------


def set_multi_worker(strategy) -> None:
    _process["multi_worker"] = strategy


def non_chief_worker():
    """The multi-worker strategy of this process if this process is not the chief, else None.
    Inside `worker_save` (already redirected) also None."""
    strategy = _process["multi_worker"]
    if strategy is None or getattr(_state, "redirected", False):
        return None
    return None if strategy.extended.should_checkpoint else strategy


@contextlib.contextmanager
def worker_save(path):
    """Redirects a save on a non-chief worker: yields ``path`` moved into a new temporary
    directory (TensorFlow's multi-worker guide: ``workertemp_<task_id>``), which is removed
    afterwards, so that only the chief writes real files."""
    strategy = _process["multi_worker"]
    task_id = strategy.cluster_resolver.task_id if strategy is not None else 0
    tmp = tempfile.mkdtemp(prefix=f"workertemp_{task_id}_")
    _state.redirected = True
    try:
        yield os.path.join(tmp, os.path.basename(os.fspath(path)) or "ckpt")
    finally:
        _state.redirected = False
        shutil.rmtree(tmp, ignore_errors=True)
