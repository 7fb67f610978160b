"""Keras `fit` under a strategy (TensorFlow's behaviour for ``model.fit`` in
``strategy.scope()``): data-parallel steps on the global batch, logs and callbacks on the chief.

`DistributedFit.train_step` replaces `Model.train_step` for a model whose variables a strategy
mirrors. Each batch the data adapter gives is a *global* batch (``batch_size`` is global, as in
TensorFlow). Every worker reads the same global batches (a multi-worker `fit` first gives all
workers the chief's random generator state, so that shuffling agrees) and keeps its slice;
the slice is split across the local replicas (`input_lib.split_batch`).

Each replica runs the forward pass and the loss on its part under its device; the loss of a
replica with ``n_r`` of the ``B`` examples is scaled by ``n_r / B``, so the gradients summed
over replicas (and workers) are the gradients of the loss on the whole global batch, the
regularization losses counted once: the same update as one device on the global batch, up to
the rounding of the reduction order. (TensorFlow divides by the number of replicas, the same
when the parts are equal.) Moving statistics (BatchNormalization) are averaged over replicas,
as TensorFlow's ``VariableAggregation.MEAN`` does. The logged loss is that of the global batch,
and the compiled metrics see the predictions of the global batch (gathered from all replicas),
so every worker logs what one device would.

A model that overrides `train_step` gets `Strategy.run(model.train_step, args=(its part,))`
instead; its logs are those of replica 0 (TensorFlow's ``"first"`` reduction).
"""

from __future__ import annotations

import contextlib
import json

import numpy as np

from .. import nest
from ..core.context import pop_gradient_listener, push_gradient_listener
from ..core.device import CPU
from ..core.device import device as device_scope
from ..core.dispatch import copy_to_device
from ..core.tensor import make, to_tensor
from . import context as dctx
from .input_lib import split_batch
from .values import MirroredVariable, PerReplica, ReduceOp, select_replica

__all__ = ["DistributedFit", "for_model"]


def compile_strategy():
    """The strategy `Model.compile` records: the non-default strategy in scope, or None."""
    return dctx.get_strategy() if dctx.has_strategy() else None


def model_strategy(model):
    """The strategy that mirrors ``model``'s variables, else the one in scope when it was
    compiled, else the non-default strategy in scope, else None."""
    for v in model.variables:
        if isinstance(v, MirroredVariable):
            return v._strategy
    strategy = getattr(model, "_distribute_strategy", None)
    if strategy is not None:
        return strategy
    if dctx.has_strategy():
        return dctx.get_strategy()
    return None


def for_model(model):
    """A `DistributedFit` for ``model``, or None when no strategy distributes it."""
    strategy = model_strategy(model)
    if strategy is None:
        return None
    return DistributedFit(model, strategy)


