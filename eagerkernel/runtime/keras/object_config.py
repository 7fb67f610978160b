"""The ``serialize``/``deserialize`` pairs of `ek.keras.losses`, `ek.keras.metrics` and
`ek.keras.optimizers` (follow Keras 3's functions of those names).

An object is described by Keras's config dict ``{"module", "class_name", "config",
"registered_name"}``: a built-in class gets ``"module": "keras.losses"`` (or ``keras.metrics``,
``keras.optimizers``) and ``"registered_name": None``, as Keras writes it; a class registered
with `register_keras_serializable` keeps `ek.keras.saving.serialize_keras_object`'s description.
A built-in loss function is ``{"module": "builtins", "class_name": "function", "config":
"mean_squared_error", "registered_name": "function"}``, Keras's form too.
"""

from __future__ import annotations

from . import saving

__all__ = ["deserialize_from", "serialize_as"]


def serialize_as(obj, module: str, builtin_classes, builtin_functions) -> dict | None:
    """Keras's config dict of ``obj`` (None stays None).

    Args:
        obj: a loss, metric or optimizer object, or a loss function.
        module: ``"keras.losses"``, ``"keras.metrics"`` or ``"keras.optimizers"``.
        builtin_classes: the classes that are written with ``module``.
        builtin_functions: the functions written by name.

    Raises:
        NotImplementedError: an object without ``get_config`` or a name.
    """
    if obj is None:
        return None
    if callable(obj) and not hasattr(obj, "get_config") and not isinstance(obj, type):
        if not hasattr(obj, "__name__"):
            raise NotImplementedError(f"Cannot serialize {obj!r}: it has no name or get_config.")
        known = any(obj is f for f in builtin_functions)
        registered = obj.__name__ if known else saving.get_registered_name(obj)
        return {
            "module": "builtins",
            "class_name": "function",
            "config": registered,
            "registered_name": registered if ">" in registered else "function",
        }
    out = saving.serialize_keras_object(obj)
    if type(obj) in builtin_classes:
        out["module"] = module
        out["registered_name"] = None
    return out


def deserialize_from(config, custom_objects, what: str, by_name, module: str):
    """The object a Keras config dict or a plain name describes.

    Args:
        config: a dict from `serialize_as` (or Keras), or a name string.
        custom_objects: optional ``{name: object}`` searched first.
        what: ``"loss"``, ``"metric"`` or ``"optimizer"`` (for the error message).
        by_name: ``name -> object or None``, the module's lookup of built-in names.
        module: the module name the config is read for (``"keras.losses"``, ...).

    Raises:
        ValueError: a name or config that names nothing known (the message says which).
        TypeError: a class that cannot be found (from `deserialize_keras_object`).
    """
    if isinstance(config, str):
        found = saving.get_registered_object(config, custom_objects)
        if found is None:
            found = by_name(config)
        if found is None:
            raise ValueError(f"Could not interpret {what} identifier: {config!r}.")
        return found
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(
            f"Could not interpret {what} config: {config!r}. Expected a name or a dict with "
            "'class_name' and 'config'."
        )
    if config["class_name"] == "function":
        name = config.get("config")
        if not isinstance(name, str):
            raise ValueError(f"Could not interpret {what} function config: {config!r}.")
        return deserialize_from(name, custom_objects, what, by_name, module)
    config = dict(config)
    config.setdefault("module", module)
    return saving.deserialize_keras_object(config, custom_objects)
