"""What `Trainer` (``trainer.py``) checks and computes around its loops: argument checks of
`fit`/`evaluate`/`predict` (Keras's messages), the per-output losses of `compile`
(`OutputLosses`), and the helpers that batch, flatten and gather outputs."""

from __future__ import annotations

import contextlib
import inspect
import re
import warnings
import weakref

import numpy as np

from .. import nest
from ..core.tensor import Tensor, to_tensor
from . import data_adapter
from .compiled_loss import add_regularization

__all__ = [
    "CompiledMetrics",
    "OutputLosses",
    "aggregate_additional_loss",
    "as_batch",
    "batch_size_of",
    "check_int",
    "check_queue_args",
    "check_validation_freq",
    "check_verbose",
    "compile_metrics",
    "concat_outputs",
    "flat_names",
    "flatten_logs",
    "loss_weight_of",
    "metrics_result_or_logs",
    "output_names",
    "outputs_to_numpy",
    "reject_kwargs",
    "should_validate",
    "step_call_kwargs",
]


def reject_kwargs(method: str, kwargs: dict) -> None:
    for name in kwargs:
        raise TypeError(f"{method}() got an unexpected keyword argument {name!r}.")


def check_queue_args(method: str, x, max_queue_size, workers, use_multiprocessing) -> None:
    """Keras 2's generator-queue arguments. Keras uses them for generator (and
    ``keras.utils.Sequence``) input only and ignores them for arrays, Tensors and Datasets, as
    here. For a Python iterator or generator the batches are read in the calling thread, one at
    a time, which gives the same batches in the same order as Keras's queue with one worker;
    ``workers > 1`` and ``use_multiprocessing=True`` raise NotImplementedError then.

    Raises:
        ValueError: a value of the wrong type or sign.
        NotImplementedError: ``workers > 1`` or ``use_multiprocessing=True`` with an
            iterator or generator ``x``.
    """
    for name, value in (("max_queue_size", max_queue_size), ("workers", workers)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(
                f"{method}: `{name}` must be a non-negative integer. Received: {name}={value!r}"
            )
    if not isinstance(use_multiprocessing, (bool, np.bool_)):
        raise ValueError(
            f"{method}: `use_multiprocessing` must be True or False. Received: "
            f"use_multiprocessing={use_multiprocessing!r}"
        )
    if data_adapter.yields_batches(x) and not data_adapter.is_dataset(x):
        for name, value, default in (
            ("workers", workers, 1),
            ("use_multiprocessing", use_multiprocessing, False),
        ):
            if value != default and not (name == "workers" and value == 0):
                raise NotImplementedError(
                    f"{method}: {name}={value!r} is not supported for generator input (batches "
                    "are read in the calling thread); build the input with ek.data.Dataset "
                    "(map(num_parallel_calls=...), prefetch) to read in parallel."
                )


def check_verbose(verbose) -> int:
    if isinstance(verbose, str) and verbose == "auto":
        return 1
    if isinstance(verbose, (bool, int, np.integer)) and int(verbose) in (0, 1, 2):
        return int(verbose)
    raise ValueError(f"verbose must be 0, 1, 2 or 'auto'. Received: verbose={verbose!r}")


def check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}. Received: {name}={value!r}")
    return int(value)


def check_validation_freq(freq) -> None:
    values = list(freq) if isinstance(freq, (list, tuple)) else [freq]
    if not all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1 for v in values
    ):
        raise ValueError(
            "validation_freq must be a positive integer (validate every N epochs) or a list of "
            f"1-based epoch numbers. Received: validation_freq={freq!r}"
        )


def step_call_kwargs(model, training: bool) -> dict:
    """The keyword arguments `train_step`/`test_step`/`predict_step` call ``model`` with:
    ``{"training": training}`` when ``model.call`` names a ``training`` parameter, else ``{}``.

    Follows Keras 3's trainers (``if self._call_has_training_arg: self(x, training=...)``,
    ``else: self(x)``): a subclassed model whose ``call(self, x)`` takes no ``training`` runs
    its layers at their own defaults during `fit`/`evaluate`/`predict`, so `Dropout` (default
    ``training=False``) is inactive in `fit` and random augmentation layers (``RandomFlip``,
    default ``training=True``) stay active in `evaluate`/`predict`. A ``**kwargs`` parameter
    does not count, as in Keras 3's ``call_signature_parameters``.

    >>> class M:
    ...     def call(self, x): return x
    >>> step_call_kwargs(M(), True)
    {}
    """
    call = model.call
    fn = getattr(call, "__func__", call)
    takes = _CALL_TAKES_TRAINING.get(fn)
    if takes is None:  # once per call function: every step asks
        try:
            takes = "training" in inspect.signature(call).parameters
        except (TypeError, ValueError):  # a builtin or C callable: pass it, as before
            takes = True
        with contextlib.suppress(TypeError):  # not weakly referenceable: asked again
            _CALL_TAKES_TRAINING[fn] = takes
    return {"training": training} if takes else {}


