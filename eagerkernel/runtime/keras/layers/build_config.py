"""`Layer.get_build_config` (follows Keras 3's ``Layer.get_build_config``): what `saving`
records of a built layer, so that loading rebuilds it through its ``build_from_config``.

A layer that overrides both (a ``build`` that takes more than the input shape, as in Keras's
"Customizing saving" guide) adds its own entries to the dict and reads them back.
"""

from __future__ import annotations

import numbers

__all__ = ["BuildConfigMixin"]


class BuildConfigMixin:
    """Adds `get_build_config` to `Layer`."""

    def get_build_config(self) -> dict | None:
        """``{"input_shape": shape}`` for a layer built for a known input shape (by its first
        call, or by ``build`` when it reaches ``Layer.build`` through ``super().build``),
        else None (follows Keras 3's ``Layer.get_build_config``).

        >>> import eagerkernel as ek
        >>> layer = ek.keras.layers.Dense(2)
        >>> layer.get_build_config() is None
        True
        >>> _ = layer(ek.ones((4, 3)))
        >>> layer.get_build_config()
        {'input_shape': (4, 3)}
        """
        shape = getattr(self, "_build_input_shape", None)
        if not self.built or shape is None:
            return None
        return {"input_shape": _plain(shape)}


def _plain(shape):
    """A shape as a tuple of ints and None (several inputs: a list or dict of them)."""
    if isinstance(shape, dict):
        return {k: _plain(v) for k, v in shape.items()}
    dims = list(shape)
    if dims and not all(d is None or isinstance(d, numbers.Integral) for d in dims):
        return [_plain(s) for s in dims]
    return tuple(None if d is None else int(d) for d in dims)
