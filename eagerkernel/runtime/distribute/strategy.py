"""The machinery of strategies (follows `tf.distribute.Strategy`): `Strategy`,
`StrategyExtended` and `ReplicaContext`. The concrete ones are in ``strategies.py`` (the
default strategy, `OneDeviceStrategy`, `MirroredStrategy`, `CentralStorageStrategy`) and
``multi_worker.py`` (`MultiWorkerMirroredStrategy`).

How a mirrored strategy runs. `scope()` installs a variable creator: a Variable created in
it becomes a `MirroredVariable` with a component on each local replica device (and, across
workers, the chief's initial value broadcast to all). `run(fn, args)` calls ``fn`` once per
local replica, each in its own thread under its device scope, one thread at a time in replica
order (as TensorFlow's mirrored run does), so random ops and variable creation happen in a
fixed order. Before a replica's thread runs, the strategy switches every mirrored variable to
that replica's component. A replica that calls `ReplicaContext.merge_call` (the optimizer's
`apply_gradients`, `all_reduce`) pauses; when all have paused, the merge function runs once in
cross-replica context with every replica's value, and each replica resumes with its part of
the result.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

import numpy as np

from .. import nest
from ..core.context import pop_gradient_listener, push_gradient_listener
from ..core.device import CPU, current_device
from ..core.device import device as device_scope
from ..core.dispatch import copy_to_device, stateful
from ..core.tensor import Tensor, make, to_tensor
from ..core.variable import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
    variable_creator_scope,
)
from . import context as dctx
from .collectives import BUCKET_BYTES, all_reduce_sum, local_reducer, on_array_device, to_host
from .host_reduce import all_gather, reduce_host_arrays
from .overlap import GradientOverlap
from .values import (
    DistributedValues,
    DistributedVariable,
    MirroredVariable,
    PerReplica,
    ReduceOp,
    SyncOnReadVariable,
    regroup,
    select_replica,
    sync_on_read_across_workers,
)

__all__ = [
    "ReplicaContext",
    "Strategy",
    "StrategyExtended",
]


# Every variable a strategy's scope created, by id (`variable_created_in_scope`).
OWNED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class _Aborted(BaseException):
    """Ends a paused replica thread when another replica failed."""


class ReplicaContext:
    """The context of one replica while `Strategy.run` calls its function (follows
    `tf.distribute.ReplicaContext`).

    Attributes:
        strategy: the strategy.
        replica_id_in_sync_group: this replica's index among all replicas (of all workers).
        num_replicas_in_sync: the number of replicas (of all workers).
    """

    def __init__(self, strategy, local_id: int, thread=None):
        self.strategy = strategy
        self._local_id = local_id
        self._thread = thread

    @property
    def replica_id_in_sync_group(self) -> int:
        ext = self.strategy.extended
        return ext.worker_index * ext.num_local_replicas + self._local_id

    @property
    def num_replicas_in_sync(self) -> int:
        return self.strategy.num_replicas_in_sync

    @property
    def devices(self) -> tuple:
        """This replica's device, by TensorFlow's full name (a tuple of one)."""
        return (self.strategy.extended.devices[self._local_id].full_name,)

    def _merge(self, fn, value):
        """Runs ``fn(values_of_all_local_replicas) -> list`` once in cross-replica context;
        returns this replica's item of its result."""
        if self._thread is None:
            previous = dctx.current_replica()
            dctx.set_replica(None)
            try:
                return fn([value])[0]
            finally:
                dctx.set_replica(previous)
                ext = self.strategy.extended
                if ext.replicated:  # the merge left the cross-replica view: back to the replica
                    ext.activate(self._local_id)
        return self._thread.pause_for_merge(fn, value)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Calls ``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context, with
        the replicas' arguments grouped (an argument that differs between replicas becomes a
        `PerReplica`); returns this replica's part of the result (follows
        `ReplicaContext.merge_call`). Every replica must call it."""
        kwargs = kwargs or {}

        def grouped(per_replica):
            a = regroup([p[0] for p in per_replica])
            k = regroup([p[1] for p in per_replica])
            with self.strategy.scope():
                out = merge_fn(self.strategy, *a, **k)
            return [select_replica(r, out) for r in range(len(per_replica))]

        return self._merge(grouped, (tuple(args), dict(kwargs)))

    def all_reduce(self, reduce_op, value, options=None):
        """Sums (``"SUM"``) or averages (``"MEAN"``) ``value`` (a Tensor or nested structure
        of them) over all replicas; every replica gets the result on its device (follows
        `ReplicaContext.all_reduce`). The result is a new value: gradients do not flow
        through it.

        Raises:
            ValueError: an unknown ``reduce_op``. NotImplementedError: ``options`` given.
        """
        op = ReduceOp.parse(reduce_op, "ReplicaContext.all_reduce")
        if options is not None:
            raise NotImplementedError("ReplicaContext.all_reduce: options is not supported.")
        flat = [to_tensor(x, None, "ReplicaContext.all_reduce") for x in nest.flatten(value)]
        ext = self.strategy.extended
        reduced = self._merge(lambda per: ext.all_reduce_lists(op, per), flat)
        return nest.pack_sequence_as(value, reduced)

    def all_gather(self, value, axis: int, options=None):
        """``value`` (a Tensor or nested structure) concatenated along ``axis`` over all
        replicas, in replica order, on every replica (follows `ReplicaContext.all_gather`)."""
        if options is not None:
            raise NotImplementedError("ReplicaContext.all_gather: options is not supported.")
        return all_gather(self, value, int(axis))

    def __repr__(self) -> str:
        return (
            f"<ReplicaContext replica {self.replica_id_in_sync_group} of "
            f"{self.num_replicas_in_sync} ({type(self.strategy).__name__})>"
        )


_NOT_LISTENING = object()


class _ReplicaThread(threading.Thread):
    def __init__(self, strategy, local_id, fn, args, kwargs):
        super().__init__(daemon=True, name=f"ek.distribute replica {local_id}")
        self.strategy, self.local_id = strategy, local_id
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.should_run = threading.Event()
        self.has_paused = threading.Event()
        self.done = self.aborted = False
        self.result = self.error = None
        self.merge = self.merge_result = None

    def run(self) -> None:
        self.should_run.wait()
        self.should_run.clear()
        listening = _NOT_LISTENING
        try:
            if self.aborted:
                return
            ext = self.strategy.extended
            dctx.set_replica(ReplicaContext(self.strategy, self.local_id, self))
            listening = push_gradient_listener(ext.gradient_listener())
            with self.strategy.scope(), device_scope(ext.devices[self.local_id]):
                self.result = self.fn(*self.args, **self.kwargs)
        except _Aborted:
            pass
        except BaseException as exc:
            self.error = exc
        finally:
            if listening is not _NOT_LISTENING:
                pop_gradient_listener(listening)
            dctx.set_replica(None)
            self.done = True
            self.has_paused.set()

    def pause_for_merge(self, fn, value):
        self.merge = (fn, value)
        self.has_paused.set()
        self.should_run.wait()
        self.should_run.clear()
        if self.aborted:
            raise _Aborted()
        out, self.merge, self.merge_result = self.merge_result, None, None
        return out


class StrategyExtended:
    """What a strategy does underneath (TensorFlow's ``strategy.extended``): its devices,
    variable creation, reductions and updates.

    Attributes:
        devices: the local replica devices (`Device` objects), replica order.
        worker_devices: their names in TensorFlow's full form, as ``strategy.extended.
            worker_devices`` gives them: ``"/job:localhost/replica:0/task:0/device:GPU:0"``
            (``"/job:worker/replica:0/task:N/..."`` on worker N of a multi-worker cluster).
        num_local_replicas, num_workers, worker_index: replicas in this process, processes,
            and this process's index.
        should_checkpoint, should_save_summary: True on the chief (the only worker that
            writes files).
        replicated: True when updates must be all-reduced (more than one replica in sync).
        collective_stats: the gradient all-reduces so far: ``bytes``; ``collective_seconds``,
            the time the collectives took; ``seconds``, the time steps waited for them (with
            the overlap, from the end of the backward pass until the last bucket was summed:
            the part not hidden behind the backward pass); ``overlapped_bytes``,
            the bytes whose all-reduce started before the backward pass ended; ``steps``.
        overlap_gradients: True (default) to all-reduce gradients in buckets while the
            backward pass still runs (`overlap.py`); False to start after it.
        bucket_bytes: the size of a fused gradient buffer (25 MB).
    """

    def __init__(self, strategy, devices, communicator=None, mirror=True):
        self._strategy_ref = weakref.ref(strategy)
        self.devices = tuple(devices)
        self.communicator = communicator
        self.num_workers = 1 if communicator is None else communicator.size
        self.worker_index = 0 if communicator is None else communicator.rank
        self.num_local_replicas = len(self.devices)
        self._mirror = mirror
        self._mirrored: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self._owned: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # id -> var
        self._active = None  # the replica running, or None: cross-replica context
        self._reducer = None
        self.bucket_bytes = BUCKET_BYTES
        self._run = None  # the run in progress: variables created by replica 0, per-replica counts
        self.collective_stats = {
            "bytes": 0,
            "overlapped_bytes": 0,
            "seconds": 0.0,
            "collective_seconds": 0.0,
            "steps": 0,
        }
        self._overlap = GradientOverlap(self)
        # Across workers: the sync-on-read variables while the replicas run (uid -> variable;
        # strong references, so that which ones are summed never depends on the GC).
        self._on_read_in_replicas = None

    @property
    def strategy(self):
        return self._strategy_ref()

    @property
    def num_replicas_in_sync(self) -> int:
        return self.num_local_replicas * self.num_workers

    @property
    def replicated(self) -> bool:
        return self.num_replicas_in_sync > 1

    @property
    def worker_devices(self) -> tuple:
        return tuple(d.full_name for d in self.devices)

    @property
    def parameter_devices(self) -> tuple:
        return self.worker_devices

    @property
    def should_checkpoint(self) -> bool:
        return self.worker_index == 0

    should_save_summary = should_checkpoint

    @property
    def overlap_gradients(self) -> bool:
        return self._overlap.enabled

    @overlap_gradients.setter
    def overlap_gradients(self, value: bool) -> None:
        self._overlap.enabled = bool(value)

    def gradient_listener(self):
        """The `GradientListener` that replica steps install (None without replication)."""
        return self._overlap if self.replicated else None

    def new_step(self) -> None:
        """Starts a step: the previous step's overlapped all-reduces are finished and
        forgotten."""
        if self.replicated:
            self._overlap.new_step()

    @property
    def reducer(self):
        if self._reducer is None:
            self._reducer = local_reducer(self.devices)
        return self._reducer

    def default_replica_context(self) -> ReplicaContext:
        return ReplicaContext(self.strategy, 0)

    # -- mirrored variables ---------------------------------------------------------------------
    def activate(self, r) -> None:
        """Switches every distributed variable of the strategy to replica ``r``'s component,
        or with ``None`` to the cross-replica view (a mirrored variable's first component, a
        sync-on-read variable's sum over all replicas of all workers)."""
        self._active = r
        variables = list(self._mirrored.values())
        comm = self.communicator
        if comm is not None and comm.size > 1:
            on_read = self._on_read_in_replicas
            if r is not None and on_read is None:  # entering the replicas: hold them all
                self._on_read_in_replicas = {
                    v._uid: v for v in variables if type(v) is SyncOnReadVariable
                }
            elif r is None and on_read is not None:
                # Sync-on-read variables a replica wrote read as the sum over all workers.
                # Every worker picks the same ones, in creation order: written ones are alive
                # everywhere (held since the replicas began, or made since), whatever the
                # garbage collector freed.
                self._on_read_in_replicas = None
                for v in variables:
                    if type(v) is SyncOnReadVariable:
                        on_read.setdefault(v._uid, v)
                written = [
                    on_read[uid]
                    for uid in sorted(on_read)
                    if on_read[uid]._active is not None and on_read[uid]._written_in_replicas()
                ]
                if written:
                    sync_on_read_across_workers(written, comm)
        for v in variables:
            v._activate(r)

    def _replica_zero_variable(self):
        """``(run, replica, variable)``: inside `run`, a replica after the first gets the
        variable replica 0 created at the same point (``variable``; None otherwise).

        Raises:
            RuntimeError: the replica creates a variable replica 0 did not.
        """
        replica = dctx.current_replica()
        run = self._run
        if run is None or replica is None or replica._local_id == 0:
            return run, replica, None
        k = run["counts"][replica._local_id]
        run["counts"][replica._local_id] += 1
        if k >= len(run["created"]):
            raise RuntimeError(
                f"{type(self.strategy).__name__}.run: replica {replica._local_id} created "
                "a variable that replica 0 did not; every replica must create the same "
                "variables in the same order."
            )
        return run, replica, run["created"][k]

    def variable_created_in_scope(self, v) -> bool:
        """Whether variable ``v`` was created in this strategy's scope (follows
        `StrategyExtended.variable_created_in_scope`)."""
        return self._owned.get(id(v)) is v

    def owning_creator(self, next_creator, **kwargs):
        """`create_variable`, remembering the variable as this strategy's (and any's)."""
        v = self.create_variable(next_creator, **kwargs)
        with contextlib.suppress(TypeError):  # a creator's object that cannot be weakly held
            self._owned[id(v)] = OWNED[id(v)] = v
        return v

    def create_variable(self, next_creator, **kwargs):
        """The variable creator of `Strategy.scope` (see the module docstring)."""
        run, replica, existing = self._replica_zero_variable()
        if existing is not None:
            return existing
        with device_scope(self.devices[0]):
            primary = next_creator(**kwargs)
        if type(primary) is not Variable or not self._mirror:
            return primary
        if self.communicator is not None and self.communicator.size > 1:
            self._broadcast_value(primary)
        if not self.replicated:
            return primary
        v = self._distributed_class(kwargs)._mirror(primary, self.devices, self.strategy)
        self._mirrored[v._uid] = v
        if not dctx.MIRRORED:
            dctx.MIRRORED.append(True)
        v._activate(self._active)
        if run is not None and replica is not None:
            run["created"].append(v)
        return v

    @staticmethod
    def _distributed_class(kwargs: dict):
        sync = kwargs.get("synchronization")
        if sync is not VariableSynchronization.ON_READ:
            return MirroredVariable
        aggregation = kwargs.get("aggregation")
        if aggregation is not VariableAggregation.SUM:
            raise NotImplementedError(
                "Variable: synchronization=ON_READ is supported with aggregation=SUM only "
                f"under a strategy. Received: aggregation={aggregation!r}"
            )
        return SyncOnReadVariable

    def _broadcast_value(self, variable) -> None:
        host = np.array(to_host(variable._value), copy=True, order="C")
        host = np.atleast_1d(host) if host.ndim == 0 else host
        self.communicator.broadcast_(host, root=0)
        value = host.reshape(np.shape(variable._value))
        variable._value = copy_to_device(make(value, CPU), variable._device)._value
        if not variable._value.shape:
            variable._value = variable._value[()]

    # -- running replicas -----------------------------------------------------------------------
    def call_for_each_replica(self, fn, args=(), kwargs=None):
        kwargs = kwargs or {}
        strategy = self.strategy
        if dctx.current_replica() is not None and dctx.current_replica().strategy is strategy:
            raise RuntimeError(
                f"{type(strategy).__name__}.run: called inside a replica function; call it "
                "in cross-replica context."
            )
        n = self.num_local_replicas
        if n == 1 and self.replicated:  # one replica per worker: see `_run_across_workers`
            return self._run_across_workers(fn, args, kwargs)
        return self._run_here(fn, args, kwargs)

    def _run_here(self, fn, args: tuple, kwargs: dict):
        strategy, n = self.strategy, self.num_local_replicas
        self.new_step()
        if n == 1:
            previous = dctx.current_replica()
            dctx.set_replica(ReplicaContext(strategy, 0))
            listening = push_gradient_listener(self.gradient_listener())
            if self.replicated:  # one replica per worker: sync-on-read variables see it
                self.activate(0)
            try:
                with strategy.scope(), device_scope(self.devices[0]):
                    return fn(*select_replica(0, args), **select_replica(0, kwargs))
            finally:
                pop_gradient_listener(listening)
                dctx.set_replica(previous)
                if self.replicated:
                    self.activate(None)
        return self._run_in_threads(fn, args, kwargs)

    @stateful  # the workers' collectives (gradients, sync-on-read values) run on host arrays
    # a graph function's trace does not see: its replays run the replica step again, each time
    def _run_across_workers(self, fn, args: tuple, kwargs: dict):
        return self._run_here(fn, args, kwargs)

    @stateful  # the replicas' ops run in their threads, which a graph function's trace does
    # not see: its replays run the replicas again, each time
    def _run_in_threads(self, fn, args: tuple, kwargs: dict):
        strategy, n = self.strategy, self.num_local_replicas
        threads = [
            _ReplicaThread(strategy, r, fn, select_replica(r, args), select_replica(r, kwargs))
            for r in range(n)
        ]
        self._run = {"created": [], "counts": [0] * n}
        for t in threads:
            t.start()
        try:
            while True:
                for r, t in enumerate(threads):
                    if t.done:
                        continue
                    self.activate(r)
                    t.should_run.set()
                    t.has_paused.wait()
                    t.has_paused.clear()
                    if t.error is not None:
                        raise t.error
                if all(t.done for t in threads):
                    break
                if any(t.done for t in threads):
                    raise RuntimeError(
                        f"{type(strategy).__name__}.run: some replicas returned while others "
                        "called merge_call or all_reduce; every replica must make the same "
                        "cross-replica calls."
                    )
                self.activate(None)
                merge_fn = threads[0].merge[0]
                results = merge_fn([t.merge[1] for t in threads])
                for t, res in zip(threads, results):
                    t.merge_result = res
        finally:
            for t in threads:
                if not t.done:
                    t.aborted = True
                    t.should_run.set()
            for t in threads:
                t.join()
            self._run = None
            self.activate(None)
        return regroup([t.result for t in threads])

    # -- reductions -----------------------------------------------------------------------------
    def all_reduce_lists(self, op: ReduceOp, per_replica: list, stats=None) -> list:
        """``per_replica``: one list of Tensors per local replica; returns, per replica, the
        Tensors summed (or averaged) over all replicas, on that replica's device."""
        arrays = [[t._value for t in lst] for lst in per_replica]
        if not arrays[0]:
            return [[] for _ in per_replica]
        sums = all_reduce_sum(
            arrays, self.reducer, self.communicator, self.devices, stats, self.bucket_bytes
        )
        out = []
        for r, lst in enumerate(sums):
            dev = self.devices[r]
            row = []
            for a in lst:
                if op is ReduceOp.MEAN:
                    with on_array_device(a):
                        a = a / np.asarray(self.num_replicas_in_sync, dtype=a.dtype)
                t = make(a, device_of(a, dev))
                row.append(t if t._device is dev else copy_to_device(t, dev))
            out.append(row)
        return out

    def apply_reduced(self, optimizer, per_replica_pairs: list):
        """The merge function of `apply_gradients` in a replica context: sums each variable's
        gradients over all replicas and workers (bucketed), then updates every replica."""
        variables = [v for _, v in per_replica_pairs[0]]
        name = f"{type(optimizer).__name__}.apply_gradients"
        for v in variables:
            if not isinstance(v, Variable):
                raise TypeError(f"{name}: expected a Variable, got {type(v).__name__} {v!r:.60}.")
        for pairs in per_replica_pairs[1:]:
            others = [v for _, v in pairs]
            if len(others) != len(variables) or any(a is not b for a, b in zip(others, variables)):
                raise ValueError(f"{name}: the replicas passed different variables.")
        present = [i for i, (g, _) in enumerate(per_replica_pairs[0]) if g is not None]
        for pairs in per_replica_pairs[1:]:
            if [i for i, (g, _) in enumerate(pairs) if g is not None] != present:
                raise ValueError(f"{name}: a gradient is None on some replicas only.")
        grads = []
        for pairs in per_replica_pairs:
            row = []
            for i in present:
                g, v = pairs[i]
                row.append(to_tensor(g, v._value.dtype, name))
            grads.append(row)
        reduced = self._overlap.take(grads, self.collective_stats)
        if reduced is None:  # not the gradients the backward passes handed over
            reduced = self.all_reduce_lists(ReduceOp.SUM, grads, self.collective_stats)
        self.collective_stats["steps"] += 1
        per_replica = []
        for r in range(self.num_local_replicas):
            pairs = [(None, v) for v in variables]
            for k, i in enumerate(present):
                pairs[i] = (reduced[r][k], variables[i])
            per_replica.append(pairs)
        return self.update_replicas(optimizer, per_replica)

    def update_replicas(self, optimizer, per_replica_pairs: list):
        """Applies ``per_replica_pairs[r]`` to replica ``r``'s components with the optimizer's
        update rule; a Variable that is not mirrored is updated once (from replica 0's pairs).
        `iterations` advances by one."""
        counter = optimizer._iterations
        shared_counter = not isinstance(counter, MirroredVariable)
        before = counter._value
        with self.strategy.scope():
            try:
                for r, pairs in enumerate(per_replica_pairs):
                    self.activate(r)
                    if r > 0:
                        pairs = [(g, v) for g, v in pairs if isinstance(v, MirroredVariable)]
                        if not any(g is not None for g, _ in pairs):
                            continue
                        if shared_counter:  # every replica's update uses the same step
                            counter._value = before
                    optimizer._apply(pairs, ())
            finally:
                self.activate(None)
        return optimizer.iterations

    def reduce_to_host(self, op: ReduceOp, value, axis=None) -> Tensor:
        """`Strategy.reduce` of one leaf."""
        where = f"{type(self.strategy).__name__}.reduce"
        if isinstance(value, DistributedValues):
            locals_ = [to_tensor(v, None, where) for v in value.values]
        elif self.num_local_replicas == 1:
            # One local replica: `run` returned its value itself (TensorFlow's regroup); it
            # is this worker's replica value, reduced across the workers.
            locals_ = [to_tensor(value, None, where)]
        elif op is ReduceOp.MEAN and axis is None:
            return to_tensor(value, None, where)  # the same value everywhere (Mirrored)
        elif axis is not None:  # TensorFlow: each replica reduces its copy along the axis
            locals_ = [to_tensor(value, None, where)] * self.num_local_replicas
        else:
            raise ValueError(
                f"{where}: a value that is not per-replica cannot be reduced with {op.value} "
                f"over {self.num_local_replicas} local replicas; pass the result of strategy.run."
            )
        return self._reduce_tensors(op, tuple(locals_), axis)

    @stateful  # host arithmetic and collectives: a graph function's replay runs them again
    def _reduce_tensors(self, op: ReduceOp, locals_: tuple, axis=None) -> Tensor:
        """`reduce_to_host` of this process's replica values ``locals_`` (Tensors)."""
        arrays = [to_host(t._value) for t in locals_]
        where = f"{type(self.strategy).__name__}.reduce"
        total = reduce_host_arrays(op, arrays, axis, self.communicator, where)
        out = make(total if total.ndim else total[()], CPU)
        dev = current_device()
        return out if dev is CPU else copy_to_device(out, dev)


def device_of(array, fallback):
    if isinstance(array, (np.ndarray, np.generic)):
        return fallback if fallback.xp is np else CPU
    return fallback


class Strategy:
    """A way to run computation on several devices (follows `tf.distribute.Strategy`).

    Use `scope` to create variables (models, optimizers, checkpoints) and `run` to call a
    step function on every replica; `reduce` combines per-replica results.
    """

    def __init__(self, extended: StrategyExtended):
        self._extended = extended

    @property
    def extended(self) -> StrategyExtended:
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas that update variables together (all workers)."""
        return self._extended.num_replicas_in_sync

    @property
    def cluster_resolver(self):
        """The cluster resolver (None for single-process strategies)."""
        return None

    @contextlib.contextmanager
    def scope(self):
        """Variables created inside are distributed by this strategy; `get_strategy` returns
        it (follows `Strategy.scope`). Ops inside run on the first replica's device (inputs
        are copied there), so that code such as a model's first call works on its mirrored
        variables.

        Raises:
            RuntimeError: inside another strategy's scope (TensorFlow's "Mixing different
                tf.distribute.Strategy objects").
        """
        current = dctx.strategy_stack()
        if current and current[-1] is not self:
            raise RuntimeError(
                f"Mixing different tf.distribute.Strategy objects: entering the scope of "
                f"{type(self).__name__} inside the scope of {type(current[-1]).__name__}."
            )
        dctx.push_strategy(self)
        try:
            # Cross-replica computation in the scope (a model's build on a probe input, a
            # variable's initializer) runs on the primary device, where mirrored variables
            # read as their first component; inputs from elsewhere are copied there.
            with (
                variable_creator_scope(self._extended.owning_creator),
                device_scope(self._extended.devices[0]),
            ):
                yield self
        finally:
            dctx.pop_strategy(self)

    def run(self, fn, args=(), kwargs=None, options=None):
        """Calls ``fn(*args, **kwargs)`` once per local replica (follows `Strategy.run`).

        `PerReplica` arguments (from a distributed dataset) give each replica its own value;
        other arguments are passed to every replica as they are. Returns the replicas'
        results: `PerReplica` values where they differ, a single value where every replica
        returned the same object.

        Raises:
            NotImplementedError: ``options`` given. RuntimeError: called inside a replica
            function, or replicas that disagree on their cross-replica calls. Whatever ``fn``
            raises (the first replica's error; the other replicas are stopped).
        """
        if options is not None:
            raise NotImplementedError(f"{type(self).__name__}.run: options is not supported.")
        return self._extended.call_for_each_replica(fn, tuple(args), kwargs)

    def reduce(self, reduce_op, value, axis=None) -> Tensor:
        """Combines per-replica values across all replicas (and workers) into one Tensor on
        the current device (follows `Strategy.reduce`).

        Args:
            reduce_op: ``ek.distribute.ReduceOp.SUM``/``MEAN`` or ``"SUM"``/``"MEAN"``.
            value: a `PerReplica` (or nested structure of them), e.g. `run`'s result.
            axis: also reduce along this axis of each replica's value (MEAN then divides by
                the total length along it over all replicas); None reduces across replicas
                only.

        Raises:
            ValueError: an unknown ``reduce_op``; a non-distributed value with SUM and no
                axis over several replicas (with an axis, each replica reduces its copy); an
                ``axis`` outside the values' rank.
        """
        op = ReduceOp.parse(reduce_op, f"{type(self).__name__}.reduce")
        if isinstance(value, DistributedValues):
            return self._extended.reduce_to_host(op, value, axis)
        return nest.map_structure(lambda x: self._extended.reduce_to_host(op, x, axis), value)

    def experimental_local_results(self, value) -> tuple:
        """The values of this process's replicas: a tuple, of one structure per replica for a
        nested ``value`` (follows `Strategy.experimental_local_results`)."""
        if isinstance(value, (DistributedValues, DistributedVariable)):
            return value.values
        if isinstance(value, (list, tuple, dict)) and self._extended.num_local_replicas > 1:
            return tuple(select_replica(r, value) for r in range(self._extended.num_local_replicas))
        return (value,)

    def gather(self, value, axis: int = 0) -> Tensor:
        """Concatenates the replicas' values along ``axis`` (all workers, replica order) into
        one Tensor on the current device (follows `Strategy.gather`)."""
        locals_ = tuple(
            to_tensor(v, None, "gather") for v in self.experimental_local_results(value)
        )
        return self._gather_tensors(locals_, int(axis))

    @stateful  # host copies and collectives: a graph function's replay runs them again
    def _gather_tensors(self, locals_: tuple, axis: int) -> Tensor:
        parts = [to_host(t._value) for t in locals_]
        local = np.concatenate([np.moveaxis(np.atleast_1d(p), axis, 0) for p in parts])
        comm = self._extended.communicator
        if comm is not None and comm.size > 1:
            local = comm.allgather(np.ascontiguousarray(local))
        out = make(np.ascontiguousarray(np.moveaxis(local, 0, axis)), CPU)
        dev = current_device()
        return out if dev is CPU else copy_to_device(out, dev)

    def experimental_distribute_values_from_function(self, value_fn):
        """``value_fn(ValueContext)`` called once per local replica, inside its device scope;
        the results as a `PerReplica` structure (the result itself for one local replica),
        as `run` takes them (follows `Strategy.experimental_distribute_values_from_function`).

        >>> strategy = ek.distribute.MirroredStrategy(["/cpu:0"])
        >>> strategy.experimental_distribute_values_from_function(
        ...     lambda ctx: ek.constant(ctx.replica_id_in_sync_group)).numpy()
        np.int32(0)
        """
        from .input_lib import ValueContext

        ext = self._extended
        values = []
        for r, device in enumerate(ext.devices):
            ctx = ValueContext(
                ext.worker_index * ext.num_local_replicas + r, ext.num_replicas_in_sync
            )
            with device_scope(device):
                values.append(value_fn(ctx))
        if len(values) == 1:
            return values[0]
        return nest.map_structure(lambda *xs: PerReplica(xs), *values)

    def experimental_distribute_dataset(self, dataset, options=None):
        """A dataset of global batches split across the replicas (follows
        `Strategy.experimental_distribute_dataset`); see `DistributedDataset`."""
        from .input_lib import DistributedDataset

        return DistributedDataset(self, dataset, options)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """Calls ``dataset_fn(InputContext)`` once for this worker; each step takes one
        element per local replica (follows `Strategy.distribute_datasets_from_function`)."""
        from .input_lib import DistributedDatasetsFromFunction

        return DistributedDatasetsFromFunction(self, dataset_fn, options)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def __repr__(self) -> str:
        devices = ", ".join(d.describe() for d in self._extended.devices)
        return (
            f"<{type(self).__name__}: {self.num_replicas_in_sync} replica(s) in sync; local "
            f"devices: {devices}>"
        )