# Per `call` function: does it name a `training` parameter (`step_call_kwargs`)?
_CALL_TAKES_TRAINING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def should_validate(epoch: int, freq) -> bool:
    epoch += 1  # validation_freq counts epochs from 1, as Keras does
    return epoch in freq if isinstance(freq, (list, tuple)) else epoch % freq == 0


def metrics_result_or_logs(model, logs):
    """The logs of a finished epoch or evaluation, as Keras 3's
    ``Trainer._get_metrics_result_or_logs``: when ``logs`` (a dict from the last step) has
    exactly the names of ``model.metrics``, their results (`get_metrics_result`) replace it,
    even if a custom ``train_step`` never updated them (a ``{"loss": loss}`` step of a model
    compiled with a loss then ends with ``loss: 0.0``, as in Keras); else ``logs`` itself."""
    if isinstance(logs, dict):
        metric_logs = model.get_metrics_result()
        if set(logs) == set(metric_logs):
            return metric_logs
    return logs


def loss_weight_of(loss_weights) -> float:
    w = loss_weights
    if isinstance(w, dict) and len(w) == 1:
        w = next(iter(w.values()))
    elif isinstance(w, (list, tuple)) and len(w) == 1:
        w = w[0]
    if isinstance(w, (int, float, np.number)) and not isinstance(w, bool):
        return float(w)
    raise ValueError(
        "loss_weights must be a float, or a list or dict of one float (eagerkernel models have "
        f"one output, so one loss). Received: loss_weights={loss_weights!r}"
    )


def flat_names(model) -> list:
    """The names `flatten_logs` orders by, as Keras 3's ``_flatten_metrics_in_order``: the
    model's `metrics_names`, except that with several outputs the compiled metrics are left
    out (Keras names them without their output prefix, so they match no log key and come
    last, sorted): ``[loss, reg_loss, cls_loss, reg_mae, reg_mse]``."""
    names = model.metrics_names
    losses = getattr(model, "compiled_loss", None)
    if isinstance(losses, OutputLosses) and len(losses.names) > 1:
        compiled = {m.name for m in getattr(model, "compiled_metrics", None) or ()}
        names = [n for n in names if n not in compiled]
    return names


def flatten_logs(logs: dict, names=()):
    """The values of ``logs`` as `evaluate` returns them without ``return_dict``: those named
    in ``names`` (the model's `metrics_names`) in that order, then the others by sorted key, as
    Keras 3's ``_flatten_metrics_in_order``; one value is returned alone, not in a list."""
    keys = [k for k in names if k in logs] + sorted(k for k in logs if k not in names)
    values = [logs[k] for k in keys]
    return values[0] if len(values) == 1 else values


def aggregate_additional_loss(loss) -> Tensor:
    """A loss from ``add_loss`` or a regularizer as the scalar `compute_loss` adds: the sum of
    its elements, cast to `floatx` if not floating (follows Keras 3's
    ``Trainer._aggregate_additional_loss``; a per-example ``[batch, 1]`` loss is summed, not
    averaged).

    >>> float(aggregate_additional_loss(ek.constant([[1.0], [2.0]])))
    3.0
    """
    from ..ops.elementwise import cast
    from ..ops.reduction import reduce_sum
    from .backend import floatx

    loss = to_tensor(loss)
    if not loss.dtype.is_floating:
        loss = cast(loss, floatx())
    return loss if loss.shape.rank == 0 else reduce_sum(loss)


def as_batch(*parts):
    return nest.map_structure(
        lambda a: None if a is None else (a if isinstance(a, Tensor) else to_tensor(np.asarray(a))),
        parts,
    )


def outputs_to_numpy(outputs):
    return nest.map_structure(
        lambda t: np.asarray(t.numpy() if isinstance(t, Tensor) else t), outputs
    )


