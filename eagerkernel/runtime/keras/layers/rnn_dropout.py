"""Dropout in the recurrent layers and cells (follows Keras 3's ``DropoutRNNCell``).

``dropout`` drops input features, ``recurrent_dropout`` features of the previous output
``h`` (LSTM's carry ``c`` is never dropped). The masks are drawn once per sequence (once per
call of the layer; a cell called on its own draws them at each call), scaled by
``1 / (1 - rate)``, and used only with ``training=True``. As Keras does:

- with ``recurrent_dropout`` = 0 the input mask is one per sequence, shared by the gates
  (Keras's ``implementation=2``);
- with ``recurrent_dropout`` > 0 every gate gets its own input mask and its own recurrent
  mask (Keras switches to ``implementation=1``): gate ``g`` sees ``x * m_g`` and
  ``h * r_g``, while GRU's update ``z * h + (1 - z) * hh`` keeps the undropped ``h``.

The draws go through `ek.nn.dropout`, a stateful op: a graph function draws new masks on every
call. A ``seed`` makes the sequence of masks reproducible (with `ek.random.set_seed` too).
"""

from __future__ import annotations

import numbers

import numpy as np

from ... import random as _random
from ...ops import array_ops, linalg
from ...ops import nn as _nn
from ...ops.creation import ones

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
        self._dropout_rng = None

    def _op_seed(self):
        """A fresh op-level seed per draw from the layer's own stream (None: unseeded)."""
        if self._dropout_rng is None:
            self._dropout_rng = np.random.default_rng([_random.get_seed() or 0, int(self.seed)])
        return int(self._dropout_rng.integers(2**62))

    def _draw(self, shape: tuple, rate: float, dtype, count: int) -> list:
        seed = None if self.seed is None else self._op_seed
        base = ones(shape, dtype=dtype)
        return [_nn.dropout(base, rate=rate, seed=seed) for _ in range(count)]

    def dropout_masks(self, input_shape, state_shape, dtype, training, count=None) -> tuple:
        """``(input masks, recurrent masks)`` for one sequence: lists of Tensors of one
        step's ``input_shape`` (``(batch, features)``; ConvLSTM's ``(batch, *frame)``) and of
        the state's ``state_shape`` (``(batch, units)``), one per gate (``count`` of them;
        by default one per gate with ``recurrent_dropout``, else one shared), or None each
        when not training or at rate 0 (or 1: Keras uses a rate only in ``(0, 1)``)."""
        if not training:
            return None, None
        if count is None:
            count = self._gates if self.recurrent_dropout > 0 else 1
        masks = recurrent = None
        if 0.0 < self.dropout < 1.0:
            masks = self._draw(tuple(input_shape), self.dropout, dtype, count)
        if 0.0 < self.recurrent_dropout < 1.0:
            recurrent = self._draw(tuple(state_shape), self.recurrent_dropout, dtype, count)
        return masks, recurrent

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
