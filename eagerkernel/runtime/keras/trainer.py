"""The training API of `Model` (follows Keras's ``Trainer``): `compile`, `fit`, `evaluate`,
`predict`, the per-batch steps and `train_on_batch`/`test_on_batch`/`predict_on_batch`.

`fit` runs `train_step` on each batch: the forward pass under a `GradientTape`, the loss (plus
the layers' regularization losses), the gradients, and one `apply_gradients`. The step is
all-or-nothing: BatchNormalization's moving statistics are collected during the forward pass
and written only after the optimizer update succeeded, and the optimizer validates every
gradient before it writes any variable, so a step that raises changes no variable.

The loops take their batches from `data_adapter` and call the Keras callback hooks (see
`callbacks.Callback`). Logged values: ``loss`` is the mean of the batches' losses, each batch
weighted by its size (as Keras's loss tracker), as is ``<output name>_loss`` for each output
of a model with several losses; each metric its running result; validation values carry a
``val_`` prefix.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from .. import nest
from ..core.tape import GradientTape
from ..core.tensor import Tensor
from ..distribute.keras_support import compile_strategy
from ..distribute.keras_support import for_model as distributed_fit
from ..interrupts import deferred_interrupt
from ..traceback_utils import filter_traceback
from . import callbacks as callbacks_module
from . import data_adapter, run_limits
from .compiled_loss import CompiledLoss
from .data_adapter import EpochIterator, get_adapter, grouped
from .layers.deferred import deferred_updates
from .optimizers.accumulation import scaled_loss as _scale_loss
from .optimizers.loss_scale_optimizer import LossScaleOptimizer

__all__ = ["Trainer"]


from .trainer_utils import (
    CompiledMetrics,
    OutputLosses,
    aggregate_additional_loss,
    as_batch,
    batch_size_of,
    check_int,
    check_queue_args,
    check_validation_freq,
    check_verbose,
    compile_metrics,
    concat_outputs,
    flat_names,
    flatten_logs,
    loss_weight_of,
    match_rank,
    metrics_result_or_logs,
    output_names,
    outputs_to_numpy,
    reject_kwargs,
    should_validate,
    step_call_kwargs,
)


class NotCompiledError(RuntimeError, ValueError):
    """`fit`/`evaluate`/`train_on_batch` on a model that was not compiled: TF's Keras 2 raises
    RuntimeError there and Keras 3 ValueError, so this is both."""


class Trainer:
    """The training methods of `Model` (a mixin over `Layer`; see the module docstring).

    Override `train_step`, `test_step` or `predict_step` (and `compute_loss`,
    `compute_metrics`, the `metrics` property) to change what `fit`, `evaluate` and `predict`
    do per batch, as in Keras.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.optimizer = None
        self.compiled = False
        self.compiled_loss = None
        self.loss = None  # the `loss` given to `compile`, as Keras 3
        self.compiled_metrics: list = []
        self._weighted_flags: list = []
        self._metric_outputs: list = []
        self._loss_tracker = None
        self._loss_weight = 1.0
        self._steps_per_execution = 1
        self.run_eagerly = True
        self.stop_training = False
        self.stop_evaluating = False
        self.stop_predicting = False
        self.history = None

    # -- compile --------------------------------------------------------------------------------
    def compile(
        self,
        optimizer="rmsprop",
        loss=None,
        metrics=None,
        loss_weights=None,
        weighted_metrics=None,
        run_eagerly=False,
        steps_per_execution=1,
        jit_compile="auto",
        auto_scale_loss=True,
    ) -> None:
        """Sets the optimizer, loss and metrics used by `fit` and `evaluate` (follows
        `tf.keras.Model.compile`; the positional order is TF 2's: optimizer, loss, metrics).

        Args:
            optimizer: an optimizer or its name (``"adam"``, ``"sgd"``, ...); default
                ``"rmsprop"``.
            loss: a loss object, function or name (``"sparse_categorical_crossentropy"``);
                None only for a model whose `train_step` computes its own loss, or to keep
                the loss (and ``loss_weights``) of an earlier `compile`, as Keras 3 does. For
                a model with several outputs: a list (in output order), a dict by output name,
                or one loss for every output, summed with their ``loss_weights`` (see
                `OutputLosses`); when two or more outputs have a loss, each is also logged as
                ``<output name>_loss`` (before its weight), as Keras 3 does. Kept as
                `model.loss` (as given; None before `compile`).
            metrics: a list of metrics or names, computed without sample weights;
                ``"accuracy"`` picks the accuracy that matches the loss, as Keras does. With
                several outputs: a dict by output name, a list of lists, or a flat list for
                every output; each is logged as ``<output name>_<metric name>``. When both
                ``metrics`` and ``weighted_metrics`` are None and the loss is kept (see
                ``loss``), the earlier `compile`'s metrics are kept too, as Keras 3 does
                (which keeps them with a new loss too; here a new loss drops them).
            loss_weights: a float scaling the loss (or a list or dict of one float, as for a
                Keras model with one output); default None (1.0). With a loss per output, a
                list or dict of floats.
            weighted_metrics: a list of metrics computed with the ``sample_weight`` (or
                ``class_weight``) of `fit`/`evaluate`; a name also in ``metrics`` is logged as
                ``weighted_<name>``.
            run_eagerly: accepted for Keras; eagerkernel always runs the steps eagerly.
            steps_per_execution: batches per step call (default 1): the batch callbacks run
                once per group of this many batches, with the first and last batch index.
            jit_compile: ``"auto"`` or False; True warns and runs eagerly (there is no XLA
                here), as Keras does for a model it cannot compile.
            auto_scale_loss: when the model's dtype policy is ``mixed_float16``, wrap the
                optimizer in a `LossScaleOptimizer` (default True, as Keras).

        Raises:
            ValueError: ``metrics``/``weighted_metrics`` not a list, two metrics with the same
                name, a bad ``loss_weights``, ``steps_per_execution``, ``jit_compile``, or an
                unknown optimizer, loss or metric.
            TypeError: ``run_eagerly`` or ``auto_scale_loss`` not a bool.
            NotImplementedError: a `LossScaleOptimizer` under a distribution strategy.
        """
        from . import losses, optimizers
        from . import metrics as metrics_module

        for name, value in (("run_eagerly", run_eagerly), ("auto_scale_loss", auto_scale_loss)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False. Received: {name}={value!r}")
        if data_adapter.check_steps(steps_per_execution, "steps_per_execution") is None:
            raise ValueError("steps_per_execution must be a positive integer. Received: None")
        if not (isinstance(jit_compile, str) and jit_compile == "auto") and not isinstance(
            jit_compile, (bool, np.bool_)
        ):
            raise ValueError(
                f"jit_compile must be True, False or 'auto'. Received: jit_compile={jit_compile!r}"
            )
        if not isinstance(jit_compile, str) and jit_compile:
            warnings.warn(
                "compile: jit_compile=True is not supported (eagerkernel has no XLA); proceeding "
                "with jit_compile=False: the steps run eagerly.",
                stacklevel=2,
            )
        if loss is None and self.compiled and self.compiled_loss is not None:
            # Keras 3: compiling again without a loss keeps the loss (and its weights)
            loss, loss_weights = self._compile_args["loss"], self._compile_args["loss_weights"]
            kept_loss = self.compiled_loss
        else:
            kept_loss = None
        names = output_names(self)
        multi = isinstance(loss, (list, tuple, dict)) or (
            loss is not None and names is not None and len(names) > 1
        )
        weight = 1.0 if loss_weights is None or multi else loss_weight_of(loss_weights)
        output_losses = None
        if multi:
            output_losses = kept_loss or OutputLosses(self, loss, loss_weights)
        if metrics is None and weighted_metrics is None and kept_loss is not None:
            # Keras 3 keeps the metrics too; here only along with the loss (a new loss may
            # want other targets than the metrics resolved for the old one)
            metrics = self._compile_args["metrics"]
            weighted_metrics = self._compile_args["weighted_metrics"]
            entries = list(zip(self.compiled_metrics, self._weighted_flags, self._metric_outputs))
        else:
            entries = compile_metrics(loss, output_losses, metrics, weighted_metrics)
        chosen = optimizers.get(optimizer)
        if (
            auto_scale_loss
            and self._dtype_policy.name == "mixed_float16"
            and isinstance(chosen, optimizers.Optimizer)
            and not isinstance(chosen, optimizers.LossScaleOptimizer)
        ):
            chosen = optimizers.LossScaleOptimizer(chosen)
        if isinstance(chosen, optimizers.LossScaleOptimizer) and compile_strategy():
            raise NotImplementedError(
                "compile: loss scaling (a LossScaleOptimizer, which compile makes for a "
                "mixed_float16 model) is not supported under a distribution strategy; pass "
                "auto_scale_loss=False and a plain optimizer to train without it."
            )
        self.optimizer = chosen
        # The strategy in scope at compile time distributes fit, as in Keras (which keeps it
        # as `model.distribute_strategy`), also for a model built lazily by its first step.
        self._distribute_strategy = compile_strategy()
        if kept_loss is None:
            single = None if loss is None or multi else CompiledLoss(losses.to_loss(loss))
            self.compiled_loss = output_losses or single
        self._compile_args = {
            "optimizer": optimizer,
            "loss": loss,
            "metrics": metrics,
            "loss_weights": loss_weights,
            "weighted_metrics": weighted_metrics,
            "steps_per_execution": steps_per_execution,
        }
        self.loss = loss  # as given, as Keras 3's `Model.loss` (None before compile)
        self._loss_weight = weight
        self.compiled_metrics = CompiledMetrics([metric for metric, _, _ in entries], self)
        self._weighted_flags = [weighted for _, weighted, _ in entries]
        self._metric_outputs = [index for _, _, index in entries]
        self._loss_tracker = metrics_module.Mean(name="loss")
        self._steps_per_execution = int(steps_per_execution)
        self.run_eagerly = True
        self.compiled = True

    def get_compile_config(self) -> dict | None:
        """The `compile` arguments, serialized, that `save` records (follows Keras 3's
        ``Model.get_compile_config``); None before `compile`. Override it, with
        `compile_from_config`, for a ``compile`` of your own signature."""
        from .saving import serialize_keras_object

        if not self.compiled or getattr(self, "_compile_args", None) is None:
            return None
        out = dict(self._compile_args)
        out["optimizer"] = self.optimizer
        return {k: serialize_keras_object(v) for k, v in out.items()}

    def compile_from_config(self, config: dict) -> None:
        """Compiles with `get_compile_config`'s output, deserialized (follows Keras 3's
        ``Model.compile_from_config``; `load_model` calls it)."""
        from .saving import deserialize_keras_object

        self.compile(**{k: deserialize_keras_object(v) for k, v in config.items()})

    def _require_compiled(self, what: str) -> None:
        if not self.compiled:
            raise NotCompiledError(
                f"{what}: compile the model first, e.g. model.compile(optimizer='adam', "
                "loss='sparse_categorical_crossentropy')."
            )

    @property
    def metrics(self) -> list:
        """The metrics `fit` and `evaluate` log, reset each epoch: the loss tracker, the loss
        of each output when several have one (`OutputLosses.metrics`, as Keras 3), then the
        compiled metrics (none before `compile`), then those the layers' `add_metric` added
        (as tf.keras 2). Override it to list your own trackers."""
        added = super().metrics
        if not self.compiled:
            return added
        per_output = (
            self.compiled_loss.metrics if isinstance(self.compiled_loss, OutputLosses) else []
        )
        return [self._loss_tracker, *per_output, *self.compiled_metrics, *added]

    @property
    def metrics_names(self) -> list:
        """The log keys, in order: ``["loss", "accuracy", ...]``."""
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        """Resets the state of every metric in `metrics`."""
        for m in self.metrics:
            m.reset_state()

    def get_metrics_result(self) -> dict:
        """``{name: float(result)}`` for each metric in `metrics`."""
        return {m.name: float(m.result()) for m in self.metrics}

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None) -> Tensor:
        """The compiled loss (times ``loss_weights``, weighted by ``sample_weight``) plus the
        layers' losses (regularization, ``add_loss``).

        Raises:
            ValueError: there is no loss (none compiled, none added by layers).
        """
        total = None
        if self.compiled_loss is not None:
            if not isinstance(self.compiled_loss, OutputLosses):  # it matches each output
                y = match_rank(y, y_pred)
            total = self.compiled_loss(y, y_pred, sample_weight=sample_weight)
            if self._loss_weight != 1.0:
                total = total * self._loss_weight
        for extra in map(aggregate_additional_loss, self.losses):
            total = extra if total is None else total + extra
        if total is None:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None) -> dict:
        """Updates the compiled metrics with a batch (only ``weighted_metrics`` see
        ``sample_weight``) and returns `get_metrics_result`."""
        self.update_compiled_metrics(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def update_compiled_metrics(self, y, y_pred, sample_weight=None) -> None:
        """Updates each compiled metric with its output's targets and predictions (only
        ``weighted_metrics`` see ``sample_weight``); ``compiled_metrics.update_state``."""
        outputs_of = getattr(self, "_metric_outputs", None) or [None] * len(self.compiled_metrics)
        if any(i is not None for i in outputs_of):
            targets = self.compiled_loss.targets(y)
            preds = nest.flatten(y_pred)
        for metric, weighted, index in zip(self.compiled_metrics, self._weighted_flags, outputs_of):
            yt, yp = (y, y_pred) if index is None else (targets[index], preds[index])
            metric.update_state(yt, yp, sample_weight=sample_weight if weighted else None)

    # -- one step -------------------------------------------------------------------------------
    def train_step(self, data) -> dict:
        """One optimization step on a batch ``(x, y, sample_weight)`` (or ``(x, y)``);
        returns the logs.

        Nothing is modified if any part raises: see the module docstring.
        """
        x, y, sample_weight = data_adapter.unpack(data)
        scaling = isinstance(self.optimizer, LossScaleOptimizer)  # mixed_float16: Keras scales
        with deferred_updates() as updates, GradientTape() as tape:
            y_pred = self(x, **step_call_kwargs(self, True))
            loss = self.compute_loss(x, y, y_pred, sample_weight)
            if scaling:
                scaled = self.optimizer.get_scaled_loss(loss)
            else:  # Keras 3's loss_scale_factor, if set: the step divides the gradients by it
                scaled = _scale_loss(self.optimizer, loss)
        variables = self.trainable_variables
        if variables:
            grads = tape.gradient(scaled, variables)
            if scaling:
                grads = self.optimizer.get_unscaled_gradients(grads)
        else:  # a frozen model: Keras warns and trains nothing
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        with deferred_interrupt():  # weights and moving statistics change together
            if variables:
                self.optimizer.apply_gradients(zip(grads, variables))
            updates.commit()
        self._loss_tracker.update_state(loss, sample_weight=batch_size_of(x))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data) -> dict:
        """Loss and metrics on a batch, in inference mode; returns the logs."""
        x, y, sample_weight = data_adapter.unpack(data)
        y_pred = self(x, **step_call_kwargs(self, False))
        loss = self.compute_loss(x, y, y_pred, sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=batch_size_of(x))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        """The model's outputs for a batch (its ``x``), in inference mode."""
        x, _, _ = data_adapter.unpack(data)
        return self(x, **step_call_kwargs(self, False))

    # -- loops ----------------------------------------------------------------------------------
    def _callbacks(self, callbacks, verbose, epochs, steps, add_history=False):
        if isinstance(callbacks, callbacks_module.CallbackList):
            return callbacks
        if isinstance(callbacks, callbacks_module.Callback):
            callbacks = [callbacks]
        if callbacks is not None and not isinstance(callbacks, (list, tuple)):
            raise TypeError(
                "callbacks must be a list of keras.callbacks.Callback objects. Received: "
                f"callbacks={callbacks!r}"
            )
        return callbacks_module.CallbackList(
            callbacks,
            add_history=add_history,
            add_progbar=verbose != 0,
            model=self,
            verbose=verbose,
            epochs=epochs,
            steps=steps,
        )

    @filter_traceback
    def fit(
        self,
        x=None,
        y=None,
        batch_size=None,
        epochs: int = 1,
        verbose="auto",
        callbacks=None,
        validation_split: float = 0.0,
        validation_data=None,
        shuffle: bool = True,
        class_weight=None,
        sample_weight=None,
        initial_epoch: int = 0,
        steps_per_epoch=None,
        validation_steps=None,
        validation_batch_size=None,
        validation_freq=1,
        max_queue_size=10,
        workers=1,
        use_multiprocessing=False,
        **kwargs,
    ):
        """Trains from epoch ``initial_epoch`` up to (not including) ``epochs`` (follows
        `tf.keras.Model.fit`).

        Args:
            x, y: NumPy arrays or Tensors (nested for several inputs), or a Dataset or Python
                iterator of ``(x, y)``/``(x, y, sample_weight)`` batches as ``x`` (then ``y``,
                ``sample_weight`` and ``batch_size`` must be None).
            batch_size: examples per batch for arrays; default 32 (or ``ceil(n /
                steps_per_epoch)`` when ``steps_per_epoch`` is given).
            epochs: the index of the last epoch plus one; default 1.
            verbose: 0 silent, 1 a tqdm progress bar per epoch (a widget in notebooks), 2 one
                line per epoch; ``"auto"`` (default) is 1.
            callbacks: a list of `Callback` objects; `History` and (verbose) `ProgbarLogger`
                are added.
            validation_split: fraction (in [0, 1)) of the arrays held out for validation: the
                last examples, before shuffling; ignored when ``validation_data`` is given.
            validation_data: ``(x_val, y_val)``, ``(x_val, y_val, val_sample_weight)`` or a
                Dataset, evaluated after each epoch (logs ``val_loss``, ``val_<metric>``;
                `evaluate`'s test hooks run on the callbacks).
            shuffle: reshuffle the arrays before each epoch (default True); a Dataset is
                iterated as it is (shuffle it with ``Dataset.shuffle``).
            class_weight: ``{class index: weight}``: each training example's loss is weighted
                by the weight of its class (of ``y``: integer labels, one-hot rows, or a last
                axis of 1); classes not listed weigh 1. Not with ``sample_weight``.
            sample_weight: per-example loss weights (shape ``[n]``, or ``[n, timesteps]``).
            initial_epoch: the first epoch's index (resuming a run); default 0.
            steps_per_epoch: batches per epoch; required for an infinite Dataset. With it, an
                epoch continues where the previous one stopped, and data that runs out warns
                "Your input ran out of data": arrays and Datasets of known length start
                again at the next epoch, an iterator ends training after that epoch (Keras 3).
                With ``steps_per_execution`` k, an epoch draws ``steps_per_epoch`` rounded
                up to a multiple of k batches (as do ``validation_steps``, and ``steps`` of
                `evaluate` and `predict`), as Keras 3 does.
            validation_steps: batches per validation (from the start of the validation data
                each time); required for an infinite validation Dataset.
            validation_batch_size: batch size for validation arrays; default ``batch_size``.
            validation_freq: validate every N epochs (an int, default 1) or after the listed
                1-based epochs.

        Returns:
            A `History` whose ``history`` maps each log key to its per-epoch values and whose
            ``epoch`` lists the epoch indices run.

        Raises:
            RuntimeError: the model is not compiled.
            ValueError: inconsistent data; a bad value for an argument (named in the message);
                an infinite Dataset without ``steps_per_epoch``/``validation_steps``;
                validation arguments without validation data.
            TypeError: an unknown keyword.
            NotImplementedError: ``workers > 1`` or ``use_multiprocessing=True`` with a
                generator ``x`` (see below).

        ``max_queue_size``, ``workers``, ``use_multiprocessing`` (Keras 2's generator queue,
        default 10, 1, False) are used for generator input only and ignored otherwise, as in
        Keras 2; a generator is read in the calling thread (the same batches, in order, as
        Keras with one worker), so ``max_queue_size`` changes nothing and the other two
        must keep their defaults (0 workers, Keras's "main thread", is accepted).
        """
        reject_kwargs("fit", kwargs)
        check_queue_args("fit", x, max_queue_size, workers, use_multiprocessing)
        self._require_compiled("fit")
        epochs = check_int("epochs", epochs, 0)
        cap = run_limits.max_epochs()  # keras.config.set_max_epochs (a debugging cap)
        if cap and cap < epochs:
            warnings.warn(f"Limiting epochs to {cap}", stacklevel=2)
            epochs = cap
        initial_epoch = check_int("initial_epoch", initial_epoch, 0)
        verbose = check_verbose(verbose)
        check_validation_freq(validation_freq)
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = data_adapter.train_validation_split(
                x, y, sample_weight, validation_split
            )
        steps_per_epoch = data_adapter.check_steps(steps_per_epoch, "steps_per_epoch")
        train = EpochIterator(
            get_adapter(
                x, y, sample_weight, batch_size, steps_per_epoch, shuffle, class_weight, "fit"
            ),
            steps_per_epoch,
            "steps_per_epoch",
            "training",
            self._steps_per_execution,
        )
        val = None
        if validation_data is not None:
            val = self._validation_iterator(
                validation_data, batch_size, validation_batch_size, validation_steps
            )
        else:
            for name, value in (
                ("validation_steps", validation_steps),
                ("validation_batch_size", validation_batch_size),
                ("validation_freq", None if validation_freq == 1 else validation_freq),
            ):
                if value is not None:
                    raise ValueError(
                        f"`{name}` applies only with `validation_data` or `validation_split`, "
                        f"and neither was given. Received: {name}={value!r}"
                    )
        # Under an ek.distribute strategy: data-parallel steps on the global batch, callbacks
        # and progress on the chief only (see eagerkernel/runtime/distribute/keras_support.py).
        dist = distributed_fit(self)
        train_step = self.train_step if dist is None else dist.train_step
        if dist is not None and not dist.is_chief:
            callbacks, verbose = [], 0
        cb = self._callbacks(callbacks, verbose, epochs, train.num_batches, add_history=True)
        self.stop_training = False
        training_logs = None
        if dist is not None:
            dist.sync_random_state()
        try:
            cb.on_train_begin()
            # BackupAndRestore sets _initial_epoch in on_train_begin to resume a training
            resumed, self._initial_epoch = getattr(self, "_initial_epoch", None), None
            initial_epoch = resumed if resumed is not None else initial_epoch
            for epoch in range(initial_epoch, epochs):
                # The epoch's first batch is drawn before on_epoch_begin, so that an epoch is
                # never begun when the data has nothing left (a read-once iterator).
                batches = train.epoch()
                if batches is None:
                    train.warn_ran_out()
                    break
                self.reset_metrics()
                cb.on_epoch_begin(epoch)
                logs: dict = {}
                for begin, end, group in grouped(batches, self._steps_per_execution):
                    cb.on_train_batch_begin(begin)
                    for data in group:
                        logs = train_step(data)
                    cb.on_train_batch_end(end, logs)
                    if dist is not None:
                        self.stop_training = dist.agree_stop(self.stop_training)
                    if self.stop_training:
                        break
                epoch_logs = callbacks_module.pythonify_logs(metrics_result_or_logs(self, logs))
                if val is not None and should_validate(epoch, validation_freq):
                    with contextlib.nullcontext() if dist is None else dist.primary_scope():
                        val_logs = self._test_loop(val, cb)
                    epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
                cb.on_epoch_end(epoch, epoch_logs)
                if dist is not None:
                    self.stop_training = dist.agree_stop(self.stop_training)
                training_logs = epoch_logs
                # Data of a known length that ran out before `steps_per_epoch` batches starts
                # again next epoch (Keras 3 warns and goes on); an iterator ends training.
                if self.stop_training or (train.ran_out and train.adapter.num_batches is None):
                    break
        finally:
            train.close()
            if val is not None:
                val.close()
        finalize = getattr(self.optimizer, "finalize_variable_values", None)
        if finalize is not None:  # as Keras: the weights' moving averages (use_ema)
            finalize(self.trainable_variables)
        cb.on_train_end(training_logs)
        return self.history

    def _validation_iterator(self, validation_data, batch_size, validation_batch_size, steps):
        steps = data_adapter.check_steps(steps, "validation_steps")
        if data_adapter.yields_batches(validation_data):
            vx, vy, vsw = validation_data, None, None
        elif isinstance(validation_data, (tuple, list)) and len(validation_data) in (2, 3):
            vx, vy, vsw = (*validation_data, None)[:3]
        else:
            raise ValueError(
                "validation_data must be (x_val, y_val), (x_val, y_val, val_sample_weight) or a "
                f"Dataset. Received: {type(validation_data).__name__}."
            )
        if data_adapter.yields_batches(vx):  # Keras 3 ignores validation_batch_size then
            vbs = None
        else:
            vbs = validation_batch_size if validation_batch_size is not None else batch_size
        adapter = get_adapter(vx, vy, vsw, vbs, steps, False, None, "fit (validation_data)")
        return EpochIterator(
            adapter, steps, "validation_steps", "evaluation", self._steps_per_execution
        )

    def _test_loop(self, it: EpochIterator, cb) -> dict:
        it.reset()  # each evaluation starts the data again, as in Keras
        self.stop_evaluating = False
        cb.on_test_begin()
        self.reset_metrics()
        batches = it.epoch()
        logs: dict = {}
        if batches is None:  # empty (or read-once and read): Keras 3 warns, no results
            it.warn_ran_out()
            batches = ()
        for begin, end, group in grouped(batches, self._steps_per_execution):
            cb.on_test_batch_begin(begin)
            for data in group:
                logs = self.test_step(data)
            cb.on_test_batch_end(end, logs)
            if self.stop_evaluating:
                break
        logs = callbacks_module.pythonify_logs(metrics_result_or_logs(self, logs))
        cb.on_test_end(logs)
        return logs

    @filter_traceback
    def evaluate(
        self,
        x=None,
        y=None,
        batch_size=None,
        verbose="auto",
        sample_weight=None,
        steps=None,
        callbacks=None,
        max_queue_size=10,
        workers=1,
        use_multiprocessing=False,
        return_dict=False,
        **kwargs,
    ):
        """Loss and metrics over the data in inference mode (follows `tf.keras.Model.evaluate`).

        Args:
            x, y, batch_size, sample_weight: as in `fit` (arrays are not shuffled).
            verbose: 0 silent, 1 a progress bar, 2 one line at the end; ``"auto"`` (default)
                is 1.
            steps: the number of batches to evaluate (default None: all); required for an
                infinite Dataset. Fewer batches than ``steps`` warns "Your input ran out of
                data" and evaluates those.
            callbacks: a list of `Callback` objects; their ``on_test_*`` hooks run.
            return_dict: return ``{name: value}`` instead of a list.

        Returns:
            The loss (a float) if no metrics were compiled, else ``[loss, *metrics]`` (the
            order of `metrics_names`); a dict with ``return_dict=True``.

        Raises:
            RuntimeError: the model is not compiled.
            ValueError: empty or inconsistent data, or a bad argument value (named).
            TypeError: an unknown keyword.
            NotImplementedError: ``workers > 1`` or ``use_multiprocessing=True`` with a
                generator ``x``; ``max_queue_size``, ``workers`` and
                ``use_multiprocessing`` are as in `fit` (ignored for non-generator input, as
                in Keras 2).
        """
        reject_kwargs("evaluate", kwargs)
        check_queue_args("evaluate", x, max_queue_size, workers, use_multiprocessing)
        self._require_compiled("evaluate")
        verbose = check_verbose(verbose)
        steps = data_adapter.check_steps(steps, "steps")
        it = EpochIterator(
            get_adapter(x, y, sample_weight, batch_size, steps, False, None, "evaluate"),
            steps,
            "steps",
            "evaluation",
            self._steps_per_execution,
        )
        cb = self._callbacks(callbacks, verbose, 1, it.num_batches)
        dist = distributed_fit(self)
        try:
            with contextlib.nullcontext() if dist is None else dist.primary_scope():
                logs = self._test_loop(it, cb)
        finally:
            it.close()
        return logs if return_dict else flatten_logs(logs, flat_names(self))

    @filter_traceback
    def predict(
        self,
        x,
        batch_size=None,
        verbose=0,
        steps=None,
        callbacks=None,
        max_queue_size=10,
        workers=1,
        use_multiprocessing=False,
        **kwargs,
    ):
        """The model's outputs on ``x`` in inference mode, as NumPy arrays, batches
        concatenated along axis 0 (follows `tf.keras.Model.predict`).

        Args:
            x: arrays or Tensors, or a Dataset or iterator of batches (``x`` or ``(x, y)``
                elements; ``y`` is not used).
            batch_size: examples per batch for arrays; default 32 (or ``ceil(n / steps)``).
            verbose: 0 (default, unlike Keras's ``"auto"``, so that notebooks stay quiet), 1
                a progress bar, 2 one line at the end; ``"auto"`` is 1.
            steps: the number of batches to predict (default None: all); required for an
                infinite Dataset. Fewer batches than ``steps`` warns "Your input ran out of
                data" and returns those.
            callbacks: a list of `Callback` objects; their ``on_predict_*`` hooks run, and
                ``on_predict_batch_end`` gets ``{"outputs": <the batch's NumPy outputs>}``.

        Returns:
            NumPy arrays in the structure of the model's output.

        Raises:
            ValueError: empty data, or a bad argument value (named).
            TypeError: an unknown keyword.
            NotImplementedError: ``workers > 1`` or ``use_multiprocessing=True`` with a
                generator ``x``; ``max_queue_size``, ``workers`` and
                ``use_multiprocessing`` are as in `fit` (ignored for non-generator input, as
                in Keras 2).
        """
        reject_kwargs("predict", kwargs)
        check_queue_args("predict", x, max_queue_size, workers, use_multiprocessing)
        verbose = check_verbose(verbose)
        steps = data_adapter.check_steps(steps, "steps")
        it = EpochIterator(
            get_adapter(x, None, None, batch_size, steps, False, None, "predict"),
            steps,
            "steps",
            "prediction",
            self._steps_per_execution,
        )
        cb = self._callbacks(callbacks, verbose, 1, it.num_batches)
        self.stop_predicting = False
        outputs: list = []
        dist = distributed_fit(self)
        scope = contextlib.nullcontext() if dist is None else dist.primary_scope()
        try:
            with scope:
                cb.on_predict_begin()
                for begin, end, group in grouped(it.epoch(), self._steps_per_execution):
                    cb.on_predict_batch_begin(begin)
                    parts = [outputs_to_numpy(self.predict_step(data)) for data in group]
                    outputs.extend(parts)
                    cb.on_predict_batch_end(
                        end, {"outputs": parts[0] if len(parts) == 1 else concat_outputs(parts)}
                    )
                    if self.stop_predicting:
                        break
        finally:
            it.close()
        cb.on_predict_end()
        return concat_outputs(outputs)

    @filter_traceback
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One `train_step` on the batch ``(x, y)``, metrics reset first (follows
        `tf.keras.Model.train_on_batch`).

        Args:
            x, y: one batch of inputs and targets (arrays or Tensors).
            sample_weight: per-example loss weights. class_weight: ``{class: weight}``, as in
                `fit` (not with ``sample_weight``).
            return_dict: return ``{name: value}`` instead of a list.

        Returns:
            The loss if no metrics were compiled, else ``[loss, *metrics]``; a dict with
            ``return_dict=True``.

        Raises:
            RuntimeError: the model is not compiled. ValueError: both ``sample_weight`` and
                ``class_weight``, or a bad ``class_weight``.
        """
        self._require_compiled("train_on_batch")
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError(
                    "`class_weight` and `sample_weight` cannot be given together. Received: "
                    f"class_weight={class_weight!r} and a sample_weight of shape "
                    f"{np.shape(sample_weight)}."
                )
            sample_weight = data_adapter.class_weight_to_sample_weight(y, class_weight)
        self.reset_metrics()
        logs = callbacks_module.pythonify_logs(self.train_step(as_batch(x, y, sample_weight)))
        return logs if return_dict else flatten_logs(logs, flat_names(self))

    @filter_traceback
    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Loss and metrics on one batch in inference mode, metrics reset first (follows
        `tf.keras.Model.test_on_batch`); returns as `train_on_batch` does.

        Raises:
            RuntimeError: the model is not compiled.
        """
        self._require_compiled("test_on_batch")
        self.reset_metrics()
        logs = callbacks_module.pythonify_logs(self.test_step(as_batch(x, y, sample_weight)))
        return logs if return_dict else flatten_logs(logs, flat_names(self))

    @filter_traceback
    def predict_on_batch(self, x):
        """The outputs for one batch ``x`` in inference mode, as NumPy arrays."""
        return outputs_to_numpy(self.predict_step(as_batch(x, None, None)))