class DistributedFit:
    """What `fit`, `evaluate` and `predict` do differently under a strategy (module docstring)."""

    def __init__(self, model, strategy):
        self.model = model
        self.strategy = strategy
        self.extended = strategy.extended
        comm = self.extended.communicator
        self.communicator = comm if comm is not None and comm.size > 1 else None

    @property
    def is_chief(self) -> bool:
        return self.extended.worker_index == 0

    def primary_scope(self):
        """The device scope of replica 0 (evaluate and predict run there, on whole batches)."""
        return device_scope(self.extended.devices[0])

    # -- agreement between workers ------------------------------------------------------------
    def sync_random_state(self) -> None:
        """Gives every worker the chief's global random generator state (shuffling agrees)."""
        if self.communicator is None:
            return
        from .. import random as ek_random

        gen = ek_random.generator()
        text = json.dumps(gen.bit_generator.state).encode()
        buf = np.zeros(4096, np.uint8)
        if len(text) > buf.size - 8:
            raise RuntimeError("fit: the random generator's state is too large to broadcast.")
        buf[:8] = np.frombuffer(np.int64(len(text)).tobytes(), np.uint8)
        buf[8 : 8 + len(text)] = np.frombuffer(text, np.uint8)
        self.communicator.broadcast_(buf, root=0)
        n = int(np.frombuffer(buf[:8].tobytes(), np.int64)[0])
        gen.bit_generator.state = json.loads(buf[8 : 8 + n].tobytes().decode())

    def agree_stop(self, stop: bool) -> bool:
        """The chief's ``stop_training`` (callbacks run on the chief only)."""
        if self.communicator is None:
            return bool(stop)
        flag = np.array([1 if stop else 0], np.int64)
        self.communicator.broadcast_(flag, root=0)
        return bool(flag[0])

    # -- the step -------------------------------------------------------------------------------
    def train_step(self, data) -> dict:
        from ..keras import data_adapter
        from ..keras.trainer import Trainer

        model = self.model
        if type(model).train_step is not Trainer.train_step:
            parts = split_batch(self.strategy, data)
            logs = self.strategy.run(model.train_step, args=(parts,))
            return {k: _first(v) for k, v in logs.items()}
        x, y, sample_weight = data_adapter.unpack(data)
        with self.strategy.scope():  # variables a lazy build creates are mirrored
            return self._default_step(x, y, sample_weight)

    def _default_step(self, x, y, sample_weight) -> dict:
        from ..core.tape import GradientTape
        from ..interrupts import deferred_interrupt
        from ..keras.layers.deferred import deferred_updates
        from ..keras.optimizers.accumulation import scaled_loss as _scale_loss
        from ..keras.trainer_utils import step_call_kwargs

        model, ext = self.model, self.extended
        n = ext.num_local_replicas
        total = int(np.shape(nest.flatten(x)[0])[0])
        parts = split_batch(self.strategy, (x, y, sample_weight))
        grads, preds, losses, pending = [], [], [], []
        ext.new_step()
        listening = push_gradient_listener(ext.gradient_listener())
        try:
            for r in range(n):
                xr, yr, swr = select_replica(r, parts) if n > 1 else parts
                rows = int(np.shape(nest.flatten(xr)[0])[0])
                ext.activate(r)
                with device_scope(ext.devices[r]):
                    with deferred_updates() as updates, GradientTape() as tape:
                        y_pred = model(xr, **step_call_kwargs(model, True))
                        loss = model.compute_loss(xr, yr, y_pred, swr)
                        scaled = loss * np.float32(rows / total)
                        target = _scale_loss(model.optimizer, scaled)  # loss_scale_factor
                    variables = model.trainable_variables  # after the lazy build
                    g = tape.gradient(target, variables)
                grads.append(g)
                preds.append(y_pred)
                losses.append(to_tensor(scaled, None, "fit")._value)
                pending.append(list(updates.pending))
        finally:
            pop_gradient_listener(listening)
            ext.activate(None)
        present = [i for i, g in enumerate(grads[0]) if g is not None]
        for r in range(1, n):
            if [i for i, g in enumerate(grads[r]) if g is not None] != present:
                raise ValueError("fit: a gradient is None on some replicas only.")
        if not present:
            raise ValueError(
                f"No gradients provided for any variable: {[v.name for v in variables]}."
            )
        per_replica = [[to_tensor(grads[r][i], None, "fit") for i in present] for r in range(n)]
        reduced = ext._overlap.take(per_replica, ext.collective_stats)
        if reduced is None:  # not the gradients the backward passes handed over
            reduced = ext.all_reduce_lists(ReduceOp.SUM, per_replica, ext.collective_stats)
        ext.collective_stats["steps"] += 1
        pairs = []
        for r in range(n):
            row = [(None, v) for v in variables]
            for k, i in enumerate(present):
                row[i] = (reduced[r][k], variables[i])
            pairs.append(row)
        with deferred_interrupt():  # weights and moving statistics change together
            ext.update_replicas(model.optimizer, pairs)
            self._commit_updates(pending)
        global_loss = self._sum_over_workers(sum(float(np.sum(_host(a))) for a in losses))
        with self.primary_scope():
            model._loss_tracker.update_state(np.float32(global_loss), sample_weight=total)
            if not model.compiled_metrics:
                return model.get_metrics_result()
            y_pred = self._gather_predictions(preds)
            y_here = nest.map_structure(lambda t: _to_device(t, ext.devices[0]), y)
            sw_here = nest.map_structure(lambda t: _to_device(t, ext.devices[0]), sample_weight)
            return model.compute_metrics(x, y_here, y_pred, sw_here)

    def _commit_updates(self, pending: list) -> None:
        """Assigns each deferred update (moving statistics) the mean of the replicas' values."""
        if not pending[0]:
            return
        variables = [v for v, _ in pending[0]]
        values = [[to_tensor(val, v._value.dtype, "fit") for v, val in p] for p in pending]
        means = self.extended.all_reduce_lists(ReduceOp.MEAN, values)[0]
        for v, m in zip(variables, means):
            v.assign(m)

    def _sum_over_workers(self, value: float) -> float:
        if self.communicator is None:
            return value
        buf = np.array([value], np.float64)
        self.communicator.all_reduce_sum_(buf)
        return float(buf[0])

    def _gather_predictions(self, preds: list):
        """The predictions of the whole global batch (replica order, all workers), on replica
        0's device."""
        dev = self.extended.devices[0]

        def gather(*parts):
            host = np.concatenate([_host(to_tensor(p, None, "fit")._value) for p in parts])
            if self.communicator is not None:
                host = self.communicator.allgather(host)
            return copy_to_device(make(host, CPU), dev)

        return nest.map_structure(gather, *preds)


def _host(array):
    from .collectives import to_host

    return to_host(array)


def _to_device(t, dev):
    if t is None:
        return None
    t = to_tensor(t, None, "fit")
    return t if t._device is dev else copy_to_device(t, dev)


def _first(value):
    return value.values[0] if isinstance(value, PerReplica) else value


@contextlib.contextmanager
def nothing():
    yield
