"""Gradient clipping by value, by norm and by global norm, as Keras's optimizers clip
(``clipvalue``, ``clipnorm``, ``global_clipnorm``: follows Keras's `BaseOptimizer._clip_gradients`).

Every function takes and returns arrays (NumPy or CuPy) and never writes into its input: a
clipped gradient is a new array, so the caller's gradient stays as it was.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["clip_gradients"]


def clip_gradients(pairs: list, clipvalue=None, clipnorm=None, global_clipnorm=None) -> list:
    """``[(gradient, variable)]`` with each gradient clipped.

    Args:
        pairs: ``(array, variable)`` pairs.
        clipvalue: clip each entry to ``[-clipvalue, clipvalue]``.
        clipnorm: scale each gradient whose L2 norm exceeds it down to that norm.
        global_clipnorm: scale all gradients by one factor so that their joint L2 norm is at
            most this; a NaN or infinite joint norm makes every gradient NaN.

    A bound that is None or 0 clips nothing, as in Keras.

    >>> g = np.array([3.0, 4.0], np.float32)
    >>> clip_gradients([(g, None)], clipnorm=1.0)[0][0]
    array([0.6, 0.8], dtype=float32)
    """
    # As Keras: a bound of 0 (or None) clips nothing (`if self.clipnorm and self.clipnorm > 0`).
    if clipvalue:
        pairs = [(_xp(g).clip(g, -clipvalue, clipvalue), v) for g, v in pairs]
    if clipnorm:
        pairs = [(_clip_to_norm(g, clipnorm, _norm(g)), v) for g, v in pairs]
    if global_clipnorm:
        total = math.sqrt(sum(_norm(g) ** 2 for g, _ in pairs))
        if not math.isfinite(total):
            # Keras's clip_by_global_norm (and tf.clip_by_global_norm): a NaN or infinite
            # global norm makes every gradient NaN, to signal the error.
            return [(_xp(g).full_like(g, math.nan), v) for g, v in pairs]
        pairs = [(_clip_to_norm(g, global_clipnorm, total), v) for g, v in pairs]
    return pairs


def _xp(array):
    if isinstance(array, (np.ndarray, np.generic)):
        return np
    import cupy  # only reached for CuPy arrays

    return cupy


def _norm(g) -> float:
    xp = _xp(g)
    return float(xp.sqrt(xp.sum(g * g)))


def _clip_to_norm(g, clip: float, norm: float):
    # Keras's clip_by_norm: g * clip / max(norm, clip), a new array (the caller's is kept);
    # a NaN norm makes every entry NaN, as TF's maximum propagates it.
    if math.isnan(norm):
        return _xp(g).full_like(g, math.nan)
    return g * (clip / norm) if norm > clip else g