def concat_outputs(outputs: list):
    return nest.map_structure(lambda *parts: np.concatenate(parts), *outputs)


def match_rank(y_true, y_pred):
    """Keras 2's ``match_dtype_and_rank`` (``compile_utils``) for the compiled loss: targets
    of rank 1 with predictions of rank 2 get a last axis of 1, so ``(N,)`` targets broadcast
    against ``(N, K)`` predictions. Anything else is returned unchanged.

    >>> match_rank(np.zeros(4), np.zeros((4, 10))).shape
    TensorShape([4, 1])
    """
    from ..ops.array_ops import expand_dims

    if isinstance(y_true, (dict, list, tuple)) or np.ndim(y_pred) != 2:
        return y_true
    return expand_dims(to_tensor(y_true), -1) if np.ndim(y_true) == 1 else y_true


def output_names(model) -> list:
    """The names of the model's outputs in flat order (the keys of a dict of outputs, else the
    layers that produce them); positions for a model without a recorded graph."""
    struct = getattr(model, "_output_struct", None)
    if isinstance(struct, dict):
        return sorted(struct)
    names = getattr(model, "output_names", None)
    return list(names) if names is not None else None


class OutputLosses:
    """A loss per model output (Keras's ``compile(loss=[...])`` or ``loss={name: ...}``, or one
    loss for every output of a model with several), each times its ``loss_weights`` entry
    (default 1), summed; follows Keras 3's ``CompileLoss``.

    With more than one loss it also keeps a ``Mean`` per loss, named ``<output name>_loss``
    (`metrics`), which each call updates with that output's loss before its weight (with
    ``sample_weight`` applied), weighted by the batch size: `fit` and `evaluate` log each
    output's mean loss over the examples, as Keras 3 does (its TensorFlow backend run eagerly;
    in a ``tf.function`` it counts each batch once instead). Their order is the loss dict's for
    a model with a dict of outputs, else the outputs'.

    Args:
        model: the model compiled (its output names map dict keys to outputs).
        loss: a list of losses in output order, a dict ``{output name: loss}`` (outputs
            missing from the dict get no loss), or one loss for every output.
        loss_weights: None, a list in output order, or a dict by output name (a float too
            when one loss is given for every output).

    Raises:
        ValueError: a list whose length differs from the number of outputs; a dict key that
            names no output.
    """

    def __init__(self, model, loss, loss_weights):
        from . import losses
        from .metrics import Mean

        names = output_names(model)
        n = len(names) if names is not None else None
        shared = not isinstance(loss, (dict, list, tuple))  # one loss for every output
        if shared:
            loss = [loss] * n

        def per_output(value, what: str, default):
            if isinstance(value, dict):
                if names is None:
                    raise ValueError(
                        f"compile: `{what}` as a dict needs a functional model (with named "
                        f"outputs). Received: {what}={value!r}"
                    )
                unknown = sorted(set(value) - set(names))
                if unknown:
                    raise ValueError(
                        f"compile: `{what}` has keys {unknown} that are not output names; the "
                        f"outputs are {names}. Received: {what}={value!r}"
                    )
                return [value.get(k, default) for k in names]
            value = list(value)
            if n is not None and len(value) != n:
                raise ValueError(
                    f"compile: `{what}` has {len(value)} entries but the model has {n} "
                    f"outputs {names}. Received: {what}={value!r}"
                )
            return value

        self.losses = [
            None if x is None else losses.to_loss(x) for x in per_output(loss, "loss", None)
        ]
        # A model without a recorded graph names its outputs output_1, output_2, ...
        self.names = names or [f"output_{i + 1}" for i in range(len(self.losses))]
        if loss_weights is None:
            self.weights = [1.0] * len(self.losses)
        elif isinstance(loss_weights, (dict, list, tuple)):
            self.weights = [float(w) for w in per_output(loss_weights, "loss_weights", 1.0)]
        elif shared and isinstance(loss_weights, (int, float, np.number)):
            self.weights = [float(loss_weights)] * len(self.losses)
        else:
            raise ValueError(
                "compile: with a loss per output, `loss_weights` must be a list or dict. "
                f"Received: loss_weights={loss_weights!r}"
            )
        order = list(range(len(self.losses)))
        if isinstance(loss, dict) and isinstance(getattr(model, "_output_struct", None), dict):
            order = [self.names.index(k) for k in loss]  # Keras 3: the loss dict's order
        used = [i for i in order if self.losses[i] is not None]
        # Keras 3 logs the losses one by one only when there are several
        self.trackers = [(i, Mean(name=f"{self.names[i]}_loss")) for i in used if len(used) > 1]

    @property
    def metrics(self) -> list:
        """The ``Mean`` of each output's loss (``<output name>_loss``), in log order; empty
        when fewer than two outputs have a loss (as Keras 3's ``CompileLoss.metrics``)."""
        return [m for _, m in self.trackers]

    def metric_items(self, group, arg: str) -> list:
        """``[(output index, metric)]`` for ``compile``'s ``metrics`` of a model with several
        outputs, as Keras reads them: a dict by output name, a list of lists (one per output),
        or a flat list applied to every output."""
        n = len(self.losses)
        if isinstance(group, dict):
            if self.names is None or set(group) - set(self.names):
                raise ValueError(
                    f"compile: `{arg}` has keys {sorted(set(group) - set(self.names or ()))} "
                    f"that are not output names; the outputs are {self.names}."
                )
            per = [group.get(name, []) for name in self.names]
        elif group and all(isinstance(g, (list, tuple)) for g in group):
            if len(group) != n:
                raise ValueError(
                    f"compile: `{arg}` has {len(group)} lists but the model has {n} outputs."
                )
            per = list(group)
        else:
            per = [list(group)] * n
        return [
            (i, m)
            for i, ms in enumerate(per)
            for m in (ms if isinstance(ms, (list, tuple)) else [ms])
        ]

    def targets(self, y_true) -> list:
        """The targets of each output, in output order (from a dict by name or a list). An
        output without a loss needs no target (Keras 3): given as many targets as outputs
        with a loss, they are theirs, in order (None for the others)."""
        if isinstance(y_true, dict):
            names = self.names or ()
            wanted = [k for k, loss in zip(names, self.losses) if loss is not None]
            missing = [k for k in wanted if k not in y_true]
            if missing or self.names is None:
                raise ValueError(
                    f"The targets have keys {sorted(y_true)}, but the model's outputs are "
                    f"{self.names}: no target for {missing}."
                )
            return [y_true.get(k) for k in names]
        flat = list(y_true) if isinstance(y_true, (list, tuple)) else [y_true]
        with_loss = [i for i, loss in enumerate(self.losses) if loss is not None]
        if len(flat) != len(self.losses) and len(flat) == len(with_loss):
            spread: list = [None] * len(self.losses)
            for i, target in zip(with_loss, flat):
                spread[i] = target
            return spread
        return flat

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        targets = self.targets(y_true)
        preds = nest.flatten(y_pred)
        if len(targets) != len(preds):
            raise ValueError(
                f"The model has {len(preds)} outputs but {len(targets)} targets were given."
            )
        values: dict = {}
        for i, (loss, yt, yp) in enumerate(zip(self.losses, targets, preds)):
            if loss is not None:
                values[i] = loss(match_rank(yt, yp), yp, sample_weight=sample_weight)
        for i, tracker in self.trackers:  # the loss before its weight, as Keras 3 records it
            value = values[i]
            tracker.update_state(
                value.numpy() if isinstance(value, Tensor) else value,
                sample_weight=batch_size_of(preds[i]),
            )
        total = None
        for i, value in values.items():
            if self.weights[i] != 1.0:
                value = value * self.weights[i]
            total = value if total is None else total + value
        return add_regularization(total, regularization_losses)  # as tf.keras 2's container


def batch_size_of(x) -> int:
    """The examples in a batch ``x``: the first dimension of its first array (1 for a
    scalar). The logged losses weight each batch by it, as Keras's loss trackers."""
    for leaf in nest.flatten(x):
        shape = getattr(leaf, "shape", None)
        if shape is not None and len(shape):
            return int(shape[0])
    return 1


def compile_metrics(loss, output_losses, metrics, weighted_metrics) -> list:
    """``[(metric, weighted, output index)]`` for `compile`'s ``metrics`` and
    ``weighted_metrics`` (index None: the metric sees the whole output). Names are as Keras
    logs them: ``"accuracy"`` resolved for the loss, ``weighted_<name>`` for a weighted metric
    also in ``metrics``, ``<output name>_<name>`` with several outputs (`OutputLosses`); as
    Keras 3's ``CompileMetrics``.

    Raises:
        ValueError: not a list (or dict, with several outputs); two metrics with the same name,
            or one named as a logged loss; an unknown metric.
    """
    from . import metrics as metrics_module
    from .metrics_auto_accuracy import ShapeResolvedAccuracy

    multi = output_losses is not None
    reserved = {"loss", *(m.name for m in (output_losses.metrics if multi else ()))}
    entries: list = []
    for arg, group in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
        if group is None:
            continue
        if multi and not isinstance(group, (list, tuple, dict)):
            raise ValueError(f"{arg} must be a list or dict. Received: {arg}={group!r}")
        if not multi and not isinstance(group, (list, tuple, dict)):
            raise ValueError(f"{arg} must be a list or dict. Received: {arg}={group!r}")
        # one output: every metric of the structure applies to it, whatever its dict keys
        # (Keras 3's CompileMetrics flattens it)
        items = (
            output_losses.metric_items(group, arg)
            if multi
            else [(None, m) for m in nest.flatten(group)]
        )
        for index, m in items:
            taken = {metric.name for metric, _, _ in entries}
            # Keras names a metric by its output only when there are several outputs
            several = multi and len(output_losses.names) > 1
            prefix = f"{output_losses.names[index]}_" if several else ""
            out_loss = loss if index is None else output_losses.losses[index]
            if isinstance(m, str):
                name = f"weighted_{m}" if arg == "weighted_metrics" and m in taken else m
                if m in ("accuracy", "acc"):
                    metric = metrics_module.resolve_accuracy(out_loss, name=prefix + name)
                    if type(metric) is metrics_module.Accuracy:
                        # no accuracy named by the loss: Keras 3 picks it by the batch's shapes
                        metric = ShapeResolvedAccuracy(name=prefix + name)
                else:
                    metric = metrics_module.get(m)
                    metric.name = prefix + name
            else:
                metric = metrics_module.get(m)
                if callable(m) and not isinstance(m, (type, metrics_module.Metric)):
                    metric.name = _object_name(m)
                if arg == "weighted_metrics" and prefix + metric.name in taken:
                    metric.name = f"weighted_{metric.name}"
                metric.name = prefix + metric.name
            if metric.name in taken or metric.name in reserved:
                raise ValueError(
                    f"compile: two metrics are named {metric.name!r}; metric names must be "
                    f"unique (and not {sorted(reserved)}). Received: {arg}={group!r}"
                )
            entries.append((metric, arg == "weighted_metrics", index))
    return entries


