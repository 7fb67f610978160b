"""`Model` and `Sequential`: layers with a training loop (follow `tf.keras.Model`).

The training API (`compile`, `fit`, `evaluate`, `predict`, the steps) is `trainer.Trainer`;
the batches come from `data_adapter`. This module has the models themselves, `summary` and
the weight files.
"""

from __future__ import annotations

import os

import numpy as np

from ..core.tensor import TensorShape
from ..module import name_scope
from .layers.base import Layer
from .trainer import Trainer

__all__ = ["Model", "Sequential"]


class Model(Trainer, Layer):
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

    Override `train_step`, `test_step` or `predict_step` (and `compute_loss`,
    `compute_metrics`, the `metrics` property) to change what `fit`, `evaluate` and `predict`
    do per batch, as in Keras.
    """

    def __init__(self, *args, **kwargs):
        if args or "inputs" in kwargs:
            raise TypeError(
                "Model(inputs, outputs) (the functional API) is not supported; subclass Model "
                "or use Sequential."
            )
        super().__init__(**kwargs)

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
            shape_text = "multiple" if shape is None else str(batch_none(shape))
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
        from ..io.checkpoint import Checkpoint
        from ..io.checkpoint_format import data_file

        filepath = os.fspath(filepath)
        if not overwrite and os.path.exists(data_file(filepath)):
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


def batch_none(shape):
    if isinstance(shape, tuple) and shape and all(isinstance(s, (int, type(None))) for s in shape):
        return (None, *tuple(shape)[1:])
    if isinstance(shape, (list, tuple)):
        return [batch_none(s) for s in shape]
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
        with stop_recording(), name_scope(""):  # Keras names these weights dense/kernel
            x = zeros([1 if s is None else s for s in batch_shape], dtype=dtype)
            out = layer(x, training=False)
        self.built = all(lay.built for lay in self._stack)
        if self.built:
            self._output_shape = TensorShape(out._value.shape)

    @property
    def layers(self) -> list:
        return list(self._stack)

    def call(self, inputs, training=None, mask=None):
        """Runs the layers in order, passing ``training`` on.

        The layers run outside any name scope, so the weights they create are named as Keras's
        Sequential names them (``dense/kernel:0``, whatever scope the model runs in).
        """
        x = inputs
        with name_scope(""):
            for layer in self._stack:
                x = layer(x, training=training) if training is not None else layer(x)
        return x

    def build(self, input_shape=None) -> None:
        """Nothing to create: the layers build themselves on the first call."""
        self.built = True
