"""Whole-model files and Keras's object serialization (follows `tf.keras.saving`).

A ``.keras`` file is a zip archive, as Keras 3 writes it: ``metadata.json`` (versions, date),
``config.json`` (the model as `serialize_keras_object` describes it, with its ``compile_config``)
and the state (see `saving_state`): ``model.weights.safetensors`` (what each layer's
``save_own_variables`` wrote, at Keras's per-layer paths, instead of Keras's HDF5 file),
``model.checkpoint.safetensors`` (the optimizer and its slot variables) and ``assets/``
(``save_assets``). Loading never runs code
from the file: classes are looked up by name among the built-in ones, those registered with
`register_keras_serializable`, and the ``custom_objects`` given.
"""

from __future__ import annotations

import datetime
import inspect
import json
import os
import tempfile
import threading
import zipfile

from . import saving_state

__all__ = [
    "CustomObjectScope",
    "ModelFileNotFoundError",
    "clone_model",
    "custom_object_scope",
    "deserialize_keras_object",
    "enable_unsafe_deserialization",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "load_model",
    "load_weights",
    "model_from_json",
    "register_keras_serializable",
    "save_model",
    "save_weights",
    "serialize_keras_object",
]

_REGISTERED: dict[str, type] = {}  # "package>name" -> class
_safe = threading.local()  # .mode: the safe_mode of the load_model call running on this thread
_UNSAFE = [False]  # enable_unsafe_deserialization() was called
_scope = threading.local()  # .objects: the custom_objects of the enclosing custom_object_scope
_NAMES: dict[type, str] = {}  # class -> "package>name"
_CONFIG = "config.json"
_METADATA = "metadata.json"
_WEIGHTS = saving_state.WEIGHTS


def register_keras_serializable(package: str = "Custom", name: str | None = None):
    """Decorator registering a class (or function) under ``"package>name"`` so that
    `load_model` and `deserialize_keras_object` find it without ``custom_objects`` (follows
    `tf.keras.saving.register_keras_serializable`).

    Args:
        package: the namespace (default ``"Custom"``).
        name: default the class's ``__name__``.

    Raises:
        ValueError: ``package`` contains ``">"``, the name is already registered to
            another object, or the class has no ``get_config``.

    >>> @ek.keras.saving.register_keras_serializable(package="Doc")
    ... class Twice(ek.keras.layers.Layer):
    ...     def call(self, x):
    ...         return 2 * x
    >>> ek.keras.saving.get_registered_name(Twice)
    'Doc>Twice'
    """
    if ">" in package:
        raise ValueError(
            f"register_keras_serializable: package must not contain '>'. Got {package!r}"
        )

    def decorator(obj):
        key = f"{package}>{name or obj.__name__}"
        if isinstance(obj, type) and not hasattr(obj, "get_config"):
            raise ValueError(  # Keras 2 and 3 raise ValueError
                f"Cannot register {obj!r}: a class that does not have a get_config() method."
            )
        old = _REGISTERED.get(key)
        if old is not None and old is not obj and old.__qualname__ != obj.__qualname__:
            raise ValueError(f"{key} has already been registered to {old}")
        _REGISTERED[key] = obj
        _NAMES[obj] = key
        return obj

    return decorator


def get_registered_name(obj) -> str:
    """``"package>name"`` for a registered class or function, else its ``__name__``."""
    return _NAMES.get(obj, getattr(obj, "__name__", type(obj).__name__))


def get_custom_objects() -> dict:
    """The registered objects, ``{"package>name": object}``: the live dict, as Keras's, so
    ``get_custom_objects()["MyLayer"] = MyLayer`` registers a class by name and ``clear()``
    forgets every registration."""
    return _REGISTERED


