"""Dropout in the recurrent layers and cells (follows Keras 3's ``DropoutRNNCell``).

``dropout`` drops input features, ``recurrent_dropout`` features of the previous output
``h`` (LSTM's carry ``c`` is never dropped). The masks are drawn once per sequence, scaled by
``1 / (1 - rate)``, and used only with ``training=True``. As Keras does:

- with ``recurrent_dropout`` = 0 the input mask is one per sequence, shared by the gates
  (Keras's ``implementation=2``);
- with ``recurrent_dropout`` > 0 every gate gets its own input mask and its own recurrent
  mask (Keras switches to ``implementation=1``): gate ``g`` sees ``x * m_g`` and
  ``h * r_g``, while GRU's update ``z * h + (1 - z) * hh`` keeps the undropped ``h``.

The masks are Keras's: ``keras.random.dropout`` of ones with the layer's `SeedGenerator`
(made at construction from ``seed``, or from Python's `random` when None), the input masks
drawn before the recurrent ones. A cell called on its own keeps its masks from call to call
(Keras's cache, cleared by `reset_dropout_mask`); a layer (or ``RNN``) draws them once per
call, in any mode (Keras's ``RNN.call`` draws them to keep its loop stateless), and
SimpleRNNCell also draws them when not training.
"""

from __future__ import annotations

import numbers

from ...ops import array_ops, linalg
from ...ops.creation import ones
from .. import random as keras_random

__all__ = ["RecurrentDropout"]


def _rate(value, name: str, layer: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{layer}: {name} must be a float in [0, 1]. Received: {name}={value!r}")
    return min(1.0, max(0.0, float(value)))  # Keras clips it


def _matmul_last(x, kernel):
    """``x @ kernel`` over the last axis of ``x``, as one 2-D product."""
    if x.ndim == 2:
        return linalg.matmul(x, kernel)
    lead = tuple(x.shape)[:-1]
    flat = linalg.matmul(array_ops.reshape(x, (-1, x.shape[-1])), kernel)
    return array_ops.reshape(flat, (*lead, kernel.shape[-1]))


class RecurrentDropout:
    """Mixed into the recurrent layers and cells (`recurrent._Recurrent`, and the ConvLSTM
    layers, which draw one mask per gate of a frame's shape as Keras's ConvLSTMCell): their
    masks, the input projection and the recurrent product with them."""

    def _init_dropout(self, dropout, recurrent_dropout, seed) -> None:
        layer = type(self).__name__
        self.dropout = _rate(dropout, "dropout", layer)
        self.recurrent_dropout = _rate(recurrent_dropout, "recurrent_dropout", layer)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise ValueError(f"{layer}: seed must be an integer or None. Received: seed={seed!r}")
        self.seed = seed
        self.seed_generator = keras_random.SeedGenerator(seed)  # made now, as Keras's
        self._dropout_mask = self._recurrent_dropout_mask = None

    def _draw(self, shape: tuple, rate: float, dtype, count: int) -> list:
        base = ones(shape, dtype=dtype)
        return [keras_random.dropout(base, rate, seed=self.seed_generator) for _ in range(count)]

    def reset_dropout_mask(self) -> None:
        """Forgets the cached input masks (Keras's ``reset_dropout_mask``)."""
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self) -> None:
        """Forgets the cached recurrent masks."""
        self._recurrent_dropout_mask = None

    def dropout_masks(
        self, input_shape, state_shape, dtype, training, count=None, keep=False, layer=False
    ) -> tuple:
        """``(input masks, recurrent masks)`` for one sequence: lists of Tensors of one
        step's ``input_shape`` (``(batch, features)``; ConvLSTM's ``(batch, *frame)``) and of
        the state's ``state_shape`` (``(batch, units)``), one per gate (``count`` of them;
        by default one per gate with ``recurrent_dropout``, else one shared), or None each
        when not training or at rate 0 (or 1: Keras uses a rate only in ``(0, 1)``).
        Cached masks (of a cell's earlier call) are used first; ``keep=True`` (a cell's
        call) keeps the masks for the next call, else they are forgotten. A layer
        (``layer=True``) draws them in any mode, as Keras's ``RNN.call`` does."""
        if count is None:
            count = self._gates if self.recurrent_dropout > 0 else 1
        masks = recurrent = None
        # Keras's SimpleRNNCell (the one-gate cell) draws them whatever ``training`` is
        if training or layer or getattr(self, "_gates", 0) == 1:
            if 0.0 < self.dropout < 1.0:
                if self._dropout_mask is None:
                    self._dropout_mask = self._draw(tuple(input_shape), self.dropout, dtype, count)
                masks = self._dropout_mask
            if 0.0 < self.recurrent_dropout < 1.0:
                if self._recurrent_dropout_mask is None:
                    self._recurrent_dropout_mask = self._draw(
                        tuple(state_shape), self.recurrent_dropout, dtype, count
                    )
                recurrent = self._recurrent_dropout_mask
        if not keep:
            self.reset_dropout_mask()
            self.reset_recurrent_dropout_mask()
        if not training:
            return None, None
        return masks, recurrent

    def sequence_stepper(self, x, training):
        """``step(t, states)`` of a layer or cell (with ``_step``) over the sequence ``x``:
        the input projection of all steps in one product, the dropout masks drawn once."""
        batch, _, features = tuple(x.shape)
        masks, recurrent_masks = self.dropout_masks(
            (batch, features), (batch, self.units), x.dtype, training, layer=True
        )
        projected = self.project(x, masks)
        return lambda t, states: self._step(projected[:, t], states, recurrent_masks)

    def project(self, x, masks):
        """``x @ kernel`` for inputs ``(batch, features)`` or ``(batch, timesteps,
        features)`` (one product for all timesteps), each gate's block computed on the input
        times its mask (masks ``(batch, features)``, the same at every timestep)."""
        if masks is not None and x.ndim == 3:
            masks = [array_ops.expand_dims(m, 1) for m in masks]
        if masks is None or len(masks) == 1:
            inputs = [x if masks is None else x * masks[0]]
            kernels = [self.kernel]
        else:
            u = self.units
            inputs = [x * m for m in masks]
            kernels = [self.kernel[:, g * u : (g + 1) * u] for g in range(len(masks))]
        blocks = [_matmul_last(a, k) for a, k in zip(inputs, kernels)]
        return blocks[0] if len(blocks) == 1 else array_ops.concat(blocks, axis=-1)

    def recurrent_product(self, h, masks, first: int = 0, count: int | None = None):
        """``h @ recurrent_kernel`` over the gates ``first .. first + count`` (default all),
        gate ``g``'s block computed on ``h * masks[g]`` when there are recurrent masks."""
        count = self._gates - first if count is None else count
        u = self.units
        kernel = self.recurrent_kernel
        if masks is None:
            whole = first == 0 and count == self._gates
            return linalg.matmul(h, kernel if whole else kernel[:, first * u : (first + count) * u])
        blocks = [
            linalg.matmul(h * masks[g], kernel[:, g * u : (g + 1) * u])
            for g in range(first, first + count)
        ]
        return blocks[0] if count == 1 else array_ops.concat(blocks, axis=-1)

    def dropout_config(self) -> dict:
        return {
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }
