"""The error for an argument Keras 3 and tf.keras 2 refuse with different classes.

Keras 3 raises ValueError for an unknown keyword argument (``Dense(2, foo=1)``,
``SGD(foo=1)``) or a non-layer given to ``Sequential``; tf.keras 2, like Python itself,
raised TypeError. `KerasArgumentError` is both, so that code written for either catches it.
"""

from __future__ import annotations

__all__ = ["KerasArgumentError", "unrecognized_arguments"]


class KerasArgumentError(TypeError, ValueError):
    """An argument Keras refuses: Keras 3's ValueError, tf.keras 2's TypeError.

    >>> from eagerkernel import keras
    >>> try:
    ...     keras.layers.Dense(2, foo=1)
    ... except ValueError as exc:
    ...     print(isinstance(exc, TypeError), exc)
    True Unrecognized keyword arguments passed to Dense: {'foo': 1}
    """


def unrecognized_arguments(owner: str, kwargs: dict) -> KerasArgumentError:
    """The error for ``kwargs`` that ``owner`` (a class name) does not take, as Keras says it."""
    return KerasArgumentError(f"Unrecognized keyword arguments passed to {owner}: {kwargs!r}")