def _builtins(module: str | None) -> dict:
    """eagerkernel's classes by name; the module a config names (``keras.metrics``) first,
    since a loss and a metric may share a class name (``MeanSquaredError``)."""
    from . import (
        constraints,
        initializers,
        layers,
        losses,
        metrics,
        models,
        optimizers,
        regularizers,
    )
    from .feature_space import Cross, Feature, FeatureSpace
    from .functional import Functional
    from .layers.merging import Operator
    from .ops import KerasOpLayer

    tables = {
        "constraints": constraints,
        "initializers": initializers,
        "regularizers": regularizers,
        "metrics": metrics,
        "losses": losses,
        "optimizers": optimizers,
        "layers": layers,
    }
    preferred = next((k for k in tables if module and k in module.split(".")), None)
    order = [k for k in tables if k != preferred] + ([preferred] if preferred else [])
    table: dict = {}
    for key in order:  # later tables win
        for name in getattr(tables[key], "__all__", ()):
            value = getattr(tables[key], name, None)
            if isinstance(value, type):
                table[name] = value
    table.update(
        {
            "Model": models.Model,
            "Sequential": models.Sequential,
            "Functional": Functional,
            "Operator": Operator,
            "KerasOpLayer": KerasOpLayer,
            "FeatureSpace": FeatureSpace,
            "Feature": Feature,
            "Cross": Cross,
        }
    )
    return table


class custom_object_scope:
    """Within it, the given ``{name: object}`` are found by name wherever Keras looks objects
    up (`deserialize_keras_object`, ``activations.get``, ``losses.get``), as with
    `tf.keras.saving.custom_object_scope`.

    >>> def cube(x):
    ...     return x**3
    >>> with ek.keras.saving.custom_object_scope({"cube": cube}):
    ...     ek.keras.activations.get("cube") is cube
    True
    """

    def __init__(self, custom_objects=None):
        self.custom_objects = dict(custom_objects or {})

    def __enter__(self):
        self._outer = getattr(_scope, "objects", {})
        _scope.objects = {**self._outer, **self.custom_objects}
        return self

    def __exit__(self, *exc) -> None:
        _scope.objects = self._outer


CustomObjectScope = custom_object_scope


def get_registered_object(name: str, custom_objects=None, module_objects=None):
    """The object ``name`` refers to: ``custom_objects`` first, then those of the enclosing
    `custom_object_scope`, the registered objects (by ``"package>name"``), then
    ``module_objects``; None when none has it."""
    scoped = getattr(_scope, "objects", {})
    for table in (custom_objects or {}, scoped, _REGISTERED, module_objects or {}):
        if name in table:
            return table[name]
    return None


def serialize_keras_object(obj) -> dict | str | None:
    """Keras 3's description of an object: ``{"module", "class_name", "config",
    "registered_name"}`` (plus ``"build_config"`` for a built layer); a built-in function
    (activation, loss function) is its name; None stays None.

    Raises:
        NotImplementedError: an object without ``get_config``.
    """
    from .layers.base import Layer

    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(o) for o in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if callable(obj) and not hasattr(obj, "get_config"):
        name = _NAMES.get(obj) or getattr(obj, "__name__", None)
        if name is None:
            raise NotImplementedError(f"Cannot serialize {obj!r}: it has no name or get_config.")
        return name
    cls = type(obj)
    if not hasattr(obj, "get_config"):
        raise NotImplementedError(f"Cannot serialize {obj!r}: it has no get_config() method.")
    config = obj.get_config()
    if isinstance(obj, Layer):
        _check_nothing_dropped(obj, config)
    if isinstance(config, dict):  # Keras objects a custom get_config returns as they are
        config = {k: _serialize_value(v) for k, v in config.items()}
    out = {
        "module": cls.__module__.replace("eagerkernel.runtime.", "eagerkernel."),
        "class_name": cls.__name__,
        "config": config,
        "registered_name": _NAMES.get(cls, cls.__name__),
    }
    if isinstance(obj, Layer) and obj.built:
        build = obj.get_build_config()  # a layer may add its own entries (Keras 3)
        if build is not None:
            build = dict(build)
            for key in ("input_shape", "shapes_dict"):  # Keras 3: several shapes by name
                if build.get(key) is not None:
                    build[key] = _jsonable_shape(build[key])
            out["build_config"] = build
    return out


