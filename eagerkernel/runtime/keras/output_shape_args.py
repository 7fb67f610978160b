"""The arguments a layer's ``compute_output_shape`` receives for a call with several tensor
arguments (follows Keras 3's ``get_shapes_dict`` / ``update_shapes_dict_for_target_fn`` in
``keras/src/layers/layer.py``)."""

from __future__ import annotations

import inspect
import warnings

from .. import nest
from .keras_tensor import KerasTensor

__all__ = ["build_shape_kwargs", "build_sublayers_by_probe", "output_shape_kwargs"]

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


def build_shape_kwargs(layer, inputs, args=(), kwargs=None) -> dict | None:
    """Keyword arguments for a ``build`` with several ``*_shape`` parameters (Keras 3's
    ``MultiHeadAttention.build(query_shape, value_shape, key_shape=None)``) on a symbolic
    ``layer.call(inputs, *args, **kwargs)``: each parameter whose call argument holds
    KerasTensors gets that argument's shape, the others keep their defaults (Keras 3's
    ``update_shapes_dict_for_target_fn``). None for a ``build`` of one parameter, or one
    whose parameters do not all end in ``_shape`` (the layer then builds from the first
    input's shape alone).

    >>> class Pair(ek.keras.layers.Layer):
    ...     def build(self, a_shape, b_shape=None):
    ...         pass
    ...     def call(self, a, b=None):
    ...         return a
    >>> build_shape_kwargs(Pair(), ek.keras.Input((3,)), (ek.keras.Input((5,)),))
    {'a_shape': (None, 3), 'b_shape': (None, 5)}
    """
    try:
        params = [
            p.name for p in inspect.signature(layer.build).parameters.values() if p.kind in _NAMED
        ]
        bound = inspect.signature(layer.call).bind(inputs, *args, **(kwargs or {}))
    except (TypeError, ValueError):
        return None
    if len(params) < 2 or not all(p.endswith("_shape") for p in params):
        return None
    shapes = {}
    for name, value in bound.arguments.items():
        key = f"{name}_shape"
        if key in params and any(isinstance(t, KerasTensor) for t in nest.flatten(value)):
            shapes[key] = nest.map_structure(
                lambda t: tuple(t.shape) if isinstance(t, KerasTensor) else None, value
            )
    return shapes or None


def build_sublayers_by_probe(layer, inputs, args, kwargs, probe) -> None:
    """Builds the unbuilt sublayers (those with a ``build`` of their own, which may make
    weights) of a layer that has no ``build`` of its own but has a
    ``compute_output_shape``, by running ``probe(layer, inputs, args, kwargs)`` (the stand-in
    call of `functional.probe_spec`) on its first symbolic call: Keras 3's ``_maybe_build``
    traces ``call`` for such a layer whatever ``compute_output_shape`` says, so the model's
    weights exist (and are listed) before the first real call. A probe that fails only warns,
    as Keras does; the first eager call then builds them.
    """
    from .layers.base import Layer

    if type(layer).build is not Layer.build or not hasattr(type(layer), "compute_output_shape"):
        return
    # only sublayers whose own build makes weights count (stateless ones build for free)
    subs = layer._flatten_layers(include_self=False)
    if all(sub.built or type(sub).build is Layer.build for sub in subs):
        return
    try:
        probe(layer, inputs, args, kwargs)
    except Exception as e:  # Keras: a warning, not an error, for a symbolic call
        warnings.warn(
            f"Layer '{layer.name}' looks like it has unbuilt state, but Keras is not able to "
            "trace the layer `call()` in order to build it automatically. You may need to "
            "implement the `def build(self, input_shape)` method on your layer. Exception "
            f"encountered: ''{e}''",
            stacklevel=3,
        )
