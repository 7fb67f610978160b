"""`Model` and `Sequential`: layers with a training loop (follow `tf.keras.Model`).

`fit` runs `train_step` on each batch: the forward pass under a `GradientTape`, the loss (plus
the layers' regularization losses), the gradients, and one `apply_gradients`. The step is
all-or-nothing: BatchNormalization's moving statistics are collected during the forward pass
and written only after the optimizer update succeeded, and the optimizer validates every
gradient before it writes any variable, so a step that raises changes no variable.

Inputs to `fit`, `evaluate` and `predict` are NumPy arrays or Tensors (nested tuples/dicts
for several inputs), batched here, or an `ek.data.Dataset` whose elements are ``(x, y)`` or
``(x, y, sample_weight)``.
"""

from __future__ import annotations

import os

import numpy as np

from .. import nest
from .. import random as ek_random
from ..core.tape import GradientTape
from ..core.tensor import Tensor, TensorShape, to_tensor
from ..interrupts import deferred_interrupt
from ..traceback_utils import filter_traceback
from . import callbacks as callbacks_module
from .layers.base import Layer, deferred_updates

__all__ = ["Model", "Sequential"]


def _is_dataset(x) -> bool:
    return hasattr(x, "element_spec") and hasattr(x, "__iter__") and not isinstance(x, Tensor)


def _num_examples(x) -> int:
    first = nest.flatten(x)[0]
    return int(first.shape[0])


def _slice(x, idx):
    def take(a):
        if isinstance(a, Tensor):
            return to_tensor(a.numpy()[idx])
        return to_tensor(np.asarray(a)[idx])

    return nest.map_structure(take, x)


def _unpack(element):
    """``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` -> ``(x, y, sw)``."""
    if isinstance(element, tuple) and not hasattr(element, "_fields"):
        if len(element) == 1:
            return element[0], None, None
        if len(element) == 2:
            return element[0], element[1], None
        if len(element) == 3:
            return element
        raise ValueError(
            f"Data elements must be x, (x, y) or (x, y, sample_weight); got a tuple of "
            f"{len(element)}."
        )
    return element, None, None