def _serialize_value(value):
    """A config value with the Keras objects in it (a sub-layer, a regularizer, an
    initializer: anything with ``get_config``) serialized, as Keras 3's ``serialize_dict``;
    other values as they are."""
    if isinstance(value, dict):
        return {k: _serialize_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_serialize_value(v) for v in value]
        return type(value)(items) if all(a is b for a, b in zip(items, value)) else items
    if hasattr(value, "get_config") and not isinstance(value, type):
        return serialize_keras_object(value)
    return value


def enable_unsafe_deserialization() -> None:
    """Lets every later `load_model` (and `Lambda.from_config`) load the Python code of a
    ``Lambda`` layer's function, as ``safe_mode=False`` does for one call (follows
    `keras.config.enable_unsafe_deserialization`). Only for files you trust."""
    _UNSAFE[0] = True


def in_safe_mode() -> bool:
    """Whether loading Python code from a file is refused here: never after
    `enable_unsafe_deserialization`, else the ``safe_mode`` of the `load_model` call running
    on this thread, else True (follows Keras's ``in_safe_mode``)."""
    if _UNSAFE[0]:
        return False
    mode = getattr(_safe, "mode", None)
    return True if mode is None else bool(mode)


class _SafeModeScope:
    def __init__(self, safe_mode: bool):
        self.mode = bool(safe_mode)

    def __enter__(self):
        self._outer = getattr(_safe, "mode", None)
        _safe.mode = self.mode

    def __exit__(self, *exc) -> None:
        _safe.mode = self._outer


_LAMBDA_REFUSED = (
    "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. "
    "This carries a potential risk of arbitrary code execution and thus it is disallowed by "
    "default. If you trust the source of the artifact, you can override this error by "
    "passing `safe_mode=False` to the loading function, or calling "
    "`ek.keras.config.enable_unsafe_deserialization()`."
)


def serialize_function(fn, what: str) -> dict | str:
    """A function in a config, as Keras 3 writes it for a ``Lambda`` layer: a function
    registered with `register_keras_serializable` by its ``"package>name"`` (as Keras:
    ``{"class_name": "function", "module": "builtins", "config": "Custom>f",
    "registered_name": "function"}``), a named function of an importable module by its name
    (`serialize_keras_object`), any other function (a lambda, a nested function) as
    ``{"class_name": "__lambda__", "config": {"code", "defaults", "closure", "module"}}``:
    its bytecode (`marshal`, base64), which only the same
    Python version loads, and only with ``safe_mode=False``.

    Raises:
        NotImplementedError: a default or closure value that JSON cannot hold (a tensor, a
            layer...), naming ``what``.
    """
    import base64
    import marshal
    import sys

    if fn in _NAMES:  # registered: by its "package>name", wherever it is defined
        return {
            "class_name": "function",
            "module": "builtins",
            "config": _NAMES[fn],
            "registered_name": "function",
        }
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    if (
        fn.__name__ != "<lambda>"
        and "<locals>" not in getattr(fn, "__qualname__", "<locals>")
        and getattr(module, fn.__name__, None) is fn
        and fn.__module__ != "__main__"
    ):
        return {"class_name": "function", "module": fn.__module__, "config": fn.__name__}
    values = {
        "defaults": list(fn.__defaults__ or ()),
        "closure": [c.cell_contents for c in fn.__closure__ or ()],
    }
    for key, items in values.items():
        part = "default" if key == "defaults" else key
        for v in items:
            if not isinstance(v, (str, int, float, bool, type(None))):
                raise NotImplementedError(
                    f"Cannot serialize {what}: its function's {part} "
                    f"holds {v!r:.60}, which a config (JSON) cannot hold. Write a Layer "
                    "subclass with get_config() instead."
                )
    return {
        "class_name": "__lambda__",
        "config": {
            "code": base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii"),
            "defaults": values["defaults"] or None,
            "closure": values["closure"] or None,
            "module": fn.__module__,
        },
    }