def _object_name(fn) -> str:
    # Keras 3's get_object_name: a callable's ``name`` (a Loss instance), else its function
    # name in snake case (``PSNR`` -> ``psnr``, ``<lambda>`` -> ``lambda``).
    name = getattr(fn, "name", None)
    if isinstance(name, str):
        return name
    name = re.sub(r"\W+", "", getattr(fn, "__name__", type(fn).__name__))
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


class CompiledMetrics(list):
    """`Model.compiled_metrics`: the compiled metric objects, in order (a list), which also
    answers tf.keras 2's and Keras 3's container calls that custom ``train_step`` code makes:
    ``update_state(y, y_pred, sample_weight=None)`` (each metric on its output, only
    ``weighted_metrics`` weighted, as `fit` does), ``result()`` (a dict by name) and
    ``reset_state()``."""

    def __init__(self, metrics, model):
        super().__init__(metrics)
        self._model = weakref.ref(model)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Updates every metric of ``model.metrics`` with a batch, as Keras 3's deprecated
        shim does (with a ``UserWarning``): the compiled metrics as `fit` does (see
        `Trainer.update_compiled_metrics`), the other `Mean` trackers (the loss tracker) with
        ``y_pred`` alone -- so ``"loss"`` logs the mean prediction -- and any other tracker
        with ``(y_true, y_pred)``."""
        from .metrics import Mean

        warnings.warn(
            "`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\n"
            "for metric in self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
            stacklevel=2,
        )
        model = self._model()
        compiled = {id(m) for m in self}
        for metric in model.metrics:
            if id(metric) in compiled:
                continue
            if isinstance(metric, Mean):
                metric.update_state(y_pred, sample_weight=sample_weight)
            else:
                metric.update_state(y_true, y_pred, sample_weight=sample_weight)
        model.update_compiled_metrics(y_true, y_pred, sample_weight)

    def result(self) -> dict:
        """``{name: scalar Tensor}`` of every metric."""
        return {m.name: m.result() for m in self}

    def reset_state(self) -> None:
        """Resets every metric."""
        for m in self:
            m.reset_state()