class _ArrayBatches:
    """Batches of in-memory arrays, shuffled per epoch from the global random generator."""

    def __init__(self, x, y, sample_weight, batch_size, shuffle):
        self.x, self.y, self.sw = x, y, sample_weight
        self.n = _num_examples(x)
        for name, a in (("y", y), ("sample_weight", sample_weight)):
            if a is not None and _num_examples(a) != self.n:
                raise ValueError(
                    f"Data cardinality is ambiguous: x has {self.n} examples, {name} has "
                    f"{_num_examples(a)}."
                )
        self.batch_size = int(batch_size)
        if self.batch_size <= 0:
            raise ValueError(f"batch_size must be positive. Received: batch_size={batch_size}")
        self.shuffle = shuffle

    def __len__(self) -> int:
        return -(-self.n // self.batch_size)

    def __iter__(self):
        order = ek_random.generator().permutation(self.n) if self.shuffle else np.arange(self.n)
        for start in range(0, self.n, self.batch_size):
            idx = order[start : start + self.batch_size]
            yield (
                _slice(self.x, idx),
                None if self.y is None else _slice(self.y, idx),
                None if self.sw is None else _slice(self.sw, idx),
            )


class _DatasetBatches:
    def __init__(self, dataset):
        self.dataset = dataset

    def __len__(self):
        try:
            return len(self.dataset)
        except TypeError:
            return None

    def __iter__(self):
        for element in self.dataset:
            yield _unpack(element)


def _batches(x, y, sample_weight, batch_size, shuffle):
    if _is_dataset(x):
        if y is not None:
            raise ValueError("`y` must not be given when `x` is a Dataset (it yields (x, y)).")
        return _DatasetBatches(x)
    if x is None:
        raise ValueError("No input data: pass `x` (arrays, Tensors or a Dataset).")
    return _ArrayBatches(x, y, sample_weight, 32 if batch_size is None else batch_size, shuffle)


class Model(Layer):
    """A layer with `compile`, `fit`, `evaluate`, `predict`, `summary` and weight files
    (follows `tf.keras.Model`, subclassing style).

    Subclass it, create layers in ``__init__`` and write ``call(inputs, training=None)``:

    >>> class MLP(ek.keras.Model):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = ek.keras.layers.Dense(8, activation="relu")
    ...         self.out = ek.keras.layers.Dense(2)
    ...     def call(self, inputs, training=None):
    ...         return self.out(self.hidden(inputs))
    >>> model = MLP()
    >>> model(np.zeros((3, 4), np.float32)).shape
    TensorShape([3, 2])
    >>> len(model.trainable_variables)
    4
    """

    def __init__(self, *args, **kwargs):
        if args or "inputs" in kwargs:
            raise TypeError(
                "Model(inputs, outputs) (the functional API) is not supported; subclass Model "
                "or use Sequential."
            )
        super().__init__(**kwargs)
        self.optimizer = None
        self.compiled_loss = None
        self.compiled_metrics: list = []
        self.stop_training = False
        self.history = None

    # -- compile --------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, **kwargs):
        """Sets the optimizer, loss and metrics used by `fit` and `evaluate`.

        Args:
            optimizer: an optimizer or its name (``"adam"``, ``"sgd"``, ...).
            loss: a loss object, function or name (``"sparse_categorical_crossentropy"``).
            metrics: a list of metrics or names; ``"accuracy"`` picks the accuracy that
                matches the loss, as Keras does.
        """
        from . import losses, optimizers
        from . import metrics as metrics_module

        self.optimizer = optimizers.get(optimizer)
        self.compiled_loss = None if loss is None else losses.get(loss)
        self._loss_identifier = loss
        self.compiled_metrics = []
        for m in metrics or []:
            if isinstance(m, str) and m in ("accuracy", "acc"):
                self.compiled_metrics.append(metrics_module.resolve_accuracy(loss, name=m))
            else:
                self.compiled_metrics.append(metrics_module.get(m))
        from .metrics import Mean

        self._loss_tracker = Mean(name="loss")

    def _require_compiled(self, what: str) -> None:
        if self.optimizer is None or self.compiled_loss is None:
            raise RuntimeError(
                f"{what}: compile the model first, e.g. model.compile(optimizer='adam', "
                "loss='sparse_categorical_crossentropy')."
            )

    def _metric_logs(self) -> dict:
        logs = {"loss": float(self._loss_tracker.result())}
        for m in self.compiled_metrics:
            logs[m.name] = float(m.result())
        return logs

    def _reset_metrics(self) -> None:
        self._loss_tracker.reset_state()
        for m in self.compiled_metrics:
            m.reset_state()

    def compute_loss(self, x, y, y_pred, sample_weight=None) -> Tensor:
        """The compiled loss plus the regularization losses of the layers."""
        loss = self.compiled_loss(y, y_pred, sample_weight=sample_weight)
        for extra in self.losses:
            loss = loss + extra
        return loss

    # -- one step -------------------------------------------------------------------------------
    def train_step(self, data) -> dict:
        """One optimization step on a batch ``(x, y, sample_weight)``; returns the logs.

        Nothing is modified if any part raises: see the module docstring.
        """
        x, y, sample_weight = data
        with deferred_updates() as updates, GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        variables = self.trainable_variables
        grads = tape.gradient(loss, variables)
        with deferred_interrupt():  # weights and moving statistics change together
            self.optimizer.apply_gradients(zip(grads, variables))
            updates.commit()
        self._loss_tracker.update_state(loss)
        for m in self.compiled_metrics:
            m.update_state(y, y_pred, sample_weight=sample_weight)
        return self._metric_logs()

    def test_step(self, data) -> dict:
        """Loss and metrics on a batch, in inference mode."""
        x, y, sample_weight = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight)
        self._loss_tracker.update_state(loss)
        for m in self.compiled_metrics:
            m.update_state(y, y_pred, sample_weight=sample_weight)
        return self._metric_logs()

    # -- loops ----------------------------------------------------------------------------------
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
        sample_weight=None,
        initial_epoch: int = 0,
        steps_per_epoch=None,
        validation_batch_size=None,
    ):
        """Trains for ``epochs`` passes over the data (follows `tf.keras.Model.fit`).

        Args:
            x, y: NumPy arrays or Tensors (``batch_size``, default 32, and ``shuffle`` apply),
                or a Dataset of ``(x, y)`` batches as ``x`` (then ``y`` is None).
            epochs: number of epochs. verbose: 0 silent, 1 a tqdm progress bar per epoch
                (a widget in notebooks), 2 one line per epoch; "auto" is 1.
            callbacks: `Callback` objects (EarlyStopping, ModelCheckpoint, LambdaCallback).
            validation_data: ``(x_val, y_val)`` or a Dataset, evaluated after each epoch
                (logs ``val_loss``, ``val_<metric>``).
            validation_split: fraction of the arrays held out (the last examples, unshuffled).
            steps_per_epoch: limit batches per epoch (needed for an infinite Dataset).

        Returns:
            A `History` whose ``history`` maps each log key to its per-epoch values.

        Raises:
            RuntimeError: the model is not compiled. ValueError: inconsistent data.
        """
        self._require_compiled("fit")
        if validation_split and not _is_dataset(x):
            n = _num_examples(x)
            cut = n - int(n * validation_split)
            validation_data = (_slice(x, np.arange(cut, n)), _slice(y, np.arange(cut, n)))
            x, y = _slice(x, np.arange(cut)), _slice(y, np.arange(cut))
        batches = _batches(x, y, sample_weight, batch_size, shuffle)
        steps = len(batches) if steps_per_epoch is None else int(steps_per_epoch)
        verbose = 1 if verbose == "auto" else int(verbose)
        history = callbacks_module.History()
        cbs = list(callbacks or [])
        if verbose:
            cbs.append(callbacks_module.ProgbarLogger(verbose))
        cbs.append(history)
        cb = callbacks_module.CallbackList(
            cbs, self, {"epochs": epochs, "steps": steps, "verbose": verbose}
        )
        self.stop_training = False
        cb.on_train_begin()
        logs: dict = {}
        for epoch in range(initial_epoch, epochs):
            self._reset_metrics()
            cb.on_epoch_begin(epoch)
            for step, data in enumerate(batches):
                if steps_per_epoch is not None and step >= steps:
                    break
                cb.on_train_batch_begin(step)
                logs = self.train_step(data)
                cb.on_train_batch_end(step, logs)
            epoch_logs = dict(logs)
            if validation_data is not None:
                val = self.evaluate(
                    *self._validation_args(validation_data),
                    batch_size=validation_batch_size or batch_size,
                    verbose=0,
                    return_dict=True,
                )
                epoch_logs.update({f"val_{k}": v for k, v in val.items()})
            cb.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        cb.on_train_end(logs)
        self.history = history
        return history

    @staticmethod
    def _validation_args(validation_data):
        if _is_dataset(validation_data):
            return (validation_data, None)
        if isinstance(validation_data, (tuple, list)) and len(validation_data) in (2, 3):
            return tuple(validation_data[:2])
        raise ValueError(
            "validation_data must be (x_val, y_val) or a Dataset. Received: "
            f"{type(validation_data).__name__}."
        )

    @filter_traceback
    def evaluate(
        self,
        x=None,
        y=None,
        batch_size=None,
        verbose="auto",
        sample_weight=None,
        return_dict=False,
        callbacks=None,
    ):
        """Loss and metrics over the data in inference mode (follows `tf.keras.Model.evaluate`).

        Returns:
            The loss (a float) if no metrics were compiled, else ``[loss, *metrics]``; a dict
            with ``return_dict=True``.
        """
        self._require_compiled("evaluate")
        self._reset_metrics()
        logs: dict = {}
        for data in _batches(x, y, sample_weight, batch_size, shuffle=False):
            logs = self.test_step(data)
        if not logs:
            raise ValueError("evaluate: the data is empty.")
        if return_dict:
            return logs
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    @filter_traceback
    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None) -> np.ndarray:
        """The model's outputs on ``x`` in inference mode, as NumPy arrays (follows
        `tf.keras.Model.predict`); batches are concatenated along axis 0."""
        outputs = []
        for xb, _, _ in _batches(x, None, None, batch_size, shuffle=False):
            outputs.append(
                nest.map_structure(lambda t: np.asarray(t.numpy()), self(xb, training=False))
            )
        if not outputs:
            raise ValueError("predict: the data is empty.")
        return nest.map_structure(lambda *parts: np.concatenate(parts), *outputs)

    @filter_traceback
    def predict_on_batch(self, x) -> np.ndarray:
        """The outputs for one batch ``x`` in inference mode, as a NumPy array."""
        return np.asarray(self(x, training=False).numpy())

    @filter_traceback
    def train_on_batch(self, x, y, sample_weight=None):
        """One `train_step` on the batch ``(x, y)``; returns the loss (and metrics, if any).

        Raises:
            RuntimeError: the model is not compiled.
        """
        self._require_compiled("train_on_batch")
        self._reset_metrics()
        logs = self.train_step((to_tensor(x), to_tensor(y), sample_weight))
        values = list(logs.values())
        return values[0] if len(values) == 1 else values

    # -- inspection and weight files ----------------------------------------------------------
    def summary(self, line_length: int = 80, print_fn=None) -> None:
        """Prints Keras's table: each layer's name (type), output shape and parameter count,
        then total, trainable and non-trainable parameters.

        Raises:
            ValueError: if the model has not been built (call it once, or give Sequential an
                ``input_shape``).
        """
        print_fn = print_fn or print
        if not self.built:
            raise ValueError(
                f"summary: model {self.name!r} has not been built yet; call it on data or give "
                "the first layer an input_shape."
            )
        cols = (int(line_length * 0.45), int(line_length * 0.8), line_length)  # column ends
        rows = [("Layer (type)", "Output Shape", "Param #")]
        for layer in self._summary_layers():
            shape = getattr(layer, "_output_shape", None)
            shape_text = "multiple" if shape is None else str(_batch_none(shape))
            rows.append(
                (f"{layer.name} ({type(layer).__name__})", shape_text, str(layer.count_params()))
            )

        def line(cells):
            text = ""
            for cell, stop in zip(cells, cols):
                text = (text + cell).ljust(stop - 1)[: stop - 1] + " "
            return text.rstrip()

        print_fn(f'Model: "{self.name}"')
        print_fn("_" * line_length)
        print_fn(line(rows[0]))
        print_fn("=" * line_length)
        for i, row in enumerate(rows[1:]):
            print_fn(line(row))
            print_fn(("_" if i < len(rows) - 2 else "=") * line_length)
        if len(rows) == 1:
            print_fn("=" * line_length)
        trainable = sum(int(np.prod(v.shape, dtype=np.int64)) for v in self.trainable_variables)
        total = self.count_params()
        print_fn(f"Total params: {total:,}")
        print_fn(f"Trainable params: {trainable:,}")
        print_fn(f"Non-trainable params: {total - trainable:,}")
        print_fn("_" * line_length)

    def _summary_layers(self) -> list:
        return self.layers

    def save_weights(self, filepath, overwrite: bool = True) -> None:
        """Writes the model's state as ``Checkpoint(model=self).write(filepath)``: one
        safetensors file (``filepath``, or ``filepath + ".safetensors"``), written atomically,
        keyed by object path (``model/layer-0/kernel``; the optimizer's too once compiled).
        See `eagerkernel.runtime.io.checkpoint` for the format.

        Raises:
            FileExistsError: the file exists and ``overwrite`` is False.
        """
        from ..io.checkpoint import Checkpoint, _data_file

        filepath = os.fspath(filepath)
        if not overwrite and os.path.exists(_data_file(filepath)):
            raise FileExistsError(f"save_weights: {filepath} exists and overwrite=False.")
        Checkpoint(model=self).write(filepath)

    def load_weights(self, filepath):
        """Reads a file written by `save_weights` (or a `Checkpoint` holding ``model``); all
        or nothing. Values for weights not created yet are assigned when the model is built.

        Returns:
            the restore status (see `ek.train.Checkpoint.restore`).

        Raises:
            CheckpointError (a ValueError): missing, corrupt or truncated file, or a different
                model (a weight without a value, or a shape or dtype that differs; the file
                and the object path are named).
        """
        from ..io.checkpoint import Checkpoint

        return Checkpoint(model=self)._restore(
            os.fspath(filepath), required={id(v) for v in self.weights}
        )