def serialize_callable(obj, what: str):
    """Keras 3's description of a regularizer or constraint ``obj`` (``what`` names the kind):
    None and a name stay as they are, a plain function is written by `serialize_function`,
    an object with ``get_config`` by `serialize_keras_object`."""
    if obj is None or isinstance(obj, str):
        return obj
    if not hasattr(obj, "get_config") and callable(obj):
        return serialize_function(obj, f"{what} {obj!r:.60}")
    return serialize_keras_object(obj)


def deserialize_callable(config, builtins: dict, what: str, custom_objects=None, unknown=None):
    """The regularizer or constraint (``what``) a `serialize_callable` description or a
    name gives: a name or class from ``builtins`` or the registered objects (a class is
    instantiated with its defaults), a function from `deserialize_function`.

    Raises:
        ValueError: an unknown name (``unknown``, formatted with ``name`` and ``known``, is
            the message) or class, or a config of another form.
    """
    import inspect

    if isinstance(config, str):
        cls = builtins.get(config) or get_registered_object(config, custom_objects)
        if cls is None:
            message = unknown or "Unknown {what}: {name!r}. Known names: {known}."
            raise ValueError(message.format(what=what, name=config, known=sorted(builtins)))
        return cls() if inspect.isclass(cls) else cls
    if isinstance(config, dict) and config.get("class_name") in ("function", "__lambda__"):
        return deserialize_function(config, custom_objects)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret {what} config: {config!r}.")
    name = config["class_name"]
    cls = get_registered_object(
        config.get("registered_name") or name, custom_objects
    ) or get_registered_object(name, custom_objects, builtins)
    if cls is None:
        raise ValueError(
            f"Unknown {what}: {name!r}. Register a custom one with "
            "`@ek.keras.saving.register_keras_serializable()` or pass it in `custom_objects`."
        )
    return cls.from_config(dict(config.get("config") or {}))


def deserialize_function(config, custom_objects=None):
    """The function `serialize_function` described: a name is looked up as any Keras object;
    a ``__lambda__`` is rebuilt from its bytecode with the globals of its module (when that
    module is loaded) and ``custom_objects``.

    Raises:
        ValueError: a ``__lambda__`` in safe mode (`in_safe_mode`), as Keras refuses it.
        TypeError: a named function whose module is not imported and that ``custom_objects``
            does not hold (no module is imported by a load).
    """
    import base64
    import marshal
    import sys
    import types

    if isinstance(config, dict) and config.get("class_name") == "function":
        name, module = config["config"], sys.modules.get(config.get("module") or "")
        found = get_registered_object(name, custom_objects)
        if found is None and module is not None:
            found = getattr(module, name, None)
        if not callable(found):
            raise TypeError(
                f"Could not locate function '{name}' of module {config.get('module')!r} (the "
                "module is not imported): import it first or pass it in `custom_objects`."
            )
        return found
    if not (isinstance(config, dict) and config.get("class_name") == "__lambda__"):
        return deserialize_keras_object(config, custom_objects)
    if in_safe_mode():
        raise ValueError(_LAMBDA_REFUSED)
    inner = config["config"]
    code = marshal.loads(base64.b64decode(inner["code"]))
    module = sys.modules.get(inner.get("module") or "")
    scope = dict(vars(module)) if module is not None else {"__builtins__": __builtins__}
    scope.update(getattr(_scope, "objects", {}))
    scope.update(custom_objects or {})

    def cell(value):
        return (lambda: value).__closure__[0]

    closure = tuple(cell(v) for v in inner.get("closure") or ())
    defaults = tuple(inner.get("defaults") or ()) or None
    return types.FunctionType(code, scope, code.co_name, defaults, closure or None)


