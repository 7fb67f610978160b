"""Keras 3's ``_keras_logits``: the output of a sigmoid or a softmax remembers the logits it
came from, and a cross-entropy given such an output (``from_logits=False``) computes from the
logits instead, stably: ``binary_crossentropy`` of ``sigmoid(100)`` against 0 is 100, not the
16.1 that clipping the probability to ``1 - 1e-7`` gives. A model whose last layer is
``Dense(1, activation="sigmoid")`` trained with ``"binary_crossentropy"`` so gets Keras 3's
losses (and gradients) when it saturates. Given ``from_logits=True``, such an output is not
put through a second softmax either: the logits are used, with Keras 3's warning.

The link is kept beside the tensor (a Tensor has no room for an attribute), dropped when
the output is freed; an op on the output (a cast, a slice) makes a tensor without it.
"""

from __future__ import annotations

import warnings
import weakref

__all__ = ["logits_of", "prefer_logits", "remember"]

_LOGITS: dict = {}  # id(output) -> (weakref to the output, logits, kind, axis)


def remember(output, logits, kind: str, axis: int = -1):
    """Records that ``output`` is ``kind`` (``"sigmoid"`` or ``"softmax"`` over ``axis``) of
    ``logits``; returns ``output``."""
    key = id(output)
    try:
        ref = weakref.ref(output, lambda _, key=key: _LOGITS.pop(key, None))
    except TypeError:  # not weakly referenceable: nothing to remember
        return output
    _LOGITS[key] = (ref, logits, kind, axis)
    return output


def logits_of(output, kind: str, axis: int = -1):
    """The logits ``output`` was computed from by ``kind`` over ``axis``, or None."""
    entry = _LOGITS.get(id(output))
    if entry is None or entry[0]() is not output or entry[2] != kind:
        return None
    if kind == "softmax":
        rank = len(getattr(output, "shape", ()))
        if entry[3] % max(rank, 1) != axis % max(rank, 1):
            return None
    return entry[1]


def prefer_logits(output, from_logits: bool, kind: str, axis: int = -1, op: str = "") -> tuple:
    """``(logits, True)`` when ``output`` is a ``kind``'s output, else ``(output,
    from_logits)``: a cross-entropy then computes from the logits, as Keras 3's TensorFlow
    backend does (``_get_logits``). With ``from_logits=True`` too, warning as Keras 3 does
    (the output is probabilities; the softmax is not applied twice). ``op`` names the
    cross-entropy in the warning (by default ``binary_crossentropy`` for a sigmoid,
    ``categorical_crossentropy`` for a softmax)."""
    logits = logits_of(output, kind, axis)
    if logits is None:
        return output, from_logits
    if from_logits:
        op = op or ("binary_crossentropy" if kind == "sigmoid" else "categorical_crossentropy")
        warnings.warn(
            f'"`{op}` received `from_logits=True`, but the `output` argument was produced by '
            f"a {kind.capitalize()} activation and thus does not represent logits. Was this "
            "intended?",
            stacklevel=3,
        )
    return logits, True
