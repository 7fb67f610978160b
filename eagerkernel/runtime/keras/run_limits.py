"""The debugging caps on `fit`'s epochs and on the batches of an epoch (follow Keras 3's
`keras.config.set_max_epochs` and `set_max_steps_per_epoch`; also read from the environment
variables ``KERAS_MAX_EPOCHS`` and ``KERAS_MAX_STEPS_PER_EPOCH`` at import). A leaf module:
the trainer and the data adapter read it."""

from __future__ import annotations

import os

__all__ = ["max_epochs", "max_steps_per_epoch", "set_max_epochs", "set_max_steps_per_epoch"]


def _env_int(name: str):
    value = os.environ.get(name)
    return int(value) if value else None


_limits = {
    "epochs": _env_int("KERAS_MAX_EPOCHS"),
    "steps": _env_int("KERAS_MAX_STEPS_PER_EPOCH"),
}


def _limit(name: str, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(
            f"keras.config.set_{name}: expected a positive int or None. Received: {value!r}"
        )
    return value


def set_max_epochs(max_epochs) -> None:
    """Caps the epochs of every `fit` at ``max_epochs`` (None: no cap), with a warning when
    it applies, for quick debugging runs (follows `keras.config.set_max_epochs`).

    Raises:
        ValueError: neither None nor a positive int.
    """
    _limits["epochs"] = _limit("max_epochs", max_epochs)


def max_epochs():
    """The cap `set_max_epochs` set (or ``KERAS_MAX_EPOCHS``), or None."""
    return _limits["epochs"]


def set_max_steps_per_epoch(max_steps_per_epoch) -> None:
    """Caps the batches of every epoch of `fit`, and of `evaluate` and `predict`, at
    ``max_steps_per_epoch`` (None: no cap), with a warning when it applies (follows
    `keras.config.set_max_steps_per_epoch`).

    Raises:
        ValueError: neither None nor a positive int.
    """
    _limits["steps"] = _limit("max_steps_per_epoch", max_steps_per_epoch)


def max_steps_per_epoch():
    """The cap `set_max_steps_per_epoch` set (or ``KERAS_MAX_STEPS_PER_EPOCH``), or None."""
    return _limits["steps"]