def _check_nothing_dropped(layer, config: dict) -> None:
    """A regularizer or constraint the layer holds but its config leaves out would be lost
    silently by a save; refuse instead."""
    for attr, value in vars(layer).items():
        if value is None or not attr.endswith(("_regularizer", "_constraint")):
            continue
        if attr.lstrip("_") not in config:
            raise NotImplementedError(
                f"Cannot serialize layer {layer.name!r} ({type(layer).__name__}): its "
                f"{attr.lstrip('_')} ({value!r:.80}) is not part of its config and would be "
                "lost. Save the weights with save_weights() and rebuild the model in code."
            )


def _jsonable_shape(shape):
    if isinstance(shape, dict):
        return {k: _jsonable_shape(v) for k, v in shape.items()}
    if (
        isinstance(shape, (list, tuple))
        and shape
        and not all(d is None or isinstance(d, int) for d in shape)
    ):
        return [_jsonable_shape(s) for s in shape]
    return None if shape is None else [None if d is None else int(d) for d in shape]


def _tuple_shape(shape):
    if isinstance(shape, dict):
        return {k: _tuple_shape(v) for k, v in shape.items()}
    if isinstance(shape, list) and shape and isinstance(shape[0], list):
        return [_tuple_shape(s) for s in shape]
    return None if shape is None else tuple(shape)


def deserialize_keras_object(config, custom_objects=None):
    """The object a `serialize_keras_object` description gives (follows
    `tf.keras.saving.deserialize_keras_object`): the class is found by its registered name or
    class name in ``custom_objects``, the registered objects, or eagerkernel's built-in
    layers, models, optimizers, losses and metrics; its ``from_config`` makes the object.

    Raises:
        TypeError: a class that cannot be found (the message names it and says how to
            register it).
    """
    from .layers.base import Layer

    if config is None or isinstance(config, (int, float, bool)):
        return config
    if isinstance(config, str):
        found = get_registered_object(config, custom_objects)
        return found if found is not None else config
    if isinstance(config, list):
        return [deserialize_keras_object(c, custom_objects) for c in config]
    if not isinstance(config, dict) or "class_name" not in config:
        if isinstance(config, dict):
            return {k: deserialize_keras_object(v, custom_objects) for k, v in config.items()}
        raise TypeError(f"Could not deserialize {config!r}: not a serialized Keras object.")
    class_name = config["class_name"]
    registered = config.get("registered_name") or class_name
    cls = get_registered_object(registered, custom_objects) or get_registered_object(
        class_name, custom_objects, _builtins(config.get("module"))
    )
    if cls is None:
        raise TypeError(
            f"Could not locate class '{class_name}'. Make sure custom classes are decorated "
            "with `@ek.keras.saving.register_keras_serializable()` or passed in "
            f"`custom_objects`. Full object config: {json.dumps(config)[:500]}"
        )
    inner = dict(config.get("config", {}))
    with custom_object_scope(custom_objects):
        if hasattr(cls, "from_config"):
            takes = "custom_objects" in inspect.signature(cls.from_config).parameters
            obj = (
                cls.from_config(inner, custom_objects=custom_objects)
                if takes
                else cls.from_config(inner)
            )
        else:
            obj = cls(**inner)
    build = config.get("build_config") or {}
    shapes = [build.get(k) for k in ("input_shape", "shapes_dict")]  # Keras 3 writes either
    if isinstance(obj, Layer) and not obj.built and any(s is not None for s in shapes):
        obj.build_from_config(build)
    return obj


# -- the .keras file --------------------------------------------------------------------------
def _compile_config(model) -> dict | None:
    if not getattr(model, "compiled", False):
        return None
    return serialize_keras_object(model.get_compile_config())  # a model may override it