def _batch_none(shape):
    if isinstance(shape, tuple) and shape and all(isinstance(s, (int, type(None))) for s in shape):
        return (None, *tuple(shape)[1:])
    if isinstance(shape, (list, tuple)):
        return [_batch_none(s) for s in shape]
    return shape


class Sequential(Model):
    """A stack of layers, each feeding the next (follows `tf.keras.Sequential`).

    Give the first layer ``input_shape=(...)`` to build the model at once (so `summary`
    works before any data), or let the first call build it.

    >>> model = ek.keras.Sequential([
    ...     ek.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
    ...     ek.keras.layers.Dense(1),
    ... ])
    >>> model.count_params()
    21
    """

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._stack: list[Layer] = []
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Layer) -> None:
        """Appends a layer; builds the model if the first layer knows its input shape.

        Raises:
            TypeError: if ``layer`` is not a Layer.
        """
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add: expected a Layer. Received: {layer!r}")
        self._stack.append(layer)
        # Build only the new layer, from the previous layer's output shape (or the first
        # layer's input_shape): a probe of batch 1, off any tape.
        if len(self._stack) == 1:
            shape = getattr(layer, "_batch_input_shape", None)
        else:
            shape = getattr(self._stack[-2], "_output_shape", None)
        if isinstance(shape, tuple) and all(isinstance(s, (int, type(None))) for s in shape):
            self._probe(layer, shape)

    def pop(self) -> Layer:
        """Removes and returns the last layer."""
        if not self._stack:
            raise TypeError("Sequential.pop: there are no layers to remove.")
        return self._stack.pop()

    def _probe(self, layer: Layer, batch_shape) -> None:
        from ..core.tape import stop_recording
        from ..ops.creation import zeros

        dtype = layer._input_dtype or self._dtype
        with stop_recording():
            x = zeros([1 if s is None else s for s in batch_shape], dtype=dtype)
            out = layer(x, training=False)
        self.built = all(lay.built for lay in self._stack)
        if self.built:
            self._output_shape = TensorShape(out._value.shape)

    @property
    def layers(self) -> list:
        return list(self._stack)

    def call(self, inputs, training=None, mask=None):
        """Runs the layers in order, passing ``training`` on."""
        x = inputs
        for layer in self._stack:
            x = layer(x, training=training) if training is not None else layer(x)
        return x

    def build(self, input_shape=None) -> None:
        """Nothing to create: the layers build themselves on the first call."""
        self.built = True
