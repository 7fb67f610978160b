"""`Layer.save_own_variables` and `Layer.load_own_variables` (follow Keras 3's methods of
``keras.layers.Layer``): the state of one layer in a ``.keras`` file.

`saving.save_model` calls ``save_own_variables(store)`` on every layer of the model with a
dict for that layer's path in the file and keeps what the layer writes there; `load_model`
calls ``load_own_variables(store)`` with a mapping of the same keys. The base methods store
the layer's own variables (not its sublayers', which get their own stores) under ``"0"``,
``"1"``, ...; a layer overriding them decides what its state is, as in Keras's "Customizing
saving and serialization" guide.
"""

from __future__ import annotations

import numpy as np

__all__ = ["OwnVariablesMixin"]


class OwnVariablesMixin:
    """Adds `save_own_variables`, `load_own_variables` and `_own_variables` to `Layer`."""

    def _own_variables(self) -> list:
        """The Variables this layer holds itself (by `add_weight` or in its attributes), not
        those of its sublayers, in `weights` order: trainable ones first, then the others
        (Keras 3's ``_trainable_variables + _non_trainable_variables``)."""
        from ...core.variable import Variable

        own = {id(c) for c in self._children() if isinstance(c, Variable)}
        return [v for v in self.weights if id(v) in own]

    def save_own_variables(self, store) -> None:
        """Writes this layer's own variables into ``store`` under ``"0"``, ``"1"``, ... in
        the order of its `weights` (trainable first, then non-trainable; sublayers have
        stores of their own). Follows ``keras.layers.Layer.save_own_variables``.

        Override it (with `load_own_variables`) to save other state; values are arrays of a
        numeric or bool dtype (write text files with ``save_assets``).

        Args:
            store: a dict-like object for this layer's path in the file; ``store[key] =
                value`` takes a string key without ``"/"`` and an array-like value (a
                Variable, Tensor or NumPy array, copied when it is stored).

        >>> import eagerkernel as ek
        >>> layer = ek.keras.layers.Dense(2)
        >>> _ = layer(ek.ones((1, 3)))
        >>> store = {}
        >>> layer.save_own_variables(store)
        >>> {key: tuple(value.shape) for key, value in store.items()}
        {'0': (3, 2), '1': (2,)}
        """
        for i, v in enumerate(self._own_variables()):
            store[str(i)] = v

    def load_own_variables(self, store) -> None:
        """Assigns this layer's own variables from ``store`` (what `save_own_variables`
        wrote: ``"0"``, ``"1"``, ... in `weights` order). Follows
        ``keras.layers.Layer.load_own_variables``. Nothing is assigned unless every count and
        shape fits.

        Args:
            store: a mapping of string keys to arrays (``keys()``, ``len``, ``[key]``).

        Raises:
            ValueError: the store holds another number of entries than the layer has
                variables (an unbuilt layer gets Keras's advice on ``build_from_config``), or
                an entry's shape differs from its variable's; the message names the layer,
                what it expected and what it received.

        >>> import eagerkernel as ek
        >>> layer = ek.keras.layers.Dense(2, name="d")
        >>> _ = layer(ek.ones((1, 3)))
        >>> layer.load_own_variables({"0": ek.ones((3, 2)), "1": [5.0, 6.0]})
        >>> layer.bias.numpy()
        array([5., 6.], dtype=float32)
        >>> layer.load_own_variables({"0": ek.ones((3, 2))})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: Layer 'd' expected 2 variables, but received 1 variables during loading...
        """
        variables = self._own_variables()
        _check_count(self, variables, store)
        values = []
        for i, v in enumerate(variables):
            value = store[str(i)]
            value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
            if tuple(value.shape) != tuple(v.shape):
                raise ValueError(
                    f"Layer '{self.name}' expected variable {v.name!r} (store key '{i}') of "
                    f"shape {tuple(v.shape)}, but received shape {tuple(value.shape)} during "
                    "loading."
                )
            values.append(value)
        for v, value in zip(variables, values):
            v.assign(np.asarray(value, dtype=v.dtype.as_numpy_dtype))


def _check_count(layer, variables: list, store) -> None:
    """Keras 3's ``_check_load_own_variables``: the store holds one entry per variable."""
    received = len(store.keys())
    if received == len(variables):
        return
    if not variables and not layer.built:
        raise ValueError(
            f"Layer '{layer.name}' was never built and thus it doesn't have any variables. "
            f"However the weights file lists {received} variables for this layer.\n"
            "In most cases, this error indicates that either:\n\n"
            "1. The layer is owned by a parent layer that implements a `build()` method, but "
            "calling the parent's `build()` method did NOT create the state of the child "
            f"layer '{layer.name}'. A `build()` method must create ALL state for the layer, "
            "including the state of any children layers.\n\n"
            "2. You need to implement the `def build_from_config(self, config)` method on "
            f"layer '{layer.name}', to specify how to rebuild it during loading. In this "
            "case, you might also want to implement the method that generates the build "
            "config at saving time, `def get_build_config(self)`. The method "
            "`build_from_config()` is meant to create the state of the layer (i.e. its "
            "variables) upon deserialization."
        )
    raise ValueError(
        f"Layer '{layer.name}' expected {len(variables)} variables, but received {received} "
        f"variables during loading. Expected: {[v.name for v in variables]}"
    )