def save_model(model, filepath, overwrite: bool = True, zipped=None, **kwargs) -> None:
    """Writes ``model`` to a ``.keras`` zip (see the module docstring), atomically: a crash
    leaves any previous file intact (follows `tf.keras.saving.save_model`).

    Args:
        model: a Sequential or functional model, or a subclassed one with ``get_config``
            (registered, or given to `load_model` in ``custom_objects``).
        filepath: a path ending in ``.keras``.
        overwrite: False raises FileExistsError if the file exists.
        zipped: True or None only (Keras 3's unzipped directory layout is not supported).

    Raises:
        ValueError: another extension (``.h5``, none: TensorFlow's SavedModel directory).
        FileExistsError: the file exists and ``overwrite`` is False.
        ValueError: also any other keyword argument (``options``), as Keras 3 says it.
        NotImplementedError: a layer without ``get_config`` (a Lambda), or ``zipped=False``.
    """
    from ..io.checkpoint_format import atomic_write

    if kwargs:  # Keras 3's error, e.g. for TF 2's ``options=SaveOptions(...)``
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs)}")
    if zipped is False:
        raise NotImplementedError("save_model: zipped=False is not supported; the file is a zip.")
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError(
            "Invalid filepath extension for saving. Please add a `.keras` extension for the "
            "native Keras format (a zip of JSON config and safetensors weights). HDF5 (`.h5`) "
            "and TensorFlow's SavedModel directories are not written by eagerkernel (use "
            f"ek.saved_model.save for a SavedModel-like export). Received: filepath={filepath}"
        )
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"save_model: {filepath} exists and overwrite=False.")
    config = serialize_keras_object(model)
    config["compile_config"] = _compile_config(model)
    from ... import __version__ as ek_version

    metadata = {
        "keras_version": f"eagerkernel-{ek_version}",
        "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        entries = saving_state.write_state(model, tmp)  # the layers' hooks run here
        archive = os.path.join(tmp, "model.keras")
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(_METADATA, json.dumps(metadata))
            zf.writestr(_CONFIG, json.dumps(config))
            for name, local in entries:
                stored = name.endswith(".safetensors")  # arrays: no compression, as before
                zf.write(local, name, compress_type=zipfile.ZIP_STORED if stored else None)
        with open(archive, "rb") as f:
            atomic_write(filepath, f.read())


class ModelFileNotFoundError(FileNotFoundError, ValueError):
    """`load_model` of a path where no file is: Keras 3 raises ValueError, Python code
    catches FileNotFoundError; this is both."""


def load_model(filepath, custom_objects=None, compile: bool = True, safe_mode: bool = True):
    """A model from a ``.keras`` file (follows `tf.keras.models.load_model`): rebuilt from its
    config, its weights (and, with ``compile``, its optimizer's state) restored, so that
    predictions match the saved model's bit for bit and training continues as it would have.

    Args:
        filepath: a ``.keras`` file written by `Model.save`.
        custom_objects: ``{name: class or function}`` for custom layers, losses, ...
        compile: compile the model as it was saved (optimizer, loss, metrics, slots).
        safe_mode: refuse to load Python code (a ``Lambda`` layer's function, which Keras's
            format stores as bytecode) with a ValueError; default True, as in Keras.
            ``False`` loads it: only for files you trust.

    Raises:
        FileNotFoundError: no such file; also a ValueError, as Keras 3 raises ValueError
            ("File not found: filepath=...").
        ValueError: not a ``.keras`` zip, or a missing entry (the file is named).
        TypeError: an unknown class (named, with the file).
        ValueError: a ``Lambda`` layer's Python code with ``safe_mode=True`` (Keras's message).
        CheckpointError (a ValueError): the weights do not fit the model.
    """
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        hint = ""
        if os.path.exists(filepath + ".safetensors"):  # ModelCheckpoint("model.h5") wrote these
            hint = (
                f" Only the weights are there, in {filepath}.safetensors (a path not ending in "
                "`.keras` saves weights only: ModelCheckpoint, save_weights): rebuild the model "
                f"and call model.load_weights({filepath!r})."
            )
        raise ModelFileNotFoundError(
            f"File not found: filepath={filepath}. Please ensure the file is an accessible "
            f"`.keras` zip file.{hint}"
        )
    if not zipfile.is_zipfile(filepath):
        raise ValueError(
            f"load_model: {filepath} is not a .keras file (a zip archive written by "
            "model.save('....keras')). HDF5 and SavedModel files are not read by eagerkernel."
        )
    with zipfile.ZipFile(filepath) as zf:
        names = set(zf.namelist())
        for entry in (_CONFIG, _WEIGHTS):
            if entry not in names:
                raise ValueError(f"load_model: {filepath} has no {entry}; it is not a model file.")
        config = json.loads(zf.read(_CONFIG))
        try:
            with _SafeModeScope(safe_mode):
                model = deserialize_keras_object(config, custom_objects)
        except TypeError as e:
            raise TypeError(f"load_model({filepath!r}): {e}") from e
        compile_config = config.get("compile_config")
        if compile and compile_config:
            with custom_object_scope(custom_objects):  # a model may override compile_from_config
                model.compile_from_config(compile_config)
        with tempfile.TemporaryDirectory() as tmp:
            partial = not (compile and compile_config)
            saving_state.load_state(model, zf, filepath, tmp, partial)  # the layers' hooks
    return model


def load_weights_from_archive(model, filepath: str) -> None:
    """``model.load_weights("m.keras")``: the weights (and the layers' own state) that
    ``model.save("m.keras")`` stored, into ``model``, whose architecture must match (follows
    Keras 3's ``load_weights`` of a ``.keras`` file; the config in the file is not read).

    Raises:
        ValueError: not a model archive, or weights that do not fit the model (the file and
            the layer are named).
    """
    with zipfile.ZipFile(filepath) as zf:
        if _WEIGHTS not in set(zf.namelist()):
            raise ValueError(f"load_weights: {filepath} has no {_WEIGHTS}; it is not a model file.")
        with tempfile.TemporaryDirectory() as tmp:
            saving_state.load_state(model, zf, filepath, tmp, partial=True, op="load_weights")


def model_from_json(json_string: str, custom_objects=None):
    """The model `Model.to_json` describes, with fresh weights (follows
    `tf.keras.models.model_from_json`)."""
    return deserialize_keras_object(json.loads(json_string), custom_objects)


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model with the same configuration and freshly initialized weights (follows
    `tf.keras.models.clone_model` for Sequential and functional models).

    Raises:
        NotImplementedError: ``input_tensors`` or ``clone_function`` (not supported).
    """
    for arg, value in (("input_tensors", input_tensors), ("clone_function", clone_function)):
        if value is not None:
            raise NotImplementedError(f"clone_model: {arg}= is not supported.")
    return deserialize_keras_object(serialize_keras_object(model))


def save_weights(model, filepath, overwrite=True, **kwargs) -> None:
    """``model.save_weights(filepath, overwrite, ...)`` (follows `keras.saving.save_weights`)."""
    model.save_weights(filepath, overwrite=overwrite, **kwargs)


def load_weights(model, filepath, skip_mismatch=False, **kwargs):
    """``model.load_weights(filepath)`` (follows `keras.saving.load_weights`).

    Raises:
        NotImplementedError: ``skip_mismatch=True`` (a weight that does not fit raises).
    """
    if skip_mismatch:
        raise NotImplementedError(
            "keras.saving.load_weights: skip_mismatch=True is not supported; a saved weight "
            "that does not fit its variable raises."
        )
    if kwargs:
        raise TypeError(f"keras.saving.load_weights: unexpected arguments {sorted(kwargs)}.")
    return model.load_weights(filepath)
