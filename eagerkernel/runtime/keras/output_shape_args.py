"""The arguments a layer's ``compute_output_shape`` receives for a call with several tensor
arguments (follows Keras 3's ``get_shapes_dict`` / ``update_shapes_dict_for_target_fn`` in
``keras/src/layers/layer.py``)."""

from __future__ import annotations

import inspect

from .. import nest
from .keras_tensor import KerasTensor

__all__ = ["output_shape_kwargs"]

_NAMED = (
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.KEYWORD_ONLY,
)


def output_shape_kwargs(layer, inputs, args=(), kwargs=None) -> dict | None:
    """Keyword arguments for ``layer.compute_output_shape`` on ``layer.call(inputs, *args,
    **kwargs)``, or None when they cannot be matched (the caller then infers the shape by
    running the layer).

    Each call argument ``foo`` holding KerasTensors gives ``foo_shape`` (a shape tuple, or a
    nested structure of them); ``mask``, ``*args`` and ``**kwargs`` catch-alls are left out.
    A ``compute_output_shape`` with one parameter receives the first such shape under its own
    name; one with several receives them by name, each parameter ending in ``_shape``.

    >>> class Pair(ek.keras.layers.Layer):
    ...     def call(self, a, b):
    ...         return a
    ...     def compute_output_shape(self, a_shape, b_shape):
    ...         return a_shape
    >>> x, y = ek.keras.Input((3,)), ek.keras.Input((5,))
    >>> output_shape_kwargs(Pair(), x, (y,))
    {'a_shape': (None, 3), 'b_shape': (None, 5)}
    """
    try:
        bound = inspect.signature(layer.call).bind(inputs, *args, **(kwargs or {}))
        params = [
            p.name
            for p in inspect.signature(layer.compute_output_shape).parameters.values()
            if p.kind in _NAMED
        ]
    except (TypeError, ValueError):
        return None
    call_params = inspect.signature(layer.call).parameters
    shapes = {}
    for name, value in bound.arguments.items():
        if name == "mask" or call_params[name].kind in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ):
            continue
        if not any(isinstance(t, KerasTensor) for t in nest.flatten(value)):
            continue
        shapes[f"{name}_shape"] = nest.map_structure(
            lambda t: tuple(t.shape) if isinstance(t, KerasTensor) else None, value
        )
    if len(params) == 1:
        return {params[0]: next(iter(shapes.values()), None)}
    if not params or not all(p in shapes for p in params):
        return None
    return {p: shapes[p] for p in params}
