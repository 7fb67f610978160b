"""`Layer.get_build_config` (follows Keras 3's ``Layer.get_build_config``): what `saving`
records of a built layer, so that loading rebuilds it through its ``build_from_config``.

A layer that overrides both (a ``build`` that takes more than the input shape, as in Keras's
"Customizing saving" guide) adds its own entries to the dict and reads them back.
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np

__all__ = ["BuildConfigMixin", "build_by_shape_kwargs", "build_from_shapes_dict", "call_build"]

_ARG_KINDS = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)


def call_build(layer, shapes) -> None:
    """``layer.build(shapes)``, or ``layer.build()`` when the layer's ``build`` takes no
    argument (``def build(self): self.built = True``, as keras-io's GRN/VSN example writes):
    Keras 3's ``Layer._maybe_build`` passes the input shape only to the parameters ``build``
    declares (``update_shapes_dict_for_target_fn``)."""
    build = layer.build
    try:
        params = inspect.signature(build).parameters.values()
    except (TypeError, ValueError):  # a builtin or C callable: assume the usual signature
        params = None
    if params is not None and not any(
        p.kind in _ARG_KINDS or p.kind == inspect.Parameter.VAR_POSITIONAL for p in params
    ):
        build()
    else:
        build(shapes)


class BuildConfigMixin:
    """Adds `get_build_config` to `Layer`."""

    def get_build_config(self) -> dict | None:
        """``{"input_shape": shape}`` for a layer built for a known input shape (by its first
        call, or by ``build`` when it reaches ``Layer.build`` through ``super().build``),
        ``{"shapes_dict": {"query_shape": ..., "value_shape": ...}}`` for one whose ``build``
        took several shapes by name, else None (follows Keras 3's ``Layer.get_build_config``).

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
        if isinstance(shape, dict) and set(shape) <= set(_build_params(self)):
            if len(shape) > 1:  # build(a_shape, b_shape): Keras 3's "shapes_dict"
                return {"shapes_dict": _plain(shape)}
            return {"input_shape": _plain(next(iter(shape.values())))}
        return {"input_shape": _plain(shape)}


def _build_params(layer) -> list:
    """The names ``layer.build`` takes (empty for fewer than two: the input shape alone)."""
    try:
        params = inspect.signature(layer.build).parameters.values()
    except (TypeError, ValueError):
        return []
    names = [p.name for p in params if p.kind in _ARG_KINDS]
    return names if len(names) > 1 else []


def build_from_shapes_dict(layer, shapes: dict) -> None:
    """``layer.build(**shapes)`` for a build config's ``"shapes_dict"`` (Keras 3's
    ``Layer.build_from_config`` for a ``build(query_shape, value_shape)``); its shapes (JSON
    lists) are made tuples, and `get_build_config` gives them back."""
    shapes = {k: _tuple(v) for k, v in shapes.items()}
    with layer.name_scope:
        layer.build(**shapes)
    layer._build_input_shape = shapes
    layer.built = True


def build_by_shape_kwargs(layer, inputs, args, kwargs) -> bool:
    """Builds ``layer`` on its first eager call ``layer.call(inputs, *args, **kwargs)`` by
    ``build(a_shape=..., b_shape=...)`` when its ``build`` takes several parameters, all
    named ``<call argument>_shape`` (Keras 3's ``update_shapes_dict_for_target_fn``: each
    gets the shape of the call argument of that name, when it is given). False (nothing
    done) for any other ``build``: the layer then builds from its inputs' shape alone."""
    from ... import nest

    names = _build_params(layer)
    if not names or not all(n.endswith("_shape") for n in names):
        return False
    try:
        bound = inspect.signature(layer.call).bind(inputs, *args, **(kwargs or {}))
    except (TypeError, ValueError):
        return False
    shapes = {
        f"{name}_shape": nest.map_structure(lambda t: tuple(np.shape(t)), value)
        for name, value in bound.arguments.items()
        if f"{name}_shape" in names and value is not None
    }
    if not shapes:
        return False
    layer._build_input_shape = shapes
    layer.build(**shapes)
    layer.built = True
    return True


def _tuple(shape):
    if shape is None or isinstance(shape, dict):
        return shape if shape is None else {k: _tuple(v) for k, v in shape.items()}
    dims = list(shape)
    if dims and not all(d is None or isinstance(d, numbers.Integral) for d in dims):
        return [_tuple(s) for s in dims]
    return tuple(dims)


def _plain(shape):
    """A shape as a tuple of ints and None (several inputs: a list or dict of them)."""
    if isinstance(shape, dict):
        return {k: _plain(v) for k, v in shape.items()}
    dims = list(shape)
    if dims and not all(d is None or isinstance(d, numbers.Integral) for d in dims):
        return [_plain(s) for s in dims]
    return tuple(None if d is None else int(d) for d in dims)
